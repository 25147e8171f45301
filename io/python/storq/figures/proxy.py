"""Coded proxy with L threads (paper 002): Fig. 5 (fixed (n,3) codes against the request rate,
beside the approximation D~(n)), Figs. 6-7 (Greedy and BAFEC normalised by the best fixed code:
mean and 99.9th percentile), and with read and write as two classes Fig. 10 (MBAFEC and Greedy
against the best of the 16 fixed code pairs, per class and on average) and Fig. 11 (the code
composition by class)."""
import numpy as np

from . import errorbars, monotone

MODEL = "proxy"
FIXED = ("fixed3", "fixed4", "fixed5", "fixed6")


def plot_fixed_codes(r, ax):
    """Mean delay of the fixed (n,3) codes (95% CI) with the approximation D~(n) as lines."""
    w = r.wide().sort_values("lambda")
    data = {"lambda": w["lambda"]}
    for code in FIXED:
        if f"{code}_mean_delay" not in w:
            continue
        n = int(code[5:])
        eb = errorbars(ax, w["lambda"], w[f"{code}_mean_delay"], w[f"{code}_mean_delay_ci95"],
                       f"({n},3) simulated", fmt="o")
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


def normalised(w, stat):
    """Each adaptive policy's `stat` over the best fixed code's at each rate."""
    fixed = np.vstack([w[f"{c}_{stat}"] for c in FIXED if f"{c}_{stat}" in w])
    best = np.nanmin(fixed, axis=0)
    return {p: (w[f"{p}_{stat}"] / best).to_numpy() for p in ("greedy", "bafec") if f"{p}_{stat}" in w}


def figures(ctx):
    import matplotlib.pyplot as plt

    import storq

    f5 = ctx.run("proxy-fig5", "jobs/sweeps/proxy-fig5.ini",
                 **{"lambda": ctx.pick(None, [0.4, 1.2, 2.0, 2.8, 3.6, 4.2], [0.4, 1.6, 2.8])},
                 arrivals=ctx.pick(100000, 25000, 8000), warmup=ctx.pick(20000, 5000, 2000),
                 r=ctx.pick(8, 4, 3))
    f67 = ctx.run("proxy-fig6-7", "jobs/sweeps/proxy-fig6-7.ini",
                  **{"lambda": ctx.pick(None, [0.5, 1.5, 2.5, 3.5, 4.4, 5.0], [0.5, 2.5, 4.4])},
                  arrivals=ctx.pick(60000, 20000, 6000), warmup=ctx.pick(20000, 5000, 2000),
                  r=ctx.pick(8, 4, 3))

    with storq.open(f5) as r:
        fig, ax = plt.subplots(figsize=(6, 4.5))
        d = plot_fixed_codes(r, ax)
        low = 0  # the lowest rate: the approximation is at its best with little queueing
        checks = [(f"({c[5:]},3): mean delay increasing in lambda (within CIs)",
                   monotone(d[c]["mean"], slack=d[c]["ci95"])) for c in FIXED if c in d]
        checks += [(f"({c[5:]},3): within 15% of D~ at the lowest rate",
                    abs(d[c]["mean"].iloc[low] / d[c]["approx"][low] - 1) <= 0.15) for c in FIXED if c in d]
        ctx.figure(fig, "proxy-fig5", "Proxy (002, Fig. 5): fixed (n,3) codes vs lambda, L = 16, with D~(n)",
                   d, checks, ["proxy-fig5"], "Fig. 5 (paper 002)")

    with storq.open(f67) as r:
        w = r.wide().sort_values("lambda")
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
        ctx.figure(fig, "proxy-fig6-7",
                   "Proxy (002, Figs. 6-7): Greedy and BAFEC normalised by the best fixed code (mean, p99.9)",
                   data, checks, ["proxy-fig6-7"], "Figs. 6-7 (paper 002)")

    rw_fig10(ctx)
    rw_fig11(ctx)


# Figs. 10-11: read and write as two classes (jobs/sweeps/proxy-read-write.ini).
RW_SWEEP = "jobs/sweeps/proxy-read-write.ini"
READ, WRITE = "shexp:0.1,1.25", "shexp:0.6,2.5"  # the sweep file's laws: Delta + Exp(mu)
SCENARIO = {0.9: "read heavy", 0.5: "balanced", 0.1: "write heavy"}
CLASSES = ("read", "write")
STATS = (("mean_delay", "mean"), ("delay_p999", "99.9th pct"))


def rw_classes(read_share):
    """The sweep file's classes value for one read share."""
    return f"read:{read_share:g}:3:6:{READ}|write:{1 - read_share:g}:3:6:{WRITE}"


def full_capacity(read_share, L=16, k=3):
    """C(K) = L / sum_i alpha_i u_i(k): the paper's multi-class capacity estimate with no coding
    (n_i = k_i), the largest region; u(k) = k (Delta + 1/mu)."""
    u = [k * (float(d) + 1 / float(m)) for d, m in (law[6:].split(",") for law in (READ, WRITE))]
    return L / (read_share * u[0] + (1 - read_share) * u[1])


def _t95(reps):
    from scipy import stats

    return float(stats.t.ppf(0.975, reps - 1))


def paired(a, b):
    """Mean of a - b over the replications and its 95% CI half-width (Student t)."""
    d = np.asarray(a, float) - np.asarray(b, float)
    return float(d.mean()), _t95(len(d)) * float(d.std(ddof=1)) / np.sqrt(len(d))


def policy_names(code):
    """Observable prefixes of a code string: 'bafec+fixed:3/4' -> ['bafec', 'fixed3_4']."""
    return [c.replace(":", "").replace("/", "_") for c in code.split("+")]


def rw_point(r, pid, read_share):
    """Per replication, for every policy and stat: the read, write and average
    (alpha_read D_read + alpha_write D_write, the paper's 'average delay') values."""
    alpha = {"read": read_share, "write": 1 - read_share}
    out = {}
    for p in policy_names(r.params(pid)["code"]):
        out[p] = {}
        for stat, _ in STATS:
            v = {c: r.replications(pid, f"{p}_{c}_{stat}").astype(float) for c in CLASSES}
            v["average"] = sum(alpha[c] * v[c] for c in CLASSES)
            out[p][stat] = v
    return out


def rw_compare(v):
    """Against the best fixed pair of each metric (chosen on the mean over replications):
    for MBAFEC and Greedy the ratio to it and the paired difference's CI relative to it."""
    fixed = [p for p in v if p.startswith("fixed")]
    res = {}
    for stat, _ in STATS:
        res[stat] = {}
        for metric in ("average", *CLASSES):
            best = min(fixed, key=lambda f: v[f][stat][metric].mean())
            b = v[best][stat][metric]
            entry = {"best_pair": best[5:].replace("_", "/"), "best": float(b.mean()),
                     "best_ci95": _t95(len(b)) * float(b.std(ddof=1)) / np.sqrt(len(b))}
            for p in ("bafec", "greedy"):
                a = v[p][stat][metric]
                diff, ci = paired(a, b)
                entry[p] = {"value": float(a.mean()), "ratio": float(a.mean() / b.mean()),
                            "diff": diff, "diff_ci95": ci}
            entry["bafec_minus_greedy"] = paired(v["bafec"][stat][metric], v["greedy"][stat][metric])
            res[stat][metric] = entry
    return res


def rw_fig10(ctx):
    import matplotlib.pyplot as plt

    import storq

    rates = ctx.pick(None, [0.5, 2.5, 4.5], [0.5, 3, 4.5])
    run = ctx.run("proxy-read-write", RW_SWEEP, **{"lambda": rates},
                  arrivals=ctx.pick(60000, 12000, 6000), warmup=ctx.pick(15000, 4000, 2000),
                  r=ctx.pick(8, 4, 3))
    with storq.open(run) as r:
        idx = r.index
        fig, axes = plt.subplots(3, 3, figsize=(13, 11), sharex=True)
        data, checks = {}, []
        for row, share in enumerate(sorted(SCENARIO, reverse=True)):
            pts = idx[idx["classes"] == rw_classes(share)].sort_values("lambda")
            cap = full_capacity(share)
            load = pts["lambda"].to_numpy() / cap
            res = [rw_compare(rw_point(r, int(pid), share)) for pid in pts.point]
            # C(K) from the stored theory: each class's u(k) = usage[0]
            pid0 = int(pts.point.iloc[0])
            stored = 16 / sum(a * r.theory(pid0, f"{c}_usage")[0] for c, a in (("read", share), ("write", 1 - share)))
            d = {"lambda": pts["lambda"], "load": load, "full_capacity": cap, "stored_full_capacity": stored}
            ax = axes[row, 0]
            for stat, label in STATS:
                ls = "-" if stat == "mean_delay" else "--"
                best = np.array([x[stat]["average"]["best"] for x in res])
                ax.plot(load, best, "k" + ls, marker="s", ms=3, label=f"best fixed pair, {label}")
                d[f"average_{stat}"] = {"best": best, "best_pair": [x[stat]["average"]["best_pair"] for x in res]}
                for p, name in (("bafec", "MBAFEC"), ("greedy", "Greedy")):
                    val = np.array([x[stat]["average"][p]["value"] for x in res])
                    ci = np.array([x[stat]["average"][p]["diff_ci95"] for x in res])
                    ax.errorbar(load, val, yerr=ci, fmt="o" + ls, ms=3, capsize=2,
                                color="C0" if p == "bafec" else "C1", label=f"{name}, {label}")
                    d[f"average_{stat}"][p] = {"value": val, "diff": [x[stat]["average"][p]["diff"] for x in res],
                                               "diff_ci95": ci}
            ax.set_yscale("log")
            ax.set_ylabel(f"{SCENARIO[share]} (read share {share:g})\naverage delay")
            for col, c in enumerate(CLASSES, start=1):
                ax = axes[row, col]
                for stat, label in STATS:
                    ls = "-" if stat == "mean_delay" else "--"
                    d[f"{c}_{stat}"] = {"best_pair": [x[stat][c]["best_pair"] for x in res],
                                        "best": [x[stat][c]["best"] for x in res]}
                    for p, name in (("bafec", "MBAFEC"), ("greedy", "Greedy")):
                        ratio = np.array([x[stat][c][p]["ratio"] for x in res])
                        ci = np.array([x[stat][c][p]["diff_ci95"] / x[stat][c]["best"] for x in res])
                        ax.errorbar(load, ratio, yerr=ci, fmt="o" + ls, ms=3, capsize=2,
                                    color="C0" if p == "bafec" else "C1", label=f"{name}, {label}")
                        d[f"{c}_{stat}"][p] = {"ratio": ratio, "ci95": ci}
                    d[f"{c}_{stat}"]["bafec_minus_greedy"] = [x[stat][c]["bafec_minus_greedy"][0] for x in res]
                    d[f"{c}_{stat}"]["bafec_minus_greedy_ci95"] = [x[stat][c]["bafec_minus_greedy"][1] for x in res]
                ax.axhline(1, color="k", lw=1)
                ax.set_ylabel(f"{c} delay / best fixed pair's")
            data[SCENARIO[share]] = d
            avg = d["average_mean_delay"]
            checks.append((f"{SCENARIO[share]}: C(K) of the x axis equals the stored theory's "
                           f"L / sum alpha_i u_i(k) ({cap:.4f})", abs(stored / cap - 1) < 1e-9))
            # The paper: MBAFEC achieves "roughly the same" average mean delay as the best fixed
            # pair throughout. Here within 1% at every load with mostly reads, with more writes only
            # up to load 0.5 (above it up to +9%: docs/models/proxy.md). Not exactly the envelope
            # even at light load: a write finding one request waiting gets n = 3 (its Q_n < 1).
            upto = 1.0 if share == 0.9 else 0.5
            sel = load <= upto
            excess = np.asarray(avg["bafec"]["diff"]) - 0.01 * avg["best"]
            checks.append((f"{SCENARIO[share]}: MBAFEC's average mean delay within 1% (+ 3 paired CIs) of or "
                           f"below the best fixed pair's at every load <= {upto:g}",
                           bool(np.all((excess <= 3 * avg["bafec"]["diff_ci95"])[sel]))))
            # The paper: the best pair for reads has the shortest write code, and the opposite for
            # writes (the other class should take the fewest threads); once queueing matters.
            q = load >= 0.4
            checks.append((f"{SCENARIO[share]}: the best fixed pair for reads' mean has n_write = 3 and the best "
                           "for writes' n_read = 3 at every load >= 0.4",
                           all(pr.endswith("/3") and pw.startswith("3/") for pr, pw, ok in
                               zip(d["read_mean_delay"]["best_pair"], d["write_mean_delay"]["best_pair"], q) if ok)))
            # The paper: MBAFEC's 99.9th percentile of reads is well below Greedy's (Greedy's
            # all-or-nothing codes); here by far at medium load, equal near the capacity.
            mid = (load >= 0.2) & (load <= 0.6)
            rp = d["read_delay_p999"]
            checks.append((f"{SCENARIO[share]}: MBAFEC's read 99.9th percentile below Greedy's (the paired "
                           "95% CI excludes 0) at every load in 0.2 .. 0.6",
                           bool(mid.any() and np.all((np.asarray(rp["bafec_minus_greedy"])
                                                      + np.asarray(rp["bafec_minus_greedy_ci95"]) < 0)[mid]))))
            checks.append((f"{SCENARIO[share]}: every ratio to the best fixed pair positive and finite",
                           all(np.all(np.isfinite(d[f"{c}_{s}"][p]["ratio"]) & (d[f"{c}_{s}"][p]["ratio"] > 0))
                               for c in CLASSES for s, _ in STATS for p in ("bafec", "greedy"))))
        axes[0, 0].set_title("average: alpha_read D_read + alpha_write D_write", fontsize="small")
        axes[0, 1].set_title("read, normalised by the best fixed pair for reads", fontsize="small")
        axes[0, 2].set_title("write, normalised by the best fixed pair for writes", fontsize="small")
        for ax in axes[-1]:
            ax.set_xlabel("load lambda / C(K) (C(K): capacity with n = k)")
        axes[0, 0].legend(fontsize="x-small")
        axes[0, 1].legend(fontsize="x-small")
        ctx.figure(fig, "proxy-fig10",
                   "Proxy (002, Fig. 10): read/write classes, MBAFEC and Greedy vs the best of the 16 fixed "
                   "code pairs (solid: mean, dashed: p99.9)",
                   data, checks, ["proxy-read-write"], "Fig. 10 (paper 002)")


def rw_fig11(ctx):
    import matplotlib.pyplot as plt

    import storq

    share = 0.5
    loads = ctx.pick([0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95],
                     [0.1, 0.3, 0.5, 0.7, 0.8, 0.9, 0.95], [0.1, 0.5, 0.8, 0.95])
    cap = full_capacity(share)
    run = ctx.run("proxy-read-write-composition", RW_SWEEP, classes=rw_classes(share), code="bafec+greedy",
                  **{"lambda": [round(q * cap, 6) for q in loads]},
                  arrivals=ctx.pick(100000, 30000, 8000), warmup=ctx.pick(20000, 10000, 4000),
                  r=ctx.pick(8, 4, 3))
    with storq.open(run) as r:
        w = r.index.sort_values("lambda")
        pids = [int(p) for p in w.point]
        ns = r.vector(pids[0], "bafec_read_code_share").n.to_numpy().astype(int)
        keep = ns >= 3
        ns = ns[keep]
        bars = [("bafec", "read"), ("bafec", "write"), ("greedy", "read"), ("greedy", "write")]
        reps = {b: np.stack([r.replications(pid, f"{b[0]}_{b[1]}_code_share")[:, keep] for pid in pids])
                for b in bars}  # (loads, R, n)
        shares = {b: v.mean(axis=1) for b, v in reps.items()}
        mean_n = {b: (v @ ns) for b, v in reps.items()}  # (loads, R)

        fig, ax = plt.subplots(figsize=(12, 4.8))
        x = np.arange(len(pids))
        width = 0.2
        colours = {n: f"C{i}" for i, n in enumerate(ns)}
        for j, b in enumerate(bars):
            pos = x + (j - 1.5) * (width + 0.01)
            bottom = np.zeros(len(pids))
            for i, n in enumerate(ns):
                ax.bar(pos, shares[b][:, i], width, bottom=bottom, color=colours[n],
                       hatch="//" if b[0] == "greedy" else None, edgecolor="white", lw=0.3,
                       label=f"n = {n}" if j == 0 else None)
                bottom += shares[b][:, i]
            for px in pos:
                ax.text(px, -0.02, b[1][0].upper(), ha="center", va="top", fontsize=7)
        ax.set_xticks(x, [f"{q:g}" for q in loads])
        ax.tick_params(axis="x", pad=12)
        ax.set_xlabel("load lambda / C(K); bars per load: read and write (R, W) under MBAFEC, then under Greedy (hatched)")
        ax.set_ylabel("fraction of requests served with (n, 3)")
        ax.set_ylim(0, 1)
        ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.0, 1.0))

        checks = [("shares sum to 1 in every bar", all(np.allclose(shares[b].sum(axis=1), 1) for b in bars))]
        # Greedy decides from the idle threads a Poisson arrival finds, whatever its class, and both
        # classes have the same code range: the compositions are equal in law (the paper's argument).
        g = [paired(reps[("greedy", "read")][i, :, m], reps[("greedy", "write")][i, :, m])
             for i in range(len(pids)) for m in range(len(ns))]
        checks.append(("Greedy: read and write compositions equal within 3 paired CIs at every load and n",
                       all(abs(dv) <= 3 * ci + 1e-12 for dv, ci in g)))
        # MBAFEC: n = k + #{j : B < Q_j} with the read thresholds above the write ones at every j
        # and the backlog B at admission independent of the class, so reads get longer codes:
        # P(n_read >= m) >= P(n_write >= m) for every m.
        q_read, q_write = r.theory(pids[0], "read_threshold"), r.theory(pids[0], "write_threshold")
        checks.append(("MBAFEC: the read thresholds Q_n are above the write ones at every n",
                       bool(np.all(q_read >= q_write))))
        tail = {c: np.cumsum(reps[("bafec", c)][:, :, ::-1], axis=2) for c in CLASSES}  # P(n >= m)
        dom = [paired(tail["read"][i, :, m], tail["write"][i, :, m])
               for i in range(len(pids)) for m in range(len(ns))]
        checks.append(("MBAFEC: P(n_read >= m) >= P(n_write >= m) within 3 paired CIs at every load and m",
                       all(dv >= -3 * ci - 1e-12 for dv, ci in dom)))
        gap = [paired(mean_n[("bafec", "read")][i], mean_n[("bafec", "write")][i]) for i in range(len(pids))]
        mid = [i for i, q in enumerate(loads) if 0.3 <= q <= 0.8]
        checks.append(("MBAFEC: reads' mean n above writes' by more than 3 paired CIs at every load in 0.3 .. 0.8",
                       all(gap[i][0] > 3 * gap[i][1] for i in mid)))
        for b in bars:
            m = mean_n[b].mean(axis=1)
            ci = np.array([_t95(mean_n[b].shape[1]) * mean_n[b][i].std(ddof=1) / np.sqrt(mean_n[b].shape[1])
                           for i in range(len(pids))])
            checks.append((f"{'MBAFEC' if b[0] == 'bafec' else 'Greedy'} {b[1]}: mean n non-increasing in the load "
                           "(within CIs)", monotone(m, increasing=False, slack=ci)))
        data = {"load": loads, "lambda": w["lambda"], "full_capacity": cap, "n": ns,
                "read_threshold": q_read, "write_threshold": q_write,
                **{f"{b[0]}_{b[1]}": {"shares": shares[b], "mean_n": mean_n[b].mean(axis=1)} for b in bars},
                "bafec_mean_n_read_minus_write": [gv for gv, _ in gap],
                "bafec_mean_n_read_minus_write_ci95": [ci for _, ci in gap]}
        ctx.figure(fig, "proxy-fig11",
                   "Proxy (002, Fig. 11): code composition by class, MBAFEC and Greedy, balanced read/write, "
                   f"load {loads[0]:g} to {loads[-1]:g} of C(K)",
                   data, checks, ["proxy-read-write-composition"], "Fig. 11 (paper 002)")
