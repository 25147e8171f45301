#!/usr/bin/env python3
"""The storq Python package on the file test_h5_writer leaves (its synthetic values are known),
and the schema checker on damaged copies of that file.

usage: test_python_package.py test_h5_writer.h5 SCRATCH_DIR   (PYTHONPATH=io/python, MPLBACKEND=Agg)
"""
import math
import os
import shutil
import sys

import h5py
import numpy as np

import storq
import storq.plot
import storq.report

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import check_h5_schema  # noqa: E402

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print(f"FAIL: {what}", file=sys.stderr)


def test_reading(r):
    check(r.attrs["format"] == "storq" and r.attrs["model"] == "fake", f"attrs {r.attrs}")
    check(r.attrs["seed"] == 7 and r.attrs["replications"] == 4, "seed and replications")
    idx = r.index
    check(list(idx.columns) == ["point", "n", "lambda", "policy"], f"index columns {idx.columns}")
    check(list(idx["n"]) == [10, 20, 40] and list(idx["policy"]) == ["BR", "BS", "WF-long"],
          f"index values\n{idx}")
    check(r.units["lambda"] == "1/time" and r.units["policy"] == "", f"units {r.units}")
    check(r.points() == [0, 1, 2], f"points {r.points()}")
    check(r.params(1) == {"n": 20, "lambda": 0.5, "policy": "BS"}, f"params {r.params(1)}")

    t = r.table()
    check(len(t) == 3, f"table rows\n{t}")
    for col in ("n", "lambda", "policy", "delay_mean", "delay_mean_ci95", "u_l1", "u_l1_noise"):
        check(col in t.columns, f"table lacks {col}")
    check(np.allclose(t["delay_mean"], [1.15, 2.15, 3.15]), "table delay_mean")
    check(np.allclose(t["u_l1"], [0.05, 0.025, 0.0125]), "table u_l1")
    check("u" not in t.columns, "vectors do not belong in the table")

    u = r.observable(0, "u")
    check(u["kind"] == "vector" and u["axis_name"] == "level", f"u attrs {u}")
    check(np.allclose(u["mean"], [1, 0.5015, 0.2515, 0.1265, 0.064]), f"u mean {u['mean']}")
    check(r.observable(0, "u_t")["mean"].shape == (3, 2), "u_t shape")
    check(r.observables(0) == {"delay_mean": "scalar", "u": "vector", "u_t": "vector",
                               "delay": "histogram", "queue": "histogram"},
          f"observables {r.observables(0)}")
    shapes = {name: r.replications(0, name).shape for name in r.observables(0)}
    check(shapes == {"delay_mean": (4,), "u": (4, 5), "u_t": (4, 3, 2), "delay": (4,),
                     "queue": (4,)}, f"replication shapes {shapes}")
    check(np.allclose(r.theory(0, "u"), [1, 0.5, 0.25, 0.125, 0.0625]), "theory u")
    check(r.array_attrs(0, "theory", "u_upper")["grid"] == "u", "theory grid")
    check(r.comparison(2, "u_l1").tolist() == [0.0125], "comparison u_l1")


def test_quantiles(r):
    """The delay histogram holds the Exp(1) quantiles -ln(1 - (k + 0.5)/N), k < N; the estimate
    must lie within the stated 2^-sub_bits of the sample quantile (the smallest sample x with
    F_N(x) >= q), since both lie in the same bin."""
    n = 20000
    samples = -np.log(1 - (np.arange(n) + 0.5) / n)
    h = r.observable(0, "delay")
    bound = h["relative_resolution"]
    check(bound == 2.0 ** -4, f"relative_resolution {bound}")
    qs = [0.05, 0.25, 0.5, 0.9, 0.99, 0.999]
    est = r.quantile(0, "delay", qs)
    for q, e in zip(qs, est):
        truth = samples[math.ceil(q * n) - 1]
        check(abs(e - truth) <= bound * truth, f"quantile {q}: {e} vs {truth}, bound {bound}")
    check(abs(r.quantile(0, "delay", 0.5) - math.log(2)) < 2 ** -4 * math.log(2), "median")
    low = r.quantile(0, "delay", 1e-4)  # in the underflow: between min and the first edge
    check(h["min"] <= low <= h["bin_edges"][0], f"underflow quantile {low}")
    check(r.quantile(0, "delay", 0.0) == h["min"] and r.quantile(0, "delay", 1.0) == h["max"],
          "quantiles 0 and 1 are min and max")
    # the CDF at the bin edges: exact fractions of the samples below each edge
    x, F = r.cdf(0, "delay")
    check(len(x) == len(h["counts"]) + 1 and np.all(np.diff(F) >= 0), "cdf shape and order")
    for j in (0, len(x) // 3, len(x) // 2, len(x) - 1):
        check(abs(F[j] - np.mean(samples < x[j])) < 1e-12, f"cdf at edge {x[j]}: {F[j]}")
    # queue: 0..9 four times each; integer bins 0..7, values 8 and 9 overflow.
    check(r.quantile(0, "queue", 0.5) == 4.0, f"integer median {r.quantile(0, 'queue', 0.5)}")
    check(r.quantile(0, "queue", 0.05) == 0.0, "integer quantile 0.05")


def is_png(path):
    with open(path, "rb") as fp:
        return fp.read(8) == b"\x89PNG\r\n\x1a\n"


def test_plots(r, scratch):
    import matplotlib.pyplot as plt

    ax = storq.plot.cdf(r, [0], name="delay")
    check(len(ax.get_lines()) == 1 and ax.get_ylim() == (0.0, 1.0), "cdf plot")
    plt.close("all")
    ax = storq.plot.occupancy(r, 2)
    check(ax.get_yscale() == "log", "occupancy on a log scale")
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    check(any("u_lower" in s for s in labels) and any("u_upper" in s for s in labels),
          f"occupancy legend {labels}")
    out = os.path.join(scratch, "occupancy.png")
    ax.figure.savefig(out)
    check(is_png(out), "occupancy.png")
    plt.close(ax.figure)

    ax = storq.plot.convergence(r, x="n", name="u_l1")
    check(ax.get_xscale() == "log" and ax.get_yscale() == "log", "convergence log-log")
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    check("slope -1" in labels and any("noise floor" in s for s in labels),
          f"convergence legend {labels}")
    out = os.path.join(scratch, "convergence.png")
    ax.figure.savefig(out)
    check(is_png(out), "convergence.png")
    plt.close(ax.figure)

    out = os.path.join(scratch, "report.png")
    rc = storq.report.main([r.path, "--plot", out])
    check(rc == 0 and is_png(out), "python3 -m storq.report --plot")


def test_refusals(scratch):
    other = os.path.join(scratch, "other.h5")
    with h5py.File(other, "w") as f:
        f.attrs["format"] = "something-else"
    try:
        storq.open(other)
        check(False, "storq.open accepted a foreign file")
    except storq.FormatError as e:
        check("is not a storq results file" in str(e), str(e))


def damaged(path, scratch, name, change):
    """Copy the file, apply change(h5py.File), and return the checker's problems for the copy."""
    copy = os.path.join(scratch, name + ".h5")
    shutil.copy(path, copy)
    with h5py.File(copy, "r+") as f:
        change(f)
    checker = check_h5_schema.Checker(copy)
    checker.run()
    return checker.problems


def test_schema_checker(path, scratch):
    good = check_h5_schema.Checker(path)
    good.run()
    check(good.problems == [], f"the checker rejects the good file: {good.problems}")

    def set_counts(f):
        d = f["points/000001/observables/delay/counts"]
        d[0] = d[0] + 1

    def new_version(f):
        f.attrs["format_version"] = np.array([2, 0], dtype=np.int32)

    cases = {
        "counts": (set_counts, "count ="),
        "version": (new_version, "is not 1.x"),
        "replications": (lambda f: f.__delitem__("points/000000/replications/u"), "missing"),
        "status": (lambda f: f["points/000002"].attrs.__delitem__("status"),
                   "incomplete point"),
        "ci95": (lambda f: f.__delitem__("points/000000/observables/delay_mean/ci95"),
                 "missing dataset 'ci95'"),
        "grid": (lambda f: f["points/000000/theory/u"].attrs.__delitem__("grid"),
                 "missing attribute 'grid'"),
    }
    for name, (change, expect) in cases.items():
        problems = damaged(path, scratch, "damaged_" + name, change)
        check(any(expect in p for p in problems),
              f"checker missed damage '{name}' (wanted '{expect}'): {problems}")


def main():
    path, scratch = sys.argv[1], sys.argv[2]
    scratch = os.path.join(scratch, "python_package_test")
    os.makedirs(scratch, exist_ok=True)
    with storq.open(path) as r:
        test_reading(r)
        test_quantiles(r)
        test_plots(r, scratch)
    test_refusals(scratch)
    test_schema_checker(path, scratch)
    if failures:
        print(f"test_python_package: {len(failures)} check(s) failed", file=sys.stderr)
        return 1
    print("test_python_package: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
