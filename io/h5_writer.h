/* The results file (docs/hdf5-schema.md, io/schema.h), written by one process.
 * The file lives as NAME.partial until storq_h5_finish() renames it, so no file appears under the
 * final name before it is complete; finished points are flushed as they finish, for --resume. */
#ifndef STORQ_H5_WRITER_H
#define STORQ_H5_WRITER_H

#include <hdf5.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "model.h"
#include "observables.h"
#include "params.h"
#include "theory.h"

typedef struct storq_run_meta {
    const char *command_line; /* argv joined */
    const char *config_text;  /* the sweep file, or the flags as an equivalent sweep file */
    uint64_t seed;
    size_t replications;
    int mpi_ranks, omp_threads;
    size_t task_index, task_count; /* --task I/N; a count of 0 or 1 is the whole run */
    int force; /* --force: the final rename may replace a file of that name */
    int schema; /* the finished file's schema major: 2 (columnar) or anything else 1.x (a
                 * group a point, as the partial file is) */
} storq_run_meta;

typedef struct storq_h5_file storq_h5_file;

/* Create final_path.partial (replacing an old partial), write root attributes, /run/config and
 * /points/index (every point of the run, complete or not). */
int storq_h5_create(const char *final_path, const storq_run_meta *meta, const storq_model *model,
                    const storq_params *points, size_t npoints, storq_h5_file **out,
                    storq_error *err);

/* Reopen final_path.partial after a crash or time limit. Refuses (usage error) when its config
 * text, seed, replications, model or task differ from this run's, when its index does not hold
 * exactly points[0..npoints), or when it fails the readers' checks (io/h5_check.h: a damaged
 * or altered file). done[p] is set to 1 for each point already complete in the file. */
int storq_h5_resume(const char *final_path, const storq_run_meta *meta, const storq_model *model,
                    const storq_params *points, size_t npoints, unsigned char *done,
                    storq_h5_file **out, storq_error *err);

/* Why a point run with a precision target stopped where it did (point attributes). */
typedef struct storq_point_precision {
    double target;            /* the 95% CI half-width over |mean| asked for */
    const char *observable;   /* the scalar it was asked of */
    size_t max_replications;
    int met;                  /* 1: the target was met at res->replications */
    double achieved;          /* the half-width over |mean| at res->replications */
} storq_point_precision;

/* Write /points/NNNNNN (attributes, observables, replications, theory, comparison) and flush.
 * precision: NULL, or why a point with a precision target stopped (its attributes). */
int storq_h5_write_point(storq_h5_file *f, size_t point_id, const storq_params *params,
                         const storq_point_result *res, const storq_summary *summary,
                         const storq_theory *theory, const storq_theory *comparison,
                         double wall_seconds, const storq_point_precision *precision,
                         storq_error *err);

/* The open HDF5 file, for the other writers of the same file (checkpoints); -1 when closed. */
hid_t storq_h5_file_id(const storq_h5_file *f);

/* Disk space for a write of about `bytes` (a generous estimate) that is to come, so that a full
 * disk fails here, cleanly, and not inside HDF5 (storq_partial_reserve). */
int storq_h5_reserve(storq_h5_file *f, uint64_t bytes, const char *what, storq_error *err);

/* Close and rename NAME.partial to NAME; with schema 2, NAME is written from NAME.partial in
 * the columnar layout (docs/hdf5-schema-2.md) and NAME.partial removed. *f becomes NULL. */
int storq_h5_finish(storq_h5_file **f, storq_error *err);

/* Close without renaming: the partial file stays for --resume. Accepts NULL and *f == NULL. */
void storq_h5_close(storq_h5_file **f);

#endif
