#!/usr/bin/env bash
# Install, build, and run the whole test suite (what CI runs).
set -euo pipefail
cd "$(dirname "$0")/.."
jobs/install-deps.sh
jobs/build.sh
cd build
ctest --output-on-failure -j 2 --timeout 900
