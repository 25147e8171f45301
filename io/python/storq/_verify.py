"""What the Python reader checks before it returns a point's values (docs/hdf5-schema.md, "What
readers check"): the point's status and the CRC-32 checksums storq stamps on every object of a
point group (io/h5_checksum.c computes the same bytes; tests/check_h5_schema.py a third time).

A damaged value is never returned: a mismatch raises DamagedFile naming the file and the object.
"""
import json
import mmap
import os
import select
import signal
import struct
import time
import zlib

import h5py
import numpy as np

from .errors import DamagedFile

_WIDE = {"f": "<f8", "i": "<i8", "u": "<u8"}

# In a guarded child: the count of objects it has read, in memory shared with its parent, which
# stops the child only when the count stands still (see guarded). None elsewhere.
_beat = None


def beat():
    """One more object read (progress, for guarded's limit); nothing outside a guarded child."""
    if _beat is not None:
        struct.pack_into("<Q", _beat, 0, struct.unpack_from("<Q", _beat)[0] + 1)


def _raw(e):
    """A string element's stored bytes: h5py decodes UTF-8 with surrogateescape, so bytes that
    are not UTF-8 come back as they were."""
    if isinstance(e, str):
        return e.encode("utf-8", "surrogateescape")
    return bytes(e)


def _value_crc(crc, dtype, shape, value):
    """One value: class, rank, dims (uint64 LE), then the elements (io/h5_checksum.c)."""
    is_str = h5py.check_string_dtype(dtype) is not None or dtype.kind == "S"
    cls = "s" if is_str else {"f": "f", "i": "i", "u": "u"}.get(dtype.kind)
    if cls is None:
        return None
    crc = zlib.crc32(cls.encode() + bytes([len(shape)]) +
                     b"".join(struct.pack("<Q", d) for d in shape), crc)
    if is_str:
        for e in np.asarray(value, dtype=object).ravel():
            crc = zlib.crc32(_raw(e).split(b"\0")[0] + b"\0", crc)
        return crc
    return zlib.crc32(np.asarray(value).astype(_WIDE[cls]).tobytes(), crc)


def object_crc(obj, skip=("crc32", "status"), data=True):
    """The checksum of one group or dataset (attributes in name order but those in skip, then
    its data unless data is False: schema 2.0's attributes-only checksum); None when it holds a
    type storq does not write."""
    crc = 0
    for name in sorted(obj.attrs.keys(), key=_raw):
        if name in skip:
            continue
        aid = obj.attrs.get_id(name)
        crc = _value_crc(zlib.crc32(_raw(name) + b"\0", crc), aid.dtype, aid.shape,
                         obj.attrs[name])
        if crc is None:
            return None
    if data and isinstance(obj, h5py.Dataset):
        crc = _value_crc(zlib.crc32(b"\0", crc), obj.dtype, obj.shape, obj[()])
    return crc


def _objects(group):
    """Every object of a point group, following the soft links of 1.3 into /layouts."""
    out = [group]
    if isinstance(group, h5py.Group):
        for name in group:
            out += _objects(group[name])
    return out


def verify_point(path, group):
    """Raise DamagedFile unless every object of a complete point group matches its checksum. A
    point written before checksums (no crc32 on the group) is read unchecked, as storq info does."""
    where = group.name
    try:
        if "crc32" not in group.attrs:
            return
        for obj in _objects(group):
            where = obj.name
            beat()
            if "crc32" not in obj.attrs:
                raise DamagedFile(path, where, "no checksum (attribute 'crc32') though its point "
                                  "has one: the file is damaged or was altered")
            stored = np.asarray(obj.attrs["crc32"])
            now = object_crc(obj)
            if stored.shape != () or stored.dtype.kind not in "iu":
                raise DamagedFile(path, where, "its checksum is not a 32-bit number")
            if now != int(stored):
                raise DamagedFile(path, where, "its data or attributes do not match the checksum "
                                  f"written with them (crc32 {int(stored):08x} stored, "
                                  f"{'unreadable' if now is None else format(now, '08x')} now)")
    except DamagedFile:
        raise
    except (OSError, KeyError, ValueError, TypeError, RuntimeError, AttributeError) as e:
        # HDF5 cannot read what the file says is there: a damaged object header or heap
        raise DamagedFile(path, where, f"cannot be read ({e})") from e


def _check_timeout():
    """STORQ_CHECK_TIMEOUT in seconds, as io/h5_guard.c reads it: 600 unless a number > 0."""
    try:
        value = float(os.environ.get("STORQ_CHECK_TIMEOUT", "600"))
    except ValueError:
        return 600.0
    return value if value > 0 else 600.0  # nan and <= 0 too; inf: no limit, as in C


def guarded(path, check):
    """Run check() in a forked child: HDF5 1.10 trusts its own metadata and may crash (SIGSEGV)
    on a damaged heap or B-tree, which would end the reader's process with no word. A crash
    becomes DamagedFile ("damaged HDF5 structure"); a DamagedFile in the child is raised here.
    Other errors are left for the caller to meet in its own reading (a lock, a wrong format)."""
    global _beat
    if not hasattr(os, "fork"):
        return check()
    rfd, wfd = os.pipe()
    shared = mmap.mmap(-1, 8)  # anonymous and shared with the child
    pid = os.fork()
    if pid == 0:  # the child: one verdict, then _exit (no h5py or atexit cleanup twice)
        try:
            _beat = shared
            os.close(rfd)
            verdict = b"ok"
            try:
                check()
            except DamagedFile as e:
                verdict = json.dumps([e.object, e.what, e.point]).encode()
            except Exception:  # noqa: BLE001 - the parent meets it again and reports it
                pass
            os.write(wfd, verdict)
        finally:
            os._exit(0)
    os.close(wfd)
    # damaged metadata can also send HDF5 round a loop: a child that reads no further object for
    # STORQ_CHECK_TIMEOUT seconds (600 by default) is stopped and the file called damaged. The
    # limit is on progress, not on the whole read, which for a healthy file of 10^5 points takes
    # longer than any fixed limit.
    limit = _check_timeout()
    chunks, start, status, seen = [], time.monotonic(), None, 0
    while status is None:
        count = struct.unpack_from("<Q", shared)[0]
        if count != seen:  # the child read on: its limit starts again
            seen, start = count, time.monotonic()
        if select.select([rfd], [], [], 0.05)[0]:
            chunk = os.read(rfd, 65536)
            if chunk:
                chunks.append(chunk)
                continue
        done, st = os.waitpid(pid, os.WNOHANG)
        if done:
            status = st
        elif time.monotonic() - start > limit:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            os.close(rfd)
            raise DamagedFile(path, "/", f"damaged HDF5 structure: HDF5 read no further object "
                              f"of it in {limit:g} s (STORQ_CHECK_TIMEOUT)")
    while True:
        chunk = os.read(rfd, 65536)
        if not chunk:
            break
        chunks.append(chunk)
    os.close(rfd)
    shared.close()
    data = b"".join(chunks)
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        raise DamagedFile(path, "/", f"damaged HDF5 structure: HDF5 crashed reading it (signal "
                          f"{sig}, {signal.Signals(sig).name})")
    if data != b"ok":
        if not data:
            raise DamagedFile(path, "/", "its check ended without a verdict")
        obj, what, *point = json.loads(data)
        raise DamagedFile(path, obj, what, point[0] if point else None)
