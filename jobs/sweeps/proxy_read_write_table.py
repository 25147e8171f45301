#!/usr/bin/python3
"""The paper's Fig. 10 as a table, from a run of proxy-read-write.ini (two classes read and write,
MBAFEC = bafec, Greedy and the 16 fixed code pairs fixed:NR/NW coupled): per point, the read
share, lambda, the utilisation of MBAFEC, and for MBAFEC and Greedy their delay over the best
fixed pair's, each metric against the pair that is best for it (the paper's baselines):
  avg  alpha_read D_read + alpha_write D_write (the paper's average; Y = mean and 99.9%),
  read, write  the class's own delay (mean and 99.9th percentile, each per replication then
               averaged over replications).
The mean ratios carry the 95% CI of the paired difference (Student t over replications) as a
fraction of the best; the best pair is named NR/NW.

    proxy_read_write_table.py FILE.h5
"""
import sys

import h5py
import numpy as np
from scipy.stats import t as student_t

PAIRS = [(a, b) for a in (3, 4, 5, 6) for b in (3, 4, 5, 6)]


def metric(rep, pol, alpha, what):
    """Per-replication values of one metric of one policy ('avg', 'read' or 'write'; mean or
    p999)."""
    col = "mean_delay" if what[1] == "mean" else "delay_p999"
    if what[0] == "avg":
        return alpha * rep[f"{pol}_read_{col}"][()] + (1 - alpha) * rep[f"{pol}_write_{col}"][()]
    return rep[f"{pol}_{what[0]}_{col}"][()]


def cell(rep, pol, alpha, what):
    vals = {p: metric(rep, f"fixed{p[0]}_{p[1]}", alpha, what) for p in PAIRS}
    best = min(vals, key=lambda p: vals[p].mean())
    b = vals[best]
    d = metric(rep, pol, alpha, what) - b
    text = "%.3f" % (1 + d.mean() / b.mean())
    if what[1] == "mean":
        R = len(d)
        half = float(student_t.ppf(0.975, R - 1)) * d.std(ddof=1) / np.sqrt(R)
        text += " ±%.3f" % (half / b.mean())
    return text + " (%d/%d)" % best


def main():
    whats = [(c, y) for y in ("mean", "p999") for c in ("avg", "read", "write")]
    print("| read share | lambda | util. | policy | " +
          " | ".join("%s %s" % (c, y) for c, y in whats) + " |")
    print("|---:|---:|---:|---|" + "---|" * len(whats))
    with h5py.File(sys.argv[1], "r") as f:
        names = sorted((k for k in f["points"] if isinstance(f["points"][k], h5py.Group)),
                       key=lambda k: int(k.split("_")[-1]))
        for name in names:
            p = f["points"][name]
            rep = p["replications"]
            alpha = read_share(p)
            lam = float(p.attrs["lambda"])
            util = float(np.mean(rep["bafec_utilisation"][()]))
            for pol, label in (("bafec", "MBAFEC"), ("greedy", "Greedy")):
                print("| %.1f | %g | %.2f | %s | %s |" % (
                    alpha, lam, util, label,
                    " | ".join(cell(rep, pol, alpha, w) for w in whats)))


def read_share(point):
    """The read class's share, from the point's classes string (read:SHARE:k:nmax:law|...)."""
    classes = point.attrs["classes"]
    classes = classes.decode() if isinstance(classes, bytes) else str(classes)
    for c in classes.split("|"):
        fields = c.split(":")
        if fields[0] == "read":
            return float(fields[1])
    raise SystemExit("no read class in %r" % classes)


if __name__ == "__main__":
    main()
