/* The seconds of every unit of a run, for its prediction (`storq run ... --dry-run --workers W`,
 * plan.c), from one of two sources: a short calibration here, which runs the start of a real
 * replication of a few points and times their theory (plan_calibrate.c), or an earlier run's
 * record of its units (--calibrate-from FILE.h5, plan_from_file.c). */
#ifndef STORQ_PLAN_SECONDS_H
#define STORQ_PLAN_SECONDS_H

#include <stddef.h>

#include "error.h"
#include "observables.h"
#include "run_spec.h"

/* Time limits of the calibration here: each sampled point gets SAMPLE seconds (a replication
 * stopped then, or short ones repeated while they fit); no sample starts once the replications
 * have used CALIBRATION seconds; theories are timed until THEORY seconds are used. */
#define STORQ_PLAN_SAMPLES 6
#define STORQ_PLAN_SAMPLE_SECONDS 0.4
#define STORQ_PLAN_REPEATS 16 /* at most this many short replications per sample */
#define STORQ_PLAN_CALIBRATION_SECONDS 2.6
#define STORQ_PLAN_THEORY_SECONDS 0.4

/* The run's prepared points (plan.c prepares them as the driver does). */
typedef struct storq_plan_points {
    const storq_run_spec *spec;
    const unsigned char *skip; /* per point: 1 when not in this task */
    void **ctx;                /* per point in the task: the model's context */
    storq_observables *obs;    /* per point in the task: its declared observables */
    const double *cost;        /* per point: model->cost (1 without one) */
    const double *steps;       /* per point: model->steps, 0 without one */
} storq_plan_points;

typedef struct storq_plan_seconds {
    double *rep;          /* per point: the seconds of one replication */
    double *theory;       /* per point: the seconds of its theory unit; NULL: the model has none */
    unsigned char *own;   /* per point: 1 when its figure was measured on the point itself */
    size_t measured;      /* points measured on themselves */
    double took;          /* seconds the calibration took (here: replications and theories) */
    char how[768];        /* where the replications' figures come from, in words */
    char theory_how[384]; /* where the theory units' come from ("" without theory) */
} storq_plan_seconds;

/* The short calibration (no file). A stop signal during it is STORQ_STOPPED. */
int storq_plan_calibrate_here(const storq_plan_points *pts, storq_plan_seconds *out,
                              storq_error *err);
/* From path's /run/units (usage errors name --calibrate-from). */
int storq_plan_calibrate_from(const storq_plan_points *pts, const char *path,
                              storq_plan_seconds *out, storq_error *err);
void storq_plan_seconds_free(storq_plan_seconds *s);

/* Allocate out's arrays for npoints points (theory: whether the model has one). */
int storq_plan_seconds_alloc(storq_plan_seconds *out, size_t npoints, int theory,
                             storq_error *err);

#endif
