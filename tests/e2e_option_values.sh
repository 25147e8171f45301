#!/usr/bin/env bash
# Run options and their values: a value that is an option is refused naming the option (`-o
# --force` wrote a results file named --force), `-o -` is refused (HDF5 cannot stream), absurd
# OMP_NUM_THREADS is refused instead of crashing, and --name=value works for every valued option
# as --name value does. Each refusal: exit 2, one message, no file left.
set -uo pipefail
. "$(dirname "$0")/usage_errors.sh" # before the cd: $0 may be relative
storq=$1; python=$2; compare=$(cd "$(dirname "$0")" && pwd)/compare_h5.py
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT; cd "$work"
failures=0
export OMP_NUM_THREADS=1
ok=(supermarket --n 10 --warmup 10 --arrivals 200)

expect 2 "^storq: error: -o needs a value, not the option '--force' (a value that starts with '-' is given as --output=VALUE)" -- run "${ok[@]}" -o --force
expect 2 "^storq: error: --output needs a value, not the option '--quiet'" -- run "${ok[@]}" --output --quiet
expect 2 "^storq: error: -r needs a value, not the option '--force'" -- run "${ok[@]}" -r --force
expect 2 "^storq: error: --seed needs a value, not the option '-q'" -- run "${ok[@]}" --seed -q
expect 2 "^storq: error: --task needs a value, not the option '--resume'" -- run "${ok[@]}" --task --resume
expect 2 "^storq: error: --memory-limit needs a value, not the option '--n'" -- run "${ok[@]}" --memory-limit --n 5
expect 2 "^storq: error: -o -: the results are an HDF5 file, which cannot be streamed to standard output" -- run "${ok[@]}" -o -
expect 2 "^storq: error: --output -: the results are an HDF5 file" -- run "${ok[@]}" --output=-
expect 2 "^storq: error: --seed: '-4'" -- run "${ok[@]}" --seed=-4 # after '=', anything is the value
for f in ./--force ./--quiet ./--resume ./- ./-q; do
  [ -e "$f" ] && { echo "FAIL: a file named $f was written"; failures=$((failures + 1)); }
done

# Absurd thread counts: refused (the OpenMP runtime crashed at 100000), with the limit named.
OMP_NUM_THREADS=100000 expect 2 "^storq: error: OMP_NUM_THREADS: 100000 threads per process is over storq's limit of [0-9]* ([0-9]* per CPU on this machine's [0-9]*, at most 4096)" -- run "${ok[@]}"
OMP_NUM_THREADS=5000 expect 2 "OMP_NUM_THREADS: 5000 threads per process is over" -- run "${ok[@]}"

# --name=value is --name value, for every valued option: the same results file.
same() { # A.h5 B.h5 WHAT
  if "$python" "$compare" "$1" "$2" >/dev/null; then echo "ok: $3"
  else echo "FAIL: $3: $1 and $2 differ"; failures=$((failures + 1)); fi
}
run() { "$storq" run "${ok[@]}" --quiet "$@" || { echo "FAIL: storq run ... $* exited $?"; failures=$((failures + 1)); }; }
run -r 3 --seed 5 -o a.h5
run --replications=3 --seed=5 --output=b.h5
same a.h5 b.h5 "--replications= --seed= --output="
run -r 2 --seed 5 --precision 0.5 --max-replications 4 --memory-limit 1G -o c.h5
run -r 2 --seed=5 --precision=0.5 --max-replications=4 --memory-limit=1G -o d.h5
same c.h5 d.h5 "--precision= --max-replications= --memory-limit="
run --lambda 0.5,0.6 -r 2 --seed 5 --task 1/2 -o e.h5
run --lambda=0.5,0.6 -r 2 --seed 5 --task=1/2 -o f.h5
same e.h5 f.h5 "--task= (and a parameter's --lambda=)"
a=$("$storq" run "${ok[@]}" -r 2 --dry-run --workers 2 --calibrate-from a.h5 2>&1); sa=$?
b=$("$storq" run "${ok[@]}" -r 2 --dry-run --workers=2 --calibrate-from=a.h5 2>&1); sb=$?
if [ $sa -eq 0 ] && [ $sb -eq 0 ] && [ "$a" = "$b" ]; then echo "ok: --workers= --calibrate-from="
else echo "FAIL: --workers= --calibrate-from=: $sa/$sb: $a // $b"; failures=$((failures + 1)); fi

echo "$failures failure(s)"
[ $failures -eq 0 ]
