#!/usr/bin/env bash
# Two runs started at once on the same -o, many rounds: exactly one writes OUT.h5, the other is
# refused (exit 2, one message: a run writes it, or it exists now) and the file is the winner's
# (its seed). Neither --force nor a lock taken over: the existence check and the lock are one step
# (the output is looked at again under the lock, and the rename never replaces a file).
set -uo pipefail
storq=$1; python=$2
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
cd "$work"
export OMP_NUM_THREADS=1
rounds=${STORQ_RACE_ROUNDS:-20}
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
args=(supermarket --n 10 --L 2 --lambda 0.5 --warmup 100 --arrivals 2000 -r 2 --quiet)
seed_of() { "$python" -c 'import h5py,sys; print(int(h5py.File(sys.argv[1],"r").attrs["seed"]))' "$1"; }
for round in $(seq 1 "$rounds"); do
  rm -f out.h5 out.h5.* a.err b.err
  "$storq" run "${args[@]}" --seed 1 -o out.h5 2>a.err & a=$!
  "$storq" run "${args[@]}" --seed 2 -o out.h5 2>b.err & b=$!
  wait "$a"; sa=$?; wait "$b"; sb=$?
  case "$sa$sb" in
    02) winner=1; loser=b.err ;;
    20) winner=2; loser=a.err ;;
    *) fail "round $round: exit statuses $sa and $sb, expected one 0 and one 2: $(cat a.err b.err)"
       continue ;;
  esac
  [ "$(grep -c . "$loser")" -le 2 ] && grep -qE "is being written by another storq run|exists \(a finished result" "$loser" ||
    fail "round $round: the refused run's message: $(cat "$loser")"
  grep -q "taking over" a.err b.err && fail "round $round: a lock was taken over: $(cat a.err b.err)"
  [ "$(seed_of out.h5)" = "$winner" ] || fail "round $round: out.h5 holds seed $(seed_of out.h5), the winner had $winner"
  leftover=$(ls out.h5.* 2>/dev/null)
  [ -z "$leftover" ] || fail "round $round: left behind: $leftover"
done
# A lock left by a run that finished its file and died before removing the lock: nothing to
# resume, so it is taken over without a "taking over" warning; without --force the file stays.
rm -f out.h5 out.h5.*
"$storq" run "${args[@]}" --seed 1 -o out.h5 || fail "the run before the stale lock"
sh -c 'exit 0' & dead=$!; wait "$dead"
printf 'storq output lock\nhost=%s\npid=%s\nstart=1\nslurm_job=\nslurm_restart=0\nsince=then\n' \
  "$(hostname)" "$dead" > out.h5.lock
out=$("$storq" run "${args[@]}" --seed 2 -o out.h5 2>&1); status=$?
[ "$status" -eq 2 ] && grep -q "exists (a finished result" <<<"$out" ||
  fail "no --force over a finished file with a stale lock: exit $status: $out"
[ "$(seed_of out.h5)" = 1 ] || fail "the finished file was replaced"
out=$("$storq" run "${args[@]}" --seed 2 -o out.h5 --force 2>&1) || fail "--force: exit $?: $out"
grep -q "taking over" <<<"$out" && fail "a finished run's lock taken over with a warning: $out"
[ ! -e out.h5.lock ] && [ "$(seed_of out.h5)" = 2 ] || fail "--force did not replace the file cleanly"
[ "$failures" -eq 0 ] && echo "$rounds rounds of two runs at once on one output: one wrote, the other was refused"
exit $((failures > 0))
