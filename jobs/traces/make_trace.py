#!/usr/bin/python3
"""Write jobs/traces/s3-like-read.txt: a synthetic trace of task delays standing in for the S3
read delays the FAST CLOUD paper measured (1 MB chunks, March 2012), which it does not publish.

The body is the paper's model, Delta + Exp(mean TAU), with Delta = 0.05 s and TAU = 0.08 s: the
values that put the (n,3) codes' mean service delays D_s(n) = Delta + TAU (1/n + ... + 1/(n-2))
where the paper's Fig. 5 shows them at low load (about 200 ms for n = 3, under 150 ms for n = 4,
about 100 ms for n = 6): a small fixed part and a long exponential spread, shift ratio
Delta / (Delta + TAU) = 0.38. Exactly 0.1% of the values (TAIL_COUNT of COUNT) are stragglers,
drawn from a Pareto law of shape ALPHA = 2 starting at the body's 99.9th percentile
(Delta + TAU ln 1000 = 0.603 s): the heavier tail the paper's fit removes ("we first filter out
the worst 0.1% task delays") but its simulations keep.

Only uniform doubles of numpy's PCG64 (seed SEED) are used, each turned into a delay by an explicit
inverse distribution function, and values are written rounded to the microsecond: the file is the
same on every machine (tests/e2e_proxy_trace.sh regenerates it and compares).

    /usr/bin/python3 jobs/traces/make_trace.py [OUT]     (default: next to this script)
"""
import math
import os
import sys

import numpy as np

SEED = 20120301
COUNT = 20000
TAIL_COUNT = 20                      # 0.1% of COUNT
DELTA, TAU = 0.05, 0.08              # seconds
ALPHA = 2.0
TAIL_START = DELTA + TAU * math.log(1000.0)


def delays():
    rng = np.random.Generator(np.random.PCG64(SEED))
    body = rng.random(COUNT)          # uniforms for the body
    tail = rng.random(TAIL_COUNT)     # uniforms for the stragglers
    where = rng.random(COUNT)         # the stragglers' places: the TAIL_COUNT smallest
    values = [DELTA - TAU * math.log1p(-float(u)) for u in body]
    places = sorted(np.argsort(where, kind="stable")[:TAIL_COUNT].tolist())
    for place, u in zip(places, tail):
        values[place] = TAIL_START * (1.0 - float(u)) ** (-1.0 / ALPHA)
    return values


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(
        os.path.abspath(__file__)), "s3-like-read.txt")
    with open(out, "w") as f:
        f.write("# storq task-delay trace: one delay per line, in seconds; '#' starts a comment.\n")
        f.write("# Synthetic, standing in for S3 read delays of 1 MB chunks (FAST CLOUD, Fig. 5).\n")
        f.write(f"# Made by jobs/traces/make_trace.py (seed {SEED}): {COUNT} values, the body\n")
        f.write(f"# {DELTA} + Exp(mean {TAU}), exactly {TAIL_COUNT} of them ({TAIL_COUNT / COUNT:.1%})\n")
        f.write(f"# Pareto(shape {ALPHA:g}) from {TAIL_START:.6f} s. Do not edit: regenerate.\n")
        for v in delays():
            f.write(f"{v:.6f}\n")


if __name__ == "__main__":
    main()
