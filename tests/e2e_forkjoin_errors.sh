#!/usr/bin/env bash
# The forkjoin model's usage errors: exit status 2, one message naming the parameter and what is
# accepted, and no file (final or partial) left behind; the same in a sweep file; and
# --allow-unstable turning the stability refusal into a warning.
# Cases run a few at a time (tests/parallel_usage_errors.sh),
# each in its own directory; their verdicts are printed in order at the end.
set -uo pipefail
. "$(dirname "$0")/parallel_usage_errors.sh" # before the cd: $0 may be relative
storq=$1; work=$(mktemp -d); trap 'rm -rf "$work"' EXIT; cd "$work"

fj=(run forkjoin)
small=(--warmup 100 --arrivals 1000 -r 2)

# k > n
expect 2 "\-\-k: 4 exceeds \-\-n 3; a job needs k of its n tasks, so 1 <= k <= n" -- "${fj[@]}" --n 3 --k 4 "${small[@]}"
# the stability bound, exponential tasks: lambda / g < n mu, at and beyond it, for each assignment
expect 2 "\-\-lambda: 10 is at or beyond the stability bound.*lambda must be below 10 under \-\-assign uniform" -- "${fj[@]}" --n 10 --k 5 --mu 1 --lambda 10 "${small[@]}"
expect 2 "\-\-lambda: 11 is at or beyond the stability bound.*lambda must be below 10" -- "${fj[@]}" --n 10 --k 5 --mu 1 --lambda 11 "${small[@]}"
expect 2 "\-\-lambda: 20 is at or beyond the stability bound: each of the 2 groups.*below 20 under \-\-assign uniform" -- "${fj[@]}" --n 10 --k 5 --mu 1 --groups 2 --lambda 20 "${small[@]}"
expect 2 "\-\-lambda: 20 is at or beyond the stability bound.*below 20 under \-\-assign pod:2" -- "${fj[@]}" --n 10 --k 5 --mu 1 --groups 2 --assign pod:2 --lambda 20 "${small[@]}"
expect 2 "\-\-lambda: 20 is at or beyond the stability bound.*below 20 under \-\-assign lwl" -- "${fj[@]}" --n 10 --k 5 --mu 1 --groups 2 --assign lwl --lambda 20 "${small[@]}"
expect 2 "\-\-lambda: 25 is at or beyond the stability bound.*below 20 under \-\-assign lwl" -- "${fj[@]}" --n 10 --k 5 --mu 1 --groups 2 --assign lwl --load jobs --lambda 25 "${small[@]}"
# lock-step nodes: the bound is 1/E[S], below n mu
expect 2 "\-\-lambda: 6 is at or beyond the stability bound.*lock-step.*below 5" -- "${fj[@]}" --n 10 --k 5 --mu 1 --service det --lambda 6 "${small[@]}"
expect 2 "\-\-lambda: 5 is at or beyond the stability bound.*below 5" -- "${fj[@]}" --n 10 --k 5 --mu 1 --service det --lambda 5 "${small[@]}"
expect 2 "\-\-lambda: 6 is at or beyond the stability bound.*lock-step.*below 5" -- "${fj[@]}" --n 10 --k 5 --mu 1 --correlation 1 --lambda 6 "${small[@]}"
# k = 1, Pareto(2) at mean 1: E[min of 10] = 0.5 * 10/9.5, the bound 1.9
expect 2 "\-\-lambda: 2 is at or beyond the stability bound.*E\[min of the n task times\].*below 1.9" -- "${fj[@]}" --n 10 --k 1 --mu 1 --service pareto:2 --lambda 2 "${small[@]}"
# --allow-unstable does not excuse the other errors
expect 2 "\-\-k: 6 exceeds \-\-n 5" -- "${fj[@]}" --n 5 --k 6 --allow-unstable "${small[@]}"
# correlation
expect 2 "\-\-correlation: -0.1 is out of range; expected a number in \[0, 1\]" -- "${fj[@]}" --correlation -0.1 "${small[@]}"
expect 2 "\-\-correlation: 1.5 is out of range; expected a number in \[0, 1\]" -- "${fj[@]}" --correlation 1.5 "${small[@]}"
expect 2 "\-\-correlation: 'half' is not a number (decimal, as in 0.5 or 2e-3); expected a number in \[0, 1\]" -- "${fj[@]}" --correlation half "${small[@]}"
# service families
expect 2 "\-\-service: Pareto shape 1 is not > 1.*pareto:ALPHA with ALPHA > 1" -- "${fj[@]}" --service pareto:1 "${small[@]}"
expect 2 "\-\-service: Pareto shape 0.5 is not > 1.*pareto:ALPHA with ALPHA > 1" -- "${fj[@]}" --service pareto:0.5 "${small[@]}"
expect 2 "\-\-service: 'pareto:abc': give the Pareto shape as pareto:ALPHA with a number ALPHA > 1" -- "${fj[@]}" --service pareto:abc "${small[@]}"
expect 2 "\-\-service: 'pareto:': give the Pareto shape as pareto:ALPHA" -- "${fj[@]}" --service pareto: "${small[@]}"
expect 2 "\-\-service: 'pareto' needs its parameter: pareto:ALPHA (shape ALPHA > 1)" -- "${fj[@]}" --service pareto "${small[@]}"
expect 2 "\-\-service: 'shexp:1': give the shifted exponential as shexp:F.*0 <= F < 1" -- "${fj[@]}" --service shexp:1 "${small[@]}"
expect 2 "\-\-service: 'shexp:-0.1': give the shifted exponential as shexp:F.*0 <= F < 1" -- "${fj[@]}" --service shexp:-0.1 "${small[@]}"
expect 2 "\-\-service: 'shexp:x': give the shifted exponential as shexp:F" -- "${fj[@]}" --service shexp:x "${small[@]}"
expect 2 "\-\-service: 'gamma:2' is not a law of this parameter; accepted: exp, det, pareto:ALPHA (ALPHA > 1), shexp:F (0 <= F < 1, the shift's share of the mean), trace:PATH (rescaled), all at the mean the model sets" -- "${fj[@]}" --service gamma:2 "${small[@]}"
# a full form (exp:RATE) is refused: forkjoin sets the mean, --service gives the shape only
expect 2 "\-\-service: 'exp:2' gives the law's scale, but the model sets the mean: give its shape only; accepted: exp," -- "${fj[@]}" --service exp:2 "${small[@]}"
expect 2 "\-\-service: 'pareto:2.5,1': give the Pareto shape as pareto:ALPHA" -- "${fj[@]}" --service pareto:2.5,1 "${small[@]}"
# traces: a missing file, one with no numbers, non-numbers, a negative number, mean 0, no path.
# The message must list the shapes --service accepts, not the full forms of other parameters.
: > "$work/empty.txt"
printf '# only a comment\n\n' > "$work/comment.txt"
printf 'abc\ndef\n' > "$work/words.txt"
printf '1\n-2\n3\n' > "$work/negative.txt"
printf '0\n0\n0\n' > "$work/zeros.txt"
expect 2 "\-\-service: 'trace:$work/missing.txt': cannot read trace file" --not "erlang:K,RATE" -- "${fj[@]}" --service "trace:$work/missing.txt" "${small[@]}"
expect 2 "\-\-service: 'trace:$work/empty.txt': trace file '$work/empty.txt' holds no numbers" --not "erlang:K,RATE" -- "${fj[@]}" --service "trace:$work/empty.txt" "${small[@]}"
expect 2 "\-\-service: 'trace:$work/comment.txt': trace file '$work/comment.txt' holds no numbers" --not "erlang:K,RATE" -- "${fj[@]}" --service "trace:$work/comment.txt" "${small[@]}"
expect 2 "\-\-service: 'trace:$work/words.txt': trace file '$work/words.txt' line 1: 'abc' is not a finite number >= 0" --not "erlang:K,RATE" -- "${fj[@]}" --service "trace:$work/words.txt" "${small[@]}"
expect 2 "\-\-service: 'trace:$work/negative.txt': trace file '$work/negative.txt' line 2: '-2' is not a finite number >= 0" --not "erlang:K,RATE" -- "${fj[@]}" --service "trace:$work/negative.txt" "${small[@]}"
expect 2 "\-\-service: the trace '$work/zeros.txt' has mean 0; it needs a finite positive mean" -- "${fj[@]}" --service "trace:$work/zeros.txt" "${small[@]}"
expect 2 "\-\-service: 'trace:': trace needs a file name" --not "erlang:K,RATE" -- "${fj[@]}" --service "trace:" "${small[@]}"
# assignment and load
expect 2 "\-\-assign: 'pod:0': the power of D needs an integer D with 1 <= D <= groups = 4" -- "${fj[@]}" --groups 4 --lambda 2 --assign pod:0 "${small[@]}"
expect 2 "\-\-assign: 'pod:5': the power of D needs an integer D with 1 <= D <= groups = 4" -- "${fj[@]}" --groups 4 --lambda 2 --assign pod:5 "${small[@]}"
expect 2 "\-\-assign: 'pod:1.5': the power of D needs an integer D with 1 <= D <= groups = 4" -- "${fj[@]}" --groups 4 --lambda 2 --assign pod:1.5 "${small[@]}"
expect 2 "\-\-assign: 'pod:two': the power of D needs an integer D" -- "${fj[@]}" --groups 4 --lambda 2 --assign pod:two "${small[@]}"
expect 2 "\-\-assign: 'jsq' is not an assignment; accepted: uniform, pod:D (1 <= D <= groups), lwl" -- "${fj[@]}" --groups 4 --lambda 2 --assign jsq "${small[@]}"
expect 2 "\-\-load: 'queue' is not accepted; choose one of: jobs,work" -- "${fj[@]}" --groups 4 --lambda 2 --assign lwl --load queue "${small[@]}"
# ranges of the numeric parameters
expect 2 "\-\-n: 0 is out of range; expected an integer in \[1," -- "${fj[@]}" --n 0 "${small[@]}"
expect 2 "\-\-n: '2.5' is not an integer" -- "${fj[@]}" --n 2.5 "${small[@]}"
expect 2 "\-\-k: 0 is out of range; expected an integer in \[1," -- "${fj[@]}" --k 0 "${small[@]}"
expect 2 "\-\-groups: 0 is out of range; expected an integer in \[1," -- "${fj[@]}" --groups 0 "${small[@]}"
expect 2 "\-\-mu: 0 is out of range; expected a number > 0" -- "${fj[@]}" --mu 0 "${small[@]}"
expect 2 "\-\-lambda: -1 is out of range; expected a number > 0" -- "${fj[@]}" --lambda -1 "${small[@]}"
expect 2 "\-\-arrivals: 1 is out of range; expected an integer >= 2" -- "${fj[@]}" --warmup 100 --arrivals 1 -r 2
expect 2 "\-\-warmup: -1 is out of range; expected an integer >= 0" -- "${fj[@]}" --warmup -1 --arrivals 1000 -r 2
# memory
expect 2 "\-\-groups/\-\-n: 2147483647 groups of 2147483647 nodes need" -- "${fj[@]}" --groups 2147483647 --n 2147483647 --k 1 --lambda 1 "${small[@]}"
# an unknown parameter
expect 2 "\-\-nodes: not a parameter of model 'forkjoin'; accepted: n, k, groups, lambda, mu, service, correlation, assign, load, warmup, arrivals" -- "${fj[@]}" --nodes 10 "${small[@]}"
# lists: one unstable point refuses the whole sweep before anything is written
expect 2 "\-\-lambda: 20 is at or beyond the stability bound" -- "${fj[@]}" --n 10 --k 5 --mu 1 --lambda 5,20 "${small[@]}"

# The same errors from a sweep file.
sweep() { # FILE EXTRA-LINES
  printf '[run]\nmodel = forkjoin\nreplications = 2\nseed = 1\n%s\n\n[forkjoin]\nn = 10\nk = 5\nmu = 1\nwarmup = 100\narrivals = 1000\n%s\n' \
    "${3:-}" "$2" > "$work/$1"
}
sweep lambda.ini "lambda = 5, 20"
sweep pareto.ini "service = pareto:1"
sweep pod.ini "$(printf 'groups = 4\nlambda = 2\nassign = pod:5')"
sweep trace.ini "service = trace:$work/missing.txt"
sweep bogus.ini "nodes = 10"
sweep unstable.ini "lambda = 12" "allow_unstable = true"
expect 2 "\-\-lambda: 20 is at or beyond the stability bound.*below 10" -- run "$work/lambda.ini"
expect 2 "\-\-service: Pareto shape 1 is not > 1" -- run "$work/pareto.ini"
expect 2 "\-\-assign: 'pod:5': the power of D needs an integer D with 1 <= D <= groups = 4" -- run "$work/pod.ini"
expect 2 "\-\-service: 'trace:$work/missing.txt': cannot read trace file" --not "erlang:K,RATE" -- run "$work/trace.ini"
expect 2 "bogus.ini:[0-9]*: \[forkjoin\] nodes: not a parameter of model 'forkjoin'; accepted: n, k," -- run "$work/bogus.ini"

# Valid runs near the bounds, and --allow-unstable.
expect_ok "" -- "${fj[@]}" --n 10 --k 5 --mu 1 --service det --lambda 4.9 "${small[@]}"
expect_ok "" -- "${fj[@]}" --n 10 --k 1 --mu 1 --service pareto:2 --lambda 1.5 "${small[@]}"
expect_ok "" -- "${fj[@]}" --n 10 --k 5 --mu 1 --groups 2 --assign pod:2 --correlation 0.5 --lambda 9 "${small[@]}"
printf '1\n2\n3\n' > "$work/trace.txt"
expect_ok "" -- "${fj[@]}" --n 4 --k 2 --service "trace:$work/trace.txt" --lambda 2 "${small[@]}"
expect_ok "warning: forkjoin: \-\-lambda: 12 is at or beyond the stability bound: the group takes less than 10 jobs" -- "${fj[@]}" --n 10 --k 5 --mu 1 --lambda 12 --allow-unstable "${small[@]}"
expect_ok "warning: forkjoin: \-\-lambda: 20 is at or beyond the stability bound: each of the 2 groups takes less than 10 jobs per unit time, .* so lambda must be below 20" -- "${fj[@]}" --n 10 --k 5 --mu 1 --groups 2 --assign lwl --lambda 20 --allow-unstable "${small[@]}"
expect_ok "warning: forkjoin: \-\-lambda: 6 is at or beyond the stability bound: the group takes less than 5 jobs" -- "${fj[@]}" --n 10 --k 5 --mu 1 --service det --lambda 6 --allow-unstable "${small[@]}"
expect_ok "warning: forkjoin: \-\-lambda: 12 is at or beyond the stability bound: the group takes less than 10 jobs" -- run "$work/unstable.ini"

report
