"""pandas views of a storq results file, built on the public methods of storq.results.Results.

    import storq
    with storq.open("run.h5") as r:        # a storq.Run (a Results with the methods below)
        r.frame()                          # tidy: one row per point and scalar (mean, stderr, ci95, theory)
        r.wide()                           # one row per point: parameters, NAME, NAME_stderr, NAME_ci95, ...
        r.histogram(0, "job_delay")        # bins: left, right, count, density, cdf, ccdf
        r.quantiles(0, "job_delay")        # q, value and the bin-resolution error bound
        r.vector(0, "u")                   # the axis, mean, stderr, ci95 and the theory on the same grid
        r.to_xarray()                      # the sweep as an xarray.Dataset (storq.xr)

Theory goes beside an observable by the rule of `storq info` (docs/theory-and-info.md): a theory
array whose `grid` attribute names the observable and has its length; failing that, one of the
observable's own name and length.
"""
import numpy as np
from ._pandas import pandas as _pandas

from .results import Results

DEFAULT_QUANTILES = (0.5, 0.9, 0.95, 0.99, 0.999)


def _theory_for(r, pid, name, length):
    """The theory array that goes beside observable `name` (None when there is none)."""
    names = r.theory_names(pid)
    for t in names:
        grid = r.array_attrs(pid, "theory", t).get("grid", "")
        if grid == name:
            values = r.theory(pid, t)
            if values.size == length:
                return t, values
    if name in names:
        values = r.theory(pid, name)
        if values.size == length:
            return name, values
    return None, None


def _unit(attrs):
    return attrs.get("unit", "") or ""


def frame(r):
    """The tidy table of a run: one row per (complete point, one-number quantity).

    Columns: `point`, every parameter, `name`, `source` ("observable" for a simulated scalar,
    "comparison" for a one-number simulation-versus-theory value, "theory" for a one-number
    analytic value), `mean`, `stderr`, `ci95` (NaN where the source has none), `theory` (the
    theory beside a simulated scalar, by the rule of storq info), `theory_name`, `unit` and
    `description`. Filter it like any long table: `f[f.name == "mean_job_delay"]`.
    """
    if getattr(r, "_v2", None) is not None:
        return _frame_columnar(r)
    params_of = r._point_params()
    params = r.parameters
    rows = []
    for pid in r.points():
        pvals = params_of(pid)
        base = {"point": pid, **{p: pvals.get(p) for p in params}}
        for name, kind in r.observables(pid).items():
            if kind != "scalar":
                continue
            o = r.observable(pid, name)
            tname, tval = _theory_for(r, pid, name, 1)
            rows.append({**base, "name": name, "source": "observable",
                         "mean": float(o["mean"]), "stderr": float(o["stderr"]),
                         "ci95": float(o["ci95"]),
                         "theory": float(tval[0]) if tname else np.nan,
                         "theory_name": tname or "", "unit": _unit(o),
                         "description": o.get("description", "")})
        for group in ("comparison", "theory"):
            names = r.comparison_names(pid) if group == "comparison" else r.theory_names(pid)
            for name in names:
                values = r.comparison(pid, name) if group == "comparison" else r.theory(pid, name)
                if values.size != 1:
                    continue
                a = r.array_attrs(pid, group, name)
                rows.append({**base, "name": name, "source": group,
                             "mean": float(values.reshape(-1)[0]), "stderr": np.nan,
                             "ci95": np.nan, "theory": np.nan, "theory_name": "",
                             "unit": _unit(a), "description": a.get("description", "")})
    columns = ["point", *params, "name", "source", "mean", "stderr", "ci95", "theory",
               "theory_name", "unit", "description"]
    return _pandas().DataFrame(rows, columns=columns)


FRAME_TAIL = ["name", "source", "mean", "stderr", "ci95", "theory", "theory_name", "unit",
              "description"]


def _frame_columnar(r):
    """frame() of a 2.x file, column by column: the same rows, in the same order (per point:
    its scalar observables, its one-number comparisons, its one-number theory, each in the
    file's order), values and types as the point-by-point frame() of its 1.x source."""
    pd = _pandas()
    v2 = r._v2
    params = r.parameters
    columns = ["point", *params, *FRAME_TAIL]
    done = r.points()
    if not done:
        return pd.DataFrame([], columns=columns)
    for pid in done[:1]:
        r._row(pid)  # the lazy checks of verify=False (all rows at once)
    if v2._bad_rows:
        rows_done = set(v2.row_of[p] for p in done)
        bad = sorted(set(v2._bad_rows) & rows_done)
        if bad:
            v2.raise_row(bad[0])
    P = v2.P
    complete = v2.column("points/status") == 1
    theory = {}
    for name in v2.arr["theory"]:
        present, values = v2.one_number("theory", name)
        grid = v2.attr_rows(v2.arr["theory"][name].obj, "grid")
        theory[name] = (present & complete, values, grid)
    blocks = []  # (order, rows, mean, stderr, ci95, theory, theory_name, unit, description, source, name)
    order = 0
    nan = np.full(P, np.nan)
    for name, q in v2.obs.items():
        if q.kind != "scalar":
            continue
        rows = complete.copy() if q.has is None else (q.has & complete)
        tname = np.full(P, "", dtype=object)
        tval = np.full(P, np.nan)
        chosen = np.zeros(P, bool)
        for t, (present, values, grid) in theory.items():  # the rule of storq info
            hit = present & ~chosen & (grid == name)
            tname[hit], tval[hit] = t, values[hit]
            chosen |= hit
        if name in theory:
            present, values, _ = theory[name]
            hit = present & ~chosen
            tname[hit], tval[hit] = name, values[hit]
        g = q.obj
        blocks.append((order, rows, v2.column(q.dsets["mean"].name),
                       v2.column(q.dsets["stderr"].name), v2.column(q.dsets["ci95"].name),
                       tval, tname, v2.attr_rows(g, "unit"), v2.attr_rows(g, "description"),
                       "observable", name))
        order += 1
    for group in ("comparison", "theory"):
        for name, q in v2.arr[group].items():
            present, values = (theory[name][:2] if group == "theory"
                               else v2.one_number(group, name))
            rows = present & complete
            blocks.append((order, rows, values, nan, nan, nan, np.full(P, "", dtype=object),
                           v2.attr_rows(q.obj, "unit"), v2.attr_rows(q.obj, "description"),
                           group, name))
            order += 1
    sel = [np.flatnonzero(b[1]) for b in blocks]
    if not sum(len(x) for x in sel):
        return pd.DataFrame([], columns=columns)
    row_idx = np.concatenate(sel)
    key = np.concatenate([np.full(len(s), b[0]) for s, b in zip(sel, blocks)]) if sel else row_idx
    perm = np.lexsort((key, row_idx))
    row_idx = row_idx[perm]

    def cat(i, dtype=None):
        parts = [np.asarray(b[i])[s] for s, b in zip(sel, blocks)]
        return np.concatenate(parts).astype(dtype)[perm] if dtype else np.concatenate(parts)[perm]

    def text(v):
        return "" if v is None else v

    def strings(i):
        return np.array([text(x) for x in cat(i, object).tolist()], dtype=object)

    pids = v2.pids[row_idx].astype(np.int64)
    index = r.index
    pos = pd.Index(index["point"].astype(np.int64)).get_indexer(pids)
    data = {"point": pids}
    for p in params:
        data[p] = index[p].to_numpy()[pos]
    data["name"] = np.concatenate([np.full(len(s), b[10], dtype=object)
                                   for s, b in zip(sel, blocks)])[perm]
    data["source"] = np.concatenate([np.full(len(s), b[9], dtype=object)
                                     for s, b in zip(sel, blocks)])[perm]
    data["mean"] = cat(2, np.float64)
    data["stderr"] = cat(3, np.float64)
    data["ci95"] = cat(4, np.float64)
    data["theory"] = cat(5, np.float64)
    data["theory_name"] = strings(6)
    data["unit"] = np.array([x or "" for x in cat(7, object).tolist()], dtype=object)
    data["description"] = strings(8)
    return pd.DataFrame(data, columns=columns)


def wide(r):
    """One row per complete point: the parameters, then for every simulated scalar NAME its
    NAME, NAME_stderr, NAME_ci95 (and NAME_theory where theory goes beside it), then every
    one-number comparison and theory value under its own name (a theory name that is also an
    observable's becomes NAME_theory)."""
    f = frame(r)
    if f.empty:
        return _pandas().DataFrame(columns=["point", *r.parameters])
    out = r.index[r.index.point.isin(f.point.unique())].reset_index(drop=True)
    columns = {}
    for (name, source), g in f.groupby(["name", "source"], sort=False):
        g = g.set_index("point")
        if source == "observable":
            columns[name] = g["mean"]
            columns[name + "_stderr"] = g["stderr"]
            columns[name + "_ci95"] = g["ci95"]
            if g["theory_name"].ne("").any():
                columns[name + "_theory"] = g["theory"]
        else:
            key = name if name not in columns else name + "_theory"
            columns.setdefault(key, g["mean"])
    values = _pandas().DataFrame(columns)
    return out.join(values, on="point")


def histogram(r, pid, name):
    """A histogram observable as a DataFrame, one row per bin: `left`, `right`, `count`,
    `density` (count / (all samples x width): integrates to the fraction of samples in the bins),
    `cdf` (fraction of samples below `right`, exact at the edge) and `ccdf` (1 - cdf). Samples
    outside the bins are counted in the cdf; df.attrs holds underflow, overflow, count, sum, min,
    max, mean, histogram_kind and relative_resolution."""
    h = r.observable(pid, name)
    if h.get("kind") != "histogram":
        raise ValueError(f"{name} is a {h.get('kind')}, not a histogram")
    edges = np.asarray(h["bin_edges"], float)
    counts = np.asarray(h["counts"], float)
    under, over = float(h["underflow"]), float(h["overflow"])
    total = under + counts.sum() + over
    width = np.diff(edges)
    with np.errstate(invalid="ignore", divide="ignore"):
        density = counts / (total * width) if total > 0 else np.full(len(counts), np.nan)
        cdf = (under + np.cumsum(counts)) / total if total > 0 else np.full(len(counts), np.nan)
    df = _pandas().DataFrame({"left": edges[:-1], "right": edges[1:], "count": counts.astype(np.uint64),
                       "density": density, "cdf": cdf, "ccdf": 1.0 - cdf})
    df.attrs = {k: (h[k].item() if isinstance(h.get(k), np.ndarray) else h.get(k))
                for k in ("underflow", "overflow", "count", "sum", "min", "max", "mean",
                          "histogram_kind", "relative_resolution", "unit")}
    return df


def quantiles(r, pid, name, qs=DEFAULT_QUANTILES):
    """Quantiles of a histogram with the bound on their error from the binning.

    Columns `q`, `value`, `error_bound` (the largest |value - true quantile of the recorded
    samples|: the width of the bin holding it, at most relative_resolution x value for log-linear
    bins, 0 for integer bins; NaN when the quantile falls outside the bins, in the underflow or
    overflow, where there is no bound), `relative_bound` (error_bound / value), `lower`, `upper`.
    This is the resolution of the histogram, not a sampling confidence interval."""
    h = r.observable(pid, name)
    values = np.atleast_1d(r.quantile(pid, name, list(qs)))
    edges = np.asarray(h["bin_edges"], float)
    integer = h.get("histogram_kind") == "integer"
    bound = []
    for v in values:
        if not np.isfinite(v) or v < edges[0] or v >= edges[-1]:
            bound.append(np.nan)
        elif integer:
            bound.append(0.0)
        else:
            j = int(np.searchsorted(edges, v, side="right")) - 1
            bound.append(float(edges[j + 1] - edges[j]))
    bound = np.asarray(bound)
    with np.errstate(invalid="ignore", divide="ignore"):
        rel = np.where(values != 0, bound / np.abs(values), np.nan)
    return _pandas().DataFrame({"q": np.asarray(qs, float), "value": values, "error_bound": bound,
                         "relative_bound": rel, "lower": values - bound, "upper": values + bound})


def vector(r, pid, name):
    """A vector observable with its axis: one row per element, columns the axis (named by the
    file, e.g. `level` or `t`; `index` when it has none), `mean`, `stderr`, `ci95`, and `theory`
    when a theory array goes beside it (df.attrs["theory_name"] names it). A matrix (rows x cols,
    e.g. u_i(t)) is given long: the row axis, `column`, then the values."""
    o = r.observable(pid, name)
    if o.get("kind") != "vector":
        raise ValueError(f"{name} is a {o.get('kind')}, not a vector")
    mean = np.asarray(o["mean"], float)
    axis_name = o.get("axis_name") or "index"
    rows = mean.shape[0]
    axis = np.asarray(o["axis"], float) if "axis" in o else np.arange(rows, dtype=float)
    if mean.ndim == 1:
        df = _pandas().DataFrame({axis_name: axis, "mean": mean, "stderr": np.asarray(o["stderr"], float),
                           "ci95": np.asarray(o["ci95"], float)})
        tname, tval = _theory_for(r, pid, name, len(mean))
        if tname:
            df["theory"] = tval
    else:
        cols = mean.shape[1]
        df = _pandas().DataFrame({axis_name: np.repeat(axis, cols), "column": np.tile(np.arange(cols), rows),
                           "mean": mean.reshape(-1),
                           "stderr": np.asarray(o["stderr"], float).reshape(-1),
                           "ci95": np.asarray(o["ci95"], float).reshape(-1)})
        tname, tval = _theory_for(r, pid, name, mean.size)
        if tname:
            df["theory"] = tval
    df.attrs = {"name": name, "unit": _unit(o), "description": o.get("description", ""),
                "theory_name": tname or "", "axis_name": axis_name, "shape": mean.shape}
    return df


class Run(Results):
    """A storq results file (storq.results.Results) with the pandas and xarray views."""

    frame = frame
    wide = wide
    histogram = histogram
    quantiles = quantiles
    vector = vector

    def to_xarray(self, **kw):
        from .xr import to_xarray

        return to_xarray(self, **kw)

    def varying(self):
        """The parameters that take more than one value over the run's points."""
        index = self.index
        return [p for p in self.parameters if index[p].nunique() > 1]


def open(path, verify=True):  # noqa: A001 - mirrors builtins.open / h5py.File
    """Open a storq results file read-only: a Run (a storq.results.Results with frame(), wide(),
    histogram(), quantiles(), vector() and to_xarray()). verify (the default) checks every
    complete point's checksums first, in a child process; a damaged file raises
    storq.DamagedFile naming the object, and no value of it is ever returned."""
    return Run(path, verify)
