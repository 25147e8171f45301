/* What a run is: a model, the list of parameter points (the Cartesian product of every list of
 * values given on the command line or in a sweep file), replications, seed and output. */
#ifndef STORQ_RUN_SPEC_H
#define STORQ_RUN_SPEC_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "error.h"
#include "model.h"
#include "params.h"

/* One parameter's values as the user gave them (a list of one or more texts). */
typedef struct storq_assignment {
    char *name;
    char **values;
    size_t nvalues;
    int line; /* the sweep file's line that gave them; 0: the command line or the default */
    int from_command_line; /* given on the command line (overriding a sweep file's values) */
} storq_assignment;

typedef struct storq_run_spec {
    const storq_model *model;
    storq_assignment *assign; /* one per model parameter, in table order (defaults filled in) */
    int *zipped;              /* per parameter: 1 when it is in the zip group */
    char *zip_text;           /* the zip group as given ("n, arrivals"), or NULL */
    char *zip_where;          /* where it was given, for messages: "--zip" or "FILE:LINE: [run] zip" */
    storq_params *points;     /* the Cartesian product, last parameter varying fastest; the
                                 zip group's lists advance together as one dimension */
    size_t npoints;
    size_t replications;      /* per point; with --precision, the batch size */
    double precision;         /* --precision REL: target 95% CI half-width / |mean|; 0: none */
    char *precision_obs;      /* the observable it targets; NULL: the model's headline */
    size_t max_replications;  /* with --precision: at most this many per point */
    const char *memory_limit; /* --memory-limit, into argv; NULL: STORQ_MEMORY_LIMIT or available */
    /* --workers W,... and --calibrate-from FILE.h5, into argv (NULL when not given): a dry run
     * predicts the run on W workers (src/app/plan.c checks and reads them) */
    const char *workers, *calibrate_from;
    char *precision_where, *max_replications_where; /* where they were given, as zip_where */
    uint64_t seed;
    char *output;
    size_t task_index, task_count; /* --task I/N: run only the points p with p % N == I;
                                      0 and 1 for the whole run */
    int resume;
    int force;          /* --force: replace an existing output (finished or partial) */
    int schema;         /* --schema 1|2: the finished file's layout (0: 1, a group a point) */
    int allow_unstable;
    int quiet;
    int help;           /* --help was given: nothing else was parsed; model set if one was named */
    int dry_run;        /* --dry-run: list the points (storq_run_spec_print), run and write nothing */
    char *config_text;  /* the run as an equivalent sweep file: what --resume compares */
    char *command_line;
} storq_run_spec;

/* Parse `run` arguments (the model name or a .ini sweep file, run options and parameters, in any
 * order). Usage errors name the flag or key and what is accepted. Does not touch the output file. */
int storq_run_spec_parse(int argc, char **argv, storq_run_spec *spec, storq_error *err);
/* Same, for `storq theory MODEL --param value ...` (no replications or output). */
int storq_theory_spec_parse(int argc, char **argv, storq_run_spec *spec, storq_error *err);
void storq_run_spec_free(storq_run_spec *spec);

/* --dry-run's listing: one line for the run (model, replications, seed, points, task), then one
 * line per point of this task, "point P: name=value ...", every parameter in table order. */
void storq_run_spec_print(const storq_run_spec *spec, FILE *out);
/* Its first line alone (the plan of --dry-run --workers starts with it). */
void storq_run_spec_print_run(const storq_run_spec *spec, FILE *out);

#endif
