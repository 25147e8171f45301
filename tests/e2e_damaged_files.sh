#!/usr/bin/env bash
# No silent misread, no crash on a damaged file (issue 31, items 2, 8, 10). Copies of a real file
# damaged in HDF5's own structures (tests/craft_damaged_h5.py) and a run with names that are not
# UTF-8:
# - a point's object header overwritten: storq info prints the point as unreadable (text, csv
#   row, json entry), says so on stderr and exits 2; merge counts it missing (exit 1, the rest
#   in OUT.partial) and leaves no lock; --resume salvages the complete points and runs the damaged
#   one again; Python raises storq.DamagedFile naming the point;
# - a global heap object that made HDF5 crash (SIGSEGV) in info, merge and --resume: each exits 2
#   with "damaged HDF5 structure", no crash, no lock; Python raises DamagedFile (no SIGSEGV);
# - a flipped bit of a stored mean: Python raises DamagedFile naming the dataset (it returned the
#   damaged value before), storq.report exits 2 and leaves no HTML file;
# - a Latin-1 byte in -o and in a trace path: the file's strings are valid UTF-8 (escaped \xe9,
#   the bytes kept in command_line_bytes and config_bytes), info's text, csv and json (valid
#   UTF-8) succeed, --resume and merge accept it, Python reads it and storq.report writes HTML.
set -uo pipefail
storq=$1; python=$2; here=$(cd "$(dirname "$0")" && pwd)
export PYTHONPATH=$here/../io/python STORQ_CHECK_TIMEOUT=20
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
fail=0
bad() { echo "FAIL: $*"; fail=1; }
args=(supermarket --n 20,40 --L 2 --k 1 --lambda 0.7 --warmup 100 --arrivals 2000 -r 3 --seed 3)
"$storq" run "${args[@]}" -o real.h5 > /dev/null || { echo "cannot make real.h5"; exit 1; }
mkdir d
"$python" "$here/craft_damaged_h5.py" real.h5 d || { echo "craft_damaged_h5.py failed"; exit 1; }

# expect2 WHAT TEXT CMD...: exit 2, TEXT on stderr, no crash report (MPI's backtrace)
expect2() {
  local what=$1 text=$2; shift 2
  "$@" > out.txt 2> err.txt
  local rc=$?
  [[ $rc -eq 2 ]] || { bad "$what: exit $rc, expected 2: $(head -c 300 err.txt)"; return; }
  grep -qF -- "$text" err.txt || { bad "$what: no '$text' in: $(head -c 300 err.txt)"; return; }
  grep -q "Process received signal\|core dumped" err.txt && { bad "$what: a crash report: $(head -c 300 err.txt)"; return; }
  echo "ok: $what: $(grep error: err.txt | head -1)"
}
no_leftovers() { # no output file, no lock of any kind
  local left; left=$(ls -a | grep -E '^(m\.h5|res\.h5$)|\.lock' | tr '\n' ' ')
  [[ -z $left ]] || bad "$1: left $left"
  rm -f res.h5.partial m.h5 m.h5.partial
}
resume() { cp "$1" res.h5.partial; "$storq" run "${args[@]}" -o res.h5 --resume; }
py_damaged() { # py_damaged FILE OBJECT: storq.open(FILE).table() raises DamagedFile naming it
  "$python" - "$1" "$2" <<'PY' || bad "python on $1"
import sys, storq
try:
    t = storq.open(sys.argv[1]).table()
except storq.DamagedFile as e:
    assert e.object == sys.argv[2] and sys.argv[1] in str(e), str(e)
    print("ok: python:", e)
else:
    sys.exit(f"no DamagedFile: {t.to_dict()}")
PY
}

# a damaged object header
expect2 "info header" "1 point group cannot be read" "$storq" info d/header.h5
grep -qE "^ *1 .*unreadable" out.txt || bad "info header: point 1 not marked unreadable: $(cat out.txt)"
expect2 "info csv header" "cannot be read" "$storq" info --format csv d/header.h5
grep -q "^1,.*unreadable" out.txt || bad "info csv header: no unreadable row 1: $(cat out.txt)"
expect2 "info json header" "cannot be read" "$storq" info --format json d/header.h5
"$python" -c 'import json,sys; d=json.load(open("out.txt")); p=[x for x in d["points"] if x["point"]==1]
assert p and p[0]["values"].get("status")=="unreadable", d["points"]' || bad "info json: no unreadable entry"
# merge counts the point missing (exit 1, it keeps the rest in m.h5.partial), no lock left
"$storq" merge m.h5 d/header.h5 > /dev/null 2> err.txt
rc=$?; [[ $rc -eq 1 ]] && grep -q "1 of the run's 2 points is in no input" err.txt ||
  bad "merge header: exit $rc: $(cat err.txt)"
rm -f m.h5.partial
no_leftovers "merge header"
# --resume salvages a partial file with a damaged point group (what a kill mid-write may leave):
# its complete points go to a new partial, the damaged one is run again
resume d/header.h5 > /dev/null 2> err.txt || bad "resume header: $(cat err.txt)"
"$storq" info res.h5 > /dev/null 2>&1 || bad "resume header: info refuses res.h5"
rm -f res.h5 res.h5.partial
py_damaged d/header.h5 /points/000001

# HDF5 crashed on this one (storq info, merge and --resume: SIGSEGV, a lock left behind)
for fmt in table csv json; do
  expect2 "info $fmt heap" "damaged HDF5 structure" "$storq" info --format $fmt d/heap.h5
done
expect2 "merge heap" "damaged HDF5 structure" "$storq" merge m.h5 d/heap.h5
no_leftovers "merge heap"
expect2 "resume heap" "damaged HDF5 structure" resume d/heap.h5
no_leftovers "resume heap"
py_damaged d/heap.h5 /

# a flipped bit: Python returned the damaged value
py_damaged d/flipped.h5 /points/000000/observables/mean_job_delay/mean
expect2 "report flipped" "mean_job_delay/mean" "$python" -m storq.report d/flipped.h5 --html f.html
[[ -e f.html ]] && bad "storq.report left f.html for a damaged file"

# names that are not UTF-8
printf '1.0\n2.0\n0.5\n' > "tr$(printf '\xe9').txt"
lat="lat$(printf '\xe9').h5"
"$storq" run "${args[@]}" --service "trace:tr$(printf '\xe9').txt" -o "$lat" > /dev/null 2>&1 ||
  bad "run with a Latin-1 -o and trace path"
for fmt in table csv json; do
  "$storq" info --format $fmt "$lat" > "info.$fmt" 2> err.txt || bad "info $fmt latin-1: $(cat err.txt)"
done
"$python" - "$lat" <<'PY' || bad "the Latin-1 file's strings"
import json, sys
import h5py
d = json.loads(open("info.json", "rb").read().decode("utf-8"))  # strict: valid UTF-8
assert d["points"][0]["params"]["service"] == "trace:tr\\xe9.txt", d["points"][0]["params"]
path = sys.argv[1]
with h5py.File(path, "r") as f:
    assert "lat\\xe9.h5" in f.attrs["command_line"], f.attrs["command_line"]
    assert bytes(f.attrs["command_line_bytes"]).endswith(b"lat\xe9.h5'")
    assert b"trace:tr\xe9.txt" in bytes(f["/run/config"].attrs["config_bytes"])
    assert f["/points/index"][0]["service"] == b"trace:tr\\xe9.txt"
import storq
t = storq.open(path).table()
assert t["service"][0] == "trace:tr\\xe9.txt", t["service"][0]
print("ok: Latin-1 names stored escaped, bytes kept, read back")
PY
"$python" "$here/check_h5_schema.py" "$lat" > /dev/null || bad "check_h5_schema.py refuses $lat"
"$python" -m storq.report "$lat" --html r.html > /dev/null 2> err.txt || bad "report latin-1: $(cat err.txt)"
[[ -s r.html ]] || bad "storq.report wrote no (or an empty) r.html"
rm -f m.h5
"$storq" merge m.h5 "$lat" > /dev/null 2> err.txt || bad "merge latin-1: $(cat err.txt)"
cp "$lat" res.h5.partial
"$storq" run "${args[@]}" --service "trace:tr$(printf '\xe9').txt" -o res.h5 --resume > /dev/null 2> err.txt ||
  bad "resume latin-1: $(cat err.txt)"
exit $fail
