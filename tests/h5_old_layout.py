#!/usr/bin/env python3
"""Rewrite a storq results file (schema 1.3) in place into the layout of the files written before
1.3, for the readers' compatibility tests: every histogram's bin_edges, a soft link into /layouts,
becomes a contiguous dataset of its own (its data and crc32 copied, as storq wrote them then),
/layouts goes, and format_version goes back to what it stated then ([1, 1] for a task's file,
[1, 2] while it holds checkpoints, else [1, 0]).

    h5_old_layout.py FILE.h5
"""
import sys

import h5py
import numpy as np


def main(path):
    with h5py.File(path, "r+") as f:
        groups = []
        f.visititems(lambda name, obj: groups.append(obj) if isinstance(obj, h5py.Group) else None)
        for g in groups:
            link = g.get("bin_edges", getlink=True)
            if not isinstance(link, h5py.SoftLink):
                continue
            shared = f[link.path]
            data, crc = shared[()], shared.attrs["crc32"]
            del g["bin_edges"]
            d = g.create_dataset("bin_edges", data=data, track_times=False)
            d.attrs.create("crc32", crc, dtype=np.uint32)
        if "layouts" in f:
            del f["layouts"]
        minor = 2 if "checkpoints" in f else (1 if int(f.attrs.get("task_count", 1)) > 1 else 0)
        f.attrs["format_version"] = np.array([1, minor], dtype=np.int32)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
