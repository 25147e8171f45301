#!/usr/bin/env python3
"""Check that a storq results file follows HDF5 schema version 1.x (docs/hdf5-schema.md).

usage: check_h5_schema.py FILE.h5

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


def main(argv):
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
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
