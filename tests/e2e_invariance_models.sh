#!/usr/bin/env bash
# Rank/thread invariance of every registered model (`storq models`), so that a new model is covered
# without editing a test: each model at its defaults, shortened (--warmup 500 --arrivals 5000,
# 5 replications), on 1 rank of 1 thread and on 2 ranks of 2 threads (and 3 ranks of 1 thread
# over tcp), compared bit for bit. The hand-written cases of tests/invariance.cmake go further for
# the paper models (sweeps, every policy, transient mode).
#   e2e_invariance_models.sh STORQ PYTHON
set -euo pipefail
storq=$1; python=$2; here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT; cd "$work"
models=$("$storq" models | awk '{print $1}')
[ -n "$models" ] || { echo "FAIL: storq models lists no model"; exit 1; }
failures=0
for model in $models; do
  args=(run "$model" --warmup 500 --arrivals 5000 -r 5 --seed 29 --quiet)
  OMP_NUM_THREADS=1 "$storq" "${args[@]}" -o "$model-r1t1.h5"
  OMP_NUM_THREADS=2 mpirun -np 2 --bind-to none "$storq" "${args[@]}" -o "$model-r2t2.h5"
  OMP_NUM_THREADS=1 mpirun -np 3 --mca btl self,tcp "$storq" "${args[@]}" -o "$model-r3t1.h5"
  for d in r2t2 r3t1; do
    if "$python" "$here/compare_h5.py" "$model-r1t1.h5" "$model-$d.h5" > cmp.log 2>&1; then
      echo "ok: $model: $d gives the same file as r1t1"
    else
      echo "FAIL: $model: $d differs from r1t1"; cat cmp.log; failures=$((failures + 1))
    fi
  done
done
echo "$failures failure(s)"
[ $failures -eq 0 ]
