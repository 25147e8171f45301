"""Report on a storq results file: print its table and write a self-contained HTML report.

    /usr/bin/python3 -m storq.report FILE.h5 [--html OUT.html | --no-html] [--plot OUT.png]
                                     [--x n] [--name u_l1]

The HTML report (FILE.html beside the file unless --html names another) holds the run's metadata
and configuration, the table of every complete point (scalars with their 95% CIs and the theory
beside them), and the figures that fit the model (storq.figures' plot helpers), PNGs embedded, so
it is one file to mail or archive. --plot saves the convergence plot (NAME against X) when X
varies and the occupancy plot of the last complete point when it has a vector `u`.
"""
import argparse
import os
import sys
from pathlib import Path

import pandas as pd

from .frames import open as open_results
from .results import FormatError


def _summary(r):
    a = r.attrs
    done, total = len(r.points()), len(r.index)
    # A job-array task's file (schema 1.1) holds only its share of the points.
    task = (f", task {a['task_index']}/{a['task_count']} of a job array"
            if a.get("task_count", 1) > 1 else "")
    return (f"{r.path}: model {a.get('model')}, seed {a.get('seed')}, "
            f"{a.get('replications')} replications, {done}/{total} points complete{task} "
            f"(storq {a.get('storq_version')}, {a.get('created')})")


def _panels(r, x, name):
    """Which figures the file supports: [('convergence', ...), ('occupancy', pid)]."""
    panels = []
    table = r.table()
    if name in table and x in table and table[x].nunique() > 1:
        panels.append(("convergence", None))
    points = r.points()
    if points and r.observables(points[-1]).get("u") == "vector":
        panels.append(("occupancy", points[-1]))
    return panels


def save_figure(r, out, x="n", name="u_l1"):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from . import plot

    panels = _panels(r, x, name)
    if not panels:
        raise ValueError(f"nothing to plot: no comparison '{name}' varying with '{x}' and no "
                         "vector 'u'")
    fig, axes = plt.subplots(1, len(panels), figsize=(6 * len(panels), 4.5), squeeze=False)
    for ax, (kind, pid) in zip(axes[0], panels):
        if kind == "convergence":
            plot.convergence(r, x=x, name=name, ax=ax)
        else:
            plot.occupancy(r, pid, ax=ax)
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    plt.close(fig)


_HDF5_SIGNATURE = b"\x89HDF\r\n\x1a\n"


def _not_writable_over(out, results):
    """Why a report or figure may not be written to out, or None: a results file is never
    replaced by a report (`--html run.h5` replaced run.h5 by HTML)."""
    if not out or not os.path.exists(out):
        return None
    try:
        if os.path.exists(results) and os.path.samefile(out, results):
            return "it is the results file itself"
        with open(out, "rb") as f:
            if f.read(8) == _HDF5_SIGNATURE:
                return "it is an HDF5 file (a results file?), which a report never replaces"
    except OSError:
        return None  # the write itself says what is wrong
    return None


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python3 -m storq.report", description=__doc__.split("\n")[0])
    ap.add_argument("file", help="a storq results file (.h5)")
    ap.add_argument("--plot", metavar="OUT.png", help="save the convergence/occupancy figure")
    ap.add_argument("--html", metavar="OUT.html", help="where to write the HTML report (FILE.html)")
    ap.add_argument("--no-html", action="store_true", help="print the table only")
    ap.add_argument("--x", default="n", help="parameter on the convergence plot's x axis")
    ap.add_argument("--name", default="u_l1", help="comparison value on its y axis")
    args = ap.parse_args(argv)
    for stream in (sys.stdout, sys.stderr):  # a path that is not UTF-8 prints escaped
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")
    html_out = None if args.no_html else (args.html or str(Path(args.file).with_suffix(".html")))
    for option, out in (("--html", html_out), ("--plot", args.plot)):
        why = _not_writable_over(out, args.file)
        if why:
            print(f"storq.report: {option} {out}: {why}; name another file", file=sys.stderr)
            return 2
    try:
        with open_results(args.file) as r:
            print(_summary(r))
            with pd.option_context("display.max_columns", None, "display.width", 200):
                print(r.table().to_string(index=False))
            if args.plot:
                save_figure(r, args.plot, x=args.x, name=args.name)
                print(f"figure saved to {args.plot}")
            if not args.no_html:
                from .html import write_html

                write_html(r, html_out)
                print(f"report written to {html_out}")
    except OSError as e:
        print(f"storq.report: {args.file}: {e}", file=sys.stderr)
        return 2
    except (FormatError, KeyError, ValueError) as e:  # DamagedFile is a FormatError
        print(f"storq.report: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
