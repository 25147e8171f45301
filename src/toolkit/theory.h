/* Named arrays of analytic companions (theory) and of simulation-versus-theory comparisons,
 * written beside a point's observables. */
#ifndef STORQ_THEORY_H
#define STORQ_THEORY_H

#include <stddef.h>

#include "error.h"
#include "observables.h"

typedef struct storq_array {
    char name[STORQ_NAME_MAX];
    char unit[32];
    char desc[256];
    /* The observable (or axis) whose grid this array shares, e.g. "u" for the fixed point of the
     * occupancy, "u_t" for the ODE on a transient run's time grid; empty when none. */
    char grid[STORQ_NAME_MAX];
    double *data;
    size_t len;
} storq_array;

typedef struct storq_theory {
    storq_array *items;
    size_t n, cap;
} storq_theory;

/* Copies data. Returns 0, or STORQ_ERR_RUNTIME on allocation failure. */
int storq_theory_add(storq_theory *t, const char *name, const char *unit, const char *desc,
                     const char *grid, const double *data, size_t len, storq_error *err);
/* One number (a scalar beside the observable of the same name). */
int storq_theory_scalar(storq_theory *t, const char *name, const char *unit, const char *desc,
                        double value, storq_error *err);
const storq_array *storq_theory_find(const storq_theory *t, const char *name);
void storq_theory_free(storq_theory *t);

#endif
