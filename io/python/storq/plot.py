"""Standard figures of storq results (matplotlib). Each function draws on ax (a new figure when
None) and returns ax, so figures can be combined and styled by the caller."""
import numpy as np


def _axes(ax):
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=(6, 4.5))
    return ax


def _point_label(results, pid, limit=5):
    """The parameters that vary over the run (the first few when none do), as k=v pairs."""
    params = results.params(pid)
    index = results.index
    names = [k for k in results.parameters if k in params and index[k].nunique() > 1]
    names = names or [k for k in results.parameters if k in params][:limit]
    return ", ".join(f"{k}={params[k]}" for k in names[:limit])


def occupancy(results, pid, ax=None, name="u"):
    """The simulated occupancy u_i (mean with 95% CI bars) on a log scale, beside the theory
    arrays u (fixed point), u_lower and u_upper (tail bounds) when the point has them. Zero or
    negative values cannot appear on a log axis and are left out; a CI reaching down to zero is
    drawn down to the bottom of the axes."""
    ax = _axes(ax)
    obs = results.observable(pid, name)
    mean, ci = np.asarray(obs["mean"], float), np.asarray(obs["ci95"], float)
    if mean.ndim != 1:
        raise ValueError(f"{name} is a {mean.shape} matrix; occupancy() plots a vector")
    x = np.asarray(obs.get("axis", np.arange(len(mean))), float)
    curves = []
    theory = set(results.theory_names(pid))
    styles = {name: ("-", "mean-field fixed point"), name + "_lower": ("--", "lower bound"),
              name + "_upper": (":", "upper bound")}
    for tname, (style, label) in styles.items():
        if tname in theory:
            t = np.asarray(results.theory(pid, tname), float)
            tx = x[: len(t)] if len(t) <= len(x) else np.arange(len(t))
            curves.append((tx[t > 0], t[t > 0], style, f"{label} ({tname})"))
    shown = mean > 0
    positive = np.concatenate([mean[shown]] + [c[1] for c in curves])
    bottom = 0.3 * positive.min() if positive.size else 1e-6
    lower = mean - np.maximum(mean - ci, bottom)
    ax.errorbar(x[shown], mean[shown], yerr=[lower[shown], ci[shown]], fmt="o", capsize=3,
                label=f"simulated {name} (95% CI)")
    for tx, t, style, label in curves:
        ax.plot(tx, t, style, color="k", label=label)
    ax.set_yscale("log")
    ax.set_ylim(bottom=bottom)
    ax.set_xlabel(obs.get("axis_name") or "i")
    ax.set_ylabel(f"{name}_i")
    ax.set_title(f"point {pid}: {_point_label(results, pid)}", fontsize="small")
    ax.legend(fontsize="small")
    return ax


def _varies_apart_from(table, p, x):
    """True when parameter p takes several values at some x: a separate series. A parameter that
    only changes with x (one value per x) is part of the same series."""
    return table[p].nunique() > 1 and table.groupby(x)[p].nunique().max() > 1


def convergence(results, x="n", name="u_l1", ax=None):
    """A comparison value (e.g. ||u^n - u||_1) against a parameter on log-log axes: one line per
    combination of the other parameters that vary, the noise floor NAME_noise when present, and a
    reference line of slope -1 (the 1/n rate) through the first point."""
    ax = _axes(ax)
    table = results.table()
    if name not in table:
        raise KeyError(f"{results.path}: no length-1 comparison '{name}' in any complete point")
    if x not in table:
        raise KeyError(f"{results.path}: no parameter '{x}'")
    table = table[np.isfinite(table[name]) & (table[name] > 0)]
    others = [p for p in results.parameters if p != x and _varies_apart_from(table, p, x)]
    groups = table.groupby(others) if others else [((), table)]
    for key, g in groups:
        g = g.sort_values(x)
        key = key if isinstance(key, tuple) else (key,)
        label = ", ".join(f"{k}={v}" for k, v in zip(others, key)) or name
        (line,) = ax.loglog(g[x], g[name], "o-", label=label)
        noise = name + "_noise"
        if noise in g and g[noise].notna().any():
            ax.loglog(g[x], g[noise], ":", color=line.get_color(), label=f"noise floor ({label})")
    if len(table):
        first = table.sort_values(x).iloc[0]
        xs = np.array(sorted(table[x].unique()), float)
        ax.loglog(xs, first[name] * float(first[x]) / xs, "k--", label="slope -1")
    unit = results.units.get(x, "")
    ax.set_xlabel(f"{x} [{unit}]" if unit else x)
    ax.set_ylabel(name)
    ax.legend(fontsize="small")
    return ax


def cdf(results, pids, name="response_time", ax=None, xmax_quantile=0.999):
    """The CDF of a histogram observable (e.g. the fork-join response time) for several points,
    one line each, as in the papers' CDF figures; x runs up to the xmax_quantile of the widest."""
    ax = _axes(ax)
    xmax = 0.0
    for pid in np.atleast_1d(pids):
        pid = int(pid)
        x, F = results.cdf(pid, name)
        ax.plot(x, F, label=_point_label(results, pid))
        xmax = max(xmax, results.quantile(pid, name, xmax_quantile))
    if xmax > 0:
        ax.set_xlim(0, xmax)
    ax.set_ylim(0, 1)
    ax.set_xlabel(name)
    ax.set_ylabel(f"P({name} < x)")
    ax.legend(fontsize="small")
    return ax
