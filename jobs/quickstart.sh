#!/usr/bin/env bash
# Install, build, and run the default example: a 1000-server supermarket system with two choices
# at load 0.9, 8 replications on 2 MPI ranks, written to example.h5 and printed beside the
# mean-field fixed point.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs/install-deps.sh
jobs/build.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMP_NUM_THREADS=1
# --force: this script's own example file is replaced when the script is run again (storq never
# replaces an existing result unless told to)
mpirun -np 2 build/storq run supermarket --n 1000 --L 2 --k 1 --lambda 0.9 \
  --warmup 100000 --arrivals 1000000 -r 8 --seed 1 -o example.h5 --force
echo "written: $PWD/example.h5 (see what it holds: build/storq info example.h5, from $PWD)"
