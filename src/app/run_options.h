/* The run options that flags and a sweep file's [run] section share (-r, --seed, -o, --task,
 * --precision, --max-replications, --zip): each parsed, checked and stored in the run
 * specification with where it came from, "what" naming it in messages ("--seed" or
 * "FILE:LINE: [run] seed"). */
#ifndef STORQ_RUN_OPTIONS_H
#define STORQ_RUN_OPTIONS_H

#include <stddef.h>

#include "error.h"
#include "run_spec.h"

#define STORQ_MAX_POINTS 1000000 /* points of one sweep (and tasks of one job array) */

int storq_runopt_count(const char *what, const char *text, unsigned long long min,
                       unsigned long long max, unsigned long long *out, storq_error *err);
int storq_runopt_bool(const char *what, const char *text, int *out, storq_error *err);
int storq_runopt_replications(storq_run_spec *spec, const char *what, const char *text,
                              storq_error *err);
int storq_runopt_seed(storq_run_spec *spec, const char *what, const char *text,
                      storq_error *err);
int storq_runopt_output(storq_run_spec *spec, const char *text, storq_error *err);
int storq_runopt_task(storq_run_spec *spec, const char *text, storq_error *err);
int storq_runopt_task_suffix(storq_run_spec *spec, storq_error *err);
int storq_runopt_precision(storq_run_spec *spec, const char *what, const char *text,
                           storq_error *err);
int storq_runopt_max_replications(storq_run_spec *spec, const char *what, const char *text,
                                  storq_error *err);
int storq_runopt_check_precision(const storq_run_spec *spec, storq_error *err);
/* The zip group's names, each a parameter of the model, none twice, at least two. */
int storq_runopt_split_zip(const storq_run_spec *spec, const char *text, const char *what,
                           char ***names, size_t *n, storq_error *err);
int storq_runopt_zip(storq_run_spec *spec, const char *what, const char *text, storq_error *err);

/* --schema 1|2 (also 1.x, 2.0): the finished results file's layout (docs/hdf5-schema-2.md). */
int storq_runopt_schema(int *schema, const char *text, storq_error *err);

#endif
