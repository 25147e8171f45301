#!/usr/bin/env bash
# A real Slurm job on a local single-node cluster: sbatch the batch script with 2 tasks, wait,
# and read the file; then a job told to stop (USR1, as before a time limit) keeps its finished
# points and replications and is completed by --resume. Skipped (77) without root or Slurm.
set -uo pipefail
storq=$1; python=$2; here=$(cd "$(dirname "$0")" && pwd); root=$(dirname "$here")
command -v sbatch >/dev/null && command -v slurmctld >/dev/null || { echo "no Slurm: skipped"; exit 77; }
[ "$(id -u)" -eq 0 ] || { echo "not root: skipped"; exit 77; }
"$root/jobs/slurm/local-cluster.sh" start || exit 1
# Only this test's jobs are cancelled on exit: another checkout's tests may share the cluster.
jobs=()
work=$(mktemp -d); trap 'for j in "${jobs[@]}"; do scancel "$j" 2>/dev/null; done; rm -rf "$work"' EXIT
cd "$work"
# job_state JOB: the job's state, empty once it has left the queue. Returns 1 when squeue could
# not ask (a busy controller): that is no answer, not an empty queue.
job_state() {
  local out
  out=$(squeue -h -j "$1" -o %T 2>&1) && { echo "$out"; return 0; }
  grep -q "Invalid job id" <<<"$out" && return 0 # ended long enough ago to be purged
  return 1
}
cat > sweep.ini <<'INI'
[run]
model = supermarket
replications = 4
seed = 9
[supermarket]
n = 100
L = 2
k = 1
lambda = 0.6, 0.9
warmup = 10000
arrivals = 100000
INI
job=$(sbatch --parsable --ntasks=2 -o slurm.log "$root/jobs/slurm/storq.sbatch" sweep.ini out.h5 "$storq") || exit 1
jobs+=("$job")
echo "submitted job $job"
for _ in $(seq 1 300); do
  state=$(job_state "$job") && [ -z "$state" ] && break
  sleep 1
done
cat slurm.log
[ -f out.h5 ] || { echo "FAIL: the Slurm job did not write out.h5"; exit 1; }
"$python" "$here/check_h5_schema.py" out.h5 || exit 1
ranks=$("$python" -c "import h5py; print(int(h5py.File('out.h5','r').attrs['mpi_ranks']))")
[ "$ranks" -eq 2 ] || { echo "FAIL: expected 2 MPI ranks under srun, file says $ranks"; exit 1; }
OMP_NUM_THREADS=1 "$storq" run sweep.ini -o local.h5 --quiet
"$python" "$here/compare_h5.py" local.h5 out.h5 || exit 1
echo "Slurm job wrote the same results as a local run"

# Stop a job as Slurm does before a time limit (USR1 to the batch shell): storq stops within a
# fraction of a second, keeps its finished points and the replications of unfinished ones
# (checkpoints, written here after every replication), the job requeues itself and finishes with
# --resume, rerunning only the replications that were in flight.
# One point of 12 replications of about a second each: the stop lands while the point is
# unfinished even on a loaded machine (with two short points, the checkpointed point could finish
# before the signal arrived, leaving nothing checkpointed to resume from).
sed -e 's/^lambda = .*/lambda = 0.6/' -e 's/^arrivals = .*/arrivals = 15000000/' \
    -e 's/^replications = .*/replications = 12/' sweep.ini > long.ini
job=$(sbatch --parsable --ntasks=2 -o long.log --open-mode=append \
      --export=ALL,STORQ_CHECKPOINT_INTERVAL=0 "$root/jobs/slurm/storq.sbatch" long.ini long.h5 "$storq") || exit 1
jobs+=("$job")
echo "submitted job $job"
in_checkpoints() { # replications in the checkpoints of a file another process writes
  HDF5_USE_FILE_LOCKING=FALSE "$python" -c "
import h5py
f = h5py.File('long.h5.partial', 'r')
print(sum(int(g['done'][()].sum()) for g in f.get('checkpoints', {}).values()))" 2>/dev/null || echo 0
}
# The count is read once per try and kept: reading a file while another process writes it can
# fail (it then counts 0), so a second read after the loop could deny what the first one saw.
# A count above the 12 replications is a torn read, not a checkpoint.
seen=0
for _ in $(seq 1 600); do
  seen=$(in_checkpoints)
  [ "$seen" -ge 3 ] && [ "$seen" -le 12 ] && break
  sleep 0.2
done
[ "$seen" -ge 3 ] && [ "$seen" -le 12 ] || { echo "FAIL: no checkpoint appeared (last count $seen)"; cat long.log; exit 1; }
echo "the partial file holds $seen checkpointed replications; stopping the job"
scancel --signal=USR1 --batch "$job"
# Slurm holds a requeued job for a while (BeginTime, or a hold); a test need not wait for that,
# but it must not start it again within the second its first run was killed: slurmd refuses a
# credential made no later than that second ("Job credential revoked", the job FAILED; CI saw it
# when the requeue and the forced start fell in one second). So the start is forced only once the
# job has been pending for 2 s.
pending=0
for _ in $(seq 1 240); do
  state=$(job_state "$job") || state=unknown
  [ -f long.h5 ] && [ -z "$state" ] && break
  if [ "$state" = PENDING ]; then
    pending=$((pending + 1))
    if [ "$pending" -gt 2 ]; then
      scontrol release "$job" 2>/dev/null
      scontrol update JobId="$job" StartTime=now 2>/dev/null
    fi
  fi
  sleep 1
done
[ -f long.h5 ] || { echo "FAIL: the requeued job did not finish in 240 s"; scontrol show job "$job"; }
cat long.log
grep -q "requeueing" long.log || { echo "FAIL: the job did not see the stop signal"; exit 1; }
[ -f long.h5 ] && [ ! -f long.h5.partial ] || { echo "FAIL: the requeued job did not complete long.h5"; exit 1; }
points=$(grep -c "^point " long.log)
[ "$points" -eq 1 ] || { echo "FAIL: expected the point to finish once in all, log shows $points"; exit 1; }
taken=$(sed -n 's/^storq: --resume: \([0-9]*\) replications of .* taken from checkpoints$/\1/p' long.log)
echo "the resumed job took ${taken:-0} replications from checkpoints"
[ "${taken:-0}" -ge 3 ] || { echo "FAIL: the resumed job did not take the checkpointed replications"; exit 1; }
OMP_NUM_THREADS=1 "$storq" run long.ini -o long_local.h5 --quiet
"$python" "$here/compare_h5.py" long_local.h5 long.h5 || exit 1
echo "a stopped, requeued and resumed Slurm job gives the same file as one uninterrupted run"
