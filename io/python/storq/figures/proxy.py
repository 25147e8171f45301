"""Coded proxy with L threads (paper 002), one class: Fig. 5 (fixed (n,3) codes and the unchunked
(1,1) and (2,1) against the request rate, beside the approximation D~(n) and its crossover rates),
Fig. 6 (the same with Greedy and BAFEC, absolute), Fig. 7 (Greedy and BAFEC normalised by the best
fixed code) and Table I (the approximation's error); with two classes (read and write;
_proxy_classes.py) Fig. 8 (the layers of the capacity region), Fig. 10 and Fig. 11."""
import numpy as np

from . import errorbars, monotone
from ._proxy_classes import fig8, rw_fig10, rw_fig11, theory_points

MODEL = "proxy"
FIXED = ("fixed3", "fixed4", "fixed5", "fixed6")
K1 = ("fixed1", "fixed2")
TRACE = "jobs/traces/s3-like-read.txt"  # the fig5 sweep's law (1 MB chunks), in seconds
K1_LAW = "shexp:0.25,16.666666666666668"  # proxy-fig5-k1.ini's stand-in for 3 MB objects
MS = 1000.0  # the trace is in seconds; the figures in ms as the paper's


def plot_fixed_codes(r, ax):
    """Mean delay of the fixed codes (95% CI) with the approximation D~(n) as lines, from any
    proxy file that sweeps lambda (used by storq.report; the gallery's Fig. 5 draws its own)."""
    w = r.wide().sort_values("lambda")
    data = {"lambda": w["lambda"]}
    for code in FIXED + K1:
        if f"{code}_mean_delay" not in w:
            continue
        n = int(code[5:])
        eb = errorbars(ax, w["lambda"], w[f"{code}_mean_delay"], w[f"{code}_mean_delay_ci95"],
                       f"fixed:{n} simulated", fmt="o")
        approx = np.array([r.theory(int(p), "delay_approx")[list(r.theory(int(p), "code_n")).index(n)]
                           for p in w.point])
        ax.plot(w["lambda"], approx, "-", color=eb[0].get_color(), lw=1, label=f"D~({n}) approximation")
        data[code] = {"mean": w[f"{code}_mean_delay"], "ci95": w[f"{code}_mean_delay_ci95"],
                      "approx": approx}
    ax.set_xlabel("request rate lambda")
    ax.set_ylabel("mean delay")
    ax.set_yscale("log")
    ax.legend(fontsize="x-small", ncol=2)
    return data


def stable(w, r, code, n, key="capacity_estimate"):
    """Rates of W below the capacity estimate C~(n) of code n (the stored theory)."""
    pid = int(w.point.iloc[0])
    cap = r.theory(pid, key)[list(r.theory(pid, "code_n")).index(n)]
    return (w["lambda"] < cap).to_numpy(), float(cap)


def sim_crossover(lam, a, b):
    """The first rate where code b's mean delay rises above code a's, by linear interpolation
    between the simulated points (NaN when it stays below over the points given)."""
    d = np.asarray(a, float) - np.asarray(b, float)
    for i in range(1, len(d)):
        if d[i - 1] > 0 >= d[i]:
            return float(lam[i - 1] + (lam[i] - lam[i - 1]) * d[i - 1] / (d[i - 1] - d[i]))
    return float("nan")


def fmt_rate(v):
    return "beyond the sweep" if not np.isfinite(v) else f"{v:.1f}"


def fig5_fig6(ctx):
    import matplotlib.pyplot as plt

    import storq

    rates = {"lambda": ctx.pick(None, [2, 10, 18, 24, 29, 36], [2, 18, 29])}
    lengths = dict(arrivals=ctx.pick(60000, 20000, 6000), warmup=ctx.pick(20000, 5000, 2000),
                   r=ctx.pick(8, 4, 3))
    f5 = ctx.run("proxy-fig5", "jobs/sweeps/proxy-fig5.ini", **rates, **lengths)
    k1 = ctx.run("proxy-fig5-k1", "jobs/sweeps/proxy-fig5-k1.ini", **rates, **lengths)
    grid = np.round(np.linspace(0.5, 40.5, 161), 3)
    th3 = theory_points(ctx, "--delay", f"trace:{ctx.root / TRACE}", "--code", "fixed:3", "--lambda",
                        ",".join(map(str, grid)), "--only", "delay_approx")
    th1 = theory_points(ctx, "--k", 1, "--nmax", 2, "--delay", K1_LAW, "--code", "fixed:1", "--lambda",
                        ",".join(map(str, grid)), "--only", "delay_approx")
    with storq.open(f5) as r, storq.open(k1) as q:
        w = r.wide().sort_values("lambda")
        wq = q.wide().sort_values("lambda")
        lam = w["lambda"].to_numpy()
        pid = int(w.point.iloc[0])
        cross = r.theory(pid, "crossover_rate")
        thresh = r.theory(pid, "threshold")
        delta, inv_mu = float(r.theory(pid, "delta")[0]), float(r.theory(pid, "inv_mu")[0])
        codes = {}  # code -> (n, k, frame, results, mask, capacity, smooth D~)
        for c in FIXED:
            n = int(c[5:])
            ok, cap = stable(w, r, c, n)
            codes[c] = (n, 3, w, r, ok, cap, np.array([p["delay_approx"][n - 3] for p in th3]))
        for c in K1:
            n = int(c[5:])
            ok, cap = stable(wq, q, c, n)
            codes[c] = (n, 1, wq, q, ok, cap, np.array([p["delay_approx"][n - 1] for p in th1]))

        # Fig. 5: the fixed codes with D~ and the crossover rates
        fig, ax = plt.subplots(figsize=(7, 5))
        data = {"lambda": lam, "delta": delta, "inv_mu": inv_mu, "crossover_rate": cross,
                "threshold": thresh, "grid": grid}
        for c, (n, k, fr, res, ok, cap, smooth) in codes.items():
            x = fr["lambda"].to_numpy()[ok]
            m, ci = fr[f"{c}_mean_delay"].to_numpy()[ok], fr[f"{c}_mean_delay_ci95"].to_numpy()[ok]
            eb = errorbars(ax, x, m * MS, ci * MS, f"({n},{k}) simulated", fmt="o" if k == 3 else "s")
            keep = grid < cap
            ax.plot(grid[keep], smooth[keep] * MS, "--", color=eb[0].get_color(), lw=1)
            approx = np.array([res.theory(int(p), "delay_approx")[n - k] for p in fr.point])[ok]
            data[c] = {"n": n, "k": k, "lambda": x, "mean": m, "ci95": ci, "approx": approx,
                       "capacity": cap}
        for i, lc in enumerate(cross):
            ax.axvline(lc, color="r", ls=":", lw=1)
            ax.text(lc, 0.02, f" $\\lambda_{i + 3}$", color="r", transform=ax.get_xaxis_transform(),
                    ha="left", va="bottom", fontsize=9)
        ax.plot([], [], "k--", lw=1, label="D~(n) approximation (storq theory)")
        ax.plot([], [], "r:", lw=1, label="crossover rates lambda_3..lambda_5 of D~")
        ax.set_xlabel("request rate lambda (per second)")
        ax.set_ylabel("mean delay (ms)")
        ax.set_yscale("log")
        ax.set_ylim(0.8 * min(np.min(data[c]["mean"]) for c in codes) * MS, 1000)
        ax.legend(fontsize="x-small", ncol=2, loc="upper left")
        simx = {}
        for n in (3, 4, 5):
            a, b = data[f"fixed{n}"], data[f"fixed{n + 1}"]
            both = len(b["lambda"])  # the longer code's stable rates are a prefix of the shorter's
            simx[n] = sim_crossover(b["lambda"], a["mean"][:both], b["mean"])
        data["sim_crossover"] = [simx[n] for n in (3, 4, 5)]
        err_low = {c: data[c]["approx"][0] / data[c]["mean"][0] - 1 for c in codes}
        err_all = {c: data[c]["approx"] / data[c]["mean"] - 1 for c in codes}
        checks = [(f"({data[c]['n']},{data[c]['k']}): mean delay increasing in lambda below its C~ (within CIs)",
                   monotone(data[c]["mean"], slack=data[c]["ci95"])) for c in codes]
        checks += [(f"({data[c]['n']},{data[c]['k']}): within 15% of D~ at the lowest rate",
                    abs(err_low[c]) <= 0.15) for c in codes]
        checks.append(("crossover rates lambda_3 > lambda_4 > lambda_5 and thresholds Q_3 > Q_4 > Q_5 "
                       "(the paper: Q_n decreasing)", bool(np.all(np.diff(cross) < 0) and np.all(np.diff(thresh) < 0))))
        checks.append(("each crossover rate lies below both codes' capacity estimates",
                       all(cross[i] < min(data[f"fixed{n}"]["capacity"], data[f"fixed{n + 1}"]["capacity"])
                           for i, n in enumerate((3, 4, 5)))))
        f = {c: data[c]["mean"][0] * MS for c in codes}
        simtxt = ", ".join(fmt_rate(simx[n]) for n in (3, 4, 5))
        caption = (
            f"Mean delay of reading 3 MB files as k = 3 chunks of 1 MB with fixed (n,3) codes, n = 3..6, and unchunked "
            f"with (1,1) and (2,1), L = 16 threads, non-blocking, against the request rate: the paper's Fig. 5. Task "
            f"delays are the synthetic S3-like read trace of jobs/traces (the paper's March 2012 trace is not published), "
            f"which storq fits as the paper does (worst 0.1% dropped): Delta = {delta * MS:.1f} ms, 1/mu = "
            f"{inv_mu * MS:.1f} ms; the 3 MB objects of (1,1) and (2,1) are a shifted exponential stand-in (Delta 250 ms, "
            f"1/mu 60 ms; the paper's trace for them is not published either). Each code is drawn below its capacity "
            f"estimate C~(n) = L/u(n). Dashed: the approximation D~(n) (`storq theory proxy --delay "
            f"trace:{TRACE}` and `storq theory proxy --k 1 --nmax 2 --delay {K1_LAW}`, {len(grid)} rates from "
            f"{grid[0]:g} to {grid[-1]:g}, array delay_approx); dotted red: its "
            f"crossover rates lambda_3, lambda_4, lambda_5 = {cross[0]:.1f}, {cross[1]:.1f}, {cross[2]:.1f} per second "
            f"(BAFEC's thresholds Q_3..Q_5 = {thresh[0]:.2f}, {thresh[1]:.2f}, {thresh[2]:.2f}); the simulated curves "
            f"cross at {simtxt} (linear interpolation between the simulated rates). At the lowest rate (lambda = "
            f"{lam[0]:g}) the means are {f['fixed3']:.0f}, {f['fixed4']:.0f}, {f['fixed5']:.0f}, {f['fixed6']:.0f} ms "
            f"for n = 3..6 and {f['fixed1']:.0f}, {f['fixed2']:.0f} ms for (1,1), (2,1) (paper: (1,1) over 300 ms, "
            f"(3,3) about 200 ms, (4,3) under 150 ms, and (6,3) 'roughly 3x' better than (2,1), with the same 2x "
            f"storage; here {f['fixed2'] / f['fixed6']:.1f}x), and (2,1) improves on (1,1) by only "
            f"{100 * (1 - f['fixed2'] / f['fixed1']):.0f}% at {codes['fixed2'][5] / codes['fixed1'][5]:.2f} of its "
            f"capacity, as the paper says. D~ is {100 * min(err_low.values()):+.1f}% to {100 * max(err_low.values()):+.1f}% "
            f"off the simulation at the lowest rate and up to {100 * max(np.max(np.abs(v)) for v in err_all.values()):.0f}% "
            f"at the highest stable rates (the paper: it 'matches the simulation results very well'; "
            f"[proxy.md](models/proxy.md#figs-5-6-on-the-s3-like-trace) compares).")
        ctx.figure(fig, "proxy-fig5", "Proxy (002, Fig. 5): fixed codes vs lambda with D~(n) and lambda_3..5, "
                   "S3-like trace",
                   data, checks, ["proxy-fig5", "proxy-fig5-k1"], "Fig. 5 (paper 002)",
                   paper_ref=["002 Fig. 5"], caption=caption)

        # Fig. 6: absolute mean delays of the fixed codes, Greedy and BAFEC
        fig, ax = plt.subplots(figsize=(7, 5))
        d6 = {"lambda": lam}
        for c, (n, k, fr, res, ok, cap, _) in codes.items():
            x = fr["lambda"].to_numpy()[ok]
            errorbars(ax, x, fr[f"{c}_mean_delay"].to_numpy()[ok] * MS, fr[f"{c}_mean_delay_ci95"].to_numpy()[ok] * MS,
                      f"({n},{k})", fmt=("o" if k == 3 else "s") + ":", alpha=0.7)
        for p, name, col in (("greedy", "Greedy", "k"), ("bafec", "BAFEC", "m")):
            m, ci = w[f"{p}_mean_delay"].to_numpy(), w[f"{p}_mean_delay_ci95"].to_numpy()
            errorbars(ax, lam, m * MS, ci * MS, name, fmt="D-", color=col, lw=2)
            d6[p] = {"mean": m, "ci95": ci}
        best = np.vstack([np.where(codes[c][4], w[f"{c}_mean_delay"], np.inf) for c in FIXED])
        d6["best_fixed"] = best.min(axis=0)
        d6["best_fixed_n"] = [int(FIXED[i][5:]) for i in best.argmin(axis=0)]
        for c in codes:
            d6[c] = data[c]
        ax.set_xlabel("request rate lambda (per second)")
        ax.set_ylabel("mean delay (ms)")
        ax.set_yscale("log")
        ax.legend(fontsize="x-small", ncol=2)
        rb, rg = d6["bafec"]["mean"] / d6["best_fixed"], d6["greedy"]["mean"] / d6["best_fixed"]
        d6["bafec_over_best"], d6["greedy_over_best"] = rb, rg
        b0 = d6["bafec"]["mean"][0]
        checks = [("BAFEC's mean delay within 1.25x the best fixed (n,3) code's at every rate", bool(np.all(rb <= 1.25))),
                  ("at the lowest rate BAFEC equals (6,3) within 3 CIs (no backlog: n = nmax)",
                   abs(b0 - data["fixed6"]["mean"][0]) <= 3 * (d6["bafec"]["ci95"][0] + data["fixed6"]["ci95"][0])),
                  ("Greedy and BAFEC stable at every rate (mean increasing within CIs)",
                   monotone(d6["greedy"]["mean"], slack=d6["greedy"]["ci95"])
                   and monotone(d6["bafec"]["mean"], slack=d6["bafec"]["ci95"]))]
        gi = int(np.argmax(rg))
        caption = (
            f"The paper's Fig. 6: absolute mean delays of the fixed codes (dotted; (n,3) below their C~ and the "
            f"unchunked (1,1), (2,1)) with Greedy and BAFEC (nmax = 6), in Fig. 5's setting (S3-like trace, L = 16, "
            f"non-blocking; the same runs). BAFEC follows the lower envelope of the fixed (n,3) codes: "
            f"{rb.min():.2f}-{rb.max():.2f} x the best at each rate (below 1 where it mixes codes). At the lowest "
            f"rate it is {data['fixed1']['mean'][0] / b0:.1f}x and {data['fixed2']['mean'][0] / b0:.1f}x faster than "
            f"(1,1) and (2,1) and {data['fixed3']['mean'][0] / b0:.1f}x faster than (3,3) (the paper: over 3x and 2x). "
            f"Greedy is {rg.min():.2f}-{rg.max():.2f} x the best fixed code, up to {100 * (rg.max() - 1):.0f}% above "
            f"it at lambda = {lam[gi]:g} (the paper: 'almost identical' to BAFEC; "
            f"[proxy.md](models/proxy.md#greedy-and-bafec-against-the-best-fixed-code-the-papers-within-10) explains "
            f"the gap: at medium load an arrival often finds fewer than k idle threads and gets n = k).")
        ctx.figure(fig, "proxy-fig6", "Proxy (002, Fig. 6): fixed codes, Greedy and BAFEC, mean delay vs lambda "
                   "(S3-like trace)", d6, checks, ["proxy-fig5", "proxy-fig5-k1"], "Fig. 6 (paper 002)",
                   paper_ref=["002 Fig. 6"], caption=caption)


def normalised(w, stat):
    """Each adaptive policy's `stat` over the best fixed code's at each rate."""
    fixed = np.vstack([w[f"{c}_{stat}"] for c in FIXED if f"{c}_{stat}" in w])
    best = np.nanmin(fixed, axis=0)
    return {p: (w[f"{p}_{stat}"] / best).to_numpy() for p in ("greedy", "bafec") if f"{p}_{stat}" in w}


def fig7(ctx):
    import matplotlib.pyplot as plt

    import storq

    f67 = ctx.run("proxy-fig6-7", "jobs/sweeps/proxy-fig6-7.ini",
                  **{"lambda": ctx.pick(None, [0.5, 1.5, 2.5, 3.5, 4.4, 5.0], [0.5, 2.5, 4.4])},
                  arrivals=ctx.pick(60000, 20000, 6000), warmup=ctx.pick(20000, 5000, 2000),
                  r=ctx.pick(8, 4, 3))
    with storq.open(f67) as r:
        w = r.wide().sort_values("lambda")
        lam = w["lambda"].to_numpy()
        fig, axes = plt.subplots(1, 2, figsize=(11, 4.5))
        data, checks = {"lambda": w["lambda"]}, []
        for ax, stat, label in zip(axes, ("mean_delay", "delay_p999"), ("mean delay", "99.9th percentile")):
            norm = normalised(w, stat)
            for p, y in norm.items():
                ax.plot(w["lambda"], y, "o-", label={"greedy": "Greedy", "bafec": "BAFEC"}[p])
            ax.axhline(1, color="k", ls="--", label="best fixed code")
            ax.set_xlabel("request rate lambda")
            ax.set_ylabel(f"{label} / best fixed code's")
            ax.legend(fontsize="small")
            data[stat] = norm
        checks.append(("BAFEC's mean delay within 1.25x the best fixed code's at every rate",
                       bool(np.all(data["mean_delay"]["bafec"] <= 1.25))))
        checks.append(("Greedy and BAFEC ratios positive and finite",
                       all(np.all(np.isfinite(v) & (v > 0)) for s in ("mean_delay",) for v in data[s].values())))
        mb, pb = data["mean_delay"]["bafec"], data["delay_p999"]["bafec"]
        mg, pg = data["mean_delay"]["greedy"], data["delay_p999"]["greedy"]
        caption = (
            f"Greedy's and BAFEC's mean (left) and 99.9th-percentile (right) delay divided by the best fixed (n,3) "
            f"code's at each rate (k = 3, nmax = 6, L = 16, non-blocking), with the model's default law Delta + "
            f"Exp(mu), Delta 0.2, 1/mu 0.8, in place of the paper's trace: the paper's Fig. 7 (its Fig. 6, on the "
            f"S3-like trace, is drawn above). BAFEC tracks the best fixed code as in the paper (mean ratio "
            f"{mb.min():.2f}-{mb.max():.2f}, 99.9th percentile at most {pb.max():.2f}; paper: within 1.5x), but "
            f"Greedy's mean is up to {mg.max():.2f} x the best (at lambda = {lam[int(np.argmax(mg))]:g}), not 'almost "
            f"optimal' as in the paper ([proxy.md](models/proxy.md) measures why), while its 99.9th percentile, up "
            f"to {pg.max():.2f} x, agrees with the paper's 'above 2x, up to 3.5x'.")
        ctx.figure(fig, "proxy-fig6-7",
                   "Proxy (002, Fig. 7): Greedy and BAFEC normalised by the best fixed code (mean, p99.9)",
                   data, checks, ["proxy-fig6-7"], "Fig. 7 (paper 002)", paper_ref=["002 Fig. 7"], caption=caption)


# Table I: the approximation's error, k = 3, n = 3 and 6, L = 16 and 64, shift ratios 0.2, 0.6, 0.8
# (Delta + 1/mu = 1), at 0.1 .. 0.9 of C~, both admissions: jobs/sweeps/proxy-table1.ini (one run,
# its lists zipped).
T1_RATIOS = (0.2, 0.6, 0.8)
T1_SETTINGS = [(adm, L, n) for adm in ("nonblocking", "blocking") for L in (16, 64) for n in (3, 6)]


def table1(ctx):
    import storq

    run = ctx.run("proxy-table1", "jobs/sweeps/proxy-table1.ini", arrivals=ctx.pick(60000, 12000, 3000),
                  warmup=ctx.pick(10000, 3000, 1000), r=ctx.pick(4, 3, 2))
    with storq.open(run) as r:
        err = {}  # (adm, L, n, ratio) -> errors over the loads (increasing), in %
        for _, p in r.index.iterrows():  # the parameters of every point, from the index
            pid = int(p["point"])
            n = int(str(p["code"])[6:])
            key = (str(p["admission"]), int(p["L"]), n, float(str(p["delay"])[6:].split(",")[0]))
            e = float(np.ravel(r.comparison(pid, f"fixed{n}_approx_error"))[0])
            err.setdefault(key, []).append((float(p["lambda"]), 100 * e))
        err = {key: [e for _, e in sorted(v)] for key, v in err.items()}
    columns = ["admission", "L", "n"] + [f"ratio {f:g}: {m} %" for f in T1_RATIOS for m in ("min", "max")]
    rows = []
    for adm, L, n in T1_SETTINGS:
        row = [adm.replace("nonblocking", "non-blocking"), L, n]
        for f in T1_RATIOS:
            e = err[(adm, L, n, f)]
            row += [min(e), max(e)]
        rows.append(row)
    worst = {key: max(abs(v) for v in e) for key, e in err.items()}
    checks = [("|error| at most 5% at 0.1 C~ in every setting (the paper: smallest at light load)",
               all(abs(e[0]) <= 5 for e in err.values())),
              ("|error| at 0.7 or 0.9 C~ above that at 0.1 C~ in every setting (the paper: larger near C~)",
               all(max(abs(e[3]), abs(e[4])) > abs(e[0]) for e in err.values())),
              ("n = 6 at ratios 0.6 and 0.8: L = 64 errs less than L = 16 (largest |error|), both admissions "
               "(the paper: poor for L = 16, n = 6 there)",
               all(worst[(a, 64, 6, f)] < worst[(a, 16, 6, f)] for a in ("nonblocking", "blocking") for f in (0.6, 0.8)))]
    b6 = err[("blocking", 16, 6, 0.8)]
    low = [worst[(a, L, n, f)] for a, L, n in T1_SETTINGS for f in T1_RATIOS if not (L == 16 and n == 6 and f >= 0.6)]
    caption = (
        f"The paper's Table I: the range over the loads 0.1, 0.3, 0.5, 0.7, 0.9 of C~ of the approximation's "
        f"relative error (D~ - simulated mean) / simulated mean, in %, for k = 3, Delta + 1/mu = 1 and the shift "
        f"ratios Delta/(Delta + 1/mu) = 0.2, 0.6, 0.8 (read from each point's comparison group, "
        f"`fixedN_approx_error`). The extraction lost the paper's numbers; its text says the errors are smallest at "
        f"light load and largest near C~, smaller for non-blocking than blocking and for L = 64 than L = 16, and "
        f"poor for L = 16, n = 6 at ratios 0.6 and 0.8. So here: every setting but those stays within "
        f"{max(low):.0f}% in absolute value, while blocking, L = 16, n = 6 at ratio 0.8 reaches {min(b6):+.0f}% "
        + (f"(the simulated delay {1 / (1 + min(b6) / 100):.1f} x D~: the real blocking capacity lies below the mean "
           f"of the two bounds that D~ uses). " if min(b6) < 0 else ". ")
        + "Elsewhere mostly positive: D~ over-estimates (its M/G/1 queue waits longer than L threads do, and "
          "non-blocking requests with n > k take less thread time than u(n); proxy.md, Table I).")
    caption += (f" These runs: {ctx.pick(4, 3, 2)} replications x {ctx.pick(60000, 12000, 3000)} measured requests "
                "per point; the CSV holds the ranges to full precision.")
    ctx.table("proxy-table1", "Proxy (002, Table I): the approximation's error (D~ - simulated) / simulated, %",
              columns, rows, ["proxy-table1"], ["002 Table I"], caption, checks=checks, digits=3)


def figures(ctx):
    fig5_fig6(ctx)
    fig7(ctx)
    table1(ctx)
    rw = rw_fig10(ctx)
    fig8(ctx, rw)
    rw_fig11(ctx)
