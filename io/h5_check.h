/* What `storq info`, `storq merge` and `storq run --resume` check in a results file before they
 * read it (docs/hdf5-schema.md, "What readers check"): a file from elsewhere may be damaged or
 * crafted, so every object a reader uses is checked against the schema, its claimed size
 * against the file's, links and storage that lead outside the file are refused, every complete
 * point against /run and /points/index, and stored results against their checksums. Each
 * failure is a usage error (exit 2: the file given is not a valid storq file) naming the file
 * and the object, e.g. "merge: b.h5: object '/points/000002/observables/u/mean': ...". */
#ifndef STORQ_H5_CHECK_H
#define STORQ_H5_CHECK_H

#include <hdf5.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "model.h"
#include "params.h"

/* The run a --resume continues: /points/index must hold exactly its points. */
typedef struct storq_h5_expect {
    const storq_model *model;
    const storq_params *points;
    size_t npoints;
} storq_h5_expect;

/* What the check found. */
typedef struct storq_h5_checked {
    size_t npoints;     /* rows of /points/index */
    uint32_t index_crc; /* of /points/index's columns: the inputs of a merge must agree */
    size_t checksummed; /* complete points whose checksums were verified (older files have none) */
    size_t unreadable;  /* point groups HDF5 cannot open (no reader uses them) */
    int run_records_damaged; /* salvage checks only: /run's records cannot be read */
} storq_h5_checked;

/* A reader of a schema 2.0 file's rows that runs inside its check, so that each block of rows is
 * read (and decompressed) once, not once to check and once to read: prepare opens the columns it
 * reads in cols (h5_columns.h) before the blocks are allocated; block gets each block of n rows
 * once the rows are checked; end (may be NULL) once after the last. What it makes of them must
 * not be used unless the whole check passes (storq info prints them to a temporary file, copied
 * out afterwards). */
struct storq_cols;
typedef struct storq_h5_rows_reader {
    int (*prepare)(void *ctx, struct storq_cols *cols, storq_error *err);
    int (*block)(void *ctx, struct storq_cols *cols, size_t n, storq_error *err);
    int (*end)(void *ctx, storq_error *err);
    void *ctx;
} storq_h5_rows_reader;

/* storq_h5_check_file of a 1.x or 2.0 file with reader (may be NULL) fed the 2.0 rows. */
int storq_h5_check_file_reading(hid_t file, const char *path, const char *label,
                                const storq_h5_rows_reader *reader, storq_h5_checked *out,
                                storq_error *err);

/* Check the open file (which passed storq_schema_check). label prefixes messages ("merge",
 * "--resume"), or NULL; out may be NULL. Point groups without status "complete" and checkpoints
 * without it are not read by any reader, and are not checked. A point group HDF5 cannot open is
 * not complete either: out->unreadable counts it (storq info fails on it).
 * The check runs in a child process (h5_guard.h): HDF5 may crash on damaged metadata,
 * and such a crash is reported as a damaged file (usage error) instead of ending the caller. */
int storq_h5_check_file(hid_t file, const char *path, const char *label, storq_h5_checked *out,
                        storq_error *err);

/* The same check in this process (what the child runs). */
int storq_h5_check_file_here(hid_t file, const char *path, const char *label,
                             storq_h5_checked *out, storq_error *err);

/* The check for --resume's salvage, which copies the root, /run/config, the index and the
 * complete points into a new file and none of /run's records: those (/run's own header and
 * attributes, /run/units, /run/ranks, /run/sessions) may be unreadable (a write cut short while
 * they were flushed), and out->run_records_damaged then says so; everything else is checked as
 * above. Guarded like storq_h5_check_file. */
int storq_h5_check_file_salvage(hid_t file, const char *path, const char *label,
                                storq_h5_checked *out, storq_error *err);

/* Either check in this process: salvage 1 is storq_h5_check_file_salvage's; reader as in
 * storq_h5_check_file_reading (NULL: none). */
int storq_h5_check_file_mode_here(hid_t file, const char *path, const char *label, int salvage,
                                  const storq_h5_rows_reader *reader, storq_h5_checked *out,
                                  storq_error *err);

/* --resume, after storq_h5_check_file and the comparison of the runs' descriptions:
 * /points/index holds exactly the points of the run being resumed (names, types and values of
 * its parameters), so every point the file holds is one of them (storq_h5_check_file checked
 * each against the index). */
int storq_h5_check_points_of(hid_t file, const char *path, const char *label,
                             const storq_h5_expect *expect, storq_error *err);

/* Open path for reading (storq_schema_open, with hint in its messages; a 1.x or a 2.0 file) and
 * check it whole (storq_h5_check_file): the file readers print from. On failure nothing stays
 * open. */
int storq_h5_open_checked(const char *path, const char *hint, hid_t *file,
                          storq_h5_checked *out, storq_error *err);

#endif
