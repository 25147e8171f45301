#include "h5_columns.h"

#include <stdlib.h>
#include <string.h>

#include "h5_util.h"

static int fail_oom(storq_error *err)
{
    return storq_fail(err, STORQ_ERR_RUNTIME, "out of memory reading a schema 2.0 file");
}

int storq_cols_init(storq_cols *c, hid_t file, size_t cap, storq_error *err)
{
    memset(c, 0, sizeof *c);
    c->file = file;
    hid_t d = H5Dopen2(file, "/point", H5P_DEFAULT);
    hid_t space = d >= 0 ? H5Dget_space(d) : -1;
    hssize_t rows = space >= 0 && H5Sget_simple_extent_ndims(space) == 1
                        ? H5Sget_simple_extent_npoints(space)
                        : -1;
    storq_h5u_close_space(&space);
    storq_h5u_close_dataset(&d);
    if (rows < 0)
        return storq_h5u_fail(err, file, "cannot read the point ids, dataset '/point'");
    c->nrows = (size_t)rows;
    char **names = NULL;
    size_t n = 0;
    hid_t g = H5Gopen2(file, "/points", H5P_DEFAULT);
    int rc = g < 0 ? storq_h5u_fail(err, file, "cannot open group '/points'")
                   : storq_h5u_list_links(g, &names, &n, err);
    storq_h5u_close_group(&g);
    c->cap = cap + n + 2;
    if (!rc && (!(c->cols = calloc(c->cap, sizeof *c->cols)) ||
                !(c->dim_names = calloc(n + 2, sizeof *c->dim_names)) ||
                !(c->dim_cols = calloc(n + 2, sizeof *c->dim_cols))))
        rc = fail_oom(err);
    for (size_t i = 0; !rc && i < n; i++) {
        int reps = !strcmp(names[i], "replications");
        if (strncmp(names[i], "n_", 2) && !reps)
            continue;
        char path[320];
        storq_col *col;
        snprintf(path, sizeof path, "/points/%s", names[i]);
        rc = storq_cols_open(c, path, &col, err);
        if (!rc && !(c->dim_names[c->ndims] = strdup(reps ? "replication" : names[i] + 2)))
            rc = fail_oom(err);
        if (!rc)
            c->dim_cols[c->ndims++] = (int)(col - c->cols);
    }
    storq_h5u_free_names(names, n);
    return rc;
}

static int column_type(storq_col *col)
{
    hid_t t = H5Dget_type(col->d);
    H5T_class_t k = t >= 0 ? H5Tget_class(t) : H5T_NO_CLASS;
    col->elsize = 8;
    if (k == H5T_FLOAT)
        col->cls = 'f';
    else if (k == H5T_INTEGER)
        col->cls = H5Tget_sign(t) == H5T_SGN_2 ? 'i' : 'u';
    else if (k == H5T_STRING && H5Tis_variable_str(t) == 0)
        col->cls = 's', col->elsize = H5Tget_size(t);
    storq_h5u_close_type(&t);
    return col->cls ? 0 : -1;
}

int storq_cols_open(storq_cols *c, const char *path, storq_col **out, storq_error *err)
{
    *out = NULL;
    for (size_t i = 0; i < c->n; i++) /* opened already (a reader and the checks share them) */
        if (strcmp(c->cols[i].path, path) == 0) {
            *out = &c->cols[i];
            return STORQ_OK;
        }
    if (c->n == c->cap)
        return storq_fail(err, STORQ_ERR_RUNTIME, "too many datasets in a schema 2.0 file");
    storq_col *col = &c->cols[c->n];
    memset(col, 0, sizeof *col);
    snprintf(col->path, sizeof col->path, "%s", path);
    col->d = H5Dopen2(c->file, path, H5P_DEFAULT);
    if (col->d < 0)
        return storq_h5u_fail(err, c->file, "cannot open dataset '%s'", path);
    c->n++;
    hid_t space = H5Dget_space(col->d);
    col->rank = space >= 0 ? H5Sget_simple_extent_ndims(space) : -1;
    int ok = col->rank >= 1 && col->rank <= STORQ_COLS_RANK_MAX &&
             H5Sget_simple_extent_dims(space, col->dims, NULL) >= 0 && col->dims[0] == c->nrows;
    storq_h5u_close_space(&space);
    if (!ok)
        return storq_h5u_fail(err, col->d, "dataset '%s' does not have a row a point (%zu)", path,
                              c->nrows);
    if (column_type(col) || (col->cls == 's' && col->rank != 1))
        return storq_h5u_fail(err, col->d, "dataset '%s' has a type storq does not write", path);
    col->row = 1;
    for (int k = 1; k < col->rank; k++)
        col->row *= (size_t)col->dims[k];
    for (int k = 0; k < STORQ_COLS_RANK_MAX; k++)
        col->lens[k] = -1;
    char **dims = NULL;
    size_t nd = 0;
    if (col->rank > 1 && storq_h5u_has_attr(col->d, "dims"))
        STORQ_TRY(storq_h5u_read_attr_string_array(col->d, "dims", &dims, &nd, err));
    if (col->rank > 1 && (int)nd != col->rank) {
        storq_h5u_free_names(dims, nd);
        return storq_h5u_fail(err, col->d, "dataset '%s' does not name its %d dimensions "
                              "(attribute 'dims')", path, col->rank);
    }
    for (int k = 1; k < col->rank; k++)
        for (size_t j = 0; j < c->ndims; j++)
            if (!strcmp(c->dim_names[j], dims[k]))
                col->lens[k] = c->dim_cols[j];
    storq_h5u_free_names(dims, nd);
    *out = col;
    return STORQ_OK;
}

int storq_cols_alloc(storq_cols *c, size_t budget, storq_error *err)
{
    size_t row_bytes = 0;
    for (size_t i = 0; i < c->n; i++)
        row_bytes += c->cols[i].elsize * c->cols[i].row;
    c->block = row_bytes ? budget / row_bytes : 1;
    c->block = c->block < 1 ? 1 : c->block > 8192 ? 8192 : c->block;
    if (c->nrows && c->block > c->nrows)
        c->block = c->nrows;
    for (size_t i = 0; i < c->n; i++) {
        storq_col *col = &c->cols[i];
        free(col->buf);
        if (!(col->buf = malloc(c->block * col->row * col->elsize + 1)))
            return fail_oom(err);
    }
    return STORQ_OK;
}

static hid_t memory_type(const storq_col *col)
{
    switch (col->cls) {
    case 'f':
        return H5Tcopy(H5T_NATIVE_DOUBLE);
    case 'i':
        return H5Tcopy(H5T_NATIVE_INT64);
    case 'u':
        return H5Tcopy(H5T_NATIVE_UINT64);
    default: {
        hid_t t = H5Dget_type(col->d);
        hid_t m = t >= 0 ? H5Tcopy(t) : -1;
        storq_h5u_close_type(&t);
        return m;
    }
    }
}

int storq_cols_read(storq_cols *c, size_t first, size_t n, storq_error *err)
{
    c->first = first;
    for (size_t i = 0; i < c->n; i++) {
        storq_col *col = &c->cols[i];
        hsize_t start[STORQ_COLS_RANK_MAX] = {first}, count[STORQ_COLS_RANK_MAX] = {n};
        for (int k = 1; k < col->rank; k++)
            count[k] = col->dims[k];
        hid_t file_space = H5Dget_space(col->d);
        hid_t mem = H5Screate_simple(col->rank, count, NULL);
        hid_t type = memory_type(col);
        int ok = file_space >= 0 && mem >= 0 && type >= 0 &&
                 H5Sselect_hyperslab(file_space, H5S_SELECT_SET, start, NULL, count, NULL) >= 0 &&
                 H5Dread(col->d, type, mem, file_space, H5P_DEFAULT, col->buf) >= 0;
        storq_h5u_close_space(&file_space);
        storq_h5u_close_space(&mem);
        storq_h5u_close_type(&type);
        if (!ok)
            return storq_h5u_fail(err, col->d, "cannot read rows %zu to %zu of '%s'", first,
                                  first + n, col->path);
    }
    return STORQ_OK;
}

uint64_t storq_cols_u64(const storq_col *col, size_t r)
{
    uint64_t u;
    double f;
    switch (col->cls) {
    case 'f':
        memcpy(&f, col->buf + 8 * r * col->row, 8);
        return (uint64_t)f;
    case 'u':
    case 'i':
        memcpy(&u, col->buf + 8 * r * col->row, 8);
        return u;
    default:
        return 0;
    }
}

double storq_cols_f64(const storq_col *col, size_t r)
{
    double f;
    switch (col->cls) {
    case 'f':
        memcpy(&f, col->buf + 8 * r * col->row, 8);
        return f;
    case 'i': {
        int64_t i;
        memcpy(&i, col->buf + 8 * r * col->row, 8);
        return (double)i;
    }
    default:
        return (double)storq_cols_u64(col, r);
    }
}

size_t storq_cols_extent(const storq_cols *c, const storq_col *col, int k, size_t r)
{
    int j = col->lens[k];
    if (j < 0)
        return (size_t)col->dims[k];
    uint64_t n = storq_cols_u64(&c->cols[j], r);
    return n < col->dims[k] ? (size_t)n : (size_t)col->dims[k];
}

size_t storq_cols_runs(const storq_cols *c, const storq_col *col, size_t r,
                       void (*fn)(void *ctx, const unsigned char *at, size_t n), void *ctx)
{
    size_t e[STORQ_COLS_RANK_MAX] = {1, 1, 1, 1}, w[STORQ_COLS_RANK_MAX] = {1, 1, 1, 1};
    for (int k = 1; k < col->rank; k++)
        e[k] = storq_cols_extent(c, col, k, r);
    for (int k = col->rank - 2; k >= 1; k--)
        w[k] = w[k + 1] * (size_t)col->dims[k + 1];
    /* the last dimension's values lie side by side: a run of them at each index of the others */
    int last = col->rank > 1 ? col->rank - 1 : 1;
    size_t loop[3] = {e[1], e[2], e[3]};
    loop[last - 1] = 1;
    const unsigned char *row = col->buf + 8 * r * col->row;
    for (size_t a = 0; a < loop[0]; a++)
        for (size_t b = 0; b < loop[1]; b++)
            for (size_t d = 0; d < loop[2]; d++)
                fn(ctx, row + 8 * (a * w[1] + b * w[2] + d * w[3]), e[last]);
    return e[1] * e[2] * e[3];
}

typedef struct as_doubles {
    char cls;
    double *out;
} as_doubles;

static void to_doubles(void *ctx, const unsigned char *at, size_t n)
{
    as_doubles *d = ctx;
    for (size_t i = 0; i < n; i++) {
        uint64_t u;
        memcpy(&u, at + 8 * i, 8);
        if (d->cls == 'f')
            memcpy(d->out, &u, 8);
        else
            *d->out = d->cls == 'i' ? (double)(int64_t)u : (double)u;
        d->out++;
    }
}

size_t storq_cols_values(const storq_cols *c, const storq_col *col, size_t r, double *out)
{
    as_doubles d = {col->cls, out};
    return storq_cols_runs(c, col, r, to_doubles, &d);
}

void storq_cols_free(storq_cols *c)
{
    for (size_t i = 0; i < c->n; i++) {
        storq_h5u_close_dataset(&c->cols[i].d);
        free(c->cols[i].buf);
    }
    for (size_t i = 0; i < c->ndims; i++)
        free(c->dim_names[i]);
    free(c->dim_names);
    free(c->dim_cols);
    free(c->cols);
    memset(c, 0, sizeof *c);
}
