/* The rows of a 2.0 file as 1.x point trees (h5_rows_tree.h), a row: its block of rows read
 * when it is not in memory, then its tree built from the plan (h5_rows_tree.c) in the order of
 * the 1.x writer (io/point_record.c). */
#include "h5_rows_tree_internal.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "schema.h"

static int oom(storq_error *err)
{
    return STORQ_RUNTIME_FAIL(err, "out of memory reading the rows of a schema 2.0 file");
}

/* The row's block in the buffers: the block that holds it, so that rows asked in increasing
 * order read each block once. */
static int load(storq_rows_tree *r, size_t row, storq_error *err)
{
    if (row >= r->first && row < r->first + r->loaded)
        return STORQ_OK;
    size_t first = row - row % r->cols.block;
    size_t n = r->nrows - first < r->cols.block ? r->nrows - first : r->cols.block;
    r->loaded = 0;
    STORQ_TRY(storq_cols_read(&r->cols, first, n, err));
    r->first = first;
    r->loaded = n;
    return STORQ_OK;
}

/* The attributes of at onto n, each stored a value a row as row's value. */
static int put_attrs(const rt_attrs *at, storq_pt_node *n, size_t row, storq_error *err)
{
    for (size_t i = 0; at->held && i < at->held->nattrs; i++) {
        const storq_pt_attr *a = &at->held->attrs[i];
        if (at->per_row[i]) {
            const char *v = (const char *)a->data + row * storq_pt_type_size(a->type);
            STORQ_TRY(storq_pt_set_attr(n, a->name, a->type, 0, 1, v, err));
        } else {
            STORQ_TRY(storq_pt_set_attr(n, a->name, a->type, a->rank, a->n, a->data, err));
        }
    }
    return STORQ_OK;
}

typedef struct gather {
    unsigned char *to;
} gather;

static void gather_run(void *ctx, const unsigned char *at, size_t n)
{
    gather *g = ctx;
    if (!n)
        return;
    memcpy(g->to, at, 8 * n);
    g->to += 8 * n;
}

/* A 1.x dataset from block row b of col: the row cut to the point's extent, without its point
 * dimension; one (a theory or comparison number) makes a value of rank 0 a 1-element array. */
static int add_values(storq_rows_tree *r, storq_pt_node *g, const char *name, storq_col *col,
                      size_t b, int one, const rt_attrs *attrs, storq_error *err)
{
    size_t row = r->first + b;
    uint64_t dims[STORQ_PT_RANK_MAX] = {0}, count = 1;
    int rank = col->rank - 1;
    if (col->cls == 's')
        return storq_rt_bad(r, err, "'%s' holds strings, which a point's values are not",
                            col->path);
    for (int k = 1; k < col->rank; k++) {
        int j = col->lens[k];
        uint64_t n = j < 0 ? col->dims[k] : storq_cols_u64(&r->cols.cols[j], b);
        if (n > col->dims[k])
            return storq_rt_bad(r, err, "row %zu (point %" PRIu64 "): '%s' is %" PRIu64 ", "
                                "past the %" PRIu64 " values of '%s' along that dimension", row,
                                r->ids[row], r->cols.cols[j].path, n, (uint64_t)col->dims[k],
                                col->path);
        dims[k - 1] = n;
        count *= n;
    }
    if (rank == 0 && one) {
        rank = 1;
        dims[0] = 1;
    }
    if (count * 8 > r->scratch_len) {
        unsigned char *grown = realloc(r->scratch, (size_t)count * 8);
        if (!grown)
            return oom(err);
        r->scratch = grown;
        r->scratch_len = (size_t)count * 8;
    }
    gather to = {r->scratch};
    storq_cols_runs(&r->cols, col, b, gather_run, &to);
    storq_pt_type type = col->cls == 'f' ? STORQ_PT_F64 : col->cls == 'i' ? STORQ_PT_I64
                                                                          : STORQ_PT_U64;
    storq_pt_node *d;
    STORQ_TRY(storq_pt_add_dataset(g, name, type, rank, dims, r->scratch, &d, err));
    return put_attrs(attrs, d, row, err);
}

static int has(const rt_qty *q, size_t b)
{
    return !q->has || storq_cols_u64(q->has, b) != 0;
}

/* A histogram's bin_edges: a link to its layout in /layouts. */
static int add_edges(storq_rows_tree *r, storq_pt_node *g, const rt_qty *q, size_t b,
                     storq_error *err)
{
    uint64_t k = storq_cols_u64(q->layout, b);
    size_t row = r->first + b;
    if (k >= q->nlayouts)
        return storq_rt_bad(r, err, "row %zu (point %" PRIu64 "): '%s' is %" PRIu64 ", past the "
                            "%zu names of its attribute 'layouts'", row, r->ids[row],
                            q->layout->path, k, q->nlayouts);
    char target[600];
    snprintf(target, sizeof target, STORQ_SCHEMA_LAYOUTS_PATH "/%s", q->layouts[k]);
    return storq_pt_add_softlink(g, STORQ_SCHEMA_BIN_EDGES, target, err);
}

static int add_observable(storq_rows_tree *r, storq_pt_node *obs, const rt_qty *q, size_t b,
                          storq_error *err)
{
    storq_pt_node *g;
    STORQ_TRY(storq_pt_add_group(obs, q->name, &g, err));
    for (size_t i = 0; i < q->nleaves; i++) {
        const rt_leaf *l = &q->leaves[i];
        STORQ_TRY(l->col ? add_values(r, g, l->name, l->col, b, 0, &l->attrs, err)
                         : add_edges(r, g, q, b, err));
    }
    return put_attrs(&q->attrs, g, r->first + b, err);
}

/* The point's group g of quantities of group (replications: the observables' values). */
static int add_group(storq_rows_tree *r, storq_pt_node *root, const char *name, int group,
                     int reps, size_t b, storq_error *err)
{
    storq_pt_node *g;
    STORQ_TRY(storq_pt_add_group(root, name, &g, err));
    for (size_t i = 0; i < r->nq; i++) {
        const rt_qty *q = &r->q[i];
        if (q->group != group || !has(q, b))
            continue;
        if (reps && q->reps)
            STORQ_TRY(add_values(r, g, q->name, q->reps, b, 0, &q->rep_attrs, err));
        else if (!reps && group == RT_OBS)
            STORQ_TRY(add_observable(r, g, q, b, err));
        else if (!reps)
            STORQ_TRY(add_values(r, g, q->name, q->values, b, 1, &q->attrs, err));
    }
    return STORQ_OK;
}

/* The point's attributes from its columns, less those it lacked (h5_rows_tree.h, "Absent"). */
static int point_attrs(storq_rows_tree *r, storq_pt_node *root, size_t b, storq_error *err)
{
    STORQ_TRY(storq_pt_set_string(root, STORQ_SCHEMA_ATTR_MODEL, r->model, err));
    STORQ_TRY(storq_pt_set_string(root, STORQ_SCHEMA_ATTR_STATUS, STORQ_SCHEMA_COMPLETE, err));
    int precision = r->target && !isnan(storq_cols_f64(r->target, b));
    for (size_t i = 0; i < r->npa; i++) {
        const rt_pattr *a = &r->pa[i];
        int fill_absent = a->presence == RT_UNLESS_FILL;
        if (a->presence == RT_PRECISION && !precision)
            continue;
        if (a->type == STORQ_PT_STR) {
            const char *s = (const char *)a->col->buf + b * a->col->elsize;
            size_t len = strnlen(s, a->col->elsize);
            char *v = malloc(len + 1);
            if (!v)
                return oom(err);
            memcpy(v, s, len);
            v[len] = '\0';
            int rc = fill_absent && !len ? STORQ_OK : storq_pt_set_string(root, a->name, v, err);
            free(v);
            STORQ_TRY(rc);
        } else if (a->type == STORQ_PT_F64) {
            double x = storq_cols_f64(a->col, b);
            if (!(fill_absent && isnan(x)))
                STORQ_TRY(storq_pt_set_f64(root, a->name, x, err));
        } else if (a->type == STORQ_PT_I64) {
            STORQ_TRY(storq_pt_set_i64(root, a->name, (int64_t)storq_cols_u64(a->col, b), err));
        } else {
            STORQ_TRY(storq_pt_set_u64(root, a->name, storq_cols_u64(a->col, b), err));
        }
    }
    return STORQ_OK;
}

static int build(storq_rows_tree *r, storq_pt_node *root, size_t b, storq_error *err)
{
    size_t row = r->first + b;
    if (r->status && storq_cols_u64(r->status, b) != 1)
        return storq_rt_bad(r, err, "row %zu (point %" PRIu64 ") is not a complete point "
                            "(/points/status %" PRIu64 ")", row, r->ids[row],
                            storq_cols_u64(r->status, b));
    /* each group whole before the next: adding to root moves its members */
    STORQ_TRY(add_group(r, root, STORQ_SCHEMA_OBSERVABLES, RT_OBS, 0, b, err));
    STORQ_TRY(add_group(r, root, STORQ_SCHEMA_REPLICATIONS, RT_OBS, 1, b, err));
    STORQ_TRY(add_group(r, root, STORQ_SCHEMA_THEORY, RT_THEORY, 0, b, err));
    STORQ_TRY(add_group(r, root, STORQ_SCHEMA_COMPARISON, RT_COMP, 0, b, err));
    return point_attrs(r, root, b, err);
}

int storq_rows_tree_get(storq_rows_tree *r, size_t row, storq_pt_node **tree, storq_error *err)
{
    *tree = NULL;
    if (row >= r->nrows)
        return storq_fail(err, STORQ_ERR_USAGE, "%s: no row %zu (the file has %zu)", r->path,
                          row, r->nrows);
    STORQ_TRY(load(r, row, err));
    storq_pt_node *root;
    STORQ_TRY(storq_pt_new(&root, err));
    int rc = build(r, root, row - r->first, err);
    if (rc) {
        storq_pt_free(root);
        return rc;
    }
    *tree = root;
    return STORQ_OK;
}
