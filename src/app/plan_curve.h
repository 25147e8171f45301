/* A quantity measured at a few points (seconds per step, per cost unit, of a theory) carried to
 * every point of a run by the model's cost estimate: linear in log(cost) between the measured
 * costs, constant beyond them (no extrapolation of a trend the measurements do not show). */
#ifndef STORQ_PLAN_CURVE_H
#define STORQ_PLAN_CURVE_H

#include <stddef.h>

#include "error.h"

typedef struct storq_plan_curve {
    size_t n;
    double *x, *y; /* log(cost), increasing, and the value there */
} storq_plan_curve;

/* From n measurements (cost > 0); those of equal cost are averaged. n may be 0: the curve is
 * then 0 everywhere. */
int storq_plan_curve_build(const double *cost, const double *y, size_t n, storq_plan_curve *c,
                           storq_error *err);
double storq_plan_curve_at(const storq_plan_curve *c, double cost);
void storq_plan_curve_free(storq_plan_curve *c);

#endif
