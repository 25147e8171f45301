#!/usr/bin/env bash
# Replication-level checkpoints: a run of one point x many replications killed with SIGKILL midway
# keeps the replications already in (OUT.h5.partial, /checkpoints); --resume reruns only the
# missing ones, says how many it took from the checkpoint, and the file equals an uninterrupted
# run. On 1 rank and on 2 (rank 0 takes rank 1's rows in from inside its own replications).
set -euo pipefail
storq=$1; python=$2; here=$(cd "$(dirname "$0")" && pwd); work=$(mktemp -d)
trap '[ -n "$pid" ] && { pkill -9 -P $pid; kill -9 $pid; } 2>/dev/null; rm -rf "$work"' EXIT; cd "$work"
pid=
reps=16
args=(run supermarket --n 500 --L 2 --k 1 --lambda 0.9 --warmup 1000 --arrivals 3000000 -r $reps
      --seed 9 --quiet)
OMP_NUM_THREADS=1 "$storq" "${args[@]}" -o whole.h5
# (reading a file another process writes: no HDF5 lock, and a failed read just means "not yet")
in_checkpoint() {
  HDF5_USE_FILE_LOCKING=FALSE "$python" -c "
import h5py, sys
f = h5py.File('$1', 'r')
g = f.get('checkpoints/000000')
print(int(g['done'][()].sum()) if g is not None else 0)"
}
for ranks in 1 2; do
 for attempt in 1 2 3; do
  rm -f cut.h5 cut.h5.partial
  STORQ_CHECKPOINT_INTERVAL=0 OMP_NUM_THREADS=1 mpirun -np $ranks "$storq" "${args[@]}" -o cut.h5 &
  pid=$!
  # wait until a few replications are in the file, then kill the whole job at once. The count
  # is read once per try and kept; a read racing the writer may fail (0, "not yet") or be torn
  # (outside 0..reps). The wait is for the condition while the run lives, up to a minute.
  seen=0; deadline=$((SECONDS + 60))
  while [ $SECONDS -lt $deadline ] && kill -0 $pid 2>/dev/null; do
    seen=$(in_checkpoint cut.h5.partial 2>/dev/null || echo 0)
    [ "$seen" -ge 3 ] 2>/dev/null && [ "$seen" -lt $reps ] && break
    sleep 0.1
  done
  # mpirun's children are the ranks: kill them and mpirun at once, nothing else
  pkill -9 -P $pid || true; kill -9 $pid 2>/dev/null || true; wait $pid 2>/dev/null || true; pid=
  # the run ended (or checkpointed every replication) before the kill, as on a loaded machine
  # where a poll is slow: nothing to test, try again
  if [ -e cut.h5 ] || [ "$(in_checkpoint cut.h5.partial 2>/dev/null || echo 0)" -ge $reps ]; then
    echo "$ranks rank(s): the run finished before the kill (last count $seen), trying again"
    [ $attempt -lt 3 ] || { echo "FAIL: the run always finished before the kill"; exit 1; }
    continue
  fi
  break
 done
  # the writer is dead now: this read is the checkpoint as the kill left it
  kept=$(in_checkpoint cut.h5.partial)
  echo "$ranks rank(s): killed with $kept of $reps replications in the checkpoint (the last poll saw $seen)"
  [ "$kept" -ge 3 ] && [ "$kept" -lt $reps ] || { echo "FAIL: checkpoint holds $kept"; exit 1; }
  OMP_NUM_THREADS=1 mpirun -np $ranks "$storq" "${args[@]}" -o cut.h5 --resume 2> resume.log
  cat resume.log
  grep -q "^storq: --resume: $kept replications of 1 unfinished point taken from checkpoints" resume.log \
    || { echo "FAIL: resume did not report the $kept replications taken"; exit 1; }
  "$python" "$here/compare_h5.py" whole.h5 cut.h5
  HDF5_USE_FILE_LOCKING=FALSE "$python" -c "
import h5py; f = h5py.File('cut.h5', 'r'); assert 'checkpoints' not in f or len(f['checkpoints']) == 0
v = f.attrs['format_version']; assert tuple(v) == ((1, 3) if 'layouts' in f else (1, 0)), v
print('the finished file holds no checkpoint and states format', tuple(v))"
done
