#!/usr/bin/python3
"""Print, for each point of proxy runs with the four fixed codes, Greedy and BAFEC coupled, the
best fixed code (smallest mean delay over the replications), each adaptive policy's mean delay
divided by it, and the 95% CI of the paired difference (per replication: adaptive - best fixed,
Student t over the replications) as a fraction of the best mean.

    proxy_greedy_table.py FILE.h5 ...
"""
import sys

import h5py
import numpy as np
from scipy.stats import t as student_t


def t975(df):
    return float(student_t.ppf(0.975, df))


def main():
    print("%-28s %7s %6s %-7s %8s | %-24s | %-24s | %s" % (
        "file", "lambda", "load", "best", "mean", "greedy/best (95% CI)", "bafec/best (95% CI)",
        "greedy share n=3"))
    for path in sys.argv[1:]:
        with h5py.File(path, "r") as f:
            for name in sorted(k for k in f["points"] if isinstance(f["points"][k], h5py.Group)):
                p = f["points"][name]
                rep = p["replications"]
                lam = float(p.attrs["lambda"])
                th = p["theory"]
                cap3 = float(th["capacity_estimate"][0])
                fixed = {n: rep[f"fixed{n}_mean_delay"][()] for n in (3, 4, 5, 6)}
                best = min(fixed, key=lambda n: fixed[n].mean())
                b = fixed[best]
                R = len(b)
                cells = []
                for pol in ("greedy", "bafec"):
                    d = rep[f"{pol}_mean_delay"][()] - b
                    half = t975(R - 1) * d.std(ddof=1) / np.sqrt(R)
                    cells.append("%.3f (%+.3f .. %+.3f)" % (1 + d.mean() / b.mean(),
                                                            (d.mean() - half) / b.mean(),
                                                            (d.mean() + half) / b.mean()))
                share3 = float(np.mean(rep["greedy_code_share"][()][:, 2]))
                print("%-28s %7.4g %6.2f n=%-5d %8.4g | %-24s | %-24s | %.3f" % (
                    path.split("/")[-1], lam, lam / cap3, best, b.mean(), cells[0], cells[1],
                    share3))


if __name__ == "__main__":
    main()
