/* A run predicted before it is submitted: `storq run MODEL|SWEEP.ini [...] --dry-run --workers
 * W[,W...] [--calibrate-from FILE.h5]` prints its units with their estimated seconds, the wall
 * time and parallel efficiency of each W (the units replayed in storq's hand-out order,
 * plan_replay.h) and the largest W that keeps the efficiency at STORQ_PLAN_TARGET or above. The
 * seconds come from a short calibration here or from an earlier run's units (plan_seconds.h).
 * Nothing is written and no MPI is started (docs/performance.md, "Predicting a run before
 * submission"). */
#ifndef STORQ_PLAN_H
#define STORQ_PLAN_H

#include <stdio.h>

#include "error.h"
#include "run_spec.h"

/* The efficiency the largest W must keep. */
#define STORQ_PLAN_TARGET 0.9
/* Seconds a worker spends getting a unit, added to every unit: 0, since a worker asks rank 0 for
 * its next units while its last one runs (mpi/dispatch.c; measured waits of 0.00 s over tcp,
 * docs/performance.md). */
#define STORQ_PLAN_DISPATCH_SECONDS 0.0
/* Points listed one per line; a larger run lists its STORQ_PLAN_LISTED most expensive. */
#define STORQ_PLAN_LISTED 40
/* Worker counts accepted. */
#define STORQ_PLAN_WORKERS_MAX 1000000000ull

/* The plan's options against the rest of the command line: --workers (a list of counts in
 * [1, STORQ_PLAN_WORKERS_MAX]) and --calibrate-from need --dry-run, --calibrate-from needs
 * --workers. Usage errors naming the option. */
int storq_plan_check(const storq_run_spec *spec, storq_error *err);

/* Predict the run spec describes (spec->workers set, storq_plan_check passed) and print it. Usage
 * errors for a point the model refuses or a --calibrate-from file that cannot be used. */
int storq_plan_print(const storq_run_spec *spec, FILE *out, storq_error *err);

#endif
