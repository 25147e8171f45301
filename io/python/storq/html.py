"""The self-contained HTML report of a results file (python3 -m storq.report FILE.h5)."""
import base64
import html
import io
import os

import numpy as np


def _png(fig):
    import matplotlib.pyplot as plt

    buf = io.BytesIO()
    fig.tight_layout()
    fig.savefig(buf, format="png", dpi=100)
    plt.close(fig)
    return base64.b64encode(buf.getvalue()).decode("ascii")


def _axes(ncols=1):
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, ncols, figsize=(6 * ncols, 4.3), squeeze=False)
    return fig, axes[0]


def _varying(r):
    index = r.index
    return [p for p in r.parameters if index[p].nunique() > 1]


def _scalars_against(r, x, names):
    """Headline scalars (95% CI) against parameter x, one line per combination of the others."""
    from .figures import errorbars

    w = r.wide()
    fig, axes = _axes(min(len(names), 3))
    others = [p for p in _varying(r) if p != x]
    for ax, name in zip(axes, names):
        for key, g in (w.groupby(others[0] if len(others) == 1 else others) if others else [("", w)]):
            g = g.sort_values(x)
            label = ", ".join(f"{o}={v}" for o, v in zip(others, np.atleast_1d(key))) or name
            errorbars(ax, g[x], g[name], g[name + "_ci95"], label, fmt="o-")
            if name + "_theory" in g and g[name + "_theory"].notna().any():
                ax.plot(g[x], g[name + "_theory"], "k--", lw=1)
        ax.set_xlabel(x)
        ax.set_ylabel(name)
        if others:
            ax.legend(fontsize="x-small")
    return fig


def _figures(r):
    """(caption, figure factory) pairs that fit the file's model and shape."""
    model = r.attrs.get("model")
    points = r.points()
    if not points:
        return []
    last = points[-1]
    obs = r.observables(last)
    vary = _varying(r)
    out = []
    if model == "supermarket":
        from .figures import supermarket as m

        if "u" in obs:
            out.append((f"u_i against the fixed point (point {last})",
                        lambda: _one(lambda ax: m.plot_fixed_point(r, last, ax))))
        if "u_t" in obs:
            out.append((f"u(t) against the ODE (point {last})",
                        lambda: _one(lambda ax: m.plot_transient(r, last, ax))))
        if "n" in vary and "u_l1" in r.wide():
            from . import plot

            out.append(("||u^n - u||_1 against n", lambda: _one(lambda ax: plot.convergence(r, "n", "u_l1", ax))))
    elif model == "cluster":
        from .figures import cluster as m

        if "lambda" in vary:
            out.append(("mean delay against load", lambda: _one(lambda ax: m.plot_mean_delay(r, ax))))
        if "BR_delay_ccdf" in obs:
            out.append((f"delay CCDF per policy (point {last})", lambda: _one(lambda ax: m.plot_ccdf(r, last, ax))))
    elif model == "forkjoin" and "k" in vary:
        from .figures import forkjoin as m

        by = next((p for p in vary if p != "k"), None)
        w = r.wide()
        if by is None:
            w = w.assign(_all="all")
        out.append(("T(n,k) against k with the bounds",
                    lambda: _one(lambda ax: (m.plot_against_k(ax, w, by or "_all", lambda v: f"{by}={v}"),
                                             ax.legend(fontsize="x-small")))))
    elif model == "proxy":
        from .figures import proxy as m

        if "lambda" in vary and any(k.startswith("fixed") for k in obs):
            out.append(("fixed codes against lambda, with D~", lambda: _one(lambda ax: m.plot_fixed_codes(r, ax))))
    elif model == "threads":
        from .figures import threads as m

        if "rho" in vary:
            w = r.wide()
            others = [p for p in vary if p != "rho"]
            if not others:
                out.append(("mean flow time against rho", lambda: _one(lambda ax: m.plot_flow_times(ax, w))))
    # every file: the headline scalars against the first varying parameter
    scalars = [n for n, k in obs.items() if k == "scalar" and not n.startswith(("warmup_", "diff_"))]
    if vary and scalars:
        x = vary[0]
        out.append((f"scalars against {x}", lambda: _scalars_against(r, x, scalars[:3])))
    hists = [n for n, k in obs.items() if k == "histogram"]
    if hists:
        from . import plot

        out.append((f"CDF of {hists[0]} per point", lambda: _one(lambda ax: plot.cdf(r, points[-6:], hists[0], ax))))
    return out


def _one(draw):
    fig, axes = _axes(1)
    draw(axes[0])
    return fig


def _table_html(df):
    return df.to_html(index=False, float_format=lambda v: f"{v:.6g}", na_rep="", border=0,
                      classes="t")


def write_html(r, out):
    import matplotlib

    matplotlib.use("Agg")
    a = r.attrs
    meta = {k: a.get(k) for k in ("model", "format_version", "storq_version", "git_commit", "created",
                                  "hostname", "mpi_ranks", "omp_threads", "seed", "replications",
                                  "command_line", "task_index", "task_count") if k in a}
    meta["format_version"] = ".".join(str(int(v)) for v in np.atleast_1d(meta.get("format_version", [])))
    meta["points complete"] = f"{len(r.points())} of {len(r.index)}"
    parts = [f"<h1>storq report: {html.escape(str(r.path))}</h1>", "<h2>Run</h2><table class='t'>"]
    parts += [f"<tr><th>{html.escape(str(k))}</th><td>{html.escape(str(v))}</td></tr>" for k, v in meta.items()]
    parts.append("</table>")
    try:
        config = r._file["run/config"].asstr(errors="backslashreplace")[()]
        parts.append(f"<details><summary>configuration (/run/config)</summary><pre>{html.escape(config)}</pre></details>")
    except (KeyError, TypeError):
        pass
    w = r.wide()
    keep = [c for c in w.columns if not c.endswith("_stderr") and not c.startswith("warmup_")]
    parts.append(f"<h2>Points ({len(w)})</h2><p>Every scalar: mean, its 95% CI half-width (_ci95) and "
                 "the theory beside it (_theory); one-number comparisons and theory values. "
                 "Python: <code>storq.open(FILE).wide()</code> / <code>.frame()</code>.</p>")
    parts.append(f"<div class='scroll'>{_table_html(w[keep])}</div>")
    parts.append("<h2>Figures</h2>")
    for caption, make in _figures(r):
        try:
            img = _png(make())
            parts.append(f"<figure><img alt='{html.escape(caption)}' src='data:image/png;base64,{img}'>"
                         f"<figcaption>{html.escape(caption)}</figcaption></figure>")
        except Exception as e:  # a figure that does not fit is named, not fatal
            parts.append(f"<p>({html.escape(caption)}: not drawn: {html.escape(str(e))})</p>")
    style = ("body{font-family:sans-serif;margin:2em;max-width:1400px} table.t{border-collapse:collapse;"
             "font-size:12px} .t td,.t th{border:1px solid #ccc;padding:2px 6px;text-align:right}"
             " .scroll{overflow-x:auto} img{max-width:100%} figure{display:inline-block;margin:1em}")
    doc = (f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>storq report {html.escape(str(r.path))}"
           f"</title><style>{style}</style></head><body>{''.join(parts)}</body></html>")
    # a path that is not UTF-8 shows escaped; written beside and renamed, so a failure never
    # leaves an empty or half-written report under the name asked for
    tmp = f"{out}.tmp{os.getpid()}"
    try:
        with open(tmp, "wb") as f:
            f.write(doc.encode("utf-8", "backslashreplace"))
        os.replace(tmp, out)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return out
