#!/usr/bin/env bash
# The regression corpus: small runs of every model and mode, written to OUTDIR/NAME.h5. A refactor
# must leave every file bit for bit the same (tests/compare_h5.py): tests/corpus/check.sh compares a
# fresh run with the files committed here. Usage: run.sh STORQ OUTDIR [SCHEMA]; the digests are of
# schema 1.x files (SCHEMA 1, the default here); check_schema2.sh compares 2.0 runs (SCHEMA 2)
# with the conversions of 1.x ones.
set -euo pipefail
storq=$1; out=$2; schema=${3:-1}; mkdir -p "$out"
run() { local name=$1; shift; rm -f "$out/$name.h5"; OMP_NUM_THREADS=2 "$storq" run "$@" --seed 5 --quiet --schema "$schema" -o "$out/$name.h5" >/dev/null; }
# supermarket: steady state on both engines and both samplings, batches (k > 1); transient from
# empty and from the fixed point.
run sm_steady supermarket --n 40 --L 2,3 --k 1 --lambda 0.85 --sampling with,without \
  --engine servers,counts --warmup 2000 --arrivals 20000 -r 3
run sm_batch supermarket --n 60 --L 4 --k 2 --lambda 0.35 --service erlang:2,2 --warmup 2000 --arrivals 20000 -r 3
run sm_transient supermarket --n 100 --L 2 --k 1 --lambda 0.9 --mode transient --horizon 4 --grid 8 \
  --engine servers,counts --start "empty fill:1" -r 3
# cluster: coupled BR, BS, WF in both regimes (m = 4 puts the larger files in the linear one),
# random chunk sizes, and each policy alone.
run cl_coupled cluster --m 4,50 --lambda 0.5 --size uniform:1,6 --coding plus:1 --warmup 1000 --arrivals 10000 -r 3
run cl_laws cluster --m 30 --lambda 8 --size geom:0.4 --coding rate:0.5 --chunk_dist exp:1 --warmup 1000 --arrivals 10000 -r 3
run cl_single cluster --m 20 --lambda 4 --size pmf:1=0.5,4=0.5 --policy "BR WF" --warmup 1000 --arrivals 10000 -r 3
# forkjoin: one group, lwl (ties), pod:2, the delta = 0 companion, on exp, shexp, pareto, det.
run fj_mix forkjoin --n 5 --k 3 --mu 1 --zip groups,assign,load,correlation,service,lambda \
  --groups 1,3,4,2 --assign "uniform lwl pod:2 lwl" --load work,jobs,work,work \
  --correlation 0,0.5,0.3,0.7 --service "exp exp shexp:0.2 pareto:2.5" --lambda 3,8,12,4 \
  --warmup 1000 --arrivals 10000 -r 3
run fj_det forkjoin --n 4 --k 2 --mu 2 --groups 2 --assign lwl --service det --lambda 1.5 --warmup 1000 --arrivals 10000 -r 3
# proxy: fixed codes, Greedy and BAFEC coupled in both admissions; two classes (MBAFEC, a code
# pair) with a non-shexp write law.
run px_coupled proxy --L 16 --k 3 --nmax 6 --lambda 3 --admission nonblocking,blocking \
  --code fixed:3+fixed:6+greedy+bafec --warmup 500 --arrivals 5000 -r 3
run px_classes proxy --L 12 --classes "read:0.7:3:6:shexp:0.1,1.5|write:0.3:2:4:hyperexp:0.5,1,0.5,4" \
  --code bafec+greedy+fixed:4/3 --lambda 2.5 --warmup 500 --arrivals 5000 -r 3
# threads: every policy coupled, preemptive where allowed, finite from empty and in steady state.
run th_coupled threads --L 3 --rho 0.6 --policy fcfs-r+serpt-r+sedpt-r+sedpt-nr+sedpt-wcr+fcfs-wcr \
  --mode finite,steady --requests 500 --warmup 200 --arrivals 2000 -r 3
# mmc: the template model, below and near capacity, one server and many (a clock rebase every
# 4096 arrivals happens inside these runs).
run mmc_queue mmc --c 1,4,64 --lambda 0.5,3.6,60 --zip c,lambda --mu 1 --warmup 1000 --arrivals 20000 -r 3
# threads bounds: the relaxation and the last-start bound with SEDPT-NR's companion (exponential),
# and the last-start bound from a listed sedpt-nr:off (NLU downloads), finite and steady.
run th_bounds threads --L 3 --rho 0.5 --policy serpt-r:on+sedpt-wcr:on+bound --mode finite,steady \
  --requests 500 --warmup 200 --arrivals 2000 -r 3
run th_bounds_nlu threads --L 3 --rho 0.5 --policy sedpt-wcr:on+sedpt-nr:off+bound --download shexp:0.01,100 \
  --requests 500 -r 3
