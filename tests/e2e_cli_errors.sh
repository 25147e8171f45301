#!/usr/bin/env bash
# Bad input: one clear message naming the parameter and what is accepted, exit status 2, and no
# file (final or partial) left behind.
set -uo pipefail
. "$(dirname "$0")/usage_errors.sh" # before the cd: $0 may be relative
storq=$1; work=$(mktemp -d); trap 'rm -rf "$work"' EXIT; cd "$work"
failures=0

ok=(--n 10 --L 2 --k 1 --lambda 0.5 --warmup 10 --arrivals 100 -r 2)
known=$("$storq" models | awk '{print $1}' | paste -sd, - | sed 's/,/, /g')
expect 2 "unknown model 'nosuch' and not a sweep file (.ini); models: $known" -- run nosuch
expect 2 "\-r/\-\-replications: '0' is not accepted; expected an integer in \[1, 2147483648\]" -- run supermarket -r 0
expect 2 "\-\-bogus: not a parameter of model 'supermarket'; accepted: n, L" -- run supermarket "${ok[@]}" --bogus 3
expect 2 "\-\-n: 'ten' is not an integer" -- run supermarket --n ten --L 2 --k 1 --lambda 0.5
expect 2 "\-\-lambda: 'abc' is not a number" -- run supermarket --n 10 --L 2 --k 1 --lambda abc
expect 2 "\-\-n: 0 is out of range" -- run supermarket --n 0 --L 1 --k 1 --lambda 0.5
expect 2 "\-\-lambda: -0.5 is out of range" -- run supermarket --n 10 --L 2 --k 1 --lambda -0.5
expect 2 "\-\-lambda" -- run supermarket --n 10 --L 2 --k 1 --lambda 1.0
expect 2 "\-\-lambda" -- run supermarket --n 10 --L 2 --k 1 --lambda 1.5
expect 2 "\-\-k" -- run supermarket --n 10 --L 2 --k 3 --lambda 0.5
expect 2 "\-\-L" -- run supermarket --n 3 --L 4 --k 1 --lambda 0.5
expect 2 "\-\-sampling: 'maybe' is not accepted; choose one of: without,with" -- run supermarket "${ok[@]}" --sampling maybe
expect 2 "\-\-service" -- run supermarket "${ok[@]}" --service exp:-1
expect 2 "\-\-replications" -- run supermarket "${ok[@]:0:12}" --replications 0
expect 2 "\-\-seed" -- run supermarket "${ok[@]}" --seed -4
expect 2 "\-\-n needs a value" -- run supermarket --n --L 2
expect 2 "\-\-n: '1.5' is not an integer" -- run supermarket --n 1.5 --L 1 --k 1 --lambda 0.5

# A finished result or an unfinished run's partial file is never replaced without --force; the
# output must be a regular file and not the sweep file.
refused() { # NAME PATTERN ARGS...: storq ARGS exits 2 with PATTERN and leaves NAME as it was
  local name=$1 pattern=$2; shift 2
  local before out status; before=$(stat -c '%F %s %Y' "$name"; [ -f "$name" ] && md5sum < "$name")
  out=$("$storq" "$@" 2>&1 >/dev/null); status=$?
  if [ $status -eq 2 ] && grep -q -- "$pattern" <<<"$out" && [ "$(stat -c '%F %s %Y' "$name"; [ -f "$name" ] && md5sum < "$name")" = "$before" ]; then
    echo "ok: storq $* -> 2: $(head -n 1 <<<"$out")"
  else
    echo "FAIL: storq $* -> $status: $out"; failures=$((failures + 1))
  fi
}
"$storq" run supermarket "${ok[@]}" -o kept.h5 --quiet
refused kept.h5 "\-\-output: 'kept.h5' exists (a finished result); pass \-\-force" run supermarket "${ok[@]}" -o kept.h5
if "$storq" run supermarket "${ok[@]}" -o kept.h5 --force --quiet; then echo "ok: --force replaces"; else echo "FAIL: --force"; failures=$((failures + 1)); fi
cp kept.h5 kept2.h5.partial
refused kept2.h5.partial "\-\-output: 'kept2.h5.partial' exists (an unfinished run): \-\-resume completes it, \-\-force starts over" run supermarket "${ok[@]}" -o kept2.h5
mkfifo fifo.h5
refused fifo.h5 "\-\-output: 'fifo.h5' exists and is not a regular file" run supermarket "${ok[@]}" -o fifo.h5 --force
printf '[run]\nmodel = supermarket\n[supermarket]\nn = 10\n' > self.ini
refused self.ini "\-\-output: 'self.ini' is the sweep file itself" run self.ini -o self.ini --force

# The output path: a missing directory, and a directory without write permission (as non-root).
out=$("$storq" run supermarket "${ok[@]}" -o /nonexistent/dir/out.h5 2>&1); status=$?
if [ $status -eq 2 ] && grep -q -- "--output: cannot create '/nonexistent/dir/out.h5" <<<"$out"; then
  echo "ok: unwritable output -> 2: $out"
else
  echo "FAIL: unwritable output exited $status: $out"; failures=$((failures + 1))
fi

# Sweep files: malformed line, unknown key, unknown section, bad value, missing model.
printf '[run]\nmodel = supermarket\n[supermarket]\nn = 10\nthis line is broken\n' > bad1.ini
expect 2 "bad1.ini:5: .this line is broken. is neither .key = value." -- run bad1.ini
printf '[run]\nmodel = supermarket\nfrobnicate = 1\n' > bad2.ini
expect 2 "bad2.ini:3: \[run\] frobnicate: unknown key" -- run bad2.ini
printf '[run]\nmodel = supermarket\n[cluster]\nm = 3\n' > bad3.ini
expect 2 "bad3.ini:3: \[cluster\]: unknown section" -- run bad3.ini
printf '[run]\nmodel = supermarket\n[supermarket]\nn = 10, 20, x\nL = 2\nk = 1\nlambda = 0.5\n' > bad4.ini
expect 2 "bad4.ini:4: \[supermarket\] n: 'x' is not an integer" -- run bad4.ini
printf '[supermarket]\nn = 10\n' > bad5.ini
expect 2 "bad5.ini:1: \[run\] model: missing" -- run bad5.ini
expect 2 "cannot read the sweep file" -- run missing.ini

# A good run still works from the same folder (so the failures above are not an environment problem).
if "$storq" run supermarket "${ok[@]}" -o good.h5 --quiet && [ -f good.h5 ] && [ ! -f good.h5.partial ]; then
  echo "ok: a valid run writes good.h5 and no partial file"
else
  echo "FAIL: a valid run did not produce good.h5"; failures=$((failures + 1))
fi
# --allow-unstable lets lambda >= 1 run with a warning.
out=$("$storq" run supermarket --n 10 --L 2 --k 1 --lambda 1.2 --warmup 10 --arrivals 200 -r 2 --allow-unstable -o unstable.h5 --quiet 2>&1); status=$?
if [ $status -eq 0 ] && grep -q "warning" <<<"$out"; then
  echo "ok: --allow-unstable runs with a warning"
else
  echo "FAIL: --allow-unstable: status $status: $out"; failures=$((failures + 1))
fi
# info on something that is not a storq file.
echo "not hdf5" > plain.txt
out=$("$storq" info plain.txt 2>&1); status=$?
if [ $status -eq 2 ]; then echo "ok: info on a non-HDF5 file -> 2: $out"; else echo "FAIL: info plain.txt -> $status: $out"; failures=$((failures + 1)); fi

# Numbers inside a parameter's own forms and in the environment follow the one grammar too
# (docs/sweep-files.md#numbers): no hex, nothing after the number.
expect 2 "\-\-assign: 'pod:0x2'" -- run forkjoin --n 4 --k 2 --groups 4 --assign pod:0x2 -r 2
expect 2 "\-\-coding: 'plus:0x1': A must be a whole number" -- run cluster --m 10 --lambda 2 --coding plus:0x1 -r 2
expect 2 "\-\-coding: 'rate:0x1p-1': R must be a positive number" -- run cluster --m 10 --lambda 2 --coding rate:0x1p-1 -r 2
expect 2 "\-\-start: 'fill:0x2' is not a valid fill spec" -- run supermarket --mode transient --start fill:0x2 -r 2
expect 2 "\-\-start: 'u:0.5,0x0' is not a valid occupancy" -- run supermarket --mode transient --start u:0.5,0x0 -r 2
expect 2 "\-\-start: 'fixed' is the mean-field fixed point, which exists only at a per-server load below 1 .here 1.2." -- run supermarket --lambda 1.2 --allow-unstable --start fixed -r 2
expect 2 "\-\-start: 'fixd' is not a start spec; use empty, fill:J .* or fixed" -- run supermarket --start fixd -r 2
STORQ_CHECKPOINT_INTERVAL=abc expect 2 "STORQ_CHECKPOINT_INTERVAL: 'abc' is not a number of seconds" -- run supermarket "${ok[@]}"
STORQ_PROGRESS_INTERVAL=-1 expect 2 "STORQ_PROGRESS_INTERVAL: '-1' is not a number of seconds" -- run supermarket "${ok[@]}"
STORQ_MEMORY_LIMIT=0x10G expect 2 "STORQ_MEMORY_LIMIT: '0x10G' is not a size" -- run supermarket "${ok[@]}"
# OpenMP ignores what it cannot read and starts a thread per CPU (libgomp's own line on stderr)
OMP_NUM_THREADS=abc expect 2 "OMP_NUM_THREADS: 'abc' is not a number of threads" -- run supermarket "${ok[@]}"
OMP_NUM_THREADS=0 expect 2 "OMP_NUM_THREADS: '0' is not a number of threads" -- run supermarket "${ok[@]}"

echo "$failures failure(s)"
[ $failures -eq 0 ]
