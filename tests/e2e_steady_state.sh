#!/usr/bin/env bash
# The steady-state check end to end (docs/steady-state.md). Must warn: supermarket n = 500, L = 1
# (random routing: each server an M/M/1 queue at load 0.9, exact mean queue length 9), warm-up
# 20000 jobs, 200000 measured: the window is inside the transient (mean 7.8). Must not warn: the
# same point warmed up 100 times longer. Under mpirun on 2 ranks and with --quiet the warning is
# printed once, by rank 0, naming the point and the numbers; the file stores the halves per
# replication and the check per point (re-derived here from the halves); `storq info` shows it.
# Then a forkjoin sweep of a cold and a warm point: only the cold one warns.
set -euo pipefail
storq=$1; python=$2; work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT; cd "$work"
export OMP_NUM_THREADS=1

cold=(run supermarket --n 500 --L 1 --lambda 0.9 --arrivals 200000 --seed 1 --quiet)
mpirun -np 2 "$storq" "${cold[@]}" --warmup 20000 -o cold.h5 2>cold.err
cat cold.err
n=$(grep -c "not in steady state" cold.err || true)
[ "$n" -eq 1 ] || { echo "FAIL: expected one warning, got $n"; exit 1; }
grep -q "^storq: warning: point 0 (n=500 L=1 k=1 lambda=0.9 .*warmup=20000 .*): not in steady state: mean_queue_length is [0-9.]* over the first half .* and [0-9.]* over the second (drift -[0-9.]* +- [0-9.]*, |t| = [0-9.]* > 4.78 at 10 replications)" cold.err \
  || { echo "FAIL: the warning does not name the point and the numbers"; exit 1; }

"$storq" "${cold[@]}" --warmup 2000000 -o warm.h5 2>warm.err
cat warm.err
if grep -q "steady state" warm.err; then echo "FAIL: a warmed-up point warned"; exit 1; fi

"$storq" info cold.h5 > info.txt
grep -q "steady_state_warning *1" info.txt || { echo "FAIL: storq info lacks the check"; cat info.txt; exit 1; }
grep -q "steady_state_drift " info.txt || { echo "FAIL: storq info lacks the drift"; exit 1; }

"$python" - <<'PY'
import h5py, numpy as np
from scipy import stats
def check(path, want):
    with h5py.File(path, "r") as f:
        for key, g in f["points"].items():
            if not isinstance(g, h5py.Group):
                continue
            R = int(g.attrs["replications"])
            a = g["replications/warmup_first_half_mean"][()]
            b = g["replications/warmup_second_half_mean"][()]
            assert a.shape == (R,) and b.shape == (R,), (a.shape, R)
            d = a - b
            drift, se = d.mean(), d.std(ddof=1) / np.sqrt(R)
            c = g["comparison"]
            assert abs(c["steady_state_drift"][()][0] - drift) <= 1e-12 * abs(drift)
            assert abs(c["steady_state_drift_stderr"][()][0] - se) <= 1e-9 * se
            t, q = drift / se, stats.t.ppf(1 - 0.0005, R - 1)
            floor = 0.01 * abs(0.5 * (a.mean() + b.mean()))
            warn = abs(t) > q and abs(drift) > floor
            assert c["steady_state_warning"][()][0] == float(warn), (path, key)
            w = want[int(key)]
            assert warn == w, (path, key, drift, se, t, q)
            print(f"{path} point {key}: halves {a.mean():.4g} {b.mean():.4g}, drift {drift:.4g}"
                  f" +- {se:.2g}, t {t:.3g} (limit {q:.3g}): {'warns' if warn else 'passes'}")
check("cold.h5", {0: True})
check("warm.h5", {0: False})
PY

# forkjoin: 50 groups of (4,2) at 0.9 of capacity, started empty (warm-up 0) and warmed up
"$storq" run forkjoin --n 4 --k 2 --groups 50 --lambda 180 --mu 1 --warmup 0,200000 \
  --arrivals 20000 --seed 2 --quiet -o fj.h5 2>fj.err
cat fj.err
[ "$(grep -c "not in steady state" fj.err)" -eq 1 ] || { echo "FAIL: expected one forkjoin warning"; exit 1; }
grep -q "^storq: warning: point 0 (.*warmup=0 .*mean_response_time is" fj.err \
  || { echo "FAIL: the forkjoin warning does not name point 0 and its headline"; exit 1; }
"$python" - <<'PY'
import h5py
with h5py.File("fj.h5", "r") as f:
    w = [f[f"points/{p:06d}/comparison/steady_state_warning"][()][0] for p in (0, 1)]
    assert w == [1.0, 0.0], w
print("forkjoin: the cold point warns, the warm one passes")
PY
echo "e2e_steady_state: ok"
