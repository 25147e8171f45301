/* `storq convert`, the plan pass: every complete point's metadata (its attributes, the names,
 * kinds and shapes of its quantities, its histograms' layouts) read from the 1.x file, without
 * the values; then the dimensions (docs/hdf5-schema-2.md, "Dimensions"). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "h5_convert_internal.h"
#include "h5_util.h"
#include "schema.h"

const char *const storq_cv_group_names[CV_NGROUPS] = {
    STORQ_SCHEMA_OBSERVABLES, STORQ_SCHEMA_REPLICATIONS, STORQ_SCHEMA_THEORY,
    STORQ_SCHEMA_COMPARISON};

/* ---- small helpers ---- */

char *storq_cv_strdup(const char *s)
{
    return strdup(s ? s : "");
}

char *storq_cv_printf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *s = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (s) {
        va_start(ap, fmt);
        vsnprintf(s, (size_t)n + 1, fmt, ap);
        va_end(ap);
    }
    return s;
}

int storq_cv_push(void **arr, size_t *n, size_t elsize)
{
    unsigned char *grown = realloc(*arr, (*n + 1) * elsize);
    if (!grown)
        return -1;
    memset(grown + *n * elsize, 0, elsize);
    *arr = grown;
    (*n)++;
    return 0;
}

int64_t storq_cv_lens_at(const cv_lens *l, size_t row)
{
    return l->per ? l->per[row] : l->one;
}

void storq_cv_lens_free(cv_lens *l)
{
    free(l->per);
    l->per = NULL;
}

/* Set row's length of a quantity's axis, keeping the per-row array once rows differ; known[]
 * says which earlier rows had the quantity (its presence). */
static int lens_put(cv_lens *l, const unsigned char *known, size_t row, int64_t len)
{
    if (l->per) {
        l->per[row] = len;
        return 0;
    }
    if (l->one < 0 || l->one == len) {
        l->one = len;
        return 0;
    }
    l->per = malloc(l->rows * sizeof *l->per);
    if (!l->per)
        return -1;
    for (size_t i = 0; i < l->rows; i++)
        l->per[i] = i < row && known[i] ? l->one : -1;
    l->per[row] = len;
    return 0;
}

int storq_cv_coord_add(cv_coord *c, const double *v, size_t n)
{
    if (c->state < 0)
        return 0;
    size_t common = n < c->n ? n : c->n;
    for (size_t i = 0; i < common; i++)
        if (!(v[i] == c->v[i] || (v[i] != v[i] && c->v[i] != c->v[i]))) {
            c->state = -1;
            return 0;
        }
    if (c->state == 0 || n > c->n) {
        double *grown = realloc(c->v, (n ? n : 1) * sizeof *grown);
        if (!grown)
            return -1;
        memcpy(grown, v, n * sizeof *grown);
        c->v = grown;
        c->n = n;
    }
    c->state = 1;
    return 0;
}

void storq_cv_coord_merge(cv_coord *into, const cv_coord *from)
{
    if (from->state == 0)
        return;
    if (from->state < 0 || storq_cv_coord_add(into, from->v, from->n) != 0)
        into->state = -1;
}

void storq_cv_coord_free(cv_coord *c)
{
    free(c->v);
    c->v = NULL;
}

void storq_cv_point_path(const cv_plan *p, size_t row, char *buf, size_t size)
{
    storq_schema_point_path((size_t)p->ids[row], buf, size);
}

void storq_cv_plan_free(cv_plan *p)
{
    free(p->ids);
    free(p->index);
    if (p->index_type >= 0)
        H5Tclose(p->index_type);
    free(p->reps);
    for (size_t i = 0; i < p->nq; i++) {
        cv_qty *q = &p->q[i];
        free(q->name);
        free(q->present);
        free(q->axis_name);
        free(q->grid);
        storq_cv_lens_free(&q->len[0]);
        storq_cv_lens_free(&q->len[1]);
        storq_h5u_free_names(q->layouts, q->nlayouts);
        storq_cv_coord_free(&q->axis_coord);
        storq_cv_asets_free(q);
    }
    free(p->q);
    for (size_t i = 0; i < p->nd; i++) {
        free(p->d[i].name);
        storq_cv_lens_free(&p->d[i].lens);
        storq_cv_coord_free(&p->d[i].coord);
    }
    free(p->d);
    for (size_t i = 0; i < p->nc; i++) {
        free(p->c[i].name);
        free(p->c[i].unit);
    }
    free(p->c);
    for (size_t i = 0; i < p->nv; i++) {
        free(p->v[i].path);
        free(p->v[i].leaf);
        free(p->v[i].buf);
        if (p->v[i].ds >= 0)
            H5Dclose(p->v[i].ds);
    }
    free(p->v);
    memset(p, 0, sizeof *p);
    p->index_type = -1;
}

/* ---- quantities and columns, in the model's order ---- */

/* The quantity (group, name), inserted after position after when new (the points list their
 * quantities in the model's order; a point lacking some still lists the others in that order,
 * so a new one goes right after the last one this point listed). Looked for from there on. */
static ssize_t qty_find_or_add(cv_plan *p, int group, const char *name, ssize_t after)
{
    size_t start = after >= 0 ? (size_t)after + 1 : 0;
    for (size_t k = 0; k < p->nq; k++) {
        size_t i = (start + k) % p->nq;
        if (p->q[i].group == group && strcmp(p->q[i].name, name) == 0)
            return (ssize_t)i;
    }
    /* new: right after the last one the point listed, or first of its group */
    size_t at = after >= 0 ? (size_t)after + 1 : 0;
    if (after < 0)
        for (size_t i = 0; i < p->nq; i++)
            if (p->q[i].group < group)
                at = i + 1;
    if (storq_cv_push((void **)&p->q, &p->nq, sizeof *p->q) != 0)
        return -2;
    memmove(&p->q[at + 1], &p->q[at], (p->nq - 1 - at) * sizeof *p->q);
    cv_qty *q = &p->q[at];
    memset(q, 0, sizeof *q);
    q->group = group;
    q->name = storq_cv_strdup(name);
    q->present = calloc(p->P ? p->P : 1, 1);
    for (int k = 0; k < 2; k++) {
        q->len[k].one = -1;
        q->len[k].rows = p->P;
    }
    if (!q->name || !q->present)
        return -2;
    return (ssize_t)at;
}

static const char *const own_attrs[] = {STORQ_SCHEMA_ATTR_MODEL, STORQ_SCHEMA_ATTR_STATUS,
                                        STORQ_SCHEMA_ATTR_CRC32, NULL};

static int is_param(const cv_plan *p, const char *name)
{
    for (size_t i = 0; i < p->nc; i++)
        if (p->c[i].param >= 0 && strcmp(p->c[i].name, name) == 0)
            return 1;
    return 0;
}

/* The column of a point attribute, added at the end when new. */
static ssize_t col_find_or_add(cv_plan *p, const char *name, int cls)
{
    for (size_t i = 0; i < p->nc; i++)
        if (strcmp(p->c[i].name, name) == 0)
            return (ssize_t)i;
    if (storq_cv_push((void **)&p->c, &p->nc, sizeof *p->c) != 0)
        return -1;
    cv_col *c = &p->c[p->nc - 1];
    c->name = storq_cv_strdup(name);
    c->cls = cls;
    c->param = -1;
    return c->name ? (ssize_t)(p->nc - 1) : -1;
}

static int bad_point(const cv_plan *p, size_t row, const char *what, storq_error *err)
{
    char path[STORQ_SCHEMA_POINT_PATH_MAX];
    storq_cv_point_path(p, row, path, sizeof path);
    return storq_fail(err, STORQ_ERR_USAGE, "convert: %s: object '%s': %s", p->in_path, path,
                      what);
}

static int oom(storq_error *err)
{
    return STORQ_RUNTIME_FAIL(err, "convert: out of memory");
}

/* A point attribute: its column (its class, a string's longest), and the point's replications. */
static int scan_attr(cv_plan *p, size_t row, const storq_pt_attr *a, storq_error *err)
{
    for (const char *const *o = own_attrs; *o; o++)
        if (strcmp(a->name, *o) == 0)
            return STORQ_OK;
    if (is_param(p, a->name))
        return STORQ_OK;
    int c = a->type == STORQ_PT_F64 ? 'f' : a->type == STORQ_PT_STR ? 's'
            : a->type == STORQ_PT_I64 || a->type == STORQ_PT_I32 ? 'i' : 'u';
    ssize_t k = col_find_or_add(p, a->name, c);
    if (k < 0)
        return oom(err);
    if (c == 's' && a->rank == 0) {
        size_t need = strlen(((char *const *)a->data)[0]) + 1;
        if (need > p->c[k].size)
            p->c[k].size = need;
    }
    if (strcmp(a->name, STORQ_SCHEMA_ATTR_REPLICATIONS) == 0) {
        if (c != 'u' || a->rank != 0)
            return bad_point(p, row, "its attributes cannot be read", err);
        p->reps[row] = a->type == STORQ_PT_U64 ? ((const uint64_t *)a->data)[0]
                                               : ((const uint32_t *)a->data)[0];
    }
    return STORQ_OK;
}

/* The shape of a dataset node: rank and dims (up to CV_RANK_MAX); NULL or another node: -1. */
static int shape_of(const storq_pt_node *d, int *rank, hsize_t *dims)
{
    if (!d || d->kind != STORQ_PT_DATASET || d->rank > CV_RANK_MAX)
        return -1;
    *rank = d->rank;
    for (int i = 0; i < d->rank; i++)
        dims[i] = d->dims[i];
    return 0;
}

/* A histogram's layout: the name its bin_edges link to in /layouts. */
static int layout_of(const cv_plan *p, size_t row, const storq_pt_node *og, char **name,
                     storq_error *err)
{
    const storq_pt_node *l = storq_pt_find(og, STORQ_SCHEMA_BIN_EDGES);
    const char *top = STORQ_SCHEMA_LAYOUTS_PATH "/";
    *name = NULL;
    if (!l || l->kind != STORQ_PT_SOFTLINK || strncmp(l->target, top, strlen(top)))
        return bad_point(p, row, "a histogram's bin_edges is not a link into /layouts (a file "
                         "written before schema 1.3): convert reads 1.3 files", err);
    *name = storq_cv_strdup(l->target + strlen(top));
    return *name ? STORQ_OK : oom(err);
}

static int add_layout(cv_qty *q, const char *name)
{
    for (size_t i = 0; i < q->nlayouts; i++)
        if (strcmp(q->layouts[i], name) == 0)
            return 0;
    char **grown = realloc(q->layouts, (q->nlayouts + 1) * sizeof *grown);
    if (!grown)
        return -1;
    q->layouts = grown;
    grown[q->nlayouts] = storq_cv_strdup(name);
    return grown[q->nlayouts++] ? 0 : -1;
}

/* The attributes of an observable's group and of its datasets (not the bin_edges link). */
static int gather_observable(cv_plan *p, size_t qi, size_t row, const storq_pt_node *og,
                             storq_error *err)
{
    STORQ_TRY(storq_cv_attrs_gather(p, qi, NULL, og, row, err));
    for (size_t i = 0; i < og->nkids; i++)
        if (og->kids[i].kind == STORQ_PT_DATASET)
            STORQ_TRY(storq_cv_attrs_gather(p, qi, og->kids[i].name, &og->kids[i], row, err));
    return STORQ_OK;
}

/* One observable of a point: its kind and shapes. */
static int scan_observable(cv_plan *p, size_t row, const storq_pt_node *og, size_t qi,
                           storq_error *err)
{
    cv_qty *q = &p->q[qi];
    if (og->kind != STORQ_PT_GROUP)
        return bad_point(p, row, "an observable cannot be opened", err);
    const char *kind = storq_pt_attr_string(og, "kind");
    int k = !kind ? 0 : !strcmp(kind, "scalar") ? 's' : !strcmp(kind, "vector") ? 'v'
                   : !strcmp(kind, "histogram") ? 'h' : 0;
    int rc = STORQ_OK;
    if (!k || (q->kind && q->kind != k))
        rc = bad_point(p, row, "an observable's kind is unknown or differs between points", err);
    q->kind = k;
    int rank = 0;
    hsize_t dims[CV_RANK_MAX] = {0};
    if (!rc && k == 'v') {
        if (shape_of(storq_pt_find(og, "mean"), &rank, dims) != 0 || rank < 1 || rank > 2 ||
            (q->vrank && q->vrank != rank))
            rc = bad_point(p, row, "a vector observable's mean is not 1-D or 2-D alike at every "
                           "point", err);
        q->vrank = rank;
        for (int i = 0; !rc && i < rank; i++)
            if (lens_put(&q->len[i], q->present, row, (int64_t)dims[i]) != 0)
                rc = oom(err);
        const storq_pt_node *ax = storq_pt_find(og, "axis");
        if (!rc && ax) {
            q->has_axis = 1;
            const char *name = storq_pt_attr_string(ax, "name");
            if (!q->axis_name && name && !(q->axis_name = storq_cv_strdup(name)))
                rc = oom(err);
        }
    } else if (!rc && k == 'h') {
        char *layout = NULL;
        if (shape_of(storq_pt_find(og, "counts"), &rank, dims) != 0 || rank != 1)
            rc = bad_point(p, row, "a histogram's counts are not 1-D", err);
        if (!rc && lens_put(&q->len[0], q->present, row, (int64_t)dims[0]) != 0)
            rc = oom(err);
        if (!rc)
            rc = layout_of(p, row, og, &layout, err);
        if (!rc && add_layout(q, layout) != 0)
            rc = oom(err);
        free(layout);
    }
    return rc ? rc : gather_observable(p, qi, row, og, err);
}

/* A theory or comparison array of a point: its length and grid. */
static int scan_array(cv_plan *p, size_t row, const storq_pt_node *d, size_t qi,
                      storq_error *err)
{
    cv_qty *q = &p->q[qi];
    if (d->kind != STORQ_PT_DATASET)
        return bad_point(p, row, "a theory or comparison array cannot be read", err);
    q->kind = 'a';
    if (lens_put(&q->len[0], q->present, row, (int64_t)storq_pt_count(d)) != 0)
        return oom(err);
    const char *grid = storq_pt_attr_string(d, "grid");
    if (!q->grid && grid && !(q->grid = storq_cv_strdup(grid)))
        return oom(err);
    return storq_cv_attrs_gather(p, qi, NULL, d, row, err);
}

/* The replications of an observable at a point: (R, ...) with R its replications. */
static int scan_replications(cv_plan *p, size_t row, const storq_pt_node *d, storq_error *err)
{
    int rank = 0;
    hsize_t dims[CV_RANK_MAX] = {0};
    if (shape_of(d, &rank, dims) != 0 || rank < 1 || dims[0] != p->reps[row])
        return bad_point(p, row, "a replications dataset does not hold the point's replications",
                         err);
    if ((int64_t)dims[0] > p->maxreps)
        p->maxreps = (int64_t)dims[0];
    for (size_t i = 0; i < p->nq; i++)
        if (p->q[i].group == CV_OBS && !strcmp(p->q[i].name, d->name) && p->q[i].present[row])
            return storq_cv_attrs_gather(p, i, STORQ_CV_REPLICATIONS, d, row, err);
    return bad_point(p, row, "a replications dataset has no observable", err);
}

/* One group of a point (observables, replications, theory, comparison). */
static int scan_group(cv_plan *p, size_t row, const storq_pt_node *pt, int group,
                      storq_error *err)
{
    const storq_pt_node *g = storq_pt_find(pt, storq_cv_group_names[group]);
    if (!g || g->kind != STORQ_PT_GROUP)
        return bad_point(p, row, "a point lacks one of its groups", err);
    ssize_t last = -1;
    int rc = STORQ_OK;
    for (size_t i = 0; !rc && i < g->nkids; i++) {
        const storq_pt_node *m = &g->kids[i];
        if (group == CV_REP) {
            rc = scan_replications(p, row, m, err);
            continue;
        }
        ssize_t k = qty_find_or_add(p, group, m->name, last);
        if (k < -1)
            return oom(err);
        cv_qty *q = &p->q[k];
        last = k;
        if (q->present[row])
            return bad_point(p, row, "a quantity is listed twice", err);
        q->present[row] = 1; /* before its attributes: a row's own counts as having it */
        q->npresent++;
        rc = group == CV_OBS ? scan_observable(p, row, m, (size_t)k, err)
                             : scan_array(p, row, m, (size_t)k, err);
    }
    return rc;
}

/* The parameters: the fields of /points/index but "point", as columns. */
static int index_columns(cv_plan *p, hid_t in, storq_error *err)
{
    hid_t d = H5Dopen2(in, STORQ_SCHEMA_INDEX_PATH, H5P_DEFAULT);
    hid_t ft = d >= 0 ? H5Dget_type(d) : -1;
    int nf = ft >= 0 ? H5Tget_nmembers(ft) : -1;
    char **units = NULL;
    size_t nunits = 0;
    int rc = nf < 1 ? storq_h5u_fail(err, in, "cannot read " STORQ_SCHEMA_INDEX_PATH) : 0;
    if (!rc && storq_h5u_has_attr(d, STORQ_SCHEMA_INDEX_UNITS))
        rc = storq_h5u_read_attr_string_array(d, STORQ_SCHEMA_INDEX_UNITS, &units, &nunits, err);
    for (int i = 1; !rc && i < nf; i++) {
        char *name = H5Tget_member_name(ft, (unsigned)i);
        H5T_class_t cls = H5Tget_member_class(ft, (unsigned)i);
        ssize_t k = name ? col_find_or_add(p, name, cls == H5T_FLOAT ? 'f'
                                                   : cls == H5T_STRING ? 's' : 'i') : -1;
        if (k >= 0) {
            cv_col *c = &p->c[k];
            c->param = i;
            c->field_offset = H5Tget_member_offset(p->index_type,
                                                   (unsigned)H5Tget_member_index(p->index_type,
                                                                                 name));
            hid_t mt = H5Tget_member_type(ft, (unsigned)i);
            c->size = mt >= 0 ? H5Tget_size(mt) : 0;
            if (mt >= 0)
                H5Tclose(mt);
            c->unit = storq_cv_strdup((size_t)i < nunits ? units[i] : "");
        }
        H5free_memory(name);
        if (k < 0)
            rc = oom(err);
    }
    storq_h5u_free_names(units, nunits);
    if (ft >= 0)
        H5Tclose(ft);
    if (d >= 0)
        H5Dclose(d);
    return rc;
}

int storq_cv_plan_read(cv_plan *p, hid_t in, storq_error *err)
{
    /* replications, events, wall_seconds first, then the parameters (index order) */
    if (col_find_or_add(p, STORQ_SCHEMA_ATTR_REPLICATIONS, 'u') < 0 ||
        col_find_or_add(p, STORQ_SCHEMA_ATTR_EVENTS, 'u') < 0 ||
        col_find_or_add(p, STORQ_SCHEMA_ATTR_WALL_SECONDS, 'f') < 0)
        return oom(err);
    STORQ_TRY(index_columns(p, in, err));
    p->reps = calloc(p->P + 1, sizeof *p->reps);
    if (!p->reps)
        return oom(err);
    for (size_t row = 0; row < p->P; row++) {
        const storq_pt_node *pt = NULL;
        STORQ_TRY(p->src.point(p->src.ctx, row, &pt, err));
        for (size_t i = 0; i < pt->nattrs; i++)
            STORQ_TRY(scan_attr(p, row, &pt->attrs[i], err));
        for (int g = 0; g < CV_NGROUPS; g++) {
            int group = g == 0 ? CV_OBS : g == 1 ? CV_THEORY : g == 2 ? CV_COMP : CV_REP;
            STORQ_TRY(scan_group(p, row, pt, group, err));
        }
        if ((int64_t)p->reps[row] > p->maxreps)
            p->maxreps = (int64_t)p->reps[row];
    }
    for (size_t i = 0; i < p->nc; i++)
        if (p->c[i].cls == 's' && p->c[i].size < 1)
            p->c[i].size = 1;
    return STORQ_OK;
}
