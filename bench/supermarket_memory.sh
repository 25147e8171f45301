#!/usr/bin/env bash
# Memory per server of the supermarket's servers engine: the peak resident size of one
# replication at n = N minus that of the same run at n = 10, over N (what a replication touches:
# records, busy list or heap, the arena of tasks past the records, the job pool).
#
# usage: bench/supermarket_memory.sh STORQ N [PARAMETERS...]
#   e.g. bench/supermarket_memory.sh build/storq 1000000 --L 2 --k 1 --lambda 0.9 --warmup 30000000 --arrivals 10000000
set -euo pipefail
[ $# -ge 2 ] || { grep -m1 "usage:" "$0" | sed "s/^# *//" >&2; exit 2; }
storq=$1; n=$2; shift 2
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
peak_kib() { # N PARAMETERS...: the peak resident size of the run at n = N, in KiB
  local size=$1; shift
  python3 - "$storq" run supermarket --n "$size" "$@" -r 1 -o "$work/out.h5" --force --quiet <<'PY'
import resource, subprocess, sys
subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
PY
}
big=$(peak_kib "$n" "$@"); small=$(peak_kib 10 "$@")
awk -v b="$big" -v s="$small" -v n="$n" 'BEGIN { printf "%.1f bytes per server (peak RSS %d KiB at n = %d, %d KiB at n = 10)\n", (b - s) * 1024 / n, b, n, s }'
