#!/usr/bin/env bash
# OpenMP threads that would share a core are named on stderr (src/app/thread_cores.c): a rank
# bound to one core (mpirun --bind-to core, Open MPI's default up to 2 ranks; taskset) with 2
# threads warns and names the fix; the fix (--map-by slot:PE=2) is silent, with the same bits.
#   e2e_thread_cores.sh STORQ PYTHON
set -uo pipefail
storq=$1; python=$2; here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT; cd "$work"
args=(run supermarket --n 20 --L 2 --k 1 --lambda 0.8 --warmup 500 --arrivals 5000 -r 4 --quiet)
status=0
fail() { echo "FAIL: $*"; status=1; }
warning="2 OpenMP threads on 1 CPU"

OMP_NUM_THREADS=2 mpirun -np 1 --bind-to core "$storq" "${args[@]}" -o core.h5 2> core.err \
  || fail "bound run: $(cat core.err)"
grep -q "storq: warning: $warning (what rank 0 is bound to).*--map-by slot:PE=2" core.err \
  || fail "no warning for 2 threads on one core: $(cat core.err)"
OMP_NUM_THREADS=2 taskset -c 0 "$storq" "${args[@]}" -o taskset.h5 2> taskset.err \
  || fail "taskset run: $(cat taskset.err)"
grep -q "storq: warning: $warning" taskset.err || fail "no warning under taskset -c 0: $(cat taskset.err)"
if [ "$(nproc)" -ge 2 ]; then
  OMP_NUM_THREADS=2 mpirun -np 1 --map-by slot:PE=2 "$storq" "${args[@]}" -o pe.h5 2> pe.err \
    || fail "PE=2 run: $(cat pe.err)"
  [ ! -s pe.err ] || fail "a warning with a core per thread: $(cat pe.err)"
  OMP_NUM_THREADS=1 mpirun -np 1 --bind-to core "$storq" "${args[@]}" -o one.h5 2> one.err \
    || fail "one-thread run: $(cat one.err)"
  [ ! -s one.err ] || fail "a warning for one thread on one core: $(cat one.err)"
  "$python" "$here/compare_h5.py" core.h5 pe.h5 > /dev/null || fail "bound and PE=2 files differ"
fi
exit $status
