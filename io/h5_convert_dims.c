/* `storq convert`: the dimensions of the quantities planned from the 1.x file, and the list of
 * 2.0 datasets (docs/hdf5-schema-2.md, "Dimensions" and "The tree"). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "h5_convert_internal.h"
#include "schema.h"

static int oom(storq_error *err)
{
    return STORQ_RUNTIME_FAIL(err, "convert: out of memory");
}

/* Names a dimension scale may not take: the root's other members. */
static const char *const reserved[] = {"point", "replication", "run", "run_point", "points",
                                       "observables",
                                       "replications", "theory", "comparison", "layouts", NULL};

static ssize_t dim_find(const cv_plan *p, const char *name)
{
    for (size_t i = 0; i < p->nd; i++)
        if (strcmp(p->d[i].name, name) == 0)
            return (ssize_t)i;
    return -1;
}

ssize_t storq_cv_dim(cv_plan *p, const char *name)
{
    ssize_t k = dim_find(p, name);
    if (k >= 0)
        return k;
    if (storq_cv_push((void **)&p->d, &p->nd, sizeof *p->d) != 0)
        return -1;
    cv_dim *d = &p->d[p->nd - 1];
    d->name = storq_cv_strdup(name);
    d->lens.one = -1;
    d->lens.rows = p->P;
    d->ncol = -1;
    return d->name ? (ssize_t)(p->nd - 1) : -1;
}

/* Claim the dimension name for axis k of quantity q: shared when its lengths agree with the
 * dimension's at every point that has both. Returns the dimension, -1 when taken by other
 * lengths (or reserved), -2 out of memory. */
static ssize_t claim(cv_plan *p, const char *name, const cv_qty *q, int k)
{
    for (const char *const *r = reserved; *r; r++)
        if (strcmp(name, *r) == 0)
            return -1;
    ssize_t at = dim_find(p, name);
    if (at >= 0) {
        const cv_dim *d = &p->d[at];
        for (size_t row = 0; row < p->P; row++) {
            int64_t a = storq_cv_lens_at(&d->lens, row), b = q->present[row] ?
                        storq_cv_lens_at(&q->len[k], row) : -1;
            if (a >= 0 && b >= 0 && a != b)
                return -1;
        }
    } else if ((at = storq_cv_dim(p, name)) < 0) {
        return -2;
    }
    cv_dim *d = &p->d[at];
    if (!d->lens.per) { /* known row by row: which points have some quantity on it */
        d->lens.per = malloc((p->P ? p->P : 1) * sizeof *d->lens.per);
        if (!d->lens.per)
            return -2;
        for (size_t row = 0; row < p->P; row++)
            d->lens.per[row] = -1;
    }
    for (size_t row = 0; row < p->P; row++)
        if (q->present[row] && d->lens.per[row] < 0)
            d->lens.per[row] = storq_cv_lens_at(&q->len[k], row);
    return at;
}

/* claim, else the quantity's own name for it (<fallback>, made unique). */
static ssize_t claim_or_own(cv_plan *p, const char *name, const char *fallback, const cv_qty *q,
                            int k, storq_error *err)
{
    ssize_t at = name ? claim(p, name, q, k) : -1;
    char buf[600];
    snprintf(buf, sizeof buf, "%s", fallback);
    for (int n = 2; at == -1 && n < 1000; n++) {
        at = claim(p, buf, q, k);
        snprintf(buf, sizeof buf, "%s%d", fallback, n);
    }
    if (at < 0)
        oom(err);
    return at;
}

static ssize_t qty_find(const cv_plan *p, int group, const char *name)
{
    for (size_t i = 0; i < p->nq; i++)
        if (p->q[i].group == group && strcmp(p->q[i].name, name) == 0)
            return (ssize_t)i;
    return -1;
}

/* 1 when the grid of another theory or comparison array names q. */
static int named_by_grid(const cv_plan *p, const cv_qty *q)
{
    for (size_t i = 0; i < p->nq; i++) {
        const cv_qty *o = &p->q[i];
        if (o != q && (o->group == CV_THEORY || o->group == CV_COMP) && o->grid &&
            strcmp(o->grid, q->name) == 0)
            return 1;
    }
    return 0;
}

static int array_dim(cv_plan *p, cv_qty *q, int depth, storq_error *err);

/* The dimension a grid names: the observable's (its rows or bins), or another array's. */
static const char *grid_dim(cv_plan *p, const cv_qty *q, int depth, storq_error *err)
{
    if (!q->grid || !q->grid[0])
        return NULL;
    ssize_t o = qty_find(p, CV_OBS, q->grid);
    if (o >= 0 && (p->q[o].kind == 'v' || p->q[o].kind == 'h'))
        return p->d[p->q[o].dim[0]].name;
    for (int g = CV_THEORY; g <= CV_COMP && o < 0; g++) {
        ssize_t a = qty_find(p, g, q->grid);
        if (a < 0 || &p->q[a] == q || p->q[a].scalar || depth > 4)
            continue;
        if (p->q[a].dim[0] == (size_t)-1 && array_dim(p, &p->q[a], depth + 1, err) != STORQ_OK)
            return NULL;
        return p->d[p->q[a].dim[0]].name;
    }
    return NULL;
}

static int array_dim(cv_plan *p, cv_qty *q, int depth, storq_error *err)
{
    if (q->scalar || q->dim[0] != (size_t)-1)
        return STORQ_OK;
    char own[600], name[600] = "";
    snprintf(own, sizeof own, "%s_%s_i", storq_cv_group_names[q->group], q->name);
    const char *g = grid_dim(p, q, depth, err);
    if (err->code)
        return err->code;
    if (g)
        snprintf(name, sizeof name, "%s", g);
    /* an array other arrays name as their grid (f_x of f) has a dimension of its own name
     * pattern, not its own name: netCDF would take a variable named like its dimension for
     * that dimension's coordinate, which must be 1-D; its values become the coordinate */
    q->grid_source = named_by_grid(p, q);
    ssize_t at = claim_or_own(p, name[0] ? name : NULL, own, q, 0, err);
    if (at < 0)
        return err->code ? err->code : oom(err);
    q->dim[0] = (size_t)at;
    return STORQ_OK;
}

int storq_cv_plan_dims(cv_plan *p, storq_error *err)
{
    int any_obs = 0;
    for (size_t i = 0; i < p->nq; i++)
        any_obs |= p->q[i].group == CV_OBS;
    if (any_obs) {
        ssize_t r = storq_cv_dim(p, "replication");
        if (r < 0)
            return oom(err);
        p->d[r].replication = 1;
        p->d[r].lens.one = p->maxreps;
    }
    for (size_t i = 0; i < p->nq; i++) {
        cv_qty *q = &p->q[i];
        q->dim[0] = q->dim[1] = (size_t)-1;
        for (int k = 0; k < 2; k++)
            for (size_t row = 0; row < p->P; row++) {
                int64_t n = q->present[row] ? storq_cv_lens_at(&q->len[k], row) : -1;
                if (n > q->maxlen[k])
                    q->maxlen[k] = n;
            }
        if (q->group != CV_OBS) {
            q->scalar = q->maxlen[0] == 1 && q->len[0].per == NULL;
            continue;
        }
        char name[600], own[600];
        ssize_t at = 0;
        if (q->kind == 'v') {
            const char *ax = q->has_axis && q->axis_name ? q->axis_name : NULL;
            snprintf(name, sizeof name, "%s", ax ? (strcmp(ax, "t") ? ax : "time") : "");
            if (!ax)
                snprintf(name, sizeof name, "%s_i", q->name);
            snprintf(own, sizeof own, "observables_%s_i", q->name);
            at = claim_or_own(p, name, own, q, 0, err);
            if (at >= 0)
                q->dim[0] = (size_t)at;
            if (at >= 0 && q->vrank == 2) {
                snprintf(name, sizeof name, "%s_j", q->name);
                snprintf(own, sizeof own, "observables_%s_j", q->name);
                at = claim_or_own(p, name, own, q, 1, err);
                if (at >= 0)
                    q->dim[1] = (size_t)at;
            }
        } else if (q->kind == 'h') {
            snprintf(name, sizeof name, "%s_bin", q->name);
            snprintf(own, sizeof own, "observables_%s_bin", q->name);
            at = claim_or_own(p, name, own, q, 0, err);
            if (at >= 0) {
                q->dim[0] = (size_t)at;
                p->d[at].hist = 1;
            }
        }
        if (at < 0)
            return err->code ? err->code : oom(err);
    }
    for (size_t i = 0; i < p->nq; i++)
        if (p->q[i].group == CV_THEORY || p->q[i].group == CV_COMP)
            STORQ_TRY(array_dim(p, &p->q[i], 0, err));
    for (size_t i = 0; i < p->nd; i++) {
        cv_dim *d = &p->d[i];
        int64_t first = -1;
        for (size_t row = 0; row < p->P; row++) {
            int64_t n = storq_cv_lens_at(&d->lens, row);
            if (n < 0)
                continue;
            if (first >= 0 && n != first)
                d->ragged = !d->replication;
            if (first < 0)
                first = n;
            if (n > d->max)
                d->max = n;
        }
        if (d->replication)
            d->max = p->maxreps;
    }
    return STORQ_OK;
}

/* ---- the datasets ---- */

static cv_var *add_var(cv_plan *p, int role, size_t ref, int cls, const char *path,
                       const char *leaf)
{
    if (storq_cv_push((void **)&p->v, &p->nv, sizeof *p->v) != 0)
        return NULL;
    cv_var *v = &p->v[p->nv - 1];
    v->role = role;
    v->ref = ref;
    v->cls = cls;
    v->elsize = cls == 'b' ? 1 : cls == 'w' ? 4 : 8;
    v->ds = -1;
    v->mtype = v->ftype = -1;
    v->path = storq_cv_strdup(path);
    v->leaf = storq_cv_strdup(leaf);
    v->rowlen = 1;
    return v->path && v->leaf ? v : NULL;
}

static int set_dims(cv_plan *p, cv_var *v, int rank, const size_t *dims)
{
    v->rank = rank;
    v->rowlen = 1;
    for (int i = 0; i < rank; i++) {
        v->dim[i] = dims[i];
        v->shape[i] = (hsize_t)p->d[dims[i]].max;
        v->rowlen *= (size_t)v->shape[i];
    }
    return 0;
}

static const char *const hist_u[] = {"underflow", "overflow", "count", NULL};
static const char *const hist_f[] = {"sum", "min", "max", "mean", NULL};
static const char *const summaries[] = {"mean", "stderr", "ci95", NULL};

static int observable_vars(cv_plan *p, size_t qi, storq_error *err)
{
    const cv_qty *q = &p->q[qi];
    char path[700];
    cv_var *v;
#define ADD(role, cls, leaf)                                                             \
    do {                                                                                 \
        snprintf(path, sizeof path, "observables/%s/%s", q->name, (leaf));               \
        if (!(v = add_var(p, (role), qi, (cls), path, (leaf))))                          \
            return oom(err);                                                             \
    } while (0)
    if (q->kind == 's' || q->kind == 'v')
        for (const char *const *f = summaries; *f; f++) {
            ADD(CV_R_QTY, 'f', *f);
            if (q->kind == 'v')
                set_dims(p, v, q->vrank, q->dim);
        }
    if (q->kind == 'v' && q->has_axis) {
        ADD(CV_R_QTY, 'f', "axis");
        set_dims(p, v, 1, q->dim);
    }
    if (q->kind == 'h') {
        ADD(CV_R_QTY, 'u', "counts");
        set_dims(p, v, 1, q->dim);
        for (const char *const *f = hist_u; *f; f++)
            ADD(CV_R_QTY, 'u', *f);
        for (const char *const *f = hist_f; *f; f++)
            ADD(CV_R_QTY, 'f', *f);
        ADD(CV_R_LAYOUT, 'w', "layout");
    }
#undef ADD
    return STORQ_OK;
}

int storq_cv_plan_vars(cv_plan *p, storq_error *err)
{
    char path[700];
    cv_var *v;
    for (size_t i = 0; i < p->nc; i++) {
        snprintf(path, sizeof path, "points/%s", p->c[i].name);
        if (!(v = add_var(p, CV_R_COL, i, p->c[i].cls, path, p->c[i].name)))
            return oom(err);
        if (v->cls == 's')
            v->elsize = p->c[i].size;
    }
    if (!add_var(p, CV_R_STATUS, 0, 'b', "points/status", "status"))
        return oom(err);
    for (size_t i = 0; i < p->nd; i++) {
        if (!p->d[i].ragged)
            continue;
        snprintf(path, sizeof path, "points/n_%s", p->d[i].name);
        if (!add_var(p, CV_R_NDIM, i, 'w', path, path + 7))
            return oom(err);
    }
    for (size_t i = 0; i < p->nq; i++) {
        if (p->q[i].npresent == p->P)
            continue;
        snprintf(path, sizeof path, "points/has_%s_%s", storq_cv_group_names[p->q[i].group],
                 p->q[i].name);
        if (!add_var(p, CV_R_HAS, i, 'b', path, path + 7))
            return oom(err);
    }
    if (!add_var(p, CV_R_CRC, 0, 'w', "points/crc32", "crc32") ||
        !add_var(p, CV_R_CRCA, 0, 'w', "points/crc32_arrays", "crc32_arrays"))
        return oom(err);
    for (size_t i = 0; i < p->nq; i++)
        if (p->q[i].group == CV_OBS)
            STORQ_TRY(observable_vars(p, i, err));
    ssize_t rep = dim_find(p, "replication");
    for (size_t i = 0; i < p->nq && rep >= 0; i++) {
        const cv_qty *q = &p->q[i];
        if (q->group != CV_OBS)
            continue;
        snprintf(path, sizeof path, "replications/%s", q->name);
        if (!(v = add_var(p, CV_R_QTY, i, 'f', path, q->name)))
            return oom(err);
        size_t dims[3] = {(size_t)rep, q->dim[0], q->dim[1]};
        set_dims(p, v, q->kind == 'v' ? 1 + q->vrank : 1, dims);
        v->rep = 1;
    }
    for (int g = CV_THEORY; g <= CV_COMP; g++)
        for (size_t i = 0; i < p->nq; i++) {
            const cv_qty *q = &p->q[i];
            if (q->group != g)
                continue;
            snprintf(path, sizeof path, "%s/%s", storq_cv_group_names[g], q->name);
            if (!(v = add_var(p, CV_R_QTY, i, 'f', path, q->name)))
                return oom(err);
            if (!q->scalar)
                set_dims(p, v, 1, q->dim);
        }
    for (size_t i = 0; i < p->nv; i++) {
        v = &p->v[i];
        v->table = v->rank == 0 && v->role != CV_R_STATUS && v->role != CV_R_CRC &&
                   v->role != CV_R_CRCA;
        size_t rowbytes = v->elsize * v->rowlen;
        hsize_t rows = 1024;
        while (rows > 1 && rows * rowbytes > ((size_t)1 << 20))
            rows /= 2;
        v->chunk_rows = rows < p->P ? rows : p->P;
    }
    return STORQ_OK;
}
