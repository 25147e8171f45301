"""(n,k) fork-join with cancellation (paper 003), in the paper's order: Fig. 3 (T(10,k) with its bounds
and the required storage, three panels), Figs. 4 and 6 (response-time CDFs), Fig. 5 (the (n, n/2)
series), Fig. 7 (fork-join against power-of-2 and least-work-left), Fig. 8 (heavy tails), Fig. 9
(correlated tasks against eq. (15)), Fig. 11 ((12,n,k)), Fig. 12 ((20,n,k) under three assignments),
and the generated tables of docs/models/forkjoin.md."""
import numpy as np

from . import errorbars, within_ci

MODEL = "forkjoin"
T = "mean_response_time"


def _col(w, name):
    return w[name] if name in w else np.full(len(w), np.nan)


def upper_curve(g):
    """The upper bound the paper draws: the split-merge bound (its eq. 6), and at k = n the
    Nelson-Tantawi (n,n) bound H_n/(n mu - lambda) it plots there instead (theory/upper_bound_nn)."""
    up = np.asarray(_col(g, "upper_bound"), float).copy()
    nn = np.asarray(_col(g, "upper_bound_nn"), float)
    up[np.isfinite(nn)] = nn[np.isfinite(nn)]
    return up


def plot_against_k(ax, w, by, label, bounds=True):
    """T(n,k) against k, one series per value of `by`, with the upper bound the paper draws
    (upper_curve) and the stage lower bound as lines and exact values as crosses."""
    data = {}
    for value, g in w.groupby(by):
        g = g.sort_values("k")
        exact = np.asarray(_col(g, T + "_theory"), float)
        finite = ~np.isinf(exact)  # infinite in theory: the simulated mean is only the run's
        eb = errorbars(ax, g.k[finite], g[T][finite], g[T + "_ci95"][finite], label(value), fmt="o-")
        color = eb[0].get_color()
        if (~finite).any():
            ax.plot(g.k[~finite], g[T][~finite], "o", mfc="none", color=color, ms=7)
        up = upper_curve(g)
        if bounds:
            ax.plot(g.k, up, "--", color=color, lw=1)
            ax.plot(g.k, _col(g, "lower_bound"), ":", color=color, lw=1)
        if np.isfinite(exact).any():
            ax.plot(g.k, np.where(np.isfinite(exact), exact, np.nan), "kx", ms=8)
        data[str(value)] = {"k": g.k, "mean": g[T], "ci95": g[T + "_ci95"],
                            "upper": up, "upper_nn": _col(g, "upper_bound_nn"),
                            "lower": _col(g, "lower_bound"), "exact": exact}
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


def _arr(s, key):
    return np.asarray(s[key], float)


def _faster(a, b):
    """a's means no slower than b's within 3 summed ci95 at every point."""
    return bool(np.all(_arr(a, "mean") <= _arr(b, "mean") + 3 * (_arr(a, "ci95") + _arr(b, "ci95"))))


def _storage_axis(ax, n, ks):
    """The paper's required-storage axis n/k (right), as in its Fig. 3b."""
    ax2 = ax.twinx()
    ks = np.asarray(ks, float)
    ax2.plot(ks, n / ks, "s-", color="tab:gray", ms=3, lw=0.8, label="required storage n/k")
    ax2.set_ylabel("storage n/k (units)", color="tab:gray")
    ax2.tick_params(axis="y", colors="tab:gray")
    return ax2


def _fig3(ctx, plt, storq, trade):
    with storq.open(trade) as r:
        w = r.wide()
    mus = sorted(w.mu.unique(), reverse=True)
    fig, axes = plt.subplots(1, len(mus), figsize=(5.2 * len(mus), 4.5), squeeze=False)
    data, checks = {}, []
    for ax, mu, tag in zip(axes[0], mus, "abc"):
        d = plot_against_k(ax, w[w.mu == mu], "mu", lambda v: "T(10,k) simulation")
        ax.set_yscale("linear")
        ax.set_title(f"({tag}) lambda = 1, mu = {mu:.3g}", fontsize="small")
        s = d[str(mu)]
        kk, nnv = np.asarray(s["k"], float), _arr(s, "upper_nn")
        ax.plot(kk[np.isfinite(nnv)], nnv[np.isfinite(nnv)], "v", color="C3", ms=7,
                label="k = n: (n,n) bound H_n/(n mu - lambda)")
        ax.plot([], [], "--", color="C0", lw=1, label="split-merge upper bound (eq. 6)")
        ax.plot([], [], ":", color="C0", lw=1, label="stage lower bound (eq. 10)")
        ax.plot([], [], "kx", label="exact (10,1)")
        ax.legend(fontsize="xx-small", loc="upper center")
        ax2 = _storage_axis(ax, 10, s["k"])
        ax2.legend(fontsize="xx-small", loc="lower center")
        data[str(mu)] = s
        checks += _bound_checks(d, f"mu = {mu:.3g}:")
    nn = {m: _arr(data[str(m)], "upper_nn")[-1] for m in mus}
    sm_last = {}
    with storq.open(trade) as r:
        w2 = r.wide()
    for m in mus:
        g = w2[w2.mu == m].sort_values("k")
        sm_last[m] = float(_col(g, "upper_bound").iloc[-1]) if "upper_bound" in g else np.nan
    s6 = data[str(mus[-1])]
    m6 = _arr(s6, "mean")
    kmin = int(np.asarray(s6["k"])[int(np.argmin(m6))])
    void = [int(k) for k, u in zip(np.asarray(s6["k"]), _arr(s6, "upper")) if not np.isfinite(u)]
    checks.append(("k = n: the (n,n) bound H_n/(n mu - lambda) is drawn at every mu (finite)",
                   all(np.isfinite(v) for v in nn.values())))
    caption = (
        "T(10,k) against k for lambda = 1 and mu = 3, 1, 1/6 (panels a-c as in the paper's Fig. 3), between the "
        "upper bound the paper draws (dashed: the split-merge bound, eq. 6, for k < n and, at k = n, the "
        "Nelson-Tantawi (n,n) bound H_n/(n mu - lambda), storq's theory/upper_bound_nn) and the stage lower bound "
        "(dotted, eq. 10), with the exact (10,1) value 1/(10 mu - 1) (crosses) and the required storage n/k on the "
        f"right axis. At k = n = 10 the drawn upper bound is {nn[mus[0]]:.4f} at mu = {mus[0]:g} (the paper's curve: "
        f"about 0.101; the split-merge bound there would be {sm_last[mus[0]]:.4f}), {nn[mus[1]]:.4f} at mu = "
        f"{mus[1]:g} and {nn[mus[-1]]:.3f} at mu = 1/6, where the split-merge bound is void for k = "
        f"{', '.join(map(str, void)) if void else 'none'} (lambda E[S] >= 1). As in the paper, T rises with k for "
        f"mu = 3 and 1 and for mu = 1/6 first falls, then rises ({m6[0]:.3f} at k = 1, least {m6.min():.3f} at "
        f"k = {kmin}, {m6[-1]:.3f} at k = 10); the bounds loosen as k grows and mu falls.")
    ctx.figure(fig, "forkjoin-tradeoff", "Fork-join (003, Fig. 3): T(10,k) and the storage n/k vs k, lambda = 1, "
               "mu = 3, 1, 1/6", data, checks, ["forkjoin-tradeoff"], "Fig. 3 (paper 003)",
               paper_ref=["003 Fig. 3"], caption=caption)
    return data


def _cdf_panel(ctx, plt, storq, run, pairs, stem, title, ref, what):
    """Response-time CDFs of the listed (n,k) points beside the single disk, with the exact
    exponential CDF of the (n,1) points (M/M/1 at rate n mu; the single disk at rate mu)."""
    with storq.open(run) as r:
        fig, ax = plt.subplots(figsize=(6, 4.5))
        data, checks = {}, []
        pts = {}
        for pid in r.points():
            p = r.params(pid)
            pts[(int(p["n"]), int(p["k"]))] = (pid, float(p["mu"]), float(p["lambda"]))
        xs = np.linspace(0, 0.2, 201)
        med = {}
        for (n, k) in pairs:
            pid, mu, lam = pts[(n, k)]
            x, F = r.cdf(pid, "response_time")
            keep = x <= 0.25  # the drawn range (the histogram spans 1e-6 to 1e9 task means)
            x, F = x[keep], F[keep]
            lab = "single disk (1,1)" if n == 1 else f"({n},{k}), storage {n / k:g}"
            line = ax.step(x, F, where="post", label=lab)[0]
            Fi = np.interp(xs, x, F)
            med[f"{n},{k}"] = float(np.interp(0.5, F, x))
            entry = {"t": xs, "F": Fi, "median": med[f"{n},{k}"]}
            if k == 1:
                ex = 1 - np.exp(-(n * mu - lam) * xs)
                ax.plot(xs, ex, ":", color=line.get_color(), lw=1.5)
                dev = float(np.max(np.abs(Fi - ex)))
                entry["exact"], entry["max_deviation"] = ex, dev
                checks.append((f"({n},1): CDF within 0.02 of the exact exponential of rate n mu - lambda "
                               f"(max {dev:.4f}; bins of 2^-7 relative width)", dev < 0.02))
            data[f"{n},{k}"] = entry
        ax.set_xlim(0, 0.2)
        ax.set_xlabel("response time")
        ax.set_ylabel("fraction of completed downloads")
        ax.legend(fontsize="small", title="dotted: exact (n,1) and single disk", title_fontsize="x-small")
        single = data["1,1"]["F"]
        others = [v["F"] for kk, v in data.items() if kk != "1,1"]
        checks.append(("every fork-join CDF above the single disk's from t = 0.15 on",
                       bool(all(np.all(o[xs >= 0.15] >= single[xs >= 0.15] - 0.01) for o in others))))
        at = int(np.argmin(np.abs(xs - 0.1)))
        parts = ", ".join(f"({kk.replace(',', ', ')}) {data[kk]['F'][at]:.3f}" for kk in data if kk != "1,1")
        caption = (f"{what} At t = 0.1 the fraction of completed downloads is {data['1,1']['F'][at]:.3f} for the "
                   f"single disk (exact {1 - np.exp(-2 * 0.1):.3f}) and {parts}; medians "
                   + ", ".join(f"({kk}) {v:.4f}" for kk, v in med.items()) + ".")
        ctx.figure(fig, stem, title, data, checks, ["forkjoin-cdf"], ref[0], paper_ref=ref, caption=caption)


def figures(ctx):
    import matplotlib.pyplot as plt

    import storq

    arr = ctx.pick(300000, 50000, 12000)
    warm = ctx.pick(20000, 5000, 2000)
    reps = ctx.pick(8, 4, 3)
    ks = ctx.pick(None, None, [1, 2, 5, 10])
    trade = ctx.run("forkjoin-tradeoff", "jobs/sweeps/forkjoin-storage-tradeoff.ini", k=ks,
                    arrivals=arr, warmup=warm, r=reps)
    cdf = ctx.run("forkjoin-cdf", "jobs/sweeps/forkjoin-cdf.ini", arrivals=ctx.pick(200000, 40000, 10000),
                  warmup=warm, r=reps)
    fixed = ctx.run("forkjoin-fixed-rate", "jobs/sweeps/forkjoin-fixed-rate.ini",
                    n=ctx.pick(None, None, [2, 4, 10]), k=ctx.pick(None, None, [1, 2, 5]),
                    mu=ctx.pick(None, None, [5, 1]),
                    arrivals=ctx.pick(400000, 60000, 12000), warmup=ctx.pick(100000, 20000, 3000), r=reps)
    f7 = ctx.run("forkjoin-fig7", "jobs/sweeps/forkjoin-fig7.ini", mu=ctx.pick(None, None, [20, 2, 0.5]),
                 arrivals=ctx.pick(100000, 20000, 5000), warmup=warm, r=reps)
    service = ctx.run("forkjoin-service", "jobs/sweeps/forkjoin-service.ini", k=ks,
                      service="exp,pareto:4,pareto:1.8,det", arrivals=ctx.pick(300000, 50000, 30000), warmup=warm,
                      r=ctx.pick(8, 4, 4))
    corr = ctx.run("forkjoin-correlation", "jobs/sweeps/forkjoin-correlation.ini", k=ks,
                   arrivals=arr, warmup=warm, r=reps)
    f11 = ctx.run("forkjoin-fig11", "jobs/sweeps/forkjoin-fig11.ini",
                  n=ctx.pick(None, None, [6, 6, 12, 12]), groups=ctx.pick(None, None, [2, 2, 1, 1]),
                  k=ctx.pick(None, None, [1, 3, 1, 6]),
                  arrivals=ctx.pick(100000, 20000, 5000), warmup=warm, r=reps)
    groups = ctx.run("forkjoin-groups", "jobs/sweeps/forkjoin-groups.ini",
                     n=ctx.pick(None, None, [5] * 5), groups=ctx.pick(None, None, [4] * 5),
                     k=ctx.pick(None, None, [1, 2, 3, 4, 5]),
                     arrivals=ctx.pick(200000, 30000, 8000), warmup=warm, r=reps)

    _fig3(ctx, plt, storq, trade)
    _cdf_panel(ctx, plt, storq, cdf, [(1, 1), (10, 1), (10, 5), (10, 10)], "forkjoin-cdf-10k",
               "Fork-join (003, Fig. 4): CDFs of (10,k), k = 1, 5, 10, and one disk", ["003 Fig. 4"],
               "Response-time CDFs of the (10,k) systems for k = 1, 5, 10 (storage 10, 2 and 1 units) beside a single "
               "disk holding the whole file (an M/M/1 queue at rate mu), lambda = 1, mu = 3, from storq's response-time "
               "histogram (bins of 2^-7 relative width); dotted: the exact exponential CDFs of the (10,1) system and "
               "the single disk. As in the paper's Fig. 4, every coded system beats the single disk, even k = 10 at "
               "the same storage.")
    _cdf_panel(ctx, plt, storq, cdf, [(1, 1), (2, 1), (4, 2), (10, 5)], "forkjoin-cdf-n-n2",
               "Fork-join (003, Fig. 6): CDFs of (n, n/2), k = 1, 2, 5, and one disk",
               ["003 Fig. 6"],
               "Response-time CDFs of (n, n/2) systems (storage 2) for k = 1, 2, 5 beside a single disk. The "
               "extraction lost Fig. 6's rates; storq uses Fig. 4's lambda = 1, mu = 3. As in the paper, more disks at "
               "the same storage shorten the response time.")

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
        ax.legend(fontsize="small", title="-- upper, : lower bound", title_fontsize="x-small")
        lo = data[str(min(float(m) for m in data))]
        n_, m_, c_ = np.asarray(lo["n"]), _arr(lo, "mean"), _arr(lo, "ci95")
        rel = max(float((_arr(s, "upper")[-1] - _arr(s, "lower")[-1]) / _arr(s, "mean")[-1]) for s in data.values())
        caption = (
            "T(n, n/2) at the fixed storage expansion 2 (lambda = 1; mu = 5, 1, 0.51) with the split-merge upper and "
            "stage lower bounds, the paper's Fig. 5 (which draws the bounds only; storq adds the simulation). As in "
            f"the paper, T falls with n at every mu, fastest for small n and mu (mu = {min(float(m) for m in data):g}: "
            f"{m_[1]:.4g} at n = {n_[1]} to {m_[-1]:.4g} at n = {n_[-1]}; {m_[0]:.3g} +- {c_[0]:.2g} at n = {n_[0]} "
            f"against the exact {_arr(lo, 'exact')[0]:.3g}, near saturation), and the bounds pinch: at n = "
            f"{n_[-1]} they are at most {100 * rel:.1f}% of T apart.")
        ctx.figure(fig, "forkjoin-n-n2", "Fork-join (003, Fig. 5): the (n, n/2) series, lambda = 1",
                   data, _bound_checks(data, "mu ="), ["forkjoin-fixed-rate"], "Fig. 5 (paper 003)",
                   paper_ref=["003 Fig. 5"], caption=caption)

    with storq.open(f7) as r:
        w = r.wide()
        w["system"] = [f"({n},{k}) fork-join" if g == 1 else ("power-of-2" if a == "pod:2" else "least-work-left (power-of-10)")
                       for n, k, g, a in zip(w["n"], w["k"], w["groups"], w["assign"])]
        fig, ax = plt.subplots(figsize=(6, 4.5))
        data = {}
        for name in ["(10,1) fork-join", "(20,2) fork-join", "power-of-2", "least-work-left (power-of-10)"]:
            g = w[w.system == name].copy()
            g["inv_mu"] = 1 / g.mu
            g = g.sort_values("inv_mu")
            eb = errorbars(ax, g.inv_mu, g[T], g[T + "_ci95"], name, fmt="o-")
            ex = _col(g, T + "_theory")
            if np.isfinite(np.asarray(ex, float)).any():
                ax.plot(g.inv_mu, ex, "kx", ms=7)
            data[name] = {"inv_mu": g.inv_mu, "mean": g[T], "ci95": g[T + "_ci95"], "exact": ex,
                          "lower": _col(g, "lower_bound"), "upper": _col(g, "upper_bound"),
                          "no_queueing": _col(g, "lower_bound_no_queueing")}
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("1/mu: mean time to read one unit of content")
        ax.set_ylabel("mean response time")
        ax.legend(fontsize="x-small", title="storage 10 units each; x exact", title_fontsize="x-small")
        fj, p2, lw = data["(10,1) fork-join"], data["power-of-2"], data["least-work-left (power-of-10)"]
        f20 = data["(20,2) fork-join"]
        checks = [("(10,1): within 3 ci95 of the exact 1/(10 mu - lambda)", within_ci(fj["mean"], fj["ci95"], fj["exact"])),
                  ("least-work-left: within 3 ci95 of the exact M/M/10 value", within_ci(lw["mean"], lw["ci95"], lw["exact"])),
                  ("(10,1) and (20,2) fork-join faster than power-of-2 and least-work-left at every 1/mu (3 ci95)",
                   _faster(fj, p2) and _faster(fj, lw) and _faster(f20, p2) and _faster(f20, lw)),
                  ("least-work-left no slower than power-of-2 (3 ci95)", _faster(lw, p2)),
                  ("(20,2) within its bounds (3 ci95)",
                   bool(np.all((_arr(f20, "mean") <= _arr(f20, "upper") + 3 * _arr(f20, "ci95"))
                               & (_arr(f20, "mean") >= _arr(f20, "lower") - 3 * _arr(f20, "ci95")))))]
        x = np.asarray(fj["inv_mu"], float)
        i = len(x) - 1
        caption = (
            "Mean response time against 1/mu (lambda = 1) of the (10,1) and (20,2) fork-join systems and of 10 disks "
            "each holding a full copy with power-of-2 or least-work-left assignment (the paper's power-of-10): every "
            "system uses 10 units of storage. As in the paper's Fig. 7, both fork-join systems are faster at every "
            f"1/mu (at 1/mu = {x[i]:g}: {_arr(fj, 'mean')[i]:.3g} and {_arr(f20, 'mean')[i]:.3g} against "
            f"{_arr(p2, 'mean')[i]:.3g} and {_arr(lw, 'mean')[i]:.3g}; at 1/mu = {x[0]:g}: {_arr(fj, 'mean')[0]:.3g} "
            f"against {_arr(lw, 'mean')[0]:.3g}), and power-of-2 is only slightly worse than least-work-left (at most "
            f"{100 * np.max(_arr(p2, 'mean') / _arr(lw, 'mean') - 1):.1f}%). Crosses: exact values, (10,1) "
            "1/(10 mu - lambda) and least-work-left, which over single-disk copies is the M/M/10 queue (storq's "
            "Erlang C value).")
        ctx.figure(fig, "forkjoin-fig7", "Fork-join (003, Fig. 7): fork-join vs power-of-2 and LWL",
                   data, checks, ["forkjoin-fig7"], "Fig. 7 (paper 003)",
                   paper_ref=["003 Fig. 7"], caption=caption)

    with storq.open(service) as r:
        w = r.wide()
        fig, ax = plt.subplots(figsize=(6, 4.5))
        names = {"exp": "exponential", "pareto:4": "Pareto, alpha = 4", "pareto:1.8": "Pareto, alpha = 1.8",
                 "det": "Pareto, alpha = inf (deterministic)"}
        d = plot_against_k(ax, w, "service", lambda v: names.get(v, v), bounds=False)
        for key, s in d.items():
            ax.plot(np.asarray(s["k"]), s["upper"], "--", lw=0.8, color="gray")
        ax.set_ylabel("mean response time T(10,k)")
        ax.legend(fontsize="x-small", title="-- split-merge upper bound; x exact; o hollow: infinite in theory",
                  title_fontsize="xx-small")
        checks = _bound_checks({k: dict(v, lower=np.full(len(v["k"]), np.nan)) for k, v in d.items()}, "service")
        best = {key: int(np.asarray(s["k"])[int(np.nanargmin(np.where(np.isinf(_arr(s, "exact")), np.nan, _arr(s, "mean"))))])
                for key, s in d.items()}
        if "det" in d:
            checks.append(("alpha = inf (det): within 3 ci95 of the exact M/D/1 values",
                           within_ci(*(np.asarray(d["det"][c], float) for c in ("mean", "ci95", "exact")))))
        inf_k = [int(k) for k, e in zip(np.asarray(d["pareto:1.8"]["k"]), _arr(d["pareto:1.8"], "exact")) if np.isinf(e)] \
            if "pareto:1.8" in d else []
        caption = (
            "T(10,k) against k for exponential tasks and Pareto tasks of the same mean 1/(k mu) with alpha = 1.8, 4 "
            "and infinity (deterministic tasks), lambda = 1, mu = 3, with the split-merge upper bound of each law "
            "(exact order-statistic moments) and the exact values where known (crosses: (10,1) for every law, every k "
            "for deterministic tasks, which keep the nodes in lock-step: M/D/1). The best k: "
            + ", ".join(f"{names[k]} k = {v}" for k, v in best.items() if k in names)
            + "; as in the paper's Fig. 8, the smaller alpha, the smaller the best k among the Pareto laws, while "
              "exponential tasks (whose restarts are memoryless) are best at k = 1"
            + (f". At k = {', '.join(map(str, inf_k))} with alpha = 1.8 the mean is infinite (each node an M/G/1 queue "
               "with infinite-variance service): the hollow marker is only the run's average." if inf_k else "."))
        ctx.figure(fig, "forkjoin-service", "Fork-join (003, Fig. 8): T(10,k), exp and Pareto alpha = 1.8, 4, inf",
                   d, checks, ["forkjoin-service"], "Fig. 8 (paper 003)",
                   paper_ref=["003 Fig. 8"], caption=caption)
        service_w = w

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
        h = data.get("0.5")
        cap_h = ""
        if h is not None:
            rel = (np.asarray(h["eq15"], float) - _arr(h, "mean")) / _arr(h, "mean")
            kk = np.asarray(h["k"])
            kmin = int(kk[int(np.argmin(_arr(h, "mean")))])
            cap_h = (f" and is least at k = {kmin} for delta = 0.5, where eq. (15), stated as an equality in the paper, "
                     f"is an approximation: {100 * rel[0]:+.0f}% off the simulation at k = {kk[0]}, "
                     f"{100 * rel[-1]:+.1f}% at k = {kk[-1]}")
        caption = (
            "T'(10,k) with correlated tasks, delta = 0, 0.5, 1 (lambda = 1, mu = 3), with the paper's eq. (15) "
            "evaluated with the coupled delta = 0 run and, at delta = 1, the exact M/M/1 value 1/(3k - 1). As in the "
            "paper's Fig. 9, correlation removes coding's diversity: T' rises with k at delta = 0, falls at delta = 1 "
            f"(within its CI of the exact values){cap_h}. The paper's delta = 1 curve is eq. (15)'s 1/(k mu), which "
            "ignores queueing (docs/models/forkjoin.md).")
        ctx.figure(fig, "forkjoin-correlation",
                   "Fork-join (003, Fig. 9): correlated tasks, T'(10,k) and eq. (15)",
                   data, checks, ["forkjoin-correlation"], "Fig. 9 (paper 003)", paper_ref=["003 Fig. 9"],
                   caption=caption)
        corr_w = w

    with storq.open(f11) as r:
        w = r.wide()
        fig, ax = plt.subplots(figsize=(6.5, 4.5))
        w["label"] = [f"(12, {n}, k) {'exponential' if s == 'exp' else 'Pareto, alpha = 1.8'}"
                      for n, s in zip(w.n, w.service)]
        d = plot_against_k(ax, w, "label", str, bounds=False)
        ax.set_ylabel("mean response time T(12,n,k)")
        ax.legend(fontsize="x-small", title="x exact; o hollow: infinite in theory", title_fontsize="xx-small",
                  loc="upper center")
        checks = _bound_checks(d, "(12,n,k)")
        e6, e12 = d.get("(12, 6, k) exponential"), d.get("(12, 12, k) exponential")
        text = ""
        if e6 and e12:
            same = [i for i, k in enumerate(np.asarray(e12["k"])) if k in set(np.asarray(e6["k"]).tolist())]
            j6 = [list(np.asarray(e6["k"])).index(np.asarray(e12["k"])[i]) for i in same]
            checks.append(("exponential: n = 12 no slower than n = 6 at the same k (3 ci95)",
                           bool(np.all(_arr(e12, "mean")[same] <= _arr(e6, "mean")[j6]
                                       + 3 * (_arr(e12, "ci95")[same] + _arr(e6, "ci95")[j6])))))
        p6, p12 = d.get("(12, 6, k) Pareto, alpha = 1.8"), d.get("(12, 12, k) Pareto, alpha = 1.8")
        if p6 and p12:
            m6 = {int(k): m for k, m, e in zip(np.asarray(p6["k"]), _arr(p6, "mean"), _arr(p6, "exact")) if not np.isinf(e)}
            m12 = {int(k): m for k, m, e in zip(np.asarray(p12["k"]), _arr(p12, "mean"), _arr(p12, "exact")) if not np.isinf(e)}
            pairs = [(a, b) for a in m6 for b in m12 if 12 / a <= 12 / b + 1e-9 and m6[a] < m12[b]]
            if pairs:
                a, b = max(pairs, key=lambda ab: (ab[1], -ab[0]))
                text = (f" With Pareto tasks this monotonicity fails: (12,6,{a}) (storage {12 / a:g} units) gives "
                        f"{m6[a]:.4f}, below (12,12,{b}) (storage {12 / b:g} units) at {m12[b]:.4f}, as in the paper's "
                        "example.")
        caption = (
            "T(12,n,k) for n = 6 (two groups, uniform assignment) and n = 12 (one group), exponential and Pareto "
            "(alpha = 1.8) tasks of mean 1/(k mu), lambda = 1, mu = 3, with the exact (n,1) values. As in the "
            "paper's Fig. 11, with exponential tasks more disks per group (n = 12) or a smaller k always gives a "
            f"lower response time.{text} At k = n with alpha = 1.8 the mean is infinite (hollow markers: only the "
            "run's average).")
        ctx.figure(fig, "forkjoin-fig11", "Fork-join (003, Fig. 11): T(12,n,k), exp and Pareto alpha = 1.8",
                   d, checks, ["forkjoin-fig11"], "Fig. 11 (paper 003)",
                   paper_ref=["003 Fig. 11"], caption=caption)

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
                checks.append((f"(20,{n},k): least-work-left no slower than uniform (3 ci95)", _faster(lwl, uni)))
            if "pod:2" in d and uni:
                checks.append((f"(20,{n},k): power-of-2 no slower than uniform (3 ci95)", _faster(d["pod:2"], uni)))
        g5 = data[f"n={sizes[0]}"]
        ratio = max(float(np.max(_arr(v["pod:2"], "mean") / _arr(v["lwl"], "mean") - 1)) for v in data.values()
                    if "pod:2" in v and "lwl" in v)
        caption = (
            "The (20, n, k) system (4 groups of 5 or 2 groups of 10 disks; lambda = 1, mu = 1/6) under uniform, "
            "power-of-2 and least-work-left group assignment. As in the paper's Fig. 12, power-of-2 and "
            f"least-work-left are faster than uniform (groups of {sizes[0]}, k = 1: {_arr(g5['pod:2'], 'mean')[0]:.3g} "
            f"and {_arr(g5['lwl'], 'mean')[0]:.3g} against {_arr(g5['uniform'], 'mean')[0]:.3g}) and power-of-2 is only "
            f"slightly worse than least-work-left (at most {100 * ratio:.1f}%; with 2 groups they coincide, power-of-2 "
            "then sampling both).")
        ctx.figure(fig, "forkjoin-groups",
                   "Fork-join (003, Fig. 12): (20,5,k) and (20,10,k), uniform / power-of-2 / least-work-left, mu = 1/6",
                   data, checks, ["forkjoin-groups"], "Fig. 12 (paper 003)", paper_ref=["003 Fig. 12"],
                   caption=caption)
        groups_w = w

    _tables(ctx, storq, trade, fixed, groups_w, service_w, corr_w)


def _f(x):
    return float(x) if x is not None and np.isfinite(float(x)) else float("nan")


def _sim(m, ci):
    return f"{m:.4g} ± {ci:.2g}"


def _tables(ctx, storq, trade, fixed, groups_w, service_w, corr_w):
    """The tables of docs/models/forkjoin.md, generated (markdown + CSV) from the figures' runs."""
    with storq.open(trade) as r:
        w = r.wide().sort_values(["mu", "k"], ascending=[False, True])
    rows = [[float(m), int(k), _sim(t, c), _f(lo), _f(up), _f(nn), _f(ex)]
            for m, k, t, c, lo, up, nn, ex in zip(w.mu, w.k, w[T], w[T + "_ci95"], _col(w, "lower_bound"),
                                                   _col(w, "upper_bound"), _col(w, "upper_bound_nn"), _col(w, T + "_theory"))]
    lo_, up_ = np.array([r_[3] for r_ in rows]), np.array([r_[5] if np.isfinite(r_[5]) else r_[4] for r_ in rows])
    ok = np.isfinite(lo_) & np.isfinite(up_)
    k1 = [r_ for r_ in rows if r_[1] == 1]
    tchecks = [("stage lower bound <= the upper bound drawn, wherever both exist", bool(np.all(lo_[ok] <= up_[ok]))),
               ("(10,1) exact = 1/(10 mu - lambda) in every mu's row",
                bool(k1) and all(abs(r_[6] - 1 / (10 * r_[0] - 1)) <= 1e-12 * r_[6] for r_ in k1))]
    ctx.table("forkjoin-table-tradeoff", "Fork-join (003, Fig. 3): T(10,k) against k with its bounds",
              ["mu", "k", "simulated T (95% CI)", "stage lower bound", "split-merge upper bound",
               "(n,n) upper bound H_n/(n mu - lambda)", "exact"], rows, ["forkjoin-tradeoff"], ["003 Fig. 3"],
              "T(10,k), lambda = 1: the simulation, the stage lower bound (eq. 10), the split-merge upper bound (eq. 6; "
              "nan where lambda E[S] >= 1), the Nelson-Tantawi (n,n) bound the paper draws at k = n, and the exact "
              "(10,1) value.", checks=tchecks)
    with storq.open(fixed) as r:
        w = r.wide().sort_values(["mu", "n"], ascending=[False, True])
    rows = [[float(m), f"({n},{k})", _sim(t, c), _f(lo), _f(up), _f(ex)]
            for m, n, k, t, c, lo, up, ex in zip(w.mu, w.n, w.k, w[T], w[T + "_ci95"], _col(w, "lower_bound"),
                                                 _col(w, "upper_bound"), _col(w, T + "_theory"))]
    ctx.table("forkjoin-table-n-n2", "Fork-join (003, Fig. 5): (n, n/2) at storage 2",
              ["mu", "(n,k)", "simulated T (95% CI)", "lower bound", "upper bound", "exact"], rows,
              ["forkjoin-fixed-rate"], ["003 Fig. 5"],
              "T(n, n/2), lambda = 1: simulation beside the paper's two bounds (its Fig. 5 draws the bounds only).",
              checks=[("lower bound <= upper bound in every row where both exist",
                       all(not (np.isfinite(r_[3]) and np.isfinite(r_[4])) or r_[3] <= r_[4] + 1e-12 for r_ in rows))])
    by = {}
    for n, g, k, a, t, c, lo, up, nq in zip(groups_w["n"], groups_w["groups"], groups_w["k"], groups_w["assign"], groups_w[T],
                                            groups_w[T + "_ci95"], _col(groups_w, "lower_bound"),
                                            _col(groups_w, "upper_bound"), _col(groups_w, "lower_bound_no_queueing")):
        by.setdefault((int(n), int(g), int(k)), {})[a] = (t, c, lo, up, nq)
    rows = []
    for (n, g, k), v in sorted(by.items()):
        u = v.get("uniform", (np.nan,) * 5)
        rows.append([f"(20,{n},{k})", g, _sim(u[0], u[1]), _f(u[2]), _f(u[3]),
                     _sim(*v["pod:2"][:2]) if "pod:2" in v else "-", _sim(*v["lwl"][:2]) if "lwl" in v else "-",
                     _f(u[4])])
    ctx.table("forkjoin-table-groups", "Fork-join (003, Fig. 12): (20,n,k) under three assignments",
              ["system", "g", "uniform", "uniform lower", "uniform upper", "pod:2", "lwl", "no-queueing bound"], rows,
              ["forkjoin-groups"], ["003 Fig. 12"],
              "(20,n,k), lambda = 1, mu = 1/6: uniform assignment with its bounds (each group an (n,k) system at "
              "lambda/g), power-of-2 and least-work-left (only the no-queueing bound applies to them).",
              checks=[("one row per (20,n,k), each with all three assignments",
                       len(rows) == len(by) and all(len(v) == 3 for v in by.values()))])
    laws = ["exp", "pareto:4", "pareto:1.8", "det"]
    by = {}
    for k, s, t, c, ex, up in zip(service_w.k, service_w.service, service_w[T], service_w[T + "_ci95"],
                                  _col(service_w, T + "_theory"), _col(service_w, "upper_bound")):
        by.setdefault(int(k), {})[s] = (t, c, ex, up)
    rows = []
    for k, v in sorted(by.items()):
        line = [k]
        for s in laws:
            t, c, ex, up = v.get(s, (np.nan,) * 4)
            ex = float(ex) if ex is not None else float("nan")
            line += [_sim(t, c), "inf" if np.isinf(ex) else ex if not np.isnan(ex) else _f(up)]
        rows.append(line)
    cols = ["k"]
    for s in laws:
        cols += [s, f"{s}: exact or upper"]
    ctx.table("forkjoin-table-service", "Fork-join (003, Fig. 8): heavy tails, T(10,k), mu = 3", cols, rows,
              ["forkjoin-service"], ["003 Fig. 8"],
              "T(10,k), lambda = 1, mu = 3, for exponential, Pareto (alpha = 4, 1.8) and deterministic (alpha = inf) "
              "tasks of mean 1/(k mu): the simulation, and the exact value where known (else the split-merge upper "
              "bound; inf: the mean is infinite).",
              checks=[("det (alpha = inf) column: the exact M/D/1 value in every row",
                       all(abs(float(r_[8]) - (1 / (3 * r_[0]) + (1 / (3 * r_[0])) ** 2 / (2 * (1 - 1 / (3 * r_[0])))))
                           <= 1e-12 for r_ in rows))])
    by = {}
    for k, d, t, c, ex, e15, e15s in zip(corr_w.k, corr_w.correlation, corr_w[T], corr_w[T + "_ci95"],
                                         _col(corr_w, T + "_theory"), _col(corr_w, "paper_eq15"),
                                         _col(corr_w, "paper_eq15_sim")):
        by.setdefault(int(k), {})[float(d)] = (t, c, ex, e15, e15s)
    rows = []
    for k, v in sorted(by.items()):
        z, h, o = (v.get(x, (np.nan,) * 5) for x in (0.0, 0.5, 1.0))
        rows.append([k, _sim(z[0], z[1]), _sim(h[0], h[1]), _f(h[4]), _sim(o[0], o[1]), _f(o[2]), _f(o[3])])
    ctx.table("forkjoin-table-correlation", "Fork-join (003, Fig. 9): correlated tasks and eq. (15), mu = 3",
              ["k", "delta = 0", "delta = 0.5", "eq. (15) at 0.5 (companion T)", "delta = 1",
               "delta = 1 exact (M/M/1)", "eq. (15) at 1"], rows, ["forkjoin-correlation"], ["003 Fig. 9"],
              "T'(10,k), lambda = 1, mu = 3: the simulation at delta = 0, 0.5, 1, the paper's eq. (15) (at 0.5 with the "
              "coupled delta = 0 companion's T), and the exact M/M/1 value at delta = 1.",
              checks=[("delta = 1 exact = 1/(k mu - lambda) in every row",
                       all(abs(r_[5] - 1 / (3 * r_[0] - 1)) <= 1e-12 for r_ in rows))])
