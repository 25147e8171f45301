/* A run's points, built only once the memory budget is known (src/app/main.c sets the budget,
 * then calls storq_run_spec_expand): what the points and the run's bookkeeping of them will hold
 * is estimated from the lists as given, before anything per point is allocated, and a sweep that
 * would not fit is refused with the estimate and the limit (a 990,000-point sweep under
 * --memory-limit 200M reached 9.5 GB before writing anything). */
#ifndef STORQ_POINT_LIST_H
#define STORQ_POINT_LIST_H

#include <stddef.h>

#include "error.h"
#include "run_spec.h"

/* The bytes a rank holds for the run's points and work units, whatever the model: the points'
 * parameter values (every point of the sweep: each rank builds them all), the driver's per-point
 * arrays, the work units of this task and their hand-out; root (rank 0, or a process without
 * MPI): also its per-point state, the results file's index and the block of /run/units rows it
 * holds before writing them (a constant). The models' own per-point contexts are not in it
 * (measured as they are prepared: src/app/point_memory.c). */
size_t storq_point_list_bytes(const storq_run_spec *spec, int root);

/* Check storq_point_list_bytes against the rank's budget (a usage error with the estimate and the
 * limit), then build spec->points: the Cartesian product of the lists, last parameter varying
 * fastest, the zip group advancing as one list. A stop asked for meanwhile ends it (STORQ_STOPPED). */
int storq_run_spec_expand(storq_run_spec *spec, int root, storq_error *err);

#endif
