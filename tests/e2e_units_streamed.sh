#!/usr/bin/env bash
# The record of the run's units goes to the file as the units run (issue 37: rank 0 held every row
# until the end, 80 bytes a unit): a run of many tiny units killed with SIGKILL after rank 0 wrote
# a block of rows keeps them in OUT.h5.partial, without a /run/sessions row; the checker accepts
# the partial, `storq info` says the session stopped before its end, --resume finishes the file
# (equal to an uninterrupted run) and adds its own session after the killed one, whose rows stay.
set -euo pipefail
storq=$1; python=$2; here=$(cd "$(dirname "$0")" && pwd); work=$(mktemp -d)
trap '[ -n "$pid" ] && kill -9 $pid 2>/dev/null; rm -rf "$work"' EXIT; cd "$work"
pid=
block=16384 # STORQ_UNITS_BLOCK (io/h5_units.h)
reps=200000
args=(run supermarket --n 10 --L 2 --lambda 0.9 --warmup 0 --arrivals 20 -r $reps --seed 3 --quiet)
# rows of /run/units in a file another process writes (no HDF5 lock; a failed read: "not yet")
rows() {
  HDF5_USE_FILE_LOCKING=FALSE "$python" -c "
import h5py
f = h5py.File('$1', 'r')
print(len(f['run/units']) if 'run/units' in f else 0)"
}
for attempt in 1 2 3; do
  rm -f cut.h5 cut.h5.partial cut.h5.lock
  OMP_NUM_THREADS=1 "$storq" "${args[@]}" -o cut.h5 &
  pid=$!
  seen=0; deadline=$((SECONDS + 120))
  while [ $SECONDS -lt $deadline ] && kill -0 $pid 2>/dev/null; do
    seen=$(rows cut.h5.partial 2>/dev/null || echo 0)
    [ "$seen" -ge $block ] 2>/dev/null && break
    sleep 0.2
  done
  kill -9 $pid 2>/dev/null || true; wait $pid 2>/dev/null || true; pid=
  if [ -e cut.h5 ]; then
    echo "the run finished before the kill (last count $seen), trying again"
    [ $attempt -lt 3 ] || { echo "FAIL: the run always finished before the kill"; exit 1; }
    continue
  fi
  break
done
kept=$(rows cut.h5.partial)
echo "killed with $kept rows of /run/units in the partial file"
[ "$kept" -ge $block ] && [ "$kept" -lt $reps ] && [ $((kept % block)) -eq 0 ] \
  || { echo "FAIL: $kept rows kept: expected whole blocks of $block, fewer than $reps"; exit 1; }
"$python" "$here/check_h5_schema.py" cut.h5.partial
"$storq" info cut.h5.partial > info_partial.txt
grep -q "^run, session 0: stopped before its end (killed): $kept units recorded, no summary" \
  info_partial.txt || { cat info_partial.txt; echo "FAIL: storq info does not report the killed session"; exit 1; }
OMP_NUM_THREADS=1 "$storq" "${args[@]}" -o cut.h5 --resume 2> resume.log || { cat resume.log; exit 1; }
OMP_NUM_THREADS=1 "$storq" "${args[@]}" -o whole.h5 2>/dev/null
"$python" "$here/compare_h5.py" whole.h5 cut.h5
"$python" "$here/check_h5_schema.py" cut.h5
"$storq" info cut.h5 > info.txt
grep -q "^run, session 1: [0-9]* units on 1 worker" info.txt \
  && grep -q "^run, session 0: stopped before its end (killed): $kept units recorded" info.txt \
  || { cat info.txt; echo "FAIL: storq info of the resumed file"; exit 1; }
"$python" - <<'PY'
import h5py, numpy as np
f = h5py.File("cut.h5", "r")
u, s = f["run/units"][()], f["run/sessions"][()]
assert list(s["session"]) == [1], s["session"]
assert set(np.unique(u["session"])) == {0, 1}, np.unique(u["session"])
assert s["units"][0] == (u["session"] == 1).sum(), (s["units"], (u["session"] == 1).sum())
print(f"resumed: session 1 recorded {s['units'][0]} units; session 0's {(u['session'] == 0).sum()} rows stay")
PY
echo "ok"
