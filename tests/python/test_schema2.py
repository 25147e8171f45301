"""Schema 2.0 (docs/hdf5-schema-2.md) through the Python package: every file of the regression
corpus (tests/corpus/run.sh: every model; ragged levels, per-point histogram layouts, quantities
present at some points only, length-1 theory arrays) is converted to 2.0, and every public call
must give the same values, types and shapes on the 1.x file and its conversion; the converted
file passes tests/check_h5_schema.py --against its source; a value changed without its checksum
raises DamagedFile naming the point.

The converter is a parameter: STORQ_CONVERT, a command given IN.h5 OUT.h5 (default: the h5py
reference converter, `/usr/bin/python3 tests/convert_reference.py`); with the C converter:
STORQ_CONVERT="build/storq convert".
"""
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import h5py
import numpy as np
import pandas as pd
import pytest

import storq
from conftest import storq_bin

ROOT = Path(__file__).resolve().parents[2]
CHECKER = ROOT / "tests" / "check_h5_schema.py"
CORPUS = ["cl_coupled", "cl_laws", "cl_single", "fj_det", "fj_mix", "mmc_queue", "px_classes",
          "px_coupled", "sm_batch", "sm_steady", "sm_transient", "th_bounds", "th_bounds_nlu",
          "th_coupled"]


def converter():
    cmd = os.environ.get("STORQ_CONVERT")
    if cmd:
        return shlex.split(cmd)
    return [sys.executable, str(ROOT / "tests" / "convert_reference.py")]


@pytest.fixture(scope="session")
def corpus(tmp_path_factory):
    """{name: (1.x file, its 2.0 conversion)}"""
    d = tmp_path_factory.mktemp("corpus")
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    subprocess.run(["bash", str(ROOT / "tests" / "corpus" / "run.sh"), storq_bin(), str(d / "1")],
                   check=True, env=env, stdout=subprocess.DEVNULL)
    (d / "2").mkdir()
    out = {}
    for name in CORPUS:
        src, dst = d / "1" / f"{name}.h5", d / "2" / f"{name}.h5"
        subprocess.run(converter() + [str(src), str(dst)], check=True, stdout=subprocess.DEVNULL)
        out[name] = (src, dst)
    return out


def same(a, b, where):
    """Equal values of equal types: arrays by dtype, shape and value (NaN equal to NaN), frames
    by pandas' exact comparison (dtypes included)."""
    if isinstance(a, dict):
        assert isinstance(b, dict) and set(a) == set(b), (where, set(a) ^ set(b))
        for k in a:
            same(a[k], b[k], f"{where}[{k}]")
    elif isinstance(a, pd.DataFrame):
        pd.testing.assert_frame_equal(a, b, check_exact=True, obj=where)
        same(a.attrs, b.attrs, where + ".attrs")
    elif isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        assert isinstance(a, np.ndarray) and isinstance(b, np.ndarray), (where, type(a), type(b))
        assert a.dtype == b.dtype and a.shape == b.shape, (where, a.dtype, b.dtype, a.shape,
                                                            b.shape)
        assert np.array_equal(a, b, equal_nan=a.dtype.kind == "f"), (where, a, b)
    elif isinstance(a, (list, tuple)):
        assert type(a) is type(b) and len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b)):
            same(x, y, f"{where}[{i}]")
    elif isinstance(a, float) and np.isnan(a):
        assert isinstance(b, float) and np.isnan(b), where
    else:
        assert type(a) is type(b) and a == b, (where, a, b)


def compare_all(a, b):
    """Every public call of storq.open on a 1.x file (a) and its 2.0 conversion (b)."""
    same(a.points(), b.points(), "points")
    same(a.point_status(), b.point_status(), "point_status")
    same(a.state, b.state, "state")
    same(a.index, b.index, "index")
    same(a.parameters, b.parameters, "parameters")
    same(dict(a.units), dict(b.units), "units")
    same(a.checkpoints(), b.checkpoints(), "checkpoints")
    same(a.work_units(), b.work_units(), "work_units")
    same(a.sessions(), b.sessions(), "sessions")
    for pid in a.points():
        same(a.params(pid), b.params(pid), f"params({pid})")
        same(a.point_attrs(pid), b.point_attrs(pid), f"point_attrs({pid})")
        same(a.observables(pid), b.observables(pid), f"observables({pid})")
        for n, kind in a.observables(pid).items():
            same(a.observable(pid, n), b.observable(pid, n), f"observable({pid}, {n})")
            same(a.replications(pid, n), b.replications(pid, n), f"replications({pid}, {n})")
            if kind == "histogram":
                same(a.histogram(pid, n), b.histogram(pid, n), f"histogram({pid}, {n})")
                same(a.quantiles(pid, n), b.quantiles(pid, n), f"quantiles({pid}, {n})")
                q = [0, 0.1, 0.5, 0.99, 1]
                same(a.quantile(pid, n, q), b.quantile(pid, n, q), f"quantile({pid}, {n})")
                same(a.cdf(pid, n), b.cdf(pid, n), f"cdf({pid}, {n})")
            if kind == "vector":
                same(a.vector(pid, n), b.vector(pid, n), f"vector({pid}, {n})")
        for g in ("theory", "comparison"):
            names = getattr(a, g + "_names")(pid)
            same(names, getattr(b, g + "_names")(pid), f"{g}_names({pid})")
            for n in names:
                same(getattr(a, g)(pid, n), getattr(b, g)(pid, n), f"{g}({pid}, {n})")
                same(a.array_attrs(pid, g, n), b.array_attrs(pid, g, n),
                     f"array_attrs({pid}, {g}, {n})")
        with pytest.raises(KeyError) as ea:
            a.observable(pid, "no_such_observable")
        with pytest.raises(KeyError) as eb:
            b.observable(pid, "no_such_observable")
        assert str(ea.value).replace(str(a.path), "") == str(eb.value).replace(str(b.path), "")
    same(a.table(), b.table(), "table")
    same(a.frame(), b.frame(), "frame")
    same(a.wide(), b.wide(), "wide")
    xa, xb = a.to_xarray(), b.to_xarray()
    assert xa.identical(xb), (xa, xb)


@pytest.mark.parametrize("name", CORPUS)
def test_same_results(corpus, name):
    src, dst = corpus[name]
    with storq.open(src) as a, storq.open(dst) as b:
        assert b.version[0] == 2 and a.version[0] == 1
        compare_all(a, b)
    with storq.open(dst, verify=False) as b, storq.open(src, verify=False) as a:
        same(a.frame(), b.frame(), "frame (verify=False)")
    with storq.open(dst) as b:
        b.verify()  # every row's arrays too


@pytest.mark.parametrize("name", CORPUS)
def test_checker_against_source(corpus, name):
    src, dst = corpus[name]
    proc = subprocess.run([sys.executable, str(CHECKER), str(dst), "--against", str(src)],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "schema 2.0 OK" in proc.stdout


def test_report_on_converted_file(corpus, tmp_path):
    import storq.report

    for name in ("sm_steady", "cl_single"):
        src, dst = corpus[name]
        out_a, out_b = tmp_path / f"{name}_1.html", tmp_path / f"{name}_2.html"
        assert storq.report.main([str(src), "--html", str(out_a)]) == 0
        assert storq.report.main([str(dst), "--html", str(out_b)]) == 0
        ta, tb = out_a.read_text(), out_b.read_text()
        # the same table of points (the run's metadata holds the version and the path; the
        # figures' PNG bytes may differ)
        table = lambda t: t[t.index("<h2>Points"):t.index("<h2>Figures")]  # noqa: E731
        assert table(ta) == table(tb)
        assert ta.count("src='data:image/png") == tb.count("src='data:image/png")


def _copy(corpus, name, tmp_path):
    dst = tmp_path / f"{name}_damaged.h5"
    shutil.copy(corpus[name][1], dst)
    return dst


def test_flipped_number_names_the_point(corpus, tmp_path):
    """A per-point number changed without its row checksum: storq.open refuses the file, naming
    /points/crc32 and the point; verify=False reads the other points."""
    dst = _copy(corpus, "sm_steady", tmp_path)
    with h5py.File(dst, "r+") as f:
        d = f["observables/mean_job_delay/mean"]
        v = d[()]
        row = int(np.flatnonzero(np.isfinite(v))[-1])  # a point that has it
        pid = int(f["point"][row])
        v[row] = 2 * v[row]
        d[...] = v  # the dataset's attribute crc32 is of its attributes: unchanged
    with pytest.raises(storq.DamagedFile, match=f"point {pid}") as e:
        storq.open(dst)
    assert e.value.object == "/points/crc32" and e.value.point == pid
    assert str(dst) in str(e.value)
    with storq.open(dst, verify=False) as r:
        with pytest.raises(storq.DamagedFile, match=f"point {pid}"):
            r.observable(pid, "mean_job_delay")
        other = [p for p in r.points() if p != pid and "mean_job_delay" in r.observables(p)][0]
        assert r.observable(other, "mean_job_delay")["mean"] > 0
        with pytest.raises(storq.DamagedFile, match=f"point {pid}"):
            r.frame()


def test_flipped_array_names_the_point(corpus, tmp_path):
    """An array element changed without its row checksum: the point's arrays are refused when
    read (and by verify()), naming /points/crc32_arrays and the point."""
    dst = _copy(corpus, "sm_steady", tmp_path)
    with h5py.File(dst, "r+") as f:
        d = f["observables/u/mean"]
        v = d[()]
        row = int(np.flatnonzero(np.isfinite(v[:, 1]))[-1])
        pid = int(f["point"][row])
        v[row, 1] += 0.25
        d[...] = v
    with storq.open(dst) as r:  # the per-point numbers are whole: the table reads
        assert len(r.frame())
        with pytest.raises(storq.DamagedFile, match=f"point {pid}") as e:
            r.observable(pid, "u")
        assert e.value.object == "/points/crc32_arrays" and e.value.point == pid
        with pytest.raises(storq.DamagedFile, match=f"point {pid}"):
            r.verify()
        other = [p for p in r.points() if p != pid and "u" in r.observables(p)][0]
        assert r.observable(other, "u")["mean"][0] == 1.0


def test_flipped_attribute_names_the_object(corpus, tmp_path):
    dst = _copy(corpus, "sm_steady", tmp_path)
    with h5py.File(dst, "r+") as f:
        f["observables/mean_job_delay"].attrs["unit"] = "fortnight"
    with pytest.raises(storq.DamagedFile, match="attributes do not match") as e:
        storq.open(dst)
    assert e.value.object == "/observables/mean_job_delay"


def test_index_against_columns(corpus, tmp_path):
    """/points/index has no checksum: it must agree with the (checksummed) parameter columns."""
    dst = _copy(corpus, "sm_steady", tmp_path)
    with h5py.File(dst, "r+") as f:
        idx = f["points/index"][()]
        idx["n"][1] += 1
        f["points/index"][...] = idx
    with pytest.raises(storq.DamagedFile, match="/points/index says"):
        storq.open(dst)


def test_major_3_refused(corpus, tmp_path):
    dst = _copy(corpus, "sm_batch", tmp_path)
    with h5py.File(dst, "r+") as f:
        f.attrs["format_version"] = np.array([3, 0], np.int32)
    with pytest.raises(storq.FormatError, match="format version 3.0"):
        storq.open(dst)
