"""Coded proxy with L threads (paper 002): Fig. 5 (fixed (n,3) codes against the request rate,
beside the approximation D~(n)), Figs. 6-7 (Greedy and BAFEC normalised by the best fixed code:
mean and 99.9th percentile) and Fig. 11 (the code composition BAFEC chooses)."""
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

        fig, ax = plt.subplots(figsize=(6, 4.5))
        shares = np.vstack([r.vector(int(p), "bafec_code_share")["mean"].to_numpy() for p in w.point])
        ns = r.vector(int(w.point.iloc[0]), "bafec_code_share").n.to_numpy()
        bottom = np.zeros(len(w))
        x = np.arange(len(w))
        for j, n in enumerate(ns):
            if shares[:, j].max() <= 0:
                continue
            ax.bar(x, shares[:, j], bottom=bottom, label=f"n = {int(n)}")
            bottom += shares[:, j]
        ax.set_xticks(x, [f"{v:g}" for v in w["lambda"]])
        ax.set_xlabel("request rate lambda")
        ax.set_ylabel("fraction of requests served with (n,3)")
        ax.legend(fontsize="small")
        mean_n = shares @ ns
        ctx.figure(fig, "proxy-fig11", "Proxy (002, Fig. 11): BAFEC's code composition vs lambda (single class)",
                   {"lambda": w["lambda"], "n": ns, "shares": shares, "mean_n": mean_n},
                   [("shares sum to 1 at every rate", bool(np.allclose(shares.sum(axis=1), 1))),
                    ("BAFEC uses shorter codes as the load grows (mean n non-increasing)",
                     monotone(mean_n, increasing=False, slack=np.full(len(mean_n), 0.05)))],
                   ["proxy-fig6-7"], "Fig. 11 (paper 002)")
