/* What the two halves of the rows reader share (io/h5_rows_tree.h): its plan of the 2.0 file,
 * drawn once at open (h5_rows_tree.c), and the rows built from it (h5_rows_tree_row.c). */
#ifndef STORQ_H5_ROWS_TREE_INTERNAL_H
#define STORQ_H5_ROWS_TREE_INTERNAL_H

#include "h5_columns.h"
#include "h5_rows_tree.h"

/* The groups of a point's quantities, in the order of a 1.x point (replications go with the
 * observables). */
enum { RT_OBS, RT_THEORY, RT_COMP, RT_NGROUPS };

/* The 1.x attributes of one object of the 2.0 file: held as the attributes of a node of their
 * own (so the tree's code keeps, orders and frees them), and which are one value a row. */
typedef struct rt_attrs {
    storq_pt_node *held;    /* NULL: none */
    unsigned char *per_row; /* one a held attribute */
} rt_attrs;

/* A member of an observable's 1.x group: a dataset from a column, or the bin_edges link. */
typedef struct rt_leaf {
    char *name;
    storq_col *col; /* NULL: bin_edges */
    rt_attrs attrs;
} rt_leaf;

typedef struct rt_qty {
    int group; /* RT_... */
    char *name;
    rt_attrs attrs;    /* the observable's group, or the theory or comparison array */
    rt_leaf *leaves;   /* an observable's members, 1.x's order */
    size_t nleaves;
    storq_col *values; /* theory, comparison: the array */
    storq_col *reps;   /* an observable's /replications/<name>, or NULL */
    rt_attrs rep_attrs;
    storq_col *has;    /* /points/has_<group>_<name>; NULL: at every row */
    storq_col *layout; /* a histogram's index into layouts; NULL: not a histogram */
    char **layouts;
    size_t nlayouts;
} rt_qty;

/* How a point attribute's column tells an absent attribute (h5_rows_tree.h, "Absent"). */
enum { RT_ALWAYS, RT_PRECISION, RT_UNLESS_FILL };

typedef struct rt_pattr {
    char *name;
    storq_col *col;
    storq_pt_type type; /* F64, U64, I64 or STR */
    int presence;       /* RT_... */
} rt_pattr;

struct storq_rows_tree {
    hid_t file;
    char *path;
    char *model;
    size_t nrows;
    uint64_t *ids;
    storq_cols cols;
    size_t block_max;     /* rows the buffers hold */
    size_t first, loaded; /* the rows in them: [first, first + loaded) */
    storq_col *status;    /* or NULL */
    storq_col *target;    /* precision_target, or NULL */
    rt_qty *q;
    size_t nq;
    rt_pattr *pa;
    size_t npa;
    unsigned char *scratch; /* a dataset's values cut to a row's extent */
    size_t scratch_len;
};

/* A usage error: "PATH: what" (the file is not what storq convert writes). */
int storq_rt_bad(const storq_rows_tree *r, storq_error *err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
