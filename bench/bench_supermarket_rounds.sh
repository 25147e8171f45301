#!/usr/bin/env bash
# The supermarket figures of docs/performance.md, in interleaved rounds: each round runs
# bench_supermarket once over the cases (servers engine, counts engine, the uniformized loop), then
# rmf_tool's JSQ(d) simulator (misc/jsqD_simulate/JSQd_simulate.cc of github.com/ngast/rmf_tool,
# compiled here with its own flags, g++ -O3) with and without replacement, so that both see the
# same stretches of load. Prints every round's lines and the load average before and after;
# bench_supermarket's own table per round gives the ratios.
#
# usage: bench/bench_supermarket_rounds.sh BENCH RMF_TOOL_DIR [ROUNDS [CASES...]]
#   BENCH: build/bench/bench_supermarket; RMF_TOOL_DIR: a clone of rmf_tool ("-" to skip it)
#   default: 3 rounds; cases 1000 1000:without 100000 100000:without 1000000
#   the n = 10^7 and 10^8 figures: ... 1 10000000 100000000 (n = 10^8: about 20 minutes, 3.5 GB)
set -euo pipefail
[ $# -ge 2 ] || { grep -m1 "usage:" "$0" | sed "s/^# *//" >&2; exit 2; }
bench=$1; rmf=$2; rounds=${3:-3}; shift $(( $# < 3 ? $# : 3 ))
cases=("$@"); [[ ${#cases[@]} -gt 0 ]] || cases=(1000 1000:without 100000 100000:without 1000000)
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
if [[ $rmf != - ]]; then
  g++ -W -Wall -O3 "$rmf/misc/jsqD_simulate/JSQd_simulate.cc" -o "$work/simulate_JSQ"
fi
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
for ((r = 1; r <= rounds; r++)); do
  echo "== round $r"
  "$bench" -r 1 "${cases[@]}" 2>/dev/null | tail -n +4
  if [[ $rmf != - ]]; then
    # one experiment at N: 100000 N warm-up steps + 2e7 measured steps (its steady_state());
    # steps per user-CPU second over the whole run; a step is an arrival, a departure or a
    # potential departure at an idle server (uniformization at rate N (1 + rho))
    for N in 1000; do
      for mode in with without; do
        flag=; [[ $mode == without ]] && flag=W
        t=$( { /usr/bin/time -f %U "$work/simulate_JSQ" r0.9 d2 N$N e1 $flag >/dev/null; } 2>&1 )
        awk -v N=$N -v t="$t" -v m=$mode 'BEGIN { s = 100000 * N + 2e7;
          printf "rmf_tool N=%d %s: %.3g steps/s, %.3g events/s (a fraction 2 rho/(1+rho) of steps)\n",
                 N, m, s / t, s / t * 1.8 / 1.9 }'
      done
    done
  fi
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
