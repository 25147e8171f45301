/* Internal to the results-file checks (h5_check.c, h5_check_structure.c): what the checker
 * carries and the structural checks the content checks build on. Not part of io's interface. */
#ifndef STORQ_H5_CHECK_INTERNAL_H
#define STORQ_H5_CHECK_INTERNAL_H

#include <hdf5.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

#define MAX_DEPTH 8            /* a point group is 3 levels deep; deeper is not storq's */
#define DEFLATE_MAX_RATIO 1032 /* zlib's best: a run of one byte value */

/* One column of /points/index, as read. */
typedef struct column {
    char *name;
    char cls;    /* 'i' signed integer, 'u' unsigned, 'f' float, 's' fixed-length string */
    size_t size; /* bytes per row: 8, or the string field's */
    unsigned char *data;
} column;

typedef struct checker {
    hid_t file;
    const char *path, *label;
    hsize_t size; /* of the file, in bytes */
    storq_error *err;
    char *model;
    uint64_t replications;
    size_t nrows;
    int ncols;
    column *cols;
    int salvage;     /* --resume's salvage: /run's records may be unreadable (h5_check.h) */
    int run_damaged; /* and some were: /run's header, units, ranks or sessions */
} checker;

/* What a dataset or attribute is: class ('f', 'i' signed, 'u' unsigned, 's' string,
 * 'c' compound, '?' other), rank and dimensions. */
typedef struct shape {
    char cls;
    int rank;
    hsize_t dims[H5S_MAX_RANK];
} shape;

/* Fails with "LABEL: PATH: object 'OBJECT': WHAT" (exit 2: the file is not storq's or damaged). */
int chk_bad(checker *c, const char *object, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void chk_object_name(hid_t obj, char *buf, size_t size);
char chk_type_class(hid_t t);
const char *chk_class_text(char cls);
void chk_shape_text(const shape *s, char *buf, size_t size);
int chk_expect_dataset(checker *c, hid_t loc, const char *name, char cls, int rank, shape *s);
int chk_same_dims(const shape *a, const shape *b);
int chk_expect_attr(checker *c, hid_t loc, const char *name, char cls, int required, int *present);
int chk_links(checker *c);
int chk_tree(checker *c, hid_t group, int depth);
int chk_layouts(checker *c);
/* A schema 2.0 file's rows and their checksums (h5_check_columnar.c), each block of rows handed
 * to reader once checked (reader may be NULL). */
struct storq_h5_rows_reader;
int chk_columnar(checker *c, const struct storq_h5_rows_reader *reader);

#endif
