"""A sweep as an xarray.Dataset, for slicing by several parameters at once.

    ds = storq.open("sweep.h5").to_xarray()
    ds.mean_response_time.sel(mu=3, n=10)          # a curve against k
    ds.u.sel(n=1000)                                # a vector observable along its axis

Dimensions are the parameters that vary, except those fixed by earlier ones (a zipped
`warmup` that follows `n` becomes a coordinate along n). Points missing from the grid (a zip,
k > n) are NaN. Every scalar observable NAME gives the variables NAME, NAME_stderr, NAME_ci95 and
NAME_theory (when theory goes beside it); every one-number comparison and theory value its own
variable; every 1-D vector observable NAME the variables NAME, NAME_ci95 (and NAME_theory) along
an extra dimension NAME_<axis name>, padded with NaN where points have fewer elements.
"""
import numpy as np
import pandas as pd
import xarray as xr

from .frames import _theory_for, wide


def _dims(index, varying):
    """Varying parameters that are not functions of the dims chosen before them."""
    dims, coords = [], []
    for p in varying:
        if dims and index.groupby(dims)[p].nunique().max() <= 1:
            coords.append(p)
        else:
            dims.append(p)
    return dims, coords


def to_xarray(r, vectors=True):
    w = wide(r)
    index = r.index
    varying = [p for p in r.parameters if index[p].nunique() > 1]
    dims, coords = _dims(index, varying)
    fixed = [p for p in r.parameters if p not in varying]
    if not dims:  # a single point: a dimension `point` of length 1
        dims = ["point"]
    data = w.drop(columns=fixed).set_index(dims)
    ds = xr.Dataset.from_dataframe(data.drop(columns=coords))
    for c in coords:  # a coordinate along the first dim that fixes it
        for d in dims:
            if index.groupby(d)[c].nunique().max() <= 1:
                ds = ds.assign_coords({c: (d, index.groupby(d)[c].first().reindex(ds[d].values).values)})
                break
    for p in fixed:
        ds.attrs[p] = index[p].iloc[0] if len(index) else None
    for key in ("model", "seed", "replications", "storq_version", "git_commit", "command_line"):
        if key in r.attrs:
            ds.attrs[key] = r.attrs[key]
    units = dict(r.units)
    for p in dims + coords:
        if p in ds.coords and units.get(p):
            ds[p].attrs["unit"] = units[p]
    if vectors and len(w):
        _add_vectors(r, ds, w, dims)
    return ds


def _add_vectors(r, ds, w, dims):
    pids = list(w.point)
    kinds = r.observables(pids[0])
    for name, kind in kinds.items():
        if kind != "vector":
            continue
        per_point = {}
        for pid in pids:
            if r.observables(pid).get(name) != "vector":
                continue
            o = r.observable(pid, name)
            if np.ndim(o["mean"]) != 1:
                break
            _, t = _theory_for(r, pid, name, len(o["mean"]))
            per_point[pid] = (o, t)
        else:
            if not per_point:
                continue
            longest = max(per_point.values(), key=lambda v: len(v[0]["mean"]))[0]
            axis_name = longest.get("axis_name") or "index"
            axis = np.asarray(longest.get("axis", np.arange(len(longest["mean"]))), float)
            dim = f"{name}_{axis_name}"
            shape = [ds.sizes[d] for d in dims] + [len(axis)]
            arrays = {k: np.full(shape, np.nan) for k in ("mean", "ci95", "theory")}
            keys = w.assign(_pid=w.point).set_index("_pid")[dims]
            for pid, (o, t) in per_point.items():
                at = tuple(int(np.flatnonzero(ds[d].values == keys.loc[pid, d])[0]) for d in dims)
                n = len(o["mean"])
                arrays["mean"][at + (slice(0, n),)] = o["mean"]
                arrays["ci95"][at + (slice(0, n),)] = o["ci95"]
                if t is not None:
                    arrays["theory"][at + (slice(0, n),)] = t
            ds.coords[dim] = axis
            ds[name] = (dims + [dim], arrays["mean"], {"unit": longest.get("unit", ""),
                                                       "description": longest.get("description", "")})
            ds[name + "_ci95"] = (dims + [dim], arrays["ci95"])
            if np.isfinite(arrays["theory"]).any():
                ds[name + "_theory"] = (dims + [dim], arrays["theory"])


def sweep_frame(r):
    """The wide table indexed by the sweep's dimensions (a pandas MultiIndex)."""
    w = wide(r)
    index = r.index
    dims, _ = _dims(index, [p for p in r.parameters if index[p].nunique() > 1])
    return w.set_index(dims) if dims else w.set_index("point")


__all__ = ["to_xarray", "sweep_frame", "pd"]
