#!/usr/bin/env bash
# The same seed gives the same file, bit for bit, for 1, 2 and 3 ranks and 1 and 2 threads.
set -euo pipefail
storq=$1; python=$2; here=$(dirname "$0"); work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
args=(run supermarket --n 50 --L 2,3 --k 1 --lambda 0.8 --warmup 2000 --arrivals 20000 -r 7 --seed 42 --quiet)
for ranks in 1 2 3; do
  for threads in 1 2; do
    OMP_NUM_THREADS=$threads mpirun -np $ranks "$storq" "${args[@]}" -o "$work/r${ranks}t${threads}.h5"
  done
done
# Transient mode and the counts engine too, on 1 and 3 ranks.
targs=(run supermarket --n 200 --L 2 --k 1 --lambda 0.9 --mode transient --horizon 5 --grid 10 --engine servers,counts -r 5 --seed 3 --quiet)
OMP_NUM_THREADS=1 mpirun -np 1 "$storq" "${targs[@]}" -o "$work/t1.h5"
OMP_NUM_THREADS=2 mpirun -np 3 "$storq" "${targs[@]}" -o "$work/t3.h5"
# The cluster model, coupled policies, both regimes (m = 4 puts the larger files in the linear one).
cargs=(run cluster --m 4,50 --lambda 0.5 --size uniform:1,6 --coding plus:1 --warmup 1000 --arrivals 20000 -r 5 --seed 8 --quiet)
OMP_NUM_THREADS=1 mpirun -np 1 "$storq" "${cargs[@]}" -o "$work/c1.h5"
OMP_NUM_THREADS=2 mpirun -np 3 "$storq" "${cargs[@]}" -o "$work/c3.h5"
# The forkjoin model, four zipped points: a plain g = 1 group, then g > 1 with lwl (load jobs, so
# ties draw from TIES) and pod:2 (load work) at correlations strictly between 0 and 1, which run
# the delta = 0 companion system (ties from EXTRA) on the same numbers, on exp, shexp and pareto.
fargs=(run forkjoin --n 5 --k 3 --mu 1 --zip groups,assign,load,correlation,service,lambda
       --groups 1,3,4,2 --assign "uniform lwl pod:2 lwl" --load work,jobs,work,work
       --correlation 0,0.5,0.3,0.7 --service "exp exp shexp:0.2 pareto:2.5" --lambda 3,8,12,4
       --warmup 1000 --arrivals 20000 -r 5 --seed 11 --quiet)
OMP_NUM_THREADS=1 mpirun -np 1 "$storq" "${fargs[@]}" -o "$work/f1t1.h5"
OMP_NUM_THREADS=2 mpirun -np 1 "$storq" "${fargs[@]}" -o "$work/f1t2.h5"
OMP_NUM_THREADS=2 mpirun -np 3 "$storq" "${fargs[@]}" -o "$work/f3t2.h5"
status=0
"$python" "$here/compare_h5.py" "$work/c1.h5" "$work/c3.h5" || status=1
for f in f1t2 f3t2; do
  "$python" "$here/compare_h5.py" "$work/f1t1.h5" "$work/$f.h5" || status=1
done
for f in r1t2 r2t1 r2t2 r3t1 r3t2; do
  "$python" "$here/compare_h5.py" "$work/r1t1.h5" "$work/$f.h5" || status=1
done
"$python" "$here/compare_h5.py" "$work/t1.h5" "$work/t3.h5" || status=1
exit $status
