#!/usr/bin/env bash
# The shipped trace jobs/traces/s3-like-read.txt is what jobs/traces/make_trace.py makes: regenerate
# it and compare byte for byte; and it reads as documented: 20000 numbers >= 0.05 (seconds), whose
# values without the worst 0.1% fit the paper's Delta + Exp as Delta ~ 0.05 s, 1/mu ~ 0.08 s.
set -euo pipefail
python=$1; here=$(cd "$(dirname "$0")" && pwd); traces=$here/../jobs/traces
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
"$python" "$traces/make_trace.py" "$work/s3-like-read.txt"
if ! cmp "$work/s3-like-read.txt" "$traces/s3-like-read.txt"; then
  echo "FAIL: jobs/traces/s3-like-read.txt is not what make_trace.py makes (regenerate it)"; exit 1
fi
"$python" - "$traces/s3-like-read.txt" <<'PY'
import sys
vals = [float(l) for l in open(sys.argv[1]) if l.strip() and not l.lstrip().startswith("#")]
assert len(vals) == 20000 and min(vals) >= 0.05, (len(vals), min(vals))
body = sorted(vals)[:-20]
mean = sum(body) / len(body)
sd = (sum((v - mean) ** 2 for v in body) / len(body)) ** 0.5
print(f"{len(vals)} delays, largest {max(vals):.3f} s; without the worst 0.1%: Delta {mean - sd:.4f} s, 1/mu {sd:.4f} s")
assert abs(mean - sd - 0.05) < 0.003 and abs(sd - 0.08) < 0.003, (mean, sd)
PY
echo "ok: the shipped trace is make_trace.py's output"
