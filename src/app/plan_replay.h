/* A run's units replayed on W workers the way storq hands them out (src/app/schedule.c), to
 * predict its wall time before it is submitted (`storq run ... --dry-run --workers W`, plan.c):
 * each unit, in hand-out order, goes to the first worker that is free (list scheduling), as the
 * shared counter of a real run gives the next unit to whichever worker asks first. The same rule
 * as jobs/replay_schedule.py, which replays a finished run's recorded units. */
#ifndef STORQ_PLAN_REPLAY_H
#define STORQ_PLAN_REPLAY_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "schedule.h"

/* The units of a run in hand-out order with their predicted seconds. */
typedef struct storq_plan_units {
    size_t n;
    storq_unit *units; /* which (point, replication or theory) each is */
    double *seconds;   /* each one's predicted seconds, the dispatch overhead included */
    double total;      /* their sum: the run's work in worker-seconds */
    size_t longest;    /* the index of the longest (the first of equals) */
} storq_plan_units;

/* The units of the points with skip[p] == 0, ordered by storq_schedule_build (theory units first
 * when theory_seconds is not NULL, then replications 0 .. replications - 1 by cost, largest
 * first, ties by point, then replication); a replication of point p takes rep_seconds[p], its
 * theory theory_seconds[p], each plus dispatch seconds. */
int storq_plan_units_build(size_t npoints, const unsigned char *skip, const double *cost,
                           const double *rep_seconds, const double *theory_seconds,
                           size_t replications, double dispatch, storq_plan_units *out,
                           storq_error *err);
void storq_plan_units_free(storq_plan_units *u);

/* The wall time of n units of the given seconds, in that order, on workers identical workers,
 * each unit to the first free one; 0 for no units. With at least as many workers as units every
 * unit starts at once and the longest decides. Returns a negative value when out of memory. */
double storq_plan_wall(const double *seconds, size_t n, uint64_t workers);

/* The share of the workers' time spent in units: total / (workers x wall); 1 when wall is 0. */
double storq_plan_efficiency(double total, uint64_t workers, double wall);

typedef struct storq_plan_largest {
    uint64_t workers; /* the largest W found whose efficiency is at least the target; 0: none
                         (no units, or all of zero seconds) */
    double wall;      /* its wall time */
    int exact;        /* 1: every W from the bound down to it was replayed; 0: found by
                         bisection below the bound (efficiency(W + 1) is below the target) */
    uint64_t bound;   /* total / (target x longest): no W above it can reach the target */
} storq_plan_largest;

/* The largest number of workers whose replayed efficiency is at least target (in (0, 1]).
 * Efficiency is not monotone in W under list scheduling (12 equal units: 1.0 on 4 workers, 0.8 on
 * 5, 1.0 on 6), so every W from the bound down is replayed while that stays cheap, then the rest
 * is bisected. Returns STORQ_OK, or a runtime error when out of memory. */
int storq_plan_largest_workers(const double *seconds, size_t n, double target,
                               storq_plan_largest *out, storq_error *err);

#endif
