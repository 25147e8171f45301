#!/usr/bin/env bash
# A rank with no work left waits without spinning (mpi/wait.c): 3 ranks of one thread share one
# replication of about 4 s and a point's theory, so at least one of ranks 1 and 2 does not run
# the replication and waits for it in the run's last collective. Each
# rank's CPU time (user + sys) is taken by bash's `time` around it; such a rank must use less
# than 0.25 of the working rank's CPU time (spinning, a waiting rank used about as much). Open MPI
# yields the CPU by itself when ranks outnumber cores (3 on 2 here), which would hide a spin under
# load: mpi_yield_when_idle = 0 keeps its default for a node with a core per rank.
#   e2e_idle_rank.sh STORQ PYTHON
set -euo pipefail
storq=$1; python=$2
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT; cd "$work"
OMP_NUM_THREADS=1 OMPI_MCA_mpi_yield_when_idle=0 mpirun -np 3 bash -c \
  'TIMEFORMAT="%U %S"; { time "$@" 2>&3; } 3>&2 2> "cpu.$OMPI_COMM_WORLD_RANK"' _ \
  "$storq" run supermarket --n 1000 --L 2 --k 1 --lambda 0.9 --warmup 100000 --arrivals 60000000 \
  -r 1 --seed 1 --quiet -o idle.h5
"$python" - <<'PY'
import h5py, sys
units = h5py.File("idle.h5", "r")["run/units"][()]
cpu = [sum(map(float, open(f"cpu.{r}").read().split())) for r in range(3)]
worker = int(units[units["rep"] >= 0]["rank"][0])
# rank 0 waits in its serving thread (naps up to 1 ms, mpi/dispatch.c), not through
# mpi/wait.c: the ranks checked are those that wait in the collectives and sends
idle = [r for r in (1, 2) if r != worker]
print(f"CPU seconds per rank: {cpu}; the replication ran on rank {worker}")
bad = [r for r in idle if cpu[r] >= 0.25 * cpu[worker]]
if bad:
    sys.exit(f"FAIL: waiting ranks {bad} used 0.25 or more of the working rank's CPU time")
PY
