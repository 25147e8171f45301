#!/usr/bin/env bash
# Job arrays: a sweep run as tasks (--task I/N, each on its own number of ranks and threads) and
# put together by `storq merge` gives the single-job file; task and merged files follow the
# schema; bad --task values and bad merges exit 2 with one message and leave no file; a merge
# that lacks points keeps OUT.partial, which --resume completes; --resume keeps to its task.
set -uo pipefail
storq=$1; python=$2; here=$(cd "$(dirname "$0")" && pwd); work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
cd "$work"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
run() { "$storq" run "$@" --quiet || fail "storq run $* exited $?"; }
same() { "$python" "$here/compare_h5.py" "$1" "$2" >/dev/null || fail "$2 differs from $1: $("$python" "$here/compare_h5.py" "$1" "$2")"; }
schema() { # FILE EXPECTED-SUMMARY-PART
  local out
  out=$("$python" "$here/check_h5_schema.py" "$1" 2>&1) || { fail "schema: $out"; return; }
  grep -qF -- "$2" <<<"$out" || fail "schema of $1: expected '$2' in: $out"
  echo "ok: $out"
}

cat > sm.ini <<'INI'
[run]
model = supermarket
replications = 3
seed = 4

[supermarket]
n = 20, 40, 80, 30, 50
L = 2
k = 1
lambda = 0.7
warmup = 1000
arrivals = 10000
INI
cat > fj.ini <<'INI'
[run]
model = forkjoin
replications = 3
seed = 9

[forkjoin]
n = 4
k = 1, 2, 4
groups = 2
assign = lwl
lambda = 2
mu = 3
warmup = 500
arrivals = 5000
INI

# ---- the same results, whole or as tasks ----
OMP_NUM_THREADS=2 run sm.ini -o sm_whole.h5
OMP_NUM_THREADS=1 mpirun -np 1 "$storq" run sm.ini --task 0/3 --quiet || fail "task 0/3"
OMP_NUM_THREADS=1 mpirun -np 2 "$storq" run sm.ini --task 1/3 --quiet || fail "task 1/3"
OMP_NUM_THREADS=2 run sm.ini --task 2/3 -o sm_t2.h5
# Without -o a task's file is named after it, so tasks sharing a directory never collide.
for f in sm.task-0-of-3.h5 sm.task-1-of-3.h5 sm_t2.h5; do [ -f "$f" ] || fail "no $f"; done
[ ! -e sm.h5 ] || fail "a task wrote the whole run's name sm.h5"
schema sm.task-0-of-3.h5 "schema 1.3 OK (2/5 points complete, task 0/3)"
schema sm.task-1-of-3.h5 "schema 1.3 OK (2/5 points complete, task 1/3)"
schema sm_t2.h5 "schema 1.3 OK (1/5 points complete, task 2/3)"
"$storq" merge sm_merged.h5 sm_t2.h5 sm.task-0-of-3.h5 sm.task-1-of-3.h5 > merge.log 2>&1 ||
  fail "merge exited $?: $(cat merge.log)"
grep -q "sm_merged.h5: all 5 points of the run" merge.log || fail "merge report: $(cat merge.log)"
[ ! -e sm_merged.h5.partial ] || fail "merge left sm_merged.h5.partial"
schema sm_merged.h5 "schema 1.3 OK (5/5 points complete)"
same sm_whole.h5 sm_merged.h5
# storq info lists the points and their observables in the same order (creation order survives).
info_body() { "$storq" info "$1" | sed -n '/^points:/,$p' | sed 's/events, .* s wall/events/'; }
[ "$(info_body sm_whole.h5)" = "$(info_body sm_merged.h5)" ] || fail "storq info of the merged file differs"

# forkjoin as 4 tasks: the last has no point (3 points), warns, and still writes its file.
OMP_NUM_THREADS=2 run fj.ini -o fj_whole.h5
OMP_NUM_THREADS=1 mpirun -np 2 "$storq" run fj.ini --task 0/4 --quiet || fail "fj task 0/4"
for i in 1 2 3; do OMP_NUM_THREADS=1 run fj.ini --task $i/4 2> "fj$i.err"; done
grep -q "this task has none" fj3.err || fail "no warning for an empty task: $(cat fj3.err)"
schema fj.task-3-of-4.h5 "schema 1.1 OK (0/3 points complete, task 3/4)"
"$storq" merge fj_merged.h5 fj.task-{0,1,2,3}-of-4.h5 >/dev/null || fail "fj merge exited $?"
schema fj_merged.h5 "schema 1.3 OK (3/3 points complete)"
same fj_whole.h5 fj_merged.h5

# ---- bad --task values: exit 2, one message naming --task, no file at all ----
before=$(ls)
for t in 3/3 -1/2 1/0 abc 1/ 2/1x; do
  out=$("$storq" run sm.ini --task "$t" -o bad.h5 --quiet 2>&1); status=$?
  [ "$status" -eq 2 ] || fail "--task $t exited $status, expected 2"
  grep -qF -- "--task: '$t' is not accepted; expected I/N" <<<"$out" || fail "--task $t: message: $out"
  [ "$(ls)" = "$before" ] || { fail "--task $t left a file"; rm -f bad.h5*; }
  echo "ok: --task $t -> $status: $(head -n 1 <<<"$out")"
done

# ---- bad merges: exit 2, a message naming the cause, no OUT and no OUT.partial ----
OMP_NUM_THREADS=1 run sm.ini --seed 5 --task 1/3 -o seed5.h5
sed 's/^lambda = .*/lambda = 0.8/' sm.ini > other.ini
OMP_NUM_THREADS=1 run other.ini --task 1/3 -o config.h5
expect_merge() { # PATTERN OUT IN...
  local pattern=$1 out=$2 msg status
  shift 2
  msg=$("$storq" merge "$out" "$@" 2>&1 >/dev/null); status=$?
  [ "$status" -eq 2 ] || fail "merge $out $* exited $status, expected 2: $msg"
  grep -qF -- "$pattern" <<<"$msg" || fail "merge $out $*: message lacks '$pattern': $msg"
  [ ! -e "$out.partial" ] || fail "merge $out $*: left $out.partial"
  echo "ok: merge $out $* -> $status: $(head -n 1 <<<"$msg")"
}
expect_merge "(seed 5 in seed5.h5, 4 in sm.task-0-of-3.h5)" bad.h5 sm.task-0-of-3.h5 seed5.h5
expect_merge "(config line 10: 'lambda = 0.8' in config.h5, 'lambda = 0.7' in sm.task-0-of-3.h5)" \
  bad.h5 sm.task-0-of-3.h5 config.h5
expect_merge "(model forkjoin in fj_whole.h5, supermarket in sm_t2.h5)" bad.h5 sm_t2.h5 fj_whole.h5
expect_merge "point 0 is in both sm.task-0-of-3.h5 and sm_whole.h5" bad.h5 sm.task-0-of-3.h5 sm_whole.h5
expect_merge "cannot read nosuch.h5: No such file or directory" bad.h5 sm.task-0-of-3.h5 nosuch.h5
expect_merge "sm.ini is not a storq results file" bad.h5 sm.task-0-of-3.h5 sm.ini
expect_merge "sm_t2.h5 is given twice" bad.h5 sm_t2.h5 ./sm_t2.h5
[ ! -e bad.h5 ] || fail "a refused merge wrote bad.h5"
sum_before=$(md5sum sm_t2.h5)
expect_merge "the output sm_t2.h5 is also an input" sm_t2.h5 sm.task-0-of-3.h5 sm_t2.h5
[ "$(md5sum sm_t2.h5)" = "$sum_before" ] || fail "a refused merge changed its input"
"$storq" merge lonely.h5 2>/dev/null; [ $? -eq 2 ] || fail "merge without inputs did not exit 2"

# ---- merge never replaces a file by surprise: an existing result or partial needs --force ----
cp sm_merged.h5 kept.h5; sum_kept=$(md5sum kept.h5)
expect_merge "merge: 'kept.h5' exists (a finished result); pass --force to replace it" kept.h5 \
  sm_t2.h5 sm.task-0-of-3.h5 sm.task-1-of-3.h5
[ "$(md5sum kept.h5)" = "$sum_kept" ] || fail "a refused merge changed kept.h5"
"$storq" merge --force kept.h5 sm_t2.h5 sm.task-0-of-3.h5 sm.task-1-of-3.h5 >/dev/null || fail "merge --force exited $?"
same sm_whole.h5 kept.h5
cp sm_t2.h5 unfinished.h5.partial; sum_kept=$(md5sum unfinished.h5.partial)
msg=$("$storq" merge unfinished.h5 sm.task-0-of-3.h5 2>&1); status=$?
[ "$status" -eq 2 ] && grep -qF "merge: 'unfinished.h5.partial' exists (an unfinished run or merge)" <<<"$msg" ||
  fail "merge onto an existing partial: $status $msg"
[ "$(md5sum unfinished.h5.partial)" = "$sum_kept" ] || fail "a refused merge changed unfinished.h5.partial"
mkfifo fifo.h5
expect_merge "merge: 'fifo.h5' exists and is not a regular file" fifo.h5 sm_t2.h5
[ -p fifo.h5 ] || fail "a refused merge replaced the FIFO fifo.h5"
mkdir dir.h5
expect_merge "merge: 'dir.h5' exists and is not a regular file" dir.h5 sm_t2.h5
msg=$("$storq" merge --bogus x.h5 sm_t2.h5 2>&1); status=$?
[ "$status" -eq 2 ] && grep -qF "merge: unknown option '--bogus'" <<<"$msg" || fail "merge --bogus: $status $msg"
[ ! -e x.h5 ] && [ ! -e x.h5.partial ] || fail "merge --bogus wrote x.h5"
ls ./*.lock 2>/dev/null && fail "a merge left a lock file"

# ---- a merge that lacks points: exit 1, OUT.partial only, completed by --resume ----
msg=$("$storq" merge part.h5 sm.task-0-of-3.h5 sm_t2.h5 2>&1 >/dev/null); status=$?
[ "$status" -eq 1 ] || fail "merge lacking points exited $status, expected 1"
grep -qF "2 of the run's 5 points are in no input: 1, 4. The 3 others are in" <<<"$msg" || fail "missing points message: $msg"
[ ! -e part.h5 ] && [ -e part.h5.partial ] || fail "merge lacking points: expected part.h5.partial only"
schema part.h5.partial "schema 1.3 OK (3/5 points complete)"
OMP_NUM_THREADS=2 "$storq" run sm.ini -o part.h5 --resume > resume.log 2>&1 || fail "resume of a merge: $(cat resume.log)"
[ "$(grep -c '^point ' resume.log)" -eq 2 ] || fail "resume of a merge ran other than the 2 missing points"
same sm_whole.h5 part.h5

# ---- --resume of a task's file keeps to its task ----
cp sm.task-1-of-3.h5 res.h5.partial
msg=$("$storq" run sm.ini --task 2/3 -o res.h5 --resume --quiet 2>&1); status=$?
[ "$status" -eq 2 ] && grep -qF "(task 1/3 there, task 2/3 here)" <<<"$msg" || fail "task mismatch on resume: $status $msg"
msg=$("$storq" run sm.ini -o res.h5 --resume --quiet 2>&1); status=$?
[ "$status" -eq 2 ] && grep -qF "(task 1/3 there, the whole run here)" <<<"$msg" || fail "whole run resuming a task: $status $msg"
run sm.ini --task 1/3 -o res.h5 --resume
same sm.task-1-of-3.h5 res.h5

[ "$failures" -eq 0 ] || { echo "$failures failure(s)"; exit 1; }
echo "job-array tasks merge into the single-job file; bad tasks and merges are refused cleanly"
