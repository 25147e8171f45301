"""Read storq results files (HDF5 schema 1.x, docs/hdf5-schema.md, and 2.x, the columnar layout
of docs/hdf5-schema-2.md: the same calls give the same values for a 1.x file and its conversion;
storq._columnar reads 2.x).

    import storq
    r = storq.open("run.h5")
    r.index                     # every point of the run and its parameters (pandas)
    r.table()                   # complete points: parameters, scalar means and CIs, comparisons
    r.observable(0, "u")        # {'mean': ..., 'stderr': ..., 'ci95': ..., 'axis': ...}
    r.quantile(0, "delay", 0.99)
    r.checkpoints()             # a partial file's unfinished points: {id: replications in}
    r.units()                   # the run's units: where and when each ran, CPU time (pandas)
    r.sessions()                # per session: workers, wall and busy (CPU) time, efficiency
    r.ranks()                   # per session and rank: where its threads' time went

Only complete points are read; /checkpoints (schema 1.2, in partial files) is left alone apart
from checkpoints(), which says how far the unfinished points got.
"""
import h5py
import numpy as np
from ._pandas import pandas as _pandas
from ._columnar import Columnar
from ._verify import guarded, verify_point
from .errors import DamagedFile, FormatError  # noqa: F401 - storq.results.FormatError stays

FORMAT = "storq"
MAJOR = 1
MAJORS = (1, 2)  # the major versions this reader reads: 1.x (a group a point) and 2.x (columnar)

# Attributes of a point group that are not model parameters.
POINT_ATTRS = {"model", "status", "replications", "wall_seconds", "events", "crc32"}

# The run's record of its units (docs/hdf5-schema.md, "The run's units"): the columns of
# /run/units, /run/sessions and /run/ranks, for the empty tables of a file without them. Files
# written before CPU time was recorded lack the float columns from cpu_seconds and unit_seconds
# on, and /run/ranks: those read as NaN (not measured).
UNIT_COLUMNS = {"session": "u4", "point": "u8", "rep": "i8", "rank": "i4", "thread": "i4",
                "start": "f8", "end": "f8", "events": "u8", "cost": "f8", "cpu_seconds": "f8"}
SESSION_COLUMNS = {"session": "u4", "workers": "i8", "units": "u8", "wall_seconds": "f8",
                   "busy_seconds": "f8", "parallel_efficiency": "f8", "unit_seconds": "f8",
                   "waiting_seconds": "f8", "idle_seconds": "f8", "serving_seconds": "f8"}
RANK_COLUMNS = {"session": "u4", "rank": "i4", "threads": "i4", "simulating_seconds": "f8",
                "in_units_seconds": "f8", "waiting_seconds": "f8", "idle_seconds": "f8",
                "serving_seconds": "f8"}


def _text(value):
    """h5py gives str for variable-length strings and bytes for fixed-length ones."""
    if isinstance(value, (bytes, np.bytes_)):
        # a name that is not UTF-8 (older files) reads with its bytes escaped, never fails
        return value.decode("utf-8", "backslashreplace")
    return value


def _plain(value):
    """An attribute value as plain Python: str, int, float, or a numpy array / list of str."""
    value = _text(value)
    if isinstance(value, np.ndarray):
        if value.dtype.kind in "OSU":
            return [_text(v) for v in value.tolist()]
        return value
    if isinstance(value, np.generic):
        return value.item()
    return value


def _open_hdf5(path):
    """h5py.File(path, "r"), with h5py's bare OSError for a file it cannot open told apart: not
    HDF5 at all (FormatError), cut short or with a damaged superblock (DamagedFile), or locked by
    the run still writing it (BlockingIOError saying what to do); a missing or unreadable path
    keeps the system's error."""
    try:
        return h5py.File(path, "r")
    except OSError as e:
        text = str(e)
        if isinstance(e, BlockingIOError) or "unable to lock file" in text:
            raise BlockingIOError(e.errno, f"{path}: cannot open the file: a storq run is still "
                                  "writing it (HDF5 file lock); set HDF5_USE_FILE_LOCKING=FALSE "
                                  "to read it meanwhile") from e
        if e.errno is not None:
            raise
        if "file signature not found" in text:
            raise FormatError(f"{path} is not a storq results file (not HDF5)") from e
        raise DamagedFile(path, "/", f"HDF5 cannot open it ({text})") from e


def _same_value(stored, attr):
    """An index cell against the point's attribute: strings by their bytes (up to a NUL: the
    index holds fixed-length strings), numbers exactly and of one kind (integer or float)."""
    if isinstance(stored, (bytes, str, np.bytes_, np.str_)) or isinstance(attr, (bytes, str)):
        if not isinstance(attr, (bytes, str, np.bytes_, np.str_)) or \
                not isinstance(stored, (bytes, str, np.bytes_, np.str_)):
            return False
        raw = [v.encode("utf-8", "surrogateescape") if isinstance(v, str) else bytes(v)
               for v in (stored, attr)]
        return raw[0].split(b"\0")[0] == raw[1].split(b"\0")[0]
    a, b = np.asarray(stored), np.asarray(attr)
    if a.shape != () or b.shape != () or (a.dtype.kind == "f") != (b.dtype.kind == "f"):
        return False
    return bool(a == b)


def _attrs(obj):
    """An object's attributes as plain values, without its checksum (crc32 is the reader's
    business: a 2.0 file's checksums are of other bytes than its 1.x source's)."""
    return {key: _plain(obj.attrs[key]) for key in obj.attrs if key != "crc32"}


def _table(dset, columns):
    """A compound dataset as a DataFrame; the given (empty) columns when there is none. A
    column the table lacks (an older writer's) reads as NaN."""
    if dset is None or len(dset) == 0:
        return _pandas().DataFrame({name: _pandas().Series(dtype=t) for name, t in columns.items()})
    df = _pandas().DataFrame(dset[()])
    for name in columns:
        if name not in df.columns:
            df[name] = np.nan
    return df


class ColumnUnits(dict):
    """Units of the index columns by name (r.units["lambda"]). Called, r.units() is the run's
    units table instead: the two meanings of the word share the name, both kept."""

    def __init__(self, mapping, table):
        super().__init__(mapping)
        self._table = table

    def __call__(self):
        return self._table()


def open(path, verify=True):  # noqa: A001 - storq.open mirrors h5py.File / builtins.open
    """Open a storq results file (read-only) and check its format and major version, and (verify)
    every complete point against its checksums, in a child process (see Results)."""
    return Results(path, verify)


class Results:
    """A storq results file. Use as a context manager, or call close()."""

    def __init__(self, path, verify=True):
        """verify: check the whole file first, in a forked child (what HDF5 may crash on is
        read there first; a damaged point raises DamagedFile now). Without it each point is
        still checked when first read, unguarded."""
        self.path = str(path)
        if verify:
            guarded(self.path, lambda: Results(self.path, verify=False)._verify_open())
        self._file = _open_hdf5(self.path)
        self._verified = set()
        self._index_rows = None  # /points/index as read once, for _check_index_row
        self._v2 = None          # the 2.x reader (storq._columnar.Columnar) of a 2.x file
        self._v2_checked = False
        # 1.x: what a point's reads need more than once (its group, members, attributes)
        self._groups = {}
        self._members_cache = {}
        self._attrs_cache = {}
        try:
            try:
                self.attrs = _attrs(self._file)
            except (OSError, KeyError, RuntimeError) as e:
                raise DamagedFile(self.path, "/", f"its attributes cannot be read ({e})") from e
            if self.attrs.get("format") != FORMAT:
                raise FormatError(f"{self.path} is not a storq results file")
            version = [int(v) for v in np.atleast_1d(self.attrs.get("format_version", [0, 0]))]
            if version[0] not in MAJORS:
                raise FormatError(f"{self.path} has format version {version[0]}.{version[1]}; "
                                  f"this reader reads 1.x and 2.x")
            self.version = tuple(version[:2])
            if version[0] == 2:
                self._v2 = Columnar(self.path, self._file)
            if verify:  # the child checked every complete point (2.x: attributes and rows)
                if self._v2 is not None:
                    self._v2_checked = True
                    self._v2._attrs_ok = True
                    self._v2._bad_rows = {}
                else:
                    self._verified = set(self.points())
        except Exception:
            self._file.close()
            raise

    def close(self):
        self._file.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        return (f"<storq.Results {self.path}: model {self.attrs.get('model')}, "
                f"{len(self.points())}/{len(self.index)} points complete>")

    # ---- the run's points ----

    @property
    def index(self):
        """Every point of the run (complete or not): `point` and one column per parameter."""
        df = _pandas().DataFrame(self._file["/points/index"][()])
        for col in df.columns:
            if df[col].dtype == object:
                df[col] = [_text(v) for v in df[col]]
        return df

    @property
    def parameters(self):
        """Parameter names, in the model's table order."""
        return [c for c in self._file["/points/index"].dtype.names if c != "point"]

    @property
    def units(self):
        """Units of the index columns ("" for none), by column name; r.units() is work_units()."""
        dset = self._file["/points/index"]
        units = _plain(dset.attrs["units"]) if "units" in dset.attrs else []
        return ColumnUnits(zip(dset.dtype.names, list(units) + [""] * len(dset.dtype.names)),
                           self.work_units)

    # ---- the run's record of its units ----

    def work_units(self):
        """/run/units: one row per work unit that ran (a replication, or a point's theory with
        rep -1): session (0 for the first run, 1 for the first --resume, ...), point, rep, rank,
        thread, start, end (seconds since the session's work began), events, the cost estimate
        the scheduler ordered it by, and cpu_seconds, the CPU time of its thread from start to
        end (NaN for units recorded before CPU time was). Empty (same columns) when the file has
        no such table (older files, a run killed before it ended). When the table is a task's
        (storq merge copies the first input's /run), df.attrs holds its task_index and
        task_count."""
        dset = self._file.get("run/units")
        df = _table(dset, UNIT_COLUMNS)
        if dset is not None and "task_count" in dset.attrs:
            df.attrs = {k: int(dset.attrs[k]) for k in ("task_index", "task_count")}
        return df

    def sessions(self):
        """/run/sessions: one row per session: workers (ranks x threads), units (rows it added),
        wall_seconds, busy_seconds (sum of the units' cpu_seconds: CPU time simulating),
        parallel_efficiency = busy / (workers x wall), unit_seconds (sum of end - start),
        waiting_seconds, idle_seconds and serving_seconds (sums over its ranks; NaN when it
        recorded none). The last row is /run's attributes. A session recorded before CPU time
        has NaN from unit_seconds on, and its busy_seconds and parallel_efficiency are then the
        time in units (sum of end - start). df.attrs["earlier_record_lost"] is True when
        --resume salvaged a partial file whose record could not be read: the table then holds
        only the sessions after it (the results are whole)."""
        df = _table(self._file.get("run/sessions"), SESSION_COLUMNS)
        run = self._file.get("run")
        df.attrs["earlier_record_lost"] = run is not None and "earlier_record_lost" in run.attrs
        return df

    def ranks(self):
        """/run/ranks: one row per session and rank, in thread-seconds summed over the rank's
        worker threads (threads x wall = in_units + waiting + idle): session, rank, threads,
        simulating_seconds (CPU time inside its units: the work), in_units_seconds (wall time
        inside them), waiting_seconds (for a unit to be handed out), idle_seconds (the rest) and
        serving_seconds (CPU time of the thread that hands out units and takes in results: rank
        0's; 0 elsewhere; not part of threads x wall). Empty (same columns) for a file without
        the table (written before it, or sessions that recorded no ranks)."""
        return _table(self._file.get("run/ranks"), RANK_COLUMNS)

    def points(self):
        """Ids of the complete points, in increasing order. A point group HDF5 cannot read (a
        damaged object header) raises DamagedFile: it is neither complete nor absent."""
        if self._v2 is not None:
            status = self._v2.column("points/status")
            return sorted(int(p) for p in self._v2.pids[status == 1].tolist())
        status = self.point_status()
        for pid, s in status.items():
            if s == "unreadable":
                raise DamagedFile(self.path, f"/points/{pid:06d}", "cannot be read (its HDF5 "
                                  "object header is damaged)")
        return sorted(pid for pid, s in status.items() if s == "complete")

    def point_status(self):
        """{point id: status} for every point group in the file, as storq info says it:
        "complete", "interrupted" (no status "complete": a write cut short) or "unreadable"
        (HDF5 cannot open it). Points without a group are not listed."""
        if self._v2 is not None:
            status = self._v2.column("points/status")
            return {int(p): "complete" if s == 1 else "interrupted"
                    for p, s in zip(self._v2.pids.tolist(), status.tolist())}
        out = {}
        try:
            names = [n for n in self._file["points"] if n.isdigit()]
        except Exception as e:  # noqa: BLE001 - h5py raises several types on damaged metadata
            raise DamagedFile(self.path, "/points", f"its members cannot be listed ({e})") from e
        for name in names:
            try:
                status = _text(self._file["points"][name].attrs.get("status", ""))
                out[int(name)] = "complete" if status == "complete" else "interrupted"
            except Exception:  # noqa: BLE001
                out[int(name)] = "unreadable"
        return out

    @property
    def state(self):
        """"finished" (every point of the file's share complete), "partial" (some missing or
        interrupted: a run or merge not done) or "damaged" (a point group HDF5 cannot read)."""
        status = self.point_status()
        if "unreadable" in status.values():
            return "damaged"
        count = int(self.attrs.get("task_count", 1))
        task = int(self.attrs.get("task_index", 0))
        share = [p for p in range(len(self._file["/points/index"])) if p % count == task]
        if self._v2 is not None:
            done = set(self.points())
            return "finished" if all(p in done for p in share) else "partial"
        return "finished" if all(status.get(p) == "complete" for p in share) else "partial"

    def verify(self):
        """Check every complete point against its checksums; DamagedFile at the first mismatch or
        unreadable point group. Reading a point checks it anyway; this checks them all now.
        A 2.x file: every object's attribute checksum, every row's /points/crc32 (the per-point
        numbers) and /points/crc32_arrays (its arrays), vectorised (storq._columnar)."""
        if self._v2 is not None:
            self._v2.check_attrs()
            self._v2.check_rows()
            self._v2.check_arrays()
            return
        for pid in self.points():
            self._point(pid)

    def _verify_open(self):
        """What storq.open checks in its guarded child: 1.x, every complete point (verify());
        2.x, every object's attribute checksum and every row's /points/crc32 and parameters, but
        not the arrays: a row's /points/crc32_arrays is checked when its arrays are first read
        (a table of 20,000 points does not read their histograms); verify() checks them all."""
        if self._v2 is not None:
            self._v2.check_attrs()
            self._v2.check_rows()
            return
        self.verify()

    def _row(self, pid):
        """The row of a complete point of a 2.x file, its checks (lazily without verify) done."""
        v2 = self._v2
        row = v2.row_of.get(int(pid))
        if row is None:
            raise KeyError(f"{self.path}: no point {pid}")
        if v2.column("points/status")[row] != 1:
            raise KeyError(f"{self.path}: point {pid} is not complete (interrupted write)")
        if not self._v2_checked:
            v2.check_attrs()
            v2.check_rows(raise_first=False)
            self._v2_checked = True
        if row in v2._bad_rows:
            v2.raise_row(row)
        return row

    def checkpoints(self):
        """Unfinished points of a partial file that have a checkpoint (schema 1.2): {point id:
        replications in}. Only checkpoints with status "complete" count, as for --resume."""
        out = {}
        if self._v2 is not None:
            return out
        group = self._file.get("checkpoints")
        for name, cp in (group.items() if group is not None else []):
            if not name.isdigit() or _text(cp.attrs.get("status", "")) != "complete":
                continue
            point = self._file.get(f"points/{name}")
            if point is None or _text(point.attrs.get("status", "")) != "complete":
                out[int(name)] = int(cp.attrs["replications_in"])
        return dict(sorted(out.items()))

    def _point(self, pid):
        group = self._groups.get(int(pid))
        if group is not None:  # checked when first read
            return group
        name = f"/points/{int(pid):06d}"
        if name not in self._file:
            raise KeyError(f"{self.path}: no point {pid}")
        group = self._file[name]
        try:
            status = _text(group.attrs.get("status", ""))
        except Exception as e:  # noqa: BLE001
            raise DamagedFile(self.path, name, f"cannot be read ({e})") from e
        if status != "complete":
            raise KeyError(f"{self.path}: point {pid} is not complete (interrupted write)")
        if int(pid) not in self._verified:  # once per point: its checksums, then its values
            verify_point(self.path, group)
            self._check_index_row(int(pid), group)
            self._verified.add(int(pid))
        self._groups[int(pid)] = group
        return group

    def _check_index_row(self, pid, group):
        """/points/index carries no checksum, and table(), frame() and wide() take a point's
        parameters from it: its row must equal the (checksummed) attributes of the point, as
        storq info checks (docs/hdf5-schema.md, "What readers check", item 6)."""
        where = "/points/index"
        try:
            if self._index_rows is None:
                self._index_rows = self._file[where][()]
            rows = self._index_rows
            if rows.dtype.names is None or rows.dtype.names[0] != "point":
                raise DamagedFile(self.path, where, "it is not a table whose first column is "
                                  "'point'")
            if pid >= len(rows) or int(rows["point"][pid]) != pid:
                raise DamagedFile(self.path, where, f"row {pid} is not point {pid}")
            for col in rows.dtype.names[1:]:
                if col not in group.attrs:
                    raise DamagedFile(self.path, group.name, f"has no attribute '{col}', a "
                                      "column of /points/index")
                if not _same_value(rows[col][pid], group.attrs[col]):
                    raise DamagedFile(self.path, group.name,
                                      f"has {col} = {_text(group.attrs[col])!r}, but row {pid} of "
                                      f"/points/index says {_text(rows[col][pid])!r}")
        except DamagedFile:
            raise
        except (OSError, KeyError, ValueError, TypeError, RuntimeError) as e:
            raise DamagedFile(self.path, where, f"cannot be read ({e})") from e

    def point_attrs(self, pid):
        """A point's attributes: model, status, replications, wall_seconds, events and every
        parameter (and the precision target's, when the run had one)."""
        if self._v2 is not None:
            return self._v2.point_attrs(self._row(pid), self.attrs.get("model"))
        return _attrs(self._point(pid))

    def params(self, pid):
        """The parameter values of a point, by name."""
        return {k: v for k, v in self.point_attrs(pid).items() if k not in POINT_ATTRS}

    # ---- one point's data ----

    def observables(self, pid):
        """Observable names of a point with their kind ('scalar', 'vector', 'histogram')."""
        if self._v2 is not None:
            return self._v2.observables(self._row(pid))
        key = (int(pid), "kinds")
        kinds = self._members_cache.get(key)
        if kinds is None:
            group = self._point(pid)["observables"]
            kinds = {name: _text(g.attrs["kind"]) for name, g in group.items()}
            self._members_cache[key] = kinds
        return dict(kinds)

    def observable(self, pid, name):
        """One observable: a dict of numpy arrays (mean, stderr, ci95[, axis] or counts, bin_edges,
        underflow, overflow, count, sum, min, max, mean) plus its attributes (kind, unit,
        description[, histogram_kind, relative_resolution][, axis_name])."""
        if self._v2 is not None:
            return self._v2.observable(self._row(pid), name, pid)
        group = self._member(pid, "observables", name)
        out = {key: np.asarray(dset[()]) for key, dset in group.items()}
        out.update(_attrs(group))
        if "axis" in group:
            out["axis_name"] = _text(group["axis"].attrs.get("name", ""))
        return out

    def replications(self, pid, name):
        """Per-replication values in replication order: shape (R,), (R, length) or
        (R, rows, cols); for a histogram, each replication's sum of samples."""
        if self._v2 is not None:
            return self._v2.replications(self._row(pid), name, pid)
        return np.asarray(self._member(pid, "replications", name)[()])

    def _member(self, pid, group, name):
        """observables/NAME or replications/NAME of a point; a name the point lacks (points of one
        file may differ: forkjoin keeps its per-group vectors or their summary by g) is a KeyError
        that lists what the point has."""
        members = self._point(pid)[group]
        if name not in members:
            raise KeyError(f"{self.path}: point {pid} has no observable '{name}'; it has: "
                           + ", ".join(members))
        return members[name]

    def _arrays(self, pid, group):
        """{name: dataset} of a point's theory or comparison group (1.x), read once."""
        key = (int(pid), group)
        members = self._members_cache.get(key)
        if members is None:
            point = self._point(pid)
            members = dict(point[group].items()) if group in point else {}
            self._members_cache[key] = members
        return members

    def theory_names(self, pid):
        if self._v2 is not None:
            return self._v2.names(self._row(pid), "theory")
        return list(self._arrays(pid, "theory"))

    def comparison_names(self, pid):
        if self._v2 is not None:
            return self._v2.names(self._row(pid), "comparison")
        return list(self._arrays(pid, "comparison"))

    def theory(self, pid, name):
        """An analytic companion array (float64). Its unit, description and grid (the observable
        whose grid it shares) are in array_attrs(pid, 'theory', name)."""
        if self._v2 is not None:
            return self._v2.array(self._row(pid), "theory", name, pid)
        return np.asarray(self._arrays(pid, "theory")[name][()])

    def comparison(self, pid, name):
        """A simulation-versus-theory array (e.g. u_l1, a distance, has length 1)."""
        if self._v2 is not None:
            return self._v2.array(self._row(pid), "comparison", name, pid)
        return np.asarray(self._arrays(pid, "comparison")[name][()])

    def array_attrs(self, pid, group, name):
        """unit, description and grid of theory/<name> or comparison/<name>."""
        if self._v2 is not None:
            return self._v2.array_attrs(self._row(pid), group, name)
        key = (int(pid), group, name)
        attrs = self._attrs_cache.get(key)
        if attrs is None:
            attrs = _attrs(self._arrays(pid, group)[name])
            self._attrs_cache[key] = attrs
        return dict(attrs)

    def quantile(self, pid, hist_name, q):
        """Quantile(s) q in [0, 1] of a histogram, read off its counts.

        Inside a bin the value is linearly interpolated. For a log-linear histogram with
        relative_resolution 2^-s a bin [a, b) has b - a <= 2^-s a, and the true quantile of the
        recorded samples lies in the same bin, so the estimate is within a relative error 2^-s of
        it. Quantiles falling in the underflow (below bin_edges[0]) or overflow (at or above
        bin_edges[-1]) are interpolated between min and the first edge, or the last edge and max,
        and carry no such bound. For an integer histogram (bins [j, j+1)) the result is exact: the
        integer j of the bin holding the quantile.
        """
        h = self.observable(pid, hist_name)
        if h.get("kind") != "histogram":
            raise ValueError(f"{hist_name} is a {h.get('kind')}, not a histogram")
        qs = np.atleast_1d(np.asarray(q, dtype=float))
        if not np.all((qs >= 0) & (qs <= 1)):  # NaN too
            raise ValueError("quantile levels must be in [0, 1]")
        values = np.array([_hist_quantile(h, x) for x in qs])
        return float(values[0]) if np.ndim(q) == 0 else values

    def cdf(self, pid, hist_name):
        """The empirical CDF of a histogram's samples at its bin edges: (x, F) with x the edges
        (the first one is the underflow boundary) and F[j] = fraction of samples < x[j]. At the
        edges this is exact (no interpolation), so it draws the response-time CDFs of the papers
        to within the bin resolution in x."""
        h = self.observable(pid, hist_name)
        if h.get("kind") != "histogram":
            raise ValueError(f"{hist_name} is a {h.get('kind')}, not a histogram")
        counts = np.asarray(h["counts"], np.float64)
        total = float(h["underflow"]) + counts.sum() + float(h["overflow"])
        below = float(h["underflow"]) + np.concatenate(([0.0], np.cumsum(counts)))
        x = np.asarray(h["bin_edges"], np.float64)
        return x, (below / total if total > 0 else np.full(len(x), np.nan))

    # ---- all points ----

    def _point_params(self):
        """A function of a complete point's id giving its parameters: its /points/index row, or
        its attributes where the index lacks it. to_dict("index") keeps each column's type (a
        row taken with .loc turns the integer parameters of an all-numeric index into floats)."""
        index = self.index.set_index("point").to_dict("index")
        return lambda pid: index[pid] if pid in index else self.params(pid)

    def table(self):
        """One row per complete point: its parameters, every scalar observable's mean and ci95
        (columns NAME and NAME_ci95) and every length-1 comparison value."""
        params_of = self._point_params()
        rows = []
        if self._v2 is not None:
            for pid in self.points():
                row = {"point": pid}
                row.update(params_of(pid))
                for name, kind in self.observables(pid).items():
                    if kind == "scalar":
                        o = self.observable(pid, name)
                        row[name] = float(o["mean"])
                        row[name + "_ci95"] = float(o["ci95"])
                for name in self.comparison_names(pid):
                    values = self.comparison(pid, name)
                    if values.size == 1:
                        row[name] = float(values.reshape(-1)[0])
                rows.append(row)
            return _pandas().DataFrame(rows, columns=None if rows else ["point"] + self.parameters)
        for pid in self.points():
            row = {"point": pid}
            row.update(params_of(pid))
            point = self._point(pid)
            for name, group in point["observables"].items():
                if _text(group.attrs["kind"]) == "scalar":
                    row[name] = float(group["mean"][()])
                    row[name + "_ci95"] = float(group["ci95"][()])
            for name, dset in self._arrays(pid, "comparison").items():
                if dset.size == 1:
                    row[name] = float(np.asarray(dset[()]).reshape(-1)[0])
            rows.append(row)
        return _pandas().DataFrame(rows, columns=None if rows else ["point"] + self.parameters)


def _hist_quantile(h, q):
    counts = np.concatenate(([h["underflow"]], h["counts"], [h["overflow"]])).astype(np.float64)
    total = counts.sum()
    lo, hi = float(h["min"]), float(h["max"])
    if total == 0:
        return float("nan")
    if q <= 0:
        return lo
    if q >= 1:
        return hi
    edges = h["bin_edges"]
    target = q * total
    cum = np.cumsum(counts)
    i = int(np.searchsorted(cum, target, side="left"))
    below = cum[i] - counts[i]
    if i == 0:
        left, right = lo, float(edges[0])
    elif i == len(counts) - 1:
        left, right = float(edges[-1]), hi
    else:
        left, right = float(edges[i - 1]), float(edges[i])
        if h.get("histogram_kind") == "integer":
            return left
    value = left + (target - below) / counts[i] * (right - left)
    return min(max(value, lo), hi)
