#!/usr/bin/env bash
# `storq run --schema 2` and `storq merge --schema 2` finish into the columnar schema 2.0
# (docs/hdf5-schema-2.md): the file holds what `storq convert` makes of the same run in 1.x;
# nothing is left beside it (no partial, no OUT.finishing, a stale one replaced); a run stopped
# and resumed gives the same file; merge takes 2.0 task files, 1.x ones and both at once, into
# either schema, the same as one job; a bad --schema is refused with exit 2 and no file; the Python
# package and xarray read the run's file.
# Usage: e2e_schema2_run.sh STORQ PYTHON
set -euo pipefail
storq=$1; python=$2; here=$(cd "$(dirname "$0")" && pwd); work=$(mktemp -d)
pid=
trap '[ -z "$pid" ] || kill -9 $pid 2>/dev/null || true; rm -rf "$work"' EXIT
cd "$work"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
same() { "$python" "$here/compare_h5.py" "$1" "$2" >cmp.txt || fail "$1 and $2 differ: $(head -3 cmp.txt)"; }
sweep=(supermarket --n 20,40 --L 2 --lambda 0.5,0.9 --warmup 200 --arrivals 2000 -r 3 --seed 3)
run() { OMP_NUM_THREADS=2 "$storq" run "$@" --quiet; }

# A run in 2.0, and its 1.x twin converted: the same file but for how each was made.
echo stale > r2.h5.finishing
run "${sweep[@]}" -o r2.h5 --schema 2
run "${sweep[@]}" -o r1.h5 --schema 1
"$storq" convert r1.h5 c1.h5 >/dev/null
same r2.h5 c1.h5
"$python" "$here/check_h5_schema.py" r2.h5 >/dev/null || fail "r2.h5 fails the schema checker"
for leftover in r2.h5.partial r2.h5.finishing r2.h5.lock; do
  [ ! -e $leftover ] || fail "$leftover is left beside the finished file"
done
"$python" - <<'PY' || fail "r2.h5's root"
import h5py
f = h5py.File("r2.h5", "r")
assert list(f.attrs["format_version"]) == [2, 0], f.attrs["format_version"]
assert "converted_from" not in f.attrs, "a run's own 2.0 file says it was converted"
print("ok: r2.h5 is schema 2.0, not marked as converted")
PY
"$storq" info r2.h5 >/dev/null || fail "storq info r2.h5 exited $?"

# --schema 1 (the default) still renames the partial: a 1.x file.
"$python" -c "import h5py, sys; sys.exit(int(h5py.File('r1.h5','r').attrs['format_version'][0] != 1))" \
  || fail "--schema 1 did not write 1.x"

# Refused before anything runs: exit 2, the option named, no file.
for bad in 3 columnar ""; do
  status=0; run "${sweep[@]}" -o bad.h5 --schema "$bad" 2>err.txt || status=$?
  [ $status -eq 2 ] && grep -q -- "--schema" err.txt && [ ! -e bad.h5 ] && [ ! -e bad.h5.partial ] \
    || fail "--schema '$bad': exit $status, $(cat err.txt)"
done
status=0; "$storq" merge --schema 7 bad.h5 r1.h5 2>err.txt || status=$?
[ $status -eq 2 ] && grep -q -- "--schema" err.txt && [ ! -e bad.h5 ] \
  || fail "merge --schema 7: exit $status, $(cat err.txt)"

# Stopped after its first point, resumed: the file of a run that was never stopped.
long=(supermarket --n 200 --L 2 --lambda 0.7,0.8,0.9 --warmup 2000 --arrivals 60000 -r 2 --seed 4)
OMP_NUM_THREADS=2 "$storq" run "${long[@]}" -o whole.h5 --schema 2 --quiet
stopped=0
for attempt in 1 2 3; do
  rm -f cut.h5 cut.h5.partial
  OMP_NUM_THREADS=2 "$storq" run "${long[@]}" -o cut.h5 --schema 2 > run.log 2>&1 &
  pid=$!
  deadline=$((SECONDS + 120))
  while [ $SECONDS -lt $deadline ] && kill -0 $pid 2>/dev/null; do
    grep -q "^point 0" run.log && break; sleep 0.05
  done
  if grep -q "^point 2" run.log || ! kill -TERM $pid 2>/dev/null; then
    wait $pid || true; pid=; continue
  fi
  status=0; wait $pid || status=$?; pid=
  [ $status -eq 3 ] && [ -e cut.h5.partial ] && [ ! -e cut.h5 ] && { stopped=1; break; }
done
if [ $stopped = 1 ]; then
  OMP_NUM_THREADS=2 "$storq" run "${long[@]}" -o cut.h5 --schema 2 --resume --quiet \
    || fail "--resume exited $?"
  same cut.h5 whole.h5
  [ ! -e cut.h5.partial ] || fail "the resumed run left its partial"
else
  fail "the run could not be stopped before its end in 3 tries"
fi

# Tasks in both schemas, merged into each: the same as the one job.
for i in 0 1 2; do
  run "${sweep[@]}" --task $i/3 -o t$i.h5 --schema $([ $i = 1 ] && echo 1 || echo 2)
done
"$storq" merge m1.h5 t0.h5 t1.h5 t2.h5 >/dev/null || fail "merge of 2.0 and 1.x tasks exited $?"
same m1.h5 r1.h5
"$storq" merge --schema 2 m2.h5 t0.h5 t1.h5 t2.h5 >/dev/null || fail "merge --schema 2 exited $?"
same m2.h5 r2.h5
[ ! -e m2.h5.partial ] && [ ! -e m2.h5.finishing ] || fail "merge --schema 2 left files behind"
# a task missing: the merge keeps its 1.x partial (what --resume completes), in either schema
status=0; "$storq" merge --schema 2 m3.h5 t0.h5 t2.h5 >/dev/null 2>err.txt || status=$?
[ $status -eq 1 ] && [ -e m3.h5.partial ] && [ ! -e m3.h5 ] \
  || fail "merge without task 1: exit $status, $(cat err.txt)"

# Readers: the package's frame, and xarray through h5netcdf where installed.
PYTHONPATH="$here/../io/python${PYTHONPATH:+:$PYTHONPATH}" "$python" - <<'PY' || fail "Python reading r2.h5"
import storq
a, b = storq.open("r2.h5").frame(), storq.open("r1.h5").frame()
assert a.shape == b.shape and len(a) > 0, (a.shape, b.shape)
assert (a.select_dtypes("number").fillna(-1).values == b.select_dtypes("number").fillna(-1).values).all()
print("ok: frame() of the 2.0 run equals its 1.x twin's,", a.shape)
try:
    import xarray
    import h5netcdf  # noqa: F401
except ImportError:
    print("skip: xarray or h5netcdf not installed")
else:
    ds = xarray.open_dataset("r2.h5", engine="h5netcdf", group="observables/mean_queue_length",
                             phony_dims="access")
    assert "point" in ds.dims, ds.dims
    print("ok: xarray names the point dimension:", dict(ds.sizes))
PY

[ $failures -eq 0 ] || { echo "$failures failure(s)"; exit 1; }
echo "e2e_schema2_run: all checks passed"
