#!/bin/bash
# The paper's rates are fractions of C~, which depends on n, L, Delta and the admission, so the
# points are generated here: one storq run per (admission, L, n, ratio). Read the comparison
# group's fixedN_approx_error = (D~ - simulated)/simulated of each point. STORQ and OUT override
# the binary and the output directory. About 4 minutes on one core.
# The paper's Table I: k = 3, n = 3 and 6, L = 16 and 64, Delta/(Delta + 1/mu) = 0.2, 0.6, 0.8 (mean 1),
# lambda from 0.1 to 0.9 of the capacity estimate C~ (blocking and non-blocking).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# The clone's build/storq; installed (share/storq/examples/sweeps), the storq on PATH.
S=${STORQ:-$here/../../build/storq}; out=${OUT:-.}
[ -n "${STORQ:-}" ] || [ -x "$S" ] || S=$(command -v storq || echo storq)
[ -x "$S" ] || { echo "proxy-table1.sh: no storq binary at '$S' (build it, put it on PATH, or set STORQ)" >&2; exit 2; }
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
mkdir -p "$out"
for adm in nonblocking blocking; do for L in 16 64; do for n in 3 6; do for f in 0.2 0.6 0.8; do
  lams=$(python3 -c "
d=$f; tau=1-d; n=$n; L=$L; u=n*d+3*tau
C=(L/u if '$adm'=='nonblocking' else ((L-n+1)/u+L/u)/2)
print(','.join('%.10g'%(r*C) for r in (0.1,0.3,0.5,0.7,0.9)))")
  mu=$(python3 -c "print('%.10g'%(1/(1-$f)))")
  "$S" run proxy --admission $adm --L $L --k 3 --nmax 6 --code fixed:$n --delay shexp:$f,$mu --lambda $lams --warmup 20000 --arrivals 100000 -r 4 --seed 11 --quiet -o "$out"/t_${adm}_${L}_${n}_${f}.h5
done; done; done; done
echo finished
