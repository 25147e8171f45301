/* The storq results file format (docs/hdf5-schema.md) in one place: its name, the versions this
 * storq writes and reads, the names of the file's skeleton (root attributes, /run, /points, the
 * point groups, /checkpoints), and the one check that a file is a storq file this storq can
 * read, used by `storq info`, --resume and `storq merge`. What lies inside an observable group is
 * the writer's (h5_writer.c) and the documentation's business. */
#ifndef STORQ_SCHEMA_H
#define STORQ_SCHEMA_H

#include <hdf5.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

/* The value of the root attribute "format". */
#define STORQ_SCHEMA_FORMAT "storq"

/* format_version = [major, minor]. This storq reads every file of its major version, whatever the
 * minor (minor versions only add), and writes minor versions up to STORQ_SCHEMA_MINOR. A file
 * states the oldest version that describes it (storq_schema_version). */
#define STORQ_SCHEMA_MAJOR 1
#define STORQ_SCHEMA_MINOR 3
#define STORQ_SCHEMA_MINOR_TASKS 1       /* added the task attributes: a job-array task's file */
#define STORQ_SCHEMA_MINOR_CHECKPOINTS 2 /* added /checkpoints: unfinished points' replications */
#define STORQ_SCHEMA_MINOR_LAYOUTS 3     /* added /layouts: bin edges stored once per layout */
/* Schema 2.0 (docs/hdf5-schema-2.md): a dataset a quantity with a row a point, written by `storq
 * convert`; read by `storq info` (not yet by merge or --resume). */
#define STORQ_SCHEMA_MAJOR_COLUMNAR 2

/* Root attributes. */
#define STORQ_SCHEMA_ATTR_FORMAT "format"
#define STORQ_SCHEMA_ATTR_VERSION "format_version"
#define STORQ_SCHEMA_ATTR_STORQ_VERSION "storq_version"
#define STORQ_SCHEMA_ATTR_GIT_COMMIT "git_commit"
#define STORQ_SCHEMA_ATTR_CREATED "created"
#define STORQ_SCHEMA_ATTR_HOSTNAME "hostname"
#define STORQ_SCHEMA_ATTR_COMMAND_LINE "command_line"
#define STORQ_SCHEMA_ATTR_MODEL "model" /* also of every point group */
#define STORQ_SCHEMA_ATTR_SEED "seed"
#define STORQ_SCHEMA_ATTR_REPLICATIONS "replications" /* also of every point group */
#define STORQ_SCHEMA_ATTR_MPI_RANKS "mpi_ranks"
#define STORQ_SCHEMA_ATTR_OMP_THREADS "omp_threads"
#define STORQ_SCHEMA_ATTR_TASK_INDEX "task_index" /* 1.1 */
#define STORQ_SCHEMA_ATTR_TASK_COUNT "task_count" /* 1.1 */

/* /run/config: the run configuration as text. */
#define STORQ_SCHEMA_RUN "run"
#define STORQ_SCHEMA_CONFIG "config"
#define STORQ_SCHEMA_CONFIG_PATH "/" STORQ_SCHEMA_RUN "/" STORQ_SCHEMA_CONFIG

/* /points holds the index (one row per point: the column "point", then one per parameter, with
 * their units) and one group per finished point, named by its zero-padded id. */
#define STORQ_SCHEMA_POINTS "points"
#define STORQ_SCHEMA_INDEX "index"
#define STORQ_SCHEMA_INDEX_PATH "/" STORQ_SCHEMA_POINTS "/" STORQ_SCHEMA_INDEX
#define STORQ_SCHEMA_INDEX_POINT "point"
#define STORQ_SCHEMA_INDEX_UNITS "units"

/* A point group: its attributes besides the point's parameters, and its groups. Its status is
 * written last, so a group without status "complete" is an interrupted write. */
#define STORQ_SCHEMA_ATTR_STATUS "status"
/* Every object of a point group (itself included): uint32, the CRC-32 of its data and its other
 * attributes (io/h5_checksum.h). Absent from files written before it: they are read unchecked. */
#define STORQ_SCHEMA_ATTR_CRC32 "crc32"
#define STORQ_SCHEMA_COMPLETE "complete"
#define STORQ_SCHEMA_ATTR_WALL_SECONDS "wall_seconds"
#define STORQ_SCHEMA_ATTR_EVENTS "events"
/* A point run with a precision target (--precision): the target, what it reached, why it stopped. */
#define STORQ_SCHEMA_ATTR_PRECISION_TARGET "precision_target"
#define STORQ_SCHEMA_ATTR_PRECISION_OBSERVABLE "precision_observable"
#define STORQ_SCHEMA_ATTR_PRECISION_ACHIEVED "precision_achieved"
#define STORQ_SCHEMA_ATTR_PRECISION_MET "precision_met"
#define STORQ_SCHEMA_ATTR_MAX_REPLICATIONS "max_replications"
#define STORQ_SCHEMA_ATTR_STOPPED_BECAUSE "stopped_because"
#define STORQ_SCHEMA_OBSERVABLES "observables"
#define STORQ_SCHEMA_REPLICATIONS "replications"
#define STORQ_SCHEMA_THEORY "theory"
#define STORQ_SCHEMA_COMPARISON "comparison"

/* /checkpoints (1.2, partial files only) holds one group per unfinished point that has
 * replications in, named like its point group; docs/hdf5-schema.md, "Checkpoints". A checkpoint
 * is written under its name plus STORQ_SCHEMA_CHECKPOINT_TMP, then renamed; it counts only with
 * status "complete" (written last), like a point group. */
#define STORQ_SCHEMA_CHECKPOINTS "checkpoints"
#define STORQ_SCHEMA_CHECKPOINT_TMP ".new"
#define STORQ_SCHEMA_CHECKPOINT_DONE "done"     /* uint8 (R): 1 for each replication in */
#define STORQ_SCHEMA_CHECKPOINT_VALUES "values" /* float64 (R, nvalues) */
#define STORQ_SCHEMA_CHECKPOINT_COUNTS "counts" /* uint64 (ncounts) */
#define STORQ_SCHEMA_CHECKPOINT_MINMAX "minmax" /* float64 (nminmax) */
#define STORQ_SCHEMA_ATTR_REPLICATIONS_IN "replications_in"
#define STORQ_SCHEMA_ATTR_WORKER_SECONDS "worker_seconds"

/* /layouts (1.3) holds each histogram layout's bin edges once, as /layouts/NAME (float64,
 * nbins + 1, with its crc32); a histogram's bin_edges is then a soft link to it, which readers
 * follow without knowing (docs/hdf5-schema.md, "Layouts"). Files before 1.3 store the edges in
 * every histogram: readers take both. */
#define STORQ_SCHEMA_LAYOUTS "layouts"
#define STORQ_SCHEMA_LAYOUTS_PATH "/" STORQ_SCHEMA_LAYOUTS
#define STORQ_SCHEMA_BIN_EDGES "bin_edges"

/* The run's record of itself (docs/hdf5-schema.md, "The run's units"), written by
 * io/h5_units.c when a run ends. Optional in every 1.x file and no part of the results, like the
 * run-description attributes: it raises no format_version (see storq_schema_restate_version), nor
 * did its later columns (cpu_seconds, /run/ranks): readers tell them by their presence.
 * /run/units: one row per work unit that ran, a chunked compound table extended by each session
 * (the first run of the file is session 0, each --resume the next). */
#define STORQ_SCHEMA_UNITS "units"
#define STORQ_SCHEMA_UNITS_PATH "/" STORQ_SCHEMA_RUN "/" STORQ_SCHEMA_UNITS
#define STORQ_SCHEMA_UNIT_SESSION "session" /* uint32 (also a column of /run/sessions) */
#define STORQ_SCHEMA_UNIT_POINT "point"     /* uint64 */
#define STORQ_SCHEMA_UNIT_REP "rep"         /* int64: replication, -1 for the theory */
#define STORQ_SCHEMA_UNIT_RANK "rank"       /* int32 */
#define STORQ_SCHEMA_UNIT_THREAD "thread"   /* int32 */
#define STORQ_SCHEMA_UNIT_START "start"     /* float64 s since the session's work began */
#define STORQ_SCHEMA_UNIT_END "end"         /* float64 s, likewise */
#define STORQ_SCHEMA_UNIT_EVENTS "events"   /* uint64 */
#define STORQ_SCHEMA_UNIT_COST "cost"       /* float64: the scheduler's estimate */
#define STORQ_SCHEMA_UNIT_CPU "cpu_seconds" /* float64: the unit's thread's CPU time; NaN: none */
/* /run/sessions: one row per session (the session column, then these, named like /run's
 * attributes). */
#define STORQ_SCHEMA_SESSIONS "sessions"
#define STORQ_SCHEMA_SESSIONS_PATH "/" STORQ_SCHEMA_RUN "/" STORQ_SCHEMA_SESSIONS
#define STORQ_SCHEMA_SESSION_UNITS "units" /* uint64: rows the session added to /run/units */
/* /run/ranks: one row per rank and session (the session and rank columns, then these): where the
 * rank's worker threads' time went, and its serving thread's CPU time. */
#define STORQ_SCHEMA_RANKS "ranks"
#define STORQ_SCHEMA_RANKS_PATH "/" STORQ_SCHEMA_RUN "/" STORQ_SCHEMA_RANKS
#define STORQ_SCHEMA_RANK_THREADS "threads"                /* int32: its worker threads */
#define STORQ_SCHEMA_RANK_SIMULATING "simulating_seconds"  /* float64: CPU s inside its units */
#define STORQ_SCHEMA_RANK_IN_UNITS "in_units_seconds"      /* float64: wall s inside its units */
/* /run's attributes: the latest session's row of /run/sessions, and how many sessions there are
 * (wall_seconds is STORQ_SCHEMA_ATTR_WALL_SECONDS). */
#define STORQ_SCHEMA_ATTR_WORKERS "workers"                   /* int64: ranks x threads */
#define STORQ_SCHEMA_ATTR_BUSY_SECONDS "busy_seconds"         /* float64: sum of cpu_seconds */
#define STORQ_SCHEMA_ATTR_EFFICIENCY "parallel_efficiency"    /* float64: busy / (workers x wall) */
#define STORQ_SCHEMA_ATTR_SESSIONS "sessions"                 /* uint64 */
/* Added with cpu_seconds, after the columns above: a session whose unit_seconds is NaN (or a
 * table without it) was recorded before CPU time, and its busy_seconds and parallel_efficiency
 * are sums of end - start. The last three are also columns of /run/ranks. */
#define STORQ_SCHEMA_ATTR_UNIT_SECONDS "unit_seconds"       /* float64: sum of end - start */
#define STORQ_SCHEMA_ATTR_WAITING_SECONDS "waiting_seconds" /* float64: sum over ranks */
#define STORQ_SCHEMA_ATTR_IDLE_SECONDS "idle_seconds"       /* float64: sum over ranks */
#define STORQ_SCHEMA_ATTR_SERVING_SECONDS "serving_seconds" /* float64: sum over ranks, CPU */
/* Set by --resume's salvage of a partial whose /run records could not be read (io/h5_merge.c):
 * the tables hold only the sessions after it; absent otherwise. */
#define STORQ_SCHEMA_ATTR_RECORD_LOST "earlier_record_lost" /* uint64: 1 */
/* A task's table carries its task (STORQ_SCHEMA_ATTR_TASK_INDEX and _COUNT on /run/units), so a
 * table that `storq merge` copied with /run from one task's file is told from the whole run's. */

/* The root attributes this storq knows, in the documentation's order (NULL-terminated). */
extern const char *const storq_schema_root_attrs[];

/* The names a point group's attributes and the index's columns use besides the parameters': no
 * parameter may take one (NULL-terminated). */
extern const char *const storq_schema_point_names[];

/* What a file may be used for: a reader takes any minor version of its major; a merge rewrites
 * the root, so it must know every attribute there: no minor version newer than this storq's.
 * STORQ_SCHEMA_READ takes 1.x files; STORQ_SCHEMA_MERGE and STORQ_SCHEMA_READ_COLUMNAR also 2.0
 * files. */
typedef enum storq_schema_use {
    STORQ_SCHEMA_READ,
    STORQ_SCHEMA_MERGE,
    STORQ_SCHEMA_READ_COLUMNAR
} storq_schema_use;

typedef struct storq_schema_info {
    int32_t major, minor; /* format_version */
} storq_schema_info;

/* Whether the open file is a storq results file this storq can use. Usage errors that name the
 * file, prefixed "LABEL: " unless label is NULL: "PATH is not a storq results file", "PATH has
 * format version 3.0; this storq reads 1.x and 2.0", for a 2.0 file where 1.x is needed "PATH has
 * format version 2.0 (columnar, written by storq convert): LABEL reads 1.x files ...", or for a
 * merge "... 1.7; this storq merges files up to 1.3 (...)". info (may be NULL) gets the
 * version. */
int storq_schema_check(hid_t file, const char *path, const char *label, storq_schema_use use,
                       storq_schema_info *info, storq_error *err);

/* The major format version of an open file that passed storq_schema_check (0 if unreadable). */
int storq_schema_major(hid_t file);

/* Open path read-only and check it as above. Usage errors, prefixed as above: "cannot read PATH:
 * <errno>", "PATH is not a storq results file (not HDF5)"; a file HDF5 cannot open (locked by a
 * run writing it, say) is a runtime error with busy_hint in parentheses. */
int storq_schema_open(const char *path, const char *label, storq_schema_use use,
                      const char *busy_hint, hid_t *file, storq_schema_info *info,
                      storq_error *err);

/* The format_version a file without checkpoints states: 1.0 for a whole run's file, 1.1 for a
 * task's (count > 1). */
void storq_schema_version(size_t task_count, int32_t version[2]);

/* Rewrite the format_version of an open (read-write) results file to what it holds now: that of
 * its task attributes, raised to 1.2 while the group /checkpoints exists, to 1.3 when it has
 * /layouts. /run/units, /run/sessions and /run/ranks play no part: optional in any 1.x file,
 * they need no version of their own. A file stating a minor version newer than this storq's is left alone (it may hold what this storq does
 * not know). */
int storq_schema_restate_version(hid_t file, storq_error *err);

/* "/points/000042": the group of point id. Room for any id: */
#define STORQ_SCHEMA_POINT_PATH_MAX 40
void storq_schema_point_path(size_t id, char *buf, size_t size);

/* "/checkpoints/000042": the checkpoint of point id (room: STORQ_SCHEMA_POINT_PATH_MAX). */
void storq_schema_checkpoint_path(size_t id, char *buf, size_t size);

/* 1 and *id when name (a link in /points or /checkpoints) names a point's group, 0 for anything
 * else (the index, a checkpoint's temporary name). */
int storq_schema_point_id(const char *name, size_t *id);

/* 1 when the group loc/name (a point or a checkpoint) has status "complete", 0 when it lacks it
 * (an interrupted write), -1 when it cannot be opened. */
int storq_schema_point_complete(hid_t loc, const char *name);

#endif
