#!/usr/bin/env bash
# A healthy file whose check takes longer than STORQ_CHECK_TIMEOUT is read, not called damaged
# (issue 37: Python called a 10,000-point file damaged after 600 s of checking it): the limit is
# on progress (no further object read for that long: HDF5 gone round a loop), not on the whole
# read. storq info and the Python package each read a 150-point file under a limit a quarter of
# the time their check takes; a file HDF5 cannot finish is still refused (e2e_damaged_files).
set -euo pipefail
storq=$1; python=$2; here=$(cd "$(dirname "$0")" && pwd); work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT; cd "$work"
export OMP_NUM_THREADS=1 PYTHONPATH=$here/../io/python
lambdas=$("$python" -c "print(','.join('%.4f' % (0.01 + 0.006 * i) for i in range(150)))")
"$storq" run supermarket --n 10 --L 2 --warmup 0 --arrivals 20 -r 1 --seed 1 --quiet \
  --lambda "$lambdas" -o sweep.h5 2>/dev/null
seconds() { "$python" -c 'import subprocess, sys, time
t = time.monotonic(); subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL)
print(time.monotonic() - t)' "$@"; }
read_py='import storq, sys; print(len(storq.open(sys.argv[1]).table()))'
t_info=$(seconds "$storq" info sweep.h5)
t_py=$(seconds "$python" -c "$read_py" sweep.h5)
echo "unlimited: storq info took $t_info s, the Python reader $t_py s"
for what in info py; do
  t=$([ $what = info ] && echo "$t_info" || echo "$t_py")
  limit=$("$python" -c "print(round(max($t / 4, 0.05), 3))")
  if [ $what = info ]; then
    out=$(STORQ_CHECK_TIMEOUT=$limit "$storq" info sweep.h5 2>&1) || {
      echo "$out" | tail -3; echo "FAIL: storq info under STORQ_CHECK_TIMEOUT=$limit (it takes $t s)"; exit 1; }
    grep -q "^points: 150 (150 complete)" <<<"$out" || { echo "FAIL: storq info: $out" | head; exit 1; }
  else
    out=$(STORQ_CHECK_TIMEOUT=$limit "$python" -c "$read_py" sweep.h5 2>&1) || {
      echo "$out" | tail -3; echo "FAIL: the Python reader under STORQ_CHECK_TIMEOUT=$limit (it takes $t s)"; exit 1; }
    [ "$out" = 150 ] || { echo "FAIL: the Python reader read $out points"; exit 1; }
  fi
  echo "ok: $what read the whole file under STORQ_CHECK_TIMEOUT=$limit (it takes $t s)"
done
