#!/usr/bin/env bash
# Precision targets: replications are added in batches of -r until the 95% CI half-width of the
# targeted scalar is at most REL times its mean, or --max-replications is reached. The decision
# is re-derived here from the stored per-replication values: at every earlier batch boundary the
# target was missed, at the last one it was met (or the maximum was reached), and the point's
# attributes say so. Then the usage errors, and a sweep file's [run] keys.
set -uo pipefail
storq=$1; python=$2; here=$(cd "$(dirname "$0")" && pwd); work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT; cd "$work"
. "$here/usage_errors.sh"
failures=0
set -e
OMP_NUM_THREADS=2 "$storq" run supermarket --n 50 --L 2 --lambda 0.5,0.9 --warmup 1000 \
  --arrivals 20000 -r 4 --precision 0.005 --max-replications 40 --seed 3 -o p.h5 --quiet
OMP_NUM_THREADS=2 "$storq" run forkjoin --n 4 --k 2 --lambda 1 --warmup 500 --arrivals 5000 \
  -r 3 --precision 0.02:utilisation --max-replications 30 --seed 5 -o f.h5 --quiet
"$python" - <<'PY'
import h5py, numpy as np
from scipy import stats
def check(path, batch, target, cap, name):
    f = h5py.File(path, "r")
    reasons = set()
    for key, g in f["points"].items():
        if not isinstance(g, h5py.Group):
            continue
        R = int(g.attrs["replications"])
        a = g.attrs
        assert a["precision_observable"] in (name, name.encode()), a["precision_observable"]
        assert a["precision_target"] == target and int(a["max_replications"]) == cap
        x = g["replications/" + name][()]
        assert x.shape[0] == R and (R % batch == 0 or R == cap), (key, R)
        def rel(k):
            v = x[:k]
            half = stats.t.ppf(0.975, k - 1) * v.std(ddof=1) / np.sqrt(k)
            return half / abs(v.mean())
        for k in range(batch, R, batch):
            assert rel(k) > target * (1 + 1e-9), (key, k, rel(k))
        met = int(a["precision_met"])
        assert met == (rel(R) <= target * (1 + 1e-9)), (key, R, rel(R), met)
        assert abs(a["precision_achieved"] - rel(R)) <= 1e-6 * rel(R)
        assert met or R == cap, (key, R)
        reason = a["stopped_because"]
        reasons.add(reason.decode() if isinstance(reason, bytes) else reason)
        print(f"{path} point {key}: {R} replications, half-width/mean {rel(R):.4g}, met {met}")
    return reasons
r = check("p.h5", 4, 0.005, 40, "mean_queue_length")
assert r == {"precision target met", "max_replications reached"}, r
check("f.h5", 3, 0.02, 30, "utilisation")
print("every point stopped at the first batch boundary meeting its target, or at the maximum")
PY
set +e
ok=(run supermarket --n 20 --L 2 --lambda 0.5 --warmup 100 --arrivals 1000 -r 2)
expect 2 "\-\-precision: give \-\-max-replications N too" -- "${ok[@]}" --precision 0.01
expect 2 "\-\-max-replications: applies with \-\-precision only" -- "${ok[@]}" --max-replications 10
expect 2 "\-\-max-replications: 1 is below -r 2" -- "${ok[@]}" --precision 0.01 --max-replications 1
expect 2 "\-\-precision: '1.5' is not accepted" -- "${ok[@]}" --precision 1.5 --max-replications 10
expect 2 "\-\-precision: '0.01:' is not accepted" -- "${ok[@]}" --precision 0.01: --max-replications 10
expect 2 "\-\-precision: 'u' is not a scalar observable of point 0; its scalars: mean_queue_length, mean_task_sojourn" -- "${ok[@]}" --precision 0.01:u --max-replications 10
expect 2 "\-\-precision: point 0 of model 'supermarket' has no headline observable" -- run supermarket --n 20 --L 2 --lambda 0.5 --mode transient --horizon 1 --grid 2 -r 2 --precision 0.01 --max-replications 10
# A sweep file's [run] keys: the same run as the flags.
cat > sweep.ini <<'INI'
[run]
model = supermarket
replications = 4
seed = 3
precision = 0.005
max_replications = 40
[supermarket]
n = 50
L = 2
lambda = 0.5, 0.9
warmup = 1000
arrivals = 20000
INI
OMP_NUM_THREADS=2 "$storq" run sweep.ini -o s.h5 --quiet && "$python" "$here/compare_h5.py" p.h5 s.h5 \
  || { echo "FAIL: the sweep file's precision keys"; failures=$((failures + 1)); }
echo "$failures failure(s)"
[ $failures -eq 0 ]
