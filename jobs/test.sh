#!/usr/bin/env bash
# Install, build, and run the whole test suite (what CI runs).
set -euo pipefail
cd "$(dirname "$0")/.."
jobs/install-deps.sh
# Warnings are errors here: a warning in CI is a failed build, not a line nobody reads.
jobs/build.sh -DSTORQ_WERROR=ON
cd build
# Every test carries its own TIMEOUT (tests/CMakeLists.txt checks it), so no blanket --timeout.
ctest --output-on-failure -j 2
