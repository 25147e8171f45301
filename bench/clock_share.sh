#!/usr/bin/env bash
# What the clock's exponentials cost the supermarket servers engine in cache (issue 15, item 2):
# bench_supermarket built three ways from the same commit and run in alternating rounds --
#   main:     storq as it is (-log(U) / rate, glibc's log);
#   ziggurat: bench/experiments/exp_ziggurat.patch, a 256-layer ziggurat (Marsaglia and Tsang):
#             the right law but other draws, so other results (not kept: see docs/performance.md);
#   no-log:   bench/experiments/exp_uniform_stand_in.patch, 2 U / rate: the same mean and no
#             logarithm at all, the wrong law -- the bound no exponential sampler can beat.
# Prints, per variant and case, the servers engine's share of the loop's speed: the median over
# the rounds and the range of the per-round ratios (each round pairs a run's engine with the same
# run's loop).
#
# usage: bench/clock_share.sh ROUNDS [CASES...]   (default cases: 1000 100000, with replacement)
#   e.g. bench/clock_share.sh 4 1000 100000
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-4}; shift || true
cases=("$@"); [ ${#cases[@]} -gt 0 ] || cases=(1000 100000)
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
for v in main ziggurat no-log; do
  mkdir "$work/$v"
  git archive HEAD | tar -x -C "$work/$v"
  case $v in
    ziggurat) patch -s -d "$work/$v" -p1 <bench/experiments/exp_ziggurat.patch ;;
    no-log) patch -s -d "$work/$v" -p1 <bench/experiments/exp_uniform_stand_in.patch ;;
  esac
  cmake -S "$work/$v" -B "$work/$v/build" -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$work/$v/build" -j2 --target bench_supermarket >/dev/null
done
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
for ((r = 1; r <= rounds; r++)); do
  for v in main ziggurat no-log; do
    "$work/$v/build/bench/bench_supermarket" -r 1 "${cases[@]}" 2>&1 |
      awk -v v=$v '$1 == "round" { print v, $4 $5, $7, $11 }'
  done
done | python3 -c '
import sys, statistics as st, collections
d = collections.defaultdict(list)
for line in sys.stdin:
    v, case, servers, loop = line.split()
    d[(case, v)].append(float(servers) / float(loop))
for case, v in d:
    r = sorted(d[(case, v)])
    print("%-12s %-9s servers / loop %.3f (%.3f-%.3f)" % (case, v, st.median(r), r[0], r[-1]))
'
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
