/* The checks readers make before trusting a results file: see h5_check.h and
 * docs/hdf5-schema.md ("What readers check"). Order: links first (nothing outside the file is
 * ever opened), then the run (root attributes, /run), /points/index, every complete point, every
 * complete checkpoint. Every dataset is sized before anything is allocated for it: a dataset
 * storq wrote holds its data, so one that claims more bytes than the whole file is damaged or
 * crafted (HDF5 would read it as fill values, and a reader would allocate what it claims). */
#include "h5_check.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "h5_checksum.h"
#include "h5_util.h"
#include "schema.h"
#include "utf8.h"

#define MAX_DEPTH 8 /* a point group is 3 levels deep; deeper is not storq's */
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
} checker;

/* What a dataset or attribute is: class ('f', 'i' signed, 'u' unsigned, 's' string,
 * 'c' compound, '?' other), rank and dimensions. */
typedef struct shape {
    char cls;
    int rank;
    hsize_t dims[H5S_MAX_RANK];
} shape;

static int bad(checker *c, const char *object, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int bad(checker *c, const char *object, const char *fmt, ...)
{
    char what[700];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    H5Eclear2(H5E_DEFAULT);
    return storq_fail(c->err, STORQ_ERR_USAGE, "%s%s%s: object '%s': %s",
                      c->label ? c->label : "", c->label ? ": " : "", c->path, object, what);
}

/* The path of an open object, for messages. */
static void object_name(hid_t obj, char *buf, size_t size)
{
    if (H5Iget_name(obj, buf, size) <= 0)
        snprintf(buf, size, "?");
    H5Eclear2(H5E_DEFAULT);
}

static char type_class(hid_t t)
{
    switch (H5Tget_class(t)) {
    case H5T_FLOAT:
        return 'f';
    case H5T_INTEGER:
        return H5Tget_sign(t) == H5T_SGN_2 ? 'i' : 'u';
    case H5T_STRING:
        return 's';
    case H5T_COMPOUND:
        return 'c';
    default:
        return '?';
    }
}

static const char *class_text(char cls)
{
    switch (cls) {
    case 'f':
        return "a floating-point number";
    case 'i':
    case 'u':
        return "an integer";
    case 's':
        return "a string";
    case 'c':
        return "a table (compound)";
    default:
        return "of a type storq does not write";
    }
}

static void shape_text(const shape *s, char *buf, size_t size)
{
    size_t used = (size_t)snprintf(buf, size, "(");
    for (int i = 0; i < s->rank && used < size; i++)
        used += (size_t)snprintf(buf + used, size - used, "%s%llu", i ? " x " : "",
                                 (unsigned long long)s->dims[i]);
    if (used < size)
        snprintf(buf + used, size - used, s->rank ? ")" : "scalar)");
}

/* Bytes a dataset of this shape and element size claims; 0 on overflow (then it is too big). */
static hsize_t claimed_bytes(const shape *s, size_t elsize, int *overflow)
{
    hsize_t n = elsize;
    *overflow = 0;
    for (int i = 0; i < s->rank; i++) {
        if (s->dims[i] && n > (hsize_t)-1 / s->dims[i])
            *overflow = 1;
        n *= s->dims[i];
    }
    return n;
}

/* A dataset's shape, after the checks every dataset gets: its data are in this file (no virtual
 * dataset, no external storage) and no bigger than the file. */
static int dataset_shape(checker *c, hid_t d, shape *s)
{
    char name[512];
    object_name(d, name, sizeof name);
    hid_t dcpl = H5Dget_create_plist(d);
    H5D_layout_t layout = dcpl >= 0 ? H5Pget_layout(dcpl) : H5D_LAYOUT_ERROR;
    int external = dcpl >= 0 ? H5Pget_external_count(dcpl) : -1;
    char ext[256] = "";
    if (external > 0) {
        off_t offset;
        hsize_t bytes;
        if (H5Pget_external(dcpl, 0, sizeof ext, ext, &offset, &bytes) < 0)
            snprintf(ext, sizeof ext, "?");
    }
    if (dcpl >= 0)
        H5Pclose(dcpl);
    /* Compressed (1.3), a dataset holds more than its bytes in the file, but deflate never
     * packs more than 1032 bytes into one: a claim beyond that of its chunks is not storq's. */
    hsize_t limit = c->size;
    if (layout == H5D_CHUNKED) {
        hsize_t stored = H5Dget_storage_size(d);
        limit = stored <= c->size ? stored * DEFLATE_MAX_RATIO : 0;
    }
    if (layout == H5D_VIRTUAL)
        return bad(c, name, "is a virtual dataset, whose data live in other files; storq reads "
                   "nothing from outside the file it is given");
    if (external != 0)
        return bad(c, name, "stores its data in an external file ('%s'); storq reads nothing "
                   "from outside the file it is given", ext);
    hid_t t = H5Dget_type(d), space = H5Dget_space(d);
    H5S_class_t sc = space >= 0 ? H5Sget_simple_extent_type(space) : H5S_NO_CLASS;
    s->cls = t >= 0 ? type_class(t) : '?';
    s->rank = sc == H5S_SIMPLE || sc == H5S_SCALAR ? H5Sget_simple_extent_ndims(space) : -1;
    size_t elsize = t >= 0 ? H5Tget_size(t) : 0;
    int ok = s->rank >= 0 && H5Sget_simple_extent_dims(space, s->dims, NULL) >= 0 && elsize > 0;
    storq_h5u_close_type(&t);
    storq_h5u_close_space(&space);
    if (!ok)
        return bad(c, name, "has no readable type or shape");
    int overflow;
    hsize_t claim = claimed_bytes(s, elsize, &overflow);
    if (overflow || claim > limit) {
        char sh[200];
        shape_text(s, sh, sizeof sh);
        if (layout == H5D_CHUNKED)
            return bad(c, name, "claims %s elements of %zu bytes, more than its %llu bytes in "
                       "the file can hold compressed: the file is damaged or was not written "
                       "by storq", sh, elsize, (unsigned long long)(limit / DEFLATE_MAX_RATIO));
        return bad(c, name, "claims %s elements of %zu bytes, more than the whole file (%llu "
                   "bytes) holds: the file is damaged or was not written by storq", sh, elsize,
                   (unsigned long long)c->size);
    }
    return STORQ_OK;
}

/* Dataset loc/name: present, of class cls ('i' for any integer) and rank (-1: any), checked as
 * above; *s gets its shape. */
static int expect_dataset(checker *c, hid_t loc, const char *name, char cls, int rank, shape *s)
{
    char where[600], lname[512];
    object_name(loc, lname, sizeof lname);
    snprintf(where, sizeof where, "%s/%s", strcmp(lname, "/") ? lname : "", name);
    H5O_info_t info;
    if (!storq_h5u_has_link(loc, name) ||
        H5Oget_info_by_name(loc, name, &info, H5P_DEFAULT) < 0 || info.type != H5O_TYPE_DATASET)
        return bad(c, where, "is missing (or not a dataset)");
    hid_t d = H5Dopen2(loc, name, H5P_DEFAULT);
    if (d < 0)
        return bad(c, where, "cannot be opened");
    int rc = dataset_shape(c, d, s);
    H5Dclose(d);
    STORQ_TRY(rc);
    int cls_ok = s->cls == cls || (cls == 'i' && s->cls == 'u');
    if (!cls_ok)
        return bad(c, where, "is %s; the schema says %s", class_text(s->cls), class_text(cls));
    if (rank >= 0 && s->rank != rank) {
        char sh[200];
        shape_text(s, sh, sizeof sh);
        return bad(c, where, "has shape %s; the schema says %d dimension%s", sh, rank,
                   rank == 1 ? "" : "s");
    }
    return STORQ_OK;
}

static int same_dims(const shape *a, const shape *b)
{
    if (a->rank != b->rank)
        return 0;
    for (int i = 0; i < a->rank; i++)
        if (a->dims[i] != b->dims[i])
            return 0;
    return 1;
}

/* Attribute loc@name: of class cls ('i': any integer), one value. 1 when present, 0 when absent
 * and optional. */
static int expect_attr(checker *c, hid_t loc, const char *name, char cls, int required,
                       int *present)
{
    char where[600];
    object_name(loc, where, sizeof where);
    *present = storq_h5u_has_attr(loc, name);
    if (!*present)
        return required ? bad(c, where, "lacks the attribute '%s'", name) : STORQ_OK;
    hid_t a = H5Aopen(loc, name, H5P_DEFAULT);
    hid_t t = a >= 0 ? H5Aget_type(a) : -1, space = a >= 0 ? H5Aget_space(a) : -1;
    char got = t >= 0 ? type_class(t) : '?';
    hssize_t n = space >= 0 ? H5Sget_simple_extent_npoints(space) : -1;
    storq_h5u_close_type(&t);
    storq_h5u_close_space(&space);
    if (a >= 0)
        H5Aclose(a);
    H5Eclear2(H5E_DEFAULT);
    if (!(got == cls || (cls == 'i' && got == 'u')) || n != 1)
        return bad(c, where, "its attribute '%s' is not one value of %s", name,
                   class_text(cls));
    return STORQ_OK;
}

/* ---- links and objects ---- */

/* A walk over the file's links, group by group. */
typedef struct link_walk {
    checker *c;
    const char *path; /* of the group iterated: "" for the root */
    int depth;
} link_walk;

static int walk_links(checker *c, hid_t group, const char *path, int depth);

/* The one soft link storq writes (1.3): a histogram's bin_edges to /layouts/NAME, a dataset. */
static void check_soft_link(checker *c, hid_t g, const char *name, const char *where,
                            const H5L_info_t *info)
{
    static const char prefix[] = STORQ_SCHEMA_LAYOUTS_PATH "/";
    char target[512] = "";
    if (info->u.val_size > sizeof target ||
        H5Lget_val(g, name, target, sizeof target, H5P_DEFAULT) < 0) {
        bad(c, where, "is a soft link that cannot be read: the file is damaged");
        return;
    }
    target[sizeof target - 1] = '\0';
    const char *layout = target + sizeof prefix - 1;
    if (strcmp(name, STORQ_SCHEMA_BIN_EDGES) != 0 ||
        strncmp(target, prefix, sizeof prefix - 1) != 0 || !*layout || strchr(layout, '/')) {
        bad(c, where, "is a soft link (to '%s'); storq writes soft links only from a "
            "histogram's " STORQ_SCHEMA_BIN_EDGES " to " STORQ_SCHEMA_LAYOUTS_PATH "/NAME", target);
        return;
    }
    H5L_info_t li;
    H5O_info_t oi;
    if (!storq_h5u_has_link(c->file, target) ||
        H5Lget_info(c->file, target, &li, H5P_DEFAULT) < 0 || li.type != H5L_TYPE_HARD ||
        H5Oget_info_by_name(c->file, target, &oi, H5P_DEFAULT) < 0 ||
        oi.type != H5O_TYPE_DATASET)
        bad(c, where, "is a soft link to '%s', which is not a dataset of the file: the file is "
            "damaged", target);
}

static herr_t check_link(hid_t g, const char *name, const H5L_info_t *info, void *data)
{
    link_walk *w = data;
    checker *c = w->c;
    char where[600];
    snprintf(where, sizeof where, "%s/%s", w->path, name);
    if (info->type == H5L_TYPE_EXTERNAL) {
        char val[1024] = "";
        const char *file = "?", *obj = "?";
        unsigned flags;
        if (info->u.val_size <= sizeof val && H5Lget_val(g, name, val, sizeof val, H5P_DEFAULT) >= 0)
            H5Lunpack_elink_val(val, info->u.val_size, &flags, &file, &obj);
        bad(c, where, "is an external link (to '%s' in %s); storq reads nothing from outside the "
            "file it is given", obj, file);
        return 1;
    }
    if (info->type == H5L_TYPE_SOFT) {
        check_soft_link(c, g, name, where, info);
        return c->err->code ? 1 : 0;
    }
    if (info->type != H5L_TYPE_HARD) {
        bad(c, where, "is a user-defined link; storq writes none");
        return 1;
    }
    /* A point or checkpoint without status "complete" (a write cut short, maybe by a full disk)
     * is read by no reader: its own links are not walked, so its damage cannot hide the rest. */
    if (w->depth == 1 && (!strcmp(w->path, "/points") || !strcmp(w->path, "/checkpoints")) &&
        storq_schema_point_complete(g, name) != 1)
        return 0;
    H5O_info_t oi;
    if (H5Oget_info_by_name(g, name, &oi, H5P_DEFAULT) < 0) {
        bad(c, where, "cannot be read: the file is damaged");
        return 1;
    }
    if (oi.type != H5O_TYPE_GROUP)
        return 0;
    hid_t sub = H5Gopen2(g, name, H5P_DEFAULT);
    int rc = sub >= 0 ? walk_links(c, sub, where, w->depth + 1)
                      : bad(c, where, "cannot be opened: the file is damaged");
    if (sub >= 0)
        H5Gclose(sub);
    return rc ? 1 : 0;
}

static int walk_links(checker *c, hid_t group, const char *path, int depth)
{
    if (depth > MAX_DEPTH)
        return bad(c, path, "groups nest deeper than a storq file's");
    link_walk w = {c, path, depth};
    herr_t rc = H5Literate(group, H5_INDEX_NAME, H5_ITER_INC, NULL, check_link, &w);
    if (c->err->code)
        return c->err->code;
    if (rc < 0)
        return bad(c, *path ? path : "/", "its members cannot be listed: the file is damaged");
    return STORQ_OK;
}

/* Every link of the file is a plain (hard) link. */
static int check_links(checker *c)
{
    return walk_links(c, c->file, "", 0);
}

/* Every dataset below group (a point, a checkpoint) gets dataset_shape's checks, whatever it is
 * (a later minor version's datasets too). */
static int check_tree(checker *c, hid_t group, int depth)
{
    char where[512];
    object_name(group, where, sizeof where);
    if (depth > MAX_DEPTH)
        return bad(c, where, "groups nest deeper than a storq file's");
    char **names = NULL;
    size_t n = 0;
    if (storq_h5u_list_links(group, &names, &n, c->err)) {
        c->err->code = 0;
        return bad(c, where, "its members cannot be listed: the file is damaged");
    }
    int rc = STORQ_OK;
    for (size_t i = 0; !rc && i < n; i++) {
        H5O_info_t info;
        if (H5Oget_info_by_name(group, names[i], &info, H5P_DEFAULT) < 0) {
            rc = bad(c, where, "its member '%s' cannot be read: the file is damaged", names[i]);
        } else if (info.type == H5O_TYPE_GROUP) {
            hid_t g = H5Gopen2(group, names[i], H5P_DEFAULT);
            rc = g >= 0 ? check_tree(c, g, depth + 1)
                        : bad(c, where, "its group '%s' cannot be opened", names[i]);
            storq_h5u_close_group(&g);
        } else if (info.type == H5O_TYPE_DATASET) {
            hid_t d = H5Dopen2(group, names[i], H5P_DEFAULT);
            shape s;
            rc = d >= 0 ? dataset_shape(c, d, &s)
                        : bad(c, where, "its dataset '%s' cannot be opened", names[i]);
            storq_h5u_close_dataset(&d);
        }
    }
    storq_h5u_free_names(names, n);
    return rc;
}

/* ---- the run: root attributes, /run ---- */

static int check_run(checker *c)
{
    int present;
    STORQ_TRY(expect_attr(c, c->file, STORQ_SCHEMA_ATTR_MODEL, 's', 1, &present));
    STORQ_TRY(expect_attr(c, c->file, STORQ_SCHEMA_ATTR_SEED, 'i', 1, &present));
    STORQ_TRY(expect_attr(c, c->file, STORQ_SCHEMA_ATTR_REPLICATIONS, 'i', 1, &present));
    STORQ_TRY(expect_attr(c, c->file, STORQ_SCHEMA_ATTR_TASK_INDEX, 'i', 0, &present));
    STORQ_TRY(expect_attr(c, c->file, STORQ_SCHEMA_ATTR_TASK_COUNT, 'i', 0, &present));
    if (storq_h5u_read_attr_string(c->file, STORQ_SCHEMA_ATTR_MODEL, &c->model, c->err) ||
        storq_h5u_read_attr_u64(c->file, STORQ_SCHEMA_ATTR_REPLICATIONS, &c->replications,
                                c->err)) {
        c->err->code = 0;
        return bad(c, "/", "its attributes model and replications cannot be read");
    }
    if (c->replications == 0)
        return bad(c, "/", "attribute replications is 0");
    shape s;
    STORQ_TRY(expect_dataset(c, c->file, STORQ_SCHEMA_CONFIG_PATH, 's', 0, &s));
    /* The run's record of its units: read by storq info, copied by storq merge. */
    if (storq_h5u_has_link(c->file, STORQ_SCHEMA_UNITS_PATH))
        STORQ_TRY(expect_dataset(c, c->file, STORQ_SCHEMA_UNITS_PATH, 'c', 1, &s));
    if (storq_h5u_has_link(c->file, STORQ_SCHEMA_SESSIONS_PATH))
        STORQ_TRY(expect_dataset(c, c->file, STORQ_SCHEMA_SESSIONS_PATH, 'c', 1, &s));
    if (storq_h5u_has_link(c->file, STORQ_SCHEMA_RANKS_PATH))
        STORQ_TRY(expect_dataset(c, c->file, STORQ_SCHEMA_RANKS_PATH, 'c', 1, &s));
    return STORQ_OK;
}

/* ---- /points/index ---- */

static void free_columns(checker *c)
{
    for (int m = 0; c->cols && m < c->ncols; m++) {
        H5free_memory(c->cols[m].name);
        free(c->cols[m].data);
    }
    free(c->cols);
    c->cols = NULL;
}

/* Column m of the index into c->cols[m]: HDF5 matches compound members by name, so a
 * one-member type reads one column. */
static int read_column(checker *c, hid_t d, hid_t ftype, int m)
{
    column *col = &c->cols[m];
    col->name = H5Tget_member_name(ftype, (unsigned)m);
    hid_t mft = H5Tget_member_type(ftype, (unsigned)m);
    col->cls = mft >= 0 ? type_class(mft) : '?';
    int is_vlen = col->cls == 's' && H5Tis_variable_str(mft) > 0;
    col->size = col->cls == 's' ? H5Tget_size(mft) : 8;
    storq_h5u_close_type(&mft);
    if (!col->name || is_vlen || (col->cls != 'i' && col->cls != 'u' && col->cls != 'f' &&
                                  col->cls != 's'))
        return bad(c, STORQ_SCHEMA_INDEX_PATH, "column %d ('%s') is %s; the schema says integer, "
                   "float64 or a fixed-length string", m, col->name ? col->name : "?",
                   is_vlen ? "a variable-length string" : class_text(col->cls));
    hid_t elem = col->cls == 'f' ? H5Tcopy(H5T_NATIVE_DOUBLE)
                 : col->cls == 'i' ? H5Tcopy(H5T_NATIVE_INT64)
                 : col->cls == 'u' ? H5Tcopy(H5T_NATIVE_UINT64)
                                   : H5Tcopy(H5T_C_S1);
    if (col->cls == 's')
        H5Tset_size(elem, col->size);
    hid_t t = H5Tcreate(H5T_COMPOUND, col->size);
    col->data = calloc(c->nrows + 1, col->size);
    int ok = t >= 0 && elem >= 0 && col->data && H5Tinsert(t, col->name, 0, elem) >= 0 &&
             (c->nrows == 0 || H5Dread(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, col->data) >= 0);
    storq_h5u_close_type(&t);
    storq_h5u_close_type(&elem);
    if (!ok)
        return bad(c, STORQ_SCHEMA_INDEX_PATH, "column '%s' cannot be read: the file is damaged",
                   col->name);
    return STORQ_OK;
}

static int check_index(checker *c, uint32_t *crc)
{
    shape s;
    STORQ_TRY(expect_dataset(c, c->file, STORQ_SCHEMA_INDEX_PATH, 'c', 1, &s));
    c->nrows = (size_t)s.dims[0];
    hid_t d = H5Dopen2(c->file, STORQ_SCHEMA_INDEX_PATH, H5P_DEFAULT);
    hid_t ftype = d >= 0 ? H5Dget_type(d) : -1;
    c->ncols = ftype >= 0 ? H5Tget_nmembers(ftype) : -1;
    int rc = c->ncols >= 1 ? STORQ_OK
                           : bad(c, STORQ_SCHEMA_INDEX_PATH, "has no columns");
    if (!rc) {
        c->cols = calloc((size_t)c->ncols, sizeof *c->cols);
        if (!c->cols)
            rc = STORQ_RUNTIME_FAIL(c->err, "out of memory");
    }
    for (int m = 0; !rc && m < c->ncols; m++)
        rc = read_column(c, d, ftype, m);
    storq_h5u_close_type(&ftype);
    storq_h5u_close_dataset(&d);
    STORQ_TRY(rc);
    const column *ids = &c->cols[0];
    if (strcmp(ids->name, STORQ_SCHEMA_INDEX_POINT) != 0 || ids->cls != 'u')
        return bad(c, STORQ_SCHEMA_INDEX_PATH, "its first column is '%s', not the point ids "
                   "('" STORQ_SCHEMA_INDEX_POINT "', uint64)", ids->name);
    for (size_t r = 0; r < c->nrows; r++) {
        uint64_t id;
        memcpy(&id, ids->data + r * 8, 8);
        if (id != r)
            return bad(c, STORQ_SCHEMA_INDEX_PATH, "row %zu has point id %" PRIu64 ", not %zu",
                       r, id, r);
    }
    *crc = 0;
    for (int m = 0; m < c->ncols; m++) {
        *crc = storq_crc32(*crc, c->cols[m].name, strlen(c->cols[m].name) + 1);
        *crc = storq_crc32(*crc, &c->cols[m].cls, 1);
        *crc = storq_crc32(*crc, c->cols[m].data, c->nrows * c->cols[m].size);
    }
    return STORQ_OK;
}

/* --resume: the index holds exactly the points of the run being resumed. */
static int check_expected(checker *c, const storq_h5_expect *e)
{
    size_t nparams = storq_param_count(e->model->params);
    if (c->nrows != e->npoints)
        return bad(c, STORQ_SCHEMA_INDEX_PATH, "has %zu points; the run being resumed has %zu",
                   c->nrows, e->npoints);
    if ((size_t)c->ncols != nparams + 1)
        return bad(c, STORQ_SCHEMA_INDEX_PATH, "has %d parameter columns; model %s has %zu "
                   "parameters", c->ncols - 1, e->model->name, nparams);
    for (size_t i = 0; i < nparams; i++) {
        const storq_param_def *def = &e->model->params[i];
        const column *col = &c->cols[i + 1];
        char want = def->type == STORQ_PARAM_INT ? 'i' : def->type == STORQ_PARAM_REAL ? 'f' : 's';
        if (strcmp(col->name, def->name) != 0 || col->cls != want)
            return bad(c, STORQ_SCHEMA_INDEX_PATH, "column %zu is '%s' (%s); model %s's "
                       "parameter %zu is '%s' (%s)", i + 1, col->name, class_text(col->cls),
                       e->model->name, i + 1, def->name, class_text(want));
        for (size_t p = 0; p < e->npoints; p++) {
            const unsigned char *v = col->data + p * col->size;
            const storq_param_value *x = &e->points[p].v[i];
            char there[80], here[80];
            int same;
            if (want == 'i') {
                int64_t a;
                memcpy(&a, v, 8);
                same = a == x->i;
                snprintf(there, sizeof there, "%" PRId64, a);
                snprintf(here, sizeof here, "%" PRId64, x->i);
            } else if (want == 'f') {
                double a;
                memcpy(&a, v, 8);
                same = memcmp(&a, &x->r, 8) == 0;
                snprintf(there, sizeof there, "%.17g", a);
                snprintf(here, sizeof here, "%.17g", x->r);
            } else {
                char *owned = NULL; /* stored escaped when not UTF-8 (utf8.h) */
                const char *s = x->s ? storq_utf8_text(x->s, &owned) : "";
                size_t len = strnlen((const char *)v, col->size);
                same = s && len == strlen(s) && memcmp(v, s, len) == 0;
                s = s ? s : "";
                snprintf(there, sizeof there, "'%.*s'", (int)(len < 60 ? len : 60),
                         (const char *)v);
                snprintf(here, sizeof here, "'%.60s'", s);
                free(owned);
            }
            if (!same)
                return bad(c, STORQ_SCHEMA_INDEX_PATH, "point %zu has %s = %s; in the run being "
                           "resumed it is %s", p, def->name, there, here);
        }
    }
    return STORQ_OK;
}

/* ---- one complete point ---- */

/* The point's attribute for index column col equals row id's value. */
static int check_param(checker *c, hid_t g, const char *where, const column *col, size_t id)
{
    int present;
    char want = col->cls == 'u' ? 'i' : col->cls;
    STORQ_TRY(expect_attr(c, g, col->name, want, 1, &present));
    const unsigned char *v = col->data + id * col->size;
    char there[80] = "?", here[80] = "?";
    int same = 0;
    storq_error ignore = {0};
    if (col->cls == 's') {
        char *s = NULL;
        size_t len = strnlen((const char *)v, col->size);
        if (!storq_h5u_read_attr_string(g, col->name, &s, &ignore)) {
            same = strlen(s) == len && memcmp(s, v, len) == 0;
            snprintf(here, sizeof here, "'%.60s'", s);
        }
        snprintf(there, sizeof there, "'%.*s'", (int)(len < 60 ? len : 60), (const char *)v);
        free(s);
    } else if (col->cls == 'f') {
        double a, x;
        memcpy(&x, v, 8);
        if (!storq_h5u_read_attr_f64(g, col->name, &a, &ignore))
            same = memcmp(&a, &x, 8) == 0;
        snprintf(here, sizeof here, "%.17g", a);
        snprintf(there, sizeof there, "%.17g", x);
    } else {
        /* int64 and uint64 columns: the attribute has the column's sign */
        hid_t attr = H5Aopen(g, col->name, H5P_DEFAULT);
        uint64_t a = 0, x;
        memcpy(&x, v, 8);
        if (attr >= 0 && H5Aread(attr, col->cls == 'i' ? H5T_NATIVE_INT64 : H5T_NATIVE_UINT64,
                                 &a) >= 0)
            same = a == x;
        if (attr >= 0)
            H5Aclose(attr);
        H5Eclear2(H5E_DEFAULT);
        snprintf(here, sizeof here, col->cls == 'i' ? "%" PRId64 : "%" PRIu64, a);
        snprintf(there, sizeof there, col->cls == 'i' ? "%" PRId64 : "%" PRIu64, x);
    }
    if (!same)
        return bad(c, where, "has %s = %s, but row %zu of " STORQ_SCHEMA_INDEX_PATH " says %s",
                   col->name, here, id, there);
    return STORQ_OK;
}

static int check_point_attrs(checker *c, hid_t g, const char *where, size_t id,
                             uint64_t *reps)
{
    int present;
    STORQ_TRY(expect_attr(c, g, STORQ_SCHEMA_ATTR_MODEL, 's', 1, &present));
    STORQ_TRY(expect_attr(c, g, STORQ_SCHEMA_ATTR_REPLICATIONS, 'i', 1, &present));
    STORQ_TRY(expect_attr(c, g, STORQ_SCHEMA_ATTR_EVENTS, 'i', 1, &present));
    STORQ_TRY(expect_attr(c, g, STORQ_SCHEMA_ATTR_WALL_SECONDS, 'f', 1, &present));
    char *model = NULL;
    storq_error ignore = {0};
    int rc = storq_h5u_read_attr_string(g, STORQ_SCHEMA_ATTR_MODEL, &model, &ignore) ||
                     storq_h5u_read_attr_u64(g, STORQ_SCHEMA_ATTR_REPLICATIONS, reps, &ignore)
                 ? bad(c, where, "its attributes model and replications cannot be read")
                 : STORQ_OK;
    if (!rc && strcmp(model, c->model) != 0)
        rc = bad(c, where, "has model '%.60s', but the run (the root attribute model) is '%s'",
                 model, c->model);
    free(model);
    STORQ_TRY(rc);
    /* With a precision target a point takes batches of the run's replications, up to its
     * max_replications; without one, exactly the run's. */
    int precision;
    STORQ_TRY(expect_attr(c, g, STORQ_SCHEMA_ATTR_PRECISION_TARGET, 'f', 0, &precision));
    if (precision) {
        uint64_t max = 0;
        STORQ_TRY(expect_attr(c, g, STORQ_SCHEMA_ATTR_MAX_REPLICATIONS, 'i', 1, &present));
        if (storq_h5u_read_attr_u64(g, STORQ_SCHEMA_ATTR_MAX_REPLICATIONS, &max, &ignore) ||
            *reps == 0 || *reps > max)
            return bad(c, where, "holds %" PRIu64 " replications, not 1 to its "
                       "max_replications (%" PRIu64 ")", *reps, max);
    } else if (*reps != c->replications) {
        return bad(c, where, "holds %" PRIu64 " replications, but the run (the root attribute "
                   "replications) has %" PRIu64, *reps, c->replications);
    }
    for (int m = 1; m < c->ncols; m++)
        STORQ_TRY(check_param(c, g, where, &c->cols[m], id));
    return STORQ_OK;
}

/* One observable group and its row of replications/. */
static int check_observable(checker *c, hid_t obs, hid_t reps_group, const char *name,
                            uint64_t reps)
{
    hid_t g = H5Gopen2(obs, name, H5P_DEFAULT);
    char where[600];
    if (g < 0) {
        object_name(obs, where, sizeof where);
        return bad(c, where, "its member '%s' is not a group", name);
    }
    object_name(g, where, sizeof where);
    char *kind = NULL;
    storq_error ignore = {0};
    int present;
    int rc = expect_attr(c, g, "kind", 's', 1, &present);
    if (!rc && storq_h5u_read_attr_string(g, "kind", &kind, &ignore))
        rc = bad(c, where, "its attribute kind cannot be read");
    shape value = {.cls = 'f', .rank = 0}, s, m;
    int known = 1;
    if (rc) {
        /* reported */
    } else if (strcmp(kind, "scalar") == 0) {
        static const char *const stats[] = {"mean", "stderr", "ci95"};
        for (size_t i = 0; !rc && i < 3; i++)
            rc = expect_dataset(c, g, stats[i], 'f', 0, &s);
    } else if (strcmp(kind, "vector") == 0) {
        rc = expect_dataset(c, g, "mean", 'f', -1, &value);
        if (!rc && value.rank != 1 && value.rank != 2)
            rc = bad(c, where, "its mean has %d dimensions; a vector has 1 or 2", value.rank);
        static const char *const stats[] = {"stderr", "ci95"};
        for (size_t i = 0; !rc && i < 2; i++) {
            rc = expect_dataset(c, g, stats[i], 'f', value.rank, &s);
            if (!rc && !same_dims(&s, &value))
                rc = bad(c, where, "its %s and mean differ in shape", stats[i]);
        }
        if (!rc && storq_h5u_has_link(g, "axis")) {
            rc = expect_dataset(c, g, "axis", 'f', 1, &s);
            if (!rc && s.dims[0] != value.dims[0])
                rc = bad(c, where, "its axis has %llu values for %llu rows",
                         (unsigned long long)s.dims[0], (unsigned long long)value.dims[0]);
        }
    } else if (strcmp(kind, "histogram") == 0) {
        rc = expect_dataset(c, g, "counts", 'i', 1, &m);
        if (!rc)
            rc = expect_dataset(c, g, "bin_edges", 'f', 1, &s);
        if (!rc && s.dims[0] != m.dims[0] + 1)
            rc = bad(c, where, "its bin_edges has %llu values for %llu bins",
                     (unsigned long long)s.dims[0], (unsigned long long)m.dims[0]);
        static const char *const ints[] = {"underflow", "overflow", "count"};
        static const char *const reals[] = {"sum", "min", "max", "mean"};
        for (size_t i = 0; !rc && i < 3; i++)
            rc = expect_dataset(c, g, ints[i], 'i', 0, &s);
        for (size_t i = 0; !rc && i < 4; i++)
            rc = expect_dataset(c, g, reals[i], 'f', 0, &s);
    } else {
        known = 0; /* a later minor version's kind: its datasets had the generic checks */
    }
    free(kind);
    H5Gclose(g);
    STORQ_TRY(rc);
    if (!known)
        return STORQ_OK;
    /* replications/<name>: one row per replication, each row the value's shape (a histogram's
     * row is its sum: one value). */
    STORQ_TRY(expect_dataset(c, reps_group, name, 'f', value.rank + 1, &s));
    int fits = s.dims[0] == reps;
    for (int i = 0; i < value.rank; i++)
        fits = fits && s.dims[i + 1] == value.dims[i];
    if (!fits) {
        char sh[200], rw[600];
        shape_text(&s, sh, sizeof sh);
        object_name(reps_group, rw, sizeof rw);
        snprintf(rw + strlen(rw), sizeof rw - strlen(rw), "/%s", name);
        return bad(c, rw, "has shape %s; the point holds %" PRIu64 " replications of %s", sh,
                   reps, where);
    }
    return STORQ_OK;
}

/* Every member of theory/ or comparison/: a 1-D float64 array. */
static int check_arrays(checker *c, hid_t g)
{
    char **names = NULL;
    size_t n = 0;
    if (storq_h5u_list_links(g, &names, &n, c->err)) {
        c->err->code = 0;
        char where[512];
        object_name(g, where, sizeof where);
        return bad(c, where, "its members cannot be listed");
    }
    int rc = STORQ_OK;
    shape s;
    for (size_t i = 0; !rc && i < n; i++)
        rc = expect_dataset(c, g, names[i], 'f', 1, &s);
    storq_h5u_free_names(names, n);
    return rc;
}

static int open_member_group(checker *c, hid_t g, const char *where, const char *name,
                             hid_t *out)
{
    H5O_info_t info;
    *out = -1;
    if (!storq_h5u_has_link(g, name) || H5Oget_info_by_name(g, name, &info, H5P_DEFAULT) < 0 ||
        info.type != H5O_TYPE_GROUP || (*out = H5Gopen2(g, name, H5P_DEFAULT)) < 0)
        return bad(c, where, "lacks the group '%s'", name);
    return STORQ_OK;
}

static int check_point(checker *c, hid_t g, size_t id, size_t *checksummed)
{
    char where[STORQ_SCHEMA_POINT_PATH_MAX];
    storq_schema_point_path(id, where, sizeof where);
    STORQ_TRY(check_tree(c, g, 0));
    uint64_t reps;
    STORQ_TRY(check_point_attrs(c, g, where, id, &reps));
    hid_t obs = -1, rg = -1, th = -1, cmp = -1;
    int rc = open_member_group(c, g, where, STORQ_SCHEMA_OBSERVABLES, &obs);
    if (!rc)
        rc = open_member_group(c, g, where, STORQ_SCHEMA_REPLICATIONS, &rg);
    if (!rc)
        rc = open_member_group(c, g, where, STORQ_SCHEMA_THEORY, &th);
    if (!rc)
        rc = open_member_group(c, g, where, STORQ_SCHEMA_COMPARISON, &cmp);
    char **names = NULL;
    size_t n = 0;
    if (!rc && storq_h5u_list_links(obs, &names, &n, c->err)) {
        c->err->code = 0;
        rc = bad(c, where, "its observables cannot be listed");
    }
    for (size_t i = 0; !rc && i < n; i++)
        rc = check_observable(c, obs, rg, names[i], reps);
    storq_h5u_free_names(names, n);
    if (!rc)
        rc = check_arrays(c, th);
    if (!rc)
        rc = check_arrays(c, cmp);
    storq_h5u_close_group(&obs);
    storq_h5u_close_group(&rg);
    storq_h5u_close_group(&th);
    storq_h5u_close_group(&cmp);
    STORQ_TRY(rc);
    int checked;
    STORQ_TRY(storq_h5_checksum_verify(g, c->label, c->path, &checked, c->err));
    *checksummed += (size_t)checked;
    return STORQ_OK;
}

/* Every complete point group (and nothing else numbered) in /points; complete checkpoints get
 * the generic checks (--resume checks their shapes against the run's observables). */
static int check_groups(checker *c, const char *parent, int points, size_t *checksummed,
                        size_t *unreadable)
{
    hid_t top = H5Gopen2(c->file, parent, H5P_DEFAULT);
    if (top < 0)
        return bad(c, parent, "is missing or not a group");
    char **names = NULL;
    size_t n = 0;
    int rc = STORQ_OK;
    if (storq_h5u_list_links(top, &names, &n, c->err)) {
        c->err->code = 0;
        rc = bad(c, parent, "its members cannot be listed: the file is damaged");
    }
    for (size_t i = 0; !rc && i < n; i++) {
        size_t id;
        char where[600];
        snprintf(where, sizeof where, "%s/%s", parent, names[i]);
        if (!storq_schema_point_id(names[i], &id))
            continue; /* the index, a checkpoint's temporary, a later version's addition */
        /* interrupted (perhaps damaged by the write cut short): no reader uses it. One HDF5
         * cannot open (a damaged object header) is not complete either: merge counts it
         * missing, --resume salvages the complete points (partial_file.c), info marks it
         * unreadable and fails (out->unreadable) */
        int complete = storq_schema_point_complete(top, names[i]);
        if (complete < 0 && !points) {
            rc = bad(c, where, "cannot be read: its HDF5 object header is damaged");
            break;
        }
        *unreadable += complete < 0;
        if (complete != 1)
            continue;
        H5O_info_t info;
        if (H5Oget_info_by_name(top, names[i], &info, H5P_DEFAULT) < 0 ||
            info.type != H5O_TYPE_GROUP) {
            rc = bad(c, where, "is not a group");
            break;
        }
        if (id >= c->nrows) {
            rc = bad(c, where, "is not a point of the run (" STORQ_SCHEMA_INDEX_PATH " has %zu)",
                     c->nrows);
            break;
        }
        hid_t g = H5Gopen2(top, names[i], H5P_DEFAULT);
        if (g < 0)
            rc = bad(c, where, "cannot be opened");
        else
            rc = points ? check_point(c, g, id, checksummed) : check_tree(c, g, 0);
        storq_h5u_close_group(&g);
    }
    storq_h5u_free_names(names, n);
    H5Gclose(top);
    return rc;
}

/* /layouts (1.3): each member a 1-D float64 dataset with its checksum (points' histograms
 * check theirs again through their bin_edges links). */
static int check_layouts(checker *c)
{
    hid_t top = H5Gopen2(c->file, STORQ_SCHEMA_LAYOUTS_PATH, H5P_DEFAULT);
    if (top < 0)
        return bad(c, STORQ_SCHEMA_LAYOUTS_PATH, "is not a group");
    char **names = NULL;
    size_t n = 0;
    int rc = STORQ_OK;
    if (storq_h5u_list_links(top, &names, &n, c->err)) {
        c->err->code = 0;
        rc = bad(c, STORQ_SCHEMA_LAYOUTS_PATH, "its members cannot be listed: the file is damaged");
    }
    for (size_t i = 0; !rc && i < n; i++) {
        char where[600];
        snprintf(where, sizeof where, STORQ_SCHEMA_LAYOUTS_PATH "/%s", names[i]);
        H5O_info_t info;
        if (H5Oget_info_by_name(top, names[i], &info, H5P_DEFAULT) < 0 ||
            info.type != H5O_TYPE_DATASET) {
            rc = bad(c, where, "is not a dataset");
            break;
        }
        shape s;
        rc = expect_dataset(c, top, names[i], 'f', 1, &s);
        hid_t d = rc ? -1 : H5Dopen2(top, names[i], H5P_DEFAULT);
        int checked = 0;
        if (!rc)
            rc = storq_h5_checksum_verify(d, c->label, c->path, &checked, c->err);
        if (!rc && !checked)
            rc = bad(c, where, "has no checksum (attribute '" STORQ_SCHEMA_ATTR_CRC32 "'): the "
                     "file is damaged or was not written by storq");
        storq_h5u_close_dataset(&d);
    }
    storq_h5u_free_names(names, n);
    H5Gclose(top);
    return rc;
}

static int file_size(checker *c)
{
    if (H5Fget_filesize(c->file, &c->size) >= 0)
        return STORQ_OK;
    H5Eclear2(H5E_DEFAULT);
    return storq_h5u_fail(c->err, c->file, "cannot tell the file's size");
}

int storq_h5_check_points_of(hid_t file, const char *path, const char *label,
                             const storq_h5_expect *expect, storq_error *err)
{
    checker c = {.file = file, .path = path, .label = label, .err = err};
    uint32_t crc;
    int rc = file_size(&c);
    if (!rc)
        rc = check_index(&c, &crc);
    if (!rc)
        rc = check_expected(&c, expect);
    free_columns(&c);
    return rc;
}

int storq_h5_check_file_here(hid_t file, const char *path, const char *label,
                             storq_h5_checked *out, storq_error *err)
{
    checker c = {.file = file, .path = path, .label = label, .err = err};
    storq_h5_checked found = {0};
    int rc = file_size(&c);
    if (!rc)
        rc = check_links(&c);
    if (!rc)
        rc = check_run(&c);
    if (!rc)
        rc = check_index(&c, &found.index_crc);
    found.npoints = c.nrows;
    if (!rc)
        rc = check_groups(&c, "/" STORQ_SCHEMA_POINTS, 1, &found.checksummed, &found.unreadable);
    if (!rc && storq_h5u_has_link(file, "/" STORQ_SCHEMA_CHECKPOINTS))
        rc = check_groups(&c, "/" STORQ_SCHEMA_CHECKPOINTS, 0, &found.checksummed,
                          &found.unreadable);
    if (!rc && storq_h5u_has_link(file, STORQ_SCHEMA_LAYOUTS_PATH))
        rc = check_layouts(&c);
    free(c.model);
    free_columns(&c);
    H5Eclear2(H5E_DEFAULT);
    if (!rc && out)
        *out = found;
    return rc;
}

int storq_h5_open_checked(const char *path, const char *hint, hid_t *file,
                          storq_h5_checked *out, storq_error *err)
{
    STORQ_TRY(storq_schema_open(path, NULL, STORQ_SCHEMA_READ, hint, file, NULL, err));
    int rc = storq_h5_check_file(*file, path, NULL, out, err);
    if (rc) {
        H5Fclose(*file);
        *file = -1;
    }
    return rc;
}
