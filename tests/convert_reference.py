#!/usr/bin/python3
"""Reference converter of a storq results file from schema 1.x to 2.0 (docs/hdf5-schema-2.md).

usage: /usr/bin/python3 tests/convert_reference.py IN.h5 OUT.h5

A plain h5py implementation, independent of the C converter (`storq convert`, io/h5_convert*.c),
so that the two can be compared value by value (tests/check_h5_schema.py OUT.h5 --against IN.h5
checks either). It reads every complete point of IN.h5 once, derives the quantities, their
dimensions (shared, ragged) and coordinates, then writes OUT.h5 whole.

Choices where the spec leaves room (also listed in the report that introduced this file):
  - an attribute of a quantity (an observable group or dataset, a theory or comparison array)
    whose value differs between the points that hold it (a description naming the point's rho,
    a grid set at some points only) is stored as an array of shape (P,): its value at each row
    ("" / 0 where the row lacks the quantity); an attribute that is the same everywhere stays a
    scalar, as in 1.x;
  - `covers` lists absolute paths ("/points/replications", ...);
  - /points/index is copied as it stands (its first dimension is the run's points, not the
    rows): it gets neither `dims` nor dimension scales, but, being a dataset under /points, the
    attribute checksum `crc32` of its attributes (`units`);
  - the top-level groups /observables, /replications, /theory, /comparison carry no crc32 (only
    the groups and datasets below them);
  - a 1.x file before 1.3 (edges stored in every histogram) gets /layouts members named
    `<histogram>_edges<k>`, with their crc32 as 1.3's;
  - the root keeps every 1.x attribute (format_version set to [2, 0]) and gets converted_from.
"""
import struct
import sys
import zlib

import h5py
import numpy as np

NAN = float("nan")
NOT_A_VARIABLE = "This is a netCDF dimension but not a netCDF variable."
AXIS_DIM = {"t": "time"}
GROUPS = ("observables", "replications", "theory", "comparison")
DS_ATTRS = {"CLASS", "NAME", "DIMENSION_LIST", "REFERENCE_LIST", "_Netcdf4Dimid",
            "_Netcdf4Coordinates"}
SKIP_CRC_ATTRS = {"crc32", "covers"} | DS_ATTRS
PRECISION = {"precision_target": "f", "precision_achieved": "f", "precision_met": "u",
             "max_replications": "u", "precision_observable": "s", "stopped_because": "s"}
CHUNK_BYTES = 1 << 20


def text(v):
    if isinstance(v, (bytes, np.bytes_)):
        return v.decode("utf-8", "surrogateescape")
    return v


# ------------------------------------------------------------------------------- checksums
def _raw(e):
    if isinstance(e, str):
        return e.encode("utf-8", "surrogateescape")
    return bytes(e)


def value_crc(crc, dtype, shape, value):
    """1.x's value bytes: class, rank, dims (uint64 LE), the elements widened (hdf5-schema.md)."""
    is_str = h5py.check_string_dtype(dtype) is not None or dtype.kind == "S"
    cls = "s" if is_str else {"f": "f", "i": "i", "u": "u"}.get(dtype.kind)
    if cls is None:
        raise ValueError(f"attribute of type {dtype}: not a type storq writes")
    crc = zlib.crc32(cls.encode() + bytes([len(shape)]) +
                     b"".join(struct.pack("<Q", d) for d in shape), crc)
    if is_str:
        for e in np.asarray(value, dtype=object).ravel():
            crc = zlib.crc32(_raw(e).split(b"\0")[0] + b"\0", crc)
        return crc
    return zlib.crc32(np.asarray(value).astype({"f": "<f8", "i": "<i8", "u": "<u8"}[cls]).tobytes(),
                      crc)


def attrs_crc(obj):
    """2.0's attribute checksum: 1.x's object checksum over the attributes alone."""
    crc = 0
    for name in sorted(obj.attrs.keys(), key=_raw):
        if name in SKIP_CRC_ATTRS:
            continue
        aid = obj.attrs.get_id(name)
        crc = value_crc(zlib.crc32(_raw(name) + b"\0", crc), aid.dtype, aid.shape, obj.attrs[name])
    return crc


def object_crc(obj):
    """1.x's object checksum (attributes but crc32 and status, then the data), for /layouts."""
    crc = 0
    for name in sorted(obj.attrs.keys(), key=_raw):
        if name in ("crc32", "status"):
            continue
        aid = obj.attrs.get_id(name)
        crc = value_crc(zlib.crc32(_raw(name) + b"\0", crc), aid.dtype, aid.shape, obj.attrs[name])
    if isinstance(obj, h5py.Dataset):
        crc = value_crc(zlib.crc32(b"\0", crc), obj.dtype, obj.shape, obj[()])
    return crc


def element_bytes(a):
    """Per-row byte strings of a (P,) column as the row checksum feeds them."""
    if a.dtype.kind == "S" or a.dtype.kind == "O":
        return [_raw(e).split(b"\0")[0] + b"\0" for e in a.tolist()]
    wide = {"f": "<f8", "i": "<i8", "u": "<u8"}[a.dtype.kind]
    return np.ascontiguousarray(a.astype(wide)).view(np.uint8).reshape(len(a), 8)


# ------------------------------------------------------------------------------ the source
def merge_order(order, names):
    """Insert the names of one point into the union order, each after its predecessor there."""
    prev = -1
    for n in names:
        if n in order:
            prev = order.index(n)
        else:
            order.insert(prev + 1, n)
            prev += 1


class Quantity:
    """One 2.0 dataset and its per-point 1.x values."""

    def __init__(self, path, cls):
        self.path = path          # "observables/u/mean", "theory/u", ...
        self.cls = cls            # "f" float64, "u" uint64
        self.values = {}          # row -> numpy value (1.x shape)
        self.attrs = {}           # attribute name -> {row: value}
        self.dims = []            # names of dims 1..
        self.shape = ()           # per-row max shape
        self.scalar_theory = False  # a length-1 theory/comparison array stored as (P,)

    def add(self, row, value, attrs):
        self.values[row] = value
        for k, v in attrs.items():
            self.attrs.setdefault(k, {})[row] = v


def attrs_of(obj, skip=("crc32",)):
    return {k: obj.attrs[k] for k in obj.attrs if k not in skip}


class Source:
    def __init__(self, f):
        self.root = {k: f.attrs[k] for k in f.attrs}
        pids = []
        for k in f["points"]:
            if k.isdigit() and text(f["points"][k].attrs.get("status", "")) == "complete":
                pids.append(int(k))
        self.pids = sorted(pids)
        self.P = len(self.pids)
        self.point_attrs = []
        self.obs_order, self.group_order = [], {g: [] for g in ("theory", "comparison")}
        self.obs = {}             # name -> {"kind", "attrs": {k: {row: v}}, "rows": set}
        self.q = {}               # path -> Quantity
        self.hist_edges = {}      # name -> {row: layout name or edges array}
        self.layouts = ({k: f["layouts"][k][()] for k in f["layouts"]} if "layouts" in f else {})
        for row, pid in enumerate(self.pids):
            g = f["points/%06d" % pid]
            self.point_attrs.append({k: g.attrs[k] for k in g.attrs})
            merge_order(self.obs_order, list(g["observables"]))
            for name, og in g["observables"].items():
                o = self.obs.setdefault(name, {"kind": text(og.attrs["kind"]), "attrs": {},
                                               "rows": set(), "members": []})
                o["rows"].add(row)
                for k, v in attrs_of(og).items():
                    o["attrs"].setdefault(k, {})[row] = v
                merge_order(o["members"], [m for m in og if m != "bin_edges"])
                for dn in og:
                    if dn == "bin_edges":
                        link = og.get(dn, getlink=True)
                        if isinstance(link, h5py.SoftLink) and link.path.startswith("/layouts/"):
                            target = link.path[len("/layouts/"):]
                        else:
                            target = og[dn][()]
                        self.hist_edges.setdefault(name, {})[row] = target
                        continue
                    d = og[dn]
                    path = f"observables/{name}/{dn}"
                    q = self.q.setdefault(path, Quantity(path, "f" if d.dtype.kind == "f" else "u"))
                    q.add(row, d[()], attrs_of(d))
            for grp in ("replications", "theory", "comparison"):
                if grp != "replications":
                    merge_order(self.group_order[grp], list(g[grp]))
                for name, d in g[grp].items():
                    path = f"{grp}/{name}"
                    q = self.q.setdefault(path, Quantity(path, "f"))
                    q.add(row, d[()], attrs_of(d))
        # pre-1.3 files: edges in every histogram become layouts of their own
        for name, rows in self.hist_edges.items():
            for row, target in list(rows.items()):
                if isinstance(target, str):
                    continue
                for k, e in self.layouts.items():
                    if np.array_equal(e, target):
                        rows[row] = k
                        break
                else:
                    k = f"{name}_edges{sum(1 for x in self.layouts if x.startswith(name + '_edges'))}"
                    self.layouts[k] = np.asarray(target, np.float64)
                    rows[row] = k


# -------------------------------------------------------------------------------- the plan
class Plan:
    """Dimensions (names, per-row lengths, coordinates) and the ordered list of 2.0 datasets."""

    def __init__(self, src):
        self.src = src
        P = src.P
        self.dim_len = {}         # name -> int array (P,) of per-row lengths (0: none there)
        self.dim_order = []
        self.order = []           # the Quantity paths in writing order
        reps = np.array([int(a["replications"]) for a in src.point_attrs], np.int64)
        self.R = int(reps.max()) if P else int(src.root.get("replications", 0))
        self.obs_dims = {}
        for name in src.obs_order:
            o = src.obs[name]
            if o["kind"] == "histogram":
                q = src.q.get(f"observables/{name}/counts")
                dims = [self.claim(f"{name}_bin", self.lengths(q, 0), "observables", name)]
            else:
                mean = src.q.get(f"observables/{name}/mean")
                nd = max((np.ndim(v) for v in mean.values.values()), default=0) if mean else 0
                dims = []
                if nd >= 1:
                    axis = src.q.get(f"observables/{name}/axis")
                    aname = None
                    if axis is not None and "name" in axis.attrs:
                        aname = text(next(iter(axis.attrs["name"].values())))
                    want = AXIS_DIM.get(aname, aname) if aname else f"{name}_i"
                    dims.append(self.claim(want, self.lengths(mean, 0), "observables", name))
                if nd >= 2:
                    dims.append(self.claim(f"{name}_j", self.lengths(mean, 1), "observables",
                                           name))
            self.obs_dims[name] = dims
            for m in o["members"]:
                q = src.q[f"observables/{name}/{m}"]
                nd = max(np.ndim(v) for v in q.values.values())
                q.dims = dims[:nd] if m != "axis" else dims[:1]
                self.order.append(q.path)
        for name in src.obs_order:
            q = src.q.get(f"replications/{name}")
            if q is None:
                continue
            kind = src.obs[name]["kind"]
            q.dims = ["replication"] + (self.obs_dims[name] if kind == "vector" else [])
            self.order.append(q.path)
        grid_named = set()
        for grp in ("theory", "comparison"):
            for name in src.group_order[grp]:
                for g in src.q[f"{grp}/{name}"].attrs.get("grid", {}).values():
                    grid_named.add(text(g))
        for grp in ("theory", "comparison"):
            for name in src.group_order[grp]:
                q = src.q[f"{grp}/{name}"]
                lens = self.lengths(q, 0)
                present = lens[[r for r in q.values]]
                if np.all(present == 1):
                    q.scalar_theory = True
                    q.dims = []
                else:
                    grids = {text(g) for g in q.attrs.get("grid", {}).values()}
                    grid = grids.pop() if len(grids) == 1 else ""
                    if grid and grid in self.obs_dims and self.obs_dims[grid]:
                        want = self.obs_dims[grid][0]
                    elif name in grid_named:
                        want = name
                    else:
                        want = f"{grp}_{name}_i"
                    q.dims = [self.claim(want, lens, grp, name)]
                self.order.append(q.path)
        self.dim_len["replication"] = np.full(P, self.R, np.int64)
        for path in self.order:
            q = src.q[path]
            shapes = [np.shape(v) for v in q.values.values()]
            if q.scalar_theory:
                q.shape = ()
            else:
                q.shape = tuple(max(s[j] for s in shapes) for j in range(len(q.dims)))
        self.ragged = [d for d in self.dim_order if len(set(self.dim_len[d].tolist())) > 1]
        self.coords = {d: self.coordinate(d) for d in self.dim_order}

    def lengths(self, q, axis):
        out = np.zeros(self.src.P, np.int64)
        if q is None:
            return out
        for row, v in q.values.items():
            out[row] = np.shape(v)[axis] if np.ndim(v) > axis else 1
        return out

    def claim(self, want, lens, grp, name):
        """The dimension named want when the lengths agree where both are present, else one of
        the quantity's own."""
        if want in self.dim_len:
            have = self.dim_len[want]
            both = (have > 0) & (lens > 0)
            if not np.array_equal(have[both], lens[both]):
                want = f"{grp}_{name}_i"
                if want in self.dim_len:  # two axes of one quantity: numbered
                    k = 2
                    while f"{want}{k}" in self.dim_len:
                        k += 1
                    want = f"{want}{k}"
            else:
                self.dim_len[want] = np.maximum(have, lens)
                return want
        self.dim_len[want] = lens.copy()
        self.dim_order.append(want)
        return want

    def coordinate(self, d):
        """(values, upper_edge) when every row's coordinate is a leading part of the longest."""
        src = self.src
        n = int(self.dim_len[d].max()) if src.P else 0

        def prefix(arrays):
            arrays = [np.asarray(a, np.float64).ravel() for a in arrays]
            if not arrays:
                return None
            longest = max(arrays, key=len)
            if len(longest) != n and len(longest) != n + 1:
                return None
            if all(np.array_equal(a, longest[:len(a)], equal_nan=True) for a in arrays):
                return longest
            return None

        for path in self.order:
            q = src.q[path]
            if not q.dims or q.dims[0] != d:
                continue
            parts = path.split("/")
            if parts[0] == "observables" and parts[2] == "axis":
                c = prefix(q.values.values())
                if c is not None and len(c) == n:
                    return c, None
            if parts[0] == "theory" and parts[1] == d:
                c = prefix(q.values.values())
                if c is not None and len(c) == n:
                    return c, None
            if parts[0] == "observables" and parts[2] == "counts" and d == f"{parts[1]}_bin":
                rows = src.hist_edges.get(parts[1], {})
                edges = [src.layouts[k][:int(self.dim_len[d][r]) + 1] for r, k in rows.items()]
                c = prefix(edges)
                if c is not None and len(c) == n + 1:
                    return c[:-1], float(c[-1])
        return None


# ---------------------------------------------------------------------------- the writing
def new_file(path):
    fcpl = h5py.h5p.create(h5py.h5p.FILE_CREATE)
    fcpl.set_obj_track_times(False)
    fcpl.set_link_creation_order(h5py.h5p.CRT_ORDER_TRACKED | h5py.h5p.CRT_ORDER_INDEXED)
    fcpl.set_attr_creation_order(h5py.h5p.CRT_ORDER_TRACKED | h5py.h5p.CRT_ORDER_INDEXED)
    fapl = h5py.h5p.create(h5py.h5p.FILE_ACCESS)
    fapl.set_libver_bounds(h5py.h5f.LIBVER_V18, h5py.h5f.LIBVER_LATEST)
    fid = h5py.h5f.create(path.encode(), h5py.h5f.ACC_TRUNC, fapl=fapl, fcpl=fcpl)
    return h5py.File(fid)


def group(f, path):
    g = f
    for part in path.strip("/").split("/"):
        if part not in g:
            gcpl = h5py.h5p.create(h5py.h5p.GROUP_CREATE)
            gcpl.set_obj_track_times(False)
            gcpl.set_link_creation_order(h5py.h5p.CRT_ORDER_TRACKED | h5py.h5p.CRT_ORDER_INDEXED)
            h5py.h5g.create(g.id, part.encode(), gcpl=gcpl)
        g = g[part]
    return g


def fixed_string_type(n):
    t = h5py.h5t.C_S1.copy()
    t.set_size(max(n, 1))
    t.set_strpad(h5py.h5t.STR_NULLTERM)
    return t


def create(f, path, data=None, shape=None, dtype=None, fill=None, tid=None):
    """A dataset without times, chunked and deflated past 1 KiB, rows along the first axis."""
    parent, name = path.rsplit("/", 1) if "/" in path.strip("/") else ("/", path.strip("/"))
    g = group(f, parent) if parent != "/" else f
    if data is not None:
        shape, dtype = data.shape, data.dtype
    dtype = np.dtype(dtype) if tid is None else None
    itemsize = tid.get_size() if tid is not None else dtype.itemsize
    nbytes = int(np.prod(shape, dtype=np.int64)) * itemsize
    dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
    dcpl.set_obj_track_times(False)
    dcpl.set_attr_creation_order(h5py.h5p.CRT_ORDER_TRACKED | h5py.h5p.CRT_ORDER_INDEXED)
    if fill is not None:
        dcpl.set_fill_value(np.array(fill, dtype=dtype))
    dcpl.set_fill_time(h5py.h5d.FILL_TIME_IFSET)
    if nbytes >= 1024 and len(shape) >= 1 and shape[0] > 0:
        rowbytes = max(1, nbytes // shape[0])
        rows = max(1, min(shape[0], CHUNK_BYTES // rowbytes))
        dcpl.set_chunk((rows,) + tuple(max(1, s) for s in shape[1:]))
        dcpl.set_shuffle()
        dcpl.set_deflate(4)
    space = h5py.h5s.create_simple(tuple(shape))
    t = tid if tid is not None else h5py.h5t.py_create(dtype, logical=True)
    dsid = h5py.h5d.create(g.id, name.encode(), t, space, dcpl=dcpl)
    d = h5py.Dataset(dsid)
    if data is not None and d.size:
        d[...] = data
    return d


def string_array(values):
    return np.array([text(v) for v in values], dtype=h5py.string_dtype())


def set_attr(obj, name, per_row, rows, P):
    """One 1.x attribute of a quantity: a scalar when every row that has it agrees, else (P,)."""
    vals = [per_row[r] for r in sorted(per_row)]
    first = vals[0]
    same = all((text(v) == text(first)) if isinstance(first, (str, bytes)) else
               np.array_equal(np.asarray(v), np.asarray(first)) for v in vals)
    if same:
        obj.attrs[name] = first
        return
    if isinstance(first, (str, bytes)):
        obj.attrs[name] = string_array([per_row.get(r, "") for r in range(P)])
    else:
        a = np.zeros(P, np.asarray(first).dtype)
        for r, v in per_row.items():
            a[r] = v
        obj.attrs[name] = a


def convert(src_path, out_path):
    fin = h5py.File(src_path, "r")
    src = Source(fin)
    plan = Plan(src)
    P = src.P
    f = new_file(out_path)
    for k, v in src.root.items():
        if k == "format_version":
            continue
        f.attrs[k] = v
    f.attrs["format_version"] = np.array([2, 0], np.int32)
    f.attrs["converted_from"] = np.asarray(src.root["format_version"]).astype(np.int32)
    fin.copy(fin["run"], f, "run")
    if src.layouts:
        group(f, "layouts")
        for k, e in src.layouts.items():
            if "layouts" in fin and k in fin["layouts"]:
                fin.copy(fin["layouts"][k], f["layouts"], k)
            else:
                d = create(f, f"layouts/{k}", data=np.asarray(e, np.float64))
                d.attrs["crc32"] = np.uint32(object_crc(d))
    pts = group(f, "points")
    fin.copy(fin["points/index"], pts, "index")
    pids = np.array(src.pids, np.uint64)
    # the dimension scales
    scales = {}
    sc = create(f, "point", data=pids)
    sc.make_scale("point")
    scales["point"] = sc
    for d in plan.dim_order + ["replication"]:
        n = int(plan.dim_len[d].max()) if P else (plan.R if d == "replication" else 0)
        c = plan.coords.get(d)
        if c is not None:
            s = create(f, d, data=np.asarray(c[0], np.float64))
            s.make_scale(d)
            if c[1] is not None:
                s.attrs["upper_edge"] = c[1]
        else:
            s = create(f, d, shape=(n,), dtype=np.float32)
            s.make_scale("%s%10d" % (NOT_A_VARIABLE, n))
        scales[d] = s
    written = []              # (path, dataset) in creation order, for covers

    def finish(d, dims):
        d.attrs["dims"] = string_array(["point"] + dims)
        for i, dn in enumerate(["point"] + dims):
            d.dims[i].attach_scale(scales[dn])
        written.append((d.name, d))
        return d

    # /points columns
    pa = src.point_attrs
    index = fin["points/index"]
    itype = index.id.get_type()
    units = [text(u) for u in index.attrs.get("units", [])]
    fields = list(index.dtype.names)
    col = lambda key: [a[key] for a in pa]  # noqa: E731
    finish(create(f, "points/replications", data=np.array(col("replications"), np.uint64)), [])
    finish(create(f, "points/events", data=np.array(col("events"), np.uint64)), [])
    finish(create(f, "points/wall_seconds", data=np.array(col("wall_seconds"), np.float64)), [])
    for i, name in enumerate(fields):
        if name == "point":
            continue
        t = itype.get_member_type(i)
        vals = col(name)
        if index.dtype[name].kind == "S":
            data = np.array([_raw(text(v)) for v in vals], dtype=index.dtype[name])
            d = create(f, f"points/{name}", shape=(P,), dtype=index.dtype[name], tid=t)
            if P:
                d.id.write(h5py.h5s.ALL, h5py.h5s.ALL, data, mtype=t)
        else:
            d = create(f, f"points/{name}", data=np.array(vals, index.dtype[name]))
        d.attrs["unit"] = units[i] if i < len(units) else ""
        finish(d, [])
    known = {"model", "status", "crc32", "replications", "events", "wall_seconds", *fields}
    extra = []
    for a in pa:
        for k in a:
            if k not in known and k not in extra:
                extra.append(k)
    for k in extra:
        vals = [a.get(k) for a in pa]
        sample = next(v for v in vals if v is not None)
        cls = PRECISION.get(k) or ("s" if isinstance(sample, (str, bytes)) else
                                   np.asarray(sample).dtype.kind)
        if cls == "s":
            raw = [_raw(text(v)) if v is not None else b"" for v in vals]
            n = max((len(r) for r in raw), default=0) + 1
            t = fixed_string_type(n)
            d = create(f, f"points/{k}", shape=(P,), dtype=f"S{n}", tid=t)
            if P:
                d.id.write(h5py.h5s.ALL, h5py.h5s.ALL, np.array(raw, f"S{n}"), mtype=t)
        else:
            dt = {"f": np.float64, "u": np.uint64, "i": np.int64}[cls]
            fill = NAN if cls == "f" else 0
            d = create(f, f"points/{k}", data=np.array([fill if v is None else v for v in vals], dt))
        finish(d, [])
    finish(create(f, "points/status", data=np.ones(P, np.uint8)), [])
    for dname in plan.ragged:
        finish(create(f, f"points/n_{dname}", data=plan.dim_len[dname].astype(np.uint32)), [])
    has = {}
    for name in src.obs_order:
        rows = src.obs[name]["rows"]
        if len(rows) < P:
            has[("observables", name)] = rows
    for grp in ("theory", "comparison"):
        for name in src.group_order[grp]:
            rows = set(src.q[f"{grp}/{name}"].values)
            if len(rows) < P:
                has[(grp, name)] = rows
    for (grp, name), rows in has.items():
        a = np.zeros(P, np.uint8)
        a[sorted(rows)] = 1
        finish(create(f, f"points/has_{grp}_{name}", data=a), [])
    crc_col = create(f, "points/crc32", shape=(P,), dtype=np.uint32, fill=0)
    crc_arr = create(f, "points/crc32_arrays", shape=(P,), dtype=np.uint32, fill=0)
    finish(crc_col, [])
    finish(crc_arr, [])

    # the quantities
    data_of = {}
    for path in plan.order:
        q = src.q[path]
        parts = path.split("/")
        if parts[0] == "observables":
            name = parts[1]
            g = group(f, f"observables/{name}")
            if "kind" not in g.attrs:
                o = src.obs[name]
                for k, per_row in o["attrs"].items():
                    set_attr(g, k, per_row, o["rows"], P)
                if o["kind"] == "histogram":
                    g.attrs["layouts"] = string_array(list(src.layouts))
        else:
            group(f, parts[0])
        dt = np.float64 if q.cls == "f" else np.uint64
        fill = NAN if q.cls == "f" else 0
        a = np.full((P,) + q.shape, fill, dt)
        for row, v in q.values.items():
            v = np.asarray(v)
            if q.scalar_theory:
                a[row] = v.reshape(-1)[0]
            else:
                a[(row,) + tuple(slice(0, n) for n in v.shape)] = v
        d = create(f, path, data=a, fill=fill)
        data_of[path] = a
        for k, per_row in q.attrs.items():
            set_attr(d, k, per_row, set(q.values), P)
        finish(d, q.dims)
        if parts[0] == "observables" and parts[2] == "counts":
            names = list(src.layouts)
            lay = np.zeros(P, np.uint32)
            for row, k in src.hist_edges.get(name, {}).items():
                lay[row] = names.index(k)
            ld = create(f, f"observables/{name}/layout", data=lay, fill=0)
            data_of[ld.name.lstrip("/")] = lay
            finish(ld, [])
    for g in GROUPS:
        group(f, g)

    # row checksums
    covers = [p for p, d in written if d.ndim == 1 and p.split("/")[1] in
              ("points", "observables", "theory", "comparison") and
              p not in ("/points/status", "/points/crc32", "/points/crc32_arrays")]
    arrays = [p for p, d in written if d.ndim >= 2]
    crc_col.attrs["covers"] = string_array(covers)
    crc_arr.attrs["covers"] = string_array(arrays)
    head = np.ascontiguousarray(pids.astype("<u8")).view(np.uint8).reshape(P, 8)
    crcs = np.array([zlib.crc32(head[i]) for i in range(P)], np.uint32) if P else np.zeros(0, np.uint32)
    cols = {}
    for p, d in written:
        if p in covers:
            cols[p] = element_bytes(d[()])
    for p in covers:
        b = cols[p]
        for i in range(P):
            crcs[i] = zlib.crc32(b[i], int(crcs[i]))
    crc_col[...] = crcs
    lens = {dn: plan.dim_len[dn] for dn in plan.dim_order}
    reps = np.array([int(a["replications"]) for a in pa], np.int64)
    has_rows = {}
    for (grp, name), rows in has.items():
        has_rows[f"/{grp}/{name}"] = rows
        if grp == "observables":
            has_rows[f"/replications/{name}"] = rows
    acrc = np.array([zlib.crc32(head[i]) for i in range(P)], np.uint32) if P else np.zeros(0, np.uint32)
    ds = dict(written)
    for p in arrays:
        d = ds[p]
        a = d[()]
        dims = [text(x) for x in d.attrs["dims"]][1:]
        parts = p.strip("/").split("/")
        key = "/" + "/".join(parts[:2])
        wide = {"f": "<f8", "i": "<i8", "u": "<u8"}[a.dtype.kind]
        for i in range(P):
            if key in has_rows and i not in has_rows[key]:
                continue
            cut = tuple(slice(0, int(reps[i]) if dn == "replication" else int(lens[dn][i]))
                        for dn in dims)
            acrc[i] = zlib.crc32(np.ascontiguousarray(a[(i,) + cut].astype(wide)).tobytes(),
                                 int(acrc[i]))
    crc_arr[...] = acrc

    # attribute checksums of every group and dataset below the groups and /points
    def stamp(name, obj):
        if name.split("/")[0] not in ("points", *GROUPS) or "/" not in name:
            return
        obj.attrs["crc32"] = np.uint32(attrs_crc(obj))
    for top in ("points", *GROUPS):
        f[top].visititems(lambda n, o, top=top: stamp(f"{top}/{n}", o))
    f.close()
    fin.close()
    return P


def main(argv):
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    P = convert(argv[1], argv[2])
    print(f"{argv[2]}: schema 2.0, {P} points (from {argv[1]})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
