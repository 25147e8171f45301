#!/usr/bin/env bash
# A real Slurm job array on the local single-node cluster: jobs/slurm/storq-array.sbatch as an
# array whose ids start at 1, its merge as a dependent job, and the merged file equal to a local
# run; an array with gaps in its ids is refused. Skipped (77) without root or Slurm; gives up with
# a diagnostic after 120 s.
set -uo pipefail
storq=$1; python=$2; here=$(cd "$(dirname "$0")" && pwd); root=$(dirname "$here")
command -v sbatch >/dev/null && command -v slurmctld >/dev/null || { echo "no Slurm: skipped"; exit 77; }
[ "$(id -u)" -eq 0 ] || { echo "not root: skipped"; exit 77; }
"$root/jobs/slurm/local-cluster.sh" start || exit 1
script=$root/jobs/slurm/storq-array.sbatch
jobs=()
work=$(mktemp -d)
trap 'for j in "${jobs[@]}"; do scancel "$j" 2>/dev/null; done; rm -rf "$work"' EXIT
cd "$work"
cat > sweep.ini <<'INI'
[run]
model = supermarket
replications = 3
seed = 12
[supermarket]
n = 20, 40, 80, 30, 50
L = 2
k = 1
lambda = 0.7
warmup = 1000
arrivals = 10000
INI

# wait_jobs SECONDS JOB...: until none of them is queued; a diagnostic and failure otherwise.
wait_jobs() {
  local limit=$1 ids
  shift
  ids=$(IFS=,; echo "$*")
  local out
  for _ in $(seq 1 "$limit"); do
    # an empty queue only when squeue answered: a busy controller's error is no answer (a job
    # purged after it ended is "Invalid job id")
    if out=$(squeue -h -j "$ids" 2>&1); then [ -z "$out" ] && return 0
    elif grep -q "Invalid job id" <<<"$out"; then return 0; fi
    sleep 1
  done
  echo "FAIL: jobs $ids still queued after $limit s"
  squeue; for j in "$@"; do scontrol show job "$j"; done; tail -n 20 ./*.log
  exit 1
}

array=$(sbatch --parsable --array=1-3 --ntasks=1 -o 'array-%a.log' "$script" sweep.ini out.h5 "$storq") || exit 1
jobs+=("$array")
merge=$(sbatch --parsable --dependency=afterok:"$array" --ntasks=1 -o merge.log "$script" --merge out.h5 3 "$storq") || exit 1
jobs+=("$merge")
echo "submitted array $array (ids 1-3) and merge $merge"
wait_jobs 120 "$array" "$merge"
cat array-*.log merge.log | grep -v '^ '
for i in 0 1 2; do
  grep -q "task $i/3 of sweep.ini into out.task-$i-of-3.h5" array-$((i + 1)).log ||
    { echo "FAIL: array id $((i + 1)) did not run task $i/3"; exit 1; }
done
[ -f out.h5 ] || { echo "FAIL: the merge job did not write out.h5"; exit 1; }
"$python" "$here/check_h5_schema.py" out.h5 || exit 1
OMP_NUM_THREADS=1 "$storq" run sweep.ini -o local.h5 --quiet
"$python" "$here/compare_h5.py" local.h5 out.h5 || exit 1

# Ids with a gap would leave some points to no task: every array task refuses to run.
gaps=$(sbatch --parsable --array=1,4 --ntasks=1 -o 'gaps-%a.log' "$script" sweep.ini gaps.h5 "$storq") || exit 1
jobs+=("$gaps")
wait_jobs 60 "$gaps"
for i in 1 4; do
  grep -q "the array ids must be consecutive" gaps-$i.log || { echo "FAIL: array id $i ran: $(cat gaps-$i.log)"; exit 1; }
done
ls gaps.task-* >/dev/null 2>&1 && { echo "FAIL: an array with gaps wrote files"; exit 1; }
echo "a Slurm job array and its dependent merge give the same file as a local run"
