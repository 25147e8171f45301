#!/usr/bin/env bash
# Outputs as a user meets them (QA of 2026-12-05):
# - an output path that is a symbolic link to nothing (run -o, merge OUT): exit 2 with one message
#   saying what it is, no file written, the link left as it was (the message said another run had
#   written a finished result there meanwhile);
# - a merge missing a task: its advice is followed as written (merge again with --force and every
#   task's file) and gives the whole run, identical to the single job (tests/compare_h5.py); the
#   advice said to merge "the missing tasks' files", which alone replace the partial's points;
# - an output whose directory does not exist: the message names the output and the missing
#   directory (it named storq's lock file, 'x.h5.lock', and "No such file or directory");
# - OUT.partial that is a directory: refused, with or without --force, and left alone.
set -uo pipefail
storq=$1; python=$2; here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
fail=0
bad() { echo "FAIL: $*"; fail=1; }

ln -s nothere.h5 dangling.h5
"$storq" run mmc --arrivals 2000 --warmup 100 -r 2 --quiet -o dangling.h5 > out.txt 2> err.txt
rc=$?
[[ $rc -eq 2 ]] || bad "run -o dangling link: exit $rc, expected 2"
grep -q "'dangling.h5' is a symbolic link to a file that does not exist" err.txt ||
    bad "run -o dangling link: message: $(head -c 300 err.txt)"
grep -q "written by another run" err.txt && bad "run -o dangling link: says another run wrote it"
[[ $(grep -c "error:" err.txt) -eq 1 ]] || bad "run -o dangling link: not one message"
[[ -L dangling.h5 && ! -e nothere.h5 && ! -e dangling.h5.partial && ! -e dangling.h5.lock ]] ||
    bad "run -o dangling link: files changed: $(ls | tr '\n' ' ')"

printf '[run]\nmodel = mmc\nreplications = 2\nseed = 5\n[mmc]\nc = 2,3\nlambda = 0.5,1.0\narrivals = 3000\nwarmup = 100\n' > s.ini
for i in 0 1 2; do
    "$storq" run s.ini --task $i/3 --quiet || bad "task $i/3 failed"
done
"$storq" run s.ini --quiet -o single.h5 || bad "the single job failed"

"$storq" merge dangling.h5 s.task-0-of-3.h5 > out.txt 2> err.txt
rc=$?
[[ $rc -eq 2 ]] || bad "merge onto a dangling link: exit $rc, expected 2"
grep -q "merge: 'dangling.h5' is a symbolic link to a file that does not exist" err.txt ||
    bad "merge onto a dangling link: message: $(head -c 300 err.txt)"
[[ -L dangling.h5 && ! -e dangling.h5.partial && ! -e dangling.h5.lock ]] ||
    bad "merge onto a dangling link: files changed: $(ls | tr '\n' ' ')"

"$storq" merge out.h5 s.task-0-of-3.h5 s.task-2-of-3.h5 > out.txt 2> err.txt
rc=$?
[[ $rc -eq 1 && -f out.h5.partial && ! -e out.h5 ]] || bad "merge without task 1: exit $rc"
grep -q "merge again with --force and every task's file, the missing ones included" err.txt ||
    bad "merge without task 1: advice: $(head -c 400 err.txt)"
grep -q "missing tasks' files" err.txt && bad "merge: still advises the missing tasks' files alone"
# the advice, as written
"$storq" merge --force out.h5 s.task-0-of-3.h5 s.task-1-of-3.h5 s.task-2-of-3.h5 > out.txt 2> err.txt ||
    bad "merge --force of every task: exit $?: $(head -c 300 err.txt)"
[[ -f out.h5 && ! -e out.h5.partial ]] || bad "merge --force of every task: no out.h5"
"$python" "$here/compare_h5.py" single.h5 out.h5 > cmp.txt 2>&1 ||
    bad "the merge differs from the single job: $(tail -3 cmp.txt)"

# an output in a directory that does not exist: named as the user gave it, not as storq's lock
for cmd in "run mmc -r 2 --quiet -o nodir/x.h5" "merge nodir/x.h5 single.h5"; do
    label=--output; [[ $cmd == merge* ]] && label=merge
    # shellcheck disable=SC2086
    "$storq" $cmd > out.txt 2> err.txt
    rc=$?
    [[ $rc -eq 2 ]] || bad "$cmd: exit $rc, expected 2"
    grep -qF -- "$label: cannot create 'nodir/x.h5': its directory does not exist" err.txt ||
        bad "$cmd: message: $(head -c 300 err.txt)"
    grep -q "\.lock" err.txt && bad "$cmd: names the lock file: $(head -c 300 err.txt)"
    [[ ! -e nodir ]] || bad "$cmd: created nodir"
done

# OUT.partial that is a directory: refused at once, with and without --force, and left alone (it
# was called "an unfinished run", and --force then failed "cannot remove ... Is a directory")
mkdir d.h5.partial
for force in "" --force; do
    "$storq" run mmc --arrivals 2000 --warmup 100 -r 2 --quiet -o d.h5 $force > out.txt 2> err.txt
    rc=$?
    [[ $rc -eq 2 ]] && [[ $(grep -c "error:" err.txt) -eq 1 ]] &&
        grep -qF "'d.h5.partial', where this run would keep its unfinished work, exists and is not a regular file but a directory" err.txt ||
        bad "run -o d.h5 $force with a directory d.h5.partial: exit $rc: $(head -c 300 err.txt)"
    [[ -d d.h5.partial && ! -e d.h5 && ! -e d.h5.lock ]] || bad "run -o d.h5 $force: files changed: $(ls | tr '\n' ' ')"
done
rmdir d.h5.partial

[[ $fail -eq 0 ]] && echo "all checks passed"
exit $fail
