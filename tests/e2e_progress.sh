#!/usr/bin/env bash
# Progress a person can watch: in a log (stderr not a terminal) one full line per
# STORQ_PROGRESS_INTERVAL, several of them while a single long replication is still running, with
# the events growing and a plausible ETA; on a terminal (through `script`, skipped without it) one
# live line rewritten with \r and ended by a newline; --quiet prints none; across two ranks the
# last line counts rank 1's events too; and the results are the same bits with progress or without.
set -euo pipefail
storq=$1; python=$2; here=$(cd "$(dirname "$0")" && pwd); work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT; cd "$work"
fail() { echo "FAIL: $*"; exit 1; }
long=(run supermarket --n 1000 --L 2 --k 1 --lambda 0.9 --warmup 1000 --arrivals 40000000 -r 1
      --seed 3)

# 1. A log: one replication of several seconds, a line every 0.5 s.
t0=$(date +%s.%N)
OMP_NUM_THREADS=1 STORQ_PROGRESS_INTERVAL=0.5 "$storq" "${long[@]}" -o log.h5 > out.txt 2> err.txt
took=$(echo "$(date +%s.%N) - $t0" | bc)
echo "log run: $took s"; cat err.txt
"$python" - "$took" <<'PY'
import re, sys
took = float(sys.argv[1])
text = open("err.txt", "rb").read().decode()
assert "\r" not in text, "a log gets full lines, no \\r"
line = re.compile(r"^storq: points (\d+)/1, reps (\d+)/1, ([\d.]+)([kMGT]?) events, \S+ ev/s, "
                  r"elapsed (\d+):(\d\d), ETA (\d+):(\d\d)$")
scale = {"": 1, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}
during = []
for s in text.splitlines():
    m = line.match(s)
    if m and m.group(2) == "0":  # the replication is not in yet
        during.append((float(m.group(3)) * scale[m.group(4)],
                       60 * int(m.group(5)) + int(m.group(6)), 60 * int(m.group(7)) + int(m.group(8))))
assert len(during) >= 3, f"{len(during)} progress lines while the replication ran, expected several"
events = [e for e, _, _ in during]
assert all(a < b for a, b in zip(events, events[1:])), f"events do not grow: {events}"
# the ETA: elapsed + ETA predicts the run's length (times are whole seconds; the machine is shared)
for e, el, eta in during:
    if el >= 1:
        assert took / 3 - 1.5 <= el + eta <= 3 * took + 1.5, \
            f"elapsed {el} s + ETA {eta} s is not near the run's {took:.1f} s"
assert re.search(r"^storq: points 1/1, reps 1/1, .* done in \d+:\d\d$", text, re.M), "no last line"
print(f"{len(during)} lines during the replication, events {events[0]:.3g} .. {events[-1]:.3g}")
PY

# 2. --quiet prints no progress, even at interval 0; the bits are the same either way.
short=(run supermarket --n 1000 --L 2 --k 1 --lambda 0.9 --warmup 1000 --arrivals 3000000 -r 3
       --seed 5)
OMP_NUM_THREADS=2 STORQ_PROGRESS_INTERVAL=0 "$storq" "${short[@]}" -o quiet.h5 --quiet \
  > /dev/null 2> quiet.err
grep -q "storq: points" quiet.err && fail "--quiet printed progress: $(cat quiet.err)"
OMP_NUM_THREADS=2 STORQ_PROGRESS_INTERVAL=0 "$storq" "${short[@]}" -o shown.h5 > /dev/null 2> shown.err
grep -q "storq: points 0/1" shown.err || fail "no progress at interval 0: $(cat shown.err)"
"$python" "$here/compare_h5.py" quiet.h5 shown.h5

# 3. Two ranks: rank 0's last line counts the events of rank 1's replications as well.
if command -v mpirun > /dev/null; then
  OMP_NUM_THREADS=1 STORQ_PROGRESS_INTERVAL=0.2 mpirun -np 2 "$storq" "${short[@]}" -o mpi.h5 \
    > /dev/null 2> mpi.err
  cat mpi.err
  "$python" "$here/compare_h5.py" quiet.h5 mpi.h5
  "$python" - <<'PY'
import re, h5py
text = open("mpi.err").read()
m = re.search(r"^storq: points 1/1, reps 3/3, ([\d.]+)([kMGT]?) events, .* done in", text, re.M)
assert m, "no last line"
shown = float(m.group(1)) * {"": 1, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}[m.group(2)]
units = h5py.File("mpi.h5", "r")["run/units"][()]
ranks = set(int(r) for r in units["rank"])
total = float(units["events"].sum())
assert ranks == {0, 1}, f"both ranks ran replications: {ranks}"
assert abs(shown - total) <= 0.01 * total, f"last line {shown:.4g} events, the units {total:.4g}"
print(f"two ranks: the last line's {shown:.3g} events match the units' {total:.4g}")
PY
else
  echo "mpirun not found: the two-rank part is skipped"
fi

# 4. A terminal: `script` gives the run a pseudo-terminal.
if ! command -v script > /dev/null; then
  echo "script not found: the terminal part cannot run (skipped)"; exit 77
fi
# The live line starts after 3 s: the run is made to last about 6.5 s whatever the machine's speed
# (the log run above measured it). If the machine has sped up since (a load gone), a run shorter
# than 5.5 s (3 s, 2 intervals, and start-up and file writing under load) may not show 2 live lines:
# it is run again, longer, scaled by its own length, rather than judged.
scaled() { "$python" -c "import math, sys; print(int(sys.argv[1]) * max(1, math.ceil(6.5 / float(sys.argv[2]))))" "$1" "$2"; }
tty_arrivals=$(scaled 40000000 "$took")
for attempt in 1 2 3; do
  tty=(); prev=
  for a in "${long[@]}"; do
    if [ "$prev" = --arrivals ]; then tty+=("$tty_arrivals"); else tty+=("$a"); fi
    prev=$a
  done
  printf -v cmd '%q ' env OMP_NUM_THREADS=1 STORQ_PROGRESS_INTERVAL=0.5 "$storq" "${tty[@]}" \
    -o tty.h5
  rm -f tty.h5 tty.txt
  t0=$(date +%s.%N)
  script -qec "$cmd 2>&1 >/dev/null" tty.txt > /dev/null
  tty_took=$(echo "$(date +%s.%N) - $t0" | bc)
  (( $(echo "$tty_took >= 5.5" | bc) )) && break
  echo "terminal run: $tty_took s with $tty_arrivals arrivals, too short to judge; again, longer"
  [ $attempt -lt 3 ] || fail "the terminal run always took under 5.5 s"
  tty_arrivals=$(scaled "$tty_arrivals" "$tty_took")
done
echo "terminal run: $tty_took s"
"$python" - <<'PY'
import re
text = open("tty.txt", "rb").read().decode()
live = re.findall(r"\rstorq: points 0/1, reps 0/1, [^\r\n]*ETA", text)
assert len(live) >= 2, f"{len(live)} live lines: {text!r}"
# the final line is padded with spaces over what is left of a longer live line
assert re.search(r"\rstorq: points 1/1, reps 1/1, [^\r\n]*done in \d+:\d\d *\r?\n", text), \
    f"the live line does not end with a newline: {text[-300:]!r}"
print(f"terminal: {len(live)} live updates rewritten with \\r, ended by a newline")
PY
echo "progress: ok"
