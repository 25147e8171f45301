#!/usr/bin/env bash
# The threads model's usage errors: exit status 2, one message naming the parameter and what is
# accepted; and --allow-unstable turning the throughput refusal into a warning.
# Every storq start pays for MPI's start-up (about 3 s here), so the cases run a few at a time,
# each in its own directory; their verdicts are printed in order at the end.
set -uo pipefail
storq=$1; work=$(mktemp -d); trap 'rm -rf "$work"' EXIT; cd "$work"
parallel=${STORQ_TEST_PARALLEL:-8}
ncase=0

# verdict ID TEXT: record the outcome of case ID.
verdict() { printf '%s\n' "$2" > "$work/result.$1"; }

# refused ID STATUS PATTERN ABSENT ARGS...: the run exits STATUS with one message that contains
# PATTERN (and not ABSENT, unless empty), and leaves no out.h5 or out.h5.partial.
refused() {
  local id=$1 want=$2 pattern=$3 absent=$4; shift 4
  mkdir "$work/case.$id" && cd "$work/case.$id" || { verdict "$id" "FAIL: no case directory"; return; }
  local out status
  out=$("$storq" "$@" -o out.h5 2>&1 >/dev/null); status=$?
  if [ "$status" -ne "$want" ]; then
    verdict "$id" "FAIL: storq $* exited $status, expected $want: $out"
  elif ! grep -q -- "$pattern" <<<"$out"; then
    verdict "$id" "FAIL: storq $*: message lacks '$pattern': $out"
  elif [ -n "$absent" ] && grep -q -- "$absent" <<<"$out"; then
    verdict "$id" "FAIL: storq $*: message should not contain '$absent': $out"
  elif [ "$(grep -c . <<<"$out")" -gt 2 ]; then
    verdict "$id" "FAIL: storq $*: more than one message: $out"
  elif ls out.h5 out.h5.partial >/dev/null 2>&1; then
    verdict "$id" "FAIL: storq $*: left a file behind"
  else
    verdict "$id" "ok: storq $* -> $status: $(head -n 1 <<<"$out")"
  fi
}

# accepted ID PATTERN ARGS...: the run exits 0 and writes out.h5 (no .partial); its stderr
# contains PATTERN, or, when PATTERN is empty, neither a warning nor an error.
accepted() {
  local id=$1 pattern=$2; shift 2
  mkdir "$work/case.$id" && cd "$work/case.$id" || { verdict "$id" "FAIL: no case directory"; return; }
  local out status
  out=$("$storq" "$@" -o out.h5 --quiet 2>&1 >/dev/null); status=$?
  if [ "$status" -ne 0 ]; then
    verdict "$id" "FAIL: storq $* exited $status, expected 0: $out"
  elif [ ! -f out.h5 ] || [ -f out.h5.partial ]; then
    verdict "$id" "FAIL: storq $*: exit 0 but no out.h5 (or a .partial left)"
  elif [ -n "$pattern" ] && ! grep -q -- "$pattern" <<<"$out"; then
    verdict "$id" "FAIL: storq $*: stderr lacks '$pattern': $out"
  elif [ -z "$pattern" ] && grep -qi "warning\|error" <<<"$out"; then
    verdict "$id" "FAIL: storq $*: a valid run complained: $out"
  else
    verdict "$id" "ok: storq $* -> 0, wrote out.h5${pattern:+ with: $(head -n 1 <<<"$out")}"
  fi
  rm -f out.h5 out.h5.partial
}

# launch FUNCTION ARGS...: run FUNCTION ID ARGS... in the background, at most $parallel at a time.
launch() {
  local fn=$1; shift
  while [ "$(jobs -rp | wc -l)" -ge "$parallel" ]; do wait -n; done
  ncase=$((ncase + 1))
  "$fn" "$(printf '%03d' "$ncase")" "$@" &
}
# expect STATUS PATTERN [--not ABSENT] -- ARGS...
expect() {
  local want=$1 pattern=$2 absent=""; shift 2
  if [ "$1" = "--not" ]; then absent=$2; shift 2; fi
  shift
  launch refused "$want" "$pattern" "$absent" "$@"
}
# expect_ok PATTERN -- ARGS...
expect_ok() {
  local pattern=$1; shift 2
  launch accepted "$pattern" "$@"
}

th=(run threads)
small=(--requests 300 -r 2)

# classes: k > n, shares, malformed
expect 2 "\-\-classes: class 'a': K = 4 exceeds N = 3; an (N,K) code restores a request from K of its N chunks, so K <= N" -- "${th[@]}" --classes "a:0.5:3:4|b:0.5:3:1" "${small[@]}"
expect 2 "\-\-classes: the shares sum to 0.9, not 1" -- "${th[@]}" --classes "a:0.5:3:1|b:0.4:14:10" "${small[@]}"
expect 2 "\-\-classes: class 'a': share '1.5' is not a number in (0, 1\]" -- "${th[@]}" --classes "a:1.5:3:1" "${small[@]}"
expect 2 "\-\-classes: 'a:1:3' is not a class; accepted: NAME:SHARE:N:K" -- "${th[@]}" --classes "a:1:3" "${small[@]}"
expect 2 "\-\-classes: 'a:1:3:1:7' is not a class" -- "${th[@]}" --classes "a:1:3:1:7" "${small[@]}"
expect 2 "\-\-classes: '1a' is not a class name" -- "${th[@]}" --classes "1a:1:3:1" "${small[@]}"
expect 2 "\-\-classes: class 'a' is given twice" -- "${th[@]}" --classes "a:0.5:3:1|a:0.5:3:1" "${small[@]}"
expect 2 "\-\-classes: class 'a': N 'x' and K '1' must be integers" -- "${th[@]}" --classes "a:1:x:1" "${small[@]}"
# preemption asked of a policy that cannot do it, by suffix and by --preemption
expect 2 "\-\-policy: sedpt-nr is non-preemptive by definition" -- "${th[@]}" --policy sedpt-nr:on "${small[@]}"
expect 2 "\-\-preemption: sedpt-nr is non-preemptive by definition" -- "${th[@]}" --policy serpt-r+sedpt-nr --preemption on "${small[@]}"
expect_ok "" -- "${th[@]}" --policy serpt-r+sedpt-nr:off --preemption on "${small[@]}"
# policies
expect 2 "\-\-policy: 'foo' in 'fcfs-r+foo' is not a policy; accepted: distinct policies fcfs-r" -- "${th[@]}" --policy fcfs-r+foo "${small[@]}"
expect 2 "\-\-policy: serpt-r:on is listed twice" -- "${th[@]}" --policy serpt-r+serpt-r:on "${small[@]}"
expect 2 "\-\-policy: 'serpt-r:maybe' in 'serpt-r:maybe': the preemption suffix must be :on or :off" -- "${th[@]}" --policy serpt-r:maybe "${small[@]}"
expect 2 "\-\-preemption: 'sometimes' is not accepted" -- "${th[@]}" --preemption sometimes "${small[@]}"
# load beyond the throughput region of a listed policy
expect 2 "\-\-rho: 1.2 asks for 180 chunks per unit time, at or beyond the throughput 150 of \-\-policy fcfs-r:off" -- "${th[@]}" --rho 1.2 "${small[@]}"
expect 2 "\-\-rho: 0.8 asks for 84.2633 chunks per unit time, at or beyond the throughput 54.5455 of \-\-policy sedpt-wcr:off" -- "${th[@]}" --download hyperexp:0.5,10,0.5,100 --classes a:1:3:1 --policy sedpt-r+sedpt-wcr:off --load min --rho 0.8 "${small[@]}"
expect 2 "\-\-rho: 1.05 asks for .* at or beyond the throughput upper bound" -- "${th[@]}" --download shexp:0.01,100 --policy sedpt-r --rho 1.05 "${small[@]}"
expect_ok "warning: threads: \-\-rho 1.2 asks for 180 chunks per unit time, at or beyond the throughput 150 of fcfs-r:off" -- "${th[@]}" --rho 1.2 --allow-unstable "${small[@]}"
expect_ok "" -- "${th[@]}" --download hyperexp:0.5,10,0.5,100 --classes a:1:3:1 --policy sedpt-r --load min --rho 0.8 "${small[@]}"
# laws
expect 2 "\-\-download: 'exp:-1'" -- "${th[@]}" --download exp:-1 "${small[@]}"
expect 2 "\-\-interarrival: 'gamma:1': unknown distribution" -- "${th[@]}" --interarrival gamma:1 "${small[@]}"
expect 2 "\-\-download: 'trace:$work/missing.txt': cannot read trace file" -- "${th[@]}" --download "trace:$work/missing.txt" "${small[@]}"
# ranges and choices
expect 2 "\-\-L: 0 is out of range" -- "${th[@]}" --L 0 "${small[@]}"
expect 2 "\-\-rho: 0 is out of range; expected a number > 0" -- "${th[@]}" --rho 0 "${small[@]}"
expect 2 "\-\-mode: 'forever' is not accepted" -- "${th[@]}" --mode forever "${small[@]}"
expect 2 "\-\-load: 'max' is not accepted" -- "${th[@]}" --load max "${small[@]}"

# The same from a sweep file; classes with '|' (and ';' without a blank before it).
sweep() { # FILE LINES
  printf '[run]\nmodel = threads\nreplications = 2\nseed = 1\n\n[threads]\nrequests = 300\n%s\n' "$2" > "$work/$1"
}
sweep shares.ini "classes = a:0.5:3:1|b:0.4:14:10"
sweep rho.ini "rho = 0.5, 1.2"
sweep policy.ini "policy = fcfs-r+srpt"
sweep two.ini "$(printf 'classes = a:0.9:3:1;b:0.1:14:10\npolicy = fcfs-r+serpt-r+sedpt-r+sedpt-nr+sedpt-wcr+fcfs-wcr')"
expect 2 "\-\-classes: the shares sum to 0.9, not 1" -- run "$work/shares.ini"
expect 2 "\-\-rho: 1.2 asks for" -- run "$work/rho.ini"
expect 2 "\-\-policy: 'srpt' in 'fcfs-r+srpt' is not a policy" -- run "$work/policy.ini"
expect_ok "" -- run "$work/two.ini"
wait
failures=0
for f in "$work"/result.*; do
  cat "$f"
  grep -q "^FAIL" "$f" && failures=$((failures + 1))
done
[ "$(ls "$work"/result.* | wc -l)" -eq "$ncase" ] || { echo "FAIL: only $(ls "$work"/result.* | wc -l) of $ncase cases reported"; failures=$((failures + 1)); }
echo "$ncase case(s), $failures failure(s)"
[ $failures -eq 0 ]
