#!/usr/bin/env bash
# `storq info` of schema 2.0 files (docs/hdf5-schema-2.md): the corpus runs (every model and
# mode: ragged levels, per-point histogram layouts, quantities some points lack, per-point
# attributes) converted with `storq convert` print the same tables as their 1.x files, the root
# lines aside, and so do three of them converted by the reference converter; --format csv and
# json give the 1.x file's values; a value or an attribute changed behind the checksums is
# refused (exit 2, naming the object and the point, nothing printed), by merge too; merge of a
# 2.0 file holds the results of its 1.x file.
set -uo pipefail
storq=$1; python=$2; here=$(cd "$(dirname "$0")" && pwd); work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
"$here/corpus/run.sh" "$storq" one > /dev/null || fail "the corpus runs failed"
tables() { sed 1d "$1" | grep -v "^  format_version \|^  converted_from "; }
for f in one/*.h5; do
  name=$(basename "$f" .h5)
  "$storq" convert "$f" "$name.2.h5" > /dev/null || { fail "convert $name exited $?"; continue; }
  "$storq" info "$f" > "$name.1.txt" || fail "info of $name's 1.x file exited $?"
  if ! "$storq" info "$name.2.h5" > "$name.2.txt" 2> err.txt; then
    fail "info of $name.2.h5 exited $?: $(cat err.txt)"
  elif ! diff <(tables "$name.1.txt") <(tables "$name.2.txt") > diff.txt; then
    fail "info of $name.2.h5 differs from its 1.x file's: $(head -20 diff.txt)"
  else
    echo "ok: info of $name.2.h5 = its 1.x file's ($(wc -l < "$name.2.txt") lines)"
  fi
  # --format csv: the same bytes; json: the same but for the file's name and version
  "$storq" info "$f" --format csv > "$name.1.csv" && "$storq" info "$name.2.h5" --format csv \
    > "$name.2.csv" && cmp -s "$name.1.csv" "$name.2.csv" || fail "info --format csv of $name.2.h5"
  "$storq" info "$f" --format json > "$name.1.json" &&
    "$storq" info "$name.2.h5" --format json > "$name.2.json" && "$python" -c "import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
for d in (a, b):
    d.pop('file')
    for k in ('format_version', 'converted_from'):
        d['attributes'].pop(k, None)
sys.exit(a != b)" "$name.1.json" "$name.2.json" || fail "info --format json of $name.2.h5"
done
grep -q "^  format_version  2, 0$" sm_steady.2.txt || fail "info does not show format_version 2, 0"

# the reference converter (tests/convert_reference.py, h5py, written apart from the C one) gives
# files that info reads to the same tables, on the files that exercise most of the rules
for name in sm_steady cl_single fj_mix; do
  "$python" "$here/convert_reference.py" "one/$name.h5" "$name.ref.h5" > /dev/null ||
    { fail "convert_reference $name exited $?"; continue; }
  "$storq" info "$name.ref.h5" > "$name.ref.txt" 2> err.txt || fail "info of $name.ref.h5: $(cat err.txt)"
  diff <(tables "$name.2.txt") <(tables "$name.ref.txt") > diff.txt &&
    echo "ok: $name: the reference converter's file reads as the C converter's" ||
    fail "$name: the reference converter's file reads otherwise: $(head -10 diff.txt)"
done

# refused: a value (the row checksum names the point), an array, an attribute
refused() { # FILE WHAT-EXPECTED...
  local file=$1 rc=0; shift
  "$storq" info "$file" > out.txt 2> err.txt || rc=$?
  [ "$rc" = 2 ] || fail "info of $file exited $rc, not 2: $(cat err.txt)"
  for want in "$@"; do
    grep -qF -- "$want" err.txt || fail "info of $file: expected '$want' in: $(cat err.txt)"
  done
  [ ! -s out.txt ] || fail "info of $file printed before refusing: $(head -3 out.txt)"
  echo "ok: refused: $(cat err.txt)"
}
edit() { # SRC DST PYTHON-STATEMENTS (f is the open file)
  cp "$1" "$2"
  "$python" -c "import h5py, numpy as np
f = h5py.File('$2', 'r+')
$3
f.close()" || fail "could not edit $2"
}
edit sm_steady.2.h5 value.h5 \
  "d = f['observables/mean_queue_length/mean']; v = d[()]; v[5] += 1e-9; d[...] = v"
refused value.h5 "object '/points/crc32'" "point 5 (row 5)"
edit sm_steady.2.h5 counts.h5 \
  "d = f['observables/job_delay/counts']; v = d[()]; v[2, 100] += 1; d[...] = v"
refused counts.h5 "object '/points/crc32_arrays'" "point 2 (row 2)"
edit sm_steady.2.h5 unit.h5 "f['observables/mean_job_delay'].attrs['unit'] = 'hours'"
refused unit.h5 "object '/observables/mean_job_delay'" "attributes do not match"

# a damaged 2.0 file is refused by --format csv too, before printing anything
rc=0; "$storq" info value.h5 --format csv > out.txt 2> err.txt || rc=$?
[ "$rc" = 2 ] && grep -qF "point 5 (row 5)" err.txt && [ ! -s out.txt ] ||
  fail "info --format csv of a damaged 2.0 file: exit $rc, $(cat err.txt)"

# merge reads 2.0 files: the merge of a conversion holds its 1.x file's results; a damaged one is
# refused, naming the point, and nothing is written
rc=0; "$storq" merge merged.h5 sm_steady.2.h5 > /dev/null 2> err.txt || rc=$?
[ "$rc" = 0 ] || fail "merge of a 2.0 file: exit $rc, $(cat err.txt)"
"$python" "$here/compare_h5.py" merged.h5 one/sm_steady.h5 > cmp.txt ||
  fail "the merge of sm_steady.2.h5 differs from sm_steady.h5: $(head -3 cmp.txt)"
rc=0; "$storq" merge merged_bad.h5 value.h5 > /dev/null 2> err.txt || rc=$?
[ "$rc" = 2 ] && grep -qF "point 5 (row 5)" err.txt && [ ! -e merged_bad.h5 ] &&
  [ ! -e merged_bad.h5.partial ] || fail "merge of a damaged 2.0 file: exit $rc, $(cat err.txt)"
echo "merge of a damaged 2.0 file: $(cat err.txt)"

[ "$failures" = 0 ] && echo "e2e_info_columnar: all passed" || echo "e2e_info_columnar: $failures failure(s)"
exit $((failures > 0))
