#!/usr/bin/env bash
# Results do not depend on the build flags, and the user's flags are the ones used: build storq
# alone in a second tree with CMAKE_C_FLAGS=-O3 and STORQ_NATIVE=ON (-march=native, FMA on any
# recent x86), check that its compile lines end at -O3 with -march=native and -ffp-contract=off,
# and run the regression corpus with it against the digests that the default (-O2) build matches
# (e2e_corpus_unchanged).
#   build_flags.sh SOURCE_DIR BUILD_DIR GENERATOR C_COMPILER PYTHON
# The tree is kept in BUILD_DIR, so a second run rebuilds only what changed.
set -euo pipefail
src=$1; tree=$2; generator=$3; cc=$4; python=$5
cmake -S "$src" -B "$tree" -G "$generator" -DCMAKE_C_COMPILER="$cc" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_C_FLAGS=-O3 -DSTORQ_NATIVE=ON -DSTORQ_BUILD_TESTS=OFF -DSTORQ_BUILD_BENCH=OFF \
  -DCMAKE_EXPORT_COMPILE_COMMANDS=ON >/dev/null
cmake --build "$tree" --target storq -j 2 >/dev/null

# The compile line of a kernel source: the last -O is the user's -O3 (not a -O2 of storq's
# defaults after it), with -march=native and contraction off.
line=$("$python" -c '
import json, sys
cmds = [c["command"] for c in json.load(open(sys.argv[1])) if "/kernels/" in c["file"]]
print(cmds[0])' "$tree/compile_commands.json")
last_level=$(grep -o -- ' -O[^ ]*' <<<"$line" | tail -n 1)
status=0
[[ $last_level == " -O3" ]] || { echo "compile line ends at${last_level:- no -O}, not -O3: $line"; status=1; }
for flag in -march=native -ffp-contract=off; do
  grep -q -- " $flag" <<<"$line" || { echo "compile line lacks $flag: $line"; status=1; }
done
grep -qw fma /proc/cpuinfo 2>/dev/null || echo "note: this CPU has no FMA; -march=native cannot contract here"

"$(dirname "$0")/corpus/check.sh" "$tree/storq" "$python" || status=1
exit $status
