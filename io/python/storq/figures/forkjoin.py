"""(n,k) fork-join with cancellation (paper 003): the delay-storage trade-off T(10,k), the (n, n/2)
series, (20,n,k) groups under three assignments, and correlated tasks against eq. (15)."""
import numpy as np

from . import errorbars, within_ci

MODEL = "forkjoin"
T = "mean_response_time"


def _col(w, name):
    return w[name] if name in w else np.full(len(w), np.nan)


def plot_against_k(ax, w, by, label, bounds=True):
    """T(n,k) against k, one series per value of `by`, with the split-merge upper and stage lower
    bounds as lines and exact values as crosses."""
    data = {}
    for value, g in w.groupby(by):
        g = g.sort_values("k")
        eb = errorbars(ax, g.k, g[T], g[T + "_ci95"], label(value), fmt="o-")
        color = eb[0].get_color()
        if bounds:
            ax.plot(g.k, _col(g, "upper_bound"), "--", color=color, lw=1)
            ax.plot(g.k, _col(g, "lower_bound"), ":", color=color, lw=1)
        exact = _col(g, T + "_theory")
        if np.isfinite(exact).any():
            ax.plot(g.k, exact, "kx", ms=8)
        data[str(value)] = {"k": g.k, "mean": g[T], "ci95": g[T + "_ci95"],
                            "upper": _col(g, "upper_bound"), "lower": _col(g, "lower_bound"),
                            "exact": exact}
    ax.set_xlabel("k")
    ax.set_ylabel("mean response time T")
    ax.set_yscale("log")
    return data


def _bound_checks(data, what):
    checks = []
    for key, s in data.items():
        mean, ci = np.asarray(s["mean"], float), np.asarray(s["ci95"], float)
        up, lo, ex = (np.asarray(s[k], float) for k in ("upper", "lower", "exact"))
        ok_up = np.isnan(up) | (mean <= up + 3 * ci)
        ok_lo = np.isnan(lo) | (mean >= lo - 3 * ci)
        checks.append((f"{what} {key}: between the stage lower and split-merge upper bounds (3 ci95)",
                       bool(np.all(ok_up & ok_lo))))
        has = np.isfinite(ex)
        if has.any():
            checks.append((f"{what} {key}: within 3 ci95 of the exact values ({int(has.sum())} points)",
                           within_ci(mean[has], ci[has], ex[has])))
    return checks


def figures(ctx):
    import matplotlib.pyplot as plt

    import storq

    arr = ctx.pick(300000, 50000, 12000)
    warm = ctx.pick(20000, 5000, 2000)
    reps = ctx.pick(8, 4, 3)
    ks = ctx.pick(None, None, [1, 2, 5, 10])
    trade = ctx.run("forkjoin-tradeoff", "jobs/sweeps/forkjoin-storage-tradeoff.ini", k=ks,
                    arrivals=arr, warmup=warm, r=reps)
    fixed = ctx.run("forkjoin-fixed-rate", "jobs/sweeps/forkjoin-fixed-rate.ini",
                    n=ctx.pick(None, None, [2, 4, 10]), k=ctx.pick(None, None, [1, 2, 5]),
                    mu=ctx.pick(None, None, [5, 1]),
                    arrivals=ctx.pick(400000, 60000, 12000), warmup=ctx.pick(100000, 20000, 3000), r=reps)
    groups = ctx.run("forkjoin-groups", "jobs/sweeps/forkjoin-groups.ini",
                     n=ctx.pick(None, None, [5] * 5), groups=ctx.pick(None, None, [4] * 5),
                     k=ctx.pick(None, None, [1, 2, 3, 4, 5]),
                     arrivals=ctx.pick(200000, 30000, 8000), warmup=warm, r=reps)
    corr = ctx.run("forkjoin-correlation", "jobs/sweeps/forkjoin-correlation.ini", k=ks,
                   arrivals=arr, warmup=warm, r=reps)

    with storq.open(trade) as r:
        fig, ax = plt.subplots(figsize=(6, 4.5))
        d = plot_against_k(ax, r.wide(), "mu", lambda v: f"mu = {v:.3g}")
        ax.legend(fontsize="small", title="sim (95% CI); -- upper, : lower bound; x exact",
                  title_fontsize="x-small")
        ctx.figure(fig, "forkjoin-tradeoff", "Fork-join (003, Fig. 3): T(10,k) vs k, lambda = 1, mu in {3, 1, 1/6}",
                   d, _bound_checks(d, "mu ="), ["forkjoin-tradeoff"], "Fig. 3 (paper 003)")

    with storq.open(fixed) as r:
        w = r.wide()
        fig, ax = plt.subplots(figsize=(6, 4.5))
        data = {}
        for mu, g in w.groupby("mu"):
            g = g.sort_values("n")
            eb = errorbars(ax, g.n, g[T], g[T + "_ci95"], f"mu = {mu:.3g}", fmt="o-")
            ax.plot(g.n, _col(g, "upper_bound"), "--", color=eb[0].get_color(), lw=1)
            ax.plot(g.n, _col(g, "lower_bound"), ":", color=eb[0].get_color(), lw=1)
            data[str(mu)] = {"n": g.n, "mean": g[T], "ci95": g[T + "_ci95"],
                             "upper": _col(g, "upper_bound"), "lower": _col(g, "lower_bound"),
                             "exact": _col(g, T + "_theory")}
        ax.set_xlabel("n (k = n/2)")
        ax.set_ylabel("mean response time T(n, n/2)")
        ax.set_yscale("log")
        ax.legend(fontsize="small")
        ctx.figure(fig, "forkjoin-n-n2", "Fork-join (003, Figs. 5-6): the (n, n/2) series, lambda = 1",
                   data, _bound_checks(data, "mu ="), ["forkjoin-fixed-rate"], "Figs. 5-6 (paper 003)")

    with storq.open(groups) as r:
        w = r.wide()
        sizes = sorted(w.n.unique())
        fig, axes = plt.subplots(1, len(sizes), figsize=(6 * len(sizes), 4.5), squeeze=False)
        data, checks = {}, []
        for ax, n in zip(axes[0], sizes):
            g = w[w.n == n]
            d = plot_against_k(ax, g, "assign", str, bounds=False)
            ax.set_title(f"(20, {n}, k): {20 // n} groups of {n}", fontsize="small")
            ax.legend(fontsize="small")
            data[f"n={n}"] = d
            uni, lwl = d.get("uniform"), d.get("lwl")
            if uni and lwl:
                checks.append((f"(20,{n},k): least-work-left no slower than uniform (3 ci95)",
                               bool(np.all(np.asarray(lwl["mean"]) <= np.asarray(uni["mean"])
                                           + 3 * (np.asarray(lwl["ci95"]) + np.asarray(uni["ci95"]))))))
            if "pod:2" in d and uni:
                checks.append((f"(20,{n},k): power-of-2 no slower than uniform (3 ci95)",
                               bool(np.all(np.asarray(d["pod:2"]["mean"]) <= np.asarray(uni["mean"])
                                           + 3 * (np.asarray(d["pod:2"]["ci95"]) + np.asarray(uni["ci95"]))))))
        ctx.figure(fig, "forkjoin-groups",
                   "Fork-join (003, Fig. 12): (20,5,k) and (20,10,k), uniform / power-of-2 / least-work-left, mu = 1/6",
                   data, checks, ["forkjoin-groups"], "Fig. 12 (paper 003)")

    with storq.open(corr) as r:
        w = r.wide()
        fig, ax = plt.subplots(figsize=(6, 4.5))
        data, checks = {}, []
        for delta, g in w.groupby("correlation"):
            g = g.sort_values("k")
            eb = errorbars(ax, g.k, g[T], g[T + "_ci95"], f"delta = {delta:g}", fmt="o")
            color = eb[0].get_color()
            eq15 = _col(g, "paper_eq15_sim")
            if np.isfinite(eq15).any():
                ax.plot(g.k, eq15, "-", color=color, label=f"eq. (15), delta = {delta:g}")
            exact = _col(g, T + "_theory")
            if np.isfinite(exact).any():
                ax.plot(g.k, exact, "--", color=color, label=f"exact M/M/1, delta = {delta:g}"
                        if delta == 1 else f"exact, delta = {delta:g}")
                has = np.isfinite(exact)
                checks.append((f"delta = {delta:g}: within 3 ci95 of the exact values",
                               within_ci(g[T][has], g[T + "_ci95"][has], exact[has])))
            data[str(delta)] = {"k": g.k, "mean": g[T], "ci95": g[T + "_ci95"], "eq15": eq15,
                                "exact": exact}
        ax.set_xlabel("k")
        ax.set_ylabel("mean response time T'(10,k)")
        ax.set_yscale("log")
        ax.legend(fontsize="x-small")
        ctx.figure(fig, "forkjoin-correlation",
                   "Fork-join (003, Fig. 9): correlated tasks, T'(10,k) vs eq. (15), lambda = 1, mu = 3",
                   data, checks, ["forkjoin-correlation"], "Fig. 9 (paper 003)")
