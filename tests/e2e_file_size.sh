#!/usr/bin/env bash
# Result files a cluster's quota survives (docs/hdf5-schema.md, "Storage"): a coupled BR,BS,WF
# cluster point at m = 20 takes at most 300 KB (1.16 MB in the layout before 1.3); a trivial
# supermarket sweep at most 43 KB a point (216 KB before 1.3, 47 KB while most object headers
# chained continuation blocks, before a point was written bottom up; the refined mean field's
# arrays take about 8 KB of it), and few of its objects' headers have a continuation block (all
# of them did). Readers take both layouts: a file
# rewritten into the layout before 1.3 (tests/h5_old_layout.py) is read by storq info, merge and
# the Python package as the same results, and merges with a 1.3 task's file.
set -uo pipefail
storq=$1; python=$2; here=$(cd "$(dirname "$0")" && pwd); work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
cd "$work"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
size() { stat -c %s "$1"; }
export OMP_NUM_THREADS=1

# ---- sizes ----
"$storq" run cluster --m 20 --lambda 14 --warmup 1000 --arrivals 20000 -r 4 --seed 1 -o cl.h5 \
  --quiet || fail "cluster run exited $?"
echo "cluster point at m = 20, BR+BS+WF: $(size cl.h5) bytes"
[ "$(size cl.h5)" -le 300000 ] || fail "cluster point takes $(size cl.h5) bytes, more than 300 KB"
lambdas=$("$python" -c "print(','.join('%.3f' % (0.02 * (i + 1)) for i in range(40)))")
"$storq" run supermarket --n 10 --lambda "$lambdas" --warmup 1000 --arrivals 1000 --seed 1 \
  -o sweep.h5 --quiet || fail "sweep exited $?"
echo "40-point supermarket sweep: $(size sweep.h5) bytes, $(( $(size sweep.h5) / 40 )) a point"
[ "$(size sweep.h5)" -le $((40 * 43000)) ] || fail "sweep takes $(size sweep.h5) bytes, over 43 KB a point"
"$python" - <<'PY' || fail "storage of sweep.h5"
import h5py
with h5py.File("sweep.h5", "r") as f:
    assert tuple(f.attrs["format_version"]) == (1, 3), f.attrs["format_version"]
    assert list(f["layouts"]) == ["log-linear_emin-20_emax20_sub7"] or len(f["layouts"]) >= 1
    for p in ("000000", "000039"):
        h = f[f"points/{p}/observables/job_delay"]
        link = h.get("bin_edges", getlink=True)
        assert isinstance(link, h5py.SoftLink) and link.path.startswith("/layouts/"), link
        c = h["counts"]
        assert c.compression == "gzip" and c.shuffle and c.chunks == c.shape, (c.compression, c.chunks)
        assert c.id.get_storage_size() < c.nbytes / 10, c.id.get_storage_size()
    # Each object header in one block: a continuation message (type 0x10) only where HDF5's
    # metadata block ran out as it grew (about 1 in 20).
    objects = chained = 0
    def count(name, obj):
        global objects, chained
        objects += 1
        chained += bool(h5py.h5o.get_info(obj.id).hdr.mesg.present & (1 << 0x10))
    f["points"].visititems(count)
    assert objects > 4000 and chained < objects / 10, (objects, chained)
print("edges stored once per layout, counts shuffled and deflated, %d of %d object headers "
      "chained" % (chained, objects))
PY
"$python" "$here/check_h5_schema.py" sweep.h5 || fail "schema of sweep.h5"

# ---- the layout before 1.3 ----
cp sweep.h5 old.h5
"$python" "$here/h5_old_layout.py" old.h5 || fail "rewrite into the old layout"
out=$("$python" "$here/check_h5_schema.py" old.h5 2>&1) || fail "schema of old.h5: $out"
grep -qF "schema 1.0 OK (40/40 points complete)" <<<"$out" || fail "old.h5: $out"
out=$("$python" "$here/compare_h5.py" sweep.h5 old.h5)
[ "$(head -1 <<<"$out")" = "/@format_version: attribute differs" ] && grep -q "differ in 1 place" <<<"$out" ||
  fail "old.h5 differs from sweep.h5 beyond format_version: $out"
info_body() { "$storq" info "$1" | sed -n '/^points:/,$p'; }
[ -n "$(info_body old.h5)" ] && [ "$(info_body old.h5)" = "$(info_body sweep.h5)" ] ||
  fail "storq info reads old.h5 otherwise"
PYTHONPATH="$here/../io/python" "$python" - <<'PY' || fail "the Python package reads both layouts otherwise"
import numpy as np
import storq
with storq.open("sweep.h5") as new, storq.open("old.h5") as old:
    for pid in (0, 17, 39):
        a, b = new.observable(pid, "job_delay"), old.observable(pid, "job_delay")
        assert np.array_equal(a["bin_edges"], b["bin_edges"]) and np.array_equal(a["counts"], b["counts"])
        assert np.array_equal(new.quantile(pid, "job_delay", [0.5, 0.99]),
                              old.quantile(pid, "job_delay", [0.5, 0.99]))
    assert new.table().equals(old.table())
print("the Python package reads both layouts alike")
PY
# A task's file in each layout merge into one file, equal to the whole run's.
"$storq" run supermarket --n 10 --lambda 0.2,0.4,0.6 --warmup 1000 --arrivals 1000 --seed 2 \
  -o whole.h5 --quiet || fail "whole run"
for i in 0 1; do
  "$storq" run supermarket --n 10 --lambda 0.2,0.4,0.6 --warmup 1000 --arrivals 1000 --seed 2 \
    --task $i/2 -o t$i.h5 --quiet || fail "task $i"
done
"$python" "$here/h5_old_layout.py" t0.h5 || fail "rewrite of t0.h5 to the old layout"
"$storq" merge merged.h5 t0.h5 t1.h5 >/dev/null || fail "merge of an old and a new layout exited $?"
out=$("$python" "$here/check_h5_schema.py" merged.h5 2>&1) || fail "schema of merged.h5: $out"
"$python" "$here/compare_h5.py" whole.h5 merged.h5 >/dev/null ||
  fail "merged.h5 differs: $("$python" "$here/compare_h5.py" whole.h5 merged.h5)"
# A soft link anywhere else, or to a missing layout, is refused by the readers' checks.
cp sweep.h5 bad.h5
"$python" -c "
import h5py
f = h5py.File('bad.h5', 'r+'); del f['layouts/' + list(f['layouts'])[0]]"
msg=$("$storq" info bad.h5 2>&1 >/dev/null); status=$?
[ $status -eq 2 ] && grep -q "is a soft link to '/layouts/.*which is not a dataset of the file" <<<"$msg" ||
  fail "a dangling bin_edges link: exit $status, $msg"

[ $failures -eq 0 ] && echo "e2e_file_size: all passed"
exit $((failures > 0))
