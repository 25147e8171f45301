"""Download threads over coded requests (paper 004): Fig. 2 (FCFS-R, SERPT-R, SEDPT-R for L = 3, 5,
preemptive and not, with the optimum's interval), Fig. 3 (New-Longer-than-Used) and Fig. 4
(New-Shorter-than-Used: SEDPT-R against SEDPT-WCR)."""
import re

import numpy as np

from . import errorbars, monotone

MODEL = "threads"
SUFFIX = "_mean_flow_time"


def policies(w):
    """Column prefixes of the policies' mean flow times (e.g. 'sedpt_r_np')."""
    return [c[: -len(SUFFIX)] for c in w.columns
            if c.endswith(SUFFIX) and not c.startswith("diff_")
            and not re.search(r"_(small|large|read|write)_mean_flow_time$", c)
            and c[: -len(SUFFIX)] + "_throughput" in w]


def plot_flow_times(ax, w, optimum=None):
    """Each policy's mean flow time (95% CI) against rho; the optimum's interval (lower, upper
    comparison columns) as a band."""
    w = w.sort_values("rho")
    data = {"rho": w.rho}
    for p in policies(w):
        errorbars(ax, w.rho, w[p + SUFFIX], w[p + SUFFIX + "_ci95"], p.upper().replace("_", "-"), fmt="o-")
        data[p] = {"mean": w[p + SUFFIX], "ci95": w[p + SUFFIX + "_ci95"]}
    if optimum and f"{optimum}_lower" in w:
        lo, up = w[f"{optimum}_lower"], w[f"{optimum}_upper"]
        ax.fill_between(w.rho, lo, up, color="gray", alpha=0.3, label="optimum's interval")
        ax.plot(w.rho, lo, "k:", lw=1)
        data["optimum"] = {"lower": lo, "upper": up}
    ax.set_xlabel("traffic intensity rho")
    ax.set_ylabel("mean flow time (s)")
    ax.legend(fontsize="x-small")
    return data


def _checks(data, label, stable=None):
    out = []
    for p, s in data.items():
        if p in ("rho", "optimum"):
            continue
        if stable is None or p in stable:
            out.append((f"{label}: {p} mean flow time increasing in rho (within CIs)",
                        monotone(s["mean"], slack=s["ci95"])))
        if "optimum" in data:
            lo = np.asarray(data["optimum"]["lower"], float)
            ok = np.isnan(lo) | (np.asarray(s["mean"], float) + 3 * np.asarray(s["ci95"], float) >= lo)
            out.append((f"{label}: {p} no faster than the optimum's lower end (3 ci95)", bool(np.all(ok))))
    return out


def figures(ctx):
    import matplotlib.pyplot as plt

    import storq

    reps = ctx.pick(100, 30, 8)
    req = ctx.pick(3000, 1500, 600)
    rhos = ctx.pick(None, [0.1, 0.3, 0.5, 0.7, 0.9], [0.2, 0.5, 0.8])
    f2 = ctx.run("threads-fig2", "jobs/sweeps/threads-fig2.ini", rho=rhos, requests=req, r=reps)
    f3 = ctx.run("threads-fig3", "jobs/sweeps/threads-fig3.ini",
                 rho=ctx.pick(None, [0.1, 0.3, 0.5, 0.7], [0.2, 0.5, 0.7]), requests=req, r=reps)
    f4 = ctx.run("threads-fig4", "jobs/sweeps/threads-fig4.ini", rho=rhos, requests=req, r=reps)

    with storq.open(f2) as r:
        w = r.wide()
        fig, axes = plt.subplots(2, 2, figsize=(11, 8.5))
        data, checks = {}, []
        for i, L in enumerate(sorted(w.L.unique())):
            for j, pre in enumerate(("on", "off")):
                g = w[(w.L == L) & (w.preemption == pre)].dropna(axis=1, how="all")
                opt = "optimum_preemptive" if pre == "on" else "optimum_nonpreemptive"
                d = plot_flow_times(axes[i, j], g, opt)
                axes[i, j].set_title(f"L = {L}, {'preemptive' if pre == 'on' else 'non-preemptive'}",
                                     fontsize="small")
                data[f"L={L},{pre}"] = d
                checks += _checks(d, f"L={L} preemption {pre}")
        ctx.figure(fig, "threads-fig2",
                   "Threads (004, Fig. 2): mean flow time of FCFS-R, SERPT-R, SEDPT-R vs rho, with the optimum",
                   data, checks, ["threads-fig2"], "Fig. 2 (paper 004)")

    for run, stem, title, opt in ((f3, "threads-fig3", "Threads (004, Fig. 3): New-Longer-than-Used downloads, L = 3",
                                   "optimum_preemptive"),
                                  (f4, "threads-fig4", "Threads (004, Fig. 4): New-Shorter-than-Used, (3,1) requests: "
                                                       "SEDPT-R vs SEDPT-WCR", None)):
        with storq.open(run) as r:
            w = r.wide()
            fig, ax = plt.subplots(figsize=(6, 4.5))
            d = plot_flow_times(ax, w, opt)
            ax.set_yscale("log")
            stable = None
            checks = []
            if stem == "threads-fig4":
                stable = [p for p in d if p.startswith("sedpt_r")]
                wcr = [p for p in d if p.startswith("sedpt_wcr")]
                for p in stable:
                    for q in wcr:
                        checks.append((f"{p} (delay-optimal, Thm 7) no slower than {q} (3 ci95)",
                                       bool(np.all(np.asarray(d[p]["mean"]) <= np.asarray(d[q]["mean"])
                                                   + 3 * (np.asarray(d[p]["ci95"]) + np.asarray(d[q]["ci95"]))))))
            checks = _checks(d, stem, stable) + checks
            ctx.figure(fig, stem, title, d, checks, [stem], f"Fig. {stem[-1]} (paper 004)")
