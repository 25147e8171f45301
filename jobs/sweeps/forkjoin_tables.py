#!/usr/bin/env python3
"""The tables of docs/models/forkjoin.md from the forkjoin sweep files' results.

usage: PYTHONPATH=io/python python3 jobs/sweeps/forkjoin_tables.py DIR
DIR holds storage-tradeoff.h5, fixed-rate.h5, groups.h5, service.h5 and correlation.h5, written by
    storq run jobs/sweeps/forkjoin-NAME.ini -o DIR/NAME.h5
"""
import math
import os
import sys

import storq


def fmt(x, digits=4):
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    if math.isinf(x):
        return "inf"
    return f"{x:.{digits}g}"


def rows(path):
    r = storq.open(path)
    for pid in r.points():
        p = r.params(pid)
        o = r.observable(pid, "mean_response_time")
        th = {n: float(r.theory(pid, n).reshape(-1)[0]) for n in r.theory_names(pid)
              if r.theory(pid, n).size == 1}
        cm = {n: float(r.comparison(pid, n).reshape(-1)[0]) for n in r.comparison_names(pid)}
        extra = {}
        if "uncorrelated_mean_response_time" in r.observables(pid):
            u = r.observable(pid, "uncorrelated_mean_response_time")
            extra["T0"] = float(u["mean"])
        yield p, float(o["mean"]), float(o["ci95"]), th, cm, extra


def sim(m, ci):
    return f"{fmt(m)} ± {fmt(ci, 2)}"


def table(header, body):
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for line in body:
        print("| " + " | ".join(str(x) for x in line) + " |")
    print()


def main(d):
    print("### T(10,k) against k (storage-tradeoff.h5)\n")
    body = []
    for p, m, ci, th, cm, _ in rows(os.path.join(d, "storage-tradeoff.h5")):
        body.append([fmt(float(p["mu"])), p["k"], sim(m, ci), fmt(th.get("lower_bound")),
                     fmt(th.get("upper_bound_nn", th.get("upper_bound"))),
                     fmt(th.get("mean_response_time"))])
    body.sort(key=lambda line: (-float(line[0]), int(line[1])))
    table(["mu", "k", "simulated T (95% CI)", "lower bound", "upper bound", "exact"], body)

    print("### (n, n/2) at fixed storage 2 (fixed-rate.h5)\n")
    body = []
    for p, m, ci, th, cm, _ in rows(os.path.join(d, "fixed-rate.h5")):
        body.append([fmt(float(p["mu"])), f"({p['n']},{p['k']})", sim(m, ci), fmt(th.get("lower_bound")),
                     fmt(th.get("upper_bound")), fmt(th.get("mean_response_time"))])
    body.sort(key=lambda line: -float(line[0]))
    table(["mu", "(n,k)", "simulated T (95% CI)", "lower bound", "upper bound", "exact"], body)

    print("### (20,n,k) under three assignments (groups.h5)\n")
    by = {}
    for p, m, ci, th, cm, _ in rows(os.path.join(d, "groups.h5")):
        key = (p["n"], p["groups"], p["k"])
        by.setdefault(key, {})[p["assign"]] = (m, ci, th)
    body = []
    for (n, g, k), v in by.items():
        u = v["uniform"]
        body.append([f"(20,{n},{k})", str(g), sim(u[0], u[1]), fmt(u[2].get("lower_bound")),
                     fmt(u[2].get("upper_bound")), sim(*v["pod:2"][:2]), sim(*v["lwl"][:2]),
                     fmt(u[2].get("lower_bound_no_queueing"))])
    table(["system", "g", "uniform", "uniform lower", "uniform upper", "pod:2", "lwl",
           "no-queueing bound"], body)

    print("### Heavy tails: T(10,k), mu = 3 (service.h5)\n")
    by = {}
    for p, m, ci, th, cm, _ in rows(os.path.join(d, "service.h5")):
        by.setdefault(p["k"], {})[p["service"]] = (m, ci, th)
    body = []
    for k, v in by.items():
        line = [k]
        for s in ("exp", "pareto:4", "pareto:1.8"):
            m, ci, th = v[s]
            bound = th.get("mean_response_time", th.get("upper_bound"))
            line += [sim(m, ci), fmt(bound)]
        body.append(line)
    table(["k", "exp", "exp: exact or upper", "pareto:4", "pareto:4: exact or upper",
           "pareto:1.8", "pareto:1.8: exact or upper"], body)

    print("### Correlated tasks and the paper's eq. (15), mu = 3 (correlation.h5)\n")
    by = {}
    for p, m, ci, th, cm, ex in rows(os.path.join(d, "correlation.h5")):
        by.setdefault(p["k"], {})[p["correlation"]] = (m, ci, th, cm, ex)
    body = []
    for k, v in by.items():
        m0, ci0 = v[0.0][:2] if 0.0 in v else v["0"][:2]
        h = v.get(0.5, v.get("0.5"))
        o = v.get(1.0, v.get("1"))
        body.append([k, sim(m0, ci0), sim(h[0], h[1]), fmt(h[3].get("paper_eq15_sim")),
                     sim(o[0], o[1]), fmt(o[2].get("mean_response_time")),
                     fmt(o[2].get("paper_eq15"))])
    table(["k", "delta = 0", "delta = 0.5", "eq. (15) at 0.5 (companion T)", "delta = 1",
           "delta = 1 exact (M/M/1)", "eq. (15) at 1"], body)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
