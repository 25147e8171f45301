#!/usr/bin/env bash
# Rank 0 as the hand-out and collection point (issue 27, item 5): many tiny units (supermarket
# n = 10, 100 arrivals: about 15 us each) on NP oversubscribed ranks of one thread over tcp, so
# that the run's speed is set by how fast rank 0 answers requests and takes in results, not by
# the simulation; then units whose histograms are full (what a long replication sends). For each NP it prints the units per second rank 0 took in from the other ranks
# and from all ranks (over /run's wall_seconds, the work phase), the bytes the other ranks sent to
# rank 0 per unit they ran (Open MPI's pml monitoring: results, requests and progress messages
# together), the messages per unit, each rank's peak resident memory (rank 0's and the largest
# other's), and the CPU time of rank 0's serving thread (/run/ranks) per unit the other ranks ran
# and as a share of the wall time. Medians over ROUNDS rounds; the load average before and after.
#   usage: bench/bench_dispatch.sh STORQ [UNITS [ROUNDS [NP...]]]   (defaults 20000, 3, 8 16)
set -euo pipefail
[ $# -ge 1 ] || { grep -m1 "usage:" "$0" | sed "s/^# *//" >&2; exit 2; }
storq=$(realpath "$1"); units=${2:-20000}; rounds=${3:-3}; shift $(( $# < 3 ? $# : 3 ))
nps=("$@"); [ ${#nps[@]} -gt 0 ] || nps=(8 16)
python=/usr/bin/python3
export OMP_NUM_THREADS=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT; cd "$work"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
# tiny: records with nearly empty histograms; full: n = 1000 at load 0.9, 20000 arrivals (a few
# ms each, a tenth as many units), whose two 5120-bin histograms are filled over their range
declare -A cases=([tiny]="--n 10 --lambda 0.5 --warmup 10 --arrivals 100 -r $units"
                  [full]="--n 1000 --lambda 0.9 --warmup 1000 --arrivals 20000 -r $((units / 10))")
for round in $(seq "$rounds"); do
  for case in tiny full; do
  for np in "${nps[@]}"; do
    rm -f out.h5 rss.* mon.txt
    mpirun -np "$np" --oversubscribe --mca btl self,tcp --mca pml_monitoring_enable 2 \
      --mca pml_monitoring_enable_output 2 \
      bash -c 'exec /usr/bin/time -f "%M" -o "rss.$OMPI_COMM_WORLD_RANK" "$@"' _ \
      "$storq" run supermarket ${cases[$case]} --L 2 --seed 1 --quiet -o out.h5 2> mon.txt
    echo -n "$case " >> figures.txt
    "$python" - "$np" <<'PY' >> figures.txt
import sys, h5py, numpy as np
np_ = int(sys.argv[1])
f = h5py.File("out.h5", "r")
u = f["run/units"][()]; wall = float(f["run"].attrs["wall_seconds"])
others = int((u["rank"] > 0).sum())
sent = msgs = 0
for line in open("mon.txt"):  # "E <from> <to> <bytes> bytes <n> msgs sent ...": user messages
    w = line.split()
    if len(w) > 5 and w[0] == "E" and w[2] == "0":
        sent += int(w[3]); msgs += int(w[5])
rss = [int(open(f"rss.{r}").read().split()[-1]) for r in range(np_)]
ranks = f["run/ranks"][()]
serving = float(ranks[ranks["rank"] == 0]["serving_seconds"][0])
print(np_, others / wall, len(u) / wall, sent / max(others, 1), msgs / max(others, 1),
      rss[0] / 1024, max(rss[1:]) / 1024, 1e6 * serving / max(others, 1), serving / wall)
PY
  done
  done
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "| records | ranks | units/s from other ranks | units/s, all ranks | bytes to rank 0 per unit | messages per unit | rank 0 peak RSS | largest other peak RSS | serving CPU per unit from others | serving thread's share of a core |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for case in tiny full; do
for np in "${nps[@]}"; do
  awk -v c="$case" -v n="$np" '$1 == c && $2 == n {$1 = ""; print}' figures.txt | "$python" -c "
import sys, numpy as np
a = np.array([[float(x) for x in l.split()] for l in sys.stdin])
m = np.median(a, axis=0)
print(f'| $case | {int(m[0])} | {m[1]:.0f} | {m[2]:.0f} | {m[3]:.0f} | {m[4]:.2f} | {m[5]:.0f} MiB | {m[6]:.0f} MiB | {m[7]:.0f} us | {m[8]:.2f} |')"
done
done
