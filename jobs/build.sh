#!/usr/bin/env bash
# Configure and build storq in ./build (Release). Usage: jobs/build.sh [extra cmake args]
set -euo pipefail
cd "$(dirname "$0")/.."
# Debian's HDF5 compiler wrapper (h5pcc), which CMake's FindHDF5 runs, splits paths at blanks
case $PWD in
  *[[:space:]]*) echo "jobs/build.sh: the build directory '$PWD/build' contains a blank, which" \
    "Debian's h5pcc cannot handle; clone storq to a path without blanks, or configure by hand" \
    "with a build directory elsewhere (cmake -S . -B /path/without/blanks)" >&2; exit 2 ;;
esac
# Warnings as errors only when asked for (jobs/test.sh, CI): the cache would otherwise keep a
# test run's -DSTORQ_WERROR=ON for every later build
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DSTORQ_WERROR=OFF "$@"
cmake --build build -j "$(nproc)"
