/* The rows of a 2.0 file as 1.x point trees (h5_rows_tree.h), the plan: what each quantity and
 * column of the file becomes in a row's tree, drawn once at open, with every attribute read
 * then (a quantity's are the same objects at every row). The rows are in h5_rows_tree_row.c. */
#include "h5_rows_tree_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "h5_util.h"
#include "schema.h"

/* The values of a block of rows: as the checks read them (io/h5_check_columnar.c). */
#define BLOCK_BYTES (32u << 20)

static const char *const group_names[RT_NGROUPS] = {
    STORQ_SCHEMA_OBSERVABLES, STORQ_SCHEMA_THEORY, STORQ_SCHEMA_COMPARISON};

/* Attributes storq gives 2.0 objects that their 1.x objects did not have. */
static const char *const own_attrs[] = {
    STORQ_SCHEMA_ATTR_CRC32, "covers", "dims", "CLASS", "NAME", "DIMENSION_LIST",
    "REFERENCE_LIST", "_Netcdf4Dimid", "_Netcdf4Coordinates", NULL};

/* The point attributes 1.x writes all or none (io/h5_point_writer.c). */
static const char *const precision_attrs[] = {
    STORQ_SCHEMA_ATTR_PRECISION_TARGET, STORQ_SCHEMA_ATTR_PRECISION_OBSERVABLE,
    STORQ_SCHEMA_ATTR_PRECISION_ACHIEVED, STORQ_SCHEMA_ATTR_MAX_REPLICATIONS,
    STORQ_SCHEMA_ATTR_PRECISION_MET, STORQ_SCHEMA_ATTR_STOPPED_BECAUSE, NULL};

static int listed(const char *const *list, const char *name)
{
    for (; *list; list++)
        if (strcmp(*list, name) == 0)
            return 1;
    return 0;
}

int storq_rt_bad(const storq_rows_tree *r, storq_error *err, const char *fmt, ...)
{
    char what[700];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    H5Eclear2(H5E_DEFAULT);
    return storq_fail(err, STORQ_ERR_USAGE, "%s: %s", r->path, what);
}

static int oom(storq_error *err)
{
    return STORQ_RUNTIME_FAIL(err, "out of memory reading the rows of a schema 2.0 file");
}

/* A dataset's path, as long as a column's may be (h5_columns.h): one longer names none of
 * convert's. */
#define PATH_SIZE sizeof(((storq_col *)0)->path)

static int path_of(const storq_rows_tree *r, char *buf, storq_error *err, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int path_of(const storq_rows_tree *r, char *buf, storq_error *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, PATH_SIZE, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= PATH_SIZE)
        return storq_rt_bad(r, err, "an object's name is too long: '%.60s...'", buf);
    return STORQ_OK;
}

/* ---- attributes ---- */

/* The 1.x attributes of the object at path (storq's own left out, and skip when not NULL), and
 * which of them are one value a row. */
static int read_attrs(const storq_rows_tree *r, const char *path, const char *skip,
                      rt_attrs *out, storq_error *err)
{
    hid_t obj = H5Oopen(r->file, path, H5P_DEFAULT);
    char **names = NULL;
    if (obj < 0)
        return storq_rt_bad(r, err, "cannot open object '%s'", path);
    int rc = storq_h5u_attr_names(obj, &names) == 0
                 ? storq_pt_new(&out->held, err)
                 : storq_rt_bad(r, err, "cannot list the attributes of '%s'", path);
    for (size_t i = 0; !rc && names[i]; i++)
        if (!listed(own_attrs, names[i]) && !(skip && strcmp(names[i], skip) == 0))
            rc = storq_pt_read_attr_h5(obj, names[i], out->held, err);
    for (size_t i = 0; names && names[i]; i++)
        free(names[i]);
    free(names);
    H5Oclose(obj);
    if (!rc && !(out->per_row = calloc(out->held->nattrs + 1, 1)))
        rc = oom(err);
    for (size_t i = 0; !rc && i < out->held->nattrs; i++) {
        const storq_pt_attr *a = &out->held->attrs[i];
        out->per_row[i] = r->nrows >= 2 && a->rank == 1 && a->n == r->nrows &&
                          (a->type == STORQ_PT_STR || a->type == STORQ_PT_F64);
    }
    return rc;
}

static void free_attrs(rt_attrs *a)
{
    storq_pt_free(a->held);
    free(a->per_row);
    a->held = NULL;
    a->per_row = NULL;
}

/* ---- columns ---- */

/* The dataset at path as a column; a file without it, or with it not a row a point, is not
 * what convert writes. */
static int column(storq_rows_tree *r, const char *path, storq_col **out, storq_error *err)
{
    if (!storq_h5u_has_link(r->file, path))
        return storq_rt_bad(r, err, "no dataset '%s'", path);
    if (storq_cols_open(&r->cols, path, out, err) == STORQ_OK)
        return STORQ_OK;
    return err->code = STORQ_ERR_USAGE; /* its message names what the dataset is not */
}

static int is_group(hid_t file, const char *path)
{
    H5O_info_t info;
    return storq_h5u_has_link(file, path) &&
           H5Oget_info_by_name(file, path, &info, H5P_DEFAULT) >= 0 &&
           info.type == H5O_TYPE_GROUP;
}

/* Links of the group at path (0 when there is none). */
static size_t links_in(hid_t file, const char *path)
{
    H5G_info_t info;
    if (!is_group(file, path) || H5Gget_info_by_name(file, path, &info, H5P_DEFAULT) < 0)
        return 0;
    return (size_t)info.nlinks;
}

/* ---- quantities ---- */

/* Every quantity's name and group, in the file's order (its columns come once counted). */
static int list_quantities(storq_rows_tree *r, storq_error *err)
{
    for (int g = 0; g < RT_NGROUPS; g++) {
        char top[32], **names = NULL;
        size_t n = 0;
        snprintf(top, sizeof top, "/%s", group_names[g]);
        if (!storq_h5u_has_link(r->file, top))
            continue;
        hid_t grp = H5Gopen2(r->file, top, H5P_DEFAULT);
        int rc = grp < 0 ? storq_rt_bad(r, err, "'%s' is not a group", top)
                         : storq_h5u_list_links(grp, &names, &n, err);
        storq_h5u_close_group(&grp);
        rt_qty *grown = rc ? NULL : realloc(r->q, (r->nq + n + 1) * sizeof *grown);
        if (!rc && !grown)
            rc = oom(err);
        if (!rc)
            r->q = grown;
        for (size_t i = 0; !rc && i < n; i++) {
            memset(&r->q[r->nq], 0, sizeof *r->q);
            r->q[r->nq].group = g;
            r->q[r->nq].name = names[i];
            names[i] = NULL;
            r->nq++;
        }
        storq_h5u_free_names(names, n);
        STORQ_TRY(rc);
    }
    return STORQ_OK;
}

/* Room for every dataset the rows read: those of /points and of the quantities. */
static size_t count_columns(const storq_rows_tree *r)
{
    size_t n = links_in(r->file, "/" STORQ_SCHEMA_POINTS) +
               links_in(r->file, "/" STORQ_SCHEMA_REPLICATIONS) + r->nq + 8;
    for (size_t i = 0; i < r->nq; i++) {
        char path[600];
        snprintf(path, sizeof path, "/%s/%s", group_names[r->q[i].group], r->q[i].name);
        n += links_in(r->file, path);
    }
    return n;
}

static int add_leaf(rt_qty *q, const char *name, storq_col *col, size_t at)
{
    rt_leaf *grown = realloc(q->leaves, (q->nleaves + 1) * sizeof *grown);
    if (!grown)
        return -1;
    q->leaves = grown;
    memmove(&grown[at + 1], &grown[at], (q->nleaves - at) * sizeof *grown);
    memset(&grown[at], 0, sizeof *grown);
    q->nleaves++;
    grown[at].col = col;
    return (grown[at].name = strdup(name)) ? 0 : -1;
}

/* A histogram: its layout column and names; its bin_edges link right after its counts. */
static int plan_histogram(storq_rows_tree *r, rt_qty *q, const char *dir, storq_error *err)
{
    char path[PATH_SIZE];
    STORQ_TRY(path_of(r, path, err, "%s/layout", dir));
    STORQ_TRY(column(r, path, &q->layout, err));
    hid_t g = H5Gopen2(r->file, dir, H5P_DEFAULT);
    int rc = g >= 0 && storq_h5u_has_attr(g, STORQ_SCHEMA_LAYOUTS)
                 ? storq_h5u_read_attr_string_array(g, STORQ_SCHEMA_LAYOUTS, &q->layouts,
                                                    &q->nlayouts, err)
                 : storq_rt_bad(r, err, "histogram '%s' has no attribute 'layouts'", dir);
    storq_h5u_close_group(&g);
    STORQ_TRY(rc);
    size_t at = 0;
    while (at < q->nleaves && strcmp(q->leaves[at].name, "counts") != 0)
        at++;
    return add_leaf(q, STORQ_SCHEMA_BIN_EDGES, NULL, at < q->nleaves ? at + 1 : 0) ? oom(err)
                                                                                   : STORQ_OK;
}

/* An observable: its group's attributes, its datasets, its replications. */
static int plan_observable(storq_rows_tree *r, rt_qty *q, const char *dir, storq_error *err)
{
    char **names = NULL, path[PATH_SIZE];
    size_t n = 0;
    int hist = 0;
    if (!is_group(r->file, dir))
        return storq_rt_bad(r, err, "observable '%s' is not a group", dir);
    hid_t g = H5Gopen2(r->file, dir, H5P_DEFAULT);
    int rc = g < 0 ? storq_rt_bad(r, err, "cannot open '%s'", dir)
                   : storq_h5u_list_links(g, &names, &n, err);
    storq_h5u_close_group(&g);
    for (size_t i = 0; !rc && i < n; i++) {
        if (strcmp(names[i], "layout") == 0) {
            hist = 1;
            continue;
        }
        storq_col *col;
        rc = path_of(r, path, err, "%s/%s", dir, names[i]);
        if (!rc)
            rc = column(r, path, &col, err);
        if (!rc && add_leaf(q, names[i], col, q->nleaves) != 0)
            rc = oom(err);
        if (!rc)
            rc = read_attrs(r, path, NULL, &q->leaves[q->nleaves - 1].attrs, err);
    }
    storq_h5u_free_names(names, n);
    STORQ_TRY(rc);
    /* its layouts are the 2.0 group's, not 1.x's */
    STORQ_TRY(read_attrs(r, dir, hist ? STORQ_SCHEMA_LAYOUTS : NULL, &q->attrs, err));
    if (hist)
        STORQ_TRY(plan_histogram(r, q, dir, err));
    STORQ_TRY(path_of(r, path, err, "/" STORQ_SCHEMA_REPLICATIONS "/%s", q->name));
    if (!storq_h5u_has_link(r->file, path))
        return STORQ_OK;
    STORQ_TRY(column(r, path, &q->reps, err));
    return read_attrs(r, path, NULL, &q->rep_attrs, err);
}

static int plan_quantity(storq_rows_tree *r, rt_qty *q, storq_error *err)
{
    char path[PATH_SIZE];
    STORQ_TRY(path_of(r, path, err, "/%s/%s", group_names[q->group], q->name));
    if (q->group == RT_OBS)
        STORQ_TRY(plan_observable(r, q, path, err));
    else
        STORQ_TRY(column(r, path, &q->values, err));
    if (q->group != RT_OBS)
        STORQ_TRY(read_attrs(r, path, NULL, &q->attrs, err));
    STORQ_TRY(path_of(r, path, err, "/" STORQ_SCHEMA_POINTS "/has_%s_%s",
                      group_names[q->group], q->name));
    return storq_h5u_has_link(r->file, path) ? column(r, path, &q->has, err) : STORQ_OK;
}

/* ---- point attributes ---- */

/* The parameters: /points/index's fields but point, and their types. */
typedef struct params {
    char **names;
    storq_pt_type *types;
    size_t n;
} params;

static void free_params(params *p)
{
    storq_h5u_free_names(p->names, p->n);
    free(p->types);
}

static int is_param(const params *p, const char *name)
{
    for (size_t i = 0; i < p->n; i++)
        if (strcmp(p->names[i], name) == 0)
            return 1;
    return 0;
}

static int read_params(const storq_rows_tree *r, params *p, storq_error *err)
{
    memset(p, 0, sizeof *p);
    hid_t d = H5Dopen2(r->file, STORQ_SCHEMA_INDEX_PATH, H5P_DEFAULT);
    hid_t t = d >= 0 ? H5Dget_type(d) : -1;
    int nf = t >= 0 && H5Tget_class(t) == H5T_COMPOUND ? H5Tget_nmembers(t) : -1;
    int rc = nf < 1 ? storq_rt_bad(r, err, "no index of points (" STORQ_SCHEMA_INDEX_PATH ")")
                    : STORQ_OK;
    if (!rc && (!(p->names = calloc((size_t)nf, sizeof *p->names)) ||
                !(p->types = calloc((size_t)nf, sizeof *p->types))))
        rc = oom(err);
    for (int i = 0; !rc && i < nf; i++) {
        char *name = H5Tget_member_name(t, (unsigned)i);
        H5T_class_t cls = H5Tget_member_class(t, (unsigned)i);
        if (!name)
            rc = storq_h5u_fail(err, d, "cannot read the fields of the index");
        else if (strcmp(name, STORQ_SCHEMA_INDEX_POINT) != 0) {
            p->types[p->n] = cls == H5T_FLOAT ? STORQ_PT_F64 : cls == H5T_STRING
                             ? STORQ_PT_STR : STORQ_PT_I64;
            if (!(p->names[p->n++] = strdup(name)))
                rc = oom(err);
        }
        H5free_memory(name);
    }
    storq_h5u_close_type(&t);
    storq_h5u_close_dataset(&d);
    return rc;
}

/* A column of /points that is storq's own rather than a point attribute: a dimension's
 * lengths (it has a scale) or a quantity's presence. */
static int own_column(const storq_rows_tree *r, const char *name)
{
    static const char *const own[] = {STORQ_SCHEMA_INDEX, STORQ_SCHEMA_ATTR_STATUS,
                                      STORQ_SCHEMA_ATTR_CRC32, "crc32_arrays", NULL};
    if (listed(own, name))
        return 1;
    if (strncmp(name, "n_", 2) == 0) {
        char scale[400];
        snprintf(scale, sizeof scale, "/%s", name + 2);
        return storq_h5u_has_link(r->file, scale);
    }
    for (size_t i = 0; strncmp(name, "has_", 4) == 0 && i < r->nq; i++) {
        const char *g = group_names[r->q[i].group];
        size_t len = strlen(g);
        if (strncmp(name + 4, g, len) == 0 && name[4 + len] == '_' &&
            strcmp(name + 5 + len, r->q[i].name) == 0)
            return 1;
    }
    return 0;
}

static storq_pt_type column_type(const storq_col *col)
{
    switch (col->cls) {
    case 'f': return STORQ_PT_F64;
    case 'u': return STORQ_PT_U64;
    case 'i': return STORQ_PT_I64;
    default: return STORQ_PT_STR;
    }
}

static int add_point_attr(storq_rows_tree *r, const char *name, const params *p,
                          storq_error *err)
{
    char path[PATH_SIZE];
    storq_col *col;
    STORQ_TRY(path_of(r, path, err, "/" STORQ_SCHEMA_POINTS "/%s", name));
    STORQ_TRY(column(r, path, &col, err));
    if (col->rank != 1)
        return storq_rt_bad(r, err, "'%s' is not one value a row", path);
    storq_pt_type type = column_type(col);
    int presence = listed(precision_attrs, name) ? RT_PRECISION : RT_UNLESS_FILL;
    static const char *const always[] = {STORQ_SCHEMA_ATTR_REPLICATIONS,
                                         STORQ_SCHEMA_ATTR_EVENTS,
                                         STORQ_SCHEMA_ATTR_WALL_SECONDS, NULL};
    if (listed(always, name))
        presence = RT_ALWAYS;
    for (size_t i = 0; i < p->n; i++)
        if (strcmp(p->names[i], name) == 0) {
            if (type != p->types[i])
                return storq_rt_bad(r, err, "parameter column '%s' is not of its index field's "
                                    "type", path);
            presence = RT_ALWAYS;
        }
    if (strcmp(name, STORQ_SCHEMA_ATTR_PRECISION_TARGET) == 0)
        r->target = type == STORQ_PT_F64 ? col : NULL;
    rt_pattr *grown = realloc(r->pa, (r->npa + 1) * sizeof *grown);
    if (!grown)
        return oom(err);
    r->pa = grown;
    grown[r->npa] = (rt_pattr){.name = strdup(name), .col = col, .type = type,
                               .presence = presence};
    return grown[r->npa++].name ? STORQ_OK : oom(err);
}

static int plan_points(storq_rows_tree *r, storq_error *err)
{
    params p;
    char **names = NULL;
    size_t n = 0;
    STORQ_TRY(read_params(r, &p, err));
    hid_t g = H5Gopen2(r->file, "/" STORQ_SCHEMA_POINTS, H5P_DEFAULT);
    int rc = g < 0 ? storq_rt_bad(r, err, "no group /" STORQ_SCHEMA_POINTS)
                   : storq_h5u_list_links(g, &names, &n, err);
    storq_h5u_close_group(&g);
    for (size_t i = 0; !rc && i < n; i++)
        if (is_param(&p, names[i]) || !own_column(r, names[i]))
            rc = add_point_attr(r, names[i], &p, err);
    storq_h5u_free_names(names, n);
    free_params(&p);
    if (!rc && storq_h5u_has_link(r->file, "/" STORQ_SCHEMA_POINTS "/" STORQ_SCHEMA_ATTR_STATUS))
        rc = column(r, "/" STORQ_SCHEMA_POINTS "/" STORQ_SCHEMA_ATTR_STATUS, &r->status, err);
    /* a target that is not float64 cannot be NaN: its set is told like other columns */
    for (size_t i = 0; !rc && !r->target && i < r->npa; i++)
        if (r->pa[i].presence == RT_PRECISION)
            r->pa[i].presence = RT_UNLESS_FILL;
    return rc;
}

/* ---- the file ---- */

static int check_version(const storq_rows_tree *r, storq_error *err)
{
    int32_t v[2] = {0, 0};
    size_t n = 0;
    if (!storq_h5u_has_attr(r->file, STORQ_SCHEMA_ATTR_VERSION) ||
        storq_h5u_read_attr_i32_array(r->file, STORQ_SCHEMA_ATTR_VERSION, v, 2, &n, err) ||
        n != 2 || v[0] != STORQ_SCHEMA_MAJOR_COLUMNAR) {
        err->code = STORQ_OK;
        return storq_rt_bad(r, err, "not a schema 2.0 (columnar) storq file");
    }
    return STORQ_OK;
}

static int read_ids(storq_rows_tree *r, storq_error *err)
{
    hid_t d = H5Dopen2(r->file, "/point", H5P_DEFAULT);
    hid_t s = d >= 0 ? H5Dget_space(d) : -1;
    hssize_t n = s >= 0 && H5Sget_simple_extent_ndims(s) == 1 ? H5Sget_simple_extent_npoints(s)
                                                                : -1;
    int rc = n < 0 ? storq_rt_bad(r, err, "no point ids (a 1-D dataset '/point')") : STORQ_OK;
    if (!rc && !(r->ids = malloc(((size_t)n + 1) * sizeof *r->ids)))
        rc = oom(err);
    if (!rc && n && H5Dread(d, H5T_NATIVE_UINT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, r->ids) < 0)
        rc = storq_h5u_fail(err, d, "cannot read the point ids");
    r->nrows = rc ? 0 : (size_t)n;
    storq_h5u_close_space(&s);
    storq_h5u_close_dataset(&d);
    return rc;
}

static int plan(storq_rows_tree *r, storq_error *err)
{
    STORQ_TRY(check_version(r, err));
    STORQ_TRY(read_ids(r, err));
    if (!storq_h5u_has_attr(r->file, STORQ_SCHEMA_ATTR_MODEL) ||
        storq_h5u_read_attr_string(r->file, STORQ_SCHEMA_ATTR_MODEL, &r->model, err)) {
        err->code = STORQ_OK;
        return storq_rt_bad(r, err, "no attribute 'model' at its root");
    }
    if (!is_group(r->file, "/" STORQ_SCHEMA_POINTS))
        return storq_rt_bad(r, err, "no group /" STORQ_SCHEMA_POINTS);
    STORQ_TRY(list_quantities(r, err));
    STORQ_TRY(storq_cols_init(&r->cols, r->file, count_columns(r), err));
    for (size_t i = 0; i < r->nq; i++)
        STORQ_TRY(plan_quantity(r, &r->q[i], err));
    STORQ_TRY(plan_points(r, err));
    STORQ_TRY(storq_cols_alloc(&r->cols, BLOCK_BYTES, err));
    r->block_max = r->cols.block;
    storq_rows_tree_block(r, r->block_max);
    return STORQ_OK;
}

int storq_rows_tree_open(hid_t file, const char *path, storq_rows_tree **out, storq_error *err)
{
    *out = NULL;
    storq_rows_tree *r = calloc(1, sizeof *r);
    if (!r)
        return oom(err);
    r->file = file;
    int rc = (r->path = strdup(path ? path : "?")) ? plan(r, err) : oom(err);
    if (rc) {
        storq_rows_tree_close(&r);
        return rc;
    }
    *out = r;
    return STORQ_OK;
}

size_t storq_rows_tree_count(const storq_rows_tree *r)
{
    return r->nrows;
}

uint64_t storq_rows_tree_point(const storq_rows_tree *r, size_t row)
{
    return row < r->nrows ? r->ids[row] : UINT64_MAX;
}

void storq_rows_tree_block(storq_rows_tree *r, size_t rows)
{
    /* whole chunks where a block spans some (convert's are powers of two up to 1,024 rows), so
     * that consecutive blocks do not read a chunk twice */
    size_t b = rows < 1 ? 1 : rows > r->block_max ? r->block_max : rows;
    if (b >= r->nrows)
        b = r->nrows ? r->nrows : 1;
    else if (b >= 1024)
        b -= b % 1024;
    else
        while (b & (b - 1))
            b &= b - 1;
    r->cols.block = b;
    r->loaded = 0;
}

void storq_rows_tree_close(storq_rows_tree **pr)
{
    storq_rows_tree *r = pr ? *pr : NULL;
    if (!r)
        return;
    for (size_t i = 0; i < r->nq; i++) {
        rt_qty *q = &r->q[i];
        free(q->name);
        free_attrs(&q->attrs);
        free_attrs(&q->rep_attrs);
        for (size_t k = 0; k < q->nleaves; k++) {
            free(q->leaves[k].name);
            free_attrs(&q->leaves[k].attrs);
        }
        free(q->leaves);
        storq_h5u_free_names(q->layouts, q->nlayouts);
    }
    free(r->q);
    for (size_t i = 0; i < r->npa; i++)
        free(r->pa[i].name);
    free(r->pa);
    storq_cols_free(&r->cols);
    free(r->ids);
    free(r->model);
    free(r->path);
    free(r->scratch);
    free(r);
    *pr = NULL;
}
