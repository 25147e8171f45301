#!/usr/bin/env python3
"""Check that a storq results file follows HDF5 schema version 1.x (docs/hdf5-schema.md), or 2.0
(docs/hdf5-schema-2.md).

usage: check_h5_schema.py FILE.h5
       check_h5_schema.py FILE.h5 --against SRC.h5   (FILE a 2.0 file converted from SRC, 1.x)

A 2.0 file: the tree and types, every dataset's `dims` and its dimension scales attached,
padding (NaN / 0 beyond each row's extent, and in the rows that lack a quantity), the has_
columns, both row checksums recomputed and every attribute checksum. With --against, every value
of every complete point of SRC (every dataset, cut to the row's extent; bin_edges through the
layout; every attribute, NaN equal to NaN) must be the 2.0 file's, and nothing else there.

Works on any storq file, 1.0, 1.1 or 1.2. A finished file must hold a complete group for every point
of its index, or, for a job-array task's file (task_index, task_count), for exactly the points p
with p % task_count == task_index; a FILE.partial may lack some (or hold interrupted ones), and may
hold checkpoints (/checkpoints, 1.2) of its unfinished points, whose layout is checked too; a
finished file holds none. The run's record of its units (/run/units, /run/sessions and /run's
attributes; /run/ranks and the columns of CPU time since they were added), optional in any 1.x
file, is checked when present. Prints every violation and exits 1
when there is any, else prints a one-line summary and exits 0."""
import re
import struct
import sys
import zlib

import h5py
import numpy as np
import pandas as pd

ROOT_STRINGS = ["format", "storq_version", "git_commit", "command_line", "created", "hostname",
                "model"]
ROOT_INTS = ["mpi_ranks", "omp_threads", "seed", "replications"]
POINT_ATTRS = {"model", "status", "replications", "wall_seconds", "events"}
KINDS = {"scalar", "vector", "histogram"}
UNIT_FIELDS = {"session": "<u4", "point": "<u8", "rep": "<i8", "rank": "<i4", "thread": "<i4",
               "start": "<f8", "end": "<f8", "events": "<u8", "cost": "<f8"}
SESSION_FIELDS = {"session": "<u4", "workers": "<i8", "units": "<u8", "wall_seconds": "<f8",
                  "busy_seconds": "<f8", "parallel_efficiency": "<f8"}
RUN_RECORD_ATTRS = {"workers": "i", "wall_seconds": "f", "busy_seconds": "f",
                    "parallel_efficiency": "f", "sessions": "u"}
# Added with CPU time: a record has all of them (and /run/ranks) or none (written before).
CPU_UNIT_FIELDS = {"cpu_seconds": "<f8"}
CPU_SESSION_FIELDS = {"unit_seconds": "<f8", "waiting_seconds": "<f8", "idle_seconds": "<f8",
                      "serving_seconds": "<f8"}
RANK_FIELDS = {"session": "<u4", "rank": "<i4", "threads": "<i4", "simulating_seconds": "<f8",
               "in_units_seconds": "<f8", "waiting_seconds": "<f8", "idle_seconds": "<f8",
               "serving_seconds": "<f8"}
CPU_RUN_ATTRS = {k: "f" for k in CPU_SESSION_FIELDS}


class Checker:
    def __init__(self, path):
        self.path = path
        self.problems = []
        self.version = (1, 0)  # format_version, once read
        self.task = (0, 1)     # task_index, task_count; (0, 1) for the whole run
        self.checkpoints = 0   # valid checkpoints of a partial file (1.2)
        self.units = None      # (rows, sessions) of the run's record, when the file has one

    def fail(self, where, what):
        self.problems.append(f"{where}: {what}")

    def expect(self, cond, where, what):
        if not cond:
            self.fail(where, what)
        return cond

    # ---- value helpers ----

    @staticmethod
    def is_string(value):
        return isinstance(value, (str, bytes, np.bytes_))

    @staticmethod
    def text(value):
        return value.decode() if isinstance(value, (bytes, np.bytes_)) else value

    def string_attr(self, obj, name, where):
        if not self.expect(name in obj.attrs, where, f"missing attribute '{name}'"):
            return None
        value = obj.attrs[name]
        if not self.expect(self.is_string(value), where, f"attribute '{name}' is not a string"):
            return None
        return self.text(value)

    def number_attr(self, obj, name, where, kind="iuf"):
        if not self.expect(name in obj.attrs, where, f"missing attribute '{name}'"):
            return None
        value = np.asarray(obj.attrs[name])
        if not self.expect(value.shape == () and value.dtype.kind in kind, where,
                           f"attribute '{name}' is {value.dtype} {value.shape}, expected a scalar "
                           f"of kind {kind}"):
            return None
        return value.item()

    def dataset(self, group, name, where, shape=None, kind="f"):
        if not self.expect(name in group and isinstance(group[name], h5py.Dataset), where,
                           f"missing dataset '{name}'"):
            return None
        d = group[name]
        if shape is not None:
            self.expect(d.shape == tuple(shape), where,
                        f"dataset '{name}' has shape {d.shape}, expected {tuple(shape)}")
        self.expect(d.dtype.kind in kind, where,
                    f"dataset '{name}' has type {d.dtype}, expected kind {kind}")
        return np.asarray(d[()])

    # ---- root and index ----

    def check_root(self, f):
        for name in ROOT_STRINGS:
            self.string_attr(f, name, "/")
        for name in ROOT_INTS:
            self.number_attr(f, name, "/", kind="iu")
        if self.text(f.attrs.get("format", "")) != "storq":
            self.fail("/", "format is not 'storq'")
        version = np.asarray(f.attrs.get("format_version", []))
        if self.expect(version.shape == (2,) and version.dtype.kind in "iu", "/",
                       f"format_version is {version!r}, expected two integers"):
            self.expect(version[0] == 1, "/", f"format_version {version} is not 1.x")
            self.version = (int(version[0]), int(version[1]))
        for name in ("seed", "replications"):
            if name in f.attrs:
                self.expect(np.asarray(f.attrs[name]).dtype == np.uint64, "/",
                            f"{name} is {np.asarray(f.attrs[name]).dtype}, expected uint64")
        created = self.text(f.attrs.get("created", ""))
        self.expect(isinstance(created, str) and
                    re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", created), "/",
                    f"created '{created}' is not ISO 8601 UTC")
        if self.expect("run/config" in f and isinstance(f["run/config"], h5py.Dataset), "/run",
                       "missing dataset 'config'"):
            config = f["run/config"]
            self.expect(config.shape == () and config.dtype.kind in "OS", "/run/config",
                        "not a scalar string")

    def check_task(self, f):
        """Schema 1.1: a job-array task's file says which share of the points it holds. Returns
        (index, count); (0, 1) for the whole run (no task attributes, or a count of 1)."""
        present = [name for name in ("task_index", "task_count") if name in f.attrs]
        if not present:
            return 0, 1
        if not self.expect(len(present) == 2, "/", f"{present[0]} without its partner"):
            return 0, 1
        for name in present:
            self.expect(np.asarray(f.attrs[name]).dtype == np.uint64, "/", f"{name} is not uint64")
        index = self.number_attr(f, "task_index", "/", kind="u")
        count = self.number_attr(f, "task_count", "/", kind="u")
        if index is None or count is None:
            return 0, 1
        if not self.expect(count >= 1 and index < count, "/",
                           f"task_index {index} is not below task_count {count}"):
            return 0, 1
        if count > 1:
            self.expect(self.version >= (1, 1), "/",
                        "task attributes in a file that says format_version 1.0")
        return index, count

    def check_index(self, f):
        where = "/points/index"
        if not self.expect(where in f, "/points", "missing dataset 'index'"):
            return None
        dset = f[where]
        names = dset.dtype.names
        if not self.expect(names is not None and names[0] == "point", where,
                           "not a compound table starting with field 'point'"):
            return None
        self.expect(dset.ndim == 1, where, f"has {dset.ndim} dimensions, expected 1")
        self.expect(dset.dtype["point"] == np.uint64, where, "field 'point' is not uint64")
        for name in names[1:]:
            t = dset.dtype[name]
            self.expect(t in (np.int64, np.float64) or t.kind == "S", where,
                        f"field '{name}' is {t}, expected int64, float64 or a fixed string")
        units = np.asarray(dset.attrs.get("units", []))
        self.expect(units.shape == (len(names),), where,
                    f"units attribute has shape {units.shape}, expected ({len(names)},)")
        index = pd.DataFrame(dset[()])
        self.expect(list(index.columns) == list(names), where, "pandas columns differ from fields")
        self.expect(list(index["point"]) == list(range(len(index))), where,
                    "point ids are not 0 .. N-1 in order")
        return index

    # ---- one point ----

    def check_point(self, f, pid, row, index_names):
        where = f"/points/{pid:06d}"
        g = f[where]
        model = self.string_attr(g, "model", where)
        self.expect(model == self.text(f.attrs.get("model")), where,
                    f"model '{model}' differs from the root's")
        status = self.string_attr(g, "status", where)
        if status != "complete":
            return False
        reps = self.number_attr(g, "replications", where, kind="u")
        self.expect(reps == f.attrs.get("replications"), where,
                    f"replications {reps} differ from the root's")
        self.number_attr(g, "wall_seconds", where, kind="f")
        self.number_attr(g, "events", where, kind="u")
        for name in index_names:
            if not self.expect(name in g.attrs, where, f"missing parameter attribute '{name}'"):
                continue
            value, expected = g.attrs[name], row[name]
            if isinstance(expected, (bytes, np.bytes_)):
                self.expect(self.text(value) == self.text(expected), where,
                            f"parameter '{name}' = {value!r}, index says {expected!r}")
            else:
                self.expect(np.asarray(value).dtype == np.asarray(expected).dtype and
                            value == expected, where,
                            f"parameter '{name}' = {value!r}, index says {expected!r}")
        for sub in ("observables", "replications", "theory", "comparison"):
            self.expect(sub in g, where, f"missing group '{sub}'")
        if "observables" in g and "replications" in g:
            for name in g["observables"]:
                self.check_observable(g, name, reps or 0)
            extra = set(g["replications"]) - set(g["observables"])
            self.expect(not extra, where + "/replications", f"no observable for {sorted(extra)}")
        for sub in ("theory", "comparison"):
            if sub in g:
                for name, d in g[sub].items():
                    self.check_array(d, f"{where}/{sub}/{name}")
        self.check_checksums(g)
        return True

    # ---- checksums (io/h5_checksum.c, recomputed independently) ----

    @staticmethod
    def value_crc(crc, dtype, shape, value):
        """Feed one value: class, rank, dims (uint64 LE), then the elements."""
        is_str = h5py.check_string_dtype(dtype) is not None or dtype.kind == "S"
        cls = "s" if is_str else {"f": "f", "i": "i", "u": "u"}.get(dtype.kind)
        if cls is None:
            return None
        crc = zlib.crc32(cls.encode() + bytes([len(shape)]) +
                         b"".join(struct.pack("<Q", d) for d in shape), crc)
        if is_str:
            for e in np.asarray(value, dtype=object).ravel():
                b = e.encode() if isinstance(e, str) else bytes(e)
                crc = zlib.crc32(b.split(b"\0")[0] + b"\0", crc)
            return crc
        wide = {"f": "<f8", "i": "<i8", "u": "<u8"}[cls]
        return zlib.crc32(np.asarray(value).astype(wide).tobytes(), crc)

    def object_crc(self, obj):
        crc = 0
        for name in sorted(obj.attrs.keys(), key=lambda k: k.encode()):
            if name in ("crc32", "status"):
                continue
            aid = obj.attrs.get_id(name)
            crc = self.value_crc(zlib.crc32(name.encode() + b"\0", crc), aid.dtype, aid.shape,
                                 obj.attrs[name])
            if crc is None:
                return None
        if isinstance(obj, h5py.Dataset):
            crc = self.value_crc(zlib.crc32(b"\0", crc), obj.dtype, obj.shape, obj[()])
        return crc

    def check_links(self, f):
        """Schema 1.3: the only soft links are histograms' bin_edges to /layouts/NAME, each a
        float64 (nbins + 1,) dataset of increasing edges with its checksum."""
        def visit(name, obj):
            if not isinstance(obj, h5py.Group):
                return
            for key in obj:
                link = obj.get(key, getlink=True)
                where = f"{obj.name.rstrip('/')}/{key}"
                if isinstance(link, h5py.ExternalLink):
                    self.fail(where, "is an external link")
                elif isinstance(link, h5py.SoftLink):
                    target = link.path
                    ok = (key == "bin_edges" and target.startswith("/layouts/") and
                          "/" not in target[len("/layouts/"):] and target in f and
                          isinstance(f[target], h5py.Dataset))
                    self.expect(ok, where, f"soft link to '{target}': storq writes only "
                                "bin_edges -> /layouts/NAME (an existing dataset)")
        visit("/", f)
        f.visititems(visit)
        if "layouts" not in f:
            return
        self.expect(self.version >= (1, 3), "/layouts",
                    f"in a file that says format_version {self.version[0]}.{self.version[1]}")
        for name, d in f["layouts"].items():
            where = f"/layouts/{name}"
            if not self.expect(isinstance(d, h5py.Dataset) and d.dtype == np.float64 and
                               d.ndim == 1, where, "not a 1-D float64 dataset"):
                continue
            self.expect(np.all(np.diff(d[()]) > 0), where, "edges are not increasing")
            if self.expect("crc32" in d.attrs, where, "no checksum (crc32)"):
                self.expect(self.object_crc(d) == int(np.asarray(d.attrs["crc32"])), where,
                            "crc32 does not match its data")

    def check_checksums(self, point):
        """Every object of a point with a checksum has one, and it matches its contents."""
        if "crc32" not in point.attrs:
            return
        objects = []

        def collect(obj):  # every member, following the soft links into /layouts (1.3)
            objects.append(obj)
            if isinstance(obj, h5py.Group):
                for name in obj:
                    collect(obj[name])
        collect(point)
        for obj in objects:
            if not self.expect("crc32" in obj.attrs, obj.name, "no checksum (crc32)"):
                continue
            stored = np.asarray(obj.attrs["crc32"])
            self.expect(stored.dtype == np.uint32 and stored.shape == (), obj.name,
                        f"crc32 is {stored.dtype} {stored.shape}, expected a uint32 scalar")
            now = self.object_crc(obj)
            self.expect(now == int(stored), obj.name,
                        f"crc32 {int(stored):08x} stored, {now if now is None else format(now, '08x')} "
                        "computed: the data or attributes changed")

    def check_observable(self, point, name, reps):
        where = f"{point.name}/observables/{name}"
        g = point["observables"][name]
        kind = self.string_attr(g, "kind", where)
        self.string_attr(g, "unit", where)
        self.string_attr(g, "description", where)
        if not self.expect(kind in KINDS, where, f"kind '{kind}' is not one of {sorted(KINDS)}"):
            return
        rep_where = f"{point.name}/replications/{name}"
        if not self.expect(name in point["replications"], rep_where, "missing"):
            return
        values = np.asarray(point["replications"][name][()])
        if kind == "histogram":
            self.check_histogram(g, where)
            self.expect(values.shape == (reps,), rep_where,
                        f"shape {values.shape}, expected ({reps},)")
            if values.shape == (reps,) and "sum" in g:
                self.expect(np.isclose(values.sum(), g["sum"][()], rtol=1e-9, atol=0), rep_where,
                            "per-replication sums do not add up to the histogram's sum")
            return
        shape = () if kind == "scalar" else None
        mean = self.dataset(g, "mean", where, shape=shape)
        if mean is None:
            return
        if kind == "vector":
            self.expect(mean.ndim in (1, 2), where, f"mean has {mean.ndim} dimensions")
        for stat in ("stderr", "ci95"):
            v = self.dataset(g, stat, where, shape=mean.shape)
            if v is not None and v.shape == mean.shape:
                self.expect(np.all(np.isnan(v) | (v >= 0)), where, f"{stat} has negative values")
        if kind == "vector" and "axis" in g:
            axis = self.dataset(g, "axis", where, shape=mean.shape[:1])
            self.string_attr(g["axis"], "name", where + "/axis")
            if axis is not None:
                self.expect(axis.shape == mean.shape[:1], where, "axis length != rows")
        expected = (reps,) + mean.shape
        if self.expect(values.shape == expected, rep_where,
                       f"shape {values.shape}, expected {expected}") and reps > 0:
            self.expect(np.allclose(values.mean(axis=0), mean, rtol=1e-9, atol=1e-12,
                                    equal_nan=True), where,
                        "mean is not the mean of the replications")

    def check_histogram(self, g, where):
        hkind = self.string_attr(g, "histogram_kind", where)
        self.expect(hkind in ("log-linear", "integer"), where, f"histogram_kind '{hkind}'")
        counts = self.dataset(g, "counts", where, kind="u")
        if counts is None or counts.ndim != 1:
            self.fail(where, "counts is not a 1-D uint64 array")
            return
        link = g.get("bin_edges", getlink=True)
        if isinstance(link, h5py.SoftLink):
            self.expect(self.version >= (1, 3), where,
                        "bin_edges is a link to /layouts in a file that says format_version "
                        f"{self.version[0]}.{self.version[1]}")
        edges = self.dataset(g, "bin_edges", where, shape=(len(counts) + 1,))
        scalars = {}
        for name in ("underflow", "overflow", "count"):
            scalars[name] = self.dataset(g, name, where, shape=(), kind="u")
        for name in ("sum", "min", "max", "mean"):
            scalars[name] = self.dataset(g, name, where, shape=())
        if any(v is None for v in scalars.values()) or edges is None:
            return
        under, over, count = (int(scalars[k]) for k in ("underflow", "overflow", "count"))
        self.expect(int(counts.sum()) + under + over == count, where,
                    f"counts + underflow + overflow = {int(counts.sum()) + under + over}, "
                    f"count = {count}")
        if edges.shape == (len(counts) + 1,):
            self.expect(np.all(np.diff(edges) > 0), where, "bin_edges are not increasing")
            if hkind == "log-linear":
                res = self.number_attr(g, "relative_resolution", where, kind="f")
                if res is not None:
                    widths = np.diff(edges)
                    self.expect(np.all(widths <= res * edges[:-1] * (1 + 1e-12)), where,
                                "a bin is wider than relative_resolution times its lower edge")
            elif hkind == "integer":
                self.expect(np.array_equal(edges, np.arange(len(edges))), where,
                            "integer bin edges are not 0, 1, ..., nbins")
        lo, hi = float(scalars["min"]), float(scalars["max"])
        if count > 0:
            self.expect(np.isclose(scalars["mean"], scalars["sum"] / count, rtol=1e-12), where,
                        "mean != sum / count")
            self.expect(lo <= hi, where, f"min {lo} > max {hi}")
            if under == 0:
                self.expect(lo >= edges[0], where, "min below the first edge but no underflow")
            if over == 0:
                self.expect(hi < edges[-1], where, "max at or above the last edge but no overflow")

    def check_array(self, d, where):
        if not self.expect(isinstance(d, h5py.Dataset), where, "not a dataset"):
            return
        self.expect(d.dtype == np.float64 and d.ndim == 1, where,
                    f"is {d.dtype} with shape {d.shape}, expected 1-D float64")
        for name in ("unit", "description", "grid"):
            self.string_attr(d, name, where)

    # ---- checkpoints (1.2) ----

    def check_checkpoints(self, f, nindex, expected, partial):
        """/checkpoints/NNNNNN of a partial file: the replications of an unfinished point that are
        in. Temporaries (NNNNNN.new) and groups without status "complete" are what a write cut
        short leaves; --resume ignores and removes them. Returns the number of checkpoints."""
        if "checkpoints" not in f:
            return 0
        where = "/checkpoints"
        group = f["checkpoints"]
        if not self.expect(isinstance(group, h5py.Group), where, "not a group"):
            return 0
        self.expect(partial, where, "checkpoints in a finished file")
        self.expect(self.version >= (1, 2), where,
                    f"checkpoints in a file that says format_version "
                    f"{self.version[0]}.{self.version[1]}")
        self.expect(len(group) > 0, where, "an empty group (it goes with its last checkpoint)")
        count = 0
        for key in group:
            if re.fullmatch(r"\d{6,}\.new", key):
                continue
            if not self.expect(re.fullmatch(r"\d{6,}", key), where, f"unexpected member '{key}'"):
                continue
            pid = int(key)
            self.expect(pid < nindex, f"{where}/{key}", f"point {pid} not in the index")
            self.expect(pid in expected, f"{where}/{key}",
                        f"point {pid} is not in this file's share of the points")
            g = group[key]
            if self.text(g.attrs.get("status", "")) == "complete":
                self.check_checkpoint(f, g, f"{where}/{key}")
                count += 1
        return count

    def check_checkpoint(self, f, g, where):
        reps = int(f.attrs.get("replications", 0))
        done = self.dataset(g, "done", where, shape=(reps,), kind="u")
        if done is not None:
            self.expect(g["done"].dtype == np.uint8, where, "done is not uint8")
            self.expect(np.all((done == 0) | (done == 1)), where, "done holds values not 0 or 1")
        values = self.dataset(g, "values", where)
        if values is not None:
            self.expect(g["values"].dtype == np.float64 and values.ndim == 2 and
                        values.shape[0] == reps, where,
                        f"values is {g['values'].dtype} {values.shape}, expected float64 "
                        f"({reps}, nvalues)")
        counts = self.dataset(g, "counts", where, kind="u")
        if counts is not None:
            self.expect(g["counts"].dtype == np.uint64 and counts.ndim == 1, where,
                        "counts is not a 1-D uint64 array")
        minmax = self.dataset(g, "minmax", where)
        if minmax is not None and self.expect(minmax.ndim == 1 and len(minmax) % 2 == 0, where,
                                              f"minmax has shape {minmax.shape}, expected (2k,)"):
            lo, hi = minmax[0::2], minmax[1::2]
            empty = np.isposinf(lo) & np.isneginf(hi)
            self.expect(np.all(empty | (lo <= hi)), where, "a min above its max")
        inn = self.number_attr(g, "replications_in", where, kind="u")
        self.number_attr(g, "events", where, kind="u")
        self.number_attr(g, "worker_seconds", where, kind="f")
        if done is not None and done.shape == (reps,):
            self.expect(inn == int(done.sum()), where,
                        f"replications_in {inn}, but done marks {int(done.sum())}")
            if values is not None and values.ndim == 2 and values.shape[0] == reps:
                self.expect(not np.any(values[done == 0]), where,
                            "rows of replications not in are not zeros")

    # ---- the run's record of its units (any 1.x) ----

    def table(self, f, name, fields):
        """A 1-D, chunked, extendable compound table with these fields (file types), as a
        structured array; None when it is not one."""
        where = f"/run/{name}"
        d = f["run"][name]
        if not self.expect(isinstance(d, h5py.Dataset) and d.dtype.names is not None, where,
                           "not a compound table"):
            return None
        have = {k: d.dtype[k].str for k in d.dtype.names}
        for k, t in fields.items():
            self.expect(have.get(k) == t, where, f"field '{k}' is {have.get(k)}, expected {t}")
        self.expect(d.ndim == 1 and d.maxshape == (None,) and d.chunks is not None, where,
                    f"shape {d.shape}, maxshape {d.maxshape}, chunks {d.chunks}: expected a 1-D "
                    f"chunked table of unlimited length")
        return d[()] if set(fields) <= set(have) and d.ndim == 1 else None

    def check_units(self, f, nindex, partial):
        """/run/units, /run/sessions (and, since CPU time is recorded, /run/ranks): the rows of
        every session and one summary row per session; /run's attributes repeat the last
        summary. A table that storq merge copied from one task's file (it carries that task) may
        sit in a whole run's file."""
        run = f.get("run")
        present = [k for k in ("units", "sessions") if k in run]
        attrs = [k for k in RUN_RECORD_ATTRS if k in run.attrs]
        if not present and not attrs and "ranks" not in run:
            return
        if partial and present == ["units"] and not attrs and "ranks" not in run:
            # the first session, stopped outright after rank 0 wrote a block of its rows
            units = self.table(f, "units", {**UNIT_FIELDS, **CPU_UNIT_FIELDS})
            if units is not None:
                self.units = (len(units), 0)
                self.check_unit_rows(f, units, nindex)
            return
        if not self.expect(len(present) == 2 and len(attrs) == len(RUN_RECORD_ATTRS), "/run",
                           f"a partial run record: tables {present}, attributes {sorted(attrs)}"):
            return
        cpu = "cpu_seconds" in (f["run/units"].dtype.names or ())
        layout = {"/run/units cpu_seconds": cpu,
                  "/run/sessions unit_seconds": "unit_seconds" in
                  (f["run/sessions"].dtype.names or ()),
                  "/run/ranks": "ranks" in run,
                  "/run's attributes from unit_seconds on": all(k in run.attrs
                                                                for k in CPU_RUN_ATTRS)}
        if not self.expect(len(set(layout.values())) == 1, "/run", "a record partly with CPU "
                           f"time: {', '.join(k for k, v in layout.items() if v)} but not "
                           f"{', '.join(k for k, v in layout.items() if not v)}"):
            return
        units = self.table(f, "units", {**UNIT_FIELDS, **(CPU_UNIT_FIELDS if cpu else {})})
        sessions = self.table(f, "sessions",
                              {**SESSION_FIELDS, **(CPU_SESSION_FIELDS if cpu else {})})
        ranks = self.table(f, "ranks", RANK_FIELDS) if cpu else None
        if units is None or sessions is None or (cpu and ranks is None):
            return
        self.units = (len(units), len(sessions))
        if not self.check_unit_rows(f, units, nindex):
            return
        s, where = sessions, "/run/sessions"
        if not self.expect(len(s) > 0, where, "no session"):
            return
        self.expect(np.all(np.diff(s["session"].astype(np.int64)) > 0), where,
                    "sessions not in increasing order")
        self.expect(np.all(s["workers"] >= 1), where, "a session without workers")
        known = set(s["session"].tolist())
        orphans = sorted(set(units["session"].tolist()) - known)
        # Rank 0 writes a session's rows a block at a time as its units run, and its summary at
        # its end: a session stopped outright (or while writing its record) leaves rows without
        # a summary. A finished file's last session ended, so only earlier ones can be such.
        self.expect(partial or not orphans or max(orphans) < s["session"][-1], "/run/units",
                    f"rows of sessions {orphans} after the last session of /run/sessions")
        if cpu:
            self.check_ranks(ranks, known, partial)
        for row in s:
            self.check_session(row, units, ranks, cpu)
        last = s[-1]
        # An older storq that appends a session leaves the attributes it does not know as they
        # were: they are the last session's only when it recorded CPU time.
        fresh = cpu and np.isfinite(last["unit_seconds"])
        for k, kind in {**RUN_RECORD_ATTRS, **(CPU_RUN_ATTRS if fresh else {})}.items():
            value = np.asarray(run.attrs[k])
            if not self.expect(value.shape == () and value.dtype.kind == kind, "/run",
                               f"attribute '{k}' is {value.dtype} {value.shape}"):
                continue
            want = len(s) if k == "sessions" else last[k]
            self.expect(value == want or (np.isnan(value) and np.isnan(want)), "/run",
                        f"attribute '{k}' = {value}, the last session's is {want}")

    def check_unit_rows(self, f, u, nindex):
        """The rows of /run/units: points of the file's share, reps, ranks, times."""
        d = f["run/units"]
        own_index, own_count = self.task
        index, count = own_index, own_count
        if "task_count" in d.attrs:
            index = self.number_attr(d, "task_index", "/run/units", kind="u")
            count = self.number_attr(d, "task_count", "/run/units", kind="u")
            if index is None or count is None:
                return False
            self.expect(own_count == 1 or (index, count) == (own_index, own_count), "/run/units",
                        f"the table of task {index}/{count} in the file of task "
                        f"{own_index}/{own_count}")
        reps = int(f.attrs.get("replications", 0))
        where = "/run/units"
        self.expect(np.all(u["point"] < nindex), where, "a point not in the index")
        self.expect(np.all(u["point"] % max(count, 1) == index), where,
                    f"a point outside the share of task {index}/{count}")
        self.expect(np.all((u["rep"] >= -1) & (u["rep"] < reps)), where,
                    f"a rep outside -1 .. {reps - 1}")
        self.expect(np.all((u["rank"] >= 0) & (u["thread"] >= 0)), where, "a negative rank/thread")
        self.expect(np.all(u["end"] >= u["start"]), where, "a unit that ends before it starts")
        if "cpu_seconds" in u.dtype.names:  # NaN: not measured
            self.expect(not np.any(u["cpu_seconds"] < 0), where, "a negative cpu_seconds")
        theory = u["rep"] == -1
        self.expect(np.all(u["events"][theory] == 0) and np.all(u["cost"][theory] == 0), where,
                    "a theory unit with events or a cost")
        return True

    def check_ranks(self, r, sessions, partial):
        """/run/ranks: one row per rank of a session, finite figures."""
        where = "/run/ranks"
        self.expect(np.all((r["rank"] >= 0) & (r["threads"] >= 0)), where,
                    "a negative rank or thread count")
        figures = [k for k in RANK_FIELDS if k.endswith("_seconds")]
        self.expect(all(np.all(np.isfinite(r[k])) for k in figures), where,
                    "a figure that is not a number of seconds")
        pairs = list(zip(r["session"].tolist(), r["rank"].tolist()))
        self.expect(len(pairs) == len(set(pairs)), where, "a rank twice in one session")
        orphans = sorted(set(r["session"].tolist()) - sessions)
        self.expect(partial or not orphans, where, f"rows of sessions {orphans} that "
                    f"/run/sessions lacks")

    def check_session(self, row, units, ranks, cpu):
        """One row of /run/sessions against its units' and ranks' rows. A session recorded
        before CPU time (unit_seconds NaN, or no such column) counted busy as the time in units,
        and has no ranks; one after, the units' CPU time."""
        at = f"/run/sessions session {row['session']}"
        mine = units[units["session"] == row["session"]]
        self.expect(len(mine) == row["units"], at,
                    f"units {row['units']}, but /run/units has {len(mine)} rows of it")
        in_units = float(np.sum(mine["end"] - mine["start"]))
        its = ranks[ranks["session"] == row["session"]] if cpu else []
        if cpu and np.isfinite(row["unit_seconds"]):
            busy, of = float(np.sum(mine["cpu_seconds"])), "cpu_seconds"
            self.expect(np.isclose(row["unit_seconds"], in_units, rtol=1e-9, atol=1e-12), at,
                        f"unit_seconds {row['unit_seconds']}, its rows' end - start add up to "
                        f"{in_units}")
            for k in ("waiting_seconds", "idle_seconds", "serving_seconds"):
                want = float(np.sum(its[k])) if len(its) else np.nan
                self.expect(np.isclose(row[k], want, rtol=1e-9, atol=1e-12, equal_nan=True), at,
                            f"{k} {row[k]}, its ranks add up to {want}")
        else:
            busy, of = in_units, "end - start"
            self.expect(len(its) == 0, at, "ranks of a session recorded before CPU time")
            if cpu:
                self.expect(all(np.isnan(row[k]) for k in CPU_SESSION_FIELDS) and
                            np.all(np.isnan(mine["cpu_seconds"])), at,
                            "a session without unit_seconds, with other figures of CPU time")
        self.expect(np.isclose(row["busy_seconds"], busy, rtol=1e-9, atol=1e-12, equal_nan=True),
                    at, f"busy_seconds {row['busy_seconds']}, its rows' {of} add up to {busy}")
        cap = row["workers"] * row["wall_seconds"]
        eff = row["parallel_efficiency"]
        self.expect(np.isnan(eff) if cap <= 0 or np.isnan(row["busy_seconds"]) else
                    np.isclose(eff, row["busy_seconds"] / cap, rtol=1e-12), at,
                    f"parallel_efficiency {eff} is not busy / (workers x wall)")

    # ---- the file ----

    def run(self):
        partial = self.path.endswith(".partial")
        with h5py.File(self.path, "r") as f:
            self.check_root(f)
            self.check_links(f)
            if not self.expect("points" in f, "/", "missing group 'points'"):
                return 0, 0
            index = self.check_index(f)
            if index is None:
                return 0, 0
            names = [n for n in index.columns if n != "point"]
            self.task = task_index, task_count = self.check_task(f)
            expected = {p for p in range(len(index)) if p % task_count == task_index}
            complete = 0
            for key in f["points"]:
                if key == "index":
                    continue
                if not self.expect(key.isdigit() and len(key) >= 6, "/points",
                                   f"unexpected member '{key}'"):
                    continue
                pid = int(key)
                if not self.expect(pid < len(index), "/points", f"point {pid} not in the index"):
                    continue
                self.expect(pid in expected, f"/points/{key}",
                            f"point {pid} in the file of task {task_index}/{task_count}")
                # The row as stored: a pandas row of integer columns alone turns into floats.
                if self.check_point(f, pid, f["points/index"][pid], names):
                    complete += 1
                elif not partial:
                    self.fail(f"/points/{key}", "incomplete point in a finished file")
            if not partial:
                self.expect(complete == len(expected), "/points",
                            f"{complete} complete points, expected {len(expected)} (index has "
                            f"{len(index)}, task {task_index}/{task_count})")
            self.checkpoints = self.check_checkpoints(f, len(index), expected, partial)
            if "run" in f:
                self.check_units(f, len(index), partial)
            return complete, len(index)


# ------------------------------------------------------------------------------ schema 2.0
NOT_A_VARIABLE = "This is a netCDF dimension but not a netCDF variable."
DS_ATTRS = {"CLASS", "NAME", "DIMENSION_LIST", "REFERENCE_LIST", "_Netcdf4Dimid",
            "_Netcdf4Coordinates"}
GROUPS2 = ("observables", "replications", "theory", "comparison")
HIST_U = ("underflow", "overflow", "count")
HIST_F = ("sum", "min", "max", "mean")
WIDE = {"f": "<f8", "i": "<i8", "u": "<u8"}


def raw(e):
    return e.encode("utf-8", "surrogateescape") if isinstance(e, str) else bytes(e)


class Checker2(Checker):
    """The rules of docs/hdf5-schema-2.md on a 2.0 file, and with --against, every value against
    the 1.x file it was converted from."""

    def __init__(self, path, against=None):
        super().__init__(path)
        self.against = against

    def attrs_crc(self, obj):
        crc = 0
        for name in sorted(obj.attrs.keys(), key=raw):
            if name in ("crc32", "covers") or name in DS_ATTRS:
                continue
            aid = obj.attrs.get_id(name)
            crc = self.value_crc(zlib.crc32(raw(name) + b"\0", crc), aid.dtype, aid.shape,
                                 obj.attrs[name])
            if crc is None:
                return None
        return crc

    def at(self, value, row):
        """A quantity's attribute at a row (an array of shape (P,) holds one value a row)."""
        if isinstance(value, np.ndarray) and value.ndim == 1 and self.P >= 2 and \
                len(value) == self.P:
            value = value[row]
        return self.text(value.item() if isinstance(value, np.generic) and
                         value.dtype.kind != "S" else value)

    def extent(self, f, d, row):
        dims = [self.text(x) for x in d.attrs["dims"]][1:]
        out = []
        for axis, dim in enumerate(dims, start=1):
            if dim == "replication":
                out.append(int(self.cols["replications"][row]))
            elif dim in self.ragged:
                out.append(int(self.cols["n_" + dim][row]))
            else:
                out.append(d.shape[axis])
        return tuple(out)

    def has(self, group, name):
        col = self.cols.get(f"has_{group}_{name}")
        return np.ones(self.P, bool) if col is None else col.astype(bool)

    def run(self):
        with h5py.File(self.path, "r") as f:
            self.check_root2(f)
            if not self.expect("point" in f and "points" in f, "/", "missing /point or /points"):
                return 0, 0
            pids = np.asarray(f["point"][()])
            self.P = P = len(pids)
            self.expect(f["point"].dtype == np.uint64 and f["point"].ndim == 1, "/point",
                        "not a 1-D uint64 dataset")
            self.expect(np.all(np.diff(pids.astype(np.int64)) > 0), "/point",
                        "point ids not increasing")
            self.expect(h5py.h5ds.is_scale(f["point"].id) and self.text(f["point"].attrs.get("NAME", b"")) ==
                        "point", "/point", "not the dimension scale 'point'")
            index = self.check_index(f)
            if index is None:
                return 0, 0
            self.expect(len(index) == 0 or int(pids.max(initial=0)) < len(index), "/point",
                        "a point not in the index")
            self.task = task_index, task_count = self.check_task(f)
            expected = {p for p in range(len(index)) if p % task_count == task_index}
            self.expect(set(pids.tolist()) == expected, "/point",
                        f"{P} rows, expected the {len(expected)} points of the file's share")
            self.check_layouts(f)
            self.check_columns(f, index, pids)
            self.check_quantities(f)
            self.check_datasets(f)
            self.check_row_crcs(f, pids)
            if "run" in f:
                self.check_units(f, len(index), False)
            if self.against:
                self.check_against(f, pids)
            return P, len(index)

    def check_root2(self, f):
        for name in ROOT_STRINGS:
            self.string_attr(f, name, "/")
        for name in ROOT_INTS:
            self.number_attr(f, name, "/", kind="iu")
        self.expect(self.text(f.attrs.get("format", "")) == "storq", "/", "format is not 'storq'")
        version = np.asarray(f.attrs.get("format_version", []))
        if self.expect(version.shape == (2,) and version.dtype == np.int32 and version[0] == 2,
                       "/", f"format_version is {version!r}, expected int32 [2, x]"):
            self.version = (int(version[0]), int(version[1]))
        if "converted_from" in f.attrs:
            c = np.asarray(f.attrs["converted_from"])
            self.expect(c.shape == (2,) and c.dtype == np.int32 and c[0] == 1, "/",
                        f"converted_from is {c!r}, expected int32 [1, x]")
        self.expect("run/config" in f and f["run/config"].shape == (), "/run/config",
                    "missing or not a scalar string")

    def check_layouts(self, f):
        for name, d in (f["layouts"].items() if "layouts" in f else []):
            where = f"/layouts/{name}"
            if self.expect(isinstance(d, h5py.Dataset) and d.dtype == np.float64 and d.ndim == 1,
                           where, "not a 1-D float64 dataset"):
                self.expect(np.all(np.diff(d[()]) > 0), where, "edges are not increasing")
                self.expect("crc32" in d.attrs and self.object_crc(d) ==
                            int(np.asarray(d.attrs["crc32"])), where, "crc32 does not match")

    def check_columns(self, f, index, pids):
        P, pts = self.P, f["points"]
        self.cols = {}
        for name, d in pts.items():
            if name == "index":
                continue
            where = f"/points/{name}"
            if not self.expect(isinstance(d, h5py.Dataset) and d.shape == (P,), where,
                               f"not a dataset of shape ({P},)"):
                continue
            self.cols[name] = d[()]
        want = {"status": np.uint8, "replications": np.uint64, "events": np.uint64,
                "wall_seconds": np.float64, "crc32": np.uint32, "crc32_arrays": np.uint32}
        for name, t in want.items():
            if self.expect(name in self.cols, "/points", f"missing column '{name}'"):
                self.expect(self.cols[name].dtype == t, f"/points/{name}",
                            f"type {self.cols[name].dtype}, expected {np.dtype(t)}")
        self.expect(np.all(self.cols.get("status", np.ones(P)) == 1), "/points/status",
                    "a row that is not a complete point")
        reps = self.cols.get("replications", np.zeros(P))
        self.expect(np.all(reps >= 1), "/points/replications", "a row without replications")
        self.ragged = {k[2:] for k in self.cols if k.startswith("n_")}
        for k, v in self.cols.items():
            if k.startswith("n_"):
                self.expect(v.dtype == np.uint32, f"/points/{k}", "not uint32")
            if k.startswith("has_"):
                self.expect(v.dtype == np.uint8 and np.all(v <= 1), f"/points/{k}",
                            "not uint8 of 0 and 1")
        idx = f["points/index"]
        itype = idx.id.get_type()
        units = [self.text(u) for u in idx.attrs.get("units", [])]
        for i, name in enumerate(idx.dtype.names[1:], start=1):
            where = f"/points/{name}"
            if not self.expect(name in self.cols, "/points", f"missing parameter column "
                               f"'{name}'"):
                continue
            d = pts[name]
            if idx.dtype[name].kind == "S":
                t = d.id.get_type()
                m = itype.get_member_type(i)
                self.expect(isinstance(t, h5py.h5t.TypeStringID) and not t.is_variable_str() and
                            t.get_size() == m.get_size() and t.get_strpad() == h5py.h5t.STR_NULLTERM,
                            where, "not the index field's null-terminated fixed-length string")
                self.expect([raw(x).split(b"\0")[0] for x in self.cols[name].tolist()] ==
                            [raw(x).split(b"\0")[0] for x in idx[()][name][pids].tolist()],
                            where, "values differ from /points/index")
            else:
                self.expect(d.dtype == idx.dtype[name], where,
                            f"type {d.dtype}, the index field's is {idx.dtype[name]}")
                self.expect(np.array_equal(self.cols[name], idx[()][name][pids]), where,
                            "values differ from /points/index")
            self.expect(self.text(d.attrs.get("unit", "")) == (units[i] if i < len(units) else ""),
                        where, "unit differs from /points/index's")

    def check_quantities(self, f):
        P = self.P
        for grp in GROUPS2:
            if not self.expect(grp in f, "/", f"missing group '{grp}'"):
                continue
        for name, g in f["observables"].items():
            where = f"/observables/{name}"
            if not self.expect(isinstance(g, h5py.Group), where, "not a group"):
                continue
            kind = self.text(g.attrs.get("kind", ""))
            kind = kind if isinstance(kind, str) else self.at(kind, 0)
            self.expect(kind in KINDS, where, f"kind '{kind}'")
            has = self.has("observables", name)
            if kind == "scalar":
                for m in ("mean", "stderr", "ci95"):
                    self.dataset(g, m, where, shape=(P,), kind="f")
            elif kind == "vector":
                shape = g["mean"].shape if "mean" in g else None
                for m in ("mean", "stderr", "ci95"):
                    if self.dataset(g, m, where, kind="f") is not None:
                        self.expect(g[m].shape == shape and len(shape) in (2, 3), where,
                                    f"{m} has shape {g[m].shape}")
                if "axis" in g:
                    self.expect(g["axis"].shape == shape[:2], where, "axis not (P, rows)")
            elif kind == "histogram":
                counts = self.dataset(g, "counts", where, kind="u")
                for m in HIST_U:
                    self.dataset(g, m, where, shape=(P,), kind="u")
                for m in HIST_F:
                    self.dataset(g, m, where, shape=(P,), kind="f")
                lay = self.dataset(g, "layout", where, shape=(P,), kind="u")
                names = [self.text(x) for x in np.atleast_1d(g.attrs.get("layouts", []))]
                if counts is not None:
                    self.expect(g["counts"].dtype == np.uint64 and counts.ndim == 2, where,
                                "counts not uint64 (P, bins)")
                if lay is not None and self.expect(g["layout"].dtype == np.uint32, where,
                                                   "layout not uint32"):
                    for row in np.flatnonzero(has):
                        k = int(lay[row])
                        if not self.expect(k < len(names) and f"layouts/{names[k]}" in f, where,
                                           f"row {row}: layout {k} names no /layouts member"):
                            continue
                        n = self.extent(f, g["counts"], row)[0]
                        self.expect(len(f["layouts"][names[k]]) >= n + 1, where,
                                    f"row {row}: its layout has fewer than {n + 1} edges")
            if name in f["replications"]:
                r = f["replications"][name]
                self.expect(r.dtype == np.float64 and r.ndim >= 2, f"/replications/{name}",
                            "not float64 (P, replication, ...)")
        extra = set(f["replications"]) - set(f["observables"])
        self.expect(not extra, "/replications", f"no observable for {sorted(extra)}")
        for grp in ("theory", "comparison"):
            for name, d in f[grp].items():
                self.expect(isinstance(d, h5py.Dataset) and d.dtype == np.float64 and
                            d.ndim in (1, 2) and d.shape[0] == P, f"/{grp}/{name}",
                            "not float64 (P,) or (P, dim)")

    def datasets(self, f):
        out = []
        for top in ("points", *GROUPS2):
            for name, obj in f[top].items():
                if isinstance(obj, h5py.Group):
                    out += [obj[m] for m in obj]
                elif name != "index":
                    out.append(obj)
        return out

    def check_datasets(self, f):
        """dims, the dimension scales, padding, attribute checksums."""
        P = self.P
        groups = [g for top in GROUPS2 for g in f[top].values() if isinstance(g, h5py.Group)]
        for obj in groups + self.datasets(f) + [f["points/index"]]:
            if self.expect("crc32" in obj.attrs, obj.name, "no attribute checksum crc32"):
                self.expect(int(np.asarray(obj.attrs["crc32"])) == self.attrs_crc(obj), obj.name,
                            f"crc32 {int(np.asarray(obj.attrs['crc32'])):08x} does not match its "
                            "attributes")
        for d in self.datasets(f):
            where = d.name
            if not self.expect(d.shape[:1] == (P,), where, f"first dimension is not the {P} "
                               "rows"):
                continue
            dims = [self.text(x) for x in np.atleast_1d(d.attrs.get("dims", []))]
            if not self.expect(len(dims) == d.ndim and dims[:1] == ["point"], where,
                               f"dims {dims} for a dataset of rank {d.ndim}"):
                continue
            for i, dn in enumerate(dims):
                scales = list(d.dims[i].values()) if hasattr(d.dims[i], "values") else []
                ok = len(d.dims[i]) >= 1 and any(s.name == "/" + dn for s in scales)
                self.expect(ok and dn in f and h5py.h5ds.is_scale(f[dn].id), where,
                            f"dimension {i} ({dn}): the scale /{dn} is not attached")
                if dn in f and i > 0:
                    self.expect(f[dn].shape[0] == d.shape[i], where,
                                f"dimension {dn} is {f[dn].shape[0]} long, axis {i} {d.shape[i]}")
            if d.ndim < 2 and not where.startswith(("/observables", "/theory", "/comparison")):
                continue
            a = d[()]
            fill_ok = (lambda x: np.all(np.isnan(x))) if a.dtype.kind == "f" else \
                (lambda x: np.all(x == 0))
            parts = where.strip("/").split("/")
            grp = "observables" if parts[0] == "replications" else parts[0]
            has = self.has(grp, parts[1])
            for row in range(P):
                if not has[row]:
                    self.expect(fill_ok(a[row]), where, f"row {row} lacks it but holds values")
                    continue
                if d.ndim < 2:
                    continue
                ext = self.extent(f, d, row)
                mask = np.ones(a.shape[1:], bool)
                mask[tuple(slice(0, n) for n in ext)] = False
                self.expect(fill_ok(a[row][mask]), where,
                            f"row {row}: values beyond its extent {ext} are not the fill value")
        for dn in (k for k in f if isinstance(f[k], h5py.Dataset) and h5py.h5ds.is_scale(f[k].id)):
            if dn == "point":
                continue
            name = self.text(f[dn].attrs.get("NAME", b""))
            if name.startswith(NOT_A_VARIABLE):
                self.expect(f[dn].dtype == np.float32, f"/{dn}", "a netCDF dimension not float32")
            else:
                self.expect(name == dn and f[dn].dtype == np.float64, f"/{dn}",
                            "a coordinate that is not float64 or not named for its dimension")

    def check_row_crcs(self, f, pids):
        P = self.P
        for col, rank2 in (("crc32", False), ("crc32_arrays", True)):
            d = f["points"][col]
            covers = [self.text(c) for c in np.atleast_1d(d.attrs.get("covers", []))]
            want = set()
            for x in self.datasets(f):
                top = x.name.split("/")[1]
                if rank2 and x.ndim >= 2:
                    want.add(x.name)
                elif not rank2 and x.ndim == 1 and top != "replications" and \
                        x.name not in ("/points/status", "/points/crc32", "/points/crc32_arrays"):
                    want.add(x.name)
            self.expect(sorted("/" + c.strip("/") for c in covers) == sorted(want),
                        f"/points/{col}", "covers does not list exactly the datasets it should")
            data = {c: f[c][()] for c in covers}
            for row in range(P):
                crc = zlib.crc32(struct.pack("<Q", int(pids[row])))
                for c in covers:
                    a = data[c]
                    if not rank2:
                        e = a[row]
                        if a.dtype.kind in "SO":
                            crc = zlib.crc32(raw(e).split(b"\0")[0] + b"\0", crc)
                        else:
                            crc = zlib.crc32(np.asarray(e).astype(WIDE[a.dtype.kind]).tobytes(), crc)
                        continue
                    parts = c.strip("/").split("/")
                    grp = "observables" if parts[0] == "replications" else parts[0]
                    if not self.has(grp, parts[1])[row]:
                        continue
                    ext = self.extent(f, f[c], row)
                    v = a[row][tuple(slice(0, n) for n in ext)]
                    crc = zlib.crc32(np.ascontiguousarray(v.astype(WIDE[a.dtype.kind])).tobytes(),
                                     crc)
                self.expect(crc == int(self.cols[col][row]), f"/points/{col}",
                            f"point {int(pids[row])}: crc32 {int(self.cols[col][row]):08x} "
                            f"stored, {crc:08x} recomputed")

    # ---- --against: every value of the 1.x source ----

    def same(self, a, b):
        a, b = np.asarray(a), np.asarray(b)
        if a.shape != b.shape:
            return False
        if a.dtype.kind == "f" or b.dtype.kind == "f":
            return np.array_equal(a.astype(np.float64), b.astype(np.float64), equal_nan=True)
        return np.array_equal(a, b)

    def check_against(self, f, pids):
        row_of = {int(p): i for i, p in enumerate(pids.tolist())}
        with h5py.File(self.against, "r") as s:
            for k, v in s.attrs.items():
                if k == "format_version":
                    self.expect(self.same(f.attrs.get("converted_from", []), v), "/",
                                "converted_from is not the source's format_version")
                    continue
                self.expect(k in f.attrs and (self.text(f.attrs[k]) == self.text(v)
                                              if self.is_string(v) else self.same(f.attrs[k], v)),
                            "/", f"root attribute '{k}' differs from the source's")
            self.expect(f["run/config"][()] == s["run/config"][()], "/run/config",
                        "differs from the source's")
            for t in ("units", "sessions", "ranks"):
                if f"run/{t}" in s:
                    self.expect(f"run/{t}" in f and np.array_equal(f[f"run/{t}"][()],
                                                                   s[f"run/{t}"][()]),
                                f"/run/{t}", "differs from the source's")
            self.expect(np.array_equal(f["points/index"][()], s["points/index"][()]),
                        "/points/index", "differs from the source's")
            src = sorted(int(k) for k in s["points"] if k.isdigit() and
                         self.text(s["points"][k].attrs.get("status", "")) == "complete")
            self.expect(src == sorted(row_of), "/point", "rows are not the source's complete "
                        "points")
            for pid in src:
                if pid in row_of:
                    self.against_point(f, s[f"points/{pid:06d}"], pid, row_of[pid])

    def against_point(self, f, g, pid, row):
        at = f"point {pid}"
        for k, v in g.attrs.items():
            if k in ("status", "crc32"):
                continue
            if k == "model":
                self.expect(self.text(v) == self.text(f.attrs["model"]), at, "model")
                continue
            if not self.expect(k in self.cols, at, f"attribute '{k}' has no column"):
                continue
            mine = self.cols[k][row]
            ok = (raw(self.text(mine)).split(b"\0")[0] == raw(self.text(v)).split(b"\0")[0]
                  if self.is_string(v) else self.same(mine, v))
            self.expect(ok, at, f"column {k} = {mine!r}, the source has {v!r}")
        seen = {grp: set() for grp in GROUPS2}
        for grp in GROUPS2:
            for name, obj in g[grp].items():
                seen[grp].add(name)
                where = f"{at}: /{grp}/{name}"
                if not self.expect(name in f[grp], where, "missing"):
                    continue
                hgrp = "observables" if grp == "replications" else grp
                self.expect(self.has(hgrp, name)[row], where, f"has_{hgrp}_{name} is 0")
                mine = f[grp][name]
                self.against_attrs(obj, mine, row, where)
                if isinstance(obj, h5py.Group):
                    for dn, d in obj.items():
                        if dn == "bin_edges":
                            names = [self.text(x) for x in np.atleast_1d(mine.attrs["layouts"])]
                            k = int(mine["layout"][row])
                            n = self.extent(f, mine["counts"], row)[0]
                            edges = f["layouts"][names[k]][: n + 1] if k < len(names) else None
                            self.expect(edges is not None and self.same(edges, d[()]),
                                        f"{where}/bin_edges", "differs from the layout's edges")
                            continue
                        if self.expect(dn in mine, f"{where}/{dn}", "missing"):
                            self.against_value(f, d, mine[dn], row, f"{where}/{dn}")
                            self.against_attrs(d, mine[dn], row, f"{where}/{dn}")
                else:
                    self.against_value(f, obj, mine, row, where)
        for grp in GROUPS2:
            hgrp = "observables" if grp == "replications" else grp
            for name in set(f[grp]) - seen[grp]:
                self.expect(not self.has(hgrp, name)[row], f"{at}: /{grp}/{name}",
                            "present in 2.0, absent from the source point")

    def against_value(self, f, src, mine, row, where):
        v = src[()]
        kind_ok = (v.dtype.kind == "f") == (mine.dtype.kind == "f")
        self.expect(kind_ok, where, f"type {mine.dtype}, the source's {v.dtype}")
        if mine.ndim == 1:
            got = np.atleast_1d(mine[row]) if v.ndim == 1 else mine[row]
        else:
            ext = self.extent(f, mine, row)
            got = mine[row][tuple(slice(0, n) for n in ext)]
        self.expect(self.same(got, v), where, f"value {got!r} differs from the source's {v!r}")

    def against_attrs(self, src, mine, row, where):
        for k, v in src.attrs.items():
            if k == "crc32":
                continue
            if not self.expect(k in mine.attrs, where, f"attribute '{k}' missing"):
                continue
            got = self.at(mine.attrs[k], row)
            ok = (self.text(got) == self.text(v)) if self.is_string(v) else self.same(got, v)
            self.expect(ok, where, f"attribute '{k}' = {got!r}, the source's {v!r}")


def main(argv):
    against = None
    if len(argv) == 4 and argv[2] == "--against":
        against = argv[3]
        argv = argv[:2]
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        with h5py.File(argv[1], "r") as f:
            major = int(np.atleast_1d(f.attrs.get("format_version", [1]))[0])
    except OSError as e:
        print(f"{argv[1]}: cannot read: {e}", file=sys.stderr)
        return 1
    if major == 2:
        checker = Checker2(argv[1], against)
    elif against is not None:
        print(f"{argv[1]}: --against checks a 2.0 file against its 1.x source; this file is "
              f"{major}.x", file=sys.stderr)
        return 2
    else:
        checker = Checker(argv[1])
    try:
        complete, total = checker.run()
    except OSError as e:
        print(f"{argv[1]}: cannot read: {e}", file=sys.stderr)
        return 1
    for p in checker.problems[:50]:
        print(f"{argv[1]}: {p}", file=sys.stderr)
    if checker.problems:
        print(f"{argv[1]}: {len(checker.problems)} schema violation(s)", file=sys.stderr)
        return 1
    if isinstance(checker, Checker2):
        src = f" (every value as in {against})" if against else ""
        print(f"{argv[1]}: schema {checker.version[0]}.{checker.version[1]} OK ({complete} rows, "
              f"{total} points in the index){src}")
        return 0
    (major, minor), (index, count) = checker.version, checker.task
    share = f", task {index}/{count}" if count > 1 else ""
    kept = f", {checker.checkpoints} with a checkpoint" if checker.checkpoints else ""
    units = ""
    if checker.units:
        rows, sessions = checker.units
        units = f"; {rows} units in {sessions} session{'s' if sessions != 1 else ''}"
    print(f"{argv[1]}: schema {major}.{minor} OK ({complete}/{total} points complete{kept}{share})"
          f"{units}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
