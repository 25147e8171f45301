#!/usr/bin/env python3
"""Replay a storq run's work units on other numbers of workers, to size an allocation before
asking for it.

usage: replay_schedule.py FILE.h5 [--workers 16,64,256,1024,4096] [--session S]

Reads /run/units (docs/hdf5-schema.md, "The run's units"): each unit's duration and the cost
estimate storq ordered it by. The duration is the unit's CPU time (cpu_seconds), the figure the
recorded parallel efficiency counts as work, so a unit stretched by preemption or by rank 0's
serving replays at the length of its work; a file recorded before CPU time (no cpu_seconds, or
NaN in a row replayed) replays end - start for every unit instead. The output says which.

It hands the units out again the way storq does (src/app/schedule.c): every point's theory first, by point id, then the replications by cost
estimate, most expensive first, ties by point id, then replication; each unit goes to the first
worker that is free (list scheduling; a theory unit takes its recorded duration). For each number
of workers W it prints the predicted wall time, the efficiency (sum of durations / (W x wall))
and the speed-up over one worker, with a note when W exceeds the number of units.

Which rows: those of a run that was not resumed; of a resumed run, every session's, each (point,
rep) once, the last time it ran (a unit a stopped session ran again later counts once); with
--session S, that session's rows alone (what it ran, as it ran it). The prediction leaves out
what the units' durations do not show: rank 0's work between units (summaries, writing the
file), MPI start-up, and durations that change with W (memory bandwidth, a busier node).

Needs numpy, pandas and h5py (Debian's /usr/bin/python3 has them). Exit status 2 for a file
without /run/units or a bad option.
"""
import argparse
import heapq
import sys

import h5py
import numpy as np
import pandas as pd

DEFAULT_WORKERS = [16, 64, 256, 1024, 4096]
THEORY = -1  # rep of a point's theory unit


class Units:
    """The rows to replay and what the file says about them."""

    def __init__(self, path, rows, sessions, what, task, own_task, replications, chosen,
                 cpu=False):
        self.path = path
        self.chosen = chosen        # one session asked for (--session)
        self.rows = rows            # DataFrame: point, rep, cost, duration, session, ...
        self.cpu = cpu              # durations are cpu_seconds (else end - start)
        self.sessions = sessions    # DataFrame of /run/sessions
        self.what = what            # which rows, in words
        self.task = task            # (index, count) the table was written for
        self.own_task = own_task    # (index, count) of the file
        self.replications = replications


def _task(attrs):
    if "task_count" in attrs and int(attrs["task_count"]) > 1:
        return int(attrs["task_index"]), int(attrs["task_count"])
    return 0, 1


def select(table, session=None):
    """The rows to replay (see the module's doc) and a few words saying which they are."""
    if session is not None:
        rows = table[table["session"] == session]
        return rows, f"session {session}"
    ran = sorted(set(table["session"].tolist()))
    if len(ran) <= 1:
        return table, f"session {ran[0]}" if ran else "no session"
    last = table.sort_values(["session", "end"], kind="stable")
    rows = last.drop_duplicates(["point", "rep"], keep="last")
    return rows, (f"sessions {ran[0]}-{ran[-1]} (a resumed run), each (point, rep) once: the "
                  f"last time it ran")


def load(path, session=None):
    with h5py.File(path, "r") as f:
        if "run/units" not in f:
            raise LookupError(f"{path} has no /run/units: it was written by a storq without the "
                              f"units record, or by a run killed before it ended")
        table = pd.DataFrame(f["run/units"][()])
        sessions = (pd.DataFrame(f["run/sessions"][()]) if "run/sessions" in f else
                    pd.DataFrame(columns=["session", "workers", "wall_seconds",
                                          "parallel_efficiency"]))
        task, own = _task(f["run/units"].attrs), _task(f.attrs)
        replications = int(f.attrs.get("replications", 0))
    if session is not None and session not in set(table["session"].tolist()):
        raise LookupError(f"{path}: session {session} has no units")
    rows, what = select(table, session)
    # CPU time only when every unit replayed has it: durations of one kind, or none.
    cpu = "cpu_seconds" in rows.columns and bool(np.isfinite(rows["cpu_seconds"]).all())
    duration = rows["cpu_seconds"] if cpu else rows["end"] - rows["start"]
    rows = rows.assign(duration=np.maximum(duration, 0.0))
    return Units(path, rows, sessions, what, task, own, replications, session is not None, cpu)


def hand_out_order(rows):
    """The rows in storq's hand-out order."""
    theory = rows[rows["rep"] == THEORY].sort_values("point", kind="stable")
    reps = rows[rows["rep"] != THEORY].sort_values(["cost", "point", "rep"],
                                                   ascending=[False, True, True], kind="stable")
    return pd.concat([theory, reps])


def replay_wall(durations, workers):
    """The wall time of list scheduling: each duration, in order, to the first free worker."""
    durations = [float(d) for d in durations]
    if not durations:
        return 0.0
    if workers >= len(durations):
        return max(durations)  # every unit starts at once: the longest decides
    free = [0.0] * workers     # when each worker is free; identical workers, so a heap will do
    for d in durations:
        heapq.heappush(free, heapq.heappop(free) + d)
    return max(free)


def replay(units, workers):
    """[(W, wall, efficiency, speed-up)] for each W."""
    durations = hand_out_order(units.rows)["duration"].to_numpy()
    total = replay_wall(durations, 1)
    out = []
    for w in workers:
        wall = replay_wall(durations, w)
        eff = total / (w * wall) if wall > 0 else float("nan")
        out.append((w, wall, eff, total / wall if wall > 0 else float("nan")))
    return out


def expected_units(units):
    """How many units the rows should cover: each point of the table's share that has a row,
    all its replications, and its theory when any point's theory ran."""
    rows = units.rows
    points = set(rows["point"].tolist())
    with_theory = bool((rows["rep"] == THEORY).any())
    return len(points) * (units.replications + (1 if with_theory else 0))


def seconds(v):
    return f"{v:.4g}"


def report(units, workers, out=sys.stdout):
    rows = units.rows
    ordered = hand_out_order(rows)
    n = len(rows)
    ntheory = int((rows["rep"] == THEORY).sum())
    longest = ordered.loc[ordered["duration"].idxmax()] if n else None
    print(f"{units.path}: {n} units ({ntheory} theory, {n - ntheory} replications) of "
          f"{rows['point'].nunique()} points from {units.what}; work {seconds(rows['duration'].sum())} "
          f"worker-s", file=out)
    if units.cpu:
        print("durations: each unit's CPU time (cpu_seconds), the work the recorded parallel "
              "efficiency counts", file=out)
    else:
        why = ("some of these units have none" if "cpu_seconds" in rows.columns else
               "the file records none")
        print(f"durations: end - start of each unit, not its CPU time ({why})", file=out)
    if longest is not None:
        which = "theory" if longest["rep"] == THEORY else f"rep {int(longest['rep'])}"
        print(f"longest unit: {seconds(longest['duration'])} s (point {int(longest['point'])}, "
              f"{which})", file=out)
    ran = set(rows["session"].tolist())
    for _, s in units.sessions.iterrows():
        if s["session"] in ran:
            # a session recorded before CPU time has no unit_seconds: its efficiency was of the
            # time in units
            of = ("CPU time simulating" if np.isfinite(s.get("unit_seconds", np.nan)) else
                  "time in units")
            print(f"recorded: session {int(s['session'])} on {int(s['workers'])} workers, wall "
                  f"{seconds(s['wall_seconds'])} s, parallel efficiency "
                  f"{s['parallel_efficiency']:.2f} ({of})", file=out)
    print("replayed in storq's order (each point's theory by point id, then replications by "
          "cost estimate, largest first), each unit to the first free worker:", file=out)
    print(f"{'workers':>9}  {'wall [s]':>12}  {'efficiency':>10}  {'speed-up':>9}", file=out)
    for w, wall, eff, speedup in replay(units, workers):
        note = "  (more workers than units)" if w > n else ""
        print(f"{w:>9}  {seconds(wall):>12}  {eff:>10.3f}  {speedup:>9.2f}{note}", file=out)
    if any(w > n for w in workers):
        print(f"note: with more than {n} workers some never get a unit; the wall time is then "
              f"the longest unit's", file=out)
    if units.task != units.own_task:
        print(f"note: the table is task {units.task[0]}/{units.task[1]}'s (storq merge copied "
              f"/run from its file): the replay covers that task's units only", file=out)
    want = expected_units(units)
    if n < want and units.chosen:
        print(f"note: {units.what} ran {n} of the {want} units of its points; the others ran in "
              f"other sessions (or before a checkpoint)", file=out)
    elif n < want:
        print(f"note: the rows cover {n} of the {want} units of their points: a session killed "
              f"before it ended leaves no rows, so the replay lacks its units", file=out)


def parse_workers(text):
    try:
        ws = [int(w) for w in text.split(",") if w.strip()]
    except ValueError:
        ws = []
    if not ws or min(ws) < 1:
        raise argparse.ArgumentTypeError(f"'{text}': give worker counts >= 1, e.g. 16,64,256")
    return ws


def main(argv):
    ap = argparse.ArgumentParser(prog="replay_schedule.py",
                                 description="Replay a storq run's units on W workers.")
    ap.add_argument("file", help="a storq results file with /run/units")
    ap.add_argument("--workers", type=parse_workers, default=DEFAULT_WORKERS,
                    help="worker counts, comma separated (default %(default)s)")
    ap.add_argument("--session", type=int, default=None,
                    help="replay this session's rows only")
    args = ap.parse_args(argv)
    try:
        units = load(args.file, args.session)
    except (LookupError, OSError) as e:
        print(f"replay_schedule.py: {e}", file=sys.stderr)
        return 2
    # One worker is the speed-up's baseline; the recorded counts show how far the replay is from
    # what happened.
    ran = set(units.rows["session"].tolist())
    recorded = [int(s["workers"]) for _, s in units.sessions.iterrows() if s["session"] in ran]
    workers = sorted(set([1] + args.workers + recorded))
    report(units, workers)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
