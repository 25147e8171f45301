#!/bin/bash
# Greedy and BAFEC against the best fixed code in the paper's evaluation setting (non-blocking,
# k = 3, nmax = 6, L = 16), at loads 0.1 .. 0.9 of C~(3) = L / u(3), the capacity estimate of the
# (3,3) code (the largest of the fixed codes: the paper's sweep runs up to it), for task delays
# Delta + Exp with Delta + 1/mu = 1 at shift ratios 0.2, 0.4, 0.6, 0.8, and the synthetic S3-like
# read trace jobs/traces/s3-like-read.txt. The six policies run coupled; the larger loads run the
# fixed codes 4..6 beyond their capacity estimates (allow-unstable: their delays then grow with
# the run and they are not the best). Then proxy_greedy_table.py prints, per point, each adaptive
# policy's mean delay over the best fixed code's with the 95% CI of the paired difference.
# STORQ and OUT override the binary and the output directory. About 3 minutes on one core.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# The clone's build/storq; installed (share/storq/examples/sweeps), the storq on PATH.
S=${STORQ:-$here/../../build/storq}; out=${OUT:-.}
[ -n "${STORQ:-}" ] || [ -x "$S" ] || S=$(command -v storq || echo storq)
[ -x "$S" ] || { echo "proxy-greedy.sh: no storq binary at '$S' (build it, put it on PATH, or set STORQ)" >&2; exit 2; }
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
mkdir -p "$out"
rho="0.1 0.2 0.3 0.4 0.5 0.6 0.7 0.8 0.9"
common=(--L 16 --k 3 --nmax 6 --admission nonblocking --code fixed:3+fixed:4+fixed:5+fixed:6+greedy+bafec
        --warmup 10000 --arrivals 50000 -r 8 --seed 13 --allow-unstable --quiet)
for f in 0.2 0.4 0.6 0.8; do
  lams=$(python3 -c "print(','.join('%.10g' % (r * 16 / 3) for r in ($(tr ' ' , <<<"$rho"))))")
  mu=$(python3 -c "print('%.10g' % (1 / (1 - $f)))")
  "$S" run proxy "${common[@]}" --delay shexp:$f,$mu --lambda "$lams" -o "$out/greedy_shexp_$f.h5"
done
# the trace: C~(3) = 16 / (3 (Delta + 1/mu)) with the kernel's fit (theory/delta, inv_mu)
trace="$here/../traces/s3-like-read.txt"
cap=$(python3 -c "
import sys
v=sorted(float(l) for l in open(sys.argv[1]) if l.strip() and not l.startswith('#'))
v=v[:len(v)-int(0.001*len(v))]; m=sum(v)/len(v); print(16/(3*m))" "$trace")
lams=$(python3 -c "print(','.join('%.10g' % (r * $cap) for r in ($(tr ' ' , <<<"$rho"))))")
"$S" run proxy "${common[@]}" --delay "trace:$trace" --lambda "$lams" -o "$out/greedy_trace.h5"
/usr/bin/python3 "$here/proxy_greedy_table.py" "$out"/greedy_shexp_*.h5 "$out/greedy_trace.h5"
