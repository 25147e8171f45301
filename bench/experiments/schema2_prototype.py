#!/usr/bin/python3
"""Schema 2.0 prototype (issue 37): one dataset per quantity with a point dimension.

A measurement, not a reader or writer of storq: it reads a real 1.x file (h5py), derives the
quantities, their kinds, shapes, units and which shapes vary between points, then writes the
candidate 2.0 layout for P synthetic points (the source points' values repeated cyclically, the
floats' low mantissa bits scrambled so that rows do not repeat) and measures size, write time
per point for three write strategies, reads (the frame() equivalent, a full verification, xarray
through h5netcdf, ncdump -h) and Fletcher32.

    /usr/bin/python3 bench/experiments/schema2_prototype.py survey SRC.h5   # quantities, shapes
    /usr/bin/python3 bench/experiments/schema2_prototype.py layout SRC.h5   # + the 2.0 tree
    /usr/bin/python3 bench/experiments/schema2_prototype.py bench SRC.h5 --points 1000 --checks
        # 2 min: every variant, (a) (b) (c), bit-identity, xarray, ncdump, Fletcher32
    /usr/bin/python3 bench/experiments/schema2_prototype.py bench SRC.h5 --points 20000     # 5 min
    /usr/bin/python3 bench/experiments/schema2_prototype.py bench SRC.h5 --points 100000 --only-c
        # 6 min: the log, its finalize and the reads only
    (--out DIR, default /tmp/proto/s2; each run writes DIR/report_<points>.txt)

Make SRC.h5 with (a few dozen points, R = 1):
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1 build/storq run \
      supermarket --n 10 --L 2 --warmup 0 --arrivals 20 -r 1 --seed 1 --quiet -o SRC.h5 \
      --lambda 0.020,0.040,...,0.960

The layout written (see the report printed by `bench`, and `layout_tree()` below):
    /                      root attributes as 1.x, format_version [2, 0]
    /point, /level, /replication, /<hist>_bin, ...   HDF5 dimension scales (netCDF dimensions)
    /run/index             the run's whole index (compound, as 1.x /points/index)
    /layouts/NAME          histogram bin edges, as 1.3
    /points/<column>       (P,) per-point columns: status, replications, events, wall_seconds,
                           crc32, n_<dim> (lengths of ragged dims), every parameter
    /observables/<name>/{mean,stderr,ci95[,axis]} | {counts,underflow,overflow,count,sum,min,max,mean}
    /replications/<name>   (P, replication[, dims])
    /theory/<name>, /comparison/<name>   (P[, dims])
A partial file holds an append log instead (/log/rows, /log/values, /log/counts), turned into the
layout above, sorted by point, when the run ends (strategy c).
"""
import argparse
import collections
import hashlib
import os
import shutil
import subprocess
import time
import warnings
import zlib

import h5py
import numpy as np

NAN = float("nan")
NOT_A_VARIABLE = "This is a netCDF dimension but not a netCDF variable."
BLOCK = 1024          # rows per write block of the final writer (every chunk length divides it)
CHUNK_BYTES = 1 << 20  # target uncompressed bytes per chunk for the "auto" chunk policy
AXIS_DIM = {"level": "level", "t": "time"}
# 1.x stores no dimension name for a matrix's columns, nor for theory arrays whose grid is ""
# (transient mode's theory/u): the model must declare them in 2.0. Here: supermarket's.
DIM_OVERRIDE = {("observables", "u_t", 1): "level",
                ("theory", "u", 0): "level", ("theory", "u_lower", 0): "level",
                ("theory", "u_upper", 0): "level", ("theory", "u_refined", 0): "level",
                ("theory", "V", 0): "level"}
HIST_SCALARS = [("underflow", "u"), ("overflow", "u"), ("count", "u"),
                ("sum", "f"), ("min", "f"), ("max", "f"), ("mean", "f")]


def s(x):
    return x.decode() if isinstance(x, bytes) else str(x)


# ----------------------------------------------------------------------------------- the source
class Var:
    """One 2.0 dataset: path, value class ('f' float64 / 'u' uint64), per-point dims."""

    def __init__(self, path, cls, dims, attrs):
        self.path, self.cls, self.dims, self.attrs = path, cls, list(dims), dict(attrs)
        self.shape = None     # max per-point shape (filled by plan)
        self.ragged = None    # per dim: length varies between points
        self.off = 0          # offset in the point's flat float / uint vector
        self.reshape_from_flat = False  # 1.x theory arrays stored flattened (transient u_t)
        self._size = None

    @property
    def size(self):
        if self._size is None:
            self._size = int(np.prod(self.shape)) if self.shape else 1
        return self._size


class Source:
    """Everything the prototype needs from a 1.x file."""

    def __init__(self, path):
        self.path = path
        self.bytes = os.path.getsize(path)
        with h5py.File(path, "r") as f:
            self.root = dict(f.attrs)
            self.index = f["/points/index"][()]
            self.index_units = [s(u) for u in f["/points/index"].attrs["units"]]
            self.layouts = {k: f["/layouts"][k][()] for k in f["/layouts"]} if "layouts" in f else {}
            self.config = f["/run/config"][()]
            pids = sorted(int(k) for k in f["/points"] if k != "index")
            self.pids = pids
            self.points = []      # per point: {"attrs":..., "data": {key: array}, "edges": {}}
            self.meta = collections.OrderedDict()  # (group, name) -> attrs (first point)
            self.obs_kind = collections.OrderedDict()
            for pid in pids:
                g = f["/points/%06d" % pid]
                rec = {"attrs": {k: v for k, v in g.attrs.items()}, "data": {}, "edges": {}}
                for name, og in g["observables"].items():
                    kind = s(og.attrs["kind"])
                    self.obs_kind.setdefault(name, kind)
                    self.meta.setdefault(("observables", name),
                                         {k: v for k, v in og.attrs.items() if k != "crc32"})
                    for dn, d in og.items():
                        if dn == "bin_edges":
                            rec["edges"][name] = d[()]
                            continue
                        rec["data"][("observables", name, dn)] = d[()]
                        if dn == "axis":
                            self.meta.setdefault(("axis", name), {"name": s(d.attrs["name"])})
                for grp in ("replications", "theory", "comparison"):
                    for name, d in g[grp].items():
                        rec["data"][(grp, name)] = d[()]
                        self.meta.setdefault((grp, name),
                                             {k: v for k, v in d.attrs.items() if k != "crc32"})
                self.points.append(rec)
        self.S = len(self.points)


def survey(src, out=print):
    """Quantities, kinds, shapes, units; which shapes vary between points."""
    shapes = collections.defaultdict(collections.Counter)
    for rec in src.points:
        for key, a in rec["data"].items():
            shapes["/".join(key)][np.shape(a)] += 1
        for name, e in rec["edges"].items():
            shapes["observables/%s/bin_edges" % name][np.shape(e)] += 1
    out("source %s: %d points, %d bytes (%.1f KB a point), R = %s, format_version %s" % (
        src.path, src.S, src.bytes, src.bytes / src.S / 1e3, src.root["replications"],
        list(src.root["format_version"])))
    out("layouts: %s" % ", ".join("%s (%d edges)" % (k, len(v)) for k, v in src.layouts.items()))
    out("%-44s %-10s %-7s %s" % ("dataset (per point, 1.x)", "kind", "unit", "shapes: points"))
    for key, c in shapes.items():
        parts = key.split("/")
        m = src.meta.get((parts[0], parts[1]), {})
        kind = src.obs_kind.get(parts[1], "") if parts[0] == "observables" else parts[0]
        grid = " grid=%s" % s(m["grid"]) if "grid" in m and s(m["grid"]) else ""
        vary = "VARIES " if len(c) > 1 else ""
        out("%-44s %-10s %-7s %s%s%s" % (key, kind, s(m.get("unit", "")), vary,
                                        ", ".join("%s: %d" % (k, n) for k, n in sorted(c.items())), grid))
    attrs = collections.defaultdict(set)
    for rec in src.points:
        for k, v in rec["attrs"].items():
            attrs[k].add(type(v).__name__)
    out("point attributes: %s" % ", ".join("%s (%s)" % (k, "/".join(sorted(v))) for k, v in attrs.items()))
    return shapes


# ------------------------------------------------------------------------------------- the plan
class Plan:
    """The 2.0 variables and dimensions derived from a source, and the points' padded values."""

    def __init__(self, src):
        self.src = src
        self.vars = []
        self.dims = collections.OrderedDict()  # name -> {"len", "coord": array|None, "ragged"}
        R = int(src.root["replications"])
        obs = src.obs_kind
        first = src.points[0]["data"]

        def axis_dim(name):
            a = src.meta.get(("axis", name))
            return AXIS_DIM.get(a["name"], a["name"]) if a else "%s_i" % name

        self.obs_dims = {}
        for name, kind in obs.items():
            m = src.meta[("observables", name)]
            base = {"kind": s(m["kind"]), "unit": s(m.get("unit", "")),
                    "description": s(m.get("description", ""))}
            if kind == "histogram":
                dims = []
                self.vars.append(Var("observables/%s/counts" % name, "u", ["%s_bin" % name],
                                     {**base, **{k: v for k, v in m.items() if k not in ("kind", "unit", "description")}}))
                for fld, cls in HIST_SCALARS:
                    self.vars.append(Var("observables/%s/%s" % (name, fld), cls, [], base))
            else:
                nd = np.ndim(first[("observables", name, "mean")])
                dims = []
                if nd >= 1:
                    dims.append(axis_dim(name))
                if nd == 2:
                    dims.append(DIM_OVERRIDE.get(("observables", name, 1), "%s_col" % name))
                for fld in ("mean", "stderr", "ci95"):
                    self.vars.append(Var("observables/%s/%s" % (name, fld), "f", dims, base))
                if ("observables", name, "axis") in first:
                    self.vars.append(Var("observables/%s/axis" % name, "f", dims[:1],
                                         {"name": src.meta[("axis", name)]["name"]}))
            self.obs_dims[name] = dims
        for name in obs:
            self.vars.append(Var("replications/%s" % name, "f", ["replication"] + self.obs_dims[name], {}))
        theory_names = [k[1] for k in src.meta if k[0] == "theory"]
        grids = {s(src.meta[k].get("grid", "")) for k in src.meta if k[0] in ("theory", "comparison")}
        for grp in ("theory", "comparison"):
            for (g, name), m in src.meta.items():
                if g != grp:
                    continue
                lens = {np.size(p["data"][(grp, name)]) for p in src.points if (grp, name) in p["data"]}
                attrs = {"unit": s(m.get("unit", "")), "description": s(m.get("description", "")),
                         "grid": s(m.get("grid", ""))}
                grid = attrs["grid"]
                v = Var("%s/%s" % (grp, name), "f", [], attrs)
                if max(lens) > 1:
                    if grid in obs and obs[grid] != "histogram" and self.obs_dims[grid]:
                        v.dims = list(self.obs_dims[grid])
                        v.reshape_from_flat = len(v.dims) > 1
                    elif grid and grid in theory_names:
                        v.dims = [grid]
                    elif name in grids:
                        v.dims = [name]
                    else:
                        v.dims = [DIM_OVERRIDE.get((grp, name, 0), "%s_i" % name)]
                self.vars.append(v)
        self._shapes()
        self._coords(R)
        self._pack()

    def value(self, rec, v):
        """The point's unpadded value of Var v (None when the point lacks it)."""
        parts = v.path.split("/")
        if parts[0] == "observables":
            key = ("observables", parts[1], parts[2])
        else:
            key = (parts[0], parts[1])
        a = rec["data"].get(key)
        if a is None:
            return None
        a = np.asarray(a)
        if v.reshape_from_flat:
            oshape = np.shape(rec["data"][("observables", v.attrs["grid"], "mean")])
            a = a.reshape(oshape)
        if not v.dims:
            a = a.reshape(())
        return a

    def _shapes(self):
        """Max shapes, ragged dims, per-point dim lengths (checked consistent across vars)."""
        src = self.src
        self.plen = [dict() for _ in src.points]  # per point: dim -> length
        for v in self.vars:
            shapes = []
            for i, rec in enumerate(src.points):
                a = self.value(rec, v)
                shp = np.shape(a) if a is not None else None
                shapes.append(shp)
                if shp is None:
                    continue
                for d, n in zip(v.dims, shp):
                    old = self.plen[i].setdefault(d, n)
                    if old != n:
                        raise SystemExit("dimension %s has lengths %d and %d at point %d (%s): "
                                         "it needs two names" % (d, old, n, i, v.path))
            shapes = [x for x in shapes if x is not None]
            v.shape = tuple(max(x[j] for x in shapes) for j in range(len(v.dims)))
        for d in {d for v in self.vars for d in v.dims}:
            lens = [pl.get(d, 0) for pl in self.plen]
            self.dims[d] = {"len": max(lens), "ragged": len(set(lens)) > 1, "coord": None}
        for v in self.vars:
            v.ragged = [self.dims[d]["ragged"] for d in v.dims]
        self.ragged_dims = [d for d in self.dims if self.dims[d]["ragged"]]

    def _coords(self, R):
        """A dim's coordinate: the axis (or grid array, or bin edges) when every point's is a
        prefix of the longest; otherwise the dim has no coordinate and the values stay data."""
        src = self.src

        def prefix_coord(arrays):
            longest = max(arrays, key=len)
            if all(np.array_equal(a, longest[:len(a)], equal_nan=True) for a in arrays):
                return np.asarray(longest, dtype=float)
            return None

        drop = set()
        for v in self.vars:
            if v.path.endswith("/axis") or (v.path.startswith("theory/") and v.dims == [v.path.split("/")[1]]):
                d = v.dims[0]
                arrays = [self.value(r, v) for r in src.points]
                c = prefix_coord([a for a in arrays if a is not None])
                if c is not None and (self.dims[d]["coord"] is None or np.array_equal(self.dims[d]["coord"], c)):
                    self.dims[d]["coord"] = c
                    self.dims[d]["coord_from"] = v.path
                    drop.add(v.path)
        self.vars = [v for v in self.vars if v.path not in drop]
        self.dropped = sorted(drop)
        self.hist_layout = {}
        for name, kind in src.obs_kind.items():
            if kind != "histogram":
                continue
            edges = [r["edges"][name] for r in src.points]
            c = prefix_coord(edges)
            d = "%s_bin" % name
            if c is not None:
                self.dims[d]["coord"] = c[:-1]
                self.dims[d]["upper_edge"] = float(c[-1])
        self.dims.setdefault("replication", {"len": R, "ragged": False, "coord": None})

    def _pack(self):
        """Each point as two flat vectors (floats, uints), every var padded to its max shape."""
        off = {"f": 0, "u": 0}
        for v in self.vars:
            v.off = off[v.cls]
            off[v.cls] += v.size
        self.NF, self.NU = off["f"], off["u"]
        S = self.src.S
        self.F = np.full((S, self.NF), NAN)
        self.U = np.zeros((S, self.NU), np.uint64)
        for i, rec in enumerate(self.src.points):
            for v in self.vars:
                a = self.value(rec, v)
                if a is None:
                    continue
                pad = np.full(v.shape, NAN) if v.cls == "f" else np.zeros(v.shape, np.uint64)
                pad[tuple(slice(0, n) for n in np.shape(a))] = a
                (self.F if v.cls == "f" else self.U)[i, v.off:v.off + v.size] = pad.ravel()
        self.LENS = np.array([[pl.get(d, 0) for d in self.ragged_dims] for pl in self.plen],
                             dtype=np.uint32).reshape(S, len(self.ragged_dims))
        a = [r["attrs"] for r in self.src.points]
        self.REPS = np.array([int(x["replications"]) for x in a], np.uint64)
        self.EVENTS = np.array([int(x["events"]) for x in a], np.uint64)
        self.WALL = np.array([float(x["wall_seconds"]) for x in a])
        # which float entries are scrambled: finite, not integers, and at a position whose value
        # differs between the source points (theory/f, a function of L and k only, stays the same
        # in every point, as in a real sweep over lambda)
        same = np.all((self.F == self.F[0]) | (np.isnan(self.F) & np.isnan(self.F[0])), axis=0)
        self.scramble = np.isfinite(self.F) & (self.F != np.round(self.F)) & ~same[None, :]
        # crc layout: the table (per-point numbers), the fixed-width arrays, the ragged arrays
        def idx(sel):
            parts = [np.arange(v.off, v.off + v.size) for v in self.vars if sel(v)]
            return np.concatenate(parts) if parts else np.zeros(0, int)
        self.table_f = idx(lambda v: v.cls == "f" and not v.dims)
        self.table_u = idx(lambda v: v.cls == "u" and not v.dims)
        self.fixed_f = idx(lambda v: v.cls == "f" and v.dims and not any(v.ragged))
        self.fixed_u = idx(lambda v: v.cls == "u" and v.dims and not any(v.ragged))
        self.ragged_vars = [v for v in self.vars if any(v.ragged)]
        self.ragged_segments = []
        for v in self.ragged_vars:
            if v.ragged[-1] and not any(v.ragged[:-1]):  # only the last dim ragged: row segments
                w = v.shape[-1]
                rows = int(np.prod(v.shape[:-1])) if len(v.shape) > 1 else 1
                self.ragged_segments.append((v.cls, [v.off + r * w for r in range(rows)], w,
                                             self.ragged_dims.index(v.dims[-1]), None))
            else:
                self.ragged_segments.append((v.cls, None, None, None, v))

    def point_shape(self, v, lens_row):
        """The unpadded shape of v at a point whose ragged dim lengths are lens_row."""
        return tuple(int(lens_row[self.ragged_dims.index(d)]) if r else n
                     for d, r, n in zip(v.dims, v.ragged, v.shape))


# --------------------------------------------------------------------------- synthetic points
def mix64(x):
    """splitmix64's finaliser, vectorised over uint64."""
    with np.errstate(over="ignore"):
        x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return x ^ (x >> np.uint64(31))


class Synth:
    """Point p = source point p % S, floats scaled by 1 + 1e-6 u(p, j) (u in [-1, 1) from a hash
    of p and j, so any point is the same whichever way or order it is made); lambda a fine grid."""

    def __init__(self, plan, P):
        self.plan, self.P = plan, P
        self.cache = {}
        self.j = np.arange(plan.NF, dtype=np.uint64)
        src = plan.src
        self.index = np.empty(P, dtype=src.index.dtype)
        cyc = np.arange(P) % src.S
        self.index[:] = src.index[cyc]
        self.index["point"] = np.arange(P, dtype=np.uint64)
        if "lambda" in self.index.dtype.names:
            self.index["lambda"] = np.round(np.linspace(0.02, 0.96, P), 9)

    def factor(self, pids):
        with np.errstate(over="ignore"):
            h = mix64(pids.astype(np.uint64)[:, None] * np.uint64(0x9E3779B97F4A7C15) + self.j[None, :])
        u = (h >> np.uint64(11)).astype(np.float64) * (2.0 ** -53) * 2 - 1
        return 1 + 1e-6 * u

    def block(self, pids):
        pids = np.asarray(pids, dtype=np.int64)
        if len(pids) > 1 and self.P <= 20000:  # whole blocks are cached (write_direct, variants)
            key = (int(pids[0]), len(pids))
            if key not in self.cache:
                self.cache[key] = self._block(pids)
            return self.cache[key]
        return self._block(pids)

    def _block(self, pids):
        c = pids % self.plan.src.S
        pl = self.plan
        F = pl.F[c].copy()
        m = pl.scramble[c]
        F[m] = (F * self.factor(pids))[m]
        wall = pl.WALL[c] * self.factor(pids)[:, 0]
        return {"pid": pids.astype(np.uint64), "F": F, "U": pl.U[c], "LENS": pl.LENS[c],
                "REPS": pl.REPS[c], "EVENTS": pl.EVENTS[c], "WALL": wall}

    def point(self, p):
        return self.block([p])


def crc_rows_table(plan, b):
    """The table checksum alone (see crc_rows)."""
    return crc_rows(plan, b, arrays=False)


def crc_rows(plan, b, arrays=True):
    """Two CRC-32s per point, both independent of the padding (so a log's and a final file's,
    a task's and a merged file's agree):
      table:  point id, replications, events, wall_seconds, the ragged dims' lengths, then every
              per-point number (datasets of shape (P,)) in plan order: what frame() and
              storq info read, checkable without reading the arrays;
      arrays: every other dataset's elements in plan order, a ragged one cut to the point's lengths.
    """
    n = len(b["pid"])
    head = np.empty((n, 32 + 4 * len(plan.ragged_dims)), np.uint8)
    head[:, 0:8] = b["pid"].astype("<u8")[:, None].view(np.uint8)
    head[:, 8:16] = b["REPS"].astype("<u8")[:, None].view(np.uint8)
    head[:, 16:24] = b["EVENTS"].astype("<u8")[:, None].view(np.uint8)
    head[:, 24:32] = np.asarray(b["WALL"], "<f8")[:, None].view(np.uint8)
    if plan.ragged_dims:
        head[:, 32:] = np.ascontiguousarray(b["LENS"].astype("<u4")).view(np.uint8)
    table = np.concatenate([head, np.ascontiguousarray(b["F"][:, plan.table_f]).view(np.uint8),
                            np.ascontiguousarray(b["U"][:, plan.table_u]).view(np.uint8)], axis=1)
    if arrays:
        fixed = np.concatenate([np.ascontiguousarray(b["F"][:, plan.fixed_f]).view(np.uint8),
                                np.ascontiguousarray(b["U"][:, plan.fixed_u]).view(np.uint8)], axis=1)
    ct = np.empty(n, np.uint32)
    ca = np.empty(n, np.uint32)
    F, U, L = b["F"], b["U"], b["LENS"]
    segs = plan.ragged_segments
    for i in range(n):
        ct[i] = zlib.crc32(table[i])
        if not arrays:
            continue
        c = zlib.crc32(fixed[i])
        Fi, Ui, Li = F[i], U[i], L[i]
        for cls, starts, width, dim, general in segs:
            M = Fi if cls == "f" else Ui
            if general is None:
                k = int(Li[dim])
                for st in starts:
                    c = zlib.crc32(M[st:st + k], c)
            else:
                v = general
                a = M[v.off:v.off + v.size].reshape(v.shape)
                shp = plan.point_shape(v, Li)
                c = zlib.crc32(np.ascontiguousarray(a[tuple(slice(0, k) for k in shp)]), c)
        ca[i] = c
    return ct, ca


# ------------------------------------------------------------------------------- final layout
LIBVER = {"earliest": h5py.h5f.LIBVER_EARLIEST, "v108": h5py.h5f.LIBVER_V18,
          "v110": h5py.h5f.LIBVER_V110, "latest": h5py.h5f.LIBVER_LATEST}


def new_file(path, libver=("v108", "latest")):
    """A file whose groups (the root too) record no times: HDF5 stamps a group's object header
    with its creation time by default, which alone makes two identical runs differ."""
    fcpl = h5py.h5p.create(h5py.h5p.FILE_CREATE)
    fcpl.set_obj_track_times(False)
    fcpl.set_link_creation_order(h5py.h5p.CRT_ORDER_TRACKED | h5py.h5p.CRT_ORDER_INDEXED)
    fapl = h5py.h5p.create(h5py.h5p.FILE_ACCESS)
    fapl.set_libver_bounds(LIBVER[libver[0]], LIBVER[libver[1]])
    fid = h5py.h5f.create(path.encode(), h5py.h5f.ACC_TRUNC, fapl=fapl, fcpl=fcpl)
    return h5py.File(fid)


def group(f, path):
    """require_group without times."""
    g = f
    for part in path.strip("/").split("/"):
        if part not in g:
            gcpl = h5py.h5p.create(h5py.h5p.GROUP_CREATE)
            gcpl.set_obj_track_times(False)
            # members in the model's order (as 1.x), which h5py, ncdump and xarray follow
            gcpl.set_link_creation_order(h5py.h5p.CRT_ORDER_TRACKED | h5py.h5p.CRT_ORDER_INDEXED)
            h5py.h5g.create(g.id, part.encode(), gcpl=gcpl)
        g = g[part]
    return g


def ensure_parent(f, path):
    if "/" in path.strip("/"):
        group(f, path.strip("/").rsplit("/", 1)[0])
def chunk_rows(policy, rowbytes, P):
    if policy == "contig":
        return None
    if policy == "auto":
        r = 1
        while r < 1024 and (2 * r) * rowbytes <= CHUNK_BYTES:
            r *= 2
        r = max(r, 8)
    else:
        r = int(policy)
    return min(r, P) if P >= 1 else 1


class Final:
    """The 2.0 layout, pre-sized for P points (whole run)."""

    def __init__(self, path, plan, synth, P, policy="auto", fletcher32=False, dimscales=True,
                 libver=("v108", "latest"), counter=None):
        self.plan, self.P, self.path = plan, P, path
        self.calls = counter if counter is not None else collections.Counter()
        self.f = f = new_file(path, libver)
        src = plan.src
        for k, v in src.root.items():  # each attribute set once: h5py overwrites via a uuid-named temporary
            f.attrs[k] = np.array([2, 0], np.int32) if k == "format_version" else v
        group(f, "run")
        f.create_dataset("run/config", data=src.config)
        idx = synth.index
        f.create_dataset("run/index", data=idx, chunks=(min(BLOCK, P),), shuffle=True,
                         compression="gzip", compression_opts=4)
        f["run/index"].attrs["units"] = np.array(src.index_units, dtype=h5py.string_dtype())
        if dimscales:  # the run's points (a task's file holds fewer rows than the run)
            rp = f.create_dataset("run/run_point", shape=(len(idx),), dtype="f4")
            rp.make_scale("%s%10d" % (NOT_A_VARIABLE, len(idx)))
            f["run/index"].dims[0].attach_scale(rp)
        for k, e in src.layouts.items():
            group(f, "layouts")
            f.create_dataset("layouts/" + k, data=e)
        self.scales = {}
        if dimscales:
            sc = f.create_dataset("point", data=np.arange(P, dtype=np.uint64), chunks=(min(P, 8192),),
                                  shuffle=True, compression="gzip", compression_opts=4)
            sc.make_scale("point")
            self.scales["point"] = sc
            for d, info in plan.dims.items():
                if info["coord"] is not None:
                    sc = f.create_dataset(d, data=info["coord"])
                    sc.make_scale(d)
                    if "upper_edge" in info:
                        sc.attrs["upper_edge"] = info["upper_edge"]
                    if "coord_from" in info:
                        sc.attrs["from"] = info["coord_from"]
                else:  # a netCDF dimension without a variable: no data stored
                    sc = f.create_dataset(d, shape=(info["len"],), dtype="f4")
                    sc.make_scale("%s%10d" % (NOT_A_VARIABLE, info["len"]))
                self.scales[d] = sc
        filt = dict(shuffle=True, compression="gzip", compression_opts=4, fletcher32=fletcher32)
        self.ds = {}
        self.rows = {}

        def make(path, dtype, shape, dims, attrs, fill):
            rowbytes = int(np.prod(shape[1:], dtype=np.int64)) * np.dtype(dtype).itemsize
            r = chunk_rows(policy, rowbytes, P)
            kw = dict(chunks=(r,) + tuple(shape[1:]), **filt) if r else {}
            ensure_parent(f, path)
            d = f.create_dataset(path, shape=shape, dtype=dtype, fillvalue=fill, **kw)
            for k, v in attrs.items():
                d.attrs[k] = v
            if dimscales:
                for i, dn in enumerate(["point"] + dims):
                    d.dims[i].attach_scale(self.scales[dn])
            self.ds[path] = d
            self.rows[path] = r or P
            return d

        cols = [("points/status", np.uint8, 0, {"meaning": "1: complete (written last)"}),
                ("points/replications", np.uint64, 0, {}),
                ("points/events", np.uint64, 0, {}),
                ("points/wall_seconds", np.float64, NAN, {"unit": "s"}),
                ("points/crc32", np.uint32, 0, {"covers": np.array(
                    [v.path for v in plan.vars if not v.dims], dtype=h5py.string_dtype())}),
                ("points/crc32_arrays", np.uint32, 0, {"covers": np.array(
                    [v.path for v in plan.vars if v.dims], dtype=h5py.string_dtype())})]
        cols += [("points/n_%s" % d, np.uint32, 0, {"meaning": "length of dim %s at the point" % d})
                 for d in plan.ragged_dims]
        for path, dt, fill, attrs in cols:
            make(path, dt, (P,), [], attrs, fill)
        for name, unit in zip(idx.dtype.names[1:], src.index_units[1:]):
            dt = idx.dtype[name]
            make("points/" + name, dt, (P,), [], {"unit": unit}, b"" if dt.kind == "S" else 0)
            self.ds["points/" + name][:] = idx[name]
        groups_done = set()
        for v in plan.vars:
            parts = v.path.split("/")
            if parts[0] == "observables" and parts[1] not in groups_done:
                g = group(f, "observables/" + parts[1])
                for k in ("kind", "unit", "description", "histogram_kind", "relative_resolution"):
                    if k in v.attrs:
                        g.attrs[k] = v.attrs[k]
                groups_done.add(parts[1])
            attrs = {} if parts[0] == "observables" else v.attrs
            if parts[0] == "replications":
                attrs = {}
            make(v.path, np.float64 if v.cls == "f" else np.uint64, (P,) + v.shape, v.dims, attrs,
                 NAN if v.cls == "f" else 0)
        for g in ("replications", "theory", "comparison"):
            group(f, g)

    def _var_block(self, v, b):
        M = b["F"] if v.cls == "f" else b["U"]
        return M[:, v.off:v.off + v.size].reshape((len(b["pid"]),) + v.shape)

    def write_rows(self, a, z, b, crc):
        """Rows a..z (z exclusive) of every dataset from block b; status last."""
        for v in self.plan.vars:
            self.ds[v.path][a:z] = self._var_block(v, b)
            self.calls["write"] += 1
        self.ds["points/replications"][a:z] = b["REPS"]
        self.ds["points/events"][a:z] = b["EVENTS"]
        self.ds["points/wall_seconds"][a:z] = b["WALL"]
        self.ds["points/crc32"][a:z] = crc[0]
        self.ds["points/crc32_arrays"][a:z] = crc[1]
        for j, d in enumerate(self.plan.ragged_dims):
            self.ds["points/n_%s" % d][a:z] = b["LENS"][:, j]
        self.calls["write"] += 5 + len(self.plan.ragged_dims)
        self.ds["points/status"][a:z] = 1
        self.calls["write"] += 1

    def flush(self):
        self.f.flush()
        self.calls["flush"] += 1

    def close(self):
        self.f.close()


# ----------------------------------------------------------------------------- the append log
class Log:
    """A partial file's results: rows appended in completion order. Per point: the values and
    counts rows (one compressed chunk each, never rewritten), then its row of /log/rows with
    status 1 (the commit), then a flush."""

    def __init__(self, path, plan, synth, counter=None):
        self.plan = plan
        self.calls = counter if counter is not None else collections.Counter()
        self.f = f = new_file(path)
        src = plan.src
        for k, v in src.root.items():  # each attribute set once: h5py overwrites via a uuid-named temporary
            f.attrs[k] = np.array([2, 0], np.int32) if k == "format_version" else v
        group(f, "run")
        f.create_dataset("run/config", data=src.config)
        f.create_dataset("run/index", data=synth.index, chunks=(min(BLOCK, len(synth.index)),),
                         shuffle=True, compression="gzip", compression_opts=4)
        nd = len(plan.ragged_dims)
        self.rowtype = np.dtype([("point", "<u8"), ("status", "u1"), ("replications", "<u8"),
                                 ("events", "<u8"), ("wall_seconds", "<f8"), ("crc32", "<u4"), ("crc32_arrays", "<u4"),
                                 ("lens", "<u4", (max(nd, 1),))])
        group(f, "log")
        self.rows = f.create_dataset("log/rows", shape=(0,), maxshape=(None,), dtype=self.rowtype,
                                     chunks=(1024,))
        filt = dict(shuffle=True, compression="gzip", compression_opts=4)
        self.values = f.create_dataset("log/values", shape=(0, plan.NF), maxshape=(None, None),
                                       dtype="<f8", chunks=(1, plan.NF), fillvalue=NAN, **filt)
        self.counts = f.create_dataset("log/counts", shape=(0, max(plan.NU, 1)), maxshape=(None, None),
                                       dtype="<u8", chunks=(1, max(plan.NU, 1)), **filt)
        f["log"].attrs["vars"] = np.array(["%s %s %s" % (v.path, v.cls, v.off) for v in plan.vars],
                                          dtype=h5py.string_dtype())
        self.n = 0

    def append(self, b, crc, flush=True):
        n = self.n
        self.values.resize((n + 1, self.values.shape[1]))
        self.counts.resize((n + 1, self.counts.shape[1]))
        self.rows.resize((n + 1,))
        self.values[n] = b["F"][0]
        self.counts[n] = b["U"][0]
        row = np.zeros(1, self.rowtype)
        row["point"], row["status"] = b["pid"][0], 1
        row["replications"], row["events"], row["wall_seconds"] = b["REPS"][0], b["EVENTS"][0], b["WALL"][0]
        row["crc32"], row["crc32_arrays"] = crc[0][0], crc[1][0]
        if self.plan.ragged_dims:
            row["lens"][0, :] = b["LENS"][0]
        self.rows[n] = row[0]
        self.calls["resize"] += 3
        self.calls["write"] += 3
        if flush:
            self.f.flush()
            self.calls["flush"] += 1
        self.n += 1

    def close(self):
        self.f.close()


def finalize(log_path, out_path, plan, synth, P, **kw):
    """The log sorted into the final layout, block by block: the same calls in the same order
    whatever order the points were appended in, so the file is the same bytes."""
    with h5py.File(log_path, "r") as lf:
        rows = lf["log/rows"][()]
        ok = rows["status"] == 1
        where = np.flatnonzero(ok)
        order = where[np.argsort(rows["point"][ok], kind="stable")]
        pts = rows["point"][order]
        assert len(pts) == P and np.array_equal(pts, np.arange(P)), "log does not hold every point once"
        out = Final(out_path, plan, synth, P, **kw)
        vals, cnts = lf["log/values"], lf["log/counts"]
        for a in range(0, P, BLOCK):
            z = min(a + BLOCK, P)
            sel = order[a:z]
            # one read per log row (one chunk each): flat in P. A fancy selection of the block's
            # rows (vals[sorted rows]) costs 196 us a row at 20,000 rows and 457 at 100,000
            # (HDF5 1.10 irregular hyperslabs), a read of one row 20 us at both.
            F = np.empty((len(sel), vals.shape[1]))
            U = np.empty((len(sel), cnts.shape[1]), np.uint64)
            for k in np.argsort(sel):
                vals.read_direct(F, np.s_[sel[k]:sel[k] + 1], np.s_[k:k + 1])
                cnts.read_direct(U, np.s_[sel[k]:sel[k] + 1], np.s_[k:k + 1])
            r = rows[sel]
            b = {"pid": r["point"], "F": F, "U": U, "LENS": r["lens"][:, :len(plan.ragged_dims)],
                 "REPS": r["replications"], "EVENTS": r["events"], "WALL": r["wall_seconds"]}
            crc = crc_rows(plan, b)
            bad = (crc[0] != r["crc32"]) | (crc[1] != r["crc32_arrays"])
            if bad.any():
                raise SystemExit("finalize: log rows %s fail their checksum" % sel[bad])
            out.write_rows(a, z, b, crc)
        out.close()


# --------------------------------------------------------------------------------- strategies
def md5(path):
    h = hashlib.md5()
    with open(path, "rb") as fh:
        for blk in iter(lambda: fh.read(1 << 22), b""):
            h.update(blk)
    return h.hexdigest()


def write_direct(path, plan, synth, P, **kw):
    """The reference: points in order, whole blocks (what finalize does without the log)."""
    t = time.perf_counter()
    prep = 0.0
    out = Final(path, plan, synth, P, **kw)
    t_create = time.perf_counter() - t
    for a in range(0, P, BLOCK):
        g = time.perf_counter()
        b = synth.block(np.arange(a, min(a + BLOCK, P)))
        crc = crc_rows(plan, b)
        prep += time.perf_counter() - g
        out.write_rows(a, a + len(b["pid"]), b, crc)
    out.close()
    return time.perf_counter() - t - prep, t_create, prep


def strategy_a(path, plan, synth, P, order, limit=None, **kw):
    """(a) each point's row written into the pre-sized chunked datasets as it finishes, flushed."""
    calls = collections.Counter()
    out = Final(path, plan, synth, P, counter=calls, **kw)
    gen = 0.0
    t0 = time.perf_counter()
    n = 0
    for p in order[:limit]:
        g = time.perf_counter()
        b = synth.point(p)
        crc = crc_rows(plan, b)
        gen += time.perf_counter() - g
        out.write_rows(p, p + 1, b, crc)
        out.flush()
        n += 1
    t = time.perf_counter() - t0 - gen
    out.close()
    return t / n, {k: v / n for k, v in calls.items()}, n


def strategy_b(path, plan, synth, P, order, block, **kw):
    """(b) a block of points (a multiple of every chunk) kept in memory until all are in."""
    calls = collections.Counter()
    out = Final(path, plan, synth, P, counter=calls, **kw)
    t0 = time.perf_counter()
    gen = 0.0
    pending = collections.defaultdict(dict)
    held = peak = 0
    for p in order:
        g = time.perf_counter()
        b = synth.point(p)
        gen += time.perf_counter() - g
        k = p // block
        pending[k][p] = b
        held += 1
        peak = max(peak, held)
        size = min(block, P - k * block)
        if len(pending[k]) == size:
            g = time.perf_counter()
            rows = [pending[k][q] for q in range(k * block, k * block + size)]
            bb = {key: np.concatenate([r[key] for r in rows]) for key in rows[0]}
            crc = crc_rows(plan, bb)
            gen += time.perf_counter() - g
            out.write_rows(k * block, k * block + size, bb, crc)
            out.flush()
            held -= size
            del pending[k]
    t = time.perf_counter() - t0 - gen
    out.close()
    rowbytes = plan.NF * 8 + plan.NU * 8
    return t / P, {k: v / P for k, v in calls.items()}, peak, peak * rowbytes


def strategy_c(log_path, out_path, plan, synth, P, order, flush_every=1, **kw):
    """(c) append log in completion order, then finalize (sort) once at the end."""
    calls = collections.Counter()
    t0 = time.perf_counter()
    log = Log(log_path, plan, synth, counter=calls)
    gen = 0.0
    times = np.empty(P)
    for i, p in enumerate(order):
        g = time.perf_counter()
        b = synth.point(p)
        crc = crc_rows(plan, b)
        g2 = time.perf_counter()
        gen += g2 - g
        log.append(b, crc, flush=(i + 1) % flush_every == 0)
        times[i] = time.perf_counter() - g2
    log.close()
    t_log = time.perf_counter() - t0 - gen
    t = time.perf_counter()
    if out_path:
        finalize(log_path, out_path, plan, synth, P, **kw)
    t_fin = time.perf_counter() - t
    q = max(1, P // 10)
    return {"append_s_per_point": t_log / P, "first10%": float(np.mean(times[:q])),
            "last10%": float(np.mean(times[-q:])), "finalize_s": t_fin,
            "calls_per_point": {k: v / P for k, v in calls.items()},
            "log_bytes": os.path.getsize(log_path)}


# ------------------------------------------------------------------------------------ readers
def read_frame(path):
    """The frame() / storq info equivalent: every per-point column and every scalar's mean,
    stderr, ci95, every one-number theory and comparison, into one pandas DataFrame."""
    import pandas as pd
    t = time.perf_counter()
    cols = {}
    with h5py.File(path, "r") as f:
        cols["point"] = f["point"][()] if "point" in f else np.arange(f["points/status"].shape[0])
        for k, d in f["points"].items():
            a = d[()]
            cols[k] = np.char.decode(a, "utf-8", "backslashreplace") if a.dtype.kind == "S" else a
        for name, g in f["observables"].items():
            kind = g.attrs["kind"]
            if kind == "scalar":
                cols[name] = g["mean"][()]
                cols[name + "_stderr"] = g["stderr"][()]
                cols[name + "_ci95"] = g["ci95"][()]
        for grp in ("theory", "comparison"):
            for name, d in f[grp].items():
                if d.ndim == 1:
                    key = name if name not in cols else name + "_" + grp
                    cols[key] = d[()]
    df = pd.DataFrame(cols)
    return time.perf_counter() - t, df


def verify(path, plan, part="all"):
    """Read the per-point columns and every (P,) dataset (part="table": what frame() and storq
    info read) or every dataset (part="all"), block by block, and check the points' checksums."""
    t = time.perf_counter()
    nbad = 0
    with h5py.File(path, "r", rdcc_nbytes=64 << 20) as f:
        covers = [s(x) for x in f["points/crc32"].attrs["covers"]]
        if part == "all":
            covers += [s(x) for x in f["points/crc32_arrays"].attrs["covers"]]
        vars_ = {v.path: v for v in plan.vars}
        P = f["points/status"].shape[0]
        pid = f["point"][()] if "point" in f else np.arange(P, dtype=np.uint64)
        dsets = {p_: f[p_] for p_ in covers}
        for a in range(0, P, BLOCK):
            z = min(a + BLOCK, P)
            n = z - a
            F = np.full((n, plan.NF), NAN)
            U = np.zeros((n, max(plan.NU, 1)), np.uint64)
            for path_, d in dsets.items():
                v = vars_[path_]
                (F if v.cls == "f" else U)[:, v.off:v.off + v.size] = d[a:z].reshape(n, -1)
            b = {"pid": pid[a:z], "F": F, "U": U,
                 "LENS": np.stack([f["points/n_%s" % d][a:z] for d in plan.ragged_dims], axis=1)
                 if plan.ragged_dims else np.zeros((n, 0), np.uint32),
                 "REPS": f["points/replications"][a:z], "EVENTS": f["points/events"][a:z],
                 "WALL": f["points/wall_seconds"][a:z]}
            status = f["points/status"][a:z]
            if part == "table":
                ct, _ = crc_rows_table(plan, b)
                bad = ct != f["points/crc32"][a:z]
            else:
                ct, ca = crc_rows(plan, b)
                bad = (ct != f["points/crc32"][a:z]) | (ca != f["points/crc32_arrays"][a:z])
            nbad += int(np.sum(bad | (status != 1)))
    return time.perf_counter() - t, nbad


def read_all(path):
    """h5py only: every dataset read once (chunk-aligned blocks), no checksum."""
    t = time.perf_counter()
    nbytes = 0
    with h5py.File(path, "r", rdcc_nbytes=64 << 20) as f:
        def visit(name, obj):
            nonlocal nbytes
            if isinstance(obj, h5py.Dataset):
                if obj.shape and obj.shape[0] > BLOCK:
                    for a in range(0, obj.shape[0], BLOCK):
                        nbytes += obj[a:a + BLOCK].nbytes
                else:
                    nbytes += np.asarray(obj[()]).nbytes
        f.visititems(visit)
    return time.perf_counter() - t, nbytes


def storage_breakdown(path, P):
    agg = collections.Counter()
    tot = 0
    with h5py.File(path, "r") as f:
        def visit(n, o):
            nonlocal tot
            if isinstance(o, h5py.Dataset):
                sz = o.id.get_storage_size()
                tot += sz
                top = n.split("/")[0]
                key = "histogram counts" if n.endswith("/counts") else (
                    top if top in ("observables", "replications", "theory", "comparison", "points", "run")
                    else "scales+layouts")
                agg[key] += sz
        f.visititems(visit)
    fs = os.path.getsize(path)
    return ", ".join("%s %.0f" % (k, v / P) for k, v in agg.most_common()) + \
        ", HDF5 metadata (headers, chunk indexes, heaps) %.0f" % ((fs - tot) / P)


def xarray_check(path, lines):
    try:
        import xarray as xr
    except ImportError as e:
        lines.append("xarray: not installed (%s)" % e)
        return None
    out = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for grp in (None, "points", "observables/u", "observables/job_delay", "replications",
                    "theory", "comparison", "run"):
            t = time.perf_counter()
            try:
                ds = xr.open_dataset(path, engine="h5netcdf", group=grp)
                dims = dict(ds.sizes)
                nv = len(ds.data_vars)
                ds.load()
                ds.close()
                out[grp or "/"] = "ok %.2fs dims %s, %d variables" % (time.perf_counter() - t, dims, nv)
            except Exception as e:  # noqa: BLE001 - reported as found
                out[grp or "/"] = "FAILS: %s: %s" % (type(e).__name__, str(e).splitlines()[0][:150])
        # the whole results as one Dataset: one open per group, merged
        t = time.perf_counter()
        try:
            parts = []
            with h5py.File(path, "r") as f:
                groups = ["points"] + ["observables/" + k for k in f["observables"]] + \
                         ["replications", "theory", "comparison"]
            for g in groups:
                ds = xr.open_dataset(path, engine="h5netcdf", group=g)
                if g.startswith("observables/"):
                    ds = ds.rename({k: g.split("/")[1] + "_" + k for k in ds.data_vars})
                elif g in ("theory", "comparison", "replications"):
                    ds = ds.rename({k: g + "_" + k for k in ds.data_vars})
                parts.append(ds)
            m = xr.merge(parts, compat="override", join="override")
            sc = [k for k in m.data_vars if m[k].dims == ("point",)]
            m[sc].to_dataframe()
            out["merge of every group, scalars to_dataframe"] = "ok %.2fs (%d variables, dims %s)" % (
                time.perf_counter() - t, len(m.data_vars), dict(m.sizes))
        except Exception as e:  # noqa: BLE001
            out["merge"] = "FAILS: %s: %s" % (type(e).__name__, str(e).splitlines()[0][:150])
    for k, v in out.items():
        lines.append("  xarray group %-28s %s" % (k, v))
    return out


def ncdump_head(path, n=45):
    exe = shutil.which("ncdump")
    if not exe:
        return ["ncdump: not installed (apt-get install -y netcdf-bin)"]
    t = time.perf_counter()
    r = subprocess.run([exe, "-h", path], capture_output=True, text=True, timeout=300)
    dt = time.perf_counter() - t
    lines = (r.stdout or "").splitlines()
    return ["ncdump -h: exit %d, %.2fs, %d lines%s" % (r.returncode, dt, len(lines),
            (", stderr: " + r.stderr.strip()[:200]) if r.stderr.strip() else "")] + \
        ["    " + x for x in lines[:n]]


def fletcher_test(plan, synth, dirn, lines):
    """Flip one byte in the middle of a stored chunk; read it back with and without Fletcher32."""
    P = 1000
    for fl in (True, False):
        path = os.path.join(dirn, "flip_%s.h5" % ("f32" if fl else "plain"))
        write_direct(path, plan, synth, P, fletcher32=fl)
        target = "observables/mean_job_delay/mean"
        with h5py.File(path, "r") as f:
            good = f[target][()]
            info = f[target].id.get_chunk_info(0)
        with open(path, "r+b") as fh:
            fh.seek(info.byte_offset + info.size // 2)
            c = fh.read(1)
            fh.seek(info.byte_offset + info.size // 2)
            fh.write(bytes([c[0] ^ 0x10]))
        try:
            with h5py.File(path, "r") as f:
                bad = f[target][()]
            diff = int(np.sum(~((bad == good) | (np.isnan(bad) & np.isnan(good)))))
            res = "read without error, %d values differ" % diff
            t, nbad = verify(path, plan)
            res += "; per-point crc32 flags %d points" % nbad
        except Exception as e:  # noqa: BLE001
            res = "read fails: %s" % str(e).splitlines()[0][:120]
        lines.append("  flip a byte of chunk 0 of %s (%d B compressed), fletcher32=%s: %s" % (
            target, info.size, fl, res))
    # an uncompressed (contiguous) dataset: only the point crc can see it
    path = os.path.join(dirn, "flip_contig.h5")
    write_direct(path, plan, synth, P, policy="contig")
    with h5py.File(path, "r") as f:
        off = f["observables/mean_job_delay/mean"].id.get_offset()
    with open(path, "r+b") as fh:
        fh.seek(off + 8 * 7 + 3)
        c = fh.read(1)
        fh.seek(off + 8 * 7 + 3)
        fh.write(bytes([c[0] ^ 0x10]))
    t, nbad = verify(path, plan)
    lines.append("  flip a byte of a contiguous (unfiltered) dataset: per-point crc32 flags %d point(s)" % nbad)


# --------------------------------------------------------------------------------------- main
def layout_tree(plan, P):
    lines = ["/  (attrs as 1.x; format_version [2, 0])"]
    lines.append("/point  uint64 (%d,) dimension scale" % P)
    for d, info in plan.dims.items():
        lines.append("/%s  (%d,) dimension scale%s%s" % (
            d, info["len"], ", coordinate from %s" % info.get("coord_from", "layout edges")
            if info["coord"] is not None else " (netCDF dimension without variable, no data)",
            ", ragged: per-point length in /points/n_%s" % d if info["ragged"] else ""))
    lines.append("/run/config, /run/index (compound, the run's whole index), /layouts/NAME")
    lines.append("/points/{status u8, replications u64, events u64, wall_seconds f64, crc32 u32%s, <params>}  (point,)"
                 % "".join(", n_%s u32" % d for d in plan.ragged_dims))
    for v in plan.vars:
        lines.append("/%s  %s (point%s) max %s" % (v.path, "float64" if v.cls == "f" else "uint64",
                                                   "".join(", " + d for d in v.dims), (P,) + v.shape))
    return lines


def identity(plan, dirn, say):
    """Which strategies give the same bytes whatever order the points finish in."""
    def two(fn, P, tag):
        synth = Synth(plan, P)
        ref = os.path.join(dirn, "id_direct_%d.h5" % P)
        write_direct(ref, plan, synth, P)
        sums = []
        for k, seed in enumerate((1, 2)):
            sums.append(fn(synth, np.random.default_rng(seed).permutation(P), k))
        say("identity %-58s two orders: %-5s  vs in-order direct write: %s" % (
            tag, sums[0] == sums[1], sums[0] == md5(ref)))

    def a_(synth, order, k):
        path = os.path.join(dirn, "id_a_%d.h5" % k)
        strategy_a(path, plan, synth, len(order), order)
        return md5(path)

    def b_(synth, order, k):
        path = os.path.join(dirn, "id_b_%d.h5" % k)
        strategy_b(path, plan, synth, len(order), order, BLOCK)
        return md5(path)

    def c_(synth, order, k):
        path = os.path.join(dirn, "id_c_%d.h5" % k)
        strategy_c(os.path.join(dirn, "id_log_%d.h5" % k), path, plan, synth, len(order), order)
        return md5(path)

    two(a_, 300, "(a) per-point writes into chunked datasets, P=300")
    two(b_, 4000, "(b) whole %d-point blocks as they fill, P=4000" % BLOCK)
    two(c_, 4000, "(c) append log + sorted rewrite, P=4000")
    for fn in os.listdir(dirn):
        if fn.startswith("id_"):
            os.remove(os.path.join(dirn, fn))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cmd", choices=["survey", "bench", "layout"])
    ap.add_argument("src")
    ap.add_argument("--points", default="1000,20000,100000",
                    help="point counts; each a few minutes (100000: about 10)")
    ap.add_argument("--out", default="/tmp/proto/s2")
    ap.add_argument("--only-c", action="store_true", help="strategy (c) and the final file's reads only")
    ap.add_argument("--checks", action="store_true",
                    help="also the bit-identity, xarray, ncdump and Fletcher32 checks (P=1000 files)")
    a = ap.parse_args()
    src = Source(a.src)
    if a.cmd == "survey":
        survey(src)
        return
    plan = Plan(src)
    if a.cmd == "layout":
        survey(src)
        print("\n".join(layout_tree(plan, 1000)))
        return
    os.makedirs(a.out, exist_ok=True)
    rep = []

    def say(x):
        print(x, flush=True)
        rep.append(x)

    survey(src, say)
    say("floats per point (padded) %d, uints %d, ragged dims %s, vars %d" % (
        plan.NF, plan.NU, plan.ragged_dims, len(plan.vars)))
    for x in layout_tree(plan, 1000):
        say("  " + x)
    src_pp = src.bytes / src.S
    say("1.x source: %.0f B a point" % src_pp)
    for P in [int(x) for x in a.points.split(",")]:
        synth = Synth(plan, P)
        order = np.random.default_rng(12345).permutation(P)
        say("\n=== P = %d ===" % P)
        variants = [("auto", {})]
        if P <= 20000:
            variants += [("256", {"policy": "256"}), ("1024", {"policy": "1024"}),
                         ("auto+fletcher32", {"fletcher32": True}),
                         ("auto, no dimension scales", {"dimscales": False}),
                         ("auto, libver v110", {"libver": ("v110", "latest")})]
        if P <= 1000:
            variants += [("contig", {"policy": "contig"})]
        if P >= 100000 or a.only_c:
            variants = []  # (c)'s finalize writes the same bytes (see identity)
        for name, kw in variants:
            path = os.path.join(a.out, "direct_%d_%s.h5" % (P, name.replace(" ", "").replace(",", "_")))
            t, tcreate, prep = write_direct(path, plan, synth, P, **kw)
            sz = os.path.getsize(path)
            tr, df = read_frame(path)
            tt, nbt = verify(path, plan, part="table")
            line = ("direct %-26s %6.0f B/pt (1.x/2.0 = %.1f)  write %.0f us/pt (create %.2fs; python gen+crc "
                    "%.0f us/pt extra)  frame %.2fs (%dx%d)  frame-cols+table crc %.2fs (bad %d)" % (
                        name, sz / P, src_pp / (sz / P), 1e6 * t / P, tcreate, 1e6 * prep / P, tr,
                        df.shape[0], df.shape[1], tt, nbt))
            if name in ("auto", "auto+fletcher32", "contig") or P <= 1000:
                ta, nb = read_all(path)
                line += "  read-all %.2fs (%.0f MB)" % (ta, nb / 1e6)
                if name == "auto":
                    tv, nbad = verify(path, plan)
                    line += "  read-all+all crc %.2fs (bad %d)" % (tv, nbad)
            say(line)
        # (c) append log then finalize
        final = os.path.join(a.out, "c_%d.h5" % P)
        res = strategy_c(os.path.join(a.out, "log_%d.h5" % P), final, plan, synth, P, order)
        say("(c) log: append %.0f us/pt (first 10%% of points %.0f, last 10%% %.0f), calls/pt %s, log %.0f B/pt; "
            "finalize (sort + rewrite) %.1fs = %.0f us/pt; final %.0f B/pt" % (
                1e6 * res["append_s_per_point"], 1e6 * res["first10%"], 1e6 * res["last10%"],
                res["calls_per_point"], res["log_bytes"] / P, res["finalize_s"], 1e6 * res["finalize_s"] / P,
                os.path.getsize(final) / P))
        if P >= 100000 or a.only_c:
            tr, df = read_frame(final)
            tt, nbt = verify(final, plan, part="table")
            ta, nb = read_all(final)
            say("(c) final file: frame %.2fs (%dx%d)  frame-cols+table crc %.2fs (bad %d)  read-all %.2fs (%.0f MB)" % (
                tr, df.shape[0], df.shape[1], tt, nbt, ta, nb / 1e6))
        os.remove(os.path.join(a.out, "log_%d.h5" % P))
        say("storage of the final file, B/pt: " + storage_breakdown(final, P))
        if P == 20000 and not a.only_c:
            r2 = strategy_c(os.path.join(a.out, "log_%d.h5" % P), None, plan, synth, P, order, flush_every=256)
            say("(c) log flushed every 256 points instead of every point: append %.0f us/pt, calls/pt %s" % (
                1e6 * r2["append_s_per_point"], {k: round(v, 3) for k, v in r2["calls_per_point"].items()}))
            os.remove(os.path.join(a.out, "log_%d.h5" % P))
        if a.only_c:
            continue
        # (b) whole blocks as they fill
        if P <= 20000:
            path = os.path.join(a.out, "b_%d.h5" % P)
            tpp, calls, peak, peakb = strategy_b(path, plan, synth, P, order, BLOCK)
            say("(b) %d-point blocks: %.0f us/pt, calls/pt %s, %.0f B/pt" % (
                BLOCK, 1e6 * tpp, {k: round(v, 3) for k, v in calls.items()}, os.path.getsize(path) / P))
            os.remove(path)
        jitter = np.argsort(np.arange(P) + np.random.default_rng(7).uniform(0, 64, P))
        for name, ordr in (("random", order), ("in order +-64", jitter)):
            done = np.zeros(P // BLOCK + 1, int)
            held = peak = 0
            for p in ordr:
                k = p // BLOCK
                done[k] += 1
                held += 1
                peak = max(peak, held)
                if done[k] == min(BLOCK, P - k * BLOCK):
                    held -= done[k]
            say("(b) %s completion: at most %d of %d points held (%.0f MB at %d B a padded point)" % (
                name, peak, P, peak * (plan.NF + plan.NU) * 8 / 1e6, (plan.NF + plan.NU) * 8))
        # (a) point-by-point writes into the chunked final datasets (a sample: it is slow)
        if P <= 20000:
            for pol, lim in (("auto", 200), ("256", 40)) if P <= 1000 else (("auto", 200),):
                path = os.path.join(a.out, "a_%d_%s.h5" % (P, pol))
                tpp, calls, n = strategy_a(path, plan, synth, P, order, limit=lim, policy=pol)
                say("(a) chunks %s: %.0f us/pt over %d points in random order, calls/pt %s" % (
                    pol, 1e6 * tpp, n, {k: round(v, 1) for k, v in calls.items()}))
                os.remove(path)
    if a.checks:
        say("\n=== checks ===")
        identity(plan, a.out, say)
        synth = Synth(plan, 1000)
        ref = os.path.join(a.out, "check_1000.h5")
        write_direct(ref, plan, synth, 1000)
        say("xarray %s / h5netcdf on %s:" % (__import__("xarray").__version__, ref))
        xarray_check(ref, rep)
        print("\n".join(rep[-9:]))
        for x in ncdump_head(ref, 60):
            say(x)
        fletcher_test(plan, synth, a.out, rep)
        print("\n".join(rep[-3:]))
    with open(os.path.join(a.out, "report_%s%s.txt" % (a.points.replace(",", "_"), "_c" if a.only_c else "")), "w") as fh:
        fh.write("\n".join(rep) + "\n")


if __name__ == "__main__":
    main()
