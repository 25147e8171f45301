"""The reader of schema 2.0 files (docs/hdf5-schema-2.md): one dataset per quantity, the point
as its first dimension. storq.results.Results delegates every per-point call to a Columnar when
the file says format_version [2, x], so that a 2.0 file and the 1.x file it was converted from
give the same values through the same calls.

Each dataset of shape (P,) (a column) is read whole once and kept; an array (rank 2 or more) is
read whole when it is small (at most ARRAY_CACHE_BYTES), else row by row. Nothing is read point
by point through HDF5 for the per-point numbers.

What is checked (docs/hdf5-schema-2.md, Checksums), and when:
  - check_attrs(): the attribute checksum `crc32` of every group and dataset below /points,
    /observables, /replications, /theory and /comparison, and /layouts' checksums (as 1.3);
  - check_rows(): /points/crc32 of every row, recomputed vectorised over all the columns that
    its `covers` lists, and /points/index against the parameter columns (the index has no
    checksum); a mismatch names the point;
  - check_arrays(rows): /points/crc32_arrays of these rows (every array of rank 2 or more, cut
    to the row's extent).
storq.open(path) (verify=True) runs check_attrs() and check_rows() in the guarded child, not the
arrays: those are checked row by row when a row's arrays are first read (a vector, a histogram,
replications, a theory or comparison array), so that a table of 20,000 points does not read
their histograms. Results.verify() checks every row's arrays too. With verify=False the same
checks run in the reading process at the first read (rows: a damaged row raises when read, the
others stay readable, as 1.x's points do).
"""
import struct
import zlib

import h5py
import numpy as np

from ._verify import _raw, beat, object_crc
from .errors import DamagedFile

ARRAY_CACHE_BYTES = 64 << 20
DS_ATTRS = {"CLASS", "NAME", "DIMENSION_LIST", "REFERENCE_LIST", "_Netcdf4Dimid",
            "_Netcdf4Coordinates"}
SKIP_CRC = {"crc32", "covers"} | DS_ATTRS
# attributes of a 2.0 object that are not its 1.x attributes
NOT_1X = {"crc32", "dims", "layouts", "covers"} | DS_ATTRS
_WIDE = {"f": "<f8", "i": "<i8", "u": "<u8"}
POINT_COLUMNS = ("replications", "events", "wall_seconds")
OWN_COLUMNS = {"status", "crc32", "crc32_arrays"}


def _text(value):
    if isinstance(value, (bytes, np.bytes_)):
        return value.decode("utf-8", "backslashreplace")
    return value


def attrs_crc(obj):
    """The 2.0 attribute checksum: 1.x's object checksum over its attributes alone."""
    return object_crc(obj, skip=SKIP_CRC, data=False)


def _row_bytes(a):
    """A column's elements as the row checksum feeds them: (P, 8) uint8, or a list of bytes."""
    if a.dtype.kind in "SOU":
        return [_raw(e).split(b"\0")[0] + b"\0" for e in a.tolist()]
    return np.ascontiguousarray(a.astype(_WIDE[a.dtype.kind])).view(np.uint8).reshape(len(a), 8)


class Quantity:
    """One observable (a group), or one replications / theory / comparison dataset."""

    def __init__(self, group, name, obj):
        self.group, self.name, self.obj = group, name, obj
        self.has = None                 # (P,) bool, or None: every row
        self.kind = None
        self.members = []               # an observable's datasets in order (no `layout`)


class Columnar:
    def __init__(self, path, f):
        self.path, self.f = path, f
        try:
            self.pids = np.asarray(f["point"][()]).astype(np.int64)
        except (KeyError, OSError, RuntimeError, ValueError) as e:
            raise DamagedFile(path, "/point", f"cannot be read ({e})") from e
        self.P = len(self.pids)
        self.row_of = {int(p): i for i, p in enumerate(self.pids.tolist())}
        self._cols = {}
        self._arrays = {}
        self._bad_rows = None           # row -> message, once check_rows ran (lazily)
        self._arrays_ok = np.zeros(self.P, bool)
        self._attrs_ok = False
        self._attr_cache = {}
        try:
            self._read_tree()
        except DamagedFile:
            raise
        except (KeyError, OSError, RuntimeError, ValueError, TypeError) as e:
            raise DamagedFile(path, "/", f"not a storq 2.0 tree ({e})") from e

    # ---- the tree ----

    def _read_tree(self):
        f = self.f
        pts = f["points"]
        self.point_columns = [n for n in pts if n != "index" and isinstance(pts[n], h5py.Dataset)]
        self.ragged = {n[2:]: n for n in self.point_columns if n.startswith("n_")}
        self.obs = {}
        for name, g in f["observables"].items():
            q = Quantity("observables", name, g)
            q.kind = _text(g.attrs["kind"])
            q.members = [m for m in g if m != "layout"]
            q.dsets = {m: g[m] for m in q.members}
            q.has = self._has("observables", name)
            self.obs[name] = q
        self.reps = {}
        for name, d in f["replications"].items():
            q = Quantity("replications", name, d)
            q.has = self._has("observables", name)
            self.reps[name] = q
        self.arr = {}
        for grp in ("theory", "comparison"):
            self.arr[grp] = {}
            for name, d in f[grp].items():
                q = Quantity(grp, name, d)
                q.has = self._has(grp, name)
                self.arr[grp][name] = q
        self.dims = {}

    def _has(self, grp, name):
        col = f"has_{grp}_{name}"
        if col in self.point_columns:
            return self.column(f"points/{col}").astype(bool)
        return None

    def column(self, path):
        """A whole (P,) dataset, read once."""
        path = path.strip("/")
        a = self._cols.get(path)
        if a is None:
            beat()
            try:
                a = self.f[path][()]
            except (KeyError, OSError, RuntimeError, ValueError) as e:
                raise DamagedFile(self.path, "/" + path, f"cannot be read ({e})") from e
            self._cols[path] = a
        return a

    def dims_of(self, dset):
        key = dset.name
        d = self.dims.get(key)
        if d is None:
            d = [_text(x) for x in dset.attrs["dims"]]
            self.dims[key] = d
        return d

    def extent(self, dset, row):
        """The row's extent along the dataset's dimensions after `point`."""
        out = []
        for axis, dim in enumerate(self.dims_of(dset)[1:], start=1):
            if dim == "replication":
                out.append(int(self.column("points/replications")[row]))
            elif dim in self.ragged:
                out.append(int(self.column("points/" + self.ragged[dim])[row]))
            else:
                out.append(dset.shape[axis])
        return tuple(out)

    def extents(self, dset):
        """(P, ndim - 1) extents of every row."""
        cols = []
        for axis, dim in enumerate(self.dims_of(dset)[1:], start=1):
            if dim == "replication":
                cols.append(self.column("points/replications").astype(np.int64))
            elif dim in self.ragged:
                cols.append(self.column("points/" + self.ragged[dim]).astype(np.int64))
            else:
                cols.append(np.full(self.P, dset.shape[axis], np.int64))
        return np.stack(cols, axis=1) if cols else np.zeros((self.P, 0), np.int64)

    def array_row(self, dset, row, cut=True):
        """Row `row` of an array (rank >= 2), cut to its extent; its crc32_arrays checked."""
        if not self._arrays_ok[row]:
            self.check_arrays([row])
        a = self._whole(dset)
        v = a[row] if a is not None else dset[row]
        if cut:
            v = v[tuple(slice(0, n) for n in self.extent(dset, row))]
        return np.array(v)

    def _whole(self, dset):
        key = dset.name
        if key in self._arrays:
            return self._arrays[key]
        a = None
        if dset.size * dset.dtype.itemsize <= ARRAY_CACHE_BYTES:
            beat()
            a = dset[()]
        self._arrays[key] = a
        return a

    def attr(self, obj, name, row):
        """An attribute of a quantity at a row: a (P,) array holds one value a row."""
        key = (obj.name, name)
        v = self._attr_cache.get(key)
        if v is None:
            v = obj.attrs[name]
            self._attr_cache[key] = v
        if (isinstance(v, np.ndarray) and v.ndim == 1 and self.P >= 2 and len(v) == self.P
                and name not in NOT_1X):
            return v[row]
        return v

    def attrs_1x(self, obj, row):
        """The 1.x attributes of a quantity at a row (no crc32, dims, layouts)."""
        from .results import _plain
        key = (obj.name, None)
        names = self._attr_cache.get(key)
        if names is None:
            names = [k for k in obj.attrs if k not in NOT_1X]
            self._attr_cache[key] = names
        return {k: _plain(self.attr(obj, k, row)) for k in names}

    def has(self, q, row):
        return q.has is None or bool(q.has[row])

    # ---- checks ----

    def _objects(self):
        out = []
        for top in ("points", "observables", "replications", "theory", "comparison"):
            g = self.f[top]
            for name in g:
                obj = g[name]
                out.append(obj)
                if isinstance(obj, h5py.Group):
                    out += [obj[m] for m in obj]
        return out

    def check_attrs(self):
        if self._attrs_ok:
            return
        where = "/"
        try:
            for obj in self._objects():
                where = obj.name
                beat()
                if "crc32" not in obj.attrs:
                    raise DamagedFile(self.path, where, "no checksum (attribute 'crc32'): the "
                                      "file is damaged or was altered")
                stored = np.asarray(obj.attrs["crc32"])
                if stored.shape != () or stored.dtype.kind not in "iu":
                    raise DamagedFile(self.path, where, "its checksum is not a 32-bit number")
                now = attrs_crc(obj)
                if now != int(stored):
                    raise DamagedFile(self.path, where, "its attributes do not match the "
                                      f"checksum written with them (crc32 {int(stored):08x} "
                                      f"stored, {'unreadable' if now is None else format(now, '08x')}"
                                      " now)")
            if "layouts" in self.f:
                from ._verify import object_crc
                for name, d in self.f["layouts"].items():
                    where = d.name
                    beat()
                    if "crc32" not in d.attrs or object_crc(d) != int(d.attrs["crc32"]):
                        raise DamagedFile(self.path, where, "its data or attributes do not "
                                          "match the checksum written with them")
        except DamagedFile:
            raise
        except (OSError, KeyError, ValueError, TypeError, RuntimeError, AttributeError) as e:
            raise DamagedFile(self.path, where, f"cannot be read ({e})") from e
        self._attrs_ok = True

    def check_rows(self, raise_first=True):
        """/points/crc32 of every row, and the index against the parameter columns. Returns
        {row: (object, message)} of the damaged rows; raise_first: raise at the first."""
        if self._bad_rows is None:
            self._bad_rows = self._compute_bad_rows()
        if raise_first and self._bad_rows:
            self.raise_row(min(self._bad_rows))
        return self._bad_rows

    def raise_row(self, row):
        obj, what = self._bad_rows[row]
        raise DamagedFile(self.path, obj, what, int(self.pids[row]))

    def _compute_bad_rows(self):
        P = self.P
        bad = {}
        where = "/points/crc32"
        try:
            dset = self.f["points/crc32"]
            covers = [_text(c) for c in dset.attrs["covers"]]
            stored = self.column("points/crc32").astype(np.int64)
            head = np.ascontiguousarray(self.pids.astype("<u8")).view(np.uint8).reshape(P, 8)
            segs, run = [], []
            for c in covers:
                where = c
                a = self.column(c)
                if a.shape != (P,):
                    raise DamagedFile(self.path, "/" + c.strip("/"), f"has shape {a.shape}, "
                                      f"not one value a point ({P},)")
                b = _row_bytes(a)
                if isinstance(b, list):
                    if run:
                        segs.append(np.ascontiguousarray(np.concatenate(run, axis=1)))
                        run = []
                    segs.append(b)
                else:
                    run.append(b)
            if run:
                segs.append(np.ascontiguousarray(np.concatenate(run, axis=1)))
            crc32 = zlib.crc32
            for i in range(P):
                c = crc32(head[i])
                for s in segs:
                    c = crc32(s[i], c)
                if c != stored[i]:
                    bad[i] = ("/points/crc32", f"point {int(self.pids[i])}: its per-point "
                              "numbers do not match the checksum written with them (crc32 "
                              f"{int(stored[i]):08x} stored, {c:08x} now)")
            where = "/points/index"
            index = self.f["points/index"][()]
            names = index.dtype.names
            if names is None or names[0] != "point":
                raise DamagedFile(self.path, where, "it is not a table whose first column is "
                                  "'point'")
            ids = index["point"].astype(np.int64)
            if np.any(self.pids >= len(index)) or not np.array_equal(
                    ids[np.clip(self.pids, 0, max(len(index) - 1, 0))], self.pids):
                raise DamagedFile(self.path, where, "its rows are not the points of /point")
            for col in names[1:]:
                path = f"points/{col}"
                if col not in self.point_columns:
                    raise DamagedFile(self.path, "/" + path, "missing: a column of /points/index")
                mine = self.column(path)
                theirs = index[col][self.pids]
                if mine.dtype.kind == "S" or theirs.dtype.kind == "S":
                    same = np.array([_raw(a).split(b"\0")[0] == _raw(b).split(b"\0")[0]
                                     for a, b in zip(mine.tolist(), theirs.tolist())], bool)
                else:
                    same = (mine == theirs) & ((mine.dtype.kind == "f") == (theirs.dtype.kind == "f"))
                for i in np.flatnonzero(~same).tolist():
                    bad.setdefault(i, (path, f"point {int(self.pids[i])} has {col} = "
                                       f"{_text(mine[i])!r}, but /points/index says "
                                       f"{_text(theirs[i])!r}"))
        except DamagedFile:
            raise
        except (OSError, KeyError, ValueError, TypeError, RuntimeError, IndexError) as e:
            raise DamagedFile(self.path, where, f"cannot be read ({e})") from e
        return bad

    def array_datasets(self):
        dset = self.f["points/crc32_arrays"]
        return [self.f[_text(c)] for c in dset.attrs["covers"]]

    def check_arrays(self, rows=None, block=1024):
        """/points/crc32_arrays of the rows (all when None), in blocks of contiguous rows."""
        rows = np.arange(self.P) if rows is None else np.asarray(sorted(set(rows)), np.int64)
        rows = rows[~self._arrays_ok[rows]]
        if not len(rows):
            return
        where = "/points/crc32_arrays"
        try:
            stored = self.column("points/crc32_arrays").astype(np.int64)
            dsets = self.array_datasets()
            info = []
            for d in dsets:
                key = "/".join(d.name.strip("/").split("/")[:2])
                grp, name = key.split("/")
                q = (self.obs.get(name) if grp in ("observables", "replications")
                     else self.arr.get(grp, {}).get(name))
                info.append((d, self.extents(d), q.has if q is not None else None))
            start = 0
            while start < len(rows):
                lo = int(rows[start])
                stop = start
                while stop < len(rows) and rows[stop] < lo + block:
                    stop += 1
                sel = rows[start:stop]
                hi = int(sel[-1]) + 1
                crcs = {int(i): zlib.crc32(struct.pack("<Q", int(self.pids[i]))) for i in sel}
                for d, ext, has in info:
                    where = d.name
                    beat()
                    whole = self._whole(d)
                    part = whole[lo:hi] if whole is not None else d[lo:hi]
                    wide = _WIDE[part.dtype.kind]
                    for i in sel.tolist():
                        if has is not None and not has[i]:
                            continue
                        v = part[(i - lo,) + tuple(slice(0, n) for n in ext[i])]
                        crcs[i] = zlib.crc32(np.ascontiguousarray(v, dtype=wide), crcs[i])
                for i in sel.tolist():
                    if crcs[i] != stored[i]:
                        e = DamagedFile(self.path, "/points/crc32_arrays",
                                        f"point {int(self.pids[i])}: its arrays do not match the "
                                        f"checksum written with them (crc32 {int(stored[i]):08x} "
                                        f"stored, {crcs[i]:08x} now)", int(self.pids[i]))
                        raise e
                    self._arrays_ok[i] = True
                start = stop
        except DamagedFile:
            raise
        except (OSError, KeyError, ValueError, TypeError, RuntimeError, IndexError) as e:
            raise DamagedFile(self.path, where, f"cannot be read ({e})") from e

    # ---- one point ----

    def point_attrs(self, row, model):
        out = {"model": model, "status": "complete"}
        for c in self.point_columns:
            if c in OWN_COLUMNS or c.startswith("n_") or c.startswith("has_"):
                continue
            v = self.column("points/" + c)[row]
            out[c] = _text(v.item() if isinstance(v, np.generic) and v.dtype.kind != "S" else v)
        return out

    def observables(self, row):
        return {n: q.kind for n, q in self.obs.items() if self.has(q, row)}

    def _obs(self, row, name, pid):
        q = self.obs.get(name)
        if q is None or not self.has(q, row):
            raise KeyError(f"{self.path}: point {pid} has no observable '{name}'; it has: "
                           + ", ".join(self.observables(row)))
        return q

    def observable(self, row, name, pid):
        q = self._obs(row, name, pid)
        g = q.obj
        out = {}
        for m in q.members:
            d = q.dsets[m]
            if d.ndim == 1:
                out[m] = np.asarray(self.column(d.name)[row])
            else:
                out[m] = self.array_row(d, row)
            if m == "counts":
                out["bin_edges"] = self.edges(q, row, out["counts"].shape[0])
        out.update(self.attrs_1x(g, row))
        if "axis" in q.dsets:
            axis = q.dsets["axis"]
            out["axis_name"] = _text(self.attr(axis, "name", row)) if "name" in axis.attrs else ""
        return out

    def edges(self, q, row, nbins):
        layouts = self.attr(q.obj, "layouts", row)
        k = int(self.column(q.obj.name + "/layout")[row])
        name = _text(layouts[k])
        key = ("layout", name)
        e = self._attr_cache.get(key)
        if e is None:
            e = self.f["layouts"][name][()]
            self._attr_cache[key] = e
        return np.array(e[:nbins + 1])

    def replications(self, row, name, pid):
        self._obs(row, name, pid)
        q = self.reps.get(name)
        if q is None:
            raise KeyError(f"{self.path}: point {pid} has no observable '{name}'")
        return self.array_row(q.obj, row)

    def names(self, row, grp):
        return [n for n, q in self.arr[grp].items() if self.has(q, row)]

    def array(self, row, grp, name, pid):
        q = self.arr[grp].get(name)
        if q is None or not self.has(q, row):
            raise KeyError(name)
        d = q.obj
        if d.ndim == 1:
            return np.asarray([self.column(d.name)[row]], np.float64)
        return self.array_row(d, row)

    def array_attrs(self, row, grp, name):
        q = self.arr[grp].get(name)
        if q is None or not self.has(q, row):
            raise KeyError(name)
        return self.attrs_1x(q.obj, row)

    # ---- all points, vectorised ----

    def attr_rows(self, obj, name, default=""):
        """An attribute as a (P,) object array of plain values."""
        from .results import _plain
        if name not in obj.attrs:
            return np.full(self.P, default, dtype=object)
        v = self.attr(obj, name, 0)
        raw = self._attr_cache[(obj.name, name)]
        if isinstance(raw, np.ndarray) and raw.ndim == 1 and self.P >= 2 and len(raw) == self.P:
            return np.array([_plain(x) for x in raw.tolist()], dtype=object)
        out = np.empty(self.P, dtype=object)
        out[:] = [_plain(v)] * self.P
        return out

    def one_number(self, grp, name):
        """(present, value) over the rows of a theory or comparison array whose row holds
        exactly one number (a (P,) dataset, or a longer one cut to 1 at some rows)."""
        q = self.arr[grp][name]
        d = q.obj
        present = np.ones(self.P, bool) if q.has is None else q.has.copy()
        if d.ndim == 1:
            return present, self.column(d.name).astype(np.float64)
        ext = self.extents(d)
        one = present & (ext.prod(axis=1) == 1)
        values = np.full(self.P, np.nan)
        rows = np.flatnonzero(one)
        if len(rows):
            self.check_arrays(rows)
            whole = self._whole(d)
            for i in rows.tolist():
                values[i] = (whole[i] if whole is not None else d[i]).reshape(-1)[0]
        return one, values
