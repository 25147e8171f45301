#!/usr/bin/env bash
# Standard output whose reader went away (storq run ... | head, a pager quit early): a run and a
# merge go on and finish their file (SIGPIPE is ignored; a warning on stderr says the report was
# cut short, exit 0); storq info, whose output is its result, ends by SIGPIPE as filters do, with
# no message (it was once reported as a damaged file, exit 2). The pipe's reader is closed before
# storq starts, so the first write meets it whatever the timing.
set -uo pipefail
storq=$1; python=$2; here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
export OMP_NUM_THREADS=1
args=(supermarket --n 50 --L 2 --lambda 0.5,0.7 --warmup 100 --arrivals 5000 -r 4 --seed 5)
"$storq" run "${args[@]}" -o plain.h5 > /dev/null || { echo "FAIL: a plain run"; exit 1; }
"$python" - "$storq" "$here/compare_h5.py" "${args[@]}" <<'PY'
import os, signal, subprocess, sys

storq, compare, args = sys.argv[1], sys.argv[2], sys.argv[3:]
failures = 0


def closed_pipe(cmd):
    """cmd with its standard output a pipe whose reader is already gone."""
    r, w = os.pipe()
    os.close(r)
    try:
        return subprocess.run(cmd, stdout=w, stderr=subprocess.PIPE, text=True)
    finally:
        os.close(w)


def check(what, ok, detail=""):
    global failures
    print(f"{'ok' if ok else 'FAIL'}: {what}{'' if ok else ': ' + detail}")
    failures += not ok


p = closed_pipe([storq, "run", *args, "-o", "cut.h5"])
check("run into a closed pipe: exit 0 and the warning",
      p.returncode == 0 and "the report could not all be written" in p.stderr,
      f"status {p.returncode}, stderr {p.stderr!r}")
check("its file is complete, no partial or lock left",
      os.path.exists("cut.h5") and not os.path.exists("cut.h5.partial")
      and not os.path.exists("cut.h5.lock"), str(os.listdir(".")))
same = subprocess.run([sys.executable, compare, "plain.h5", "cut.h5"], capture_output=True,
                      text=True)
check("and the same as the run whose report was read", same.returncode == 0, same.stdout[-300:])

p = closed_pipe([storq, "merge", "merged.h5", "plain.h5"])
check("merge into a closed pipe: exit 0, the merged file written",
      p.returncode == 0 and os.path.exists("merged.h5") and not os.path.exists("merged.h5.lock"),
      f"status {p.returncode}, stderr {p.stderr!r}")

p = closed_pipe([storq, "info", "plain.h5"])
check("info into a closed pipe: ended by SIGPIPE, no message",
      p.returncode == -signal.SIGPIPE and not p.stderr, f"status {p.returncode}, stderr {p.stderr!r}")
sys.exit(1 if failures else 0)
PY
