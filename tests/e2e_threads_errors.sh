#!/usr/bin/env bash
# The threads model's usage errors: exit status 2, one message naming the parameter and what is
# accepted; and --allow-unstable turning the throughput refusal into a warning.
# Cases run a few at a time (tests/parallel_usage_errors.sh),
# each in its own directory; their verdicts are printed in order at the end.
set -uo pipefail
. "$(dirname "$0")/parallel_usage_errors.sh" # before the cd: $0 may be relative
storq=$1; work=$(mktemp -d); trap 'rm -rf "$work"' EXIT; cd "$work"

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
expect 2 "\-\-classes: class 'a': N '0x3' and K '1' must be integers" -- "${th[@]}" --classes "a:1:0x3:1" "${small[@]}"
# preemption asked of a policy that cannot do it, by suffix and by --preemption
expect 2 "\-\-policy: sedpt-nr is non-preemptive by definition" -- "${th[@]}" --policy sedpt-nr:on "${small[@]}"
expect 2 "\-\-preemption: sedpt-nr is non-preemptive by definition" -- "${th[@]}" --policy serpt-r+sedpt-nr --preemption on "${small[@]}"
expect_ok "" -- "${th[@]}" --policy serpt-r+sedpt-nr:off --preemption on "${small[@]}"
# policies
expect 2 "\-\-policy: 'foo' in 'fcfs-r+foo' is not a policy; accepted: distinct policies fcfs-r" -- "${th[@]}" --policy fcfs-r+foo "${small[@]}"
expect 2 "\-\-policy: serpt-r:on is listed twice" -- "${th[@]}" --policy serpt-r+serpt-r:on "${small[@]}"
expect 2 "\-\-policy: 'serpt-r:maybe' in 'serpt-r:maybe': the preemption suffix must be :on or :off" -- "${th[@]}" --policy serpt-r:maybe "${small[@]}"
# the paper's lower bounds (bound.c; SEDPT-NR's last starts): exponential or NLU downloads, NLU
# only with d_min >= L, listed once, beside a policy
expect 2 "\-\-policy: bound (the paper's lower bounds on the optimal delay) needs exponential or New-Longer-than-Used downloads .*; --download hyperexp:0.5,20,0.5,200 is New-Shorter-than-Used" -- "${th[@]}" --policy serpt-r+bound --download hyperexp:0.5,20,0.5,200 "${small[@]}"
expect 2 "\-\-policy: bound with New-Longer-than-Used downloads (--download shexp:0.01,100) needs d_min >= L .*--L = 5; d_min is 3" -- "${th[@]}" --policy serpt-r+bound --download shexp:0.01,100 --L 5 "${small[@]}"
expect_ok "" -- "${th[@]}" --policy serpt-r+bound --download shexp:0.01,100 "${small[@]}"
expect 2 "\-\-policy: bound is listed twice" -- "${th[@]}" --policy serpt-r+bound+bound "${small[@]}"
expect 2 "\-\-policy: 'bound' names no policy" -- "${th[@]}" --policy bound "${small[@]}"
expect_ok "" -- "${th[@]}" --policy serpt-r+bound "${small[@]}"
expect 2 "\-\-preemption: 'sometimes' is not accepted" -- "${th[@]}" --preemption sometimes "${small[@]}"
# load beyond the throughput region of a listed policy
expect 2 "\-\-rho: 1.2 asks for 180 chunks per unit time, at or beyond the throughput 150 of \-\-policy fcfs-r:off" -- "${th[@]}" --rho 1.2 "${small[@]}"
expect 2 "\-\-rho: 0.8 asks for 84.2633 chunks per unit time, at or beyond the throughput 54.5455 of \-\-policy sedpt-wcr:off" -- "${th[@]}" --download hyperexp:0.5,10,0.5,100 --classes a:1:3:1 --policy sedpt-r+sedpt-wcr:off --load min --rho 0.8 "${small[@]}"
expect 2 "\-\-rho: 1.05 asks for .* at or beyond the throughput upper bound" -- "${th[@]}" --download shexp:0.01,100 --policy sedpt-r --rho 1.05 "${small[@]}"
expect_ok "warning: threads: \-\-rho: 1.2 asks for 180 chunks per unit time, at or beyond the throughput 150 of \-\-policy fcfs-r:off" -- "${th[@]}" --rho 1.2 --allow-unstable "${small[@]}"
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
report
