#!/usr/bin/env bash
# The cluster model's usage errors: exit status 2, one message naming the parameter and what is
# accepted, and no file (final or partial) left behind.
set -uo pipefail
. "$(dirname "$0")/usage_errors.sh" # before the cd: $0 may be relative
storq=$1; work=$(mktemp -d); trap 'rm -rf "$work"' EXIT; cd "$work"
failures=0

ok=(--m 10 --lambda 2 --size uniform:1,4 --warmup 100 --arrivals 1000 -r 2)
# alpha_k < k
expect 2 "\-\-coding: 'times:0.5' gives alpha_k" -- run cluster "${ok[@]}" --coding times:0.5
expect 2 "\-\-coding: 'rate:2' gives alpha_k" -- run cluster "${ok[@]}" --coding rate:2
expect 2 "\-\-coding: 'plus:-1' gives alpha_k" -- run cluster "${ok[@]}" --coding plus:-1
expect 2 "\-\-coding: 'twice' is not a coding rule; accepted: none, plus:A" -- run cluster "${ok[@]}" --coding twice
# a size law with no mass (or k < 1)
expect 2 "\-\-size" -- run cluster --m 10 --lambda 2 --size pmf:1=0 -r 2
expect 2 "\-\-size" -- run cluster --m 10 --lambda 2 --size fixed:0 -r 2
expect 2 "\-\-size" -- run cluster --m 10 --lambda 2 --size pmf:0=1 -r 2
expect 2 "\-\-size" -- run cluster --m 10 --lambda 2 --size geom:0 -r 2
# load >= 1
expect 2 "\-\-lambda: 4 gives a per-server load rho = lambda E\[k\] E\[c\] / (m mu) = 1" -- run cluster --m 10 --lambda 4 --size uniform:1,4 -r 2
expect 2 "\-\-lambda: 5 gives a per-server load" -- run cluster --m 10 --lambda 5 --size uniform:1,4 -r 2
# chunk_dist with a non-positive mean, or a bad spec
expect 2 "\-\-chunk_dist: 'det:0' has mean 0" -- run cluster "${ok[@]}" --chunk_dist det:0
expect 2 "\-\-chunk_dist" -- run cluster "${ok[@]}" --chunk_dist exp:-1
expect 2 "\-\-chunk_dist" -- run cluster "${ok[@]}" --chunk_dist pareto:0.5,1
# unknown or repeated policy
expect 2 "\-\-policy: 'XY' in 'BR+XY' is not a policy; accepted: distinct policies" -- run cluster "${ok[@]}" --policy BR+XY
expect 2 "\-\-policy: 'BR' is listed twice" -- run cluster "${ok[@]}" --policy BR+WF+BR
# memory
expect 2 "\-\-m: 2000000000 servers with 3 policies need" -- run cluster --m 2000000000 --lambda 1 -r 2
# a good run, and --allow-unstable
if "$storq" run cluster "${ok[@]}" -o good.h5 --quiet && [ -f good.h5 ] && [ ! -f good.h5.partial ]; then
  echo "ok: a valid run writes good.h5"
else
  echo "FAIL: a valid run did not produce good.h5"; failures=$((failures + 1))
fi
out=$("$storq" run cluster --m 10 --lambda 4.5 --size uniform:1,4 --warmup 10 --arrivals 200 -r 2 --allow-unstable -o unstable.h5 --quiet 2>&1); status=$?
if [ $status -eq 0 ] && grep -q "warning" <<<"$out"; then
  echo "ok: --allow-unstable runs with a warning"
else
  echo "FAIL: --allow-unstable: status $status: $out"; failures=$((failures + 1))
fi

echo "$failures failure(s)"
[ $failures -eq 0 ]
