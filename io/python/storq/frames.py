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
