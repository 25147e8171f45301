#!/usr/bin/env python3
"""Write damaged and crafted copies of a real storq results file (for e2e_crafted_files.sh).

usage: craft_h5.py REAL.h5 OUTDIR

Each OUTDIR/NAME.h5 is REAL.h5 with one thing wrong; prints NAME and the object the refusal must
name, one per line."""
import os
import shutil
import sys

import h5py
import numpy as np

real, out = sys.argv[1], sys.argv[2]
P = "/points/000000"


def copy(name):
    path = os.path.join(out, name + ".h5")
    shutil.copy(real, path)
    return path


def edit(name, expect, fn):
    path = copy(name)
    with h5py.File(path, "r+") as f:
        fn(f)
    print(name, expect)


def replace(f, path, **kw):
    parent, leaf = path.rsplit("/", 1)
    attrs = dict(f[path].attrs)
    del f[path]
    d = f[parent].create_dataset(leaf, **kw)
    for k, v in attrs.items():
        if k != "crc32":
            d.attrs[k] = v


def huge_index(f):
    d = f["/points/index"]
    dt, units = d.dtype, d.attrs["units"]
    del f["/points/index"]
    f["/points"].create_dataset("index", shape=(10**9,), dtype=dt).attrs["units"] = units


edit("huge_index", "/points/index", huge_index)
edit("huge_mean", P + "/observables/u/mean",
     lambda f: replace(f, P + "/observables/u/mean", shape=(10**9, 3), dtype="f8"))
edit("huge_units", "/run/units", lambda f: f["/run/units"].resize((10**9,)))
edit("wrong_dtype", P + "/observables/mean_job_delay/mean",
     lambda f: replace(f, P + "/observables/mean_job_delay/mean", data=np.int32(3)))
edit("wrong_rank", P + "/observables/u/stderr",
     lambda f: replace(f, P + "/observables/u/stderr", data=np.zeros((2, 2, 2))))
edit("wrong_reps_shape", P + "/replications/mean_job_delay",
     lambda f: replace(f, P + "/replications/mean_job_delay", data=np.zeros(7)))


def external_link(f):
    with h5py.File(os.path.join(out, "elsewhere.h5"), "w") as g:
        g["x"] = np.zeros(3)
    f[P + "/theory/outside"] = h5py.ExternalLink("elsewhere.h5", "/x")


edit("external_link", P + "/theory/outside", external_link)


def virtual(f):
    layout = h5py.VirtualLayout(shape=(8,), dtype="f8")
    layout[:] = h5py.VirtualSource(os.path.join(out, "elsewhere.h5"), "/x", shape=(8,))
    del f[P + "/theory/u"]
    f[P + "/theory"].create_virtual_dataset("u", layout)


edit("virtual_dataset", P + "/theory/u", virtual)


def external_storage(f):
    del f[P + "/theory/u"]
    f[P + "/theory"].create_dataset("u", shape=(8,), dtype="f8",
                                    external=[(os.path.join(out, "raw.bin"), 0, 64)])


edit("external_storage", P + "/theory/u", external_storage)
edit("soft_link", "/points/000001", lambda f: (f.__delitem__("/points/000001"),
                                               f.__setitem__("/points/000001", h5py.SoftLink(P))))
edit("wrong_model", P, lambda f: f[P].attrs.__setitem__("model", "cluster"))
edit("wrong_param", P, lambda f: f[P].attrs.__setitem__("n", np.int64(21)))
edit("wrong_replications", P,
     lambda f: f[P].attrs.__setitem__("replications", np.uint64(4)))
edit("foreign_point", "/points/000099", lambda f: f.copy(P, "/points/000099"))


def flip_bit(name, dataset):
    """One bit of a stored value changed in the file's bytes, as a bad disk or copy would."""
    path = copy(name)
    with h5py.File(path, "r") as f:
        offset = f[dataset].id.get_offset()
    with open(path, "r+b") as raw:
        raw.seek(offset + 3)
        b = raw.read(1)[0]
        raw.seek(offset + 3)
        raw.write(bytes([b ^ 0x10]))
    print(name, dataset)


flip_bit("flipped_scalar_mean", P + "/observables/mean_job_delay/mean")
flip_bit("flipped_vector_mean", P + "/observables/u/mean")
flip_bit("flipped_replications", P + "/replications/mean_job_delay")

path = copy("truncated")
os.truncate(path, os.path.getsize(path) // 2)
print("truncated", "-")
