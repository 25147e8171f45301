"""The Python reader on files it must not misread (QA of 2026-12-05):

- /points/index carries no checksum, and table(), frame() and wide() took a point's parameters
  from it: a changed cell (a string, a number) came back as the point's value. Now a complete
  point's row must equal its checksummed attributes (as storq info checks), else DamagedFile;
  storq info refuses the same copies (the C reader, an independent check of the same rule).
- table() and frame() gave the integer parameters of an all-numeric model (mmc) as floats.
- python3 -m storq.report run.h5 --html run.h5 (or --plot, or another results file) replaced a
  results file by the report; now refused, exit 2.
- quantiles() at a NaN level raised IndexError; now the ValueError of a level outside [0, 1].
- STORQ_CHECK_TIMEOUT that is not a number raised ValueError; now 600 s, as storq info reads it.
- A file cut short, a file that is not HDF5 and a file a run still holds locked gave h5py's bare
  OSError; now DamagedFile, FormatError, and a BlockingIOError that says a run is writing it.

Usage: test_python_reader_trust.py STORQ WORKDIR
"""
import os
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "io", "python"))
import h5py  # noqa: E402
import numpy as np  # noqa: E402

import storq  # noqa: E402

storq_bin, work = sys.argv[1], sys.argv[2]
os.makedirs(work, exist_ok=True)
os.chdir(work)
failures = []


def check(cond, what):
    print(("ok: " if cond else "FAIL: ") + what)
    if not cond:
        failures.append(what)


def expect(exc, what, fn, text=""):
    try:
        fn()
    except exc as e:
        check(text in str(e), f"{what}: {type(e).__name__}: {e}")
        return
    except Exception as e:  # noqa: BLE001 - the wrong kind of refusal is a failure too
        check(False, f"{what}: {type(e).__name__} instead of {exc.__name__}: {e}")
        return
    check(False, f"{what}: no exception (the damaged value was returned)")


for f in ("real.h5", "int.h5", "num.h5", "cut.h5", "strs.h5", "strs-alt.h5"):
    if os.path.exists(f):
        os.remove(f)
subprocess.run([storq_bin, "run", "mmc", "--c", "2", "--lambda", "0.5,1.5", "--warmup", "100",
                "--arrivals", "2000", "-r", "2", "--quiet", "-o", "real.h5"], check=True)
ref = storq.open("real.h5").table()
check(list(ref["lambda"]) == [0.5, 1.5], "the real file reads lambda 0.5, 1.5")
# mmc's parameters are all numbers: table() and frame() turned its integers (c, warmup,
# arrivals) into floats, as the index row went through one float Series
for what, df in (("table()", ref), ("frame()", storq.open("real.h5").frame())):
    kinds = {c: df[c].dtype.kind for c in ("c", "warmup", "arrivals", "lambda")}
    check(kinds == {"c": "i", "warmup": "i", "arrivals": "i", "lambda": "f"},
          f"{what} keeps integer parameters integers: {kinds}")
    check(list(df["arrivals"].unique()) == [2000] and type(df["c"].iloc[0].item()) is int,
          f"{what}: arrivals 2000 and c an int as written")


def altered(name, column, row, value):
    """A copy of real.h5 with one cell of /points/index changed (the points left as they are)."""
    shutil.copy("real.h5", name)
    with h5py.File(name, "r+") as f:
        index = f["/points/index"][()]
        index[column][row] = value
        f["/points/index"][...] = index
    return name


for name, column, row, value in (("num.h5", "lambda", 1, 1.25),
                                 ("int.h5", "c", 0, 3)):
    altered(name, column, row, value)
    expect(storq.DamagedFile, f"{name}: index {column}[{row}] changed: table()",
           lambda: storq.open(name).table(), "/points/index says")
    expect(storq.DamagedFile, f"{name}: index changed: table() with verify=False",
           lambda: storq.open(name, verify=False).table(), "/points/index says")
    expect(storq.DamagedFile, f"{name}: index changed: frame()",
           lambda: storq.open(name).frame(), "/points/index says")
    # the C reader refuses the same copy: the rule is the schema's, not this reader's
    info = subprocess.run([storq_bin, "info", name], capture_output=True, text=True)
    check(info.returncode == 2 and "/points/index" in info.stderr,
          f"{name}: storq info refuses it too (exit {info.returncode}: {info.stderr.strip()[:160]})")

# a string parameter (threads has several): its first letter's case changed
subprocess.run([storq_bin, "run", "threads", "--requests", "200", "-r", "2", "--quiet",
                "-o", "strs.h5"], check=True)
with h5py.File("strs.h5", "r") as f:
    index = f["/points/index"][()]
scol = next(c for c in index.dtype.names if index.dtype[c].kind == "S")
old = bytes(index[scol][0])
shutil.copy("strs.h5", "strs-alt.h5")
with h5py.File("strs-alt.h5", "r+") as f:
    rows = f["/points/index"][()]
    rows[scol][0] = bytes([old[0] ^ 0x20]) + old[1:]
    f["/points/index"][...] = rows
check(storq.open("strs.h5").table().shape[0] == 1, "threads file with string parameters reads")
expect(storq.DamagedFile, f"index string column '{scol}' changed: table()",
       lambda: storq.open("strs-alt.h5").table(), "/points/index says")

# cut short: one byte less
data = open("real.h5", "rb").read()
with open("cut.h5", "wb") as out:
    out.write(data[:-1])
expect(storq.DamagedFile, "a file cut short by one byte", lambda: storq.open("cut.h5"),
       "HDF5 cannot open it")
with open("text.h5", "w") as out:
    out.write("not HDF5\n" * 100)
expect(storq.FormatError, "a text file", lambda: storq.open("text.h5"), "not HDF5")
expect(FileNotFoundError, "a missing file", lambda: storq.open("missing.h5"))

# a file a run (here a stand-in writer) still holds open: HDF5's lock
holder = subprocess.Popen([sys.executable, "-c",
                           "import h5py, sys, time\n"
                           "f = h5py.File('real.h5', 'a')\n"
                           "print('open', flush=True)\n"
                           "sys.stdin.read()\n"],
                          stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                          env={k: v for k, v in os.environ.items() if k != "HDF5_USE_FILE_LOCKING"})
try:
    check(holder.stdout.readline().strip() == "open", "the stand-in writer holds real.h5 open")
    os.environ.pop("HDF5_USE_FILE_LOCKING", None)
    expect(BlockingIOError, "a file a writer holds locked", lambda: storq.open("real.h5"),
           "HDF5_USE_FILE_LOCKING=FALSE")
finally:
    holder.stdin.close()
    holder.wait(timeout=30)
check(np.array_equal(storq.open("real.h5").table()["lambda"], [0.5, 1.5]),
      "real.h5 reads again once the writer is gone")

# a NaN quantile level is refused like one outside [0, 1] (it raised IndexError from the bins)
expect(ValueError, "quantiles at NaN",
       lambda: storq.open("real.h5").quantiles(0, "waiting_time", [float("nan")]),
       "quantile levels must be in [0, 1]")

# storq.report never writes its HTML or figure over a results file (--html run.h5 replaced run.h5
# by HTML); the default FILE.html still works
before = open("real.h5", "rb").read()
shutil.copy("real.h5", "other.h5")
for opts in (["--html", "real.h5"], ["--html", "other.h5"], ["--no-html", "--plot", "real.h5"]):
    rep = subprocess.run([sys.executable, "-m", "storq.report", "real.h5", *opts],
                         capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": os.path.dirname(storq.__path__[0])})
    check(rep.returncode == 2 and "name another file" in rep.stderr,
          f"storq.report real.h5 {' '.join(opts)}: refused (exit {rep.returncode}: "
          f"{rep.stderr.strip()[:150]})")
check(open("real.h5", "rb").read() == before and h5py.is_hdf5("other.h5"),
      "real.h5 and other.h5 are untouched")
rep = subprocess.run([sys.executable, "-m", "storq.report", "real.h5"], capture_output=True,
                     text=True, env={**os.environ, "MPLBACKEND": "Agg",
                                     "PYTHONPATH": os.path.dirname(storq.__path__[0])})
check(rep.returncode == 0 and os.path.getsize("real.html") > 0,
      f"storq.report real.h5 writes real.html (exit {rep.returncode})")

# STORQ_CHECK_TIMEOUT that is not a number: 600 s, as storq info takes it (it raised ValueError)
for bad_value in ("x", "-1", "nan"):
    os.environ["STORQ_CHECK_TIMEOUT"] = bad_value
    try:
        storq.open("real.h5").table()
        check(True, f"STORQ_CHECK_TIMEOUT={bad_value}: the file reads (600 s)")
    except Exception as e:  # noqa: BLE001
        check(False, f"STORQ_CHECK_TIMEOUT={bad_value}: {type(e).__name__}: {e}")
os.environ.pop("STORQ_CHECK_TIMEOUT")

print(f"{len(failures)} failure(s)")
sys.exit(1 if failures else 0)
