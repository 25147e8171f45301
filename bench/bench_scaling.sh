#!/usr/bin/env bash
# Parallel scaling of a sweep across ranks, over shared memory and over tcp (how ranks on
# different nodes talk): wall time of 4 points x 1 replication and of 1 point x 4 replications
# (supermarket n ~ 1000, L = 2, load 0.9, ARRIVALS per replication), and issue 27's case, 12 equal
# replications (n = 1000, load 0.5, 5e6 arrivals each), on 1 rank and on 2 ranks of one thread
# each with `--mca btl self,vader` and `--mca btl self,tcp`, interleaved over ROUNDS rounds.
# Prints the median of each, the speed-up, tcp's speed as a fraction of shared memory's, and the
# fewest and most replications a rank took over tcp, with the load average before and after.
#   usage: bench/bench_scaling.sh STORQ [ARRIVALS [ROUNDS]]   (defaults 20000000 and 3)
set -euo pipefail
[ $# -ge 1 ] || { grep -m1 "usage:" "$0" | sed "s/^# *//" >&2; exit 2; }
storq=$(realpath "$1"); arrivals=${2:-20000000}; rounds=${3:-3}
python=/usr/bin/python3
export OMP_NUM_THREADS=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT; cd "$work"
declare -A cases=(
  [points]="--n 1000,1001,1002,1003 -r 1 --lambda 0.9 --warmup 100000 --arrivals $arrivals"
  [replications]="--n 1000 -r 4 --lambda 0.9 --warmup 100000 --arrivals $arrivals"
  [equal12]="--n 1000 -r 12 --lambda 0.5 --warmup 1000 --arrivals 5000000")
names=(points replications equal12)
layouts=("1 vader" "2 vader" "2 tcp")
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for round in $(seq "$rounds"); do
  for name in "${names[@]}"; do
    for layout in "${layouts[@]}"; do
      read -r np btl <<< "$layout"
      rm -f out.h5
      t0=$(date +%s.%N)
      mpirun -np "$np" --mca btl "self,$btl" "$storq" run supermarket ${cases[$name]} --L 2 \
        --k 1 --seed 3 -o out.h5 --quiet
      t1=$(date +%s.%N)
      reps=$("$python" -c "import h5py, numpy as np; u = h5py.File('out.h5')['run/units'][()]; \
c = np.bincount(u[u['rep'] >= 0]['rank'], minlength=$np); print(c.min(), c.max())")
      echo "$name $np $btl $(echo "$t1 - $t0" | bc) $reps" >> times.txt
    done
  done
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
pick() { awk -v n="$1" -v p="$2" -v b="$3" -v c="$4" '$1==n && $2==p && $3==b {print $c}' times.txt; }
echo "| run | 1 rank | 2 ranks, shared memory | 2 ranks, tcp | speed-up (shm / tcp) | tcp / shm speed | replications per rank, tcp |"
echo "|---|---:|---:|---:|---:|---:|---:|"
for name in "${names[@]}"; do
  t1=$(pick "$name" 1 vader 4 | median)
  ts=$(pick "$name" 2 vader 4 | median)
  tt=$(pick "$name" 2 tcp 4 | median)
  lo=$(pick "$name" 2 tcp 5 | sort -n | head -1); hi=$(pick "$name" 2 tcp 6 | sort -n | tail -1)
  case $name in
    points) label="4 points x 1 replication" ;;
    replications) label="1 point x 4 replications" ;;
    equal12) label="12 equal replications" ;;
  esac
  printf "| %s | %.2f s | %.2f s | %.2f s | %.2fx / %.2fx | %.2f | %s-%s |\n" "$label" "$t1" "$ts" \
    "$tt" "$(echo "$t1 / $ts" | bc -l)" "$(echo "$t1 / $tt" | bc -l)" "$(echo "$ts / $tt" | bc -l)" \
    "$lo" "$hi"
done
