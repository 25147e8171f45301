"""The analysis package on a small file of every model: frames, histograms, quantiles, vectors,
the xarray Dataset, an older minor schema version, and the package's installability."""
import math
import shutil
import subprocess
import sys
from pathlib import Path

import h5py
import numpy as np
import pytest

import storq
from conftest import MODELS, RUNS
from storq._verify import object_crc


@pytest.mark.parametrize("key", list(RUNS))
def test_frame_matches_file(files, key):
    with storq.open(files[key]) as r:
        f = r.frame()
        assert set(f.point) == set(r.points())
        assert set(r.parameters) <= set(f.columns)
        for pid in r.points():
            for name, kind in r.observables(pid).items():
                if kind != "scalar":
                    continue
                o = r.observable(pid, name)
                row = f[(f.point == pid) & (f.name == name) & (f.source == "observable")]
                assert len(row) == 1
                assert row["mean"].iloc[0] == pytest.approx(float(o["mean"]), nan_ok=True)
                assert row["ci95"].iloc[0] == pytest.approx(float(o["ci95"]), nan_ok=True)
                assert row["stderr"].iloc[0] == pytest.approx(float(o["stderr"]), nan_ok=True)
        w = r.wide()
        assert len(w) == len(r.points())
        assert list(w.columns[: 1 + len(r.parameters)]) == ["point", *r.parameters]
        t = r.table()
        for col in [c for c in t.columns if c.endswith("_ci95")]:
            np.testing.assert_allclose(w[col].values, t[col].values)


def test_theory_beside_observable(files):
    """The rule of storq info: theory whose grid names the observable goes beside it."""
    with storq.open(files["cluster"]) as r:
        f = r.frame()
        row = f[(f.point == 0) & (f.name == "BR_mean_delay")].iloc[0]
        assert row.theory_name == "product_form_mean"
        assert row.theory == pytest.approx(float(r.theory(0, "product_form_mean")[0]))
        assert "BR_mean_delay_theory" in r.wide()
    with storq.open(files["supermarket"]) as r:
        row = r.frame().query("point == 0 and name == 'mean_queue_length'").iloc[0]
        assert row.theory == pytest.approx(float(r.theory(0, "mean_queue_length")[0]))
        theory_rows = r.frame().query("source == 'theory'")
        assert "mean_queue_length" in set(theory_rows.name)


@pytest.mark.parametrize("key", MODELS)
def test_histograms_and_quantiles(files, key):
    with storq.open(files[key]) as r:
        pid = r.points()[-1]
        hists = [n for n, k in r.observables(pid).items() if k == "histogram"]
        assert hists
        for name in hists[:3]:
            h = r.histogram(pid, name)
            raw = r.observable(pid, name)
            assert int(h["count"].sum()) + h.attrs["underflow"] + h.attrs["overflow"] == int(raw["count"])
            assert np.all(np.diff(h.cdf.values) >= 0) and h.cdf.iloc[-1] <= 1 + 1e-12
            x, F = r.cdf(pid, name)
            np.testing.assert_allclose(h.cdf.values, F[1:])
            if raw["count"] == 0:
                continue
            inside = h.attrs["overflow"] == 0 and h.attrs["underflow"] == 0
            if inside:
                assert (h.density * (h.right - h.left)).sum() == pytest.approx(1.0)
            q = r.quantiles(pid, name, [0.5, 0.9, 0.99])
            assert list(q.columns) == ["q", "value", "error_bound", "relative_bound", "lower", "upper"]
            assert np.all(np.diff(q.value) >= 0)
            res = raw.get("relative_resolution")
            for _, row in q.iterrows():
                if math.isnan(row.error_bound):
                    continue
                if raw.get("histogram_kind") == "integer":
                    assert row.error_bound == 0
                else:  # the bin holding it is at most 2^-s times its lower edge wide
                    assert row.relative_bound <= res * (1 + 1e-12)
                    assert row.lower <= row.value <= row.upper


def test_quantile_bound_holds_on_known_samples(files):
    """The bound is honest: the exact median of the recorded samples lies within it. The samples
    are not in the file; for a point with integer histogram (queue length found by arrivals) the
    value is exact; for log-linear, the quantile of the bins' midpoints-free edges check: the
    true quantile lies in the bin whose edges bracket value +- bound."""
    with storq.open(files["supermarket"]) as r:
        q = r.quantiles(0, "arrival_queue_length", [0.5])
        assert q.error_bound.iloc[0] == 0 and q.value.iloc[0] == int(q.value.iloc[0])
        h = r.histogram(0, "task_sojourn")
        med = r.quantiles(0, "task_sojourn", [0.5]).iloc[0]
        # the CDF at the edges is exact: F(lower) <= 0.5 <= F(upper)
        F = np.interp([med.lower, med.upper], np.r_[h.left.iloc[0], h.right], np.r_[
            h.attrs["underflow"] / h.attrs["count"], h.cdf])
        assert F[0] <= 0.5 + 1e-9 and F[1] >= 0.5 - 1e-9


def test_vectors_with_axis(files):
    with storq.open(files["supermarket"]) as r:
        v = r.vector(1, "u")
        assert list(v.columns) == ["level", "mean", "stderr", "ci95", "theory"]
        np.testing.assert_array_equal(v.level, np.arange(len(v)))
        np.testing.assert_allclose(v.theory, r.theory(1, "u"))
        assert v.attrs["theory_name"] == "u"
    with storq.open(files["supermarket-transient"]) as r:
        v = r.vector(0, "u_t")
        rows, cols = v.attrs["shape"]
        assert len(v) == rows * cols and v.t.nunique() == rows
        assert "theory" in v  # the ODE on the same grid
        assert v.query("t == 0 and column == 0")["mean"].iloc[0] == 1.0
    with storq.open(files["cluster"]) as r:
        v = r.vector(0, "BR_class_mean_delay")
        assert v.attrs["axis_name"] == "k" and list(v.k) == [1, 2, 3, 4]
        np.testing.assert_allclose(v.theory, r.theory(0, "product_form_class_mean"))


def test_xarray_sweep(files):
    with storq.open(files["forkjoin"]) as r:
        ds = r.to_xarray()
        assert set(ds.dims) >= {"k", "mu"}
        w = r.wide()
        for _, row in w.iterrows():
            got = float(ds.mean_response_time.sel(k=row.k, mu=row.mu))
            assert got == row.mean_response_time
        assert ds.attrs["model"] == "forkjoin" and ds.attrs["n"] == 4
    with storq.open(files["supermarket"]) as r:
        ds = r.to_xarray()
        u = ds.u.sel(n=40)
        np.testing.assert_allclose(u.values[: len(r.observable(1, "u")["mean"])],
                                   r.observable(1, "u")["mean"])
        assert "u_theory" in ds


def test_xarray_zip_becomes_coordinate(tmp_path):
    """A zipped parameter fixed by an earlier one is a coordinate, not a dimension."""
    from conftest import storq_bin
    out = tmp_path / "zip.h5"
    subprocess.run([storq_bin(), "run", "supermarket", "--n", "20,40", "--warmup", "100,200",
                    "--arrivals", "2000", "--zip", "n,warmup", "-r", "2", "-o", str(out),
                    "--quiet"], check=True)
    with storq.open(out) as r:
        ds = r.to_xarray()
        assert "n" in ds.dims and "warmup" not in ds.dims
        assert list(ds.warmup.values) == [100, 200]


def _make_older(src, dst):
    """The file as a 1.0 writer before checksums, the steady-state check and the units record
    wrote it: those are dropped, the version set to [1, 0]."""
    shutil.copy(src, dst)
    with h5py.File(dst, "r+") as f:
        f.attrs["format_version"] = np.array([1, 0], np.int32)
        for name in ("run/units", "run/sessions", "run/ranks"):
            if name in f:
                del f[name]
        for pname, p in f["points"].items():
            if not pname.isdigit():
                continue
            for group in ("comparison",):
                for n in [n for n in p[group] if n.startswith("steady_state")]:
                    del p[group][n]
            p.visititems(lambda _n, o: o.attrs.__delitem__("crc32") if "crc32" in o.attrs else None)
            if "crc32" in p.attrs:
                del p.attrs["crc32"]


def _make_newer_minor(src, dst):
    """A later 1.x adds what this reader does not know: it must be ignored."""
    shutil.copy(src, dst)
    with h5py.File(dst, "r+") as f:
        f.attrs["format_version"] = np.array([1, 9], np.int32)
        f.create_group("future_group").attrs["note"] = "added by 1.9"
        d = f["points/000000"].create_dataset("theory/future_array", data=np.zeros(3))
        # a later writer stamps its additions below a point as this one does
        d.attrs["crc32"] = np.uint32(object_crc(d))


def test_arrays_without_pandas(files):
    # pandas is only recommended by the Debian package: import and arrays work without it, a
    # table says what to install
    code = ("import sys; sys.modules['pandas'] = None\n"
            "import storq\n"
            f"r = storq.open({str(files['supermarket'])!r})\n"
            "print(r.observable(0, 'u')['mean'][0])\n"
            "try:\n    r.table()\nexcept ImportError as e:\n    print('ImportError', e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env={"PYTHONPATH": str(Path(storq.__file__).parent.parent)})
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert float(lines[0]) == 1.0  # u_0 = 1
    assert lines[1].startswith("ImportError") and "python3-pandas" in lines[1]


def test_older_and_newer_minor_versions(files, tmp_path):
    src = files["supermarket"]
    for make in (_make_older, _make_newer_minor):
        dst = tmp_path / f"{make.__name__}.h5"
        make(src, dst)
        with storq.open(src) as a, storq.open(dst) as b:
            fa, fb = a.frame(), b.frame()
            fa = fa[~fa.name.str.startswith("steady_state")].reset_index(drop=True)
            fb = fb[~fb.name.str.startswith("steady_state")].reset_index(drop=True)
            assert fa[["point", "name", "mean"]].equals(fb[["point", "name", "mean"]])
            assert b.to_xarray().sizes["n"] == 2
            assert b.work_units().empty or make is _make_newer_minor


def test_major_version_refused(files, tmp_path):
    dst = tmp_path / "v3.h5"
    shutil.copy(files["supermarket"], dst)
    with h5py.File(dst, "r+") as f:
        f.attrs["format_version"] = np.array([3, 0], np.int32)
    with pytest.raises(storq.FormatError, match="format version 3.0"):
        storq.open(dst)


def test_pip_installs_offline(tmp_path):
    """pip install io/python works without a network (setuptools from the system)."""
    src = Path(__file__).resolve().parents[2] / "io" / "python"
    target = tmp_path / "site"
    proc = subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--no-index",
                           "--no-build-isolation", "--target", str(target), str(src)],
                          capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert (target / "storq" / "frames.py").exists()
    assert (target / "storq" / "figures" / "__init__.py").exists()
    check = subprocess.run([sys.executable, "-c", "import storq, sys; print(storq.__file__)"],
                           capture_output=True, text=True, env={"PYTHONPATH": str(target)},
                           cwd=tmp_path)
    assert check.returncode == 0 and str(target) in check.stdout, check.stderr


@pytest.mark.parametrize("key", MODELS)
def test_html_report(files, key, tmp_path, capsys):
    """python3 -m storq.report FILE.h5 writes one self-contained HTML file: the run's metadata,
    the table of every complete point and at least one embedded figure that fits the model."""
    import storq.report

    out = tmp_path / f"{key}.html"
    assert storq.report.main([str(files[key]), "--html", str(out)]) == 0
    text = out.read_text()
    model = key.split("-")[0]
    assert f"<td>{model}</td>" in text and "points complete" in text
    with storq.open(files[key]) as r:
        assert text.count("<tr>") >= len(r.points()) + 1
        for column in r.wide().columns:  # every column of the table but stderr and warm-up halves
            if column.endswith("_stderr") or column.startswith("warmup_"):
                continue
            assert f"<th>{column}</th>" in text
    assert text.count("src='data:image/png;base64,") >= 1
    assert "not drawn" not in text
    assert "src='http" not in text and "<link" not in text  # nothing outside the file
    assert "report written to" in capsys.readouterr().out


def test_report_default_path_and_refusal(files, tmp_path):
    import storq.report

    src = tmp_path / "run.h5"
    shutil.copy(files["forkjoin"], src)
    assert storq.report.main([str(src)]) == 0
    assert (tmp_path / "run.html").exists()
    bad = tmp_path / "bad.h5"
    bad.write_bytes(b"not hdf5")
    assert storq.report.main([str(bad)]) == 2


def test_damaged_value_raises(files, tmp_path):
    # a stored mean changed without its checksum (a bad disk): never returned, one exception
    # naming file and dataset; storq.report exits 2 and writes no HTML
    dst = tmp_path / "damaged.h5"
    shutil.copy(files["supermarket"], dst)
    name = "/points/000000/observables/mean_job_delay/mean"
    with h5py.File(dst, "r+") as f:
        f[name][()] = 2 * f[name][()]
    with pytest.raises(storq.DamagedFile, match="mean_job_delay/mean.*checksum") as e:
        storq.open(dst).table()
    assert e.value.object == name and str(dst) in str(e.value)
    with storq.open(dst, verify=False) as r:  # lazily: the point is checked when first read
        assert r.state == "finished" and r.point_status() == {0: "complete", 1: "complete"}
        with pytest.raises(storq.DamagedFile):
            r.observable(0, "mean_job_delay")
        assert r.observable(1, "mean_job_delay")["mean"] > 0
    out = tmp_path / "damaged.html"
    proc = subprocess.run([sys.executable, "-m", "storq.report", str(dst), "--html", str(out)],
                          capture_output=True, text=True,
                          env={"PYTHONPATH": str(Path(storq.__file__).parent.parent),
                               "MPLBACKEND": "Agg"})
    assert proc.returncode == 2 and "damaged" in proc.stderr and not out.exists()
