#!/usr/bin/env bash
# The command line as a user meets it (QA of 2026-12-05): `storq theory` given an option of
# `storq run` (--quiet, -r, --seed, -o, --force, --dry-run, --task, --memory-limit) exits 2 with one
# message naming that option as a run option, and writes nothing. It said "--quiet needs a
# value" (the flag taken for a parameter), "unexpected argument '-r'" or "--seed: not a parameter
# of model 'mmc'". What theory does take still works: --allow-unstable, --only, --format, --help.
# A sweep file with [RUN] or `Model =` names that line (it said "s.ini:1: [run] model: missing").
# `storq help --help` prints help's usage; `storq models MODEL EXTRA` is refused; `storq info`
# names an option it does not take; `storq run -o --help mmc` lists mmc's parameters; an option
# or parameter given twice is refused.
set -uo pipefail
storq=$1
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
fail=0
bad() { echo "FAIL: $*"; fail=1; }

refused() { # OPTION ARGS...: storq theory mmc ARGS... names OPTION as a run option
    local opt=$1; shift
    "$storq" theory mmc "$@" > out.txt 2> err.txt
    local rc=$?
    [[ $rc -eq 2 ]] || { bad "theory mmc $*: exit $rc, expected 2"; return; }
    grep -qF -- "error: $opt: an option of \`storq run\`, not of this command" err.txt ||
        { bad "theory mmc $*: message: $(head -c 300 err.txt)"; return; }
    [[ $(grep -c error: err.txt) -eq 1 && ! -s out.txt ]] || bad "theory mmc $*: not one message"
    [[ -z $(ls | grep -v -e out.txt -e err.txt) ]] || bad "theory mmc $*: wrote $(ls)"
    echo "ok: theory mmc $*: $(head -1 err.txt)"
}
refused --quiet --quiet
refused --quiet --c 3 --quiet
refused -r -r 2
refused --seed --seed 3
refused --seed --seed=3
refused -o -o x.h5
refused --output --output=x.h5
refused --force --force
refused --dry-run --dry-run --c 3
refused --task --task 0/2
refused --memory-limit --memory-limit 1G

"$storq" theory mmc --allow-unstable --lambda 5 > out.txt 2> err.txt ||
    bad "theory --allow-unstable: exit $?: $(head -c 200 err.txt)"
"$storq" theory mmc --only wait_probability --format csv > out.txt 2> err.txt ||
    bad "theory --only --format: exit $?"
grep -q "wait_probability" out.txt || bad "theory --only --format: no wait_probability"
"$storq" theory mmc --quiet --help > out.txt 2> err.txt || bad "theory --quiet --help: exit $?"
# run still takes them
"$storq" run mmc --quiet -r 2 --seed 3 --dry-run > out.txt 2> err.txt || bad "run with run options: exit $?"

# A sweep file whose [run] section or model key is not in lower case: named at its line, not
# reported as a missing model at line 1
sweep() { # FILE-TEXT EXPECTED-MESSAGE
    printf "$1" > s.ini
    "$storq" run s.ini --dry-run > out.txt 2> err.txt
    local rc=$?
    [[ $rc -eq 2 ]] || { bad "sweep '$1': exit $rc, expected 2"; return; }
    grep -qF -- "$2" err.txt || { bad "sweep '$1': message: $(head -c 300 err.txt)"; return; }
    echo "ok: $(head -1 err.txt)"
}
sweep '[RUN]\nmodel = mmc\n' "s.ini:1: [RUN]: unknown section; section names are lower case: [run]"
sweep '[run]\nModel = mmc\n' "s.ini:2: [run] Model: unknown key; keys are lower case: model"
sweep '[run]\nreplications = 2\n' "s.ini:1: [run] model: missing"
rm -f s.ini

# `storq help --help` prints help's usage (it exited 2: "'--help' is neither a command nor a
# model"); `storq models MODEL EXTRA` is refused (it printed MODEL and ignored the rest)
"$storq" help --help > out.txt 2> err.txt || bad "help --help: exit $?: $(head -c 200 err.txt)"
grep -qF "storq help [COMMAND|MODEL]" out.txt || bad "help --help: no usage: $(head -c 200 out.txt)"
"$storq" models mmc --format json > out.txt 2> err.txt
rc=$?
[[ $rc -eq 2 && ! -s out.txt ]] || bad "models mmc --format json: exit $rc, expected 2 and no output"
grep -qF "usage: storq models [MODEL] (one model)" err.txt ||
    bad "models mmc --format json: message: $(head -c 200 err.txt)"
"$storq" models mmc > out.txt 2> err.txt || bad "models mmc: exit $?"

# `storq run -o --help mmc`: --help where -o's value was due still lists mmc's parameters (it
# printed the general usage only: the parse stopped at -o)
for args in "-o --help mmc" "--seed -h mmc" "mmc -o --help"; do
    # shellcheck disable=SC2086
    "$storq" run $args > out.txt 2> err.txt || bad "run $args: exit $?"
    grep -q "^ *lambda " out.txt || bad "run $args: no mmc parameters in the help"
done

# `storq info FILE --only x`: the option is named (it said "usage: ... (one results file)")
"$storq" run mmc -r 2 --arrivals 200 --warmup 0 --quiet -o i.h5 || bad "run for info: exit $?"
"$storq" info i.h5 --only x > out.txt 2> err.txt
rc=$?
[[ $rc -eq 2 ]] || bad "info i.h5 --only x: exit $rc, expected 2"
grep -qF "info: '--only' is not an option of info" err.txt ||
    bad "info i.h5 --only x: message: $(head -c 200 err.txt)"
"$storq" info i.h5 --format csv > out.txt 2> err.txt || bad "info --format csv: exit $?"

# An option or parameter given twice is refused, naming both values (the last won unseen:
# `--n 10 --n 20` ran n = 20 only, where a sweep file refuses a key given twice); nothing is
# written. --class repeats by design (one class each).
twice() { # WHAT ARGS...: storq ARGS... exits 2 with "WHAT is given twice", one message, no file
    local what=$1; shift
    "$storq" "$@" > out.txt 2> err.txt
    local rc=$?
    [[ $rc -eq 2 ]] && grep -qF -- "error: $what is given twice" err.txt &&
        [[ $(grep -c error: err.txt) -eq 1 ]] || { bad "$*: exit $rc: $(head -c 300 err.txt)"; return; }
    [[ -z $(ls | grep -v -e out.txt -e err.txt -e '^i.h5$') ]] || { bad "$*: wrote $(ls)"; return; }
    echo "ok: $*: $(head -1 err.txt)"
}
twice --c run mmc --c 2 --c 3 -r 2 --quiet -o d.h5
twice --c run mmc --c=2 --c 3 -r 2 --quiet -o d.h5
twice -o run mmc -r 2 --quiet -o d.h5 -o e.h5
twice --output run mmc -r 2 --quiet -o d.h5 --output=e.h5
twice --seed run mmc -r 2 --seed 1 --seed=2 --quiet -o d.h5
twice -r run mmc -r 2 -r 3 --quiet -o d.h5
twice --lambda theory mmc --lambda 1 --lambda 2
twice --format theory mmc --format csv --format json
twice --only theory mmc --only mean_wait --only mean_sojourn
twice --format info i.h5 --format csv --format=json
"$storq" run proxy --class a:0.5:3:6:shexp:0.1,1.25 --class b:0.5:3:6:shexp:0.1,1.25 --dry-run \
    > out.txt 2> err.txt || bad "--class twice (two classes): exit $?: $(head -c 300 err.txt)"
rm -f i.h5

[[ $fail -eq 0 ]] && echo "all checks passed"
exit $fail
