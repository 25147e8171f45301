#!/usr/bin/env bash
# The memory budget (src/toolkit/memory.h, src/app/memory_budget.c) and trace inputs: refused before any
# file exists, with the estimate, the limit and where the limit comes from (a replication's state,
# a point's table, every model's theory, a sweep's points and their work units, rank 0's
# collection); each model's estimate of a replication's state is not below what a replication
# really touches; a refused run stays small; and a run accepted near its limit peaks under it.
set -uo pipefail
. "$(dirname "$0")/usage_errors.sh" # before the cd: $0 may be relative
storq=$1; python=$2; work=$(mktemp -d); trap 'rm -rf "$work"' EXIT; cd "$work"
failures=0

# One thread and a stated limit, so the messages do not depend on the machine.
export OMP_NUM_THREADS=1
# A rank's budget is its share less what it holds before its points and the room kept for HDF5
# (src/app/memory_budget.c); small limits are set that far above it (MB, rounded up), so that they
# do not depend on the machine's libraries.
held_mb=$(STORQ_MEMORY_LIMIT=1K "$storq" run threads -r 2 -o held.h5 2>&1 | sed -n 's/.*less the \([0-9]*\) MB a rank holds before its points and \([0-9]*\) MB kept for HDF5.*/\1 \2/p' | awk '{print $1 + $2 + 1}')
[ -n "$held_mb" ] || { echo "FAIL: no 'less the N MB a rank holds' in a refusal"; exit 1; }
above() { echo "$((held_mb + $1))M"; } # a limit leaving about $1 MB to the run
# the transient theory holds the grid x levels u_t too, and more (the ODE over deeper levels), so
# it is refused in prepare before the observables' check of one replication's u_t is reached
STORQ_MEMORY_LIMIT=8G expect 2 "\-\-grid 1000000 at \-\-lambda 0.9 need 2.24e+03 GiB for the mean-field theory's ODE over the time grid (\-\-grid) and the levels it integrates; at most 7.9[0-9]* GiB are allowed (STORQ_MEMORY_LIMIT=8G shared by 1 rank x 1 thread per node, less the [0-9]* MB a rank holds before its points and [0-9]* MB kept for HDF5" -- run supermarket --mode transient --grid 1000000 --levels 100000 -r 2
# a point's replications are work units too: their hand-out comes first (rank 0 writes its record
# of them as they run, a block at a time: nothing a unit)
STORQ_MEMORY_LIMIT=8G expect 2 "the run's 1 point and 200000001 work units need 14.9 GiB for their parameters, the hand-out and rank 0's state of each point (.* bytes a point, 80 a unit" -- run supermarket --n 10 --L 2 --k 1 --lambda 0.5 --warmup 10 --arrivals 100 -r 200000000
STORQ_MEMORY_LIMIT=8G expect 2 "the run's 1 point and 2147483649 work units need .* GiB" -- run supermarket --n 10 -r 2147483648
STORQ_MEMORY_LIMIT=8G expect 2 "point 0: 1000 replications (-r) of 1100011 values need 8.2 GiB for the point's table" -- run supermarket --mode transient --grid 100000 --levels 10 -r 1000
STORQ_MEMORY_LIMIT=8G expect 2 "\-\-n: 2000000000 servers need 50.3 GiB for per-server records per replication (and thread); at most 7.9[0-9]* GiB" -- run supermarket --n 2000000000 --lambda 0.5 -r 2
STORQ_MEMORY_LIMIT=$(above 4) expect 2 "\-\-grid 20000 at \-\-lambda 0.9 need 0.0124 GiB for the mean-field theory's ODE .*; at most 0.00[0-9]* GiB" -- run supermarket --mode transient --grid 100,20000 --levels 10 -r 2
STORQ_MEMORY_LIMIT=1G expect 2 "\-\-grid 100000 at \-\-lambda 0.999 need 22.4 GiB for the mean-field theory's ODE" -- run supermarket --mode transient --n 10 --L 1 --lambda 0.999 --grid 100000 -r 2
# The proxy and threads models state their per-thread arrays too.
STORQ_MEMORY_LIMIT=8G expect 2 "\-\-L/\-\-code: 1048576 threads for 3 policies need .* GiB for per-thread arrays" -- run proxy --L 1048576 --code bafec+greedy+fixed:3 --memory-limit "$(above 1)" -r 2
STORQ_MEMORY_LIMIT=$(above 1) expect 2 "\-\-L/\-\-policy: 65536 threads for 3 policies need .* GiB for per-thread arrays" -- run threads --L 65536 -r 2
# --memory-limit is the node's budget, shared by its ranks and their threads; it overrides the
# environment; without either, the node's available memory is the budget.
OMP_NUM_THREADS=2 STORQ_MEMORY_LIMIT=100G expect 2 "\-\-n: 20000000 servers need 0.639 GiB .* at most 0.4[0-9]* GiB are allowed (\-\-memory-limit 1G shared by 1 rank x 2 threads per node, less" -- run supermarket --n 20000000 -r 2 --memory-limit 1G
expect 2 "\-\-n: 2000000000 servers need 63.7 GiB .* (the node's available memory, .* GiB shared by 1 rank x 1 thread per node, less .* kept for HDF5; \-\-memory-limit sets another budget)" -- run supermarket --n 2000000000 -r 2
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
  local msg; msg=$(STORQ_MEMORY_LIMIT=$(above 1) "$storq" "$@" 2>&1 >/dev/null)
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
expect 2 "\-\-lambda 0.99 with \-\-L 1 \-\-k 1 need 0.453 GiB for the mean-field theory's refined solve .*; at most 0.0[0-9]* GiB are allowed (\-\-memory-limit 100M" -- run supermarket --n 10 --L 1 --lambda 0.99 --memory-limit 100M -r 2
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
est=$(STORQ_MEMORY_LIMIT=$(above 1) "$storq" run supermarket --n 10 --L 1 --lambda 0.95 --warmup 0 --arrivals 100 -r 2 -o est.h5 2>&1 | sed -n "s/.* need \([0-9.e+-]*\) GiB for the mean-field.*/\1/p" | awk '{printf "%d", $1 * 1048576}')
grown=$(( $(peak_kib run supermarket --n 10 --L 1 --lambda 0.95 --warmup 0 --arrivals 100 -r 2 -o t1.h5 --quiet --force) - $(peak_kib run supermarket --n 10 --L 1 --lambda 0.5 --warmup 0 --arrivals 100 -r 2 -o t2.h5 --quiet --force) ))
if [ -n "$est" ] && [ "$est" -ge $((grown * 9 / 10)) ]; then echo "ok: supermarket theory: estimate $est KiB, touched $grown KiB"
else echo "FAIL: supermarket theory: estimate '$est' KiB below the $grown KiB it touched"; failures=$((failures + 1)); fi

# A sweep's points (issue 31: 990,000 points under --memory-limit 200M reached 9.5 GB before
# writing anything): their parameters, the run's records of them and their work units are
# estimated from the lists before any point is built, and refused at once, small, with no file.
peak_of() { # ARGS...: the peak resident size of storq ARGS in KiB, whatever its exit status
  "$python" - "$storq" "$@" <<'PY'
import resource, subprocess, sys
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
PY
}
n_list=$(seq -s, 10 999); l_list=$("$python" -c "print(','.join('%.4f' % (0.0005 + i * 0.000999) for i in range(1000)))")
expect 2 "the run's 990000 points and 2970000 work units need 16.6 GiB for their parameters, the hand-out and rank 0's state of each point (.*; at most 0.1[0-9]* GiB are allowed (\-\-memory-limit 200M" -- run supermarket --n "$n_list" --lambda "$l_list" --memory-limit 200M -r 2
peak=$(peak_of run supermarket --n "$n_list" --lambda "$l_list" --memory-limit 200M -r 2 -o sweep.h5)
if [ "$peak" -lt 51200 ] && ! ls sweep.h5* >/dev/null 2>&1; then echo "ok: the refused 990,000-point sweep peaked at $peak KiB, no file"
else echo "FAIL: the refused 990,000-point sweep peaked at $peak KiB (or left a file)"; failures=$((failures + 1)); fi
# The model's own state of each point is measured as the points are prepared and adds to the same
# estimate: 20,000 points whose records fit (0.35 GiB) are refused after their first points.
n_list=$(seq -s, 10 29)
expect 2 "the run's 20000 points need 0.49[0-9]* GiB prepared at once with the run's records of them (0.3[0-9]* GiB) and at least 8.[0-9]* KiB each of the model's state" -- run supermarket --n "$n_list" --lambda "$l_list" --memory-limit 450M -r 2
peak=$(peak_of run supermarket --n "$n_list" --lambda "$l_list" --memory-limit 450M -r 2 -o sweep.h5)
if [ "$peak" -lt 102400 ] && ! ls sweep.h5* >/dev/null 2>&1; then echo "ok: the refused 20,000-point sweep peaked at $peak KiB, no file"
else echo "FAIL: the refused 20,000-point sweep peaked at $peak KiB (or left a file)"; failures=$((failures + 1)); fi

# The other models' theory, sized before anything runs: the cluster's cavity queue (its grid at its
# cap) and the forkjoin theory's sorted copy of a trace (below); proxy's and threads' theory hold
# at most a few arrays of --nmax (at most 4096) numbers, within what is kept for HDF5.
expect 2 "\-\-size/\-\-m/\-\-chunk_dist: the cavity queue of 100 servers need 0.156 GiB for the theory (its grid counted at its cap of 2^21 points" -- run cluster --memory-limit "$(above 100)" -r 2

# Accepted near the limit, a run stays under it: the smallest limit of a ladder (2 MB steps above
# what a rank holds) that a run is not refused at, and that run's peak resident size below it.
# Each refusal takes a fraction of a second; the accepted run a few seconds.
near_limit() { # LABEL ARGS...
  local label=$1 mb rc peak; shift
  for mb in $(seq 2 2 80); do
    peak=$("$python" - "$storq" "$@" --memory-limit "$(above "$mb")" -o near.h5 --quiet --force <<'PY'
import resource, subprocess, sys
rc = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
print(rc, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
PY
)
    rc=${peak% *}; peak=${peak#* }
    rm -f near.h5*
    [ "$rc" = 2 ] && continue
    local limit=$(( (held_mb + mb) * 1024 ))
    if [ "$rc" = 0 ] && [ "$peak" -lt "$limit" ]; then echo "ok: $label: accepted at $((held_mb + mb))M, peaked at $peak KiB"
    else echo "FAIL: $label: exit $rc at $((held_mb + mb))M, peak $peak KiB"; failures=$((failures + 1)); fi
    return
  done
  echo "FAIL: $label: refused at every limit up to $((held_mb + 80))M"; failures=$((failures + 1))
}
near_limit "250-point sweep" run supermarket --n 10 --lambda "$("$python" -c "print(','.join('%.4f' % (0.01 + i * 0.0002) for i in range(250)))")" --warmup 0 --arrivals 1 -r 2
near_limit "20,000 replications of a point" run supermarket --n 10 --warmup 0 --arrivals 1 -r 20000
near_limit "supermarket theory at 0.95" run supermarket --n 10 --L 1 --lambda 0.95 --warmup 0 --arrivals 100 -r 2
"$python" -c "import random; random.seed(1); print('\n'.join('%.6f' % random.expovariate(1) for _ in range(2000000)))" > trace.txt
expect 2 "\-\-service: the trace's 2000000 numbers need 0.0149 GiB for the theory's sorted copy of them" -- run forkjoin --service trace:trace.txt --memory-limit "$(above 10)" -r 2
near_limit "forkjoin trace theory" run forkjoin --service trace:trace.txt --warmup 0 --arrivals 10 -r 2

[ "$failures" -eq 0 ] && echo "all memory checks passed" || { echo "$failures failed"; exit 1; }
