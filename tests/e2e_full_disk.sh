#!/usr/bin/env bash
# A full disk: the run ends with exit 1 and one clear message ("No space left on device writing
# OUT.h5.partial ..."), no crash, no lock left; the finished points stay in OUT.h5.partial, which
# --resume completes once there is space, to the same results as an uninterrupted run.
#   e2e_full_disk.sh STORQ PYTHON shim SHIM.so   the disk is "full" at N bytes of OUT.h5.partial
#                                                (tests/full_disk_shim.c, preloaded)
#   e2e_full_disk.sh STORQ PYTHON tmpfs          a real 1.2 MB tmpfs, grown afterwards (needs root
#                                                and permission to mount; exit 77 = skipped)
set -uo pipefail
storq=$1; python=$2; mode=$3; shim=${4:-}; here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d); mnt=""
cleanup() { [ -n "$mnt" ] && umount "$mnt" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
cd "$work"
export OMP_NUM_THREADS=1
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
cat > sweep.ini <<'INI'
[run]
model = supermarket
replications = 20
seed = 3
[supermarket]
n = 20, 40, 60, 80, 100, 120, 140, 160
L = 2
lambda = 0.7
warmup = 100
arrivals = 2000
INI
"$storq" run sweep.ini -o clean.h5 --quiet || fail "the clean run exited $?"

# full OUT [ENV...]: a run that finds the disk full: exit 1, the message, no crash, no lock.
full() {
  local out=$1 msg status
  shift
  msg=$(env "$@" "$storq" run sweep.ini -o "$out" --quiet 2>&1); status=$?
  [ "$status" -eq 1 ] || fail "disk full ($*): exit $status, expected 1: $msg"
  grep -qF "No space left on device writing $out.partial" <<<"$msg" || fail "disk full ($*): message: $msg"
  ! grep -qiE "segmentation|signal|backtrace" <<<"$msg" || fail "disk full ($*): a crash: $msg"
  [ ! -e "$out" ] && [ ! -e "$out.lock" ] || fail "disk full ($*): left $(ls "$out"*)"
  echo "ok: disk full ($*) -> $status: $(grep error <<<"$msg")"
}
# resume OUT: completes the file to the clean run's results
resume() {
  local msg
  msg=$("$storq" run sweep.ini -o "$1" --resume --quiet 2>&1) || fail "--resume of $1 exited $?: $msg"
  "$python" "$here/compare_h5.py" clean.h5 "$1" >/dev/null || fail "$1 resumed differs from the clean run"
  [ ! -e "$1.partial" ] && [ ! -e "$1.lock" ] || fail "--resume left $(ls "$1"*)"
}

if [ "$mode" = shim ]; then
  # Too full for the file's header: nothing is left behind at all.
  full tiny.h5 LD_PRELOAD="$shim" STORQ_TEST_DISK_BYTES=100000
  [ ! -e tiny.h5.partial ] || fail "a run that could not write its header left tiny.h5.partial"
  # Full after 0, some and most of the 8 points (each about 0.2 MB): --resume completes each file.
  for bytes in 500000 900000 1400000; do
    full "out$bytes.h5" LD_PRELOAD="$shim" STORQ_TEST_DISK_BYTES=$bytes
    [ -f "out$bytes.h5.partial" ] || fail "no out$bytes.h5.partial to resume"
    resume "out$bytes.h5"
  done
  # Two ranks: rank 0 writes and fails; what the other rank still sends is taken in (not written),
  # so it can finish sending and every rank ends (they used to wait for each other for ever).
  msg=$(timeout 60 mpirun -np 2 -x LD_PRELOAD="$shim" -x STORQ_TEST_DISK_BYTES=700000 \
        "$storq" run sweep.ini -o mpi.h5 --quiet 2>&1); status=$?
  [ "$status" -eq 1 ] && grep -qF "No space left on device writing mpi.h5.partial" <<<"$msg" ||
    fail "2 ranks, disk full: exit $status (124: hung): $msg"
  [ -f mpi.h5.partial ] && [ ! -e mpi.h5.lock ] || fail "2 ranks, disk full: left $(ls mpi.h5*)"
  resume mpi.h5
  echo "ok: 2 ranks, disk full -> $status"
  # Where space cannot be reserved ahead (no fallocate: NFS, say) the write fails inside HDF5:
  # still exit 1 with the system's message, no crash at exit (HDF5 1.10 crashed in MPI_Finalize),
  # the lock released; HDF5 cannot delete the point group the write left, so --resume copies the
  # complete points into a new partial file and completes that.
  # (The file is about 370 KB: full after 2 to 7 points and during the last point's flush. A cut
  # during the flush of a point used to leave /points' header pointing to a block never written,
  # so the complete points could not be read: see storq_h5u_create_sized_group.)
  for bytes in 120000 150000 200000 250000 300000 316000 340000; do
    msg=$(LD_PRELOAD="$shim" STORQ_TEST_DISK_BYTES=$bytes STORQ_TEST_DISK_NO_FALLOCATE=1 \
          "$storq" run sweep.ini -o nofalloc$bytes.h5 --quiet 2>&1); status=$?
    [ "$status" -eq 1 ] && grep -qF "No space left on device" <<<"$msg" || fail "no fallocate: exit $status: $msg"
    ! grep -qiE "segmentation|signal|backtrace" <<<"$msg" || fail "no fallocate: a crash: $msg"
    [ ! -e nofalloc$bytes.h5.lock ] || fail "no fallocate: the lock stayed"
    echo "ok: a write failing inside HDF5 -> $status: $(grep error <<<"$msg")"
    resume nofalloc$bytes.h5
    [ ! -e nofalloc$bytes.h5.partial.damaged ] || fail "the damaged copy stayed"
  done
  # A cut while /run's records are flushed at the run's end leaves /run's header unreadable, its
  # config and the index readable: --resume proves the run the same by the root, /run/config and
  # the index, copies the complete points into a new partial (/run/config only: the earlier
  # session's records are lost, and a warning says so) and completes it. (Offsets found by
  # scanning cuts from 300000 to 380000 in steps of 2000 and from 346000 to 374000 in steps of
  # 250, 2026-12-07, with /run/units written block by block as the units run, each table on disk
  # before /run links it: 372500-373750 leave /run's records unreadable, each a salvage with that
  # warning (the two tried are inside that window, away from its ends: the paths in the file's
  # attributes differ between clones); 346000-348250 leave a point group unfinished, a salvage that keeps the record; every
  # cut of the scan resumed to the clean run's results; 374000 and up is no cut at all. Before,
  # 322000-324000, 342000-344000 and 350000-372000 lost the record.) A different run's such
  # partial is still refused, byte for byte untouched.
  sed 's/^seed = 3$/seed = 4/' sweep.ini > other.ini
  for bytes in 372875 373375; do
    msg=$(LD_PRELOAD="$shim" STORQ_TEST_DISK_BYTES=$bytes STORQ_TEST_DISK_NO_FALLOCATE=1 \
          "$storq" run sweep.ini -o records$bytes.h5 --quiet 2>&1); status=$?
    [ "$status" -eq 1 ] && grep -qF "No space left on device" <<<"$msg" || fail "records cut: exit $status: $msg"
    before=$(md5sum < records$bytes.h5.partial)
    msg=$("$storq" run other.ini -o records$bytes.h5 --resume --quiet 2>&1); status=$?
    [ "$status" -eq 2 ] && grep -qF "was written by a different run (seed 3 there, 4 here)" <<<"$msg" ||
      fail "records cut $bytes, another run's --resume: exit $status: $msg"
    [ ! -e records$bytes.h5.lock ] && [ "$(md5sum < records$bytes.h5.partial)" = "$before" ] ||
      fail "records cut $bytes: the refused --resume changed the partial or kept its lock"
    msg=$("$storq" run sweep.ini -o records$bytes.h5 --resume --quiet 2>&1) ||
      fail "records cut $bytes: --resume exited $?: $msg"
    ! grep -qiE "segmentation|signal|backtrace" <<<"$msg" || fail "records cut $bytes: a crash: $msg"
    grep -qF "record of the earlier sessions of records$bytes.h5.partial" <<<"$msg" &&
      grep -qF "is not carried over" <<<"$msg" || fail "records cut $bytes: no warning of the lost records: $msg"
    "$python" "$here/compare_h5.py" clean.h5 records$bytes.h5 >/dev/null ||
      fail "records$bytes.h5 resumed differs from the clean run"
    # the record starts again: one session, numbered 0 (docs/hdf5-schema.md)
    "$python" -c 'import h5py, sys; s = h5py.File(sys.argv[1], "r")["run/sessions"]["session"]
sys.exit(list(s) != [0])' records$bytes.h5 || fail "records cut $bytes: /run/sessions is not one session 0"
    # and the file says so: /run's mark, storq info's line, the Python package's flag; a run
    # that lost nothing has none of them
    PYTHONPATH="$here/../io/python" "$python" -c 'import h5py, sys, storq
for path, lost in ((sys.argv[1], True), (sys.argv[2], False)):
    marked = "earlier_record_lost" in h5py.File(path, "r")["run"].attrs
    flag = storq.open(path).sessions().attrs["earlier_record_lost"]
    if (marked, flag) != (lost, lost):
        sys.exit(f"{path}: mark {marked}, flag {flag}")
' records$bytes.h5 clean.h5 || fail "records cut $bytes: the lost record is not marked as said"
    "$storq" info records$bytes.h5 > info.txt && grep -qF "record of the sessions before these was lost" info.txt ||
      fail "records cut $bytes: storq info does not say the record was lost"
    "$storq" info clean.h5 > info.txt && ! grep -qF "was lost" info.txt || fail "storq info says a whole record was lost"
    [ ! -e records$bytes.h5.partial ] && [ ! -e records$bytes.h5.lock ] &&
      [ ! -e records$bytes.h5.partial.damaged ] || fail "records cut $bytes: --resume left $(ls records$bytes.h5*)"
    echo "ok: a cut at $bytes (/run's records) -> another run's --resume refused, this run's completed"
  done
elif [ "$mode" = tmpfs ]; then
  [ "$(id -u)" -eq 0 ] || { echo "not root: skipped"; exit 77; }
  mkdir disk
  mount -t tmpfs -o size=1200k storq-test disk 2>/dev/null || { echo "cannot mount a tmpfs: skipped"; exit 77; }
  mnt=$work/disk
  full disk/out.h5
  [ -f disk/out.h5.partial ] || fail "no disk/out.h5.partial to resume"
  mount -o remount,size=16m disk || fail "cannot grow the tmpfs"
  resume disk/out.h5
else
  echo "unknown mode $mode"; exit 2
fi
[ "$failures" -eq 0 ] || { echo "$failures failure(s)"; exit 1; }
echo "a full disk ends cleanly with exit 1, and --resume completes the file once there is space"
