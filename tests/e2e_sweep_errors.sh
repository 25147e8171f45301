#!/usr/bin/env bash
# Sweep files mean exactly what they say (issue 10): every malformed file is refused with exit 2,
# no file written, and a message naming FILE:LINE (and the key); files that libinih used to misread
# (long lines, wrapped lists, long comments) are read as written. --dry-run lists the points.
set -uo pipefail
. "$(dirname "$0")/usage_errors.sh" # before the cd: $0 may be relative
storq=$1; here=$(cd "$(dirname "$0")/.." && pwd); work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
cd "$work"
failures=0
head='[run]\nmodel = supermarket\n[supermarket]\n'
# bad NAME PATTERN CONTENT(printf format): the file NAME.ini is refused with PATTERN. --dry-run
# reads the file as a run does, without starting MPI (seconds per start on some machines); a few
# real runs at the end check that a run refuses the same way.
bad() { printf "$3" > "$1.ini"; expect 2 "$2" -- run "$1.ini" --dry-run; }

bad dup      "dup.ini:5: \[supermarket\] n: given twice (lines 4 and 5)" "${head}n = 10\nn = 20\n"
bad dup_run  "dup_run.ini:5: \[run\] seed: given twice (lines 3 and 5)" "[run]\nmodel = supermarket\nseed = 1\n[run]\nseed = 2\n"
bad outside  "outside.ini:1: n: outside any section" "n = 10\n[run]\nmodel = supermarket\n"
bad noeq     "noeq.ini:4: .n 10. is neither .key = value." "${head}n 10\n"
bad header   "header.ini:1: .\[run. is not a section header" "[run\nmodel = supermarket\n"
bad nokey    "nokey.ini:4: .. is not a key" "${head}= 10\n"
bad twowords "twowords.ini:4: .my n. is not a key" "${head}my n = 10\n"
bad section  "section.ini:4: \[cluster\]: unknown section; accepted: \[run\], \[supermarket\]" "${head}[cluster]\nm = 3\n"
bad runkey   "runkey.ini:3: \[run\] frobnicate: unknown key" "[run]\nmodel = supermarket\nfrobnicate = 1\n"
bad param    "param.ini:4: \[supermarket\] bogus: not a parameter of model 'supermarket'" "${head}bogus = 3\n"
bad value    "value.ini:6: \[supermarket\] lambda: 'abc' is not a number" "${head}n = 10\nL = 2\nlambda = abc\n"
bad range    "range.ini:4: \[supermarket\] n: 0 is out of range" "${head}n = 0\n"
bad hex      "hex.ini:4: \[supermarket\] n: '0x10' is not an integer" "${head}n = 0x10\n"
bad empty    "empty.ini:4: \[supermarket\] n: an empty item in '1,,2'" "${head}n = 1,,2\n"
bad novalue  "novalue.ini:4: \[supermarket\] n: no value given" "${head}n =\n"
bad reps     "reps.ini:3: \[run\] replications: '0x10' is not accepted" "[run]\nmodel = supermarket\nreplications = 0x10\n"
bad seed     "seed.ini:3: \[run\] seed: '1.5' is not accepted" "[run]\nmodel = supermarket\nseed = 1.5\n"
bad prec     "prec.ini:3: \[run\] precision: give --max-replications N" "[run]\nmodel = supermarket\nprecision = 0.01\n"
bad maxrep   "maxrep.ini:3: \[run\] max_replications: applies with --precision only" "[run]\nmodel = supermarket\nmax_replications = 50\n"
bad bool     "bool.ini:3: \[run\] allow_unstable: 'maybe' is not accepted" "[run]\nmodel = supermarket\nallow_unstable = maybe\n"
bad nomodel  "nomodel.ini:1: \[run\] model: missing" "[run]\nseed = 3\n[supermarket]\nn = 10\n"
bad nomodel2 "nomodel2.ini:1: \[run\] model: missing; put .model = NAME. in a \[run\] section" "[supermarket]\nn = 10\n"
bad model    "model.ini:2: \[run\] model: unknown model 'nosuch'" "[run]\nmodel = nosuch\n"
bad zipname  "zipname.ini:3: \[run\] zip: 'nosuch' is not a parameter of model 'supermarket'" "[run]\nmodel = supermarket\nzip = n, nosuch\n"
bad ziptwice "ziptwice.ini:3: \[run\] zip: 'n' is named twice" "[run]\nmodel = supermarket\nzip = n, n\n"
bad zipone   "zipone.ini:3: \[run\] zip: name at least two parameters" "[run]\nmodel = supermarket\nzip = n\n"
bad ziplen   "ziplen.ini:3: \[run\] zip: the zipped lists must be equally long; 'lambda' (line 6) has 3 values, 'n' (line 5) 2" "[run]\nmodel = supermarket\nzip = n, lambda\n[supermarket]\nn = 10, 20\nlambda = 0.1, 0.2, 0.3\n"
# An indented line that looks like a key of its own, one after a blank line, one that continues nothing.
bad indkey   "indkey.ini:5: .L = 2. is indented, so it would continue the value of \[supermarket\] n (line 4)" "${head}n = 10\n  L = 2\n"
bad indblank "indblank.ini:6: an indented line continues nothing" "${head}n = 10, 20\n\n  30\n"
bad indhead  "indhead.ini:1: an indented line continues nothing" "  [run]\nmodel = supermarket\n"
bad indsect  "indsect.ini:4: .\[supermarket\]. is indented" "[run]\nmodel = supermarket\nseed = 1\n  [supermarket]\n"
# Bytes that have no place in a text file, including the NUL that used to end a value early.
bad nul      "nul.ini:4: byte 13 of the line is a control character (0x00, NUL)" "${head}lambda = 0.7\0junk\n"
bad ctrl     "ctrl.ini:4: byte 6 of the line is a control character (0x1b)" "${head}n = 1\0330\n"
bad cr       "cr.ini:4: byte 7 of the line is a control character (0x0d)" "${head}n = 10\r20\n"
# A bad value far out on a long line (libinih cut lines at 199 characters): the line is named.
bad longbad  "longbad.ini:4: \[supermarket\] n: 'x' is not an integer" "${head}n = $(seq -s ', ' 10 89), x\n"
bad wrapbad  "wrapbad.ini:4: \[supermarket\] n: 'x' is not an integer" "${head}n = 10, 20,\n    30, x\n"
mkdir dir.ini
expect 2 "'dir.ini' is not a regular file but a directory; a sweep file must be a regular file" -- run dir.ini --dry-run
expect 2 "cannot read the sweep file" -- run missing.ini --dry-run
# The same refusals without --dry-run.
expect 2 "dup.ini:5: \[supermarket\] n: given twice (lines 4 and 5)" -- run dup.ini
expect 2 "ziplen.ini:3: \[run\] zip: the zipped lists must be equally long" -- run ziplen.ini
# A zipped list overridden alone from the command line: the message says where each came from.
printf '[run]\nmodel = supermarket\nzip = n, arrivals\n[supermarket]\nn = 10, 20\narrivals = 100, 200\n' > zipover.ini
expect 2 "zipover.ini:3: \[run\] zip: the zipped lists must be equally long; 'arrivals' (line 6) has 2 values, 'n' (on the command line) 1 (a command line that changes one zipped list gives the others too" -- run zipover.ini --n 50

# dry FILE WANT: storq run FILE --dry-run prints exactly WANT (a grep -x pattern per line, in order).
listing() { "$storq" run "$1" --dry-run 2>&1; }
check() { # NAME CONDITION-DESCRIPTION COMMAND...
  local name=$1 what=$2; shift 2
  if "$@"; then echo "ok: $name: $what"; else echo "FAIL: $name: $what"; failures=$((failures + 1)); fi
}
points() { listing "$1" | grep -c '^point '; }
field() { listing "$1" | grep '^point ' | grep -o " $2=[^ ]*" | cut -d= -f2 | paste -sd' '; }

# Read as written: an 80-value list on one 400-character line (libinih ran 31 of 80 points).
printf "${head}n = %s\n" "$(seq -s ', ' 10 89)" > long.ini
check long "80 points from a 400-character line" [ "$(points long.ini)" = 80 ]
# A list wrapped over indented lines, comments between them, an inline comment.
printf "${head}n = 10, 20,\n    30, 40 ; more below\n  ; a comment inside the list\n\t50\nlambda = 0.5 # inline\n" > wrap.ini
check wrap "n = 10 20 30 40 50" [ "$(field wrap.ini n)" = "10 20 30 40 50" ]
check wrap "lambda = 0.5 each" [ "$(field wrap.ini lambda)" = "0.5 0.5 0.5 0.5 0.5" ]
# A comment longer than 199 characters ending in `lambda = 0.95` sets nothing.
printf "${head}; note: %slambda = 0.95\n" "$(printf 'x%.0s' $(seq 300))" > comment.ini
check comment "a long comment sets nothing (lambda stays 0.9)" [ "$(field comment.ini lambda)" = 0.9 ]
# CRLF line ends and a UTF-8 byte-order mark, as some editors write them.
printf '\xef\xbb\xbf[run]\r\nmodel = supermarket\r\n[supermarket]\r\nn = 10, 20\r\n' > crlf.ini
check crlf "CRLF and BOM" [ "$(field crlf.ini n)" = "10 20" ]
# A ; or # inside a value (not after a blank) is part of it.
printf '[run]\nmodel = supermarket\noutput = a#b;c.h5\n' > hash.ini
check hash "output a#b;c.h5 kept" [ "$(listing hash.ini | head -n 1 | sed 's/.* output=//')" = 'a#b;c.h5' ]
# --dry-run writes nothing (and so does not mind an existing output file).
touch long.h5
check dryrun "writes nothing" [ "$(listing long.ini | head -c 4; ls | grep -c '\.h5')" = "run:1" ]
check dryrun "long.h5 untouched" [ ! -s long.h5 ]
# Every sweep file shipped in jobs/sweeps still reads (and to as many points as its lists say).
declare -A want=([cluster-convergence]=5 [cluster-bs-wf]=6 [cluster-chunk-law]=8 [cluster-chunk]=7
                 [cluster-coding]=12 [cluster-size]=1 [forkjoin-correlation]=30 [forkjoin-fixed-rate]=18
                 [forkjoin-cdf]=6 [forkjoin-fig7]=36 [forkjoin-fig11]=36
                 [forkjoin-groups]=45 [forkjoin-service]=30 [forkjoin-storage-tradeoff]=30
                 [supermarket-convergence]=4 [proxy-fig5]=12 [proxy-fig5-k1]=12 [proxy-fig6-7]=11 [proxy-read-write]=21 [proxy-table1]=120 [proxy-two-classes]=3
                 [threads-fig2]=36 [threads-fig3]=7 [threads-fig4]=9)
for f in "$here"/jobs/sweeps/*.ini; do
  name=$(basename "$f" .ini)
  check "$name" "${want[$name]:-?} points" [ "$(points "$f")" = "${want[$name]:-none}" ]
done

# Time scales a double cannot resolve (docs/sweep-files.md#time-scales): refused (exit 2) when the
# clock's rounding exceeds 1e-3 of the shortest mean time, warned above 1e-6; `storq theory`
# prepares the point as a run does. forkjoin --lambda 1e-12 used to run to a mean response 0.0103
# instead of 0.0428; 1e-300 to 0.
scales() { # STATUS PATTERN ARGS...: storq theory ARGS exits STATUS with PATTERN on stderr
  local want=$1 pattern=$2; shift 2
  local err status
  err=$("$storq" theory "$@" 2>&1 >/dev/null); status=$?
  if [ $status -eq "$want" ] && grep -q -- "$pattern" <<<"$err"; then
    echo "ok: theory $* -> $status: $(head -n 1 <<<"$err")"
  else
    echo "FAIL: theory $* -> $status (want $want, '$pattern'): $err"; failures=$((failures + 1))
  fi
}
refuse="event times reach about .* (above 0.001 is refused"
warn="event times reach about .*(warned above 1e-06, refused above 0.001)"
scales 2 "forkjoin: --lambda/--mu: $refuse" forkjoin --lambda 1e-12
scales 2 "forkjoin: --lambda/--mu: $refuse" forkjoin --lambda 1e-300
scales 0 "forkjoin: --lambda/--mu: .*only to 1.4e-05 of that time" forkjoin --lambda 1e-6
scales 2 "supermarket: --lambda/--n/--service: $refuse" supermarket --n 10 --lambda 1e-12
scales 0 "warning: supermarket: --lambda/--n/--service: $warn" supermarket --n 10 --lambda 1e-9 --warmup 0 --arrivals 1000
scales 2 "cluster: --lambda/--mu: $refuse" cluster --lambda 1e-12
scales 0 "warning: cluster: --lambda/--mu: $warn" cluster --lambda 1e-9
scales 2 "proxy: --lambda/--delay (or --classes): $refuse" proxy --lambda 1e-12
scales 0 "warning: proxy: --lambda/--delay (or --classes): $warn" proxy --lambda 1e-7
scales 2 "threads: --rho/--download: $refuse" threads --rho 1e-12
scales 0 "warning: threads: --rho/--download: $warn" threads --rho 1e-9
for model in $("$storq" models | awk '{print $1}'); do # every model's defaults: no warning
  out=$("$storq" theory $model 2>&1 >/dev/null)
  check "$model" "defaults: no time-scale warning" [ -z "$out" ]
done
# A run is refused the same way, before any file exists.
expect 2 "forkjoin: --lambda/--mu: $refuse" -- run forkjoin --lambda 1e-12 -r 2

echo "$failures failure(s)"
[ $failures -eq 0 ]
