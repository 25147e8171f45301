/* An earlier run's record of its units (/run/units, docs/hdf5-schema.md "The run's units") and its
 * points, read back to predict another run from it (`storq run ... --dry-run --workers W
 * --calibrate-from FILE.h5`, src/app/plan_calibrate.c). */
#ifndef STORQ_H5_UNITS_READ_H
#define STORQ_H5_UNITS_READ_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"

/* A table without /run/units' cpu_seconds column (older files) is timed by end - start. */

typedef struct storq_units_read {
    char *model;       /* the file's root attribute "model" */
    size_t nrows;      /* rows of /run/units, every session's */
    uint64_t *point;   /* per row: the point id */
    int64_t *rep;      /* per row: the replication, or -1 for the point's theory */
    double *cost;      /* per row: the model's cost estimate of one replication (theory: 0) */
    double *seconds;   /* per row: cpu_seconds when the table has it, else end - start (>= 0) */
    int cpu_seconds;   /* 1: seconds come from the cpu_seconds column */
    size_t npoints;    /* rows of /points/index (point ids 0 .. npoints - 1, checked) */
    size_t nparams;    /* its columns besides "point" */
    char **param_names;   /* nparams names */
    char **param_values;  /* npoints x nparams, row by row: each value as text, floats with
                             every digit (%.17g) */
} storq_units_read;

/* Open path (checked as `storq info` checks a file: usage errors prefixed with label), read its
 * units and its points' parameters. A file without /run/units is a usage error saying why it may
 * lack one. On failure *out holds nothing. */
int storq_h5_units_read(const char *path, const char *label, storq_units_read *out,
                        storq_error *err);
void storq_h5_units_read_free(storq_units_read *u);

#endif
