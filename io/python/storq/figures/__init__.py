"""The papers' key figures, one module per model (storq/figures/<model>.py), drawn from storq runs.

    python3 -m storq.figures [--mode full|quick|ci] [--only MODEL,...] [--out docs/figures]
                             [--storq build/storq] [--work build/figures]

Each module names its MODEL and defines figures(ctx): it runs what it needs (ctx.run: a sweep
file of the repo with the mode's overrides) and draws with ctx.figure(), recording the plotted
series and checks on them (simulation within its CI of exact theory, monotone where the paper's
curve is). A model the storq binary does not know is skipped with a message. The manifest
(OUT/manifest.json) lists every figure with its title, the commands that made its data, the
plotted data and the checks; the exit status is 1 when a check fails.
"""
import importlib
import json
import os
import pkgutil
import shlex
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

MODES = ("full", "quick", "ci")


def repo_root():
    """The repository this package sits in (io/python/storq/figures -> 4 levels up)."""
    return Path(__file__).resolve().parents[4]


def _jsonable(v):
    if hasattr(v, "to_numpy"):  # pandas Series / Index
        v = v.to_numpy()
    if isinstance(v, np.ndarray):
        return [_jsonable(x) for x in v.tolist()]
    if isinstance(v, (list, tuple)):
        return [_jsonable(x) for x in v]
    if isinstance(v, dict):
        return {str(k): _jsonable(x) for k, x in v.items()}
    if isinstance(v, (np.floating, float)):
        v = float(v)
        return v if np.isfinite(v) else None
    if isinstance(v, np.integer):
        return int(v)
    if isinstance(v, np.bool_):
        return bool(v)
    return v


class Context:
    def __init__(self, mode, out, work, storq, root):
        self.mode, self.out, self.work, self.storq, self.root = mode, Path(out), Path(work), storq, Path(root)
        self.out.mkdir(parents=True, exist_ok=True)
        self.work.mkdir(parents=True, exist_ok=True)
        self.records, self.commands = [], {}
        self.model = None

    def pick(self, full, quick, ci):
        """The value for this mode."""
        return {"full": full, "quick": quick, "ci": ci}[self.mode]

    def run(self, name, sweep, **overrides):
        """Run SWEEP (a path relative to the repository, or a model's name) with `--key value` overrides (lists as
        comma-joined strings) into WORK/<name>.h5, reusing it when the same command made it."""
        out = self.work / f"{name}.h5"
        args = [self.storq, "run", str(self.root / sweep) if sweep.endswith(".ini") else sweep]
        for key, value in overrides.items():
            if value is None:
                continue
            flag = "-r" if key == "r" else "--" + key
            if isinstance(value, (list, tuple)):
                value = ",".join(str(v) for v in value)
            args += [flag, str(value)]
        args += ["-o", str(out), "--force", "--quiet"]
        shown = " ".join(shlex.quote(a) for a in
                         ["storq", *[os.path.relpath(a, self.root) if a.startswith(str(self.root)) else a
                                     for a in args[1:-4]], "-o", f"{name}.h5"])
        stamp = self.work / f"{name}.cmd"
        if not (out.exists() and stamp.exists() and stamp.read_text() == " ".join(args)):
            t0 = time.time()
            env = dict(os.environ)
            env.setdefault("OMP_NUM_THREADS", "2")
            subprocess.run(args, check=True, env=env)
            stamp.write_text(" ".join(args))
            print(f"  ran {shown} ({time.time() - t0:.1f} s)", flush=True)
        self.commands[name] = shown
        return out

    def figure(self, fig, stem, title, data, checks, runs, paper, paper_ref=None, caption=None):
        """Save FIG as OUT/<stem>.png and .svg and record its data and checks.
        checks: [(description, bool)]; runs: the run names whose commands made the data;
        paper_ref: what it reproduces, e.g. ["003 Fig. 7"] or ["000 delay vs file size"];
        caption: the gallery's text (numbers in it computed from the plotted data)."""
        import matplotlib.pyplot as plt

        fig.suptitle(title, fontsize="medium")
        fig.tight_layout()
        for ext in ("png", "svg"):
            fig.savefig(self.out / f"{stem}.{ext}", dpi=110)
        plt.close(fig)
        return self._record("figure", stem, title, data, checks, runs, paper, paper_ref, caption)

    def table(self, stem, title, columns, rows, runs, paper_ref, caption, checks=(), digits=4):
        """Write a generated table as OUT/<stem>.md (markdown, what the docs quote) and
        OUT/<stem>.csv (full precision), and record it like a figure. rows: lists of values."""
        import csv

        def cell(v):
            if isinstance(v, (float, np.floating)):
                return "-" if np.isnan(v) else f"{v:.{digits}g}"  # inf stays "inf"
            return str(v)

        with open(self.out / f"{stem}.csv", "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(columns)
            w.writerows([[repr(float(v)) if isinstance(v, (float, np.floating)) else v for v in r]
                         for r in rows])
        lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
        lines += ["| " + " | ".join(cell(v) for v in r) + " |" for r in rows]
        (self.out / f"{stem}.md").write_text("\n".join(lines) + "\n")
        data = {"columns": list(columns), "rows": rows}
        return self._record("table", stem, title, data, list(checks), runs, title, paper_ref, caption)

    def _record(self, kind, stem, title, data, checks, runs, paper, paper_ref, caption):
        checks = list(checks)
        if not paper_ref:
            checks.append(("names what it reproduces (paper_ref)", False))
        rec = {"model": self.model, "kind": kind, "stem": stem, "title": title, "paper": paper,
               "paper_ref": list(paper_ref or []), "caption": caption or "",
               "commands": [self.commands[r] for r in runs],
               "checks": [{"what": w, "ok": bool(ok)} for w, ok in checks],
               "data": _jsonable(data)}
        self.records.append(rec)
        bad = [w for w, ok in checks if not ok]
        print(f"  {stem}: {len(checks) - len(bad)}/{len(checks)} checks pass"
              + "".join(f"\n    FAILED: {w}" for w in bad), flush=True)
        return rec


def modules():
    """(model, module name) of every figure module in this package."""
    here = Path(__file__).resolve().parent
    return [m.name for m in pkgutil.iter_modules([str(here)]) if not m.name.startswith("_")]


def model_known(storq, model):
    proc = subprocess.run([storq, "models", model], capture_output=True, text=True)
    return proc.returncode == 0


def main(argv=None):
    import argparse

    import matplotlib

    matplotlib.use("Agg")
    root = repo_root()
    ap = argparse.ArgumentParser(prog="python3 -m storq.figures", description=__doc__.split("\n")[0])
    ap.add_argument("--mode", choices=MODES, default="full")
    ap.add_argument("--only", default="", help="comma-separated models (default: every module)")
    ap.add_argument("--out", default=str(root / "docs" / "figures"))
    ap.add_argument("--work", default=str(root / "build" / "figures"))
    ap.add_argument("--storq", default=str(root / "build" / "storq"))
    args = ap.parse_args(argv)
    ctx = Context(args.mode, args.out, Path(args.work) / args.mode, args.storq, root)
    wanted = [m for m in args.only.split(",") if m] or modules()
    failed, t_all = [], time.time()
    load0, cpu0 = os.getloadavg()[0], _children_cpu()
    for name in wanted:
        if name not in modules():
            print(f"figures: no figure module for '{name}' (have: {', '.join(modules())})")
            failed.append(name)
            continue
        mod = importlib.import_module(f"{__name__}.{name}")
        if not model_known(args.storq, mod.MODEL):
            print(f"figures: skipping {name}: this storq has no model '{mod.MODEL}'")
            continue
        print(f"figures: {name} ({args.mode})", flush=True)
        ctx.model = mod.MODEL
        t0 = time.time()
        try:
            mod.figures(ctx)
        except Exception as e:  # one model's failure must not hide the others' figures
            import traceback

            traceback.print_exc()
            print(f"figures: {name} FAILED: {e}")
            failed.append(name)
        print(f"figures: {name} done in {time.time() - t0:.1f} s", flush=True)
    seconds = round(time.time() - t_all, 1)
    manifest = {"mode": args.mode, "seconds": seconds, "figures": ctx.records}
    path = Path(args.out) / "manifest.json"
    from . import _gallery

    whole = not args.only  # the manifest holds a whole run: this one, or an earlier one updated
    if args.only:
        # some models redrawn: the other models' entries of a manifest of the same mode stay, in
        # the modules' order, and its gallery is rewritten; the budget is a whole run's only
        old = json.loads(path.read_text()) if path.exists() else {}
        if old.get("mode") == args.mode:
            model_of = {m: importlib.import_module(f"{__name__}.{m}").MODEL for m in modules()}
            order = {model: i for i, model in enumerate(model_of.values())}
            redrawn = {model_of[m] for m in wanted if m in model_of}
            kept = [r for r in old.get("figures", []) if r["model"] not in redrawn]
            figures = sorted(kept + ctx.records, key=lambda r: order.get(r["model"], len(order)))
            manifest = {"mode": args.mode, "seconds": old.get("seconds", seconds), "figures": figures}
            whole = True
    with open(path, "w") as f:
        json.dump(manifest, f, indent=1)
    if whole:
        budget_path = Path(args.out) / "budget.json"
        if not args.only:
            budget = _gallery.record_budget(Path(args.out), args.mode, seconds, load0, _children_cpu() - cpu0)
        else:
            budget = json.loads(budget_path.read_text()) if budget_path.exists() else {}
        _gallery.write(manifest, budget, Path(args.out), root)
    bad = [(r["stem"], c["what"]) for r in ctx.records for c in r["checks"] if not c["ok"]]
    print(f"figures: {len(ctx.records)} figures in {args.out} ({seconds} s); "
          f"{len(bad)} failed checks" + (f"; failed models: {', '.join(failed)}" if failed else ""))
    return 1 if bad or failed else 0


def _children_cpu():
    import resource

    return sum(r.ru_utime + r.ru_stime for r in (resource.getrusage(resource.RUSAGE_CHILDREN),
                                                  resource.getrusage(resource.RUSAGE_SELF)))


# Helpers shared by the model modules.

def errorbars(ax, x, mean, ci, label, fmt="o", **kw):
    """Simulated means with their 95% CI as error bars."""
    return ax.errorbar(x, mean, yerr=ci, fmt=fmt, capsize=3, ms=4, label=label, **kw)


def within_ci(sim, ci, exact, factor=3.0):
    """|sim - exact| <= factor x ci95 (+ a relative 1e-9) at every point: the simulation agrees
    with exact theory. factor 3 makes a false alarm over a few dozen points unlikely (a 95% CI
    alone misses one point in twenty)."""
    sim, ci, exact = (np.asarray(a, float) for a in (sim, ci, exact))
    return bool(np.all(np.abs(sim - exact) <= factor * ci + 1e-9 * np.abs(exact)))


def monotone(y, increasing=True, slack=None):
    """y is monotone up to `slack` (an array of allowed backward steps, e.g. the CIs)."""
    y = np.asarray(y, float)
    d = np.diff(y) if increasing else -np.diff(y)
    s = 0 if slack is None else np.asarray(slack, float)[1:] + np.asarray(slack, float)[:-1]
    return bool(np.all(d >= -s))


if __name__ == "__main__":
    sys.exit(main())
