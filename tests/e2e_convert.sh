#!/usr/bin/env bash
# `storq convert IN.h5 OUT.h5`: small runs of every model converted to schema 2.0
# (docs/hdf5-schema-2.md) hold every 1.x value in their rows, with row and object checksums that
# Python recomputes (tests/convert_check.py); two conversions are the same bytes; inputs that
# are unfinished, already 2.0, damaged or not storq files, and outputs that exist, are refused
# with exit 2 and one message, leaving neither OUT nor OUT.partial; xarray (h5netcdf) opens the
# groups with named dimensions when it is installed.
# Usage: e2e_convert.sh STORQ PYTHON
set -euo pipefail
storq=$1; python=$2; here=$(cd "$(dirname "$0")" && pwd); work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
run() { local name=$1; shift; OMP_NUM_THREADS=1 "$storq" run "$@" --seed 5 --quiet -o "$name.h5" >/dev/null; }

# Small runs covering every model and the shapes that vary between points: ragged levels and
# histogram layouts (sm_steady), a matrix (sm_transient), quantities at some points only
# (cl_single, th_bounds), ragged groups and histograms (fj_mix), precision targets (replications
# that differ between points: mmc_prec).
run sm_steady supermarket --n 20 --L 2,3 --k 1 --lambda 0.85 --sampling with,without \
  --warmup 200 --arrivals 1000 -r 2
run sm_transient supermarket --n 20 --L 2 --k 1 --lambda 0.9 --mode transient --horizon 2 --grid 4 \
  --start "empty fill:1" -r 2
run cl_single cluster --m 8 --lambda 2 --size pmf:1=0.5,4=0.5 --policy "BR WF" --warmup 100 --arrivals 1000 -r 2
run fj_mix forkjoin --n 5 --k 3 --mu 1 --zip groups,assign,load,correlation,service,lambda \
  --groups 1,3 --assign "uniform lwl" --load work,jobs --correlation 0,0.5 --service "exp exp" \
  --lambda 3,8 --warmup 100 --arrivals 1000 -r 2
run px_coupled proxy --L 8 --k 3 --nmax 6 --lambda 1.5 --code fixed:3+greedy --warmup 100 --arrivals 500 -r 2
run th_bounds threads --L 3 --rho 0.5 --policy serpt-r:on+sedpt-wcr:on+bound --mode finite,steady \
  --requests 100 --warmup 50 --arrivals 300 -r 2
run mmc_prec mmc --c 2 --lambda 0.5,1.5 --mu 1 --warmup 100 --arrivals 1000 -r 2 \
  --precision 0.02 --max-replications 6
models=(sm_steady sm_transient cl_single fj_mix px_coupled th_bounds mmc_prec)

for m in "${models[@]}"; do
  if out=$("$storq" convert "$m.h5" "$m.2.h5" 2>&1); then
    echo "ok: $out"
  else
    fail "storq convert $m.h5 exited $?: $out"; continue
  fi
  if check=$("$python" "$here/convert_check.py" "$m.h5" "$m.2.h5" 2>&1); then
    echo "ok: ${check##*$'\n'}"
  else
    fail "convert_check $m: $check"
  fi
done

# The same bytes every time (no times, no addresses that depend on the moment).
"$storq" convert sm_steady.h5 again.h5 >/dev/null
cmp sm_steady.2.h5 again.h5 && echo "ok: two conversions are the same bytes" ||
  fail "two conversions of sm_steady.h5 differ"
# --force replaces an existing output (with the same bytes)
"$storq" convert --force sm_steady.h5 again.h5 >/dev/null && cmp sm_steady.2.h5 again.h5 &&
  echo "ok: --force replaces OUT" || fail "convert --force"

# refused STATUS-PATTERN IN OUT [--force]: exit 2, the message, and neither OUT (when it did not
# exist before) nor OUT.partial left behind
refused() {
  local pattern=$1 in=$2 outf=$3; shift 3
  local existed=0 out status=0
  [ -e "$outf" ] && existed=1
  out=$("$storq" convert "$@" "$in" "$outf" 2>&1) || status=$?
  if [ "$status" -ne 2 ]; then fail "convert $in $outf exited $status, expected 2: $out"; return; fi
  grep -qF -- "$pattern" <<<"$out" || { fail "convert $in: '$pattern' not in: $out"; return; }
  [ "$(grep -c . <<<"$out")" -le 2 ] || fail "convert $in: more than one message: $out"
  if [ "$existed" -eq 0 ] && [ -e "$outf" ]; then fail "convert $in left $outf"; return; fi
  if [ -e "$outf.partial" ]; then fail "convert $in left $outf.partial"; return; fi
  echo "ok: convert $in -> 2: $(head -1 <<<"$out")"
}
cp sm_steady.2.h5 keep.h5
refused "exists; pass --force" sm_steady.h5 keep.h5
cmp sm_steady.2.h5 keep.h5 || fail "a refused convert changed the existing OUT"
refused "is the input" sm_steady.h5 sm_steady.h5 --force
refused "already a schema 2.0 file" sm_steady.2.h5 x.h5
cp mmc_prec.h5 unfinished.h5.partial
refused "is a partial file" unfinished.h5.partial x.h5
cp mmc_prec.h5 ckpt.h5
"$python" -c "import h5py, sys; h5py.File(sys.argv[1], 'a').create_group('checkpoints')" ckpt.h5
refused "holds checkpoints" ckpt.h5 x.h5
"$python" - sm_steady.h5 missing.h5 <<'PY'
import shutil, sys, h5py
shutil.copy(sys.argv[1], sys.argv[2])
with h5py.File(sys.argv[2], "a") as f:
    del f["points/000003"]
PY
refused "holds 3 of the 4 points it should" missing.h5 x.h5
# a value flipped, its old checksum kept: the damage is found and named
"$python" - mmc_prec.h5 damaged.h5 <<'PY'
import shutil, sys, h5py
shutil.copy(sys.argv[1], sys.argv[2])
with h5py.File(sys.argv[2], "a") as f:
    d = f["points/000001/observables"]
    name = next(iter(d))
    ds = d[name]["mean"]
    ds[()] = ds[()] * 1.5 + 1
PY
refused "do not match the checksum" damaged.h5 x.h5
"$python" -c "import h5py, sys; h5py.File(sys.argv[1], 'w').create_dataset('x', data=[1, 2])" plain.h5
refused "not a storq results file" plain.h5 x.h5
echo "not hdf5" > text.h5
refused "not a storq results file" text.h5 x.h5


# xarray through h5netcdf, when installed: the groups open with named dimensions.
if "$python" -c "import h5netcdf, xarray" 2>/dev/null; then
  if out=$("$python" - sm_steady.2.h5 fj_mix.2.h5 <<'PY' 2>&1
import sys, warnings
import xarray as xr
warnings.simplefilter("ignore")
a, b = sys.argv[1], sys.argv[2]
for path, group, want in ((a, "observables/u", {"point", "level"}),
                          (a, "observables/job_delay", {"point", "job_delay_bin"}),
                          (a, "points", {"point", "run_point"}),
                          (a, "replications", {"point", "replication", "level"}),
                          (b, "observables/group_share", {"point", "group"}),
                          (b, "points", {"point", "run_point"})):
    with xr.open_dataset(path, engine="h5netcdf", group=group) as ds:
        ds.load()
        if set(ds.sizes) != want:
            sys.exit("%s %s: dimensions %s, expected %s" % (path, group, dict(ds.sizes), want))
        print("xarray %s %s: %s" % (path, group, dict(ds.sizes)))
PY
  ); then
    echo "ok: $out"
  else
    fail "xarray: $out"
  fi
else
  echo "skip: xarray and h5netcdf are not installed (python3-xarray, python3-h5netcdf): the xarray checks did not run"
fi

if [ "$failures" -ne 0 ]; then echo "$failures failure(s)"; exit 1; fi
echo "all convert checks passed"
