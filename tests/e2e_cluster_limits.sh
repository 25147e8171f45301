#!/usr/bin/env bash
# The cluster model's limits of size (docs/models/cluster-theory.md, "Cost"): a size law whose
# blocks law cannot be held is refused before anything is written (exit 2, one message naming
# --size, no file), by `storq run` and `storq theory` alike; the theory's product form costs a
# bounded time: the same numbers fast where requests of k and k + m blocks share their wait
# (before 2026-12-05: 48 CPU-s at rho 0.99), and past its budget a warning and no product_form_*
# arrays, the rest of the theory kept (before: minutes).
set -uo pipefail
. "$(dirname "$0")/usage_errors.sh" # before the cd: $0 may be relative
storq=$1; work=$(mktemp -d); trap 'rm -rf "$work"' EXIT; cd "$work"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# 1. the blocks law past its caps: refused up front (it was exit 1 and a partial file)
expect 2 "\-\-size: 'geom:1e-7' (mean 1e+07 chunks) has files of up to" -- run cluster --size geom:1e-7 --m 2 --lambda 1e-7 --warmup 10 --arrivals 100 -r 2
expect 2 "give a size law with files of at most 2e+07 chunks (geom:P with P >= 1.73e-06)" -- run cluster --size geom:1e-7 --m 2 --lambda 1e-7 -r 2
expect 2 "\-\-size: 'fixed:30000000'.*or more servers (--m)" -- run cluster --size fixed:30000000 --m 2 --lambda 1e-8 -r 2
out=$("$storq" theory cluster --size geom:1e-7 --m 2 --lambda 1e-7 2>&1 >/dev/null); status=$?
if [ $status -eq 2 ] && grep -q -- "--size: 'geom:1e-7'" <<<"$out"; then
  echo "ok: storq theory refuses geom:1e-7 on 2 servers"
else
  fail "storq theory --size geom:1e-7: status $status: $out"
fi

# The costs below are bounded in CPU time (ulimit -t: killed past it), not wall time, which a loaded
# machine stretches (case 3, 10 CPU-s, took 27 s beside two busy loops; its bound was 60 s wall);
# a run that hangs without computing is cut at 240 s.
# 2. rho 0.99, files of mean 1000 chunks on 10 servers: the product form in well under 20 CPU-s
start=$(date +%s)
out=$( (ulimit -t 20; exec timeout 240 "$storq" theory cluster --size geom:0.001 --m 10 --lambda 0.0099 --format csv) 2>&1); status=$?
took=$(( $(date +%s) - start ))
pf=$(grep ',product_form_mean,' <<<"$out" | head -n 1)
if [ $status -eq 0 ] && [ -n "$pf" ] && ! grep -q "warning" <<<"$out"; then
  echo "ok: the product form at rho 0.99 in ${took} s: $pf"
else
  fail "storq theory geom:0.001 at rho 0.99: status $status after ${took} s: $(head -c 400 <<<"$out")"
fi

# 3. exp chunks and files of mean 100 chunks: past the budget, a warning and no product form
start=$(date +%s)
out=$( (ulimit -t 60; exec timeout 240 "$storq" theory cluster --size geom:0.01 --m 10 --lambda 0.05 --chunk_dist exp:1 --format csv) 2>&1); status=$?
took=$(( $(date +%s) - start ))
if [ $status -eq 0 ] && grep -q "warning: cluster: the product-form figure (product_form_\*) would take more than 2.5e+08 evaluations" <<<"$out" &&
   ! grep -q ',product_form_' <<<"$out" && grep -q ',cavity_workload_cdf,' <<<"$out" &&
   grep -q ',regime_mean,' <<<"$out"; then
  echo "ok: over its budget the product form is left out with a warning, in ${took} s"
else
  fail "storq theory geom:0.01 exp:1: status $status after ${took} s: $(grep -i 'warning\|error' <<<"$out" | head -c 400)"
fi

echo "$failures failure(s)"
[ $failures -eq 0 ]
