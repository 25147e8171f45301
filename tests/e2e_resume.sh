#!/usr/bin/env bash
# Kill a sweep after its first point is written, resume it, and get the same file as a run that was
# never interrupted. Also: the final name never exists before the run completes.
set -euo pipefail
storq=$1; python=$2; here=$(dirname "$0"); work=$(mktemp -d); trap 'kill -9 $pid 2>/dev/null || true; rm -rf "$work"' EXIT
cd "$work"
cat > sweep.ini <<'INI'
[run]
model = supermarket
replications = 4
seed = 11

[supermarket]
n = 200
L = 2
k = 1
lambda = 0.5, 0.7, 0.9
warmup = 20000
arrivals = 400000, 800000
INI
pid=0
OMP_NUM_THREADS=1 "$storq" run sweep.ini -o killed.h5 > run.log 2>&1 &
pid=$!
for _ in $(seq 1 600); do
  grep -q "^point " run.log && break
  kill -0 $pid 2>/dev/null || break
  sleep 0.1
done
grep -q "^point " run.log || { echo "FAIL: no point finished"; cat run.log; exit 1; }
kill -9 $pid; wait $pid 2>/dev/null || true
[ ! -e killed.h5 ] || { echo "FAIL: killed.h5 exists although the run was killed"; exit 1; }
[ -e killed.h5.partial ] || { echo "FAIL: no partial file after the kill"; exit 1; }
done_before=$(HDF5_USE_FILE_LOCKING=FALSE "$python" -c "
import h5py
f = h5py.File('killed.h5.partial', 'r')
print(sum(1 for g in f['points'].values() if isinstance(g, h5py.Group) and g.attrs.get('status') in (b'complete', 'complete')))")
echo "complete points in the partial file after the kill: $done_before"
[ "$done_before" -ge 1 ] || { echo "FAIL: the finished point was lost"; exit 1; }

# A resume with a different seed is refused and leaves the partial file alone.
if "$storq" run sweep.ini -o killed.h5 --resume --seed 12 --quiet 2> wrong.log; then
  echo "FAIL: resume with another seed was accepted"; exit 1
fi
grep -q "resume" wrong.log || { echo "FAIL: unclear message: $(cat wrong.log)"; exit 1; }
[ -e killed.h5.partial ] || { echo "FAIL: refused resume removed the partial file"; exit 1; }

OMP_NUM_THREADS=2 "$storq" run sweep.ini -o killed.h5 --resume > resumed.log 2>&1
resumed_points=$(grep -c "^point " resumed.log || true)
echo "points run by the resume: $resumed_points (of 6)"
[ "$resumed_points" -eq $((6 - done_before)) ] || { echo "FAIL: resume reran finished points"; exit 1; }
[ -e killed.h5 ] && [ ! -e killed.h5.partial ] || { echo "FAIL: resume did not complete the file"; exit 1; }

OMP_NUM_THREADS=2 "$storq" run sweep.ini -o whole.h5 --quiet
"$python" "$here/compare_h5.py" whole.h5 killed.h5
