#!/usr/bin/env bash
# What `storq theory` and `storq info` print (issue 13, items 2 and 5): theory's summary, --only,
# --format csv|json, an unstable load stated (exit 0); info's --format csv|json checked against
# the file with h5py and pandas, its histogram quantiles, and the theory column filled by the
# declared grid; the run report's truncated vectors say how much is left out.
set -uo pipefail
storq=$1; python=$2; here=$(cd "$(dirname "$0")" && pwd); work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
failures=0
ok() { echo "ok: $1"; }
bad() { echo "FAIL: $1"; failures=$((failures + 1)); }
has() { grep -q -- "$2" "$1" && ok "$3" || { bad "$3 ('$2' not in $1)"; head -40 "$1"; }; }

# theory: a summary, not every value (cluster printed 10,910 lines, supermarket 220)
"$storq" theory cluster > cl.txt || bad "theory cluster failed"
[ "$(wc -l < cl.txt)" -le 40 ] && ok "theory cluster is a summary" || bad "theory cluster: $(wc -l < cl.txt) lines"
# an array shows its length, first values, last value and how many are left out: the length is the
# one the json gives
len=$("$storq" theory cluster --format json | "$python" -c "import json, sys; print(len(json.load(sys.stdin)['points'][0]['theory']['cavity_grid']['values']))")
has cl.txt "cavity_grid  *$len .* \.\.\. [0-9.e+-]* ($((len - 4)) more)" "an array shows its length and what is left out"
has cl.txt "--only cavity_grid. prints one in full" "the summary says how to get all of it"
"$storq" theory supermarket --L 2 --lambda 0.9 > sm.txt || bad "theory supermarket failed"
[ "$(wc -l < sm.txt)" -le 24 ] && ok "theory supermarket is a summary" || bad "theory supermarket: $(wc -l < sm.txt) lines"
has sm.txt "mean_queue_length  *2.35265164" "scalars in full"
# --only prints the arrays named, in full
"$storq" theory supermarket --L 2 --lambda 0.9 --only u,mean_queue_length > only.txt || bad "--only failed"
has only.txt "mean_queue_length" "--only keeps a scalar asked for"
grep -q "mean_task_sojourn\|u_lower" only.txt && bad "--only prints arrays not asked for" || ok "--only leaves the others out"
[ "$(grep -c '^ *[0-9]  ' only.txt)" -eq 9 ] && ok "--only prints u in full (9 levels)" || { bad "--only u rows"; cat only.txt; }
# formats
"$storq" theory supermarket --L 2 --lambda 0.5,0.9 --format json > t.json && "$python" "$here/check_views.py" theory-json t.json || bad "theory --format json"
"$storq" theory supermarket --L 2 --lambda 0.5,0.9 --format=csv > t.csv && "$python" "$here/check_views.py" theory-csv t.csv || bad "theory --format csv"
# usage errors: exit 2, one message naming the option
for args in "--format xml" "--only nope" "--only"; do
  err=$("$storq" theory supermarket $args 2>&1 >/dev/null); status=$?
  [ $status -eq 2 ] && grep -q -- "${args%% *}" <<<"$err" && ok "theory $args refused: $err" || bad "theory $args: status $status: $err"
done
# an unstable load is stated, not refused; the arrays that assume a steady state are left out
# every registered model, overloaded through its load parameter (rho where it has one, else lambda)
for model in $("$storq" models | awk '{print $1}'); do
  knob=--lambda; grep -q "^  *rho " <<<"$("$storq" models $model)" && knob=--rho
  m="$model $knob 100"
  out=$("$storq" theory $m 2>&1); status=$?
  [ $status -eq 0 ] && grep -q "^unstable: .*theory arrays that assume one are omitted" <<<"$out" &&
    ! grep -q "allow-unstable\|warning" <<<"$out" && ok "theory $m: unstable stated" || bad "theory $m: status $status: $out"
done
out=$("$storq" theory supermarket --lambda 1.2); grep -q "^  u " <<<"$out" && bad "supermarket unstable prints u" || ok "supermarket unstable: no fixed point"
out=$("$storq" theory forkjoin --lambda 100); grep -q "lower_bound \|mean_response_time" <<<"$out" && bad "forkjoin unstable prints steady-state means: $out" || ok "forkjoin unstable: no steady-state means"
out=$("$storq" theory forkjoin --lambda 100 --format json); "$python" -c "import json,sys; d=json.loads(sys.argv[1]); assert d['points'][0]['unstable']" "$out" && ok "json states unstable" || bad "json unstable"
# an error other than the load is still an error
err=$("$storq" theory forkjoin --n 5 --k 6 --lambda 100 2>&1); [ $? -eq 2 ] && grep -q "\-\-k: 6 exceeds" <<<"$err" && ok "other errors still refused" || bad "forkjoin --k 6: $err"

# info: formats, quantiles, theory column
export OMP_NUM_THREADS=1
"$storq" run supermarket --n 40 --L 2 --k 1 --lambda 0.85,0.5 --warmup 2000 --arrivals 20000 -r 3 --levels 30 -o sm.h5 > run.txt 2>&1 || bad "run supermarket"
"$storq" run cluster --m 4 --lambda 0.5 --size uniform:1,3 --warmup 1000 --arrivals 5000 -r 3 --quiet -o cl.h5 > /dev/null 2>&1 || bad "run cluster"
has run.txt "\.\.\. 2[0-9] more levels (level [0-9]* to 29, below 1e-6), in the results file" "the report says a vector is cut short"
has run.txt "in the results file only (storq info): n_var_u, arrival_queue_length" "the report names what it does not show"
for f in sm cl; do
  "$storq" info $f.h5 --format csv > $f.csv && "$storq" info $f.h5 --format json > $f.json &&
    "$python" "$here/check_views.py" info $f.h5 $f.csv $f.json || bad "info $f --format"
done
"$storq" info sm.h5 > info.txt
has info.txt "histogram .*p50 *p90 *p99 *p99.9 *max *resolution" "info prints quantiles"
has info.txt "task_sojourn .* +-0.78%" "with their resolution"
has info.txt "mean_task_sojourn .*+- [0-9.]* *2.21009" "info's theory column for a scalar"
"$storq" info cl.h5 > info_cl.txt
pf=$("$storq" theory cluster --m 4 --lambda 0.5 --size uniform:1,3 --format json | "$python" -c "import json, sys; print('%.6g' % json.load(sys.stdin)['points'][0]['theory']['product_form_mean']['values'][0])")
has info_cl.txt "BR_mean_delay .*+- [0-9.]* *$pf" "the product-form mean ($pf, as storq theory gives it) beside BR's mean delay (declared grid)"
has info_cl.txt "u *9 .*(5 more)\|BR_delay_ccdf *50 .*(46 more)" "info's vectors say how many values are left out"
err=$("$storq" info sm.h5 --format yaml 2>&1); [ $? -eq 2 ] && grep -q "\-\-format" <<<"$err" && ok "info --format yaml refused" || bad "info --format yaml: $err"

echo "$failures failure(s)"
[ $failures -eq 0 ]
