#!/usr/bin/env bash
# `cmake --install` to a temporary prefix as a user would: every file a user runs is there (the
# binary, man page, Python package, Slurm scripts, examples, docs) and nothing else; the installed
# storq prints its version and commit and reads the installed example sweeps in place; the
# installed batch scripts' binary check finds the storq installed with them when PATH has none
# (a stub srun runs the step in place, no Slurm needed); the Python package imports from
# PREFIX/lib/python3/dist-packages (the documented PYTHONPATH) and reads the job's file.
# Usage: e2e_install.sh BUILD_DIR SOURCE_DIR CMAKE PYTHON VERSION
set -uo pipefail
build=$(realpath "$1"); src=$(realpath "$2"); cmake=$3; python=$4; version=$5
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT; cd "$work" || exit 1
prefix=$work/prefix
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
ok() { echo "ok: $*"; }

"$cmake" --install "$build" --prefix "$prefix" > install.log 2>&1 || { cat install.log; echo "FAIL: cmake --install"; exit 1; }

# The file list: what the source tree says should be there, no more, no less.
pydir=lib/python3/dist-packages
{
  echo bin/storq
  echo share/man/man1/storq.1
  (cd "$src/io/python" && find storq -name '*.py' -not -path '*/__pycache__/*') | sed "s|^|$pydir/|"
  for f in storq.sbatch storq-array.sbatch local-cluster.sh; do echo "share/storq/slurm/$f"; done
  (cd "$src/jobs" && find sweeps traces -type f \( -name '*.ini' -o -name '*.py' -o -name '*.sh' -o -name '*.txt' \) \
     -not -path '*/__pycache__/*') | sed 's|^|share/storq/examples/|'
  echo share/doc/storq/README.md
  (cd "$src/docs" && find . -type f \( -name '*.md' -o -name '*.png' -o -name '*.svg' \)) | sed 's|^\./|share/doc/storq/docs/|'
} | sort > expected.txt
(cd "$prefix" && find . -type f | sed 's|^\./||' | sort) > installed.txt
if diff -u expected.txt installed.txt > files.diff; then
  ok "cmake --install put the $(wc -l < installed.txt) expected files under the prefix"
else
  fail "installed files differ from the expected list (- missing, + unexpected):"; grep '^[-+][^-+]' files.diff | head -20
fi
for f in bin/storq share/storq/slurm/storq.sbatch share/storq/slurm/storq-array.sbatch \
         share/storq/slurm/local-cluster.sh share/storq/examples/sweeps/proxy-greedy.sh; do
  [ -x "$prefix/$f" ] || fail "$f is not executable"
done

# The binary: version and commit, its help without the source tree, the examples in place.
out=$(cd / && "$prefix/bin/storq" --version)
re="^storq ${version//./\\.} \\(([0-9a-f]{7,}|unknown)\\)$"
[[ $out =~ $re ]] && ok "storq --version: $out" || fail "storq --version printed '$out'"
for ini in "$prefix"/share/storq/examples/sweeps/*.ini; do
  "$prefix/bin/storq" run "$ini" --dry-run -o "$work/dry.h5" > dry.log 2>&1 ||
    fail "installed example $(basename "$ini"): storq run --dry-run exited $?: $(tail -2 dry.log)"
done
ok "every installed example sweep passes --dry-run from share/storq/examples"
if command -v man >/dev/null; then
  page=$(MANPATH="$prefix/share/man" man -w storq 2>/dev/null)
  [ "$page" = "$prefix/share/man/man1/storq.1" ] && ok "man -w storq finds $page" || fail "man -w storq with MANPATH=PREFIX/share/man gave '$page'"
fi

# The batch scripts, run as sbatch would run them, with PATH holding neither storq nor Slurm: a
# stub srun runs the step in place (dropping --cpus-per-task) and records the binary it was given.
mkdir stub
cat > stub/srun <<EOF
#!/bin/bash
[[ \$1 == --cpus-per-task=* ]] && shift
echo "\$1" >> "$work/srun.binaries"
exec "\$@"
EOF
chmod +x stub/srun
cat > tiny.ini <<'INI'
[run]
model = supermarket
replications = 2
seed = 3
[supermarket]
n = 20
L = 2
k = 1
lambda = 0.5, 0.8
warmup = 1000
arrivals = 10000
INI
batch() { env -i HOME="$work" PATH="$work/stub:/usr/bin:/bin" "$@"; }
slurm=$prefix/share/storq/slurm
batch bash "$slurm/storq.sbatch" tiny.ini out.h5 > job.log 2>&1 || fail "storq.sbatch exited $?: $(tail -3 job.log)"
[ -f out.h5 ] && ok "the installed storq.sbatch ran its job" || fail "storq.sbatch wrote no out.h5: $(tail -3 job.log)"
for i in 0 1; do
  batch SLURM_ARRAY_TASK_ID=$i SLURM_ARRAY_TASK_MIN=0 SLURM_ARRAY_TASK_MAX=1 SLURM_ARRAY_TASK_COUNT=2 \
    bash "$slurm/storq-array.sbatch" tiny.ini arr.h5 > "array$i.log" 2>&1 || fail "storq-array.sbatch task $i exited $?: $(tail -3 "array$i.log")"
done
batch bash "$slurm/storq-array.sbatch" --merge arr.h5 2 > merge.log 2>&1 || fail "storq-array.sbatch --merge exited $?: $(tail -3 merge.log)"
[ -f arr.h5 ] && ok "the installed storq-array.sbatch ran two tasks and their merge" || fail "no merged arr.h5"
binaries=$(sort -u srun.binaries 2>/dev/null)
[ "$binaries" = "$prefix/bin/storq" ] && ok "both scripts ran the storq installed with them: $binaries" ||
  fail "the scripts ran '$binaries', not $prefix/bin/storq"
# the check itself: a binary that is not there is refused before srun, exit 2
batch bash "$slurm/storq.sbatch" tiny.ini bad.h5 "$work/nosuch/storq" > bad.log 2>&1; status=$?
[ "$status" -eq 2 ] && grep -q "is not an executable storq binary" bad.log && ok "a missing binary is refused (exit 2)" ||
  fail "storq.sbatch with a missing binary exited $status: $(cat bad.log)"

# The Python package from the prefix alone (the clone's io/python is not on the path).
PYTHONPATH="$prefix/$pydir" "$python" - "$prefix" "$version" <<'PY' || fail "the Python package from the prefix"
import sys
import storq
prefix, version = sys.argv[1], sys.argv[2]
assert storq.__file__.startswith(prefix + "/"), storq.__file__
assert storq.__version__ == version, (storq.__version__, version)
for name in ("out.h5", "arr.h5"):
    r = storq.open(name)
    assert len(r.table()) == 2, r.table()
print("ok: import storq from", storq.__file__, "reads the jobs' files")
PY

[ "$failures" -eq 0 ] && echo "all install checks passed" || { echo "$failures failure(s)"; exit 1; }
