/* The work units of a run and the order they are handed out in: one queue over every point of
 * the run (or of the task's share), so no worker waits for a point to end before starting the
 * next. Every rank builds the same list from the same costs, so a unit's index names it. */
#ifndef STORQ_SCHEDULE_H
#define STORQ_SCHEDULE_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"

#define STORQ_UNIT_THEORY (-1) /* rep of the unit that computes a point's theory */

typedef struct storq_unit {
    size_t point;
    int64_t rep; /* a replication index, or STORQ_UNIT_THEORY */
} storq_unit;

/* Units of the points with skip[p] == 0: each point's theory first when the model has one (its
 * cost is unknown, it may be the largest unit of the point, e.g. a cavity solve, and the point
 * cannot finish without it), then every replication, the most expensive first by the model's
 * cost per replication (longest processing time first), ties by point id, then replication.
 * With a precision target the replications come in batches of batch_size, batch by batch (the
 * units of batch b + 1 of any point after those of batch b of every point), so that later batches,
 * which a point may not need, are taken last. */
/* rep_done: NULL, or per point NULL or replications bytes, 1 for a replication already in (a
 * checkpoint read by --resume): those are left out. */
int storq_schedule_build(size_t npoints, const unsigned char *skip,
                         const unsigned char *const *rep_done, const double *rep_cost,
                         size_t replications, size_t batch_size, int with_theory,
                         storq_unit **units, size_t *nunits, storq_error *err);

#endif
