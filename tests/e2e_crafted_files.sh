#!/usr/bin/env bash
# Files from elsewhere are distrusted (issue 10, item 5): storq info, storq merge and
# storq run --resume refuse every damaged or crafted copy of a real results file (tests/craft_h5.py)
# (--resume salvages a copy whose only damage is in /run's records: its verified points are kept)
# with one message naming the object, exit status 2, no crash, no output file, and within 2 GB of
# address space (a crafted file once made info allocate 24 GB).
set -uo pipefail
storq=$1; python=$2; here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
fail=0
bad() { echo "FAIL: $*"; fail=1; }
run_args=(supermarket --n 20,40 --L 2 --k 1 --lambda 0.7 --warmup 100 --arrivals 2000 -r 3 --seed 3)
"$storq" run "${run_args[@]}" -o real.h5 > /dev/null || { echo "cannot make real.h5"; exit 1; }
"$storq" info real.h5 > /dev/null || bad "info refuses the real file"
"$python" "$here/check_h5_schema.py" real.h5 > /dev/null || bad "check_h5_schema.py refuses real.h5"
mkdir crafted
"$python" "$here/craft_h5.py" real.h5 crafted > cases.txt || { echo "craft_h5.py failed"; exit 1; }

# refused WHAT OBJECT CMD...: exit 2, one "storq: error:" line naming OBJECT, under ulimit -v.
refused() {
  local what=$1 object=$2; shift 2
  ( ulimit -v 2000000; "$@" ) > out.txt 2> err.txt
  local rc=$?
  local n; n=$(grep -c "error:" err.txt)
  if [[ $rc -ne 2 ]]; then bad "$what: exit $rc, expected 2: $(head -c 400 err.txt)"; return; fi
  if [[ $n -ne 1 ]]; then bad "$what: $n error lines: $(head -c 400 err.txt)"; return; fi
  if [[ $object != - ]] && ! grep -qF "object '$object'" err.txt; then
    bad "$what: does not name '$object': $(head -c 400 err.txt)"; return
  fi
  echo "ok: $what: $(head -1 err.txt)"
}

while read -r name object; do
  f=crafted/$name.h5
  refused "info $name" "$object" "$storq" info "$f"
  rm -f merged.h5 merged.h5.partial
  refused "merge $name" "$object" "$storq" merge merged.h5 "$f"
  [[ -e merged.h5 || -e merged.h5.partial ]] && bad "merge $name: left an output file"
  cp "$f" resumed.h5.partial
  if [[ $object =~ ^/run/(units|ranks|sessions)$ ]]; then
    # only /run's records damaged: --resume salvages the points it verified (the same run proved
    # by the root, /run/config and the index), says the record is not carried over, and finishes
    # with the real file's results (docs/guarantees.md)
    "$storq" run "${run_args[@]}" -o resumed.h5 --resume --quiet > out.txt 2> err.txt
    rc=$?
    if [[ $rc -ne 0 ]] || ! grep -q "not carried over" err.txt; then
      bad "resume $name: exit $rc, expected a salvage: $(head -c 400 err.txt)"
    elif ! "$python" "$here/compare_h5.py" real.h5 resumed.h5 > cmp.txt; then
      bad "resume $name: the salvaged run differs from real.h5: $(tail -3 cmp.txt)"
    else
      echo "ok: resume $name: salvaged, same results as real.h5"
    fi
    rm -f resumed.h5 resumed.h5.partial resumed.h5.partial.damaged
    continue
  fi
  refused "resume $name" "$object" "$storq" run "${run_args[@]}" -o resumed.h5 --resume
  [[ -e resumed.h5 ]] && bad "resume $name: wrote resumed.h5"
  rm -f resumed.h5 resumed.h5.partial
done < cases.txt
[[ $(wc -l < cases.txt) -ge 18 ]] || bad "craft_h5.py wrote $(wc -l < cases.txt) cases"

# The Python check recomputes the checksums on its own: it finds the flipped bits too.
for name in flipped_scalar_mean flipped_vector_mean flipped_replications; do
  if "$python" "$here/check_h5_schema.py" "crafted/$name.h5" > py.txt 2>&1 || ! grep -q crc32 py.txt; then
    bad "check_h5_schema.py does not find $name"
  fi
done

# --resume: the file's points must be the run's. Index and point agree with each other (both say
# n = 21 for point 0, and the point's checksum is rewritten to match), but the run being resumed
# has n = 20 there.
cp real.h5 resumed.h5.partial
"$python" - "$here" <<'PY'
import sys
import h5py, numpy as np
sys.path.insert(0, sys.argv[1])
from check_h5_schema import Checker
with h5py.File("resumed.h5.partial", "r+") as f:
    idx = f["/points/index"][()]
    idx["n"][0] = 21
    f["/points/index"][...] = idx
    g = f["/points/000000"]
    g.attrs["n"] = np.int64(21)
    g.attrs["crc32"] = np.uint32(Checker("x").object_crc(g))
PY
refused "resume with other parameters" /points/index \
  "$storq" run "${run_args[@]}" -o resumed.h5 --resume
grep -q "point 0 has n = 21; in the run being resumed it is 20" err.txt || bad "resume: $(cat err.txt)"
rm -f resumed.h5.partial

# merge: two inputs of one run description whose indexes differ.
"$python" - <<'PY'
import h5py, shutil
for name, drop in (("a.h5", "/points/000001"), ("b.h5", "/points/000000")):
    shutil.copy("real.h5", name)
    with h5py.File(name, "r+") as f:
        del f[drop]
with h5py.File("b.h5", "r+") as f:
    idx = f["/points/index"][()]
    idx["n"][0] = 21
    f["/points/index"][...] = idx
PY
rm -f merged.h5 merged.h5.partial
refused "merge of inputs with different indexes" - "$storq" merge merged.h5 a.h5 b.h5
grep -q "b.h5 and a.h5 hold different runs (their /points/index differ" err.txt || bad "merge: $(cat err.txt)"
[[ -e merged.h5 || -e merged.h5.partial ]] && bad "merge of different indexes: left an output"

# Files written before checksums are read unchecked, and merged checksums survive the copy.
"$python" - <<'PY'
import h5py, shutil
shutil.copy("real.h5", "old.h5")
with h5py.File("old.h5", "r+") as f:
    f["/points"].visititems(lambda n, o: o.attrs.__delitem__("crc32") if "crc32" in o.attrs else None)
    if "crc32" in f["/points/000000"].attrs:
        del f["/points/000000"].attrs["crc32"]
    if "crc32" in f["/points/000001"].attrs:
        del f["/points/000001"].attrs["crc32"]
PY
"$storq" info old.h5 > /dev/null || bad "info refuses a file without checksums"
rm -f merged.h5
refused "merge of inputs that both hold point 0" - "$storq" merge merged.h5 a.h5 crafted/../real.h5
grep -q "merge: point 0 is in both a.h5 and crafted/../real.h5" err.txt || bad "merge point 0 twice: $(cat err.txt)"
[[ -e merged.h5 || -e merged.h5.partial ]] && bad "merge of point 0 twice: left an output"
"$python" - <<'PY'
import h5py, shutil
shutil.copy("real.h5", "c.h5")
with h5py.File("c.h5", "r+") as f:
    del f["/points/000000"]
PY
"$storq" merge merged.h5 a.h5 c.h5 > /dev/null || bad "merge of a.h5 and c.h5 failed"
"$storq" info merged.h5 > /dev/null || bad "info refuses the merged file"
"$python" "$here/check_h5_schema.py" merged.h5 > /dev/null || bad "merged file fails the schema check"
exit $fail
