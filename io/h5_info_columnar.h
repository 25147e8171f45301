/* `storq info` of a schema 2.0 file (docs/hdf5-schema-2.md): each row printed as h5_info.c
 * prints a 1.x point, from the columns read a block of rows at a time. */
#ifndef STORQ_H5_INFO_COLUMNAR_H
#define STORQ_H5_INFO_COLUMNAR_H

#include <hdf5.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "error.h"
#include "h5_check.h"

/* Check the open 2.0 file whole (storq_h5_check_file_reading: guarded, like every check) and
 * print every row (a complete point), in row order (increasing point id), to rows_out as the
 * check reads it: each block of rows is read and decompressed once. rows_out holds tables of a
 * checked file only when this returns STORQ_OK. */
int storq_info_columnar_check(hid_t file, const char *path, FILE *rows_out,
                              storq_h5_checked *out, storq_error *err);

/* storq info --format csv|json of a 2.0 file: as the check reads each row, begin(ctx, id,
 * replications), then cell(ctx, name, suffix, x) for each of its one-number values in the order
 * h5_info_formats.c gives a 1.x point's (each scalar's _mean, _stderr, _ci95, each histogram's
 * _count, _mean, quantiles and _max, then one-number theory and comparison arrays as
 * theory_NAME, comparison_NAME); after the last row, end(ctx, file). All of it runs in the
 * check's process (a child): what end makes must be written out there, and used only when
 * this returns STORQ_OK. */
typedef struct storq_info_cells {
    int (*begin)(void *ctx, uint64_t id, uint64_t replications, storq_error *err);
    int (*cell)(void *ctx, const char *name, const char *suffix, double x, storq_error *err);
    int (*end)(void *ctx, hid_t file, storq_error *err);
    void *ctx;
} storq_info_cells;
int storq_info_columnar_cells(hid_t file, const char *path, const storq_info_cells *cells,
                              storq_error *err);

/* What the check printed to the temporary file tmp (from its start), copied to out. */
int storq_info_copy_out(FILE *tmp, FILE *out, storq_error *err);

/* The point ids of the rows (/point), increasing; *ids to free(). */
int storq_info_columnar_ids(hid_t file, uint64_t **ids, size_t *n, storq_error *err);

#endif
