#!/usr/bin/env python3
"""The run's record of its units from Python: jobs/replay_schedule.py, storq.open(f).units(),
sessions() and ranks(), and the schema checker's rules for /run/units, on four files: the one
test_h5_units leaves (two sessions, exact values, CPU time), the same record rewritten as a storq
before CPU time wrote it (read by storq info, the package and the replay as then), tables built
here with h5py in that layout (a resumed run that ran some units twice), and a real run of
build/storq.

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

RECORD_ATTRS = ("workers", "wall_seconds", "busy_seconds", "parallel_efficiency", "sessions")
CPU_ATTRS = ("unit_seconds", "waiting_seconds", "idle_seconds", "serving_seconds")


def test_c_file(storq_bin, path, scratch):
    with storq.open(path) as r:
        u, s, k = r.units(), r.sessions(), r.ranks()
        check(r.units["n"] == "servers", "r.units[...] still gives the index units")
        check(r.work_units().equals(u), "units() and work_units() differ")
    check(list(u.columns) == ["session", "point", "rep", "rank", "thread", "start", "end",
                              "events", "cost", "cpu_seconds"],
          f"units() columns {list(u.columns)}")
    check(u["session"].tolist() == [0] * 5 + [1] * 3, f"sessions {u['session'].tolist()}")
    check(u["rep"].tolist() == [-1, -1, 0, 1, 0, 2, 1, 2], f"reps {u['rep'].tolist()}")
    check(u["cpu_seconds"].sum() == 5.5, f"cpu_seconds {u['cpu_seconds'].tolist()}")
    # busy is CPU time (3.5 and 2 s); the time in units (4.25, 2.5) was the busy time before.
    check(s["workers"].tolist() == [2, 4] and s["parallel_efficiency"].tolist() == [0.7, 0.4] and
          s["busy_seconds"].tolist() == [3.5, 2.0] and s["unit_seconds"].tolist() == [4.25, 2.5]
          and s["serving_seconds"].tolist() == [0.25, 0.5], f"sessions()\n{s}")
    check(list(k.columns) == list(storq.results.RANK_COLUMNS) and
          k["session"].tolist() == [0, 1, 1] and k["rank"].tolist() == [0, 0, 1] and
          k["idle_seconds"].tolist() == [0.5, 1.0, 1.0], f"ranks()\n{k}")
    check(not schema_problems(path), f"schema: {schema_problems(path)}")

    units = replay_schedule.load(path)
    check(len(units.rows) == 8 and units.cpu, f"rows replayed: {len(units.rows)}, cpu {units.cpu}")
    walls = {w: wall for w, wall, _, _ in replay_schedule.replay(units, [1, 2, 3, 4, 8])}
    # CPU time in hand-out order: theory 0.5, 0.75; then cost 20: 1.25, 0.5, 1; cost 10: 0.5,
    # 0.75, 0.25.
    check(walls == {1: 5.5, 2: 3.0, 3: 2.0, 4: 1.5, 8: 1.25}, f"walls {walls}")
    check_replay_laws(units, "C file")
    one = replay_schedule.load(path, session=1)
    check(len(one.rows) == 3 and one.rows["session"].eq(1).all(), "--session 1 rows")
    rc, out = replay_cli(path, "--workers", "2,4,16")
    check(rc == 0 and "8 units (2 theory, 6 replications) of 2 points" in out and
          "sessions 0-1 (a resumed run)" in out and
          "durations: each unit's CPU time (cpu_seconds)" in out and
          "recorded: session 0 on 2 workers, wall 2.5 s, parallel efficiency 0.70 (CPU time "
          "simulating)" in out, f"replay output:\n{out}")
    check("       16          1.25       0.275       4.40  (more workers than units)" in out,
          f"replay row for 16 workers:\n{out}")
    rc, out = replay_cli(path, "--workers", "0")
    check(rc == 2 and "worker counts >= 1" in out, f"--workers 0: {rc} {out}")

    # Without the tables: empty frames with the same columns; the replay refuses.
    bare = os.path.join(scratch, "replay_bare.h5")
    shutil.copy(path, bare)
    with h5py.File(bare, "a") as f:
        del f["run/units"], f["run/sessions"], f["run/ranks"]
        for key in RECORD_ATTRS + CPU_ATTRS:
            del f["run"].attrs[key]
    with storq.open(bare) as r:
        check(r.units().empty and list(r.units().columns) == list(u.columns) and
              r.sessions().empty and r.ranks().empty and list(r.ranks().columns) == list(k.columns),
              "units() of a file without the table")
    check(not schema_problems(bare), f"schema without the table: {schema_problems(bare)}")
    rc, out = replay_cli(bare)
    check(rc == 2 and "has no /run/units" in out, f"replay of a file without units: {out}")

    # The checker sees a wrong efficiency, a busy time that is not the rows' CPU time, a time in
    # units that is not theirs, a waiting time that is not the ranks', rows without a session, a
    # theory unit with a cost, a record with CPU time in some places only.
    for name, damage, needle in [
            ("eff", lambda f: f["run"].attrs.__setitem__("parallel_efficiency", 0.9),
             "'parallel_efficiency' = 0.9"),
            ("busy", lambda f: set_field(f, "run/sessions", 0, "busy_seconds", 4.25),
             "busy_seconds 4.25, its rows' cpu_seconds add up to 3.5"),
            ("unit", lambda f: set_field(f, "run/sessions", 1, "unit_seconds", 2.0),
             "unit_seconds 2.0, its rows' end - start add up to 2.5"),
            ("waiting", lambda f: set_field(f, "run/ranks", 1, "waiting_seconds", 0.0),
             "waiting_seconds 0.5, its ranks add up to 0.0"),
            ("orphan", lambda f: set_field(f, "run/units", 7, "session", 9),
             "rows of sessions [9]"),
            ("cost", lambda f: set_field(f, "run/units", 0, "cost", 3.0),
             "a theory unit with events or a cost"),
            ("noranks", lambda f: f["run"].__delitem__("ranks"),
             "a record partly with CPU time")]:
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


# ---- the record as a storq before CPU time wrote it ----

def old_record(src, dst):
    """A copy of src whose record is in the layout before CPU time: /run/units without
    cpu_seconds, /run/sessions without unit_seconds and the rest, busy_seconds the time in units
    (and the efficiency from it), no /run/ranks, /run's five attributes."""
    shutil.copy(src, dst)
    with h5py.File(dst, "a") as f:
        run = f["run"]
        units, sessions = run["units"][()], run["sessions"][()]
        old_units = np.empty(len(units), UNIT_DTYPE)
        for k in UNIT_DTYPE.names:
            old_units[k] = units[k]
        old_sessions = np.empty(len(sessions), SESSION_DTYPE)
        for k in SESSION_DTYPE.names:
            old_sessions[k] = sessions[k]
        old_sessions["busy_seconds"] = sessions["unit_seconds"]
        old_sessions["parallel_efficiency"] = sessions["unit_seconds"] / (
            sessions["workers"] * sessions["wall_seconds"])
        for name in ("units", "sessions", "ranks"):
            del run[name]
        run.create_dataset("units", data=old_units, maxshape=(None,), chunks=(256,))
        run.create_dataset("sessions", data=old_sessions, maxshape=(None,), chunks=(16,))
        for k in CPU_ATTRS:
            del run.attrs[k]
        run.attrs["busy_seconds"] = old_sessions["busy_seconds"][-1]
        run.attrs["parallel_efficiency"] = old_sessions["parallel_efficiency"][-1]


def test_old_layout(storq_bin, template, scratch):
    """Files written before CPU time was recorded: storq info prints the line it printed then,
    the package gives NaN for what they lack, the replay takes end - start."""
    path = os.path.join(scratch, "replay_old.h5")
    old_record(template, path)
    check(not schema_problems(path), f"schema of the old record: {schema_problems(path)}")
    p = subprocess.run([storq_bin, "info", path], capture_output=True, text=True)
    want = ("run, session 0: 5 units on 2 workers (1 rank x 2 threads), wall 2.50 s, busy 4.25 "
            "worker-s, parallel efficiency 0.85\nrun, session 1: 3 units on 4 workers (2 ranks x "
            "2 threads), wall 1.25 s, busy 2.50 worker-s, parallel efficiency 0.50\n\n")
    check(p.returncode == 0 and want in p.stdout, f"storq info of the old record:\n{p.stdout}"
          f"{p.stderr}")
    with storq.open(path) as r:
        u, s, k = r.units(), r.sessions(), r.ranks()
    check(list(u.columns) == list(storq.results.UNIT_COLUMNS) and u["cpu_seconds"].isna().all(),
          f"units() of the old record\n{u}")
    check(list(s.columns) == list(storq.results.SESSION_COLUMNS) and
          s["busy_seconds"].tolist() == [4.25, 2.5] and
          s[list(CPU_ATTRS)].isna().all().all(), f"sessions() of the old record\n{s}")
    check(k.empty and list(k.columns) == list(storq.results.RANK_COLUMNS), f"ranks()\n{k}")
    units = replay_schedule.load(path)
    walls = {w: wall for w, wall, _, _ in replay_schedule.replay(units, [1, 2, 3, 4, 8])}
    # end - start in hand-out order: theory 0.5, 1; then cost 20: 1.5, 0.5, 1; cost 10: 0.75,
    # 1, 0.5.
    check(not units.cpu and walls == {1: 6.75, 2: 3.5, 3: 2.5, 4: 2.0, 8: 1.5}, f"walls {walls}")
    rc, out = replay_cli(path, "--workers", "16")
    check(rc == 0 and "durations: end - start of each unit, not its CPU time (the file records "
          "none)" in out and "parallel efficiency 0.85 (time in units)" in out and
          "       16           1.5       0.281       4.50  (more workers than units)" in out,
          f"replay of the old record:\n{out}")


# ---- tables built with h5py: a resumed run, duplicates, ties ----

UNIT_DTYPE = np.dtype([("session", "<u4"), ("point", "<u8"), ("rep", "<i8"), ("rank", "<i4"),
                       ("thread", "<i4"), ("start", "<f8"), ("end", "<f8"), ("events", "<u8"),
                       ("cost", "<f8")])
SESSION_DTYPE = np.dtype([("session", "<u4"), ("workers", "<i8"), ("units", "<u8"),
                          ("wall_seconds", "<f8"), ("busy_seconds", "<f8"),
                          ("parallel_efficiency", "<f8")])


def build_file(template, path, rows, workers, walls):
    """A copy of template (its points and index) with this /run/units and a summary per
    session, in the layout before CPU time."""
    shutil.copy(template, path)
    sessions = []
    for s, (w, wall) in enumerate(zip(workers, walls)):
        mine = rows[rows["session"] == s]
        busy = float(np.sum(mine["end"] - mine["start"]))
        sessions.append((s, w, len(mine), wall, busy, busy / (w * wall)))
    sessions = np.array(sessions, dtype=SESSION_DTYPE)
    with h5py.File(path, "a") as f:
        run = f["run"]
        for name in ("units", "sessions", "ranks"):
            if name in run:
                del run[name]
        for k in CPU_ATTRS:
            if k in run.attrs:
                del run.attrs[k]
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
    check(units.cpu, "the real run's units replay without their CPU time")
    check((u["cpu_seconds"] > 0).all(), f"the real run's cpu_seconds:\n{u['cpu_seconds']}")
    check_replay_laws(units, "real run")
    rc, out = replay_cli(path)
    check(rc == 0 and "10 units (2 theory, 8 replications) of 2 points from session 0" in out,
          f"replay output:\n{out}")
    print(out)
    p = subprocess.run([storq_bin, "info", path], capture_output=True, text=True)
    check(p.returncode == 0 and "CPU-s simulating (in units" in p.stdout,
          f"storq info of the real run:\n{p.stdout}{p.stderr}")


def main(argv):
    if len(argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    storq_bin, c_file, scratch = argv[1:]
    test_c_file(storq_bin, c_file, scratch)
    test_old_layout(storq_bin, c_file, scratch)
    test_built(c_file, scratch)
    test_real_run(storq_bin, scratch)
    if failures:
        print(f"test_replay_schedule: {len(failures)} failure(s)", file=sys.stderr)
        return 1
    print("test_replay_schedule: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
