#!/usr/bin/env bash
# A sweep file's lists expand to their Cartesian product; h5py and pandas read the result; the
# lists given on the command line do the same; `storq info` and `storq theory` work on it.
set -euo pipefail
storq=$1; python=$2; here=$(dirname "$0"); work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
cd "$work"
cat > sweep.ini <<'INI'
; a comment
[run]
model = supermarket
replications = 3
seed = 5

[supermarket]
n = 20, 40
L = 2
k = 1
lambda = 0.5 0.8
warmup = 1000
arrivals = 10000
INI
"$storq" run sweep.ini --quiet
[ -f sweep.h5 ] || { echo "FAIL: default output name sweep.h5 missing"; exit 1; }
"$storq" run supermarket --n 20,40 --L 2 --k 1 --lambda 0.5,0.8 --warmup 1000 --arrivals 10000 -r 3 --seed 5 -o flags.h5 --quiet
"$python" - <<'PY'
import h5py, pandas as pd
for name in ("sweep.h5", "flags.h5"):
    f = h5py.File(name, "r")
    idx = pd.DataFrame(f["/points/index"][()])
    assert len(idx) == 4, idx
    assert list(idx["n"]) == [20, 20, 40, 40], idx
    assert list(idx["lambda"]) == [0.5, 0.8, 0.5, 0.8], idx
    for p in range(4):
        g = f[f"/points/{p:06d}"]
        assert g.attrs["status"] in (b"complete", "complete")
        assert g.attrs["n"] == idx["n"][p] and g.attrs["lambda"] == idx["lambda"][p]
        u = g["observables/u/mean"][()]
        assert abs(u[1] - idx["lambda"][p]) < 0.1, (p, u[:3])
print("sweep and flags both give 4 points in product order with matching attributes")
PY
"$python" "$here/compare_h5.py" sweep.h5 flags.h5
# Options before the model, parameters in any order, --name=value: the same run.
"$storq" run -o before.h5 --quiet -r 3 --seed 5 supermarket --lambda=0.5,0.8 --n 20,40 --L 2 --k 1 --warmup 1000 --arrivals 10000
"$python" "$here/compare_h5.py" flags.h5 before.h5
# A sweep file's values overridden from the command line: --n 60 replaces its list, -r its count.
"$storq" run sweep.ini --n 60 -r 2 -o override.h5 --quiet
"$python" - <<'PY'
import h5py
f = h5py.File("override.h5", "r")
assert list(f["/points/index"]["n"]) == [60, 60], f["/points/index"][()]
assert int(f.attrs["replications"]) == 2
print("command-line values override the sweep file's")
PY
# The stored command line is shell-quoted, so it can be pasted back.
"$storq" run supermarket --n 20 --L 2 --k 1 --lambda 0.5 --warmup 1000 --arrivals 10000 -r 3 --seed 5 --service ' exp:1' -o 'quoted name.h5' --quiet
"$python" - <<'PY'
import h5py, shlex
line = h5py.File("quoted name.h5", "r").attrs["command_line"]
line = line.decode() if isinstance(line, bytes) else line
argv = shlex.split(line)
assert argv[-4:] == [" exp:1", "-o", "quoted name.h5", "--quiet"], argv
print("command line stored shell-quoted:", line)
PY
"$python" "$here/check_h5_schema.py" sweep.h5
"$storq" info sweep.h5 > info.txt
grep -q "supermarket" info.txt && grep -q "lambda" info.txt || { echo "FAIL: storq info"; cat info.txt; exit 1; }
"$storq" theory supermarket --L 2 --k 1 --lambda 0.9 > theory.txt
grep -q "u_upper" theory.txt || { echo "FAIL: storq theory"; cat theory.txt; exit 1; }
"$storq" models supermarket | grep -q "lambda" || { echo "FAIL: storq models"; exit 1; }
echo "sweep, info, theory and models work"
