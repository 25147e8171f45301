#!/usr/bin/env bash
# The memory budget (src/toolkit/memory.h, src/app/memory_budget.c) and trace inputs: refused before any
# file exists, with the estimate, the limit and where the limit comes from; and each model's
# estimate of a replication's state is not below what a replication really touches.
set -uo pipefail
. "$(dirname "$0")/usage_errors.sh" # before the cd: $0 may be relative
storq=$1; python=$2; work=$(mktemp -d); trap 'rm -rf "$work"' EXIT; cd "$work"
failures=0

# One thread and a stated limit, so the messages do not depend on the machine.
export OMP_NUM_THREADS=1
# the transient theory holds the grid x levels u_t too, and more (the ODE over deeper levels), so
# it is refused in prepare before the observables' check of one replication's u_t is reached
STORQ_MEMORY_LIMIT=8G expect 2 "\-\-grid 1000000 at \-\-lambda 0.9 need 2.24e+03 GiB for the mean-field theory's ODE over the time grid (\-\-grid) and the levels it integrates; at most 8 GiB are allowed (STORQ_MEMORY_LIMIT=8G shared by 1 rank x 1 thread per node" -- run supermarket --mode transient --grid 1000000 --levels 100000 -r 2
STORQ_MEMORY_LIMIT=8G expect 2 "point 0: 100000000 replications (-r) of 24 values need 17.9 GiB for the point's table" -- run supermarket --n 10 --L 2 --k 1 --lambda 0.5 --warmup 10 --arrivals 100 -r 100000000
STORQ_MEMORY_LIMIT=8G expect 2 "point 0: 2147483648 replications (-r) of .* values need .* GiB for the point's table" -- run supermarket --n 10 -r 2147483648
STORQ_MEMORY_LIMIT=8G expect 2 "\-\-n: 2000000000 servers need 50.3 GiB for per-server records per replication (and thread); at most 8 GiB" -- run supermarket --n 2000000000 --lambda 0.5 -r 2
STORQ_MEMORY_LIMIT=1M expect 2 "\-\-grid 20000 at \-\-lambda 0.9 need 0.0124 GiB for the mean-field theory's ODE .*; at most 0.000977 GiB" -- run supermarket --mode transient --grid 100,20000 --levels 10 -r 2
STORQ_MEMORY_LIMIT=1G expect 2 "\-\-grid 100000 at \-\-lambda 0.999 need 22.4 GiB for the mean-field theory's ODE" -- run supermarket --mode transient --n 10 --L 1 --lambda 0.999 --grid 100000 -r 2
# The proxy and threads models state their per-thread arrays too.
STORQ_MEMORY_LIMIT=8G expect 2 "\-\-L/\-\-code: 1048576 threads for 3 policies need .* GiB for per-thread arrays" -- run proxy --L 1048576 --code bafec+greedy+fixed:3 --memory-limit 100K -r 2
STORQ_MEMORY_LIMIT=1K expect 2 "\-\-L/\-\-policy: 3 threads for 3 policies need .* GiB for per-thread arrays" -- run threads -r 2
# --memory-limit is the node's budget, shared by its ranks and their threads; it overrides the
# environment; without either, the node's available memory is the budget.
OMP_NUM_THREADS=2 STORQ_MEMORY_LIMIT=100G expect 2 "\-\-n: 20000000 servers need 0.639 GiB .* at most 0.5 GiB are allowed (\-\-memory-limit 1G shared by 1 rank x 2 threads per node" -- run supermarket --n 20000000 -r 2 --memory-limit 1G
expect 2 "\-\-n: 2000000000 servers need 63.7 GiB .* (the node's available memory, .* GiB shared by 1 rank x 1 thread per node; \-\-memory-limit sets another budget)" -- run supermarket --n 2000000000 -r 2
expect 2 "\-\-memory-limit: 'lots' is not a size" -- run supermarket -r 2 --memory-limit lots
expect 2 "\-\-memory-limit: '0' is not a size" -- run supermarket -r 2 --memory-limit 0
STORQ_MEMORY_LIMIT=12X expect 2 "STORQ_MEMORY_LIMIT: '12X' is not a size" -- run supermarket -r 2

# Traces: only regular files, at most 1 GiB (a sparse file one byte larger is refused unread).
truncate -s 1073741825 big.txt
expect 2 "\-\-service: 'trace:big.txt': trace file 'big.txt' holds 1073741825 bytes; traces are read into memory and may hold at most 1073741824 bytes (1 GiB)" -- run supermarket --service trace:big.txt -r 2
expect 2 "trace file '/dev/zero' is not a regular file" -- run supermarket --service trace:/dev/zero -r 2
mkfifo pipe.txt
expect 2 "trace file 'pipe.txt' is not a regular file" -- run forkjoin --service trace:pipe.txt -r 2
rm -f big.txt pipe.txt

# Each model's estimate against the memory one replication really touches: the peak resident
# size of a run with a large state minus that of the same run with a tiny one. The estimate may
# exceed it (arrays a short run leaves untouched) but must not fall below it; where a model touches
# all it states (a fourth argument, in percent), not exceed it by more than that either.
peak_kib() { # ARGS...: the peak resident size of storq ARGS, in KiB
  "$python" - "$storq" "$@" <<'PY'
import resource, subprocess, sys
subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
PY
}
estimate_kib() { # ARGS...: the estimate storq states for ARGS' replication state, in KiB
  local msg; msg=$(STORQ_MEMORY_LIMIT=1K "$storq" "$@" 2>&1 >/dev/null)
  sed -n 's/.* need \([0-9.e+-]*\) GiB for per-.*/\1/p' <<<"$msg" | awk '{printf "%d", $1 * 1048576}'
}
check_estimate() { # LABEL "BIG ARGS" "SMALL ARGS" [MAX PERCENT OF THE TOUCHED MEMORY]
  local label=$1 big small est grown most=${4:-}
  read -ra big <<<"$2"; read -ra small <<<"$3"
  est=$(estimate_kib run "${big[@]}" -r 1 -o est.h5)
  grown=$(( $(peak_kib run "${big[@]}" -r 1 -o big.h5 --quiet --force) - $(peak_kib run "${small[@]}" -r 1 -o small.h5 --quiet --force) ))
  rm -f big.h5 small.h5
  if [ -n "$est" ] && [ -n "$most" ] && [ "$est" -gt $((grown * most / 100)) ]; then
    echo "FAIL: $label: estimate $est KiB above $most% of the $grown KiB a replication touched"; failures=$((failures + 1))
  elif [ -n "$est" ] && [ "$grown" -gt 10000 ] && [ "$est" -ge $((grown * 9 / 10)) ]; then
    echo "ok: $label: estimate $est KiB, touched $grown KiB"
  else
    echo "FAIL: $label: estimate '${est}' KiB below the $grown KiB a replication touched"; failures=$((failures + 1))
  fi
}
check_estimate "supermarket servers" "supermarket --n 1000000 --warmup 0 --arrivals 2000000" "supermarket --n 10 --warmup 0 --arrivals 2000000"
# cluster: 32 bytes per server for 3 coupled policies, 8 for one (one record per server, all of it
# touched when the replication starts), so the estimate is the touched memory within 10% (large m:
# the peak of the tiny run, writing its file, sits a few MB above its replication's).
check_estimate "cluster coupled" "cluster --m 3000000 --lambda 2100000 --warmup 0 --arrivals 2000000" "cluster --m 10 --lambda 7 --warmup 0 --arrivals 2000000" 110
check_estimate "cluster BR alone" "cluster --m 12000000 --lambda 8400000 --policy BR --warmup 0 --arrivals 2000000" "cluster --m 10 --lambda 7 --policy BR --warmup 0 --arrivals 2000000" 110
check_estimate "forkjoin with companion" "forkjoin --n 1000000 --k 500000 --correlation 0.5 --warmup 0 --arrivals 20" "forkjoin --n 10 --k 5 --correlation 0.5 --warmup 0 --arrivals 20"

# The supermarket's theory (its refined solve, dense over the fixed point's levels): refused before
# any file when it would not fit (at 0.99 it peaked at 497 MB; at 0.999 it tried 12 GB, then
# exited 1 with a partial file), and the refusal itself stays small.
expect 2 "\-\-lambda 0.99 with \-\-L 1 \-\-k 1 need 0.453 GiB for the mean-field theory's refined solve .*; at most 0.0977 GiB are allowed (\-\-memory-limit 100M" -- run supermarket --n 10 --L 1 --lambda 0.99 --memory-limit 100M -r 2
expect 2 "\-\-lambda 0.999 with \-\-L 1 \-\-k 1 need 45.6 GiB for the mean-field theory's refined solve" -- run supermarket --n 10 --L 1 --lambda 0.999 --memory-limit 100M -r 2
peak=$("$python" - "$storq" run supermarket --n 10 --L 1 --lambda 0.999 --memory-limit 100M -r 2 -o refused.h5 <<'PY'
import resource, subprocess, sys
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
PY
)
if [ "$peak" -lt 102400 ] && ! ls refused.h5* >/dev/null 2>&1; then echo "ok: the refused theory peaked at $peak KiB, no file"
else echo "FAIL: the refused theory peaked at $peak KiB (or left a file)"; failures=$((failures + 1)); fi
# Under the limit the theory runs: its estimate is not below what it touched (0.9 at --L 1).
est=$(STORQ_MEMORY_LIMIT=1M "$storq" run supermarket --n 10 --L 1 --lambda 0.95 --warmup 0 --arrivals 100 -r 2 -o est.h5 2>&1 | sed -n "s/.* need \([0-9.e+-]*\) GiB for the mean-field.*/\1/p" | awk '{printf "%d", $1 * 1048576}')
grown=$(( $(peak_kib run supermarket --n 10 --L 1 --lambda 0.95 --warmup 0 --arrivals 100 -r 2 -o t1.h5 --quiet --force) - $(peak_kib run supermarket --n 10 --L 1 --lambda 0.5 --warmup 0 --arrivals 100 -r 2 -o t2.h5 --quiet --force) ))
if [ -n "$est" ] && [ "$est" -ge $((grown * 9 / 10)) ]; then echo "ok: supermarket theory: estimate $est KiB, touched $grown KiB"
else echo "FAIL: supermarket theory: estimate '$est' KiB below the $grown KiB it touched"; failures=$((failures + 1)); fi

# A sweep's prepared points (each one's model context and observables, about 8 KiB for the
# supermarket): 100,000 points under 50M are refused after the first points, not after all (a
# 990,000-point sweep reached 9.5 GB). The points' own list (about 1 KiB each) is not yet counted.
n_list=$(seq -s, 10 109); l_list=$("$python" -c "print(','.join('%.4f' % (0.0005 + i * 0.000999) for i in range(1000)))")
expect 2 "the run's 100000 points need 0.8 GiB prepared at once (at least 8.39 KiB each, .*; at most 0.0488 GiB are allowed (\-\-memory-limit 50M" -- run supermarket --n "$n_list" --lambda "$l_list" --memory-limit 50M -r 2
peak=$("$python" - "$storq" run supermarket --n "$n_list" --lambda "$l_list" --memory-limit 50M -r 2 -o sweep.h5 <<'PY'
import resource, subprocess, sys
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
PY
)
if [ "$peak" -lt 204800 ] && ! ls sweep.h5* >/dev/null 2>&1; then echo "ok: the refused sweep peaked at $peak KiB, no file"
else echo "FAIL: the refused sweep peaked at $peak KiB (or left a file)"; failures=$((failures + 1)); fi

[ "$failures" -eq 0 ] && echo "all memory checks passed" || { echo "$failures failed"; exit 1; }
