#!/usr/bin/env bash
# The same seed gives the same file, bit for bit, however a run is split into MPI ranks and OpenMP
# threads. One decomposition per call, so that the test that fails names it:
#   e2e_invariance.sh STORQ PYTHON DIR CASE RANKS THREADS
# runs CASE on RANKS ranks of THREADS threads into DIR/CASE_rRANKStTHREADS.h5. The 1-rank 1-thread
# run is the reference (CTest runs it first, as a fixture); any other decomposition is compared
# with DIR/CASE_r1t1.h5. Files stay in DIR for a look after a failure.
set -euo pipefail
storq=$1; python=$2; dir=$3; name=$4; ranks=$5; threads=$6; here=$(dirname "$0")
case $name in
  # Steady state, two points.
  supermarket)
    args=(run supermarket --n 50 --L 2,3 --k 1 --lambda 0.8 --warmup 2000 --arrivals 20000 -r 7
          --seed 42 --quiet) ;;
  # Transient mode, the servers and counts engines.
  supermarket_transient)
    args=(run supermarket --n 200 --L 2 --k 1 --lambda 0.9 --mode transient --horizon 5 --grid 10
          --engine servers,counts -r 5 --seed 3 --quiet) ;;
  # Coupled policies, both regimes (m = 4 puts the larger files in the linear one).
  cluster)
    args=(run cluster --m 4,50 --lambda 0.5 --size uniform:1,6 --coding plus:1 --warmup 1000
          --arrivals 20000 -r 5 --seed 8 --quiet) ;;
  # Four zipped points: a plain g = 1 group, then g > 1 with lwl (load jobs, so ties draw from
  # TIES) and pod:2 (load work) at correlations strictly between 0 and 1, which run the delta = 0
  # companion system (ties from EXTRA) on the same numbers, on exp, shexp and pareto; the per-group
  # results kept in full, as their summary (histograms across groups) or both.
  forkjoin)
    args=(run forkjoin --n 5 --k 3 --mu 1
          --zip groups,assign,load,correlation,service,lambda,group_vectors
          --groups 1,3,4,2 --assign "uniform lwl pod:2 lwl" --load work,jobs,work,work
          --group_vectors auto,both,summary,full
          --correlation 0,0.5,0.3,0.7 --service "exp exp shexp:0.2 pareto:2.5" --lambda 3,8,12,4
          --warmup 1000 --arrivals 20000 -r 5 --seed 11 --quiet) ;;
  # proxy: both admissions, one class and two (ROUTING draws the class), three policies coupled.
  proxy)
    args=(run proxy --admission blocking,nonblocking --code fixed:3+greedy+bafec --lambda 3
          --classes "none,read:0.7:3:6:shexp:0.1,1.5|write:0.3:2:4:shexp:0.4,2" --warmup 1000
          --arrivals 20000 -r 5 --seed 13 --quiet) ;;
  # threads: finite and steady modes, exp and shexp downloads, every policy family coupled
  # (preemptive and not), two classes (ROUTING draws the class).
  threads)
    args=(run threads --zip mode,download,rho --mode finite,steady --download exp:50,shexp:0.01,100
          --rho 0.8,0.6 --policy "serpt-r+sedpt-r+sedpt-nr+sedpt-wcr+fcfs-wcr:off+fcfs-r:on"
          --requests 2000 --warmup 1000 --arrivals 10000 -r 5 --seed 19 --quiet) ;;
  # A mixed sweep for the one work queue: six points of very uneven cost (n and the run length
  # grow together), more units than workers, each point's theory a unit of its own, points
  # finishing in an order that depends on the decomposition.
  mixed)
    args=(run supermarket --n 10,40,160 --arrivals 2000,8000,32000 --zip n,arrivals --L 2,4 --k 1
          --lambda 0.85 --warmup 500 -r 6 --seed 17 --quiet) ;;
  # A precision target: batches of 4 until the CI of the mean queue length is within 0.5%, at
  # most 40; one point meets it, one stops at the maximum, whatever ran where.
  precision)
    args=(run supermarket --n 50 --L 2 --lambda 0.5,0.9 --warmup 1000 --arrivals 20000 -r 4
          --precision 0.005 --max-replications 40 --seed 3 --quiet) ;;
  *) echo "e2e_invariance.sh: unknown case '$name'" >&2; exit 2 ;;
esac
mkdir -p "$dir"
ref=$dir/${name}_r1t1.h5
out=$dir/${name}_r${ranks}t${threads}.h5
# A file left by an earlier run must not stand in for this one.
rm -f "$out"
# Threads of a rank get cores of their own: mpirun's default binding (a core a rank, up to 2 ranks)
# would put them on one, and storq would warn (e2e_thread_cores tests that warning).
bind=(); (( threads > 1 )) && bind=(--bind-to none)
OMP_NUM_THREADS=$threads mpirun -np "$ranks" "${bind[@]}" "$storq" "${args[@]}" -o "$out"
[[ $out == "$ref" ]] && exit 0
[[ -f $ref ]] || { echo "no reference $ref: run the test invariance_${name}_r1t1 first" >&2; exit 1; }
"$python" "$here/compare_h5.py" "$ref" "$out"
