#!/usr/bin/env python3
"""Compare two storq results files bit for bit: every dataset and every attribute, except the
attributes that describe how and when the run was made (time, host, ranks, threads, wall time)
and the run's record of its units (/run/units, /run/sessions, /run/ranks and their attributes on
/run).

    compare_h5.py A.h5 B.h5          compare two files
    compare_h5.py --digest A.h5      print one line per dataset and attribute: name and SHA-256 of
                                     its bytes (run-description attributes left out)
    compare_h5.py A.h5 DIGEST.txt    compare a file with a digest written earlier (the regression
                                     corpus in tests/corpus keeps digests, not files)
"""
import hashlib
import sys

import h5py
import numpy as np

RUN_ATTRS = {"created", "hostname", "mpi_ranks", "omp_threads", "command_line", "wall_seconds",
             "git_commit", "storq_version", "converted_from"}
# The run's record of itself (docs/hdf5-schema.md, "The run's units"): when and where each unit ran,
# which differs from run to run. Left out on both sides, so files and digests made before it
# existed still compare.
RUN_RECORD = {"run/units", "run/sessions", "run/ranks"}
RUN_RECORD_ATTRS = {"workers", "wall_seconds", "busy_seconds", "parallel_efficiency", "sessions",
                    "unit_seconds", "waiting_seconds", "idle_seconds", "serving_seconds",
                    "earlier_record_lost"}


# Every object of a point carries its checksum (docs/hdf5-schema.md, "What readers check"): a
# function of what is compared here, and of wall_seconds on the point group, so left out (files and
# digests made before checksums still compare). Readers verify it.
CHECKSUM_ATTRS = {"crc32"}


# Schema 2.0 keeps the per-point wall_seconds as a column, and the row checksum /points/crc32
# covers it: both differ between runs of the same results; every other column is compared.
RUN_COLUMNS = {"points/wall_seconds", "points/crc32"}


def ignored_attr(name, key):
    return key in RUN_ATTRS or key in CHECKSUM_ATTRS or (name == "run" and key in RUN_RECORD_ATTRS)


# Schema 1.3 stores each histogram layout's bin edges once, in /layouts, and links every
# histogram's bin_edges to them: what is compared is what a reader reads, the edges under each
# histogram's name (as files before 1.3 store them), so /layouts itself is storage, left out, and
# a file compares equal to the same results in the older layout.
LAYOUTS = "layouts"


def items(f):
    out = {}
    columnar = int(np.asarray(f.attrs.get("format_version", [1, 0]))[0]) == 2

    def walk(group, prefix):
        for key in group:
            name = prefix + key
            if name == LAYOUTS or name in RUN_RECORD or (columnar and name in RUN_COLUMNS):
                continue
            obj = group[key]  # follows soft links
            out[name] = obj
            if isinstance(obj, h5py.Group):
                walk(obj, name + "/")
    walk(f, "")
    out["/"] = f
    return out


def by_name(f, value):
    """Schema 2.0's dimension scales tie datasets together with object references (the
    DIMENSION_LIST and REFERENCE_LIST attributes), which are addresses in the file: compared by the
    names of the objects they point to."""
    a = np.asarray(value)
    if a.dtype.kind == "O" and a.size and isinstance(a.ravel()[0], np.ndarray):
        return np.array([f[r].name for row in a.ravel() for r in row], dtype=object)
    if a.dtype.names and "dataset" in a.dtype.names:
        return np.array([(f[r].name, int(d)) for r, d in a.tolist()], dtype=object)
    return value


def same(a, b):
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.dtype.kind == "f":
        return a.tobytes() == b.tobytes()  # bit for bit, NaN included
    return np.array_equal(a, b)


def fingerprint(value):
    a = np.asarray(value)
    h = hashlib.sha256(f"{a.dtype.str}{a.shape}".encode())
    if a.dtype.kind == "O":  # variable-length strings
        for s in a.ravel():
            h.update(s if isinstance(s, bytes) else str(s).encode())
            h.update(b"\0")
    else:
        h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()[:32]


def digest(path):
    """{name or name@attr: fingerprint} of everything compare() looks at."""
    out = {}
    with h5py.File(path, "r") as f:
        for name, obj in items(f).items():
            if isinstance(obj, h5py.Dataset):
                out[name] = fingerprint(obj[()])
            else:
                out[name] = "group"
            for key in obj.attrs:
                if not ignored_attr(name, key):
                    out[f"{name}@{key}"] = fingerprint(by_name(f, obj.attrs[key]))
    return out


def read_digest(path):
    with open(path) as f:
        return dict(line.rstrip("\n").rsplit(" ", 1) for line in f if line.strip())


def compare_files(path_a, path_b):
    problems = []
    with h5py.File(path_a, "r") as fa, h5py.File(path_b, "r") as fb:
        ia, ib = items(fa), items(fb)
        for name in sorted(set(ia) ^ set(ib)):
            problems.append(f"{name}: only in {'first' if name in ia else 'second'} file")
        for name in sorted(set(ia) & set(ib)):
            oa, ob = ia[name], ib[name]
            if isinstance(oa, h5py.Dataset) and not same(oa[()], ob[()]):
                problems.append(f"{name}: data differ")
            for key in sorted(set(oa.attrs) | set(ob.attrs)):
                if ignored_attr(name, key):
                    continue
                if key not in oa.attrs or key not in ob.attrs:
                    problems.append(f"{name}@{key}: attribute missing in one file")
                elif not same(by_name(fa, oa.attrs[key]), by_name(fb, ob.attrs[key])):
                    problems.append(f"{name}@{key}: attribute differs")
    return problems


def compare_digest(path_a, digest_path):
    da, db = digest(path_a), read_digest(digest_path)
    problems = [f"{k}: only in {'the file' if k in da else 'the digest'}" for k in sorted(set(da) ^ set(db))]
    problems += [f"{k}: differs" for k in sorted(set(da) & set(db)) if da[k] != db[k]]
    return problems


def main(argv):
    if len(argv) == 2 and argv[0] == "--digest":
        for k, v in sorted(digest(argv[1]).items()):
            print(k, v)
        return 0
    if len(argv) != 2:
        sys.exit(__doc__)
    a, b = argv
    problems = compare_digest(a, b) if not b.endswith(".h5") else compare_files(a, b)
    for p in problems[:40]:
        print(p)
    if problems:
        print(f"{a} and {b} differ in {len(problems)} place(s)")
        return 1
    print(f"{a} and {b} are identical (run-description attributes excepted)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
