#!/usr/bin/env bash
# Two builds of bench_supermarket (BEFORE, e.g. an earlier commit's, and AFTER) in alternating
# rounds, one run of each in turn, so that both see the same stretches of load; then, per case,
# the medians of the servers engine's events/s and of the per-round ratio AFTER / BEFORE with its
# range. (The counts engine and the loop run too: bench_supermarket runs all three.)
#
# usage: bench/bench_supermarket_ab.sh BEFORE AFTER ROUNDS CASES...
#   e.g. bench/bench_supermarket_ab.sh /tmp/old/build/bench/bench_supermarket \
#          build/bench/bench_supermarket 5 1000 100000 1000000
set -euo pipefail
[ $# -ge 3 ] || { grep -m1 "usage:" "$0" | sed "s/^# *//" >&2; exit 2; }
before=$1; after=$2; rounds=$3; shift 3
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
for ((r = 1; r <= rounds; r++)); do
  for v in before after; do
    bin=$before; [[ $v == after ]] && bin=$after
    "$bin" -r 1 "$@" 2>&1 | awk -v v=$v '$1 == "round" { print v, $4 $5, $7 }'
  done
done | python3 -c '
import sys, statistics as st, collections
d = collections.defaultdict(list)
for line in sys.stdin:
    v, case, rate = line.split()
    d[(case, v)].append(float(rate))
for case in dict.fromkeys(k[0] for k in d):
    b, a = d[(case, "before")], d[(case, "after")]
    r = sorted(x / y for x, y in zip(a, b))
    print("%s servers before %.3g, after %.3g ev/s; after / before %.2f (%.2f-%.2f)"
          % (case, st.median(b), st.median(a), st.median(r), r[0], r[-1]))
'
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
