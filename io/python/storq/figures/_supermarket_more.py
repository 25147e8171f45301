"""Batch sampling with k > 1 and the convergence studies of paper 001 (used by supermarket.py):
the Theorem 2.2 tail bounds beside simulation, the job delay against L for fixed k, and the 1/n
convergence of ||u^n - u||_1 with every point's resolution marked and run lengths sized by
precision targets. Theory is storq's (the results files and `storq theory`)."""
import json
import re
import subprocess

import numpy as np

from . import errorbars, monotone

LAMBDA = 0.9
# One replication's noise on E[Q]: sigma^2 n T ~ 40 (measured on (L, k) = (2, 1), n = 10^3 and 10^4,
# T = 150: 34 and 46); the run lengths below use it to aim the CI at a third of the 1/n distance.
NOISE = 40.0


def _theory(ctx, L, k, n):
    """V (the 1/n coefficient of u) and the mean-field E[Q] from `storq theory`."""
    out = subprocess.run([ctx.storq, "theory", "supermarket", "--n", str(n), "--L", str(L), "--k", str(k),
                          "--lambda", str(LAMBDA), "--format", "json"], capture_output=True, text=True, check=True)
    t = json.loads(out.stdout)
    pt = t["points"][0] if "points" in t else t
    arrays = pt.get("theory", pt)

    def get(name):
        v = arrays[name]
        return np.asarray(v["values"] if isinstance(v, dict) else v, float)
    return get("V"), float(get("mean_queue_length")[0])


def _plan(n, vnorm, mq, per_rep):
    """(precision, arrivals per replication): the relative CI on E[Q] that puts the noise floor at a
    third of the 1/n distance ||V||_1/n, and a replication length expected to reach it in about
    `per_rep` replications (t ~ 2)."""
    d = vnorm / n
    rel = d / (3 * mq)
    tr = NOISE * (2 * 3 * n / vnorm) ** 2 / n  # T R with 2 sigma / sqrt(R) = d / 3
    T = max(200.0, tr / per_rep)
    return rel, int(n * LAMBDA * T), T


def _cost_core_hours(ctx, L, k, n, vnorm, mq, calib):
    """storq's own estimate (--dry-run --workers 1, its seconds per cost unit taken from the units
    of CALIB, this figure's largest run, by --calibrate-from) of resolving n:
    the T R of _plan in at least 24 replications, each at most 10^6 time units long (longer ones
    would hold event times too coarsely in a double at n = 10^6, which storq refuses)."""
    rel, _, _ = _plan(n, vnorm, mq, 1)
    tr = NOISE * (2 * 3 * n / vnorm) ** 2 / n
    reps = max(24, int(np.ceil(tr / 1e6)))
    arr = int(n * LAMBDA * tr / reps)
    out = subprocess.run([ctx.storq, "run", "supermarket", "--n", str(n), "--L", str(L), "--k", str(k),
                          "--lambda", str(LAMBDA), "--engine", "counts", "--warmup", str(int(n * LAMBDA * 100)),
                          "--arrivals", str(arr), "-r", str(reps), "--dry-run", "--workers", "1",
                          "--calibrate-from", str(calib)],
                         capture_output=True, text=True)
    m = re.search(r"work ([0-9.e+]+) worker-s", out.stdout + out.stderr)
    return float(m.group(1)) / 3600 if m else float("nan"), arr, reps


def convergence(ctx, L, k, stem, title_extra=""):
    """||u^n - u||_1 against n, each n its own run with a precision target on E[Q] sized to the
    expected 1/n distance; hollow markers where the distance is within its noise floor."""
    import matplotlib.pyplot as plt

    import storq

    V, mq = _theory(ctx, L, k, 1000)
    vnorm = float(np.sum(np.abs(V)))
    ns = ctx.pick([10, 30, 100, 300, 1000], [10, 30, 100, 300], [10, 100])
    per_rep = ctx.pick(24, 240, 4000)  # quick and ci: a tenth and a hundredth of the length
    rows, runs, path = [], [], None
    for n in ns:
        rel, arr, T = _plan(n, vnorm, mq, per_rep)
        name = f"{stem}-n{n}"
        runs.append(name)
        path = ctx.run(name, "supermarket", n=n, L=L, k=k, **{"lambda": LAMBDA}, engine="counts",
                       warmup=int(n * LAMBDA * 100), arrivals=arr, r=ctx.pick(8, 4, 4), seed=2026,
                       precision=f"{rel:.6g}:mean_queue_length",
                       **{"max-replications": ctx.pick(48, 8, 4)})
        with storq.open(path) as r:
            w = r.wide().iloc[0]
            reps = len(r.replications(int(w.point), "mean_queue_length"))
            got = float(w.mean_queue_length_ci95 / w.mean_queue_length)
            rows.append((n, float(w.u_l1), float(w.u_l1_noise), reps, arr, rel, got))
    n, l1, noise, reps, arr, rel, got = (np.array(c) for c in zip(*rows))
    reached = [int(x) for x in n[got <= rel]]
    ok = l1 > noise
    fig, ax = plt.subplots(figsize=(6.2, 4.6))
    ax.loglog(n[ok], l1[ok], "o", color="tab:blue", ms=7, label="$\\|u^n - u\\|_1$, resolved")
    ax.loglog(n[~ok], l1[~ok], "o", mfc="none", color="tab:blue", ms=7,
              label="unresolved (within its noise floor)")
    ax.loglog(n, noise, ":", color="gray", label="noise floor (sum of CI half-widths)")
    ax.loglog(n, vnorm / n, "k--", lw=1, label=f"refined mean field $\\|V\\|_1/n$ ($\\|V\\|_1$ = {vnorm:.2f})")
    ax.set_xlabel("n (servers)")
    ax.set_ylabel("$\\|u^n - u\\|_1$")
    ax.legend(fontsize="small")
    slope = np.polyfit(np.log(n[ok]), np.log(l1[ok]), 1)[0] if ok.sum() >= 2 else np.nan
    checks = [("the distance decreases with n over the resolved points", monotone(l1[ok], increasing=False))]
    if ok.sum() >= 2:
        checks.append((f"fitted slope over the resolved points in [-1.5, -0.6] (got {slope:.2f})",
                       bool(-1.5 <= slope <= -0.6)))
    if ctx.mode == "full":
        checks.append((f"full mode: every point resolved ({int(ok.sum())} of {len(n)})", bool(ok.all())))
    costs = {nn: _cost_core_hours(ctx, L, k, nn, vnorm, mq, path) for nn in (100000, 1000000)}
    unres = [int(x) for x in n[~ok]]
    note = (f" Hollow: unresolved, the distance within its noise floor (n = {', '.join(map(str, unres))})."
            if unres else " Every point is resolved (filled): its distance lies above its noise floor.")
    cap = (f"||u^n - u||_1 against n for L = {L}, k = {k}, load {LAMBDA}{title_extra}: each n is its own run "
           f"(counts engine) with a precision target on E[Q] sized to a third of the expected distance ||V||_1/n "
           f"(||V||_1 = {vnorm:.2f}, from storq's refined mean field; replications of "
           f"{', '.join(f'{a:.2g}' for a in arr)} arrivals, {', '.join(str(int(x)) for x in reps)} replications; "
           + (f"the target was reached at n = {', '.join(map(str, reached))}, elsewhere the cap of "
              if reached else "the cap of ")
           + f"{ctx.pick(48, 8, 4)} replications stopped " + ("the run first)." if reached else "every run first).")
           + note + (f" Fitted slope over the resolved points {slope:.2f} (1/n: -1)." if ok.sum() >= 2 else "")
           + f" Resolving larger n the same way costs, by storq's own estimate (--dry-run calibrated from the units of "
           f"the n = {int(n[-1])} run: {costs[100000][2]} replications of {costs[100000][1]:.2g} arrivals and "
           f"{costs[1000000][2]} of {costs[1000000][1]:.2g}): "
           f"{costs[100000][0]:.3g} core-hours for n = 10^5 and {costs[1000000][0]:.3g} for n = 10^6 "
           "(the noise falls like 1/sqrt(n T R) while the distance falls like 1/n, so the cost grows like n^2).")
    ctx.figure(fig, stem, f"Supermarket (001): 1/n convergence of $\\|u^n-u\\|_1$ (L = {L}, k = {k}, lambda = {LAMBDA})",
               {"n": n, "u_l1": l1, "u_l1_noise": noise, "resolved": ok, "replications": reps, "arrivals": arr,
                "precision": rel, "precision_reached": got, "V_l1": vnorm, "slope": slope,
                "core_hours": {str(k_): v[0] for k_, v in costs.items()}},
               checks, runs, "1/n convergence (paper 001)",
               paper_ref=["001 Theorem 2.4 (interchange of limits: the invariant measure concentrates on the fixed point)"],
               caption=cap)


def bounds(ctx):
    """u_i at n = 1000 beside the fixed point and Theorem 2.2's lower and upper bounds, k > 1."""
    import matplotlib.pyplot as plt

    import storq

    Ls, ks = [4, 6, 8], [2, 3, 2]
    n = ctx.pick(1000, 1000, 300)
    run = ctx.run("supermarket-bounds", "supermarket", n=n, L=Ls, k=ks, zip="L,k", **{"lambda": LAMBDA},
                  engine="counts", warmup=int(n * LAMBDA * 100), arrivals=int(n * LAMBDA * ctx.pick(2000, 500, 200)),
                  r=ctx.pick(8, 4, 4), seed=2026)
    fig, axes = plt.subplots(1, 3, figsize=(13, 4.3), sharey=True)
    data, checks, gaps = {}, [], []
    with storq.open(run) as r:
        w = r.wide()
        for ax, (L, k) in zip(axes, zip(Ls, ks)):
            pid = int(w.point[(w.L == L) & (w.k == k)].iloc[0])
            v = r.vector(pid, "u")
            lo = np.asarray(r.theory(pid, "u_lower"), float)
            hi = np.asarray(r.theory(pid, "u_upper"), float)
            u, m, ci = v.theory.to_numpy(float), v["mean"].to_numpy(float), v.ci95.to_numpy(float)
            i = v.level.to_numpy(int)
            sh = m > 0
            errorbars(ax, i[sh], m[sh], ci[sh], f"simulated, n = {n}")
            for arr, st, lab in ((u, "k-", "fixed point u"), (lo, "b--", "lower bound (Thm 2.2)"),
                                 (hi, "r--", "upper bound (Thm 2.2)")):
                t = arr > 1e-12
                ax.semilogy(i[t], arr[t], st, lw=1, label=lab)
            ax.set_title(f"L = {L}, k = {k}", fontsize="small")
            ax.set_xlabel("level i")
            ax.set_ylim(1e-9, 1.5)
            big = u > 1e-4
            checks += [(f"L={L}, k={k}: lower <= fixed point <= upper at every level",
                        bool(np.all(lo <= u * (1 + 1e-12)) and np.all(u <= hi * (1 + 1e-12)))),
                       (f"L={L}, k={k}: simulated u_i within 3 ci95 + 5/n of the fixed point where u_i > 1e-4",
                        bool(np.all(np.abs(m - u)[big] <= 3 * ci[big] + 5.0 / n)))]
            lvl = 3
            gaps.append((L, k, lo[lvl], u[lvl], hi[lvl]))
            data[f"L{L}_k{k}"] = {"level": i, "mean": m, "ci95": ci, "u": u, "lower": lo, "upper": hi}
    axes[0].set_ylabel("$u_i$ (fraction of queues with $\\geq i$ tasks)")
    axes[0].legend(fontsize="x-small")
    checks.append(("the bounds differ for every k > 1 (upper / lower > 1.05 at level 3)",
                   all(h / l > 1.05 for _, _, l, _, h in gaps)))
    cap = ("Theorem 2.2's tail bounds lambda^(((L-k+1)^i - 1)/(L-k)) <= u_i <= lambda^((r^i - 1)/(r - 1)), r = L/k, "
           f"beside the fixed point and simulation (n = {n}, load {LAMBDA}, counts engine) for batch sampling with "
           "k > 1, where the two bounds differ (they coincide at k = 1). At level 3: "
           + "; ".join(f"L = {L}, k = {k}: {l:.3g} <= {u:.3g} <= {h:.3g}" for L, k, l, u, h in gaps)
           + ". The simulated u_i sit on the fixed point within their CIs; the paper has no simulations "
           "(these figures are storq's).")
    ctx.figure(fig, "supermarket-bounds", f"Supermarket (001): Theorem 2.2 tail bounds for k > 1 (lambda = {LAMBDA})",
               data, checks, ["supermarket-bounds"], "Theorem 2.2 tail bounds (paper 001)",
               paper_ref=["001 Theorem 2.2 (tail bounds of the fixed point)"], caption=cap)


def delay_vs_L(ctx):
    """Mean job delay and task sojourn against L for k = 2 (servers engine: it measures job delay)
    beside the mean field (storq's mean_job_delay: the largest of the k tasks' sojourns)."""
    import matplotlib.pyplot as plt

    import storq

    k, Ls = 2, ctx.pick([2, 3, 4, 6, 8, 12], [2, 4, 8, 12], [2, 4, 8, 12])
    n = ctx.pick(1000, 1000, 300)
    # warm-up 500 time units: at L = k every queue is M/M/1 at load 0.9, whose relaxation time
    # 1/(mu (1 - sqrt(rho))^2) is about 190 time units (mu = 2); from empty, 100 left E[D] 5% low
    run = ctx.run("supermarket-delay-L", "supermarket", n=n, L=Ls, k=k, **{"lambda": LAMBDA},
                  warmup=int(n * LAMBDA * 500), arrivals=int(n * LAMBDA * ctx.pick(1000, 300, 100)),
                  r=ctx.pick(8, 4, 4), seed=2026)
    with storq.open(run) as r:
        w = r.wide().sort_values("L")
    L = w.L.to_numpy(int)
    jd, jc, jt = (w[c].to_numpy(float) for c in ("mean_job_delay", "mean_job_delay_ci95", "mean_job_delay_theory"))
    ts, tc, tt = (w[c].to_numpy(float) for c in ("mean_task_sojourn", "mean_task_sojourn_ci95",
                                                 "mean_task_sojourn_theory"))
    fig, ax = plt.subplots(figsize=(6.2, 4.6))
    errorbars(ax, L, jd, jc, "job delay (simulated)")
    ax.plot(L, jt, "k-", lw=1, label="job delay, mean field (max of the k tasks' sojourns)")
    errorbars(ax, L, ts, tc, "task sojourn (simulated)", fmt="s")
    ax.plot(L, tt, "k:", lw=1, label="task sojourn, mean field (Little)")
    ax.set_yscale("log")
    ax.set_xlabel(f"L (queues sampled per job), k = {k} tasks")
    ax.set_ylabel("mean time")
    ax.legend(fontsize="small")
    rel = np.abs(jd - jt) / jt
    checks = [(f"job delay within 3 ci95 + 2% of the mean field at every L (largest gap {100 * rel.max():.1f}%)",
               bool(np.all(np.abs(jd - jt) <= 3 * jc + 0.02 * jt))),
              ("task sojourn within 3 ci95 + 2% of the mean field", bool(np.all(np.abs(ts - tt) <= 3 * tc + 0.02 * tt))),
              ("job delay decreasing in L (within CIs)", monotone(jd, increasing=False, slack=jc)),
              ("L = k = 2: the mean field is H_2 / (mu (1 - lambda)) = 7.5", bool(abs(jt[0] - 7.5) < 1e-9))]
    cap = (f"Mean job delay and mean task sojourn against the number L of queues sampled per job, k = {k} tasks per "
           f"job, load {LAMBDA}, n = {n} (exponential service of rate k). The job delay falls from {jd[0]:.2f} at "
           f"L = {L[0]} (no choice: independent M/M/1 queues, mean field H_2/(k(1 - lambda)) = {jt[0]:.2f}) to "
           f"{jd[-1]:.2f} at L = {L[-1]} (mean field {jt[-1]:.3f}); storq's mean field, the largest of the k tasks' "
           f"Erlang sojourns behind the k shortest of L sampled queues, is within {100 * rel.max():.1f}% of the "
           "simulation at every L (the remainder is the O(1/n) term).")
    ctx.figure(fig, "supermarket-delay-L", f"Supermarket (001): job delay vs L for k = {k} (lambda = {LAMBDA}, n = {n})",
               {"L": L, "job_delay": jd, "job_delay_ci95": jc, "job_delay_theory": jt, "task_sojourn": ts,
                "task_sojourn_ci95": tc, "task_sojourn_theory": tt}, checks, ["supermarket-delay-L"],
               "job delay vs L (paper 001)", paper_ref=["001 batch sampling: job delay against L for fixed k"],
               caption=cap)
