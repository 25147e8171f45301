"""Paper 000's results beyond the load curves (used by cluster.py): delay against the file size k
in its two regimes, the coding options, the chunk size and variable chunk sizes (the M/M/1
corollary), and a setting where BS and WF differ. Every theory curve is read from the run's
results file (storq's theory), none is computed here."""
import numpy as np

from . import errorbars, monotone

POLICIES = ("BR", "BS", "WF")


def _lengths(ctx, full, quick, ci, reps=(8, 6, 4)):
    a = ctx.pick(full, quick, ci)
    return {"arrivals": a, "warmup": a // 8, "r": ctx.pick(*reps)}


def more_figures(ctx):
    figure_size(ctx)
    figure_coding(ctx)
    figure_chunk(ctx)
    figure_bs_wf(ctx)


def figure_size(ctx):
    """Mean delay per file size k (each k its own class) against k, log x: the logarithmic regime
    (k <= m) and the linear one (k > m), with the product form, the regimes' asymptotes, the linear
    regime's lower bound and the isolation delay."""
    import matplotlib.pyplot as plt

    import storq

    run = ctx.run("cluster-size", "jobs/sweeps/cluster-size.ini", **_lengths(ctx, 2000000, 300000, 60000))
    with storq.open(run) as r:
        pid = r.points()[0]
        m = int(r.params(pid)["m"])
        d = {}
        for p in POLICIES:
            v = r.vector(pid, f"{p}_class_mean_delay")
            d[p] = {"mean": v["mean"].to_numpy(float), "ci95": v.ci95.to_numpy(float)}
        # each class holds one size of the law: its x is that size (the class axis is its lowest k)
        sizes = sorted(int(t.split("=")[0]) for t in r.params(pid)["size"].split(":", 1)[1].split(","))
        k = np.array([min(s for s in sizes if s >= lo) for lo in v.k.to_numpy(float)], float)
        th = {n: np.asarray(r.theory(pid, n), float) for n in
              ("product_form_class_mean", "regime_class_mean", "linear_lower_class_mean",
               "isolation_class_delay")}
        theta = float(r.theory(pid, "cavity_tail_theta")[0])
    log = k <= m
    fig, ax = plt.subplots(figsize=(6.5, 4.6))
    for p in POLICIES:
        errorbars(ax, k, d[p]["mean"], d[p]["ci95"], f"{p} (simulated)", fmt="o-")
    ax.plot(k, th["product_form_class_mean"], "k--", lw=1, label="product form (bound on BR)")
    ax.plot(k[log], th["regime_class_mean"][log], "-", color="tab:purple", lw=2, alpha=0.5,
            label="log regime: $E[c]/\\mu + (\\ln Ck + \\gamma)/\\theta$")
    ax.plot(k[k >= m / 2], np.where(k >= m, th["regime_class_mean"], np.nan)[k >= m / 2], "-",
            color="tab:brown", lw=2, alpha=0.5, label="linear regime: $E[c]k/(m\\mu) + E[\\max_m V]$")
    ax.plot(k, th["linear_lower_class_mean"], ":", color="tab:brown",
            label="linear lower bound (BR): $E[V] + E[c]k/(m\\mu)$")
    ax.plot(k, th["isolation_class_delay"], "-.", color="gray", lw=1,
            label="isolation: $E[c]\\lceil k/m\\rceil/\\mu$ (lower bound)")
    ax.axvline(m, color="gray", lw=0.5)
    ax.set_xscale("log", base=2)
    ax.set_xlabel(f"file size k (chunks); m = {m}")
    ax.set_ylabel("mean delay")
    ax.legend(fontsize="x-small")
    br, brc, pf = d["BR"]["mean"], d["BR"]["ci95"], th["product_form_class_mean"]
    # log regime: BR's growth per doubling of k; linear regime: BR's slope per chunk
    kl, bl = np.log2(k[log]), br[log]
    per_doubling = np.polyfit(kl, bl, 1)[0]
    kk, bk = k[k >= m], br[k >= m]
    slope = np.polyfit(kk, bk, 1)[0]

    def r2(x, y):
        res = y - np.polyval(np.polyfit(x, y, 1), x)
        return 1 - np.sum(res ** 2) / np.sum((y - y.mean()) ** 2)
    r2_log, r2_lin = r2(kl, bl), r2(kk, bk)
    low = th["linear_lower_class_mean"]
    reg = th["regime_class_mean"]
    gumbel = np.abs(reg[log] - pf[log]) / pf[log]
    checks = [
        ("BR within the product form at every k (<= bound + 3 ci95)", bool(np.all(br <= pf + 3 * brc))),
        ("every policy at or above the isolation delay",
         all(bool(np.all(d[p]["mean"] + 3 * d[p]["ci95"] >= th["isolation_class_delay"])) for p in POLICIES)),
        ("BR at or above its linear-regime lower bound for k >= m",
         bool(np.all((br + 3 * brc >= low)[k >= m]))),
        ("BR increasing in k (within CIs)", monotone(br, slack=brc)),
        (f"log regime (k <= m): BR linear in log k, R^2 of the fit {r2_log:.3f} >= 0.9", bool(r2_log >= 0.9)),
        (f"linear regime (k >= m): BR linear in k, R^2 {r2_lin:.3f} >= 0.95, slope {slope:.4f} >= 0.8 x the "
         f"lower bound's 1/m = {1 / m:.4f}", bool(r2_lin >= 0.95 and slope >= 0.8 / m)),
        (f"the log asymptote within 5% of the product form for 8 <= k <= m (max {np.max(gumbel[k[log] >= 8]):.3f})",
         bool(np.all(gumbel[k[log] >= 8] < 0.05))),
        ("WF <= BS <= BR at every k (within CIs)",
         bool(np.all(d["WF"]["mean"] <= d["BS"]["mean"] + 3 * d["BS"]["ci95"])
              and np.all(d["BS"]["mean"] <= br + 3 * brc))),
    ]
    data = {"k": k, "m": m, **d, **th, "theta": theta, "per_doubling": per_doubling, "slope": slope}
    ks = k.astype(int)
    cap = (f"Mean delay per file size k on m = {m} servers, load 0.7, files of k = {ks[0]}..{ks[-1]} chunks "
           f"(P(k) proportional to 1/k: every size brings the same load), unit chunks, plus:2, BR, BS and WF coupled. "
           f"Logarithmic regime (k <= m): BR grows by {per_doubling:.2f} per doubling of k, "
           f"from {br[0]:.2f} at k = 1 to {br[log][-1]:.2f} at k = {ks[log][-1]}, beside storq's asymptote "
           f"E[c]/mu + (ln Ck + gamma)/theta of the product form (theta = {theta:.3f}; within "
           f"{100 * np.max(gumbel[k[log] >= 8]):.1f}% of it from k = 8); BR lies well below the product form for "
           f"k near m (ratio {br[log][-1] / pf[log][-1]:.2f} at k = {ks[log][-1]}). Linear regime (k > m): BR's slope is "
           f"{slope:.4f} per chunk ({slope * m:.2f}/m), between its lower bound E[V] + E[c]k/(m mu) "
           f"({low[ks == ks[-1]][0]:.2f} at k = {ks[-1]}, BR {br[-1]:.2f}) and the product form "
           f"({pf[-1]:.2f}), which overstates large files: their blocks load every server at once, so the "
           "workloads they meet are strongly associated, far from independent. BS and WF coincide for "
           f"k + 2 <= m and differ by at most {np.max(np.abs(d['BS']['mean'] - d['WF']['mean'])):.2f} beyond.")
    ctx.figure(fig, "cluster-size", f"Cluster (000): delay vs file size k, the logarithmic and linear regimes (m = {m})",
               data, checks, ["cluster-size"], "delay vs file size (paper 000)",
               paper_ref=["000 delay vs file size (logarithmic and linear regimes)"], caption=cap)


def _by(w, key):
    return {v: g.sort_values("lambda") for v, g in w.groupby(key, sort=False)}


def figure_coding(ctx):
    import matplotlib.pyplot as plt

    import storq

    run = ctx.run("cluster-coding", "jobs/sweeps/cluster-coding.ini", **_lengths(ctx, 400000, 60000, 15000))
    codes = ("none", "plus:1", "plus:2", "rate:0.5")
    with storq.open(run) as r:
        w = r.wide()
    g = _by(w, "coding")
    fig, ax = plt.subplots(figsize=(6.5, 4.6))
    data, rho = {}, None
    for c in codes:
        s = g[c]
        rho = (s["lambda"] * 5.5 / s["m"]).to_numpy(float)
        data[c] = {p: {"mean": s[f"{p}_mean_delay"].to_numpy(float), "ci95": s[f"{p}_mean_delay_ci95"].to_numpy(float)}
                   for p in POLICIES}
        data[c]["product_form"] = s["product_form_mean"].to_numpy(float)
        errorbars(ax, rho, data[c]["WF"]["mean"], data[c]["WF"]["ci95"], f"WF, {c}", fmt="o-")
    errorbars(ax, rho, data["none"]["BR"]["mean"], data["none"]["BR"]["ci95"], "BR (any code)", fmt="s:", color="k")
    ax.plot(rho, data["none"]["product_form"], "k--", lw=1, label="product form (BR bound; the same for every code)")
    ax.set_xlabel("load $\\rho = \\lambda E[k]/m$")
    ax.set_ylabel("mean delay")
    ax.legend(fontsize="x-small")
    wf = {c: data[c]["WF"] for c in codes}
    checks = [("coding none: BS = WF = BR exactly (no choice of blocks)",
               all(np.array_equal(data["none"][p]["mean"], data["none"]["BR"]["mean"]) for p in ("BS", "WF"))),
              ("the product form is the same for every code (BR ignores the code)",
               all(np.allclose(data[c]["product_form"], data["none"]["product_form"], rtol=1e-12) for c in codes))]
    for a, b in zip(codes[:-1], codes[1:]):
        checks.append((f"WF with {b} no slower than with {a} at every load (within CIs)",
                       bool(np.all(wf[b]["mean"] <= wf[a]["mean"] + 3 * (wf[a]["ci95"] + wf[b]["ci95"])))))
    for c in codes:
        checks.append((f"BR within the product form, {c}",
                       bool(np.all(data[c]["BR"]["mean"] <= data[c]["product_form"] + 3 * data[c]["BR"]["ci95"]))))
    gain = {c: 100 * (1 - wf[c]["mean"][-1] / data["none"]["BR"]["mean"][-1]) for c in codes[1:]}
    cap = (f"Mean delay against the load for the coding options none, plus:1, plus:2 and rate:0.5 (alpha = k, k+1, "
           f"k+2, 2k blocks), k ~ U{{1..10}} chunks on m = 100 servers, WF (BS coincides with WF here: one block "
           f"per server) and BR. Without redundancy no policy has a choice and BS = WF = BR. At load {rho[-1]:.2f} WF "
           f"cuts BR's mean delay by {gain['plus:1']:.0f}% with one extra block, {gain['plus:2']:.0f}% with two and "
           f"{gain['rate:0.5']:.0f}% at rate 1/2: the gains of dynamic load balancing are large even at a small "
           "redundancy, as the paper finds in the logarithmic regime. BR ignores the code (its cavity queue, hence the "
           "product form, is the same for every code).")
    ctx.figure(fig, "cluster-coding", "Cluster (000): the coding options none, plus:1, plus:2, rate:0.5 (m = 100)",
               {"rho": rho, **data}, checks, ["cluster-coding"], "coding options (paper 000)",
               paper_ref=["000 impact of the coding options"], caption=cap)


def figure_chunk(ctx):
    import matplotlib.pyplot as plt

    import storq

    size = ctx.run("cluster-chunk", "jobs/sweeps/cluster-chunk.ini", **_lengths(ctx, 200000, 60000, 15000))
    law = ctx.run("cluster-chunk-law", "jobs/sweeps/cluster-chunk-law.ini", **_lengths(ctx, 400000, 60000, 15000))
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(11, 4.4))
    with storq.open(size) as r:
        w = r.wide().sort_values("chunk")
    c = w["chunk"].to_numpy(float)
    a = {p: {"mean": w[f"{p}_mean_delay"].to_numpy(float), "ci95": w[f"{p}_mean_delay_ci95"].to_numpy(float)}
         for p in ("BR", "WF")}
    pf, iso = w["product_form_mean"].to_numpy(float), w["isolation_delay"].to_numpy(float)
    for p in ("BR", "WF"):
        errorbars(ax, c, a[p]["mean"], a[p]["ci95"], f"{p} (simulated)", fmt="o-")
    ax.plot(c, pf, "k--", lw=1, label="product form")
    ax.plot(c, iso, "-.", color="gray", label="isolation $c\\lceil k/m\\rceil/\\mu$")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("chunk size c (file of 32 bits: k = 32/c chunks; m = 32)")
    ax.set_ylabel("mean delay")
    ax.legend(fontsize="x-small")
    ax.set_title("(a) chunk size", fontsize="small")

    with storq.open(law) as r:
        wl = r.wide()
        mm1_gap = []
        for pid in wl.point[wl.chunk_dist == "exp:1"]:
            num = np.asarray(r.theory(int(pid), "cavity_workload_cdf"), float)
            mm1 = np.asarray(r.theory(int(pid), "cavity_mm1_cdf"), float)
            err = float(r.theory(int(pid), "cavity_error")[0])
            mm1_gap.append((float(np.max(np.abs(num - mm1))), err))
    g = _by(wl, "chunk_dist")
    b = {}
    for cd, s in g.items():
        rho = (s["lambda"] * 5.5 / s["m"]).to_numpy(float)
        b[cd] = {"rho": rho, "product_form": s["product_form_mean"].to_numpy(float)}
        for p in ("BR", "WF"):
            b[cd][p] = {"mean": s[f"{p}_mean_delay"].to_numpy(float), "ci95": s[f"{p}_mean_delay_ci95"].to_numpy(float)}
            errorbars(bx, rho, b[cd][p]["mean"], b[cd][p]["ci95"], f"{p}, chunks {cd}",
                      fmt="o-" if cd == "det" else "s-")
        bx.plot(rho, b[cd]["product_form"], "--" if cd == "det" else ":", color="k", lw=1,
                label=f"product form, {cd}" + (" (M/M/1 cavity)" if cd != "det" else ""))
    bx.set_xlabel("load $\\rho = \\lambda E[k] E[c]/(m\\mu)$")
    bx.set_ylabel("mean delay")
    bx.legend(fontsize="x-small")
    bx.set_title("(b) variable chunk sizes: det:1 vs exp:1", fontsize="small")
    at_m = int(np.argmin(np.abs(c - 32 / 32)))  # c = 1: k = m
    flat = abs(a["WF"]["mean"][0] - a["WF"]["mean"][at_m]) <= 0.01 * a["WF"]["mean"][at_m] + 3 * (
        a["WF"]["ci95"][0] + a["WF"]["ci95"][at_m])
    checks = [("WF's mean delay decreasing as c shrinks to 1 (k = m), within CIs",
               monotone(a["WF"]["mean"][at_m:], slack=a["WF"]["ci95"][at_m:])),
              (f"flat below c = 1 (c = {c[0]:g}: {a['WF']['mean'][0]:.3f}, c = 1: {a['WF']['mean'][at_m]:.3f})", bool(flat)),
              ("every policy at or above the isolation delay",
               all(bool(np.all(a[p]["mean"] + 3 * a[p]["ci95"] >= iso)) for p in a)),
              ("BR within the product form at every chunk size", bool(np.all(a["BR"]["mean"] <= pf + 3 * a["BR"]["ci95"]))),
              (f"M/M/1 corollary: the numerical cavity CDF within its error of the closed form "
               f"(max gap {max(x for x, _ in mm1_gap):.2e})", all(x <= e + 1e-6 for x, e in mm1_gap))]
    for cd in b:
        checks.append((f"BR within the product form, chunks {cd}",
                       bool(np.all(b[cd]["BR"]["mean"] <= b[cd]["product_form"] + 3 * b[cd]["BR"]["ci95"]))))
    cap = (f"(a) A file of 32 bits cut into chunks of c = {c[-1]:g} .. {c[0]:g} bits on m = 32 servers, load 0.7, plus:2: "
           f"smaller chunks spread the file over more servers, and WF's mean delay falls from {a['WF']['mean'][-1]:.2f} "
           f"(c = {c[-1]:g}, one chunk) to {a['WF']['mean'][at_m]:.3f} at c = 1 (k = m: one chunk per server); below, "
           f"each server still receives 32/m bits of every file in chunks of c, and the delay stays there "
           f"({a['WF']['mean'][0]:.3f} at c = {c[0]:g}); BR gains the same way ({a['BR']['mean'][-1]:.2f} to "
           f"{a['BR']['mean'][at_m]:.2f}). "
           f"(b) Variable chunk sizes (section V): exponential chunks of mean 1 against unit chunks, k ~ U{{1..10}}, "
           f"m = 100, plus:2. At load {b['det']['rho'][-1]:.2f} BR's mean delay is {b['exp:1']['BR']['mean'][-1]:.2f} "
           f"with exponential chunks against {b['det']['BR']['mean'][-1]:.2f} with unit chunks; the product form with "
           f"exponential chunks uses the paper's M/M/1 cavity queue (corollary of section V), which storq's numerical "
           f"cavity CDF matches to {max(x for x, _ in mm1_gap):.1e}.")
    ctx.figure(fig, "cluster-chunk", "Cluster (000): chunk size and variable chunk sizes (M/M/1 corollary)",
               {"chunk": c, **a, "product_form": pf, "isolation": iso, "chunk_law": b,
                "mm1_gap": [x for x, _ in mm1_gap]},
               checks, ["cluster-chunk", "cluster-chunk-law"], "chunk size (paper 000)",
               paper_ref=["000 impact of the chunk size", "000 variable chunk sizes (M/M/1 corollary)"], caption=cap)


def figure_bs_wf(ctx):
    import matplotlib.pyplot as plt

    import storq

    # the product form with exponential chunks and k > m costs about 2 s of theory per point: two
    # loads in ci mode
    loads = ctx.pick(None, [0.4, 0.72], [0.4, 0.72])
    run = ctx.run("cluster-bs-wf", "jobs/sweeps/cluster-bs-wf.ini", **{"lambda": loads},
                  **_lengths(ctx, 200000, 60000, 15000))
    with storq.open(run) as r:
        w = r.wide()
    g = _by(w, "chunk_dist")
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(11, 4.4))
    data = {}
    for cd, s in g.items():
        rho = (s["lambda"] * 12.5 / s["m"]).to_numpy(float)
        e = {"rho": rho}
        for p in ("BR", "BS", "WF"):
            e[p] = {"mean": s[f"{p}_mean_delay"].to_numpy(float), "ci95": s[f"{p}_mean_delay_ci95"].to_numpy(float)}
        e["diff"] = s["diff_WF_BS_mean_delay"].to_numpy(float)
        e["diff_ci95"] = s["diff_WF_BS_mean_delay_ci95"].to_numpy(float)
        data[cd] = e
        for p in ("BS", "WF"):
            errorbars(ax, rho, e[p]["mean"], e[p]["ci95"], f"{p}, chunks {cd}", fmt="o-" if p == "BS" else "s--")
        rel = 100 * e["diff"] / e["BS"]["mean"]
        errorbars(bx, rho, rel, 100 * e["diff_ci95"] / e["BS"]["mean"], f"chunks {cd}", fmt="o-")
    ax.set_xlabel("load $\\rho$")
    ax.set_ylabel("mean delay")
    ax.legend(fontsize="x-small")
    bx.axhline(0, color="gray", lw=0.5)
    bx.set_xlabel("load $\\rho$")
    bx.set_ylabel("(WF - BS) / BS mean delay, % (paired)")
    bx.legend(fontsize="x-small")
    ex, de = data["exp:1"], data["det"]
    checks = [("WF no slower than BS at every point (paired, within CIs)",
               all(bool(np.all(e["diff"] <= 3 * e["diff_ci95"] + 1e-12)) for e in data.values())),
              ("with exponential chunks WF is faster than BS beyond noise at every load",
               bool(np.all(ex["diff"] < -3 * ex["diff_ci95"]))),
              ("WF and BS faster than BR at every point",
               all(bool(np.all(e[p]["mean"] <= e["BR"]["mean"] + 3 * e["BR"]["ci95"])) for e in data.values() for p in ("BS", "WF")))]
    re = 100 * ex["diff"] / ex["BS"]["mean"]
    rd = 100 * de["diff"] / de["BS"]["mean"]
    cap = (f"A setting where BS and WF differ: files of k ~ U{{5..20}} chunks at rate 1/2 (alpha = 2k, up to 40 blocks) on "
           f"m = 10 servers, so each server holds several blocks of a file and WF may ask two or more of the least loaded "
           f"server where BS asks floor(k/m) of each and one more of the k' least loaded. With exponential chunk sizes "
           f"(mean 1) WF's mean delay is {-re.max():.1f}% to {-re.min():.1f}% below BS's (paired differences, loads "
           f"{ex['rho'][0]:.2f}..{ex['rho'][-1]:.2f}); with unit chunks the workloads differ by whole blocks and the two "
           + (f"nearly coincide (|WF - BS| / BS at most {np.max(np.abs(rd)):.2g}%)." if np.any(rd != 0)
              else "coincide exactly at every load.")
           + " In the gallery's other settings (alpha <= m, one block per server) BS and WF are identical.")
    ctx.figure(fig, "cluster-bs-wf", "Cluster (000): a setting where BS and WF differ (m = 10, rate 1/2, k ~ U{5..20})",
               data, checks, ["cluster-bs-wf"], "BS vs WF (paper 000)",
               paper_ref=["000 BS between BR and WF (workload comparison, section III)"], caption=cap)
