#!/usr/bin/env bash
# The checklist of docs/architecture.md ("Adding a model") is complete: in a scratch copy of the
# sources, the template model (kernels/mmc) is copied under another name exactly as the checklist
# says, registered, built in a build folder of its own, and the new model runs, has theory and
# help, and passes the tests that follow the registry (help and the man page, the unstable
# statement, time scales, rank/thread invariance, the Python package). A step the checklist
# misses fails here.
#   e2e_new_model.sh SOURCE_DIR PYTHON [CMAKE]
set -euo pipefail
src=$(realpath "$1"); python=$2; cmake=${3:-cmake}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
copy=$work/src; mkdir -p "$copy"
# the whole source tree but its build folders and git metadata
tar -C "$src" --exclude=./build --exclude='./build-*' --exclude=./.git -cf - . | tar -C "$copy" -xf -
cd "$copy"
new=mmtwin
# 1. copy the template folder and rename it (identifiers, the model's name, its messages)
cp -r kernels/mmc "kernels/$new"
sed -i "s/mmc/$new/g; s/MMC/${new^^}/g" "kernels/$new"/*
# 2. one line in kernels/models.h and one in src/app/registry.c
sed -i "s/^extern const storq_model storq_model_mmc;$/&\nextern const storq_model storq_model_$new;/" kernels/models.h
sed -i "s/^    &storq_model_mmc,$/&\n    \&storq_model_$new,/" src/app/registry.c
# 3. the model's page (its "What it models" section is `storq help`'s summary)
sed "s/\`mmc\`/\`$new\`/g; s/storq run mmc/storq run $new/g" docs/models/mmc.md > "docs/models/$new.md"
# 4. build, and regenerate the man page
"$cmake" -S . -B build -DCMAKE_BUILD_TYPE=Release -DSTORQ_BUILD_TESTS=OFF -DSTORQ_BUILD_BENCH=OFF > build.log
"$cmake" --build build -j2 --target storq >> build.log 2>&1 || { tail -30 build.log; exit 1; }
"$cmake" --build build --target man >> build.log 2>&1
storq=$copy/build/storq

failures=0
check() {
  local what=$1; shift
  if "$@" > check.log 2>&1; then echo "ok: $what"; return; fi
  echo "FAIL: $what"; grep -i "fail" check.log | head -20 || tail -20 check.log
  failures=$((failures + 1))
}
check "storq models lists $new" grep -q "^  $new " <<<"$("$storq" models)"
check "storq run $new" "$storq" run $new --warmup 500 --arrivals 5000 -r 3 -o run.h5 --quiet
check "storq info" "$storq" info run.h5
check "storq theory $new" grep -q "wait_probability" <<<"$("$storq" theory $new)"
check "storq help $new" grep -q "What it models\|Source:" <<<"$("$storq" help $new)"
# 5. the tests that follow the registry, from the copy, on the new binary
check "e2e_help" tests/e2e_help.sh "$storq" "$copy" "$copy/build" "$cmake"
check "e2e_views" tests/e2e_views.sh "$storq" "$python"
check "e2e_sweep_errors" tests/e2e_sweep_errors.sh "$storq"
check "invariance of every model" tests/e2e_invariance_models.sh "$storq" "$python"
check "the Python package" env STORQ_BIN="$storq" "$python" -m pytest -q -p no:cacheprovider \
  tests/python/test_package.py -k "$new" --basetemp="$work/pytest"
cp check.log pytest.log
check "the Python package ran the new model's cases" grep -q "[1-9][0-9]* passed" pytest.log
echo "$failures failure(s)"
[ $failures -eq 0 ]
