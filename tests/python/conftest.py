"""Fixtures of the Python package's tests: one small results file of every model, made with the
built storq binary (STORQ_BIN) in short runs, once per session."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "io" / "python"))

# model -> the arguments of a short run (a second of CPU in all); each sweeps a parameter so the
# frames and the xarray Dataset have a dimension.
RUNS = {
    "supermarket": ["--n", "20,40", "--lambda", "0.7", "--warmup", "500", "--arrivals", "5000"],
    "supermarket-transient": ["--n", "30", "--lambda", "0.7", "--mode", "transient",
                              "--horizon", "5", "--grid", "10", "--arrivals", "1000"],
    "cluster": ["--m", "10", "--lambda", "1.5,2.5", "--size", "uniform:1,4", "--coding", "plus:1",
                "--warmup", "500", "--arrivals", "5000"],
    "forkjoin": ["--n", "4", "--k", "1,2", "--mu", "1,3", "--warmup", "500", "--arrivals", "5000"],
    "proxy": ["--lambda", "1,2", "--code", "fixed:3+fixed:4+greedy+bafec", "--warmup", "500",
              "--arrivals", "5000"],
    "threads": ["--rho", "0.3,0.6", "--requests", "300"],
}


def _binary():
    return os.environ.get("STORQ_BIN", str(HERE.parents[1] / "build" / "storq"))


def registry_models():
    """Every model the binary registers (`storq models`: the name is each line's first word), so
    that a new model gets these tests without editing them: at its defaults, shortened."""
    try:
        out = subprocess.run([_binary(), "models"], capture_output=True, text=True, check=True)
    except (OSError, subprocess.CalledProcessError):
        return []
    return [line.split()[0] for line in out.stdout.splitlines() if line.strip()]


for _model in registry_models():
    RUNS.setdefault(_model, ["--warmup", "500", "--arrivals", "5000"])
MODELS = [key for key in RUNS if "-" not in key]  # one file per model (the keys with a variant)


def storq_bin():
    path = _binary()
    if not Path(path).exists():
        pytest.skip(f"no storq binary at {path} (set STORQ_BIN)")
    return path


def make_file(directory, key):
    model = key.split("-")[0]
    out = Path(directory) / f"{key}.h5"
    if not out.exists():
        env = dict(os.environ, OMP_NUM_THREADS="1")
        subprocess.run([storq_bin(), "run", model, *RUNS[key], "-r", "3", "--seed", "1",
                        "-o", str(out), "--quiet"], check=True, env=env)
    return out


@pytest.fixture(scope="session")
def files(tmp_path_factory):
    directory = tmp_path_factory.mktemp("models")
    return {key: make_file(directory, key) for key in RUNS}
