/* A point tree (point_tree.h) written as a group of a 1.x file the way io/h5_point_writer.c
 * writes a point (see its comment, and docs/hdf5-schema.md, Storage): every object anonymous and
 * made whole before the next one, bottom up. A dataset: its data, its attributes, its checksum
 * (crc32). A group: its members first, then itself: its attributes, its checksum, its links to its
 * members in order, and its status last (the checksum leaves status out). The tree's own group is
 * linked into its parent last of all, so a reader never sees part of it; anything made before a
 * failure is closed unlinked, and so is gone. Datasets, groups and attributes are made by
 * h5_util.h's helpers: the creation properties (layout, compression, compact groups with their
 * creation order) and file types of the 1.x writer's.
 *
 * The tree is checked whole before anything is made: what a point tree cannot hold (a type, rank
 * or count outside point_tree.h's, missing values, names HDF5 cannot link) is a usage error
 * naming the object, and the file is left untouched. */
#include "point_tree.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "h5_checksum.h"
#include "h5_util.h"
#include "schema.h"

/* As deep as storq_pt_read_h5 and storq_pt_deserialise read (a point is 4 deep). */
#define DEPTH_MAX 32

typedef struct writer {
    hid_t file;
    char path[1024]; /* the object being checked or written, for messages */
    int named;       /* a runtime error's message already names it */
    storq_error *err;
} writer;

/* Appends "/name" to the path; returns its length before, for path_pop. */
static size_t path_push(writer *w, const char *name)
{
    size_t len = strlen(w->path);
    const char *sep = len && w->path[len - 1] == '/' ? "" : "/";
    snprintf(w->path + len, sizeof w->path - len, "%s%s", sep, name);
    return len;
}

static void path_pop(writer *w, size_t len)
{
    w->path[len] = '\0';
}

/* ---- checking the tree first ---- */

/* A usage error: "'FILE', object 'PATH': what". */
static int refuse(writer *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int refuse(writer *w, const char *fmt, ...)
{
    char file[512], what[512];
    if (H5Fget_name(w->file, file, sizeof file) < 0)
        snprintf(file, sizeof file, "?");
    H5Eclear2(H5E_DEFAULT);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return storq_fail(w->err, STORQ_ERR_USAGE, "'%s', object '%s': %s", file, w->path, what);
}

static int name_cmp(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The names of n elements of base (stride bytes apart, the name at byte offset at of each): each
 * one a link or attribute HDF5 can make, and each once. */
static int check_names(writer *w, const void *base, size_t n, size_t stride, size_t at,
                       const char *what)
{
    const char **sorted = malloc((n ? n : 1) * sizeof *sorted);
    if (!sorted)
        return STORQ_RUNTIME_FAIL(w->err, "out of memory checking a point tree");
    int rc = STORQ_OK;
    for (size_t i = 0; !rc && i < n; i++) {
        const char *name;
        memcpy(&name, (const char *)base + i * stride + at, sizeof name);
        if (!name || !*name)
            rc = refuse(w, "%s %zu has no name", what, i);
        else if (strchr(name, '/') || strcmp(name, ".") == 0)
            rc = refuse(w, "%s '%s': a name HDF5 reads as a path", what, name);
        sorted[i] = name;
    }
    if (!rc)
        qsort(sorted, n, sizeof *sorted, name_cmp);
    for (size_t i = 1; !rc && i < n; i++)
        if (strcmp(sorted[i - 1], sorted[i]) == 0)
            rc = refuse(w, "two of its %ss are named '%s'", what, sorted[i]);
    free(sorted);
    return rc;
}

static int check_attrs(writer *w, const storq_pt_node *n)
{
    STORQ_TRY(check_names(w, n->attrs, n->nattrs, sizeof *n->attrs,
                          offsetof(storq_pt_attr, name), "attribute"));
    for (size_t i = 0; i < n->nattrs; i++) {
        const storq_pt_attr *a = &n->attrs[i];
        if (strcmp(a->name, STORQ_SCHEMA_ATTR_CRC32) == 0)
            return refuse(w, "attribute '%s' is the checksum this writes (read trees to write "
                          "without it: storq_pt_read_h5's skip)", a->name);
        if (a->type < STORQ_PT_F64 || a->type > STORQ_PT_STR || a->rank < 0 || a->rank > 1 ||
            (a->rank == 0 && a->n != 1))
            return refuse(w, "attribute '%s': type %d of rank %d with %zu values is not one a "
                          "point tree holds", a->name, (int)a->type, a->rank, a->n);
        if (a->n > 0 && !a->data)
            return refuse(w, "attribute '%s': %zu values and no data", a->name, a->n);
        for (size_t k = 0; a->type == STORQ_PT_STR && k < a->n; k++)
            if (!((char *const *)a->data)[k])
                return refuse(w, "attribute '%s': string %zu is missing (NULL)", a->name, k);
    }
    return STORQ_OK;
}

static int check_dataset(writer *w, const storq_pt_node *d)
{
    if (d->type < STORQ_PT_F64 || d->type > STORQ_PT_I32 || d->rank < 0 ||
        d->rank > STORQ_PT_RANK_MAX)
        return refuse(w, "a dataset of type %d and rank %d (a point's are numbers of rank 0 to "
                      "%d)", (int)d->type, d->rank, STORQ_PT_RANK_MAX);
    uint64_t count = 1, max = SIZE_MAX / storq_pt_type_size(d->type);
    int empty = 0, big = 0;
    for (int i = 0; i < d->rank; i++) {
        empty |= d->dims[i] == 0;
        if (d->dims[i] && count > max / d->dims[i])
            big = 1;
        else
            count *= d->dims[i];
    }
    if (big && !empty)
        return refuse(w, "a dataset too large to be held in memory");
    if (!empty && !d->data)
        return refuse(w, "a dataset of %llu values and no data", (unsigned long long)count);
    return STORQ_OK;
}

static int check_node(writer *w, const storq_pt_node *n, int depth)
{
    STORQ_TRY(check_attrs(w, n));
    switch (n->kind) {
    case STORQ_PT_DATASET:
        return check_dataset(w, n);
    case STORQ_PT_SOFTLINK:
        if (!n->target || !*n->target)
            return refuse(w, "a soft link without a target");
        if (n->nattrs)
            return refuse(w, "a soft link with attributes (a link has none)");
        return STORQ_OK;
    case STORQ_PT_GROUP:
        break;
    default:
        return refuse(w, "a node of kind %d, not a group, a dataset or a soft link", (int)n->kind);
    }
    if (depth > DEPTH_MAX)
        return refuse(w, "groups nested more than %d deep", DEPTH_MAX);
    STORQ_TRY(check_names(w, n->kids, n->nkids, sizeof *n->kids, offsetof(storq_pt_node, name),
                          "member"));
    for (size_t i = 0; i < n->nkids; i++) {
        size_t len = path_push(w, n->kids[i].name);
        int rc = check_node(w, &n->kids[i], depth + 1);
        path_pop(w, len);
        STORQ_TRY(rc);
    }
    return STORQ_OK;
}

/* ---- writing ---- */

/* A group or dataset (see io/h5_point_writer.c's close_object: H5Oclose may keep the id). */
static void close_object(hid_t *id)
{
    if (*id >= 0 && H5Iget_type(*id) == H5I_DATASET)
        H5Dclose(*id);
    else if (*id >= 0)
        H5Gclose(*id);
    *id = -1;
}

/* A runtime error's message gets the tree object it was writing, once (an anonymous object has
 * no name HDF5 could give). */
static int at_object(writer *w, int rc)
{
    if (rc == STORQ_ERR_RUNTIME && !w->named) {
        size_t len = strlen(w->err->msg);
        snprintf(w->err->msg + len, sizeof w->err->msg - len, " (writing '%s')", w->path);
        w->named = 1;
    }
    return rc;
}

/* Scalars of the 1.x writer's kinds through its own helpers, the rest alike. */
int storq_pt_write_attr(hid_t obj, const storq_pt_attr *a, storq_error *err)
{
    if (a->type != STORQ_PT_STR)
        return storq_h5u_attr_numbers(obj, a->name, storq_pt_h5_file_type(a->type),
                                      storq_pt_h5_mem_type(a->type), a->rank, a->data, a->n, err);
    if (a->rank == 0)
        return storq_h5u_attr_string(obj, a->name, ((char *const *)a->data)[0], err);
    return storq_h5u_attr_strings(obj, a->name, (const char *const *)a->data, a->n, err);
}

static int is_status(const storq_pt_attr *a)
{
    return strcmp(a->name, STORQ_SCHEMA_ATTR_STATUS) == 0;
}

/* obj's attributes but status (status: 1, status alone). */
static int write_attrs(writer *w, hid_t obj, const storq_pt_node *n, int status)
{
    for (size_t i = 0; i < n->nattrs; i++)
        if (is_status(&n->attrs[i]) == status)
            STORQ_TRY(storq_pt_write_attr(obj, &n->attrs[i], w->err));
    return STORQ_OK;
}

static int make_object(writer *w, const storq_pt_node *n, int depth, hid_t *out);

static int make_dataset(writer *w, const storq_pt_node *n, hid_t *out)
{
    hsize_t dims[STORQ_PT_RANK_MAX];
    for (int i = 0; i < n->rank; i++)
        dims[i] = n->dims[i];
    const void *data = storq_pt_count(n) ? n->data : NULL; /* none to write */
    hid_t d = -1;
    int rc;
    if (n->type == STORQ_PT_F64)
        rc = storq_h5u_new_f64(w->file, n->name, n->rank, dims, data, &d, w->err);
    else if (n->type == STORQ_PT_U64)
        rc = storq_h5u_new_u64(w->file, n->name, n->rank, dims, data, &d, w->err);
    else
        rc = storq_h5u_new_array(w->file, n->name, storq_pt_h5_file_type(n->type),
                                 storq_pt_h5_mem_type(n->type),
                                 n->rank, dims, data, &d, w->err);
    if (!rc)
        rc = write_attrs(w, d, n, 0);
    if (!rc)
        rc = storq_h5_checksum_stamp_object(d, w->err);
    if (!rc)
        rc = write_attrs(w, d, n, 1);
    if (rc) {
        close_object(&d);
        return rc;
    }
    *out = d;
    return STORQ_OK;
}

/* The group's members (open anonymous objects, -1 for soft links), then the group. */
static int make_group(writer *w, const storq_pt_node *n, int depth, hid_t *out)
{
    hid_t *kids = malloc((n->nkids ? n->nkids : 1) * sizeof *kids), g = -1;
    if (!kids)
        return STORQ_RUNTIME_FAIL(w->err, "out of memory writing '%s'", w->path);
    for (size_t i = 0; i < n->nkids; i++)
        kids[i] = -1;
    int rc = STORQ_OK;
    for (size_t i = 0; !rc && i < n->nkids; i++) {
        if (n->kids[i].kind == STORQ_PT_SOFTLINK)
            continue;
        size_t len = path_push(w, n->kids[i].name);
        rc = make_object(w, &n->kids[i], depth + 1, &kids[i]);
        path_pop(w, len);
    }
    if (!rc)
        rc = storq_h5u_new_group(w->file, &g, w->err);
    if (!rc)
        rc = write_attrs(w, g, n, 0);
    if (!rc)
        rc = storq_h5_checksum_stamp_object(g, w->err);
    for (size_t i = 0; !rc && i < n->nkids; i++) {
        const storq_pt_node *k = &n->kids[i];
        if (k->kind != STORQ_PT_SOFTLINK)
            rc = storq_h5u_link(g, k->name, kids[i], w->err);
        else if (H5Lcreate_soft(k->target, g, k->name, H5P_DEFAULT, H5P_DEFAULT) < 0)
            rc = storq_h5u_fail(w->err, g, "cannot link '%s' to '%s'", k->name, k->target);
    }
    if (!rc)
        rc = write_attrs(w, g, n, 1);
    for (size_t i = 0; i < n->nkids; i++)
        close_object(&kids[i]);
    free(kids);
    if (rc) {
        close_object(&g);
        return rc;
    }
    *out = g;
    return STORQ_OK;
}

static int make_object(writer *w, const storq_pt_node *n, int depth, hid_t *out)
{
    int rc = n->kind == STORQ_PT_GROUP ? make_group(w, n, depth, out) : make_dataset(w, n, out);
    return at_object(w, rc);
}

int storq_pt_write_h5(hid_t file, hid_t parent, const char *name, const storq_pt_node *tree,
                      storq_error *err)
{
    writer w = {.file = file, .err = err};
    if (!name || !*name)
        return storq_fail(err, STORQ_ERR_USAGE, "a point tree written without a name");
    if (name[0] != '/' && H5Iget_name(parent, w.path, sizeof w.path) <= 0)
        snprintf(w.path, sizeof w.path, "?");
    H5Eclear2(H5E_DEFAULT);
    if (name[0] == '/')
        snprintf(w.path, sizeof w.path, "%s", name);
    else
        path_push(&w, name);
    if (!tree || tree->kind != STORQ_PT_GROUP)
        return refuse(&w, "the tree's root is not a group");
    if (storq_h5u_has_link(parent, name))
        return refuse(&w, "it exists already");
    STORQ_TRY(check_node(&w, tree, 0));
    hid_t g = -1;
    int rc = make_object(&w, tree, 0, &g);
    if (!rc) /* the whole group appears at once */
        rc = at_object(&w, storq_h5u_link(parent, name, g, err));
    close_object(&g);
    return rc;
}
