#!/usr/bin/env bash
# forkjoin's per-group results (docs/models/forkjoin.md, "Per-group results"): beyond 1000 groups
# a point keeps the summary of group_share and group_utilisation (their histograms across groups,
# largest value, spread), not the g values per replication, so a run at g = 10^6 writes a small
# file; the summary is exactly the full vectors binned (the same run with group_vectors = both);
# full, summary and both leave every other result bit for bit the same; storq info and the Python
# package read points with either.
set -uo pipefail
storq=$1; python=$2; here=$(cd "$(dirname "$0")" && pwd); work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
cd "$work"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
export OMP_NUM_THREADS=1

# ---- g = 10^6: the default keeps the summary, and the file stays small ----
# (with the full vectors this point took 43.5 MB at 10^5 arrivals; see the model page)
"$storq" run forkjoin --n 1 --k 1 --groups 1000000 --lambda 1000 --warmup 0 --arrivals 20000 \
  -r 2 --seed 3 -o big.h5 --quiet || fail "g = 10^6 run exited $?"
size=$(stat -c %s big.h5)
echo "g = 10^6, group_vectors = auto: $size bytes"
[ "$size" -le 200000 ] || fail "g = 10^6 writes $size bytes, more than 200 KB"
info=$("$storq" info big.h5) || fail "storq info big.h5 exited $?"
grep -qE "^ +group_share_histogram +2000000 " <<<"$info" ||
  fail "storq info does not show group_share_histogram over 2 x 10^6 groups: $info"
grep -q "vectors:" <<<"$info" && fail "storq info shows vectors for a summary point"

# ---- the same point kept three ways: every result but the per-group ones is identical ----
for mode in full summary both; do
  "$storq" run forkjoin --n 3 --k 2 --mu 1 --groups 5000 --lambda 5000 --warmup 1000 \
    --arrivals 20000 -r 2 --seed 3 --group_vectors $mode -o $mode.h5 --quiet ||
    fail "group_vectors = $mode exited $?"
done
# auto: the full vectors up to 1000 groups, the summary beyond; one sweep holds both kinds
"$storq" run forkjoin --n 1 --k 1 --groups 1000,1001 --lambda 1000 --warmup 0 --arrivals 5000 \
  -r 2 --seed 3 -o mixed.h5 --quiet || fail "mixed run exited $?"
"$storq" info mixed.h5 >/dev/null || fail "storq info mixed.h5 exited $?"
for f in big.h5 mixed.h5 both.h5; do
  "$python" "$here/check_h5_schema.py" $f >/dev/null || fail "schema of $f"
done

PYTHONPATH="$here/../io/python" "$python" - <<'PY' || fail "summary against the full vectors"
import h5py
import numpy as np
import storq

def point(path):
    return h5py.File(path, "r")["points/000000"]

both, full, summary = point("both.h5"), point("full.h5"), point("summary.h5")
def datasets(p):
    out = {}
    for part in ("observables", "replications"):
        p[part].visititems(lambda name, o: out.__setitem__(f"{part}/{name}", o[()])
                           if isinstance(o, h5py.Dataset) else None)
    return out

mine = datasets(both)
for other in (full, summary):
    for name, a in datasets(other).items():
        b = mine[name]
        assert a.dtype == b.dtype and a.tobytes() == b.tobytes(), (other.file.filename, name)
assert "group_share" not in summary["observables"] and "group_share_histogram" not in full["observables"]

for vec in ("group_share", "group_utilisation"):
    rows = both["replications"][vec][()]                      # replications x g
    h = both["observables"][vec + "_histogram"]
    edges = h["bin_edges"][()]
    where = np.searchsorted(edges, rows.ravel(), side="right")  # 0 underflow, len(edges) overflow
    binned = np.bincount(where, minlength=len(edges) + 1)
    assert binned[0] == h["underflow"][()] and binned[-1] == h["overflow"][()], vec
    assert np.array_equal(binned[1:-1], h["counts"][()]), vec
    assert h["count"][()] == rows.size and h["min"][()] == rows.min() and h["max"][()] == rows.max()
    # each replication's histogram sum is the row summed in group order, bit for bit
    sums = both["replications"][vec + "_histogram"][()]
    assert np.array_equal(sums, np.cumsum(rows, axis=1)[:, -1]), (vec, sums)
    assert np.array_equal(both["replications"][vec + "_max"][()], rows.max(axis=1)), vec
    sd = both["replications"][vec + "_sd"][()]
    assert np.allclose(sd, rows.std(axis=1), rtol=1e-12, atol=0), (vec, sd, rows.std(axis=1))
    print(f"{vec}: {rows.size} values binned as the histogram, {int(h['underflow'][()])} at 0")
# the shares' bins start at 1/arrivals: a group with one job is in a bin, not the underflow
share = both["replications"]["group_share"][()]
assert both["observables"]["group_share_histogram"]["underflow"][()] == np.count_nonzero(share == 0)

with storq.open("mixed.h5") as r:
    kinds = [r.observables(p) for p in (0, 1)]
    assert kinds[0]["group_share"] == "vector" and "group_share_histogram" not in kinds[0], kinds[0]
    assert kinds[1]["group_share_histogram"] == "histogram" and "group_share" not in kinds[1], kinds[1]
    t = r.table()
    assert np.isnan(t.group_share_max[0]) and t.group_share_max[1] > 0, t
    try:
        r.observable(1, "group_share")
        raise AssertionError("point 1 (g = 1001) has no group_share vector")
    except KeyError as e:
        assert "no observable 'group_share'" in str(e) and "group_share_histogram" in str(e), e
    ds = r.to_xarray()
    assert "group_share" in ds and "group_share_max" in ds, ds
print("summary agrees with the full vectors; other results identical; readers take both kinds")
PY

# an unknown mode is refused, naming the parameter
msg=$("$storq" run forkjoin --group_vectors some -o x.h5 2>&1); status=$?
[ $status -eq 2 ] && grep -q -- "--group_vectors" <<<"$msg" && [ ! -e x.h5 ] ||
  fail "--group_vectors some: exit $status, $msg"

[ $failures -eq 0 ] && echo "e2e_forkjoin_groups: all passed"
exit $((failures > 0))
