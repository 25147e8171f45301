#!/usr/bin/python3
"""Check a `storq convert` output against the 1.x file it came from (docs/hdf5-schema-2.md).

    convert_check.py SRC.h5 OUT.h5

Every value of every complete 1.x point equals its 2.0 row cut to the point's extent (NaN equal
to NaN, bit for bit otherwise), the rest of the row is the fill value (NaN, 0); the point
attributes are the /points columns; absent quantities have has_... = 0; n_<dim> is the point's
length; /points/crc32 and crc32_arrays recomputed with zlib.crc32 from the 2.0 file alone, and
every object's attributes-only crc32, equal the stored ones; each dataset's dimension scales are
the names of its attribute dims. Exit 0 with a summary, 1 with the failures.
"""
import sys
import zlib

import h5py
import numpy as np

DS_ATTRS = {"crc32", "covers", "CLASS", "NAME", "DIMENSION_LIST", "REFERENCE_LIST",
            "_Netcdf4Dimid", "_Netcdf4Coordinates"}
GROUPS = ("observables", "replications", "theory", "comparison")
failures = []


def fail(msg):
    failures.append(msg)
    if len(failures) <= 30:
        print("FAIL: " + msg)


def s(x):
    return x.decode() if isinstance(x, bytes) else str(x)


def same(a, b):
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape:
        return False
    if a.dtype.kind == "f" or b.dtype.kind == "f":
        a, b = a.astype(np.float64), b.astype(np.float64)
        return bool(np.all((a == b) | (np.isnan(a) & np.isnan(b))))
    return bool(np.all(a == b))


# ---- the 1.x canonical byte stream of a value (docs/hdf5-schema.md, Checksums) ----
def value_bytes(dtype, shape, data):
    kind = dtype.kind
    if h5py.check_string_dtype(dtype) is not None or kind in "SUO":
        cls = b"s"
    elif kind == "f":
        cls = b"f"
    elif kind == "i":
        cls = b"i"
    else:
        cls = b"u"
    out = cls + bytes([len(shape)]) + b"".join(int(n).to_bytes(8, "little") for n in shape)
    flat = np.asarray(data).reshape(-1) if shape else [data]
    if cls == b"s":
        for e in flat:
            b = e if isinstance(e, bytes) else str(e).encode()
            out += b.split(b"\0")[0] + b"\0"
    else:
        t = {b"f": "<f8", b"i": "<i8", b"u": "<u8"}[cls]
        out += np.asarray(flat).astype(t).tobytes()
    return out


def attrs_crc(obj):
    crc = 0
    for name in sorted(obj.attrs.keys(), key=lambda n: n.encode()):
        if name in DS_ATTRS:
            continue
        aid = obj.attrs.get_id(name)
        val = obj.attrs[name]
        crc = zlib.crc32(name.encode() + b"\0", crc)
        crc = zlib.crc32(value_bytes(aid.dtype, aid.shape, val), crc)
    return crc


def element_bytes(x, dtype):
    if dtype.kind in "SO" or h5py.check_string_dtype(dtype) is not None:
        b = x if isinstance(x, bytes) else str(x).encode()
        return b.split(b"\0")[0] + b"\0"
    if dtype.kind == "f":
        return np.float64(x).astype("<f8").tobytes()
    if dtype.kind == "i":
        return np.int64(x).astype("<i8").tobytes()
    return np.uint64(x).astype("<u8").tobytes()


def main():
    src_path, out_path = sys.argv[1], sys.argv[2]
    src, out = h5py.File(src_path, "r"), h5py.File(out_path, "r")
    ver = list(out.attrs["format_version"])
    if ver != [2, 0]:
        fail("format_version %s" % ver)
    if list(out.attrs["converted_from"]) != list(src.attrs["format_version"]):
        fail("converted_from %s, source %s" % (list(out.attrs["converted_from"]),
                                               list(src.attrs["format_version"])))
    for k, v in src.attrs.items():
        if k != "format_version" and not same(out.attrs.get(k), v) and s(out.attrs.get(k)) != s(v):
            fail("root attribute %s differs" % k)
    if s(out["run/config"][()]) != s(src["run/config"][()]):
        fail("/run/config differs")
    if not same(out["points/index"][()].tolist(), src["points/index"][()].tolist()):
        fail("/points/index differs")
    ids = out["point"][()]
    pts = sorted(int(k) for k in src["points"] if k != "index"
                 and s(src["points"][k].attrs.get("status", "")) == "complete")
    if list(ids) != pts:
        fail("/point %s, the source's complete points %s" % (list(ids)[:10], pts[:10]))
    P = len(ids)
    cols = {k: out["points"][k][()] for k in out["points"] if k != "index"}
    if not np.all(cols["status"] == 1):
        fail("status not 1 everywhere")
    cache = {}

    def data(path):
        if path not in cache:
            cache[path] = out[path][()]
        return cache[path]

    # dims and scales
    dims_of = {}

    def visit(name, obj):
        if not isinstance(obj, h5py.Dataset) or name.split("/")[0] not in GROUPS + ("points",):
            return
        if name == "points/index":
            return
        d = [s(x) for x in obj.attrs["dims"]]
        dims_of[name] = d
        if len(d) != obj.ndim or d[0] != "point":
            fail("%s: dims %s, rank %d" % (name, d, obj.ndim))
            return
        for k, dn in enumerate(d):
            sc = [x.name for x in obj.dims[k].values()]
            if sc != ["/" + dn]:
                fail("%s: dimension %d has scales %s, dims says %s" % (name, k, sc, dn))
            if out[dn].shape[0] != obj.shape[k]:
                fail("%s: dimension %s of length %d, its scale %d" % (name, dn, obj.shape[k],
                                                                       out[dn].shape[0]))
    out.visititems(visit)

    # object checksums
    nobj = 0

    def check_crc(name, obj):
        nonlocal nobj
        if name.split("/")[0] not in GROUPS + ("points",):
            return
        nobj += 1
        if "crc32" not in obj.attrs:
            fail("%s: no crc32" % name)
        elif int(obj.attrs["crc32"]) != attrs_crc(obj):
            fail("%s: crc32 %08x stored, %08x recomputed" % (name, int(obj.attrs["crc32"]),
                                                             attrs_crc(obj)))
    for g in GROUPS + ("points",):
        check_crc(g, out[g])
    out.visititems(check_crc)

    def extent(path, row):
        """The point's extent of a dataset's row, None when it lacks the quantity."""
        parts = path.split("/")
        if parts[0] in ("observables", "replications"):
            has = "has_observables_" + parts[1]
        else:
            has = "has_%s_%s" % (parts[0], parts[1])
        if has in cols and not cols[has][row]:
            return None
        ext = []
        for dn in dims_of[path][1:]:
            if dn == "replication":
                ext.append(int(cols["replications"][row]))
            elif "n_" + dn in cols:
                ext.append(int(cols["n_" + dn][row]))
            else:
                ext.append(out[dn].shape[0])
        return ext

    # row checksums, from the 2.0 file alone
    tcov = [s(x) for x in out["points/crc32"].attrs["covers"]]
    acov = [s(x) for x in out["points/crc32_arrays"].attrs["covers"]]
    for path in tcov + acov:  # absolute paths, as the docs give them
        if not path.startswith("/"):
            fail("covers %r: not an absolute path" % path)
    tcov = [x.lstrip("/") for x in tcov]
    acov = [x.lstrip("/") for x in acov]
    for row in range(P):
        c = zlib.crc32(int(ids[row]).to_bytes(8, "little"))
        for path in tcov:
            d = data(path)
            c = zlib.crc32(element_bytes(d[row], d.dtype), c)
        if c != int(cols["crc32"][row]):
            fail("/points/crc32 of point %d: %08x stored, %08x recomputed" % (
                ids[row], int(cols["crc32"][row]), c))
        c = zlib.crc32(int(ids[row]).to_bytes(8, "little"))
        for path in acov:
            ext = extent(path, row)
            if ext is None:
                continue
            a = data(path)[row][tuple(slice(0, n) for n in ext)]
            t = "<f8" if a.dtype.kind == "f" else "<u8" if a.dtype.kind == "u" else "<i8"
            c = zlib.crc32(np.ascontiguousarray(a.astype(t)).tobytes(), c)
        if c != int(cols["crc32_arrays"][row]):
            fail("/points/crc32_arrays of point %d: %08x stored, %08x recomputed" % (
                ids[row], int(cols["crc32_arrays"][row]), c))

    # values, point by point against the source
    nval = 0
    seen = set()
    for row, pid in enumerate(ids):
        g = src["points/%06d" % pid]
        for k, v in g.attrs.items():
            if k in ("model", "status", "crc32"):
                continue
            if k not in cols:
                fail("point %d: attribute %s has no column" % (pid, k))
            elif not (same(cols[k][row], v) or s(cols[k][row]) == s(v)):
                fail("point %d: %s = %r, column %r" % (pid, k, v, cols[k][row]))
        items = []
        for name, og in g["observables"].items():
            for dn, d in og.items():
                if dn == "bin_edges":
                    lay = s(og.attrs.get("histogram_kind", ""))
                    names = [s(x) for x in out["observables/" + name].attrs["layouts"]]
                    li = int(data("observables/%s/layout" % name)[row])
                    edges = out["layouts/" + names[li]][()]
                    if not same(edges, d[()]):
                        fail("point %d: %s's layout %s is not its bin edges (%s)" % (
                            pid, name, names[li], lay))
                    continue
                items.append(("observables/%s/%s" % (name, dn), d))
        for grp in ("replications", "theory", "comparison"):
            for name, d in g[grp].items():
                items.append(("%s/%s" % (grp, name), d))
        for path, d in items:
            seen.add(path)
            if path not in out:
                fail("point %d: %s missing from the 2.0 file" % (pid, path))
                continue
            v1 = d[()]
            r = data(path)[row]
            if np.ndim(r) == 0:
                if np.size(v1) != 1 or not same(np.reshape(v1, ()), r):
                    fail("point %d: %s = %r, row %r" % (pid, path, v1, r))
                nval += 1
                continue
            v1 = np.asarray(v1)
            if v1.ndim != r.ndim:
                fail("point %d: %s of rank %d, row of rank %d" % (pid, path, v1.ndim, r.ndim))
                continue
            cut = tuple(slice(0, n) for n in v1.shape)
            if not same(r[cut], v1):
                fail("point %d: %s differs from its row" % (pid, path))
            rest = r.astype(np.float64).copy()
            rest[cut] = np.nan if r.dtype.kind == "f" else 0
            fill_ok = np.all(np.isnan(rest)) if r.dtype.kind == "f" else np.all(rest == 0)
            if not fill_ok:
                fail("point %d: %s: the row past the point's extent is not the fill" % (pid, path))
            ext = extent(path, row)
            if ext is None or list(ext) != list(v1.shape):
                fail("point %d: %s: extent %s from the n_ columns, the point's shape %s" % (
                    pid, path, ext, v1.shape))
            nval += v1.size
    # quantities a point lacks: fill, and has_ = 0 (checked through extent above for present)
    for path in dims_of:
        if path.split("/")[0] not in GROUPS or path in seen:
            continue
        if path.endswith("/layout"):
            continue
        fail("%s: in the 2.0 file, at no point of the source" % path)
    print("convert_check: %s -> %s: %d points, %d values, %d objects' checksums, %d row "
          "checksums: %s" % (src_path, out_path, P, nval, nobj, 2 * P,
                             "ok" if not failures else "%d FAILURES" % len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
