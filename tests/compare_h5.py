#!/usr/bin/env python3
"""Compare two storq results files bit for bit: every dataset and every attribute, except the
attributes that describe how and when the run was made (time, host, ranks, threads, wall time)."""
import sys

import h5py
import numpy as np

RUN_ATTRS = {"created", "hostname", "mpi_ranks", "omp_threads", "command_line", "wall_seconds",
             "git_commit", "storq_version"}


def items(f):
    out = {}
    f.visititems(lambda name, obj: out.__setitem__(name, obj))
    out["/"] = f
    return out


def same(a, b):
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.dtype.kind == "f":
        return a.tobytes() == b.tobytes()  # bit for bit, NaN included
    return np.array_equal(a, b)


def main(path_a, path_b):
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
                if key in RUN_ATTRS:
                    continue
                if key not in oa.attrs or key not in ob.attrs:
                    problems.append(f"{name}@{key}: attribute missing in one file")
                elif not same(oa.attrs[key], ob.attrs[key]):
                    problems.append(f"{name}@{key}: attribute differs")
    for p in problems[:40]:
        print(p)
    if problems:
        print(f"{path_a} and {path_b} differ in {len(problems)} place(s)")
        return 1
    print(f"{path_a} and {path_b} are identical (run-description attributes excepted)")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: compare_h5.py A.h5 B.h5")
    sys.exit(main(sys.argv[1], sys.argv[2]))
