"""Download threads over coded requests (paper 004): Fig. 2 (FCFS-R, SERPT-R, SEDPT-R for L = 3, 5,
preemptive and not, with the paper's lower bound on the optimal delay), Fig. 3 (New-Longer-than-Used)
and Fig. 4 (New-Shorter-than-Used: SEDPT-R against SEDPT-WCR)."""
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
    """Each policy's mean flow time (95% CI) against rho; the paper's lower bound on the optimal
    delay (bound_mean_flow_time, Theorem 1's relaxed system) where the run has it, else the
    theorems' interval (best listed policy minus its gap term: not the paper's bound)."""
    w = w.sort_values("rho")
    data = {"rho": w.rho}
    for p in policies(w):
        errorbars(ax, w.rho, w[p + SUFFIX], w[p + SUFFIX + "_ci95"], p.upper().replace("_", "-"), fmt="o-")
        data[p] = {"mean": w[p + SUFFIX], "ci95": w[p + SUFFIX + "_ci95"]}
    # exponential downloads: Theorem 1's relaxation (the tighter bound there); NLU downloads:
    # SEDPT-NR's last starts (storq's reading of Lemma 3)
    for name, label in (("bound", "lower bound on the optimum (Thm 1, relaxed n)"),
                        ("bound_last_start", "lower bound on the optimum (SEDPT-NR's last chunk starts)")):
        if name + SUFFIX not in w:
            continue
        b, ci = w[name + SUFFIX], w[name + SUFFIX + "_ci95"]
        ax.fill_between(w.rho, b - ci, b + ci, color="gray", alpha=0.35, lw=0)
        ax.plot(w.rho, b, "k--", lw=1.2, label=label)
        data["bound"] = {"mean": b, "ci95": ci}
        break
    if "bound" not in data and optimum and f"{optimum}_lower" in w:
        lo, up = w[f"{optimum}_lower"], w[f"{optimum}_upper"]
        ax.fill_between(w.rho, lo, up, color="gray", alpha=0.3,
                        label="best listed minus the order term (not the paper's bound)")
        ax.plot(w.rho, lo, "k:", lw=1)
        data["optimum"] = {"lower": lo, "upper": up}
    ax.set_xlabel("traffic intensity rho")
    ax.set_ylabel("mean flow time (s)")
    ax.legend(fontsize="x-small")
    return data


def _checks(data, label, stable=None):
    out = []
    for p, s in data.items():
        if p in ("rho", "optimum", "bound", "extra", "theory"):
            continue
        if stable is None or p in stable:
            out.append((f"{label}: {p} mean flow time increasing in rho (within CIs)",
                        monotone(s["mean"], slack=s["ci95"])))
        if "bound" in data:
            b = data["bound"]
            ok = (np.asarray(s["mean"], float) - np.asarray(b["mean"], float)
                  >= -3 * np.hypot(np.asarray(s["ci95"], float), np.asarray(b["ci95"], float)))
            out.append((f"{label}: {p} no faster than the lower bound on the optimum (3 ci95)",
                        bool(np.all(ok))))
        if "optimum" in data:
            lo = np.asarray(data["optimum"]["lower"], float)
            ok = np.isnan(lo) | (np.asarray(s["mean"], float) + 3 * np.asarray(s["ci95"], float) >= lo)
            out.append((f"{label}: {p} no faster than the interval's lower end (3 ci95)", bool(np.all(ok))))
    return out


def _paired_extra(r, w, pols, bound="bound_last_start" + SUFFIX):
    """Per rho, each policy's mean flow time minus the bound, paired by replication (the same
    arrivals and chunk times): {policy: {"mean", "ci95"}} in w's (rho-sorted) order."""
    from scipy.stats import t as student

    out = {p: {"mean": [], "ci95": []} for p in pols}
    for pid in w.sort_values("rho").point:
        vb = r.replications(int(pid), bound).astype(float)
        for p in pols:
            d = r.replications(int(pid), p + SUFFIX).astype(float) - vb
            out[p]["mean"].append(float(d.mean()))
            out[p]["ci95"].append(float(student.ppf(0.975, len(d) - 1) * d.std(ddof=1) / np.sqrt(len(d))))
    return out


def _shexp_moments(spec, L):
    """E[X] and E[max of L downloads] of shexp:DELTA,RATE (Delta + Exp: the max of L exponentials
    has mean H_L / RATE)."""
    delta, rate = (float(v) for v in spec.split(":", 1)[1].split(","))
    return delta + 1 / rate, delta + sum(1 / l for l in range(1, L + 1)) / rate


def _excess(d, p):
    """max over rho of policy p's mean minus the bound, and the rho where it is largest."""
    e = np.asarray(d[p]["mean"], float) - np.asarray(d["bound"]["mean"], float)
    i = int(np.nanargmax(e))
    return e[i], np.asarray(d["rho"], float)[i]


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
                axes[i, j].set_title(f"({'abcd'[2 * i + j]}) L = {L}, "
                                     f"{'preemptive' if pre == 'on' else 'non-preemptive'}", fontsize="small")
                data[f"L={L},{pre}"] = d
                checks += _checks(d, f"L={L} preemption {pre}")
        d3 = data["L=3,on"]
        checks.append(("L=3 preemptive: SERPT-R within 3 ci95 of the bound (Theorem 1: optimal, nothing relaxed)",
                       bool(np.all(np.abs(np.asarray(d3["serpt_r_p"]["mean"]) - np.asarray(d3["bound"]["mean"]))
                                   <= 3 * np.hypot(d3["serpt_r_p"]["ci95"], d3["bound"]["ci95"])))))
        np_x, np_rho = _excess(data["L=3,off"], "sedpt_r_np")
        dl_x, dl_rho = _excess(data["L=5,on"], "serpt_r_p")
        n5_x, n5_rho = _excess(data["L=5,off"], "sedpt_r_np")
        hi = {p: np.asarray(v["mean"] if isinstance(v, dict) else v, float) for p, v in data["L=3,on"].items()}
        i9 = int(np.argmax(hi["rho"]))
        caption = (
            "Mean flow time of FCFS-R, SERPT-R and SEDPT-R against the traffic intensity for L = 3 and 5, "
            "preemptive and not (panels a-d as in the paper), with the paper's lower bound on the optimal "
            "delay (dashed, grey: its 95% CI): preemptive SERPT-R with every request's n raised to k + L - 1, "
            "optimal there by Theorem 1 and no slower than any policy of the real system (storq's "
            "bound_mean_flow_time, coupled to the same arrivals). As in the paper, SERPT-R and SEDPT-R are far "
            f"faster than FCFS-R ({hi['serpt_r_p'][i9]:.4f} against {hi['fcfs_r_p'][i9]:.3f} s "
            f"at rho = {hi['rho'][i9]:g}, L = 3), and at L = 3 preemptive SERPT-R lies on the bound. Read off the "
            f"bound: the extra delay of non-preemption (SEDPT-R, L = 3) is at most {np_x:.4f} s (rho = {np_rho:g}; "
            f"the paper: 0.0114 s, both below 1/mu = 0.02 s), that of d_min < L (SERPT-R, L = 5, preemptive) at "
            f"most {dl_x:.4f} s (rho = {dl_rho:g}; the paper: 0.0034 s, both below Theorem 2's 0.0117 s), and "
            f"SEDPT-R at L = 5 non-preemptive at most {n5_x:.4f} s (rho = {n5_rho:g}) above it. Our extra delays are "
            "smaller than the paper's; its inter-arrival mixture and rho grid were lost (ours: hyperexp, SCV 1.89), and "
            "as rho -> 0 the d_min < L excess tends to 0.9 (1/(3 mu) - 1/(5 mu)) = "
            f"{0.9 * (1 / 3 - 1 / 5) * 0.02:.4f} s (a (3,1) request gets 3 threads, not 5) whatever the arrivals, so "
            "the paper's 0.0034 s comes from a higher load under its arrivals or from a construction of its curve "
            "that the extraction lost (docs/models/threads.md).")
        ctx.figure(fig, "threads-fig2",
                   "Threads (004, Fig. 2): mean flow time of FCFS-R, SERPT-R, SEDPT-R vs rho, with the lower bound on the optimum",
                   data, checks, ["threads-fig2"], "Fig. 2 (paper 004)", paper_ref=["004 Fig. 2"], caption=caption)

    for run, stem, title, opt in ((f3, "threads-fig3", "Threads (004, Fig. 3): NLU downloads, L = 3, "
                                                       "with the lower bound", None),
                                  (f4, "threads-fig4", "Threads (004, Fig. 4): New-Shorter-than-Used, (3,1) requests: "
                                                       "SEDPT-R vs SEDPT-WCR", None)):
        with storq.open(run) as r:
            w = r.wide()
            fig, ax = plt.subplots(figsize=(6, 4.5))
            d = plot_flow_times(ax, w, opt)
            ax.set_yscale("log")
            stable = None
            checks = []
            rho = np.asarray(d["rho"], float)
            if stem == "threads-fig4":
                stable = [p for p in d if p.startswith("sedpt_r")]
                wcr = [p for p in d if p.startswith("sedpt_wcr")]
                for p in stable:
                    for q in wcr:
                        checks.append((f"{p} (delay-optimal, Thm 7) no slower than {q} (3 ci95)",
                                       bool(np.all(np.asarray(d[p]["mean"]) <= np.asarray(d[q]["mean"])
                                                   + 3 * (np.asarray(d[p]["ci95"]) + np.asarray(d[q]["ci95"]))))))
                r_, q_ = np.asarray(d["sedpt_r_np"]["mean"], float), np.asarray(d["sedpt_wcr_np"]["mean"], float)
                i = len(rho) - 1
                j = int(np.argmin(np.abs(rho - 0.7)))
                caption = (
                    "New-Shorter-than-Used downloads (our hyperexponential mixture of mean 0.02 s, rate 90 w.p. 0.9 "
                    "and 10 w.p. 0.1; the paper's was lost) with (3,1) requests, L = 3, non-preemptive, rho = lambda "
                    "E[k] E[min of L]: SEDPT-R, delay-optimal by Theorem 7, against SEDPT-WCR. As in the paper's "
                    "Fig. 4, SEDPT-R is never slower and SEDPT-WCR's smaller throughput region (L / E[X] = 150 "
                    "chunks/s, rho = 0.639) shows as its delay blowing up beyond it "
                    f"({q_[j]:.3g} s against {r_[j]:.3g} s at rho = {rho[j]:g}, {q_[i]:.3g} against {r_[i]:.3g} s "
                    f"at rho = {rho[i]:g}): the unbounded gap the paper reports (in a finite run of N requests it "
                    "grows with N).")
            else:
                wcr, nr = np.asarray(d["sedpt_wcr_p"]["mean"], float), np.asarray(d["sedpt_nr_np"]["mean"], float)
                rr, fc = np.asarray(d["sedpt_r_np"]["mean"], float), np.asarray(d["fcfs_wcr_p"]["mean"], float)
                i = len(rho) - 1
                L = int(w.L.iloc[0])
                EX, Emax = _shexp_moments(str(w.download.iloc[0]), L)
                order = (np.log(L) + 1) * EX
                pols = [p for p in d if p not in ("rho", "bound")]
                ex = _paired_extra(r, w, pols)
                d["extra"] = ex
                xw, xn = np.asarray(ex["sedpt_wcr_p"]["mean"]), np.asarray(ex["sedpt_nr_np"]["mean"])
                cw, cn = np.asarray(ex["sedpt_wcr_p"]["ci95"]), np.asarray(ex["sedpt_nr_np"]["ci95"])
                iw, jn = int(np.argmax(xw)), int(np.argmax(xn))
                d["theory"] = {"mean_download": EX, "mean_max_L_downloads": Emax, "order_term": order}
                for p in pols:
                    m, c = np.asarray(ex[p]["mean"]), np.asarray(ex[p]["ci95"])
                    checks.append((f"{p} no faster than the lower bound at every rho (paired, 3 ci95)",
                                   bool(np.all(m >= -3 * c))))
                checks.append(("SEDPT-NR minus the bound within [E[X], E[max of L downloads]] at every rho "
                               "(its last chunk runs to the end; NLU: used chunks no slower than new; 3 ci95)",
                               bool(np.all((xn >= EX - 3 * cn) & (xn <= Emax + 3 * cn)))))
                checks.append(("SEDPT-WCR faster than SEDPT-NR at every rho (their paired difference > 0), as the "
                               "caption says", bool(np.all(xn - xw > 0))))
                checks.append(("the extra delays of SEDPT-WCR and SEDPT-NR below the (ln L + 1) E[X] gap",
                               bool(np.all(xw + 3 * cw <= order) and np.all(xn + 3 * cn <= order))))
                caption = (
                    "New-Longer-than-Used downloads, L = 3 (Delta + Exp with Delta = 0.01 s and mean "
                    f"{EX:.2f} s; the paper's constants were lost): preemptive SEDPT-WCR, non-preemptive SEDPT-NR "
                    "and SEDPT-R, and FCFS-WCR, with the paper's lower bound on the optimal delay (dashed, grey: "
                    "its 95% CI) in storq's reading of Lemma 3 (the equations were lost): the mean time from a "
                    "request's arrival to the start of its last needed chunk under non-preemptive SEDPT-NR, on "
                    "the same arrivals and chunk times (bound_last_start_mean_flow_time). As in the paper, "
                    f"SEDPT-WCR beats SEDPT-NR at every rho (by {nr[0] - wcr[0]:.4f} s at rho = {rho[0]:g}, "
                    f"{nr[i] - wcr[i]:.4f} s at {rho[i]:g}) and both beat SEDPT-R and FCFS-WCR at the highest "
                    f"load ({wcr[i]:.3f} against {rr[i]:.3f} and {fc[i]:.3f} s at rho = {rho[i]:g}). Read off "
                    f"the bound (paired by replication), the maximum extra delays of preemptive SEDPT-WCR and "
                    f"non-preemptive SEDPT-NR are {xw[iw]:.4f} s (rho = {rho[iw]:g}) and {xn[jn]:.4f} s "
                    f"(rho = {rho[jn]:g}); the paper's are 0.0229 s and 0.0230 s. Both are below Theorems "
                    f"5-6's gap, here (ln 3 + 1) E[X] = {order:.4f} s (the paper's 0.0560 s, with its lost NLU "
                    f"law). SEDPT-NR's extra delay lies in [E[X], E[max of 3 downloads]] = [{EX:.4f}, "
                    f"{Emax:.4f}] s at every rho, as the reading implies ({xn.min():.5f} to {xn.max():.5f} s); "
                    f"SEDPT-WCR's ({xw.min():.4f} to {xw.max():.4f} s) is smaller: its redundant chunks finish "
                    "some requests before their last needed chunk would have (docs/models/threads.md).")
            checks = _checks(d, stem, stable) + checks
            ctx.figure(fig, stem, title, d, checks, [stem], f"Fig. {stem[-1]} (paper 004)",
                       paper_ref=[f"004 Fig. {stem[-1]}"], caption=caption)
