#!/usr/bin/env bash
# The proxy model's usage errors: exit status 2, one message naming the parameter and what is
# accepted; and --allow-unstable turning the capacity refusal into a warning.
# Cases run a few at a time (tests/parallel_usage_errors.sh),
# each in its own directory; their verdicts are printed in order at the end.
set -uo pipefail
. "$(dirname "$0")/parallel_usage_errors.sh" # before the cd: $0 may be relative
here=$(cd "$(dirname "$0")" && pwd); storq=$1; work=$(mktemp -d); trap 'rm -rf "$work"' EXIT; cd "$work"

px=(run proxy)
small=(--warmup 100 --arrivals 1000 -r 2)
two="read:0.9:3:6:shexp:0.1,10|write:0.1:3:6:shexp:0.2,5"

# k > nmax, one class and in a class
expect 2 "\-\-k: 7 exceeds \-\-nmax 6; a request needs k of its n tasks, so k <= n <= nmax" -- "${px[@]}" --k 7 "${small[@]}"
expect 2 "\-\-k: 4 exceeds \-\-nmax 3 (class 'a' of \-\-classes)" -- "${px[@]}" --classes "a:0.5:4:3:exp:1|b:0.5:3:6:exp:1" "${small[@]}"
# nmax > L with blocking (non-blocking takes it)
expect 2 "\-\-nmax: 6 exceeds \-\-L 4; with \-\-admission blocking a request waits for n idle threads, so nmax <= L" -- "${px[@]}" --admission blocking --L 4 --lambda 0.5 "${small[@]}"
expect_ok "" -- "${px[@]}" --admission nonblocking --L 4 --lambda 0.5 --code fixed:6+greedy+bafec "${small[@]}"
# shares
expect 2 "\-\-classes: the shares sum to 0.9, not 1" -- "${px[@]}" --classes "read:0.5:3:6:exp:1|write:0.4:3:6:exp:1" "${small[@]}"
expect 2 "\-\-classes: class 'read': share '1.5' is not a number in (0, 1\]" -- "${px[@]}" --classes "read:1.5:3:6:exp:1" "${small[@]}"
# malformed class specs
expect 2 "\-\-classes: 'read:0.5:3' is not a class; accepted: NAME:SHARE:K:NMAX:LAW" -- "${px[@]}" --classes "read:0.5:3" "${small[@]}"
expect 2 "\-\-classes: '1read' is not a class name" -- "${px[@]}" --classes "1read:1:3:6:exp:1" "${small[@]}"
expect 2 "\-\-classes: class 'a' is given twice" -- "${px[@]}" --classes "a:0.5:3:6:exp:1|a:0.5:3:6:exp:1" "${small[@]}"
expect 2 "\-\-classes: class 'a': K 'x' and NMAX '6' must be integers" -- "${px[@]}" --classes "a:1:x:6:exp:1" "${small[@]}"
expect 2 "\-\-code: 'fixed:0x3': '0x3' is not a code length" -- "${px[@]}" --code fixed:0x3 "${small[@]}"
expect 2 "\-\-classes (class 'a'): 'gamma:1': unknown distribution" -- "${px[@]}" --classes "a:1:3:6:gamma:1" "${small[@]}"
expect 2 "\-\-k: has no effect with \-\-classes" -- "${px[@]}" --k 4 --classes "$two" "${small[@]}"
# the capacity estimate, per policy of the list
expect 2 "\-\-lambda: 6 is at or beyond the capacity estimate 5.33333 of \-\-code bafec (non-blocking admission, L = 16" -- "${px[@]}" --lambda 6 "${small[@]}"
expect 2 "\-\-lambda: 4.5 is at or beyond the capacity estimate 4.44444 of \-\-code fixed:6" -- "${px[@]}" --lambda 4.5 --code fixed:3+fixed:6 "${small[@]}"
expect 2 "\-\-lambda: 5.1 is at or beyond the capacity estimate 5 of \-\-code fixed:3 (blocking admission" -- "${px[@]}" --lambda 5.1 --admission blocking --code fixed:3 "${small[@]}"
expect_ok "warning: proxy: \-\-lambda: 6 is at or beyond the capacity estimate 5.33333 of \-\-code bafec" -- "${px[@]}" --lambda 6 --allow-unstable "${small[@]}"
# policies and admission
expect 2 "\-\-code: 'mds' in 'fixed:3+mds' is not a code policy; accepted: distinct policies fixed:N" -- "${px[@]}" --code fixed:3+mds "${small[@]}"
expect 2 "\-\-code: 'greedy' is listed twice" -- "${px[@]}" --code greedy+greedy "${small[@]}"
expect 2 "\-\-code: 'fixed:7': n = 7 is outside k .. nmax = 3 .. 6" -- "${px[@]}" --code fixed:7 "${small[@]}"
expect 2 "\-\-code: 'fixed:2': n = 2 is outside k .. nmax = 3 .. 6" -- "${px[@]}" --code fixed:2 "${small[@]}"
expect 2 "\-\-code: 'fixed:3/4/5' gives 3 code lengths for 2 classes" -- "${px[@]}" --classes "$two" --code fixed:3/4/5 "${small[@]}"
expect 2 "\-\-code: bafec needs the Delta + Exp fit" -- "${px[@]}" --delay pareto:1.5,1 "${small[@]}"
expect 2 "\-\-admission: 'half' is not accepted; choose one of: blocking,nonblocking" -- "${px[@]}" --admission half "${small[@]}"
# delay laws and traces
: > "$work/empty.txt"
printf 'abc\n' > "$work/words.txt"
printf '1\n-2\n' > "$work/negative.txt"
mkdir -p "$work/adir"
expect 2 "\-\-delay: 'exp:-1'" -- "${px[@]}" --delay exp:-1 "${small[@]}"
expect 2 "\-\-delay: 'trace:$work/missing.txt': cannot read trace file" -- "${px[@]}" --delay "trace:$work/missing.txt" "${small[@]}"
expect 2 "\-\-delay: 'trace:$work/empty.txt': trace file '$work/empty.txt' holds no numbers" -- "${px[@]}" --delay "trace:$work/empty.txt" "${small[@]}"
expect 2 "\-\-delay: 'trace:$work/words.txt': trace file '$work/words.txt' line 1: 'abc' is not a finite number >= 0" -- "${px[@]}" --delay "trace:$work/words.txt" "${small[@]}"
expect 2 "\-\-delay: 'trace:$work/negative.txt': trace file '$work/negative.txt' line 2: '-2' is not a finite number >= 0" -- "${px[@]}" --delay "trace:$work/negative.txt" "${small[@]}"
expect 2 "\-\-delay: 'trace:$work/adir'" -- "${px[@]}" --delay "trace:$work/adir" "${small[@]}"
# more bad traces: only comments, not finite, trailing text, a binary file, a FIFO, a device, a path
# through a file, over 1 GiB (sparse: no disk used), and unreadable (not testable as root). (A
# device: /dev/zero, since /dev/null is a regular file in some containers.)
printf '# only a comment\n\n   \n' > "$work/comments.txt"
printf '0.1\nnan\n' > "$work/nan.txt"
printf '0.1\n1e999\n' > "$work/huge.txt"
printf '0.1\n0.2 s\n' > "$work/unit.txt"
printf '0.1\n0.2\0\n' > "$work/binary.txt"
mkfifo "$work/fifo"
truncate -s 1073741825 "$work/big.txt"
printf '0.1\n' > "$work/noperm.txt"; chmod 000 "$work/noperm.txt"
expect 2 "trace file '$work/comments.txt' holds no numbers" -- "${px[@]}" --delay "trace:$work/comments.txt" "${small[@]}"
expect 2 "trace file '$work/nan.txt' line 2: 'nan' is not a finite number >= 0" -- "${px[@]}" --delay "trace:$work/nan.txt" "${small[@]}"
expect 2 "trace file '$work/huge.txt' line 2: '1e999' is not a finite number >= 0" -- "${px[@]}" --delay "trace:$work/huge.txt" "${small[@]}"
expect 2 "trace file '$work/unit.txt' line 2: '0.2 s' is not a finite number >= 0" -- "${px[@]}" --delay "trace:$work/unit.txt" "${small[@]}"
expect 2 "trace file '$work/binary.txt' line 2 holds a NUL byte" -- "${px[@]}" --delay "trace:$work/binary.txt" "${small[@]}"
expect 2 "trace file '$work/fifo' is not a regular file" -- "${px[@]}" --delay "trace:$work/fifo" "${small[@]}"
expect 2 "trace file '/dev/zero' is not a regular file" -- "${px[@]}" --delay "trace:/dev/zero" "${small[@]}"
expect 2 "trace file '$work/adir' is not a regular file" -- "${px[@]}" --delay "trace:$work/adir" "${small[@]}"
expect 2 "cannot read trace file '$work/words.txt/x': Not a directory" -- "${px[@]}" --delay "trace:$work/words.txt/x" "${small[@]}"
expect 2 "trace file '$work/big.txt' holds 1073741825 bytes; traces are read into memory and may hold at most 1073741824 bytes (1 GiB)" -- "${px[@]}" --delay "trace:$work/big.txt" "${small[@]}"
expect 2 "\-\-classes (class 'w'): 'trace:$work/nan.txt': trace file '$work/nan.txt' line 2" -- "${px[@]}" --classes "r:0.5:3:6:exp:1|w:0.5:3:6:trace:$work/nan.txt" "${small[@]}"
if [ "$(id -u)" -ne 0 ]; then
  expect 2 "cannot read trace file '$work/noperm.txt': Permission denied" -- "${px[@]}" --delay "trace:$work/noperm.txt" "${small[@]}"
fi
# the shipped S3-like trace runs with every policy, alone and as a class (a warm-up long enough
# for the steady-state check)
shipped=$here/../jobs/traces/s3-like-read.txt
warm=(--warmup 3000 --arrivals 3000 -r 4)
expect_ok "" -- "${px[@]}" --delay "trace:$shipped" --lambda 20 --code fixed:3+fixed:6+greedy+bafec "${warm[@]}"
expect_ok "" -- "${px[@]}" --classes "read:0.9:3:6:trace:$shipped|write:0.1:3:6:shexp:0.1,10" --lambda 20 --code fixed:3/4+greedy+bafec "${warm[@]}"
# ranges
expect 2 "\-\-L: 0 is out of range" -- "${px[@]}" --L 0 "${small[@]}"
expect 2 "\-\-lambda: 0 is out of range; expected a number > 0" -- "${px[@]}" --lambda 0 "${small[@]}"

# The same from a sweep file; classes with '|' (and ';' without a blank before it).
sweep() { # FILE LINES
  printf '[run]\nmodel = proxy\nreplications = 2\nseed = 1\n\n[proxy]\nwarmup = 100\narrivals = 1000\n%s\n' "$2" > "$work/$1"
}
sweep shares.ini "classes = read:0.5:3:6:exp:1|write:0.4:3:6:exp:1"
sweep lambda.ini "lambda = 3, 6"
sweep code.ini "code = fixed:3+mds"
sweep two.ini "$(printf 'classes = read:0.9:3:6:shexp:0.1,10;write:0.1:3:6:shexp:0.2,5\ncode = fixed:3/4+greedy+bafec')"
expect 2 "\-\-classes: the shares sum to 0.9, not 1" -- run "$work/shares.ini"
expect 2 "\-\-lambda: 6 is at or beyond the capacity estimate" -- run "$work/lambda.ini"
expect 2 "\-\-code: 'mds' in 'fixed:3+mds' is not a code policy" -- run "$work/code.ini"
expect_ok "" -- run "$work/two.ini"
report
