/* The results file (schema version 1, see docs/hdf5-schema.md), written by one process.
 * The file lives as NAME.partial until storq_h5_finish() renames it, so no file appears under the
 * final name before it is complete; finished points are flushed as they finish, for --resume. */
#ifndef STORQ_H5_WRITER_H
#define STORQ_H5_WRITER_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#include "error.h"
#include "model.h"
#include "observables.h"
#include "params.h"
#include "theory.h"

/* The newest schema version this storq writes and understands. A file states the oldest version
 * that describes it: 1.1 added only the task attributes, so a whole run's file is still 1.0. */
#define STORQ_FORMAT_MAJOR 1
#define STORQ_FORMAT_MINOR 1

typedef struct storq_run_meta {
    const char *command_line; /* argv joined */
    const char *config_text;  /* the sweep file, or the flags as an equivalent sweep file */
    uint64_t seed;
    size_t replications;
    int mpi_ranks, omp_threads;
    size_t task_index, task_count; /* --task I/N; a count of 0 or 1 is the whole run */
} storq_run_meta;

typedef struct storq_h5_file storq_h5_file;

/* Create final_path.partial (replacing an old partial), write root attributes, /run/config and
 * /points/index (every point of the run, complete or not). */
int storq_h5_create(const char *final_path, const storq_run_meta *meta, const storq_model *model,
                    const storq_params *points, size_t npoints, storq_h5_file **out,
                    storq_error *err);

/* Reopen final_path.partial after a crash or time limit. Refuses (usage error) when its config
 * text, seed, replications, model or task differ from this run's. done[p] is set to 1 for each
 * point already complete in the file. */
int storq_h5_resume(const char *final_path, const storq_run_meta *meta, const storq_model *model,
                    size_t npoints, unsigned char *done, storq_h5_file **out, storq_error *err);

/* Write /points/NNNNNN (attributes, observables, replications, theory, comparison) and flush. */
int storq_h5_write_point(storq_h5_file *f, size_t point_id, const storq_params *params,
                         const storq_point_result *res, const storq_summary *summary,
                         const storq_theory *theory, const storq_theory *comparison,
                         double wall_seconds, storq_error *err);

/* Close and rename NAME.partial to NAME. *f becomes NULL. */
int storq_h5_finish(storq_h5_file **f, storq_error *err);

/* Close without renaming: the partial file stays for --resume. Accepts NULL and *f == NULL. */
void storq_h5_close(storq_h5_file **f);

/* `storq info FILE`: what a results file holds, as a table on out. */
int storq_h5_info(const char *path, FILE *out, storq_error *err);

/* `storq merge OUT IN...`: the complete points of job-array task files (or of any files of one
 * run) into OUT, written as OUT.partial and renamed only when it holds every point of the run.
 * Usage errors (exit 2, no file): an input that cannot be read or belongs to another run, a point
 * in two inputs, OUT among the inputs. Points that no input holds: OUT.partial is kept, they are
 * listed on report and the return is STORQ_ERR_RUNTIME. */
int storq_h5_merge(const char *out_path, char *const *inputs, size_t ninputs,
                   const char *command_line, FILE *report, storq_error *err);

#endif
