#!/usr/bin/env python3
"""Write copies of a real storq results file damaged below storq's checks, in HDF5's own
structures (for e2e_damaged_files.sh).

usage: craft_damaged_h5.py REAL.h5 OUTDIR

  header.h5  the object header of /points/000001 overwritten: HDF5 cannot open the point
  heap.h5    the first global heap object (a root attribute's string) claims 64 KiB more than
             its collection holds: HDF5 1.10 reads past it and crashes (SIGSEGV)
  flipped.h5 one bit of /points/000000/observables/mean_job_delay/mean changed
"""
import os
import shutil
import struct
import sys

import h5py

real, out = sys.argv[1], sys.argv[2]


def copy(name):
    path = os.path.join(out, name + ".h5")
    shutil.copy(real, path)
    return path


def patch(path, offset, fn):
    with open(path, "r+b") as raw:
        raw.seek(offset)
        data = bytearray(raw.read(16))
        fn(data)
        raw.seek(offset)
        raw.write(bytes(data))


with h5py.File(real, "r") as f:
    header = h5py.h5o.get_info(f["/points/000001"].id).addr
    value = f["/points/000000/observables/mean_job_delay/mean"].id.get_offset()


def stomp(d):
    d[0:4] = b"XXXX"  # the signature (v2 header) or version and counts (v1): unreadable


patch(copy("header"), header, stomp)

path = copy("heap")
with open(path, "rb") as raw:
    data = raw.read()
gcol = data.index(b"GCOL")  # the first global heap collection: the root's strings
# objects start 16 bytes in: index u16, refcount u16, reserved u32, size u64
index, = struct.unpack_from("<H", data, gcol + 16)
assert index != 0, "no object in the first global heap collection"


def grow(d):
    d[10] ^= 1  # the size's third byte: 64 KiB more


patch(path, gcol + 16, grow)


def flip(d):
    d[3] ^= 0x10


patch(copy("flipped"), value, flip)
