/* What the files of `storq convert` share (io/h5_convert*.c): the plan of a 2.0 file drawn from a
 * finished 1.x file (docs/hdf5-schema-2.md). The plan pass (h5_convert_plan.c) reads every
 * point's metadata (names, kinds, shapes, attributes), not its values; the copy pass
 * (h5_convert_copy.c) reads the values point by point into per-dataset buffers of one chunk of
 * rows and writes each chunk whole as it fills. */
#ifndef STORQ_H5_CONVERT_INTERNAL_H
#define STORQ_H5_CONVERT_INTERNAL_H

#include <hdf5.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "point_tree.h"

#define CV_RANK_MAX 4 /* per-point rank of a 2.0 dataset: replication, rows, cols (+1 spare) */

/* The groups of a point's quantities. */
enum { CV_OBS, CV_REP, CV_THEORY, CV_COMP, CV_NGROUPS };
extern const char *const storq_cv_group_names[CV_NGROUPS];

/* Per-row lengths of a quantity's axis, or of a dimension: -1 where unknown (the point lacks
 * it). Kept as one value while every known row agrees; the array appears at the first row
 * that differs. */
typedef struct cv_lens {
    int64_t one;  /* the length while all known rows agree; -1 before the first */
    int64_t *per; /* per row, once they differ (NULL before) */
    size_t rows;  /* of the file */
} cv_lens;

int64_t storq_cv_lens_at(const cv_lens *l, size_t row);
void storq_cv_lens_free(cv_lens *l);

/* A coordinate candidate: every array seen is a leading part of the longest (or not). */
typedef struct cv_coord {
    int state; /* 0 nothing yet, 1 consistent, -1 not */
    double *v;
    size_t n;
} cv_coord;

int storq_cv_coord_add(cv_coord *c, const double *v, size_t n); /* -1: out of memory */
void storq_cv_coord_merge(cv_coord *into, const cv_coord *from);
void storq_cv_coord_free(cv_coord *c);

/* A dimension of the 2.0 file (the point dimension excluded): its scale /<name>. */
typedef struct cv_dim {
    char *name;
    cv_lens lens;
    int64_t max;
    int ragged;      /* lengths differ between the points that have it: /points/n_<name> */
    int replication; /* the replication dimension (cut by /points/replications) */
    cv_coord coord;  /* from its sources: axes, the theory array named like it, bin edges */
    int hist;        /* a histogram's bins: coordinate = lower edges, attribute upper_edge */
    int64_t ncol;    /* index of its n_<dim> column in the point buffers when ragged */
} cv_dim;

/* The attributes of one object of a quantity over the rows (h5_convert_attrs.c): those of the
 * first row that has it, and, for each that is not the same at every row, its value a row. */
typedef struct cv_arow {
    int kind;     /* 's' a scalar string, 'n' a scalar number, 'o' other (kept as the first) */
    int differ;
    char **text;  /* per row once they differ; "\x01missing" where a row lacks it */
    double *num;  /* per row once they differ; NaN where a row lacks it */
} cv_arow;

typedef struct cv_aset {
    char *sub;            /* NULL: the quantity's own object; a dataset of an observable's group
                             ("mean", "axis"); or STORQ_CV_REPLICATIONS */
    storq_pt_attr *first; /* the first row's attributes (copies) */
    size_t n;
    cv_arow *rows;        /* one per attribute of first */
    size_t seen;          /* rows that had the object */
} cv_aset;

/* One observable, theory or comparison array: a unit present or absent at a point. */
typedef struct cv_qty {
    int group;        /* CV_OBS, CV_THEORY, CV_COMP */
    char *name;
    int kind;         /* observables: 's' scalar, 'v' vector, 'h' histogram; else 'a' array */
    unsigned char *present; /* per row */
    size_t npresent;
    int vrank;        /* vector: 1 or 2 */
    int has_axis;
    char *axis_name;  /* the axis's attribute name */
    char *grid;       /* theory, comparison: the grid attribute */
    cv_lens len[2];   /* vector rows, cols; histogram bins; array length */
    int64_t maxlen[2];
    size_t dim[2];    /* dimension indices, once assigned */
    int scalar;       /* theory/comparison of length 1 wherever present: (P,) */
    int grid_source;  /* theory/comparison named by another's grid: its values, coordinates */
    char **layouts;   /* histogram: the layout names its points use, first seen first */
    size_t nlayouts;
    cv_coord axis_coord; /* its axis values (vector) or its values (a named theory array) */
    cv_aset *asets;      /* its objects' attributes, gathered by the plan pass */
    size_t nasets;
} cv_qty;

/* One column of /points from a point attribute (replications, events, parameters...). */
typedef struct cv_col {
    char *name;
    int cls;       /* 'f' float64, 'u' uint64, 'i' int64, 's' fixed string */
    size_t size;   /* fixed string: bytes (longest + 1) */
    int param;     /* index field of /points/index it copies (-1: a point attribute) */
    size_t field_offset; /* in the index's compound rows */
    char *unit;    /* parameters: the unit from /points/index */
} cv_col;

/* What fills a dataset's rows. */
enum { CV_R_COL, CV_R_STATUS, CV_R_NDIM, CV_R_HAS, CV_R_CRC, CV_R_CRCA, CV_R_QTY, CV_R_LAYOUT };

/* One dataset of the 2.0 file, with a point as its row. */
typedef struct cv_var {
    int role;         /* CV_R_... */
    size_t ref;       /* its column, dimension or quantity */
    char *path;       /* "observables/u/mean", "points/lambda"... */
    char *leaf;       /* the dataset's name in its 1.x object (observables) or column */
    int cls;          /* 'f', 'u', 'i', 's'; stored as float64, uint64, int64, fixed string;
                         'b' uint8, 'w' uint32 (storq's own columns) */
    size_t elsize;
    int rank;         /* after the point dimension */
    size_t dim[CV_RANK_MAX];
    hsize_t shape[CV_RANK_MAX];
    size_t rowlen;    /* elements a row */
    int rep;          /* a /replications dataset */
    int table;        /* rank 0: covered by /points/crc32; else by crc32_arrays */
    /* the copy */
    hid_t ds;
    hsize_t chunk_rows;
    unsigned char *buf; /* chunk_rows rows */
    hid_t mtype, ftype; /* memory and file types */
} cv_var;

/* Where the points come from: the tree of row's point (p->ids[row]), valid until the next call
 * (a 1.x file's point groups, h5_convert.c). Rows are asked for in order, in each pass. */
typedef struct cv_source {
    int (*point)(void *ctx, size_t row, const storq_pt_node **tree, storq_error *err);
    void *ctx;
} cv_source;

typedef struct cv_plan {
    const char *in_path, *out_path;
    int written;          /* a run's or merge's own file finished as 2.0, not a conversion */
    cv_source src;
    size_t nindex;        /* rows of /points/index */
    size_t P;             /* rows of the 2.0 file: complete points */
    uint64_t *ids;        /* per row: point id */
    unsigned char *index; /* /points/index's rows (compound, native) */
    hid_t index_type;     /* its native memory type */
    size_t index_size;
    int32_t from_version[2];
    uint64_t *reps;       /* per row: the point's replications */
    int64_t maxreps;
    cv_qty *q;
    size_t nq;
    cv_dim *d;
    size_t nd;
    cv_col *c;
    size_t nc;
    cv_var *v;
    size_t nv;
    int has_layouts;
} cv_plan;

void storq_cv_plan_free(cv_plan *p);

/* Plan pass: p->in_path open as in (its index), the points from p->src; fills everything but
 * the vars. */
int storq_cv_plan_read(cv_plan *p, hid_t in, storq_error *err);
/* The dimensions of every quantity (docs/hdf5-schema-2.md, "Dimensions"). */
int storq_cv_plan_dims(cv_plan *p, storq_error *err);
/* The list of 2.0 datasets (vars), in the file's order. */
int storq_cv_plan_vars(cv_plan *p, storq_error *err);

/* Write the whole 2.0 file (create, copy, scales, checksums) to the open out; in gives the
 * root's attributes, /run, /layouts and /points/index, p->src the points. */
int storq_cv_write(cv_plan *p, hid_t in, hid_t out, storq_error *err);

/* The 1.x point group of row r's point: "/points/000042". */
void storq_cv_point_path(const cv_plan *p, size_t row, char *buf, size_t size);

/* The dimension named name (created when absent); -1 on failure (out of memory). */
ssize_t storq_cv_dim(cv_plan *p, const char *name);

/* A quantity's attributes (h5_convert_attrs.c). sub: NULL for the quantity's own object (an
 * observable's group, a theory or comparison array), a dataset of an observable group ("mean",
 * "axis"), or STORQ_CV_REPLICATIONS for its /replications dataset.
 * Gathered in the plan pass: obj is that object at row row, whose point has quantity qi. */
#define STORQ_CV_REPLICATIONS "\x01replications"
int storq_cv_attrs_gather(cv_plan *p, size_t qi, const char *sub, const storq_pt_node *obj,
                          size_t row, storq_error *err);
/* Written onto dst: each once when the same at every point that has it, else one a row. */
int storq_cv_quantity_attrs(const cv_plan *p, size_t qi, const char *sub, hid_t dst,
                            storq_error *err);
void storq_cv_asets_free(cv_qty *q);

/* Small helpers. */
char *storq_cv_strdup(const char *s);
char *storq_cv_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int storq_cv_push(void **arr, size_t *n, size_t elsize); /* one zeroed element more; -1: OOM */

#endif
