#!/usr/bin/env bash
# The cluster figures of docs/performance.md: two builds of bench_cluster (BEFORE, e.g. main's,
# and AFTER) in interleaved rounds, one round of each in turn, so that both see the same stretches
# of load on a shared machine; then per case the medians over the rounds with the min-max spread:
# both kernels, both loops, AFTER against BEFORE and against the faster of the two loops of its
# round, and AFTER's time (and the faster loop's) against m = the first m, per round.
#
# usage: bench/bench_cluster_rounds.sh BEFORE AFTER [ROUNDS [REQUESTS [m,m,... [POLICY]]]]
#   default: 3 rounds of 10^6 requests at m = 100,10000,1000000,10000000, every policy
set -euo pipefail
[ $# -ge 2 ] || { grep -m1 "usage:" "$0" | sed "s/^# *//" >&2; exit 2; }
before=$1; after=$2; rounds=${3:-3}; requests=${4:-1000000}; ms=${5:-100,10000,1000000,10000000}
policy=(); [[ $# -ge 6 ]] && policy=("$6")
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
for ((r = 1; r <= rounds; r++)); do
  for v in before after; do
    bin=$before; [[ $v == after ]] && bin=$after
    echo "round $r $v: load $(cut -d' ' -f1-3 /proc/loadavg) at $(date -u +%T)"
    "$bin" "$requests" 1 "$ms" "${policy[@]}" | awk -v r="$r" -v v="$v" \
      'NF == 5 && $1 == "0" { print r, v, $2, $3, $4, $5 }' >> "$work/lines"
  done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg) at $(date -u +%T)"
/usr/bin/python3 - "$work/lines" <<'PY'
import statistics, sys
k, l = {}, {}  # (version, m, policy) -> per-round kernel and loop ns
for line in open(sys.argv[1]):
    r, v, m, p, kn, ln = line.split()
    k.setdefault((v, int(m), p), []).append(float(kn))
    l.setdefault((v, int(m), p), []).append(float(ln))
ms = sorted({key[1] for key in k}); pols = [p for p in ("BR", "BS", "WF", "BR+BS+WF") if ("after", ms[0], p) in k]
def f(x, d=0):
    return f"{statistics.median(x):.{d}f} [{min(x):.{d}f}-{max(x):.{d}f}]"
print("| m | policy | before ns/request | after ns/request | after / before speed | loop before ns"
      " | loop after ns | after / faster loop speed | after: time vs m = %d | faster loop: time vs"
      " m = %d |\n|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|" % (ms[0], ms[0]))
for m in ms:
    for p in pols:
        kb, ka, lb, la = k["before", m, p], k["after", m, p], l["before", m, p], l["after", m, p]
        fast = [min(x, y) for x, y in zip(lb, la)]
        fast0 = [min(x, y) for x, y in zip(l["before", ms[0], p], l["after", ms[0], p])]
        print(f"| {m} | {p} | {f(kb)} | {f(ka)} | {f([x / y for x, y in zip(kb, ka)], 2)} | {f(lb)}"
              f" | {f(la)} | {f([x / y for x, y in zip(fast, ka)], 2)}"
              f" | {f([x / y for x, y in zip(ka, k['after', ms[0], p])], 2)}"
              f" | {f([x / y for x, y in zip(fast, fast0)], 2)} |")
PY
