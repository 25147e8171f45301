"""Each model at time scales 1e-200 and 1e200 against the same run (same seed) at scale 1: every
replicated observable's mean and ci95 equal up to the scale factor (a power of it: times,
rates, dimensionless), to within rounding; and a ci95 > 0 stays > 0 (it underflowed to 0 when
the variance was summed in seconds). Usage: scale_invariance.py STORQ WORKDIR"""
import math
import os
import re
import subprocess
import sys

import h5py

storq, work = sys.argv[1], sys.argv[2]
os.makedirs(work, exist_ok=True)


def fmt(x):
    return repr(float(x))


# each model's rates and time laws at time scale s (times multiplied by s)
MODELS = {
    "supermarket": lambda s: ["--n", "10", "--lambda", fmt(0.7 / s), "--service",
                              "exp:" + fmt(1 / s), "--warmup", "2000", "--arrivals", "20000"],
    "cluster": lambda s: ["--lambda", fmt(70 / s), "--mu", fmt(1 / s)],
    "forkjoin": lambda s: ["--lambda", fmt(1 / s), "--mu", fmt(3 / s)],
    "proxy": lambda s: ["--lambda", fmt(2 / s), "--delay",
                        "shexp:%s,%s" % (fmt(0.2 * s), fmt(1.25 / s))],
    "threads": lambda s: ["--download", "exp:" + fmt(50 / s)],
}
# 1e200 may be refused up front (exit 2: a law's variance, 1e400, overflows a double): that is
# not an accepted time scale, and 1e150 stands in for it
SCALES = [1e-200, 1e150, 1e200]


def run(model, s):
    out = os.path.join(work, "%s_%g.h5" % (model, s))
    cmd = [storq, "run", model, *MODELS[model](s), "-r", "4", "--seed", "7", "-o", out,
           "--force", "--quiet", "--allow-unstable"]
    p = subprocess.run(cmd, capture_output=True, text=True,
                       env=dict(os.environ, OMP_NUM_THREADS="1"))
    if p.returncode == 2 and s == 1e200 and "overflows" in p.stderr:
        print("%s at scale %g refused: %s" % (model, s, p.stderr.strip().splitlines()[0]))
        return None, p.stderr
    if p.returncode != 0:
        sys.exit("%s: exit %d\n%s" % (" ".join(cmd), p.returncode, p.stderr))
    if "steady" in p.stderr and s != 1:
        print("%s at scale %g warns: %s" % (model, s, p.stderr.strip()))
    values = {}
    with h5py.File(out, "r") as f:
        for pname, point in f["points"].items():
            if not isinstance(point, h5py.Group):
                continue
            for name, g in point["observables"].items():
                # quantiles (NAME_p99) are read off histograms whose bins are fixed in time
                # (1e-20 to 1e20): at 1e-200 they all fall below; not compared
                if re.search(r"_p[0-9]+$", name):
                    continue
                if isinstance(g, h5py.Group) and "ci95" in g and "mean" in g:
                    values[pname + "/" + name] = (g["mean"][()], g["ci95"][()])
    return values, p.stderr


def close(a, b):
    return a == b or abs(a - b) <= 1e-9 * max(abs(a), abs(b))


failures = []
for model in MODELS:
    base, base_err = run(model, 1.0)
    for s in SCALES:
        scaled, err = run(model, s)
        if scaled is None:
            continue
        if ("steady state" in err) != ("steady state" in base_err):
            failures.append("%s at %g: steady-state warning differs:\n%s" % (model, s, err))
        for key, (m1, c1) in base.items():
            ms, cs = scaled[key]
            for i, (a, b, ca, cb) in enumerate(zip(*map(lambda x: x.ravel(), (m1, ms, c1, cs)))):
                if not (math.isfinite(a) and math.isfinite(ca)):
                    continue
                # the power of s this observable carries: times 1, rates -1, counts 0
                ok = False
                for p in (0, 1, -1):
                    f = s ** p
                    if close(a * f, b) and close(ca * f, cb) and (ca == 0) == (cb == 0):
                        ok = True
                        break
                if not ok:
                    failures.append("%s %s[%d] at scale %g: mean %r ci95 %r, at 1: %r, %r"
                                    % (model, key, i, s, b, cb, a, ca))
    print("%s: %d observables compared at scales %s" % (model, len(base), SCALES))
for line in failures[:400]:
    print("FAIL", line)
sys.exit(1 if failures else 0)
