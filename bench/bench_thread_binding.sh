#!/usr/bin/env bash
# docs/performance.md, "Threads, ranks and cores": what a rank's second OpenMP thread gains under
# three launches, and how much CPU a rank with no work left uses while it waits.
#  1. Replications per second of one rank of 2 threads over one rank of 1 thread (wall time of the
#     same run, 8 replications of supermarket n = 1000), under `mpirun -np 1` (Open MPI binds the
#     rank, and with it both threads, to one core), `--map-by slot:PE=2` and `--bind-to none`;
#     ROUNDS rounds, each running the 1- and 2-thread runs of every launch one after the other.
#  2. The waiting rank's CPU time over the working rank's: tests/e2e_idle_rank.sh (3 ranks, one
#     replication of about 4 s) twice, then 3 runs of 2 ranks and one replication of 3e7 arrivals
#     (bash's `time` around each rank, /run/units says which rank ran the replication).
# Prints the load average before and after each part.
#   usage: bench/bench_thread_binding.sh STORQ [ROUNDS [PYTHON [PARTS]]]
#   (defaults 3, /usr/bin/python3, "1 2")
set -euo pipefail
[ $# -ge 1 ] || { grep -m1 "usage:" "$0" | sed "s/^# *//" >&2; exit 2; }
storq=$(realpath "$1"); rounds=${2:-3}; python=${3:-/usr/bin/python3}; parts=${4:-1 2}
here=$(cd "$(dirname "$0")" && pwd)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT; cd "$work"
load() { cut -d' ' -f1-3 /proc/loadavg; }

launches=("" "--map-by slot:PE=2" "--bind-to none")
if [[ " $parts " == *" 1 "* ]]; then
echo "1. one rank of 2 threads over one rank of 1 thread, $rounds rounds; $(date -u +%FT%TZ)"
echo "load average before: $(load)"
for r in $(seq "$rounds"); do
  for l in "${!launches[@]}"; do
    for t in 1 2; do
      rm -f out.h5
      t0=$(date +%s.%N)
      # shellcheck disable=SC2086  # the launch's options, split on purpose
      OMP_NUM_THREADS=$t mpirun -np 1 ${launches[$l]} "$storq" run supermarket --n 1000 --L 2 \
        --k 1 --lambda 0.9 --warmup 100000 --arrivals 8000000 -r 8 -o out.h5 --quiet 2>/dev/null
      echo "$r $l $t $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')" >>times.txt
    done
  done
done
echo "load average after: $(load)"
echo
echo "| launch | $(seq -s ' | ' -f 'round %g' "$rounds") |"
echo "|---|$(printf -- '---:|%.0s' $(seq "$rounds"))"
for l in "${!launches[@]}"; do
  printf '| `mpirun -np 1%s` |' "${launches[$l]:+ ${launches[$l]}}"
  for r in $(seq "$rounds"); do
    awk -v r="$r" -v l="$l" '$1 == r && $2 == l { t[$3] = $4 } END { printf " %.2f |", t[1] / t[2] }' \
      times.txt
  done
  echo
done
echo "(wall seconds, round launch threads: $(tr '\n' ';' <times.txt))"
fi

[[ " $parts " == *" 2 "* ]] || exit 0
# 3 ranks on 2 cores: Open MPI refuses more ranks than cores unless told; set for this part
# only (part 1 is about the default binding, and keeps Open MPI's defaults)
export OMPI_MCA_rmaps_base_oversubscribe=1

echo
echo "2. CPU seconds of the waiting rank over the working rank's; $(date -u +%FT%TZ)"
echo "load average before: $(load)"
for i in 1 2; do
  echo "tests/e2e_idle_rank.sh, run $i:"
  { "$here/../tests/e2e_idle_rank.sh" "$storq" "$python" || echo "  (exit $?)"; } | tee idle.txt
  # the waiting ranks (1 and 2 but the working one) over the working rank
  tr -d '[],;' <idle.txt | awk '/^CPU seconds per rank/ { w = $NF; for (r = 1; r <= 2; r++)
    if (r != w) printf "  waiting rank %d / working rank %d: %.2f\n", r, w, $(5 + r) / $(5 + w) }'
done
for i in 1 2 3; do
  rm -f idle.h5 cpu.*
  OMP_NUM_THREADS=1 OMPI_MCA_mpi_yield_when_idle=0 mpirun -np 2 bash -c \
    'TIMEFORMAT="%U %S"; { time "$@" 2>&3; } 3>&2 2> "cpu.$OMPI_COMM_WORLD_RANK"' _ \
    "$storq" run supermarket --n 1000 --L 2 --k 1 --lambda 0.9 --warmup 100000 \
    --arrivals 30000000 -r 1 --seed 1 --quiet -o idle.h5
  "$python" - "$i" <<'PY'
import h5py, sys
units = h5py.File("idle.h5", "r")["run/units"][()]
cpu = [sum(map(float, open(f"cpu.{r}").read().split())) for r in range(2)]
worker = int(units[units["rep"] >= 0]["rank"][0])
idle = 1 - worker
print(f"2 ranks, run {sys.argv[1]}: CPU seconds {cpu}; the replication ran on rank {worker}; "
      f"waiting rank {idle} / working rank: {cpu[idle] / cpu[worker]:.2f}")
PY
done
echo "load average after: $(load)"
