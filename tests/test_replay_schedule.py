#!/usr/bin/env python3
"""The run's record of its units from Python: jobs/replay_schedule.py, storq.open(f).units() and
sessions(), and the schema checker's rules for /run/units, on three files: the one test_h5_units
leaves (two sessions, exact values), tables built here with h5py in the documented layout (a
resumed run that ran some units twice), and a real run of build/storq.

usage: test_replay_schedule.py STORQ test_h5_units_left.h5 SCRATCH_DIR   (PYTHONPATH=io/python)
"""
import os
import shutil
import subprocess
import sys

import h5py
import numpy as np
import pandas as pd

import storq

HERE = os.path.dirname(os.path.abspath(__file__))
REPLAY = os.path.join(HERE, "..", "jobs", "replay_schedule.py")
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(REPLAY))
import check_h5_schema  # noqa: E402
import replay_schedule  # noqa: E402

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print(f"FAIL: {what}", file=sys.stderr)


def schema_problems(path):
    checker = check_h5_schema.Checker(path)
    checker.run()
    return checker.problems


def replay_cli(path, *args):
    p = subprocess.run([sys.executable, REPLAY, path, *args], capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


def check_replay_laws(units, what):
    """W = 1 gives the sum of the durations, W >= units the longest unit (units do not wait for
    one another, so a point's chain is one unit long), and every W lies between the bounds of
    list scheduling, with an efficiency of at most 1."""
    d = units.rows["duration"].to_numpy()
    n = len(d)
    result = {w: (wall, eff, s) for w, wall, eff, s in
              replay_schedule.replay(units, [1, 2, 3, 7, n, n + 5, 4096])}
    check(np.isclose(result[1][0], d.sum(), rtol=1e-12, atol=0), f"{what}: W=1 {result[1][0]}, "
          f"sum of durations {d.sum()}")
    check(result[n][0] == d.max() and result[4096][0] == d.max(),
          f"{what}: W >= units gives {result[n][0]}, longest unit {d.max()}")
    for w, (wall, eff, speedup) in result.items():
        check(eff <= 1 + 1e-12, f"{what}: efficiency {eff} > 1 on {w} workers")
        check(wall >= max(d.sum() / w, d.max()) * (1 - 1e-12) and
              wall <= d.sum() / w + d.max() + 1e-12, f"{what}: W={w} wall {wall} off the bounds")
        check(np.isclose(speedup, result[1][0] / wall), f"{what}: speed-up on {w}")


# ---- the C test's file: exact values ----

def test_c_file(path, scratch):
    with storq.open(path) as r:
        u, s = r.units(), r.sessions()
        check(r.units["n"] == "servers", "r.units[...] still gives the index units")
        check(r.work_units().equals(u), "units() and work_units() differ")
    check(list(u.columns) == ["session", "point", "rep", "rank", "thread", "start", "end",
                              "events", "cost"], f"units() columns {list(u.columns)}")
    check(u["session"].tolist() == [0] * 5 + [1] * 3, f"sessions {u['session'].tolist()}")
    check(u["rep"].tolist() == [-1, -1, 0, 1, 0, 2, 1, 2], f"reps {u['rep'].tolist()}")
    check(s["workers"].tolist() == [2, 4] and s["parallel_efficiency"].tolist() == [0.85, 0.5],
          f"sessions()\n{s}")
    check(not schema_problems(path), f"schema: {schema_problems(path)}")

    units = replay_schedule.load(path)
    check(len(units.rows) == 8, f"rows replayed: {len(units.rows)}")
    walls = {w: wall for w, wall, _, _ in replay_schedule.replay(units, [1, 2, 3, 4, 8])}
    # In hand-out order: theory 0.5, 1; then cost 20: 1.5, 0.5, 1; cost 10: 0.75, 1, 0.5.
    check(walls == {1: 6.75, 2: 3.5, 3: 2.5, 4: 2.0, 8: 1.5}, f"walls {walls}")
    check_replay_laws(units, "C file")
    one = replay_schedule.load(path, session=1)
    check(len(one.rows) == 3 and one.rows["session"].eq(1).all(), "--session 1 rows")
    rc, out = replay_cli(path, "--workers", "2,4,16")
    check(rc == 0 and "8 units (2 theory, 6 replications) of 2 points" in out and
          "sessions 0-1 (a resumed run)" in out, f"replay output:\n{out}")
    check("       16           1.5       0.281       4.50  (more workers than units)" in out,
          f"replay row for 16 workers:\n{out}")
    rc, out = replay_cli(path, "--workers", "0")
    check(rc == 2 and "worker counts >= 1" in out, f"--workers 0: {rc} {out}")

    # Without the table: an empty frame with the same columns; the replay refuses.
    bare = os.path.join(scratch, "replay_bare.h5")
    shutil.copy(path, bare)
    with h5py.File(bare, "a") as f:
        del f["run/units"], f["run/sessions"]
        for k in ("workers", "wall_seconds", "busy_seconds", "parallel_efficiency", "sessions"):
            del f["run"].attrs[k]
    with storq.open(bare) as r:
        check(r.units().empty and list(r.units().columns) == list(u.columns) and
              r.sessions().empty, "units() of a file without the table")
    check(not schema_problems(bare), f"schema without the table: {schema_problems(bare)}")
    rc, out = replay_cli(bare)
    check(rc == 2 and "has no /run/units" in out, f"replay of a file without units: {out}")

    # The checker sees a wrong efficiency, a busy time that is not the rows', rows without a
    # session, a theory unit with a cost.
    for name, damage, needle in [
            ("eff", lambda f: f["run"].attrs.__setitem__("parallel_efficiency", 0.9),
             "'parallel_efficiency' = 0.9"),
            ("busy", lambda f: set_field(f, "run/sessions", 0, "busy_seconds", 5.0),
             "busy_seconds 5.0, its rows add up to 4.25"),
            ("orphan", lambda f: set_field(f, "run/units", 7, "session", 9),
             "rows of sessions [9]"),
            ("cost", lambda f: set_field(f, "run/units", 0, "cost", 3.0),
             "a theory unit with events or a cost")]:
        bad = os.path.join(scratch, f"replay_bad_{name}.h5")
        shutil.copy(path, bad)
        with h5py.File(bad, "a") as f:
            damage(f)
        problems = schema_problems(bad)
        check(any(needle in p for p in problems), f"damage {name}: {problems}")


def set_field(f, path, row, field, value):
    d = f[path]
    rows = d[()]
    rows[field][row] = value
    d[...] = rows


# ---- tables built with h5py: a resumed run, duplicates, ties ----

UNIT_DTYPE = np.dtype([("session", "<u4"), ("point", "<u8"), ("rep", "<i8"), ("rank", "<i4"),
                       ("thread", "<i4"), ("start", "<f8"), ("end", "<f8"), ("events", "<u8"),
                       ("cost", "<f8")])
SESSION_DTYPE = np.dtype([("session", "<u4"), ("workers", "<i8"), ("units", "<u8"),
                          ("wall_seconds", "<f8"), ("busy_seconds", "<f8"),
                          ("parallel_efficiency", "<f8")])


def build_file(template, path, rows, workers, walls):
    """A copy of template (its points and index) with this /run/units and a summary per
    session."""
    shutil.copy(template, path)
    sessions = []
    for s, (w, wall) in enumerate(zip(workers, walls)):
        mine = rows[rows["session"] == s]
        busy = float(np.sum(mine["end"] - mine["start"]))
        sessions.append((s, w, len(mine), wall, busy, busy / (w * wall)))
    sessions = np.array(sessions, dtype=SESSION_DTYPE)
    with h5py.File(path, "a") as f:
        run = f["run"]
        for name in ("units", "sessions"):
            if name in run:
                del run[name]
        run.create_dataset("units", data=rows, maxshape=(None,), chunks=(256,))
        run.create_dataset("sessions", data=sessions, maxshape=(None,), chunks=(16,))
        last = sessions[-1]
        run.attrs["workers"] = np.int64(last["workers"])
        for k in ("wall_seconds", "busy_seconds", "parallel_efficiency"):
            run.attrs[k] = np.float64(last[k])
        run.attrs["sessions"] = np.uint64(len(sessions))


def test_built(template, scratch):
    rng = np.random.default_rng(11)
    # 2 points x 3 replications and their theory (the template's run), in session 0 on 2
    # workers; session 1 ran point 1's replications 1 and 2 again (a stop cut them short).
    rows = []
    t = [0.0, 0.0]
    for p in (0, 1):
        d = rng.uniform(0.1, 0.3)
        rows.append((0, p, -1, 0, p, t[p], t[p] + d, 0, 0.0))
        t[p] += d
    for p, r in [(1, 0), (1, 1), (1, 2), (0, 0), (0, 1), (0, 2)]:
        w = (p + r) % 2
        d = rng.uniform(0.5, 2.0)
        rows.append((0, p, r, 0, w, t[w], t[w] + d, 100, 10.0 * (p + 1)))
        t[w] += d
    rows.append((1, 1, 2, 0, 0, 0.0, 4.0, 100, 20.0))
    rows.append((1, 1, 1, 0, 1, 0.0, 0.25, 100, 20.0))
    rows = np.array(rows, dtype=UNIT_DTYPE)
    path = os.path.join(scratch, "replay_built.h5")
    build_file(template, path, rows, [2, 2], [max(t), 4.0])
    check(not schema_problems(path), f"schema of the built file: {schema_problems(path)}")

    units = replay_schedule.load(path)
    kept = units.rows.set_index(["point", "rep"])
    check(len(units.rows) == 8 and kept.loc[(1, 2), "duration"] == 4.0 and
          kept.loc[(1, 1), "duration"] == 0.25, f"the last run of each unit:\n{units.rows}")
    order = replay_schedule.hand_out_order(units.rows)
    check(list(zip(order["point"], order["rep"])) ==
          [(0, -1), (1, -1), (1, 0), (1, 1), (1, 2), (0, 0), (0, 1), (0, 2)],
          f"hand-out order {list(zip(order['point'], order['rep']))}")
    check_replay_laws(units, "built file")
    rc, out = replay_cli(path, "--workers", "16")
    check(rc == 0 and "note: with more than 8 workers" in out, f"replay output:\n{out}")

    # Many units: the bounds hold for every W, and equal costs fall back to point, then rep.
    n = 500
    big = np.zeros(n, dtype=UNIT_DTYPE)
    big["point"] = np.arange(n) % 2
    big["rep"] = np.arange(n) // 2
    big["end"] = rng.exponential(1.0, n)
    big["cost"] = np.where(big["point"] == 0, 5.0, 7.0)
    table = replay_schedule.hand_out_order(
        replay_schedule.select(pd.DataFrame(big))[0])
    check(table["point"].tolist()[:250] == [1] * 250 and
          table["rep"].tolist()[:3] == [0, 1, 2], "cost ties by point, then rep")
    units.rows = table.assign(duration=table["end"] - table["start"])
    units.replications = 250
    check_replay_laws(units, "500 units")


# ---- a real run ----

def test_real_run(storq_bin, scratch):
    path = os.path.join(scratch, "replay_real.h5")
    if os.path.exists(path):
        os.remove(path)
    cmd = [storq_bin, "run", "supermarket", "--n", "20,40", "--L", "2", "--k", "1", "--lambda",
           "0.8", "--warmup", "100", "--arrivals", "2000", "-r", "4", "-o", path, "--quiet"]
    p = subprocess.run(cmd, capture_output=True, text=True, cwd=scratch)
    check(p.returncode == 0, f"{' '.join(cmd)} exited {p.returncode}: {p.stderr}")
    if p.returncode != 0:
        return
    with h5py.File(path, "r") as f:
        has = "run/units" in f
    if not has:
        print("SKIP real run: this storq does not write /run/units yet")
        return
    check(not schema_problems(path), f"schema of the real run: {schema_problems(path)}")
    with storq.open(path) as r:
        u, s = r.units(), r.sessions()
    check(len(u) == 10 and (u["rep"] == -1).sum() == 2 and len(s) == 1 and s["units"][0] == 10,
          f"the real run's units:\n{u}\n{s}")
    units = replay_schedule.load(path)
    check_replay_laws(units, "real run")
    rc, out = replay_cli(path)
    check(rc == 0 and "10 units (2 theory, 8 replications) of 2 points from session 0" in out,
          f"replay output:\n{out}")
    print(out)


def main(argv):
    if len(argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    storq_bin, c_file, scratch = argv[1:]
    test_c_file(c_file, scratch)
    test_built(c_file, scratch)
    test_real_run(storq_bin, scratch)
    if failures:
        print(f"test_replay_schedule: {len(failures)} failure(s)", file=sys.stderr)
        return 1
    print("test_replay_schedule: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
