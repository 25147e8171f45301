/* The memory a sweep's points hold once prepared (each one's model context and observables, kept
 * for the whole run), which the per-replication budget does not see: a 990,000-point sweep
 * reached 9.5 GB before writing anything. Measured on the heap as the points are prepared: what
 * the prepared points hold plus the rest at the smallest size seen after the first (a one-off load
 * such as a trace file's cache is not every point's), so that a sweep that would not fit is
 * refused after its first points rather than after swapping through all of them. */
#ifndef STORQ_POINT_MEMORY_H
#define STORQ_POINT_MEMORY_H

#include <stddef.h>

#include "error.h"
#include "observables.h"

typedef struct {
    size_t base, before, each; /* each: the smallest point's bytes after the first */
    size_t fixed; /* what the points and the run's records of them hold besides (point_list.h) */
} storq_point_memory;

/* fixed: the bytes storq_point_list_bytes counts, added to every check. */
void storq_point_memory_start(storq_point_memory *m, size_t fixed);
/* Around one point's preparation: before it, then after it with the points still to prepare
 * (of this task); a usage error with the estimate and the rank's budget when the prepared points
 * plus `left` more of that size would not fit. */
void storq_point_memory_before(storq_point_memory *m);
int storq_point_memory_after(storq_point_memory *m, size_t left, size_t npoints,
                             storq_error *err);

/* Rank 0 after every point is prepared: the prepared points, the fixed bytes and `open` tables of
 * replications of `table` bytes each (the points in progress at once) against the rank's budget. */
int storq_point_memory_open_tables(const storq_point_memory *m, size_t open, size_t table,
                                   storq_error *err);

/* One point's table of replications on rank 0 (src/app/collect.c): reps rows of its values. */
size_t storq_point_table_bytes(const storq_observables *obs, size_t reps);

#endif
