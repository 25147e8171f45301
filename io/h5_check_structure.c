/* The structural checks of a results file (see h5_check.c for the order and docs/hdf5-schema.md
 * "What readers check"): what each dataset and attribute is, that every link is a plain link
 * inside the file, that every dataset is sized within the file before anything reads it, and
 * /layouts' checksummed arrays. */
#include "h5_check_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "h5_checksum.h"
#include "h5_util.h"
#include "schema.h"
#include "utf8.h"

int chk_bad(checker *c, const char *object, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

int chk_bad(checker *c, const char *object, const char *fmt, ...)
{
    char what[700];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    H5Eclear2(H5E_DEFAULT);
    return storq_fail(c->err, STORQ_ERR_USAGE, "%s%s%s: object '%s': %s", c->label ? c->label : "",
                      c->label ? ": " : "", c->path, object, what);
}

/* The path of an open object, for messages. */
void chk_object_name(hid_t obj, char *buf, size_t size)
{
    if (H5Iget_name(obj, buf, size) <= 0)
        snprintf(buf, size, "?");
    H5Eclear2(H5E_DEFAULT);
}

char chk_type_class(hid_t t)
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

const char *chk_class_text(char cls)
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

void chk_shape_text(const shape *s, char *buf, size_t size)
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
    chk_object_name(d, name, sizeof name);
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
        return chk_bad(c, name,
                       "is a virtual dataset, whose data live in other files; storq reads "
                       "nothing from outside the file it is given");
    if (external != 0)
        return chk_bad(c, name,
                       "stores its data in an external file ('%s'); storq reads nothing "
                       "from outside the file it is given",
                       ext);
    hid_t t = H5Dget_type(d), space = H5Dget_space(d);
    H5S_class_t sc = space >= 0 ? H5Sget_simple_extent_type(space) : H5S_NO_CLASS;
    s->cls = t >= 0 ? chk_type_class(t) : '?';
    s->rank = sc == H5S_SIMPLE || sc == H5S_SCALAR ? H5Sget_simple_extent_ndims(space) : -1;
    size_t elsize = t >= 0 ? H5Tget_size(t) : 0;
    int ok = s->rank >= 0 && H5Sget_simple_extent_dims(space, s->dims, NULL) >= 0 && elsize > 0;
    storq_h5u_close_type(&t);
    storq_h5u_close_space(&space);
    if (!ok)
        return chk_bad(c, name, "has no readable type or shape");
    int overflow;
    hsize_t claim = claimed_bytes(s, elsize, &overflow);
    if (overflow || claim > limit) {
        char sh[200];
        chk_shape_text(s, sh, sizeof sh);
        if (layout == H5D_CHUNKED)
            return chk_bad(c, name,
                           "claims %s elements of %zu bytes, more than its %llu bytes in "
                           "the file can hold compressed: the file is damaged or was not written "
                           "by storq",
                           sh, elsize, (unsigned long long)(limit / DEFLATE_MAX_RATIO));
        return chk_bad(c, name,
                       "claims %s elements of %zu bytes, more than the whole file (%llu "
                       "bytes) holds: the file is damaged or was not written by storq",
                       sh, elsize, (unsigned long long)c->size);
    }
    return STORQ_OK;
}

/* Dataset loc/name: present, of class cls ('i' for any integer) and rank (-1: any), checked as
 * above; *s gets its shape. */
int chk_expect_dataset(checker *c, hid_t loc, const char *name, char cls, int rank, shape *s)
{
    char where[600], lname[512];
    chk_object_name(loc, lname, sizeof lname);
    if (name[0] == '/') /* an absolute path names itself */
        snprintf(where, sizeof where, "%s", name);
    else
        snprintf(where, sizeof where, "%s/%s", strcmp(lname, "/") ? lname : "", name);
    H5O_info_t info;
    if (!storq_h5u_has_link(loc, name) || H5Oget_info_by_name(loc, name, &info, H5P_DEFAULT) < 0 ||
        info.type != H5O_TYPE_DATASET)
        return chk_bad(c, where, "is missing (or not a dataset)");
    hid_t d = H5Dopen2(loc, name, H5P_DEFAULT);
    if (d < 0)
        return chk_bad(c, where, "cannot be opened");
    int rc = dataset_shape(c, d, s);
    H5Dclose(d);
    STORQ_TRY(rc);
    int cls_ok = s->cls == cls || (cls == 'i' && s->cls == 'u');
    if (!cls_ok)
        return chk_bad(c, where, "is %s; the schema says %s", chk_class_text(s->cls),
                       chk_class_text(cls));
    if (rank >= 0 && s->rank != rank) {
        char sh[200];
        chk_shape_text(s, sh, sizeof sh);
        return chk_bad(c, where, "has shape %s; the schema says %d dimension%s", sh, rank,
                       rank == 1 ? "" : "s");
    }
    return STORQ_OK;
}

int chk_same_dims(const shape *a, const shape *b)
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
int chk_expect_attr(checker *c, hid_t loc, const char *name, char cls, int required, int *present)
{
    char where[600];
    chk_object_name(loc, where, sizeof where);
    *present = storq_h5u_has_attr(loc, name);
    if (!*present)
        return required ? chk_bad(c, where, "lacks the attribute '%s'", name) : STORQ_OK;
    hid_t a = H5Aopen(loc, name, H5P_DEFAULT);
    hid_t t = a >= 0 ? H5Aget_type(a) : -1, space = a >= 0 ? H5Aget_space(a) : -1;
    char got = t >= 0 ? chk_type_class(t) : '?';
    hssize_t n = space >= 0 ? H5Sget_simple_extent_npoints(space) : -1;
    storq_h5u_close_type(&t);
    storq_h5u_close_space(&space);
    if (a >= 0)
        H5Aclose(a);
    H5Eclear2(H5E_DEFAULT);
    if (!(got == cls || (cls == 'i' && got == 'u')) || n != 1)
        return chk_bad(c, where, "its attribute '%s' is not one value of %s", name,
                       chk_class_text(cls));
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
        chk_bad(c, where, "is a soft link that cannot be read: the file is damaged");
        return;
    }
    target[sizeof target - 1] = '\0';
    const char *layout = target + sizeof prefix - 1;
    if (strcmp(name, STORQ_SCHEMA_BIN_EDGES) != 0 ||
        strncmp(target, prefix, sizeof prefix - 1) != 0 || !*layout || strchr(layout, '/')) {
        chk_bad(c, where,
                "is a soft link (to '%s'); storq writes soft links only from a "
                "histogram's " STORQ_SCHEMA_BIN_EDGES " to " STORQ_SCHEMA_LAYOUTS_PATH "/NAME",
                target);
        return;
    }
    H5L_info_t li;
    H5O_info_t oi;
    if (!storq_h5u_has_link(c->file, target) ||
        H5Lget_info(c->file, target, &li, H5P_DEFAULT) < 0 || li.type != H5L_TYPE_HARD ||
        H5Oget_info_by_name(c->file, target, &oi, H5P_DEFAULT) < 0 || oi.type != H5O_TYPE_DATASET)
        chk_bad(c, where,
                "is a soft link to '%s', which is not a dataset of the file: the file is "
                "damaged",
                target);
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
        if (info->u.val_size <= sizeof val &&
            H5Lget_val(g, name, val, sizeof val, H5P_DEFAULT) >= 0)
            H5Lunpack_elink_val(val, info->u.val_size, &flags, &file, &obj);
        chk_bad(c, where,
                "is an external link (to '%s' in %s); storq reads nothing from outside the "
                "file it is given",
                obj, file);
        return 1;
    }
    if (info->type == H5L_TYPE_SOFT) {
        check_soft_link(c, g, name, where, info);
        return c->err->code ? 1 : 0;
    }
    if (info->type != H5L_TYPE_HARD) {
        chk_bad(c, where, "is a user-defined link; storq writes none");
        return 1;
    }
    /* A point or checkpoint without status "complete" (a write cut short, maybe by a full disk)
     * is read by no reader: its own links are not walked, so its damage cannot hide the rest. */
    if (w->depth == 1 && (!strcmp(w->path, "/points") || !strcmp(w->path, "/checkpoints")) &&
        storq_schema_point_complete(g, name) != 1)
        return 0;
    H5O_info_t oi;
    if (H5Oget_info_by_name(g, name, &oi, H5P_DEFAULT) < 0) {
        H5Eclear2(H5E_DEFAULT);
        /* A salvage copies none of /run's records: their damage is noted, not fatal. /run
         * itself is still walked (its config must pass), its header being unreadable. */
        if (c->salvage && w->depth == 0 && !strcmp(name, STORQ_SCHEMA_RUN))
            oi.type = H5O_TYPE_GROUP;
        else if (c->salvage && w->depth == 1 && !strcmp(w->path, "/" STORQ_SCHEMA_RUN) &&
                 (!strcmp(name, STORQ_SCHEMA_UNITS) || !strcmp(name, STORQ_SCHEMA_RANKS) ||
                  !strcmp(name, STORQ_SCHEMA_SESSIONS))) {
            c->run_damaged = 1;
            return 0;
        } else {
            chk_bad(c, where, "cannot be read: the file is damaged");
            return 1;
        }
        c->run_damaged = 1;
    }
    if (oi.type != H5O_TYPE_GROUP)
        return 0;
    hid_t sub = H5Gopen2(g, name, H5P_DEFAULT);
    int rc = sub >= 0 ? walk_links(c, sub, where, w->depth + 1)
                      : chk_bad(c, where, "cannot be opened: the file is damaged");
    if (sub >= 0)
        H5Gclose(sub);
    return rc ? 1 : 0;
}

static int walk_links(checker *c, hid_t group, const char *path, int depth)
{
    if (depth > MAX_DEPTH)
        return chk_bad(c, path, "groups nest deeper than a storq file's");
    link_walk w = {c, path, depth};
    herr_t rc = H5Literate(group, H5_INDEX_NAME, H5_ITER_INC, NULL, check_link, &w);
    if (c->err->code)
        return c->err->code;
    if (rc < 0)
        return chk_bad(c, *path ? path : "/", "its members cannot be listed: the file is damaged");
    return STORQ_OK;
}

/* Every link of the file is a plain (hard) link. */
int chk_links(checker *c)
{
    return walk_links(c, c->file, "", 0);
}

/* Every dataset below group (a point, a checkpoint) gets dataset_shape's checks, whatever it is
 * (a later minor version's datasets too). */
int chk_tree(checker *c, hid_t group, int depth)
{
    char where[512];
    chk_object_name(group, where, sizeof where);
    if (depth > MAX_DEPTH)
        return chk_bad(c, where, "groups nest deeper than a storq file's");
    char **names = NULL;
    size_t n = 0;
    if (storq_h5u_list_links(group, &names, &n, c->err)) {
        c->err->code = 0;
        return chk_bad(c, where, "its members cannot be listed: the file is damaged");
    }
    int rc = STORQ_OK;
    for (size_t i = 0; !rc && i < n; i++) {
        H5O_info_t info;
        if (H5Oget_info_by_name(group, names[i], &info, H5P_DEFAULT) < 0) {
            rc = chk_bad(c, where, "its member '%s' cannot be read: the file is damaged", names[i]);
        } else if (info.type == H5O_TYPE_GROUP) {
            hid_t g = H5Gopen2(group, names[i], H5P_DEFAULT);
            rc = g >= 0 ? chk_tree(c, g, depth + 1)
                        : chk_bad(c, where, "its group '%s' cannot be opened", names[i]);
            storq_h5u_close_group(&g);
        } else if (info.type == H5O_TYPE_DATASET) {
            hid_t d = H5Dopen2(group, names[i], H5P_DEFAULT);
            shape s;
            rc = d >= 0 ? dataset_shape(c, d, &s)
                        : chk_bad(c, where, "its dataset '%s' cannot be opened", names[i]);
            storq_h5u_close_dataset(&d);
        }
    }
    storq_h5u_free_names(names, n);
    return rc;
}

/* /layouts (1.3): each member a 1-D float64 dataset with its checksum (points' histograms
 * check theirs again through their bin_edges links). */
int chk_layouts(checker *c)
{
    hid_t top = H5Gopen2(c->file, STORQ_SCHEMA_LAYOUTS_PATH, H5P_DEFAULT);
    if (top < 0)
        return chk_bad(c, STORQ_SCHEMA_LAYOUTS_PATH, "is not a group");
    char **names = NULL;
    size_t n = 0;
    int rc = STORQ_OK;
    if (storq_h5u_list_links(top, &names, &n, c->err)) {
        c->err->code = 0;
        rc = chk_bad(c, STORQ_SCHEMA_LAYOUTS_PATH,
                     "its members cannot be listed: the file is damaged");
    }
    for (size_t i = 0; !rc && i < n; i++) {
        char where[600];
        snprintf(where, sizeof where, STORQ_SCHEMA_LAYOUTS_PATH "/%s", names[i]);
        H5O_info_t info;
        if (H5Oget_info_by_name(top, names[i], &info, H5P_DEFAULT) < 0 ||
            info.type != H5O_TYPE_DATASET) {
            rc = chk_bad(c, where, "is not a dataset");
            break;
        }
        shape s;
        rc = chk_expect_dataset(c, top, names[i], 'f', 1, &s);
        hid_t d = rc ? -1 : H5Dopen2(top, names[i], H5P_DEFAULT);
        int checked = 0;
        if (!rc)
            rc = storq_h5_checksum_verify(d, c->label, c->path, &checked, c->err);
        if (!rc && !checked)
            rc = chk_bad(c, where,
                         "has no checksum (attribute '" STORQ_SCHEMA_ATTR_CRC32 "'): the "
                         "file is damaged or was not written by storq");
        storq_h5u_close_dataset(&d);
    }
    storq_h5u_free_names(names, n);
    H5Gclose(top);
    return rc;
}
