"""Checks of `storq theory --format` and `storq info --format` output (tests/e2e_views.sh).

usage: check_views.py theory-json FILE | theory-csv FILE | info FILE.h5 CSV JSON
"""
import json
import math
import sys

import h5py
import numpy as np
import pandas as pd


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def theory_json(path):
    d = json.load(open(path))  # valid JSON or an exception
    pts = d["points"]
    if len(pts) != 2 or d["model"] != "supermarket":
        fail(f"{path}: want 2 supermarket points, got {len(pts)}")
    for p in pts:
        u = p["theory"]["u"]["values"]
        # the fixed point at L = 2, k = 1: u_i = lambda^(2^i - 1)
        lam = p["params"]["lambda"]
        for i, v in enumerate(u[:5]):
            if not math.isclose(v, lam ** (2 ** i - 1), rel_tol=1e-12):
                fail(f"u[{i}] = {v} at lambda {lam}")
        if p["unstable"] is not None:
            fail("a stable point said unstable")


def theory_csv(path):
    d = pd.read_csv(path)
    for col in ("point", "lambda", "array", "index", "value", "unit"):
        if col not in d.columns:
            fail(f"{path}: no column {col}")
    u = d[(d.array == "u") & (d.point == 0)].sort_values("index")["value"].to_numpy()
    lam = d[d.point == 0]["lambda"].iloc[0]
    want = lam ** (2.0 ** np.arange(len(u)) - 1)
    if not np.allclose(u, want, rtol=1e-12, atol=0):
        fail(f"csv u {u} != {want}")


def quantile(counts, edges, under, q, lo, hi, integer):
    """The rule io/h5_info_hist.c states: rank ceil(q n), linear inside its bin."""
    n = under + counts.sum()
    rank = max(1.0, math.ceil(q * n))
    cum = float(under)
    if rank <= cum:
        return None
    for j, c in enumerate(counts):
        if c > 0 and rank <= cum + c:
            v = edges[j] if integer else edges[j] + (rank - cum) / c * (edges[j + 1] - edges[j])
            return min(hi, max(lo, v))
        cum += c
    return None


def info(h5, csv_path, json_path):
    c = pd.read_csv(csv_path, float_precision="round_trip")  # every bit, as written
    j = json.load(open(json_path))
    with h5py.File(h5, "r") as f:
        # the root attributes, numeric arrays (format_version) included, as the file holds them
        for name, want in f.attrs.items():
            got = j["attributes"].get(name)
            if isinstance(want, bytes):
                want = want.decode()
            if isinstance(want, np.ndarray):
                want = want.tolist()
            elif isinstance(want, np.generic):
                want = want.item()
            if got != want:
                fail(f"info json attribute {name}: {got!r} != {want!r}")
        ids = [int(r["point"]) for r in f["points/index"][()]]
        if sorted(c["point"].tolist()) != ids or [p["point"] for p in j["points"]] != ids:
            fail("info csv/json points differ from the index")
        for pid in ids:
            g = f[f"points/{pid:06d}"]
            row = c[c.point == pid].iloc[0]
            jp = next(p for p in j["points"] if p["point"] == pid)
            for name, o in g["observables"].items():
                kind = o.attrs["kind"]
                kind = kind.decode() if isinstance(kind, bytes) else kind
                if kind == "scalar":
                    for s in ("mean", "stderr", "ci95"):
                        want = o[s][()]
                        for got in (row[f"{name}_{s}"], jp["values"][f"{name}_{s}"]):
                            if not (got == want or (np.isnan(want) and got is None)
                                    or (np.isinf(want) and got is None)):
                                fail(f"point {pid} {name}_{s}: {got} != {want}")
                elif kind == "histogram":
                    counts = o["counts"][()].astype(float)
                    edges = o["bin_edges"][()]
                    integer = o.attrs["histogram_kind"] in ("integer", b"integer")
                    for q, qn in ((0.5, "p50"), (0.9, "p90"), (0.99, "p99"), (0.999, "p99.9")):
                        want = quantile(counts, edges, int(o["underflow"][()]), q,
                                        o["min"][()], o["max"][()], integer)
                        got = row[f"{name}_{qn}"]
                        if want is None:
                            if not np.isnan(got):
                                fail(f"{name}_{qn}: {got}, want nan (beyond the bins)")
                        elif not math.isclose(got, want, rel_tol=1e-15):
                            fail(f"{name}_{qn}: {got} != {want}")
                    # the quantile is within the stated resolution of the samples' own
                    if not integer and int(o["count"][()]) > 0:
                        res = o.attrs["relative_resolution"]
                        p50 = row[f"{name}_p50"]
                        if np.isnan(p50):  # below the first edge (e.g. zero workloads)
                            continue
                        lo_edge = edges[np.searchsorted(edges, p50, side="right") - 1]
                        if not (p50 - lo_edge <= res * lo_edge * (1 + 1e-12)):
                            fail(f"{name}: p50 {p50} beyond a bin width {res} of {lo_edge}")
            for name, t in g.get("theory", {}).items():
                if t.shape == (1,):
                    got, want = row[f"theory_{name}"], t[0]
                    if not (got == want or (np.isnan(got) and np.isnan(want))):
                        fail(f"theory_{name}: {got} != {want}")
    print(f"ok: {h5}: csv and json agree with the file ({len(ids)} points)")


if __name__ == "__main__":
    mode = sys.argv[1]
    if mode == "theory-json":
        theory_json(sys.argv[2])
    elif mode == "theory-csv":
        theory_csv(sys.argv[2])
    elif mode == "info":
        info(*sys.argv[2:5])
    else:
        fail(f"unknown mode {mode}")
    print("ok:", mode)
