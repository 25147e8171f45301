#!/usr/bin/env bash
# Reruns every benchmark behind docs/performance.md, one after the other, each with the arguments
# the page states, and keeps each one's output with the load average before and after it (the
# figures are ratios to each bench's own loop, but a loaded machine still slows the caches: rerun
# on a quiet one). Every section of the page is rerun here but "Build flags", which needs three
# builds of one commit and has its own script: bench/build_flags.sh [ROUNDS [REV]] (16 minutes
# for 2 rounds on 2026-12-02). The page's A/B comparisons against older builds
# (bench_supermarket_ab.sh, bench_cluster_rounds.sh, the scaling figures of older builds) and its
# one-off experiments (perf, transparent huge pages off) need those builds or tools and are not
# rerun here.
#
# usage: bench/performance_page.sh BUILD_DIR OUT_DIR [RMF_TOOL_DIR]
#   BUILD_DIR: a Release build (jobs/build.sh makes build/) with storq and the benches;
#   OUT_DIR: where the logs go (and the HDF5 files of the scaling section);
#   RMF_TOOL_DIR: a clone of github.com/ngast/rmf_tool for the supermarket's peer column ("-" or
#   absent: skipped). About 40 minutes, most of it the supermarket at n = 10^8.
set -euo pipefail
[ $# -ge 2 ] || { grep -m1 "usage:" "$0" | sed "s/^# *//" >&2; exit 2; }
build=$(realpath "$1"); out=$2; rmf=${3:--}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"; out=$(realpath "$out")
load() { cut -d' ' -f1-3 /proc/loadavg; }
run() { # NAME COMMAND...: the command's output into OUT_DIR/NAME.txt, framed by the load
  local name=$1; shift
  echo "== $name: $*"
  { echo "command: $*"; echo "load before: $(load)"; "$@" 2>&1; echo "load after: $(load)"; } \
    > "$out/$name.txt"
  tail -n 3 "$out/$name.txt"
}
export OMP_NUM_THREADS=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
python=${PYTHON:-/usr/bin/python3} # with h5py, numpy and pandas
top=$(cd "$here/.." && pwd)
echo "host: $(getconf _NPROCESSORS_ONLN) cores, $(date -u +%FT%TZ), load $(load)"
run supermarket "$here/bench_supermarket_rounds.sh" "$build/bench/bench_supermarket" "$rmf" 3
run supermarket_large "$here/bench_supermarket_rounds.sh" "$build/bench/bench_supermarket" - 1 \
  10000000 100000000
run cluster "$build/bench/bench_cluster" 1000000 3
run forkjoin "$build/bench/bench_forkjoin"
run proxy "$build/bench/bench_proxy"
run threads "$build/bench/bench_threads"
run memory_floor "$build/bench/bench_memory_floor" 100000000 3
# the servers engine's bytes per server (the supermarket section; the page gives no parameters
# for 10^7: its warm-up here is 30 n like the script's example at 10^6; 7 s and 70 s)
for n in 1000000 10000000; do
  run "supermarket_memory_$n" "$here/supermarket_memory.sh" "$build/storq" "$n" --L 2 --k 1 \
    --lambda 0.9 --warmup $((30 * n)) --arrivals 10000000
done
run thread_binding "$here/bench_thread_binding.sh" "$build/storq" 3 "$python"
run scaling "$here/bench_scaling.sh" "$build/storq"
# "Scaling across ranks": the recorded parallel efficiency of a sweep of 8 points x 4
# replications, and its replay on more workers
efficiency() { # NAME: the run of OUT_DIR/NAME.h5 (from `storq info`) and its replay
  "$build/storq" info "$out/$1.h5" | grep '^run'
  "$python" "$top/jobs/replay_schedule.py" "$out/$1.h5" --workers 1,2,16,64,256,1024,4096
}
rm -f "$out"/units.h5 "$out"/conv_*.h5
run units_sweep mpirun -np 2 "$build/storq" run supermarket --n 100,200,400,800 --L 2,3 --k 1 \
  --lambda 0.9 --warmup 1000 --arrivals 400000 -r 4 -o "$out/units.h5" --quiet
run units_replay efficiency units
for sweep in supermarket cluster; do # the repo's convergence sweeps, whole, on 2 ranks
  run "conv_$sweep" mpirun -np 2 "$build/storq" run "$top/jobs/sweeps/$sweep-convergence.ini" \
    -o "$out/conv_$sweep.h5" --quiet
  run "conv_${sweep}_replay" efficiency "conv_$sweep"
done
echo "logs in $out"
