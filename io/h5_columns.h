/* Reading a schema 2.0 file (docs/hdf5-schema-2.md) a block of rows at a time: each dataset with
 * a point dimension is a column; a block holds the same rows of every column opened, so a reader
 * walks the points in order with one read a dataset a block, whatever the number of points. The
 * readers are `storq info` (h5_info_columnar.c) and the checks (h5_check_columnar.c). */
#ifndef STORQ_H5_COLUMNS_H
#define STORQ_H5_COLUMNS_H

#include <hdf5.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

#define STORQ_COLS_RANK_MAX 4

typedef struct storq_col {
    char path[320];
    hid_t d;
    int rank;
    char cls;        /* 'f' float64, 'u' unsigned, 'i' signed (8 bytes a value), 's' fixed string */
    size_t elsize;   /* bytes a value in the buffer: 8, or the string's length */
    hsize_t dims[STORQ_COLS_RANK_MAX];
    int lens[STORQ_COLS_RANK_MAX]; /* per dimension: the column giving its per-point length
                                    * (n_<dim>, or replications for "replication"), or -1 */
    size_t row;      /* values a row */
    unsigned char *buf; /* block x row values of elsize bytes, native (little-endian) order */
} storq_col;

typedef struct storq_cols {
    hid_t file;
    size_t nrows, block, first; /* the file's rows; rows a block; the block's first row */
    storq_col *cols;
    size_t n, cap;
    char **dim_names;           /* the ragged dimensions and the column of their lengths */
    int *dim_cols;
    size_t ndims;
} storq_cols;

/* Prepare to read the rows of file: their count (/point), the per-point lengths (/points/n_<dim>
 * and /points/replications); room for cap columns. */
int storq_cols_init(storq_cols *c, hid_t file, size_t cap, storq_error *err);
/* Open the dataset at path as a column (*out valid until storq_cols_free); a path opened already
 * gives the same column. */
int storq_cols_open(storq_cols *c, const char *path, storq_col **out, storq_error *err);
/* Buffers for blocks of about budget bytes (at least one row) of every column opened. */
int storq_cols_alloc(storq_cols *c, size_t budget, storq_error *err);
/* Rows [first, first + n) of every column (n <= c->block). */
int storq_cols_read(storq_cols *c, size_t first, size_t n, storq_error *err);
/* Block row r (0-based in the block): dimension k's length there, a number, a row's values. */
size_t storq_cols_extent(const storq_cols *c, const storq_col *col, int k, size_t r);
double storq_cols_f64(const storq_col *col, size_t r);
uint64_t storq_cols_u64(const storq_col *col, size_t r);
/* Row r of a numeric column cut to the point's extent, row-major, as runs of values side by
 * side (8 bytes each, native): fn(ctx, at, n) for each run; returns how many values (a
 * rank-1 column: one run of one). */
size_t storq_cols_runs(const storq_cols *c, const storq_col *col, size_t r,
                       void (*fn)(void *ctx, const unsigned char *at, size_t n), void *ctx);
/* The same values as doubles into out (col->row long); returns how many. */
size_t storq_cols_values(const storq_cols *c, const storq_col *col, size_t r, double *out);
void storq_cols_free(storq_cols *c);

#endif
