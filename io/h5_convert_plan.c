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

typedef struct attr_scan {
    cv_plan *p;
    size_t row;
    int failed;
} attr_scan;

static herr_t scan_attr(hid_t loc, const char *name, const H5A_info_t *info, void *data)
{
    (void)info;
    attr_scan *s = data;
    for (const char *const *o = own_attrs; *o; o++)
        if (strcmp(name, *o) == 0)
            return 0;
    if (is_param(s->p, name))
        return 0;
    hid_t a = H5Aopen(loc, name, H5P_DEFAULT);
    hid_t t = a >= 0 ? H5Aget_type(a) : -1;
    H5T_class_t cls = t >= 0 ? H5Tget_class(t) : H5T_NO_CLASS;
    int c = cls == H5T_FLOAT ? 'f' : cls == H5T_STRING ? 's'
            : cls == H5T_INTEGER ? (H5Tget_sign(t) == H5T_SGN_2 ? 'i' : 'u') : 0;
    ssize_t k = c ? col_find_or_add(s->p, name, c) : -1;
    if (k >= 0 && c == 's') {
        char *text = NULL;
        storq_error ignore = {0};
        if (storq_h5u_read_attr_string(loc, name, &text, &ignore) == STORQ_OK) {
            size_t need = strlen(text) + 1;
            if (need > s->p->c[k].size)
                s->p->c[k].size = need;
        }
        free(text);
    }
    if (k >= 0 && strcmp(name, STORQ_SCHEMA_ATTR_REPLICATIONS) == 0) {
        uint64_t r = 0;
        if (H5Aread(a, H5T_NATIVE_UINT64, &r) >= 0)
            s->p->reps[s->row] = r;
        else
            k = -1;
    }
    if (t >= 0)
        H5Tclose(t);
    if (a >= 0)
        H5Aclose(a);
    if (k < 0)
        s->failed = 1;
    return k < 0 ? -1 : 0;
}

/* The shape of loc/name: rank and dims (up to CV_RANK_MAX). */
static int shape_of(hid_t loc, const char *name, int *rank, hsize_t *dims, int *cls)
{
    hid_t d = H5Dopen2(loc, name, H5P_DEFAULT);
    hid_t s = d >= 0 ? H5Dget_space(d) : -1;
    hid_t t = d >= 0 ? H5Dget_type(d) : -1;
    int r = s >= 0 ? H5Sget_simple_extent_ndims(s) : -1;
    int ok = r >= 0 && r <= CV_RANK_MAX && H5Sget_simple_extent_dims(s, dims, NULL) >= 0;
    if (cls && t >= 0)
        *cls = H5Tget_class(t) == H5T_FLOAT ? 'f' : 'u';
    *rank = r;
    if (t >= 0)
        H5Tclose(t);
    if (s >= 0)
        H5Sclose(s);
    if (d >= 0)
        H5Dclose(d);
    return ok ? 0 : -1;
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

/* A histogram's layout: the name its bin_edges link to in /layouts. */
static int layout_of(const cv_plan *p, size_t row, hid_t og, char **name, storq_error *err)
{
    H5L_info_t li;
    char target[512];
    *name = NULL;
    if (H5Lget_info(og, STORQ_SCHEMA_BIN_EDGES, &li, H5P_DEFAULT) < 0 ||
        li.type != H5L_TYPE_SOFT || li.u.val_size >= sizeof target ||
        H5Lget_val(og, STORQ_SCHEMA_BIN_EDGES, target, sizeof target, H5P_DEFAULT) < 0 ||
        strncmp(target, STORQ_SCHEMA_LAYOUTS_PATH "/", strlen(STORQ_SCHEMA_LAYOUTS_PATH) + 1)) {
        H5Eclear2(H5E_DEFAULT);
        return bad_point(p, row, "a histogram's bin_edges is not a link into /layouts (a file "
                         "written before schema 1.3): convert reads 1.3 files", err);
    }
    *name = storq_cv_strdup(target + strlen(STORQ_SCHEMA_LAYOUTS_PATH) + 1);
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

/* One observable of a point: its kind and shapes. */
static int scan_observable(cv_plan *p, size_t row, hid_t obs, cv_qty *q, storq_error *err)
{
    hid_t og = H5Gopen2(obs, q->name, H5P_DEFAULT);
    if (og < 0)
        return bad_point(p, row, "an observable cannot be opened", err);
    char *kind = NULL;
    int rc = storq_h5u_read_attr_string(og, "kind", &kind, err);
    int k = rc ? 0 : !strcmp(kind, "scalar") ? 's' : !strcmp(kind, "vector") ? 'v'
                   : !strcmp(kind, "histogram") ? 'h' : 0;
    free(kind);
    if (!rc && (!k || (q->kind && q->kind != k)))
        rc = bad_point(p, row, "an observable's kind is unknown or differs between points", err);
    q->kind = k;
    int rank = 0;
    hsize_t dims[CV_RANK_MAX] = {0};
    if (!rc && k == 'v') {
        if (shape_of(og, "mean", &rank, dims, NULL) != 0 || rank < 1 || rank > 2 ||
            (q->vrank && q->vrank != rank))
            rc = bad_point(p, row, "a vector observable's mean is not 1-D or 2-D alike at every "
                           "point", err);
        q->vrank = rank;
        for (int i = 0; !rc && i < rank; i++)
            if (lens_put(&q->len[i], q->present, row, (int64_t)dims[i]) != 0)
                rc = oom(err);
        if (!rc && storq_h5u_has_link(og, "axis")) {
            q->has_axis = 1;
            hid_t ax = H5Dopen2(og, "axis", H5P_DEFAULT);
            if (ax >= 0 && !q->axis_name && storq_h5u_has_attr(ax, "name"))
                rc = storq_h5u_read_attr_string(ax, "name", &q->axis_name, err);
            if (ax >= 0)
                H5Dclose(ax);
        }
    } else if (!rc && k == 'h') {
        char *layout = NULL;
        if (shape_of(og, "counts", &rank, dims, NULL) != 0 || rank != 1)
            rc = bad_point(p, row, "a histogram's counts are not 1-D", err);
        if (!rc && lens_put(&q->len[0], q->present, row, (int64_t)dims[0]) != 0)
            rc = oom(err);
        if (!rc)
            rc = layout_of(p, row, og, &layout, err);
        if (!rc && add_layout(q, layout) != 0)
            rc = oom(err);
        free(layout);
    }
    H5Gclose(og);
    return rc;
}

/* A theory or comparison array of a point: its length and grid. */
static int scan_array(cv_plan *p, size_t row, hid_t grp, cv_qty *q, storq_error *err)
{
    hid_t d = H5Dopen2(grp, q->name, H5P_DEFAULT);
    hid_t s = d >= 0 ? H5Dget_space(d) : -1;
    hssize_t n = s >= 0 ? H5Sget_simple_extent_npoints(s) : -1;
    int rc = n < 0 ? bad_point(p, row, "a theory or comparison array cannot be read", err) : 0;
    q->kind = 'a';
    if (!rc && lens_put(&q->len[0], q->present, row, (int64_t)n) != 0)
        rc = oom(err);
    if (!rc && !q->grid && storq_h5u_has_attr(d, "grid"))
        rc = storq_h5u_read_attr_string(d, "grid", &q->grid, err);
    if (s >= 0)
        H5Sclose(s);
    if (d >= 0)
        H5Dclose(d);
    return rc;
}

/* The replications of an observable at a point: (R, ...) with R its replications. */
static int scan_replications(cv_plan *p, size_t row, hid_t grp, const char *name,
                             storq_error *err)
{
    int rank = 0;
    hsize_t dims[CV_RANK_MAX] = {0};
    if (shape_of(grp, name, &rank, dims, NULL) != 0 || rank < 1 || dims[0] != p->reps[row])
        return bad_point(p, row, "a replications dataset does not hold the point's replications",
                         err);
    if ((int64_t)dims[0] > p->maxreps)
        p->maxreps = (int64_t)dims[0];
    for (size_t i = 0; i < p->nq; i++)
        if (p->q[i].group == CV_OBS && !strcmp(p->q[i].name, name) && p->q[i].present[row])
            return STORQ_OK;
    return bad_point(p, row, "a replications dataset has no observable", err);
}

/* One group of a point (observables, replications, theory, comparison). */
static int scan_group(cv_plan *p, size_t row, hid_t pg, int group, storq_error *err)
{
    hid_t g = H5Gopen2(pg, storq_cv_group_names[group], H5P_DEFAULT);
    if (g < 0)
        return bad_point(p, row, "a point lacks one of its groups", err);
    char **names = NULL;
    size_t n = 0;
    int rc = storq_h5u_list_links(g, &names, &n, err);
    ssize_t last = -1;
    for (size_t i = 0; !rc && i < n; i++) {
        if (group == CV_REP) {
            rc = scan_replications(p, row, g, names[i], err);
            continue;
        }
        ssize_t k = qty_find_or_add(p, group, names[i], last);
        if (k < -1) {
            rc = oom(err);
            break;
        }
        cv_qty *q = &p->q[k];
        last = k;
        if (q->present[row]) {
            rc = bad_point(p, row, "a quantity is listed twice", err);
            break;
        }
        rc = group == CV_OBS ? scan_observable(p, row, g, q, err) : scan_array(p, row, g, q, err);
        q->present[row] = 1;
        q->npresent++;
    }
    storq_h5u_free_names(names, n);
    H5Gclose(g);
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
        char path[STORQ_SCHEMA_POINT_PATH_MAX];
        storq_cv_point_path(p, row, path, sizeof path);
        hid_t pg = H5Gopen2(in, path, H5P_DEFAULT);
        if (pg < 0)
            return bad_point(p, row, "cannot be opened", err);
        attr_scan s = {p, row, 0};
        hsize_t pos = 0;
        int rc = H5Aiterate2(pg, H5_INDEX_NAME, H5_ITER_INC, &pos, scan_attr, &s) < 0 ||
                 s.failed ? bad_point(p, row, "its attributes cannot be read", err) : 0;
        for (int g = 0; !rc && g < CV_NGROUPS; g++) {
            int group = g == 0 ? CV_OBS : g == 1 ? CV_THEORY : g == 2 ? CV_COMP : CV_REP;
            rc = scan_group(p, row, pg, group, err);
        }
        H5Gclose(pg);
        STORQ_TRY(rc);
        if ((int64_t)p->reps[row] > p->maxreps)
            p->maxreps = (int64_t)p->reps[row];
    }
    for (size_t i = 0; i < p->nc; i++)
        if (p->c[i].cls == 's' && p->c[i].size < 1)
            p->c[i].size = 1;
    return STORQ_OK;
}
