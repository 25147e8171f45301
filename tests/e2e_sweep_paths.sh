#!/usr/bin/env bash
# Relative paths in a sweep file (output in [run], trace:PATH in any law, in `classes` and in
# [class.NAME] sections) name files beside the sweep file, whatever the current directory; the
# results file's /run/config records the trace by its absolute path; values on the command line
# stay relative to the current directory and override the file's; the stored command line pastes
# back. Usage: e2e_sweep_paths.sh STORQ PYTHON
set -uo pipefail
storq=$(realpath "$1"); py=$2; here=$(dirname "$(realpath "$0")")
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT; cd "$work"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
pass() { echo "ok: $*"; }
# dry PATTERN ARGS...: storq run ARGS --dry-run succeeds and prints PATTERN
dry() {
  local pattern=$1; shift
  local out; out=$("$storq" run "$@" --dry-run 2>&1) || { fail "storq run $* --dry-run: $out"; return; }
  grep -qF -- "$pattern" <<<"$out" && pass "storq run $* --dry-run shows $pattern" || fail "storq run $* --dry-run lacks '$pattern': $out"
}

mkdir -p proj/data proj/out elsewhere
printf '0.4\n1.0\n1.6\n0.7\n1.3\n' > proj/data/s.txt
abs=$(realpath proj)
cat > proj/sw.ini <<'INI'
[run]
model = proxy
replications = 2
seed = 4
output = out/res.h5

[proxy]
L = 4
lambda = 0.5
delay = trace:data/s.txt
warmup = 200
arrivals = 2000
INI

cd elsewhere
# A run from another directory reads proj/data/s.txt and writes proj/out/res.h5.
if "$storq" run ../proj/sw.ini --quiet > run.log 2>&1; then
  [ -f ../proj/out/res.h5 ] && [ ! -e out ] && pass "output = out/res.h5 lands beside the sweep file" || fail "the output is not in proj/out: $(ls -R .. | head)"
else
  fail "storq run ../proj/sw.ini from another directory: $(cat run.log)"
fi
config=$("$py" -c "import h5py, sys; v = h5py.File(sys.argv[1])['run/config'][()]; print(v.decode() if isinstance(v, bytes) else v)" ../proj/out/res.h5)
grep -qxF "delay = trace:$abs/data/s.txt" <<<"$config" && pass "/run/config records trace:$abs/data/s.txt" || fail "/run/config: $config"
# The same file from the sweep file's own directory: the same run, bit for bit.
(cd ../proj && "$storq" run sw.ini -o out/here.h5 --quiet) && "$py" "$here/compare_h5.py" ../proj/out/res.h5 ../proj/out/here.h5 >/dev/null \
  && pass "run from the sweep file's directory: the same file" || fail "runs from two directories differ"

# Every law parameter, in each model; an absolute path is kept.
printf '[run]\nmodel = supermarket\n[supermarket]\nservice = trace:data/s.txt, trace:%s/data/s.txt\n' "$abs" > ../proj/sm.ini
dry "service=trace:$abs/data/s.txt" ../proj/sm.ini
out=$("$storq" run ../proj/sm.ini --dry-run 2>&1); [ "$(grep -c "service=trace:$abs/data/s.txt " <<<"$out")" -eq 2 ] && pass "an absolute trace is unchanged" || fail "absolute trace: $out"
printf '[run]\nmodel = forkjoin\n[forkjoin]\nservice = trace:data/s.txt\n' > ../proj/fj.ini
dry "service=trace:$abs/data/s.txt" ../proj/fj.ini
printf '[run]\nmodel = threads\n[threads]\ndownload = trace:data/s.txt\ninterarrival = trace:data/s.txt\n' > ../proj/th.ini
dry "interarrival=trace:$abs/data/s.txt download=trace:$abs/data/s.txt" ../proj/th.ini
printf '[run]\nmodel = cluster\n[cluster]\nchunk_dist = trace:data/s.txt\n' > ../proj/cl.ini
dry "chunk_dist=trace:$abs/data/s.txt" ../proj/cl.ini
# Inside `classes`: the law field only (a class may be named trace), each class.
printf '[run]\nmodel = proxy\n[proxy]\nclasses = trace:0.5:3:6:trace:data/s.txt|w:0.5:2:4:shexp:0.1,5\n' > ../proj/pc.ini
dry "classes=trace:0.5:3:6:trace:$abs/data/s.txt|w:0.5:2:4:shexp:0.1,5" ../proj/pc.ini
# [class.NAME] sections.
cat > ../proj/cs.ini <<'INI'
[run]
model = proxy
[class.read]
share = 0.9
k = 3
nmax = 6
delay = trace:data/s.txt
[class.write]
share = 0.1
k = 2
nmax = 4
delay = trace:data/s.txt
INI
dry "classes=read:0.9:3:6:trace:$abs/data/s.txt|write:0.1:2:4:trace:$abs/data/s.txt" ../proj/cs.ini
# A sweep file in the current directory: its traces are recorded by their absolute path too.
(cd ../proj && "$storq" run sw.ini --dry-run | grep -qF "delay=trace:$abs/data/s.txt") && pass "sweep file in the current directory" || fail "sweep file in the current directory"

# The command line is the shell's: its relative paths stay relative to the current directory,
# and its values override the file's.
dry "delay=trace:data/s.txt" ../proj/sw.ini --delay trace:data/s.txt
out=$("$storq" run ../proj/sw.ini --delay trace:data/s.txt -o x.h5 2>&1); status=$?
[ $status -eq 2 ] && grep -qF "cannot read trace file 'data/s.txt'" <<<"$out" && pass "a command-line trace is read from the current directory" || fail "command-line trace: $status $out"
dry "L=2 lambda=0.3" ../proj/sw.ini --L 2 --lambda 0.3
dry "output=x.h5" ../proj/sw.ini -o x.h5
# A missing trace is named by where storq looked, and the sweep file's line.
printf '[run]\nmodel = supermarket\n[supermarket]\nservice = trace:nodata.txt\n' > ../proj/miss.ini
out=$("$storq" run ../proj/miss.ini -r 2 2>&1); status=$?
[ $status -eq 2 ] && grep -qF "cannot read trace file '$abs/nodata.txt'" <<<"$out" && [ ! -e ../proj/miss.h5 ] && pass "a missing trace: exit 2, its resolved path" || fail "missing trace: $status $out"

# The stored command line pastes back: the same points.
"$storq" run ../proj/sw.ini --quiet --arrivals '1000 2000' --lambda "0.3, 0.4" -o 'it'"'"'s here.h5' >/dev/null || fail "run with quoted arguments"
line=$("$storq" info "it's here.h5" | sed -n 's/^  command_line *//p')
[ -n "$line" ] || fail "storq info shows no command line"
want=$("$storq" run ../proj/sw.ini --arrivals '1000 2000' --lambda "0.3, 0.4" -o "it's here.h5" --dry-run)
got=$(storq() { "$storq" "$@"; }; eval "$line --dry-run")
[ -n "$want" ] && [ "$want" = "$got" ] && pass "storq info's command line pastes back: $line" || fail "pasted command line: $line -> $got"

[ "$failures" -eq 0 ] && echo "all path checks passed" || { echo "$failures failure(s)"; exit 1; }
