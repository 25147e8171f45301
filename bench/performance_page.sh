#!/usr/bin/env bash
# Reruns every benchmark behind docs/performance.md, one after the other, each with the arguments
# the page states, and keeps each one's output with the load average before and after it (the
# figures are ratios to each bench's own loop, but a loaded machine still slows the caches: rerun
# on a quiet one). The build-flags table needs three builds and is not rerun here (see the page).
#
# usage: bench/performance_page.sh BUILD_DIR OUT_DIR [RMF_TOOL_DIR]
#   BUILD_DIR: a Release build (jobs/build.sh makes build/); OUT_DIR: where the logs go;
#   RMF_TOOL_DIR: a clone of github.com/ngast/rmf_tool for the supermarket's peer column ("-" or
#   absent: skipped). About 30 minutes, most of it the supermarket at n = 10^8.
set -euo pipefail
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
export OMP_NUM_THREADS=1
echo "host: $(nproc) cores, $(date -u +%FT%TZ), load $(load)"
run supermarket "$here/bench_supermarket_rounds.sh" "$build/bench/bench_supermarket" "$rmf" 3
run supermarket_large "$here/bench_supermarket_rounds.sh" "$build/bench/bench_supermarket" - 1 \
  10000000 100000000
run cluster "$build/bench/bench_cluster" 1000000 3
run forkjoin "$build/bench/bench_forkjoin"
run proxy "$build/bench/bench_proxy"
run threads "$build/bench/bench_threads"
run scaling "$here/bench_scaling.sh" "$build/storq"
echo "logs in $out"
