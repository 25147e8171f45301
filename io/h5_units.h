/* The run's record of itself: one row per work unit it ran (a replication, or a point's theory),
 * with where and when and the CPU time it took, per rank where its threads' time went, and the
 * run's parallel efficiency, so a user can see how busy the workers were and replay the unit
 * costs on more workers before sizing an allocation (jobs/replay_schedule.py). Written by rank 0
 * when a run ends, finished or not (docs/hdf5-schema.md, "The run's units"). */
#ifndef STORQ_H5_UNITS_H
#define STORQ_H5_UNITS_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "h5_writer.h"

#define STORQ_UNIT_REP_THEORY (-1) /* rep of a point's theory unit */

typedef struct storq_unit_row {
    uint64_t point;
    int64_t rep;       /* replication index, or STORQ_UNIT_REP_THEORY */
    int32_t rank, thread;
    double start, end; /* seconds since the run's work began (every rank's clock, set at a barrier) */
    uint64_t events;   /* simulated events (0 for theory) */
    double cost;       /* the model's cost estimate the scheduler ordered the unit by (theory: 0) */
    double cpu;        /* CPU seconds of the unit's thread from start to end
                        * (CLOCK_THREAD_CPUTIME_ID); NaN when it could not be measured */
} storq_unit_row;

/* Where one rank's time went in this session, in thread-seconds summed over its worker threads:
 * threads x wall = in_units + waiting + idle, and simulating <= in_units. */
typedef struct storq_rank_time {
    int32_t rank, threads;
    double simulating; /* CPU seconds of its threads inside its units: the only time counted as
                        * work */
    double in_units;   /* wall seconds inside its units (simulating + stretched: preempted, or
                        * serving/collecting) */
    double waiting;    /* seconds its threads waited for a unit to be handed out */
    double idle;       /* the rest: threads x wall - in_units - waiting (start-up, collecting, no
                        * work left) */
    double serving;    /* CPU seconds of the rank's serving thread (rank 0 hands out units and takes
                        * in results on a thread of its own; 0 on other ranks). Not part of
                        * threads x wall. */
} storq_rank_time;

/* Append this session's rows to /run/units (a resumed run adds its own after the earlier ones,
 * with its session number: one past the largest in the file, 0 in a file without any), its ranks
 * to /run/ranks, its row to /run/sessions, and set /run's attributes for this session: workers
 * (ranks x threads), wall_seconds (from the work's start to its end), busy_seconds (sum of the
 * rows' cpu: CPU time simulating), unit_seconds (sum of end - start), waiting_seconds,
 * idle_seconds, serving_seconds (sums over ranks; NaN when nranks is 0), parallel_efficiency =
 * busy / (workers x wall) (NaN when wall is 0), sessions (how many). n may be 0 (the session
 * still counts); ranks may be NULL with nranks 0 (then /run/ranks gets no rows for this
 * session). A table another task wrote (copied by storq merge) is replaced, not extended; a
 * table of a storq before cpu_seconds is rewritten with the new columns (NaN in its rows).
 * Rows with rep below -1 or a negative cpu, ranks with a negative number or a figure that is not
 * finite, fewer than 1 worker or a wall time that is not a duration are runtime errors that
 * write nothing. Adds no format_version. Flushes. */
int storq_h5_write_units(storq_h5_file *f, const storq_unit_row *rows, size_t n,
                         const storq_rank_time *ranks, size_t nranks, int workers,
                         double wall_seconds, storq_error *err);

/* The same record written as the session goes, so that rank 0 holds at most a block of rows
 * whatever the number of units: begin takes the session's number (and drops another task's
 * tables), add buffers a row and appends every STORQ_UNITS_BLOCK rows to /run/units (then
 * flushes: a session killed later keeps them, without its /run/sessions row), end writes the
 * rest, the ranks, the session's row and /run's attributes, as storq_h5_write_units does.
 * planned: the rows the session expects, so that a new table's chunks fit them (more still go
 * in). A bad row is refused when it is added. */
#define STORQ_UNITS_BLOCK 16384
typedef struct storq_units_record storq_units_record;
int storq_h5_units_begin(storq_h5_file *f, uint64_t planned, storq_units_record **r,
                         storq_error *err);
int storq_h5_units_add(storq_units_record *r, const storq_unit_row *row, storq_error *err);
int storq_h5_units_end(storq_units_record *r, const storq_rank_time *ranks, size_t nranks,
                       int workers, double wall_seconds, storq_error *err);
void storq_h5_units_free(storq_units_record **r);

#endif
