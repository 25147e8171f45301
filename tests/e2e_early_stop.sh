#!/usr/bin/env bash
# Signals from the first moment: USR1, TERM or INT while a huge sweep (400,000 points) is still
# being read and prepared stops storq within a couple of seconds with exit 3 and one message,
# and leaves no file (no OUT.h5, no partial, no lock). `storq merge` stopped by TERM or INT exits
# 3, removes its lock and partial file and leaves its inputs as they were.
set -uo pipefail
storq=$1; python=$2
work=$(mktemp -d); pid=""
trap '[ -n "$pid" ] && kill -9 "$pid" 2>/dev/null; rm -rf "$work"' EXIT
cd "$work"
export OMP_NUM_THREADS=1
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# sweep NPOINTS: a sweep of tiny supermarket points, on stdout
sweep() {
  "$python" -c 'import sys; n = int(sys.argv[1])
print("[run]\nmodel = supermarket\nreplications = 1\n[supermarket]\nn = 10\nL = 2\nwarmup = 10")
print("arrivals = 100\nlambda = " + ", ".join("%.6f" % (0.1 + 0.8 * i / n) for i in range(n)))' "$1"
}
sweep 400000 > big.ini

# stopped SIG DELAY LABEL ARGS...: storq ARGS gets SIG after DELAY s; exit 3 within 2 s. Returns 1
# when the stop was right but slower than 2 s and $last_try is not set: a loaded machine can
# stretch one stop (1.9 s seen beside two busy loops, 0.2 s idle), so the caller measures again;
# a stop slow on every try fails.
stopped() {
  local sig=$1 delay=$2 label=$3; shift 3
  "$storq" "$@" 2>err.txt >/dev/null & pid=$!
  sleep "$delay"
  kill -0 "$pid" 2>/dev/null || fail "$label: ended before the signal"
  local t0 t1 status
  t0=$(date +%s%N); kill -"$sig" "$pid"; wait "$pid"; status=$?; t1=$(date +%s%N); pid=""
  local ms=$(( (t1 - t0) / 1000000 ))
  [ "$status" -eq 3 ] || fail "$label: $sig: exit $status, expected 3 (138, 143, 130: killed by it): $(cat err.txt)"
  [ "$(grep -c . err.txt)" -eq 1 ] && grep -q "stopped by signal" err.txt ||
    fail "$label: $sig: not one message: $(cat err.txt)"
  if [ "$ms" -gt 2000 ]; then
    [ -n "$last_try" ] && { fail "$label: $sig: stopped after $ms ms (slow on every try)"; return 0; }
    echo "slow: $label: $sig -> $status after $ms ms; measured again"; return 1
  fi
  echo "ok: $label: $sig -> $status after $ms ms: $(cat err.txt)"
}
for sig in USR1 TERM INT; do
  for try in 1 2 3; do
    last_try=; [ "$try" -eq 3 ] && last_try=1
    stopped "$sig" 1 "a 400,000-point sweep being read" run big.ini -o big.h5 --quiet; slow=$?
    left=$(ls big.h5* 2>/dev/null); [ -z "$left" ] || { fail "$sig: left $left"; rm -f big.h5*; }
    [ "$slow" -eq 0 ] && break
  done
done

# merge: two task files of 200 points (a merge of them takes seconds), stopped once it holds
# its lock
sweep 200 > m.ini
"$storq" run m.ini --task 0/2 --quiet && "$storq" run m.ini --task 1/2 --quiet ||
  { fail "the task runs"; exit 1; }
sums=$(md5sum m.task-*.h5)
for sig in TERM INT; do
  "$storq" merge out.h5 m.task-0-of-2.h5 m.task-1-of-2.h5 >/dev/null 2>err.txt & pid=$!
  # the lock, while the merge lives, up to a minute (a loaded machine starts storq slowly)
  deadline=$((SECONDS + 60))
  while [ $SECONDS -lt $deadline ] && kill -0 "$pid" 2>/dev/null; do
    [ -e out.h5.lock ] && break; sleep 0.01
  done
  [ -e out.h5.lock ] || fail "merge: no lock while it runs"
  sleep 0.5
  t0=$(date +%s%N); kill -"$sig" "$pid"; wait "$pid"; status=$?; t1=$(date +%s%N); pid=""
  ms=$(( (t1 - t0) / 1000000 ))
  [ "$status" -eq 3 ] || fail "merge: $sig: exit $status, expected 3: $(cat err.txt)"
  grep -q "merge: stopped by signal" err.txt && [ "$(grep -c . err.txt)" -eq 1 ] ||
    fail "merge: $sig: not one message: $(cat err.txt)"
  left=$(ls out.h5* 2>/dev/null); [ -z "$left" ] || { fail "merge: $sig: left $left"; rm -f out.h5*; }
  [ "$(md5sum m.task-*.h5)" = "$sums" ] || fail "merge: $sig: an input changed"
  echo "ok: merge: $sig -> $status after $ms ms: $(cat err.txt)"
done
[ "$failures" -eq 0 ] && echo "signals stop a sweep's setup and a merge at once, leaving no file"
exit $((failures > 0))
