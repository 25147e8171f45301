#!/usr/bin/env bash
# One writer per output (OUT.h5.lock): while a run writes OUT.h5.partial, a second run, --resume,
# --force or merge onto OUT.h5 exits 2 naming the run that writes it (host and pid), never advises
# replacing its file and leaves it alone; the first run then finishes to the same file as a clean
# run. A lock whose holder has ended (kill -9) is taken over by --resume with a message; a lock of
# a live process is honoured even when storq did not write it for this output; one from another
# host is refused with advice; an earlier incarnation of a requeued Slurm job is taken over.
set -uo pipefail
storq=$1; python=$2; here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d); pid=""
cleanup() { [ -n "$pid" ] && { kill -CONT "$pid"; kill -9 "$pid"; } 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
cd "$work"
export OMP_NUM_THREADS=1
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
same() { "$python" "$here/compare_h5.py" "$1" "$2" >/dev/null || fail "$2 differs from $1"; }
host=$(hostname)
args=(supermarket --n 100 --L 2 --lambda 0.9 --warmup 1000 --arrivals 4000000 -r 3 --seed 3 --quiet)
"$storq" run "${args[@]}" -o clean.h5 || fail "the clean run exited $?"

# Start a run and hold it still (SIGSTOP) once its lock and partial file exist and the file's
# header is written (a few KB; killed before that, a partial cannot be resumed). The wait is for
# that condition, up to a minute (a loaded machine starts storq slowly), not a count of polls.
start_held() { # OUT
  "$storq" run "${args[@]}" -o "$1" & pid=$!
  local deadline=$((SECONDS + 60))
  while [ "$SECONDS" -lt "$deadline" ] && kill -0 "$pid" 2>/dev/null; do
    [ -s "$1.lock" ] && [ "$(stat -c %s "$1.partial" 2>/dev/null || echo 0)" -gt 4096 ] && break
    sleep 0.01
  done
  sleep 0.05
  kill -STOP "$pid"
  [ -s "$1.lock" ] && [ -f "$1.partial" ] || fail "no $1.lock and $1.partial while the run writes"
}
busy() { # ARGS...: refused, naming the run that holds out.h5
  local out status
  out=$("$storq" "$@" 2>&1); status=$?
  [ "$status" -eq 2 ] || fail "storq $* exited $status, expected 2: $out"
  grep -qF "is being written by another storq run (pid $pid on host $host" <<<"$out" ||
    fail "storq $*: the message does not name pid $pid on $host: $out"
  ! grep -qiE "force|remove|delete|start over" <<<"$out" || fail "storq $*: advice to replace a file a run holds: $out"
  echo "ok: storq $* -> $status: $(head -n 1 <<<"$out")"
}

# ---- a run writing out.h5: every other writer is refused ----
start_held out.h5
grep -qx "pid=$pid" out.h5.lock && grep -qx "host=$host" out.h5.lock || fail "lock content: $(cat out.h5.lock)"
before=$(md5sum out.h5.partial out.h5.lock)
busy run "${args[@]}" -o out.h5
busy run "${args[@]}" -o out.h5 --resume
busy run "${args[@]}" -o out.h5 --force
busy merge --force out.h5 clean.h5
busy merge other.h5 out.h5.partial
[ "$(md5sum out.h5.partial out.h5.lock)" = "$before" ] || fail "a refused writer changed out.h5.partial or its lock"
[ ! -e other.h5 ] && [ ! -e other.h5.partial ] || fail "a refused merge wrote other.h5"
kill -CONT "$pid"; wait "$pid"; status=$?; pid=""
[ "$status" -eq 0 ] || fail "the first run exited $status after the others were refused"
[ -f out.h5 ] && [ ! -e out.h5.partial ] && [ ! -e out.h5.lock ] || fail "the first run left: $(ls out.h5*)"
same clean.h5 out.h5

# ---- kill -9: the lock stays, --resume takes it over and completes the file ----
start_held killed.h5
dead=$pid
kill -9 "$pid"; wait "$pid" 2>/dev/null; pid=""
[ -s killed.h5.lock ] || fail "kill -9 left no lock"
out=$("$storq" run "${args[@]}" -o killed.h5 --resume 2>&1); status=$?
[ "$status" -eq 0 ] || fail "--resume after kill -9 exited $status: $out"
grep -qF "taking over the lock of a run that ended without releasing it (pid $dead on host $host" <<<"$out" ||
  fail "no message on taking over the stale lock: $out"
[ -f killed.h5 ] && [ ! -e killed.h5.lock ] || fail "resume after kill -9 left: $(ls killed.h5*)"
same clean.h5 killed.h5
echo "ok: a lock left by kill -9 is taken over: $(grep -F 'taking over' <<<"$out")"

# ---- crafted locks: a live process on this host, a reused pid, another host, a requeued job ----
printf 'x' > crafted.h5.partial
lock() { # HOST PID START [JOB RESTART]
  printf 'storq output lock\nhost=%s\npid=%s\nstart=%s\nslurm_job=%s\nslurm_restart=%s\nsince=earlier\n' \
    "$1" "$2" "$3" "${4:-}" "${5:-0}" > crafted.h5.lock
}
sleep 60 & sleeper=$!
start=$(sed 's/.*) //' "/proc/$sleeper/stat" | cut -d' ' -f20)
lock "$host" "$sleeper" "$start"
out=$("$storq" run "${args[@]}" -o crafted.h5 --force 2>&1); status=$?
[ "$status" -eq 2 ] && grep -qF "(pid $sleeper on host $host, since earlier)" <<<"$out" || fail "live holder: $status $out"
lock "$host" "$sleeper" 1 # the pid's process started at another time: the holder has ended
out=$("$storq" run "${args[@]}" -o crafted.h5 --force 2>&1); status=$?
[ "$status" -eq 0 ] && grep -qF "another has its pid now" <<<"$out" || fail "reused pid: $status $out"
same clean.h5 crafted.h5
kill "$sleeper"
printf 'x' > crafted.h5.partial
lock elsewhere.example 4242 99
out=$("$storq" run "${args[@]}" -o crafted.h5 --resume 2>&1); status=$?
[ "$status" -eq 2 ] && grep -qF "a storq run on another host (pid 4242 on host elsewhere.example" <<<"$out" &&
  grep -qF "remove crafted.h5.lock" <<<"$out" || fail "another host's lock: $status $out"
[ "$(cat crafted.h5.partial)" = x ] || fail "a refused run touched crafted.h5.partial"
echo "ok: another host's lock -> $status: $out"
lock elsewhere.example 4242 99 777 0
out=$(SLURM_JOB_ID=777 SLURM_RESTART_COUNT=1 "$storq" run "${args[@]}" -o crafted.h5 --force 2>&1); status=$?
[ "$status" -eq 0 ] && grep -qF "an earlier run of this Slurm job" <<<"$out" || fail "requeued Slurm job: $status $out"
printf 'garbage' > crafted.h5.lock
out=$("$storq" run "${args[@]}" -o crafted.h5 --force 2>&1); status=$?
[ "$status" -eq 2 ] && grep -qF "which does not say by whom" <<<"$out" || fail "unreadable lock: $status $out"

[ "$failures" -eq 0 ] || { echo "$failures failure(s)"; exit 1; }
echo "one writer per output: others are refused naming it, stale locks are taken over"
