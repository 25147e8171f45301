#!/usr/bin/env bash
# Parallel scaling of a sweep across ranks: wall time of 4 points x 1 replication and of 1 point x
# 4 replications (supermarket n ~ 1000, L = 2, load 0.9, ARRIVALS per replication) on 1 and 2
# ranks of one thread each, interleaved over ROUNDS rounds; prints the median of each and the
# speed-up, with the load average before and after.
#   usage: bench/bench_scaling.sh STORQ [ARRIVALS [ROUNDS]]   (defaults 20000000 and 3)
set -euo pipefail
[ $# -ge 1 ] || { grep -m1 "usage:" "$0" | sed "s/^# *//" >&2; exit 2; }
storq=$(realpath "$1"); arrivals=${2:-20000000}; rounds=${3:-3}
export OMP_NUM_THREADS=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT; cd "$work"
declare -A cases=([points]="--n 1000,1001,1002,1003 -r 1" [replications]="--n 1000 -r 4")
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for round in $(seq "$rounds"); do
  for name in points replications; do
    for np in 1 2; do
      rm -f out.h5
      t0=$(date +%s.%N)
      mpirun -np "$np" "$storq" run supermarket ${cases[$name]} --L 2 --k 1 --lambda 0.9 \
        --warmup 100000 --arrivals "$arrivals" --seed 3 -o out.h5 --quiet
      t1=$(date +%s.%N)
      echo "$name $np $(echo "$t1 - $t0" | bc)" >> times.txt
    done
  done
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
echo "| run | 1 rank | 2 ranks | speed-up |"
echo "|---|---:|---:|---:|"
for name in points replications; do
  t1=$(awk -v n=$name '$1==n && $2==1 {print $3}' times.txt | median)
  t2=$(awk -v n=$name '$1==n && $2==2 {print $3}' times.txt | median)
  label=$([ $name = points ] && echo "4 points x 1 replication" || echo "1 point x 4 replications")
  printf "| %s | %.2f s | %.2f s | %.2fx |\n" "$label" "$t1" "$t2" "$(echo "$t1 / $t2" | bc -l)"
done
