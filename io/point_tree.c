/* A point as a tree in memory (point_tree.h): building, looking up, comparing, freeing. The
 * record format is in point_tree_record.c, the HDF5 reader in point_tree_h5.c.
 *
 * Every array of a tree (kids, attributes, values) is allocated to its exact size: a point has
 * tens of members, so growing one element a call costs nothing worth a capacity field. */
#include "point_tree.h"

#include <stdlib.h>
#include <string.h>

size_t storq_pt_type_size(storq_pt_type type)
{
    switch (type) {
    case STORQ_PT_F64:
    case STORQ_PT_U64:
    case STORQ_PT_I64:
        return 8;
    case STORQ_PT_U32:
    case STORQ_PT_I32:
        return 4;
    case STORQ_PT_STR:
        return sizeof(char *);
    }
    return 0;
}

uint64_t storq_pt_count(const storq_pt_node *d)
{
    if (d->kind != STORQ_PT_DATASET)
        return 0;
    uint64_t n = 1;
    for (int i = 0; i < d->rank; i++)
        n *= d->dims[i];
    return n;
}

/* ---- freeing ---- */

static void free_values(storq_pt_type type, size_t n, void *data)
{
    if (type == STORQ_PT_STR && data) {
        char **s = data;
        for (size_t i = 0; i < n; i++)
            free(s[i]);
    }
    free(data);
}

static void free_attr(storq_pt_attr *a)
{
    free(a->name);
    free_values(a->type, a->n, a->data);
}

/* What n owns, not n itself (it is an element of its parent's kids). */
static void free_node(storq_pt_node *n)
{
    free(n->name);
    for (size_t i = 0; i < n->nattrs; i++)
        free_attr(&n->attrs[i]);
    free(n->attrs);
    for (size_t i = 0; i < n->nkids; i++)
        free_node(&n->kids[i]);
    free(n->kids);
    free(n->data);
    free(n->target);
}

void storq_pt_free(storq_pt_node *root)
{
    if (!root)
        return;
    free_node(root);
    free(root);
}

/* ---- building ---- */

int storq_pt_new(storq_pt_node **root, storq_error *err)
{
    *root = calloc(1, sizeof **root);
    if (*root)
        (*root)->name = strdup("");
    if (!*root || !(*root)->name) {
        free(*root);
        *root = NULL;
        return STORQ_RUNTIME_FAIL(err, "out of memory making a point tree");
    }
    (*root)->kind = STORQ_PT_GROUP;
    return STORQ_OK;
}

/* A copy of n elements of type (strings copied too), or NULL when out of memory or when n
 * elements would not fit in memory. Never NULL for n == 0. */
static void *copy_values(storq_pt_type type, size_t n, const void *data)
{
    size_t size = storq_pt_type_size(type);
    if (n > SIZE_MAX / size)
        return NULL;
    void *copy = malloc(n ? n * size : 1);
    if (!copy || n == 0)
        return copy;
    if (type != STORQ_PT_STR) {
        memcpy(copy, data, n * size);
        return copy;
    }
    const char *const *from = data;
    char **to = copy;
    for (size_t i = 0; i < n; i++) {
        to[i] = strdup(from[i] ? from[i] : "");
        if (!to[i]) {
            free_values(type, i, copy);
            return NULL;
        }
    }
    return copy;
}

/* The new last member of g, named name, its other fields zero; NULL when out of memory (g
 * unchanged). */
static storq_pt_node *add_kid(storq_pt_node *g, const char *name, storq_pt_kind kind)
{
    char *own = strdup(name);
    storq_pt_node *kids = own ? realloc(g->kids, (g->nkids + 1) * sizeof *kids) : NULL;
    if (!kids) {
        free(own);
        return NULL;
    }
    g->kids = kids;
    storq_pt_node *k = &kids[g->nkids++];
    memset(k, 0, sizeof *k);
    k->name = own;
    k->kind = kind;
    return k;
}

int storq_pt_add_group(storq_pt_node *g, const char *name, storq_pt_node **out, storq_error *err)
{
    storq_pt_node *k = add_kid(g, name, STORQ_PT_GROUP);
    if (out)
        *out = k;
    return k ? STORQ_OK : STORQ_RUNTIME_FAIL(err, "out of memory adding group '%s'", name);
}

static int valid_dataset_type(storq_pt_type type)
{
    return type >= STORQ_PT_F64 && type <= STORQ_PT_I32;
}

int storq_pt_add_dataset(storq_pt_node *g, const char *name, storq_pt_type type, int rank,
                         const uint64_t *dims, const void *data, storq_pt_node **out,
                         storq_error *err)
{
    if (out)
        *out = NULL;
    /* a caller's mistake rather than the machine's: refused before anything is kept */
    if (!valid_dataset_type(type) || rank < 0 || rank > STORQ_PT_RANK_MAX)
        return storq_fail(err, STORQ_ERR_USAGE,
                          "dataset '%s': type %d of rank %d is not one a point tree holds", name,
                          (int)type, rank);
    uint64_t count = 1;
    int empty = 0;
    for (int i = 0; i < rank; i++) {
        if (dims[i] == 0)
            empty = 1;
        else if (count > UINT64_MAX / dims[i])
            count = UINT64_MAX; /* too large for memory all the same */
        else
            count *= dims[i];
    }
    if (empty)
        count = 0;
    void *copy = count <= SIZE_MAX ? copy_values(type, (size_t)count, data) : NULL;
    storq_pt_node *k = copy ? add_kid(g, name, STORQ_PT_DATASET) : NULL;
    if (!k) {
        free(copy);
        return STORQ_RUNTIME_FAIL(err, "out of memory adding dataset '%s'", name);
    }
    k->type = type;
    k->rank = rank;
    for (int i = 0; i < rank; i++)
        k->dims[i] = dims[i];
    k->data = copy;
    if (out)
        *out = k;
    return STORQ_OK;
}

int storq_pt_add_softlink(storq_pt_node *g, const char *name, const char *target,
                          storq_error *err)
{
    char *t = strdup(target);
    storq_pt_node *k = t ? add_kid(g, name, STORQ_PT_SOFTLINK) : NULL;
    if (!k) {
        free(t);
        return STORQ_RUNTIME_FAIL(err, "out of memory adding soft link '%s'", name);
    }
    k->target = t;
    return STORQ_OK;
}

/* Where name is in n's sorted attributes (*found 1), or where it would go (*found 0). */
static size_t attr_position(const storq_pt_node *n, const char *name, int *found)
{
    size_t lo = 0, hi = n->nattrs;
    *found = 0;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(n->attrs[mid].name, name);
        if (c == 0) {
            *found = 1;
            return mid;
        }
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

int storq_pt_set_attr(storq_pt_node *n, const char *name, storq_pt_type type, int rank,
                      size_t count, const void *data, storq_error *err)
{
    if (type < STORQ_PT_F64 || type > STORQ_PT_STR || rank < 0 || rank > 1 ||
        (rank == 0 && count != 1))
        return storq_fail(err, STORQ_ERR_USAGE,
                          "attribute '%s': type %d of rank %d with %zu values is not one a "
                          "point tree holds", name, (int)type, rank, count);
    storq_pt_attr a = {.name = strdup(name), .type = type, .rank = rank, .n = count};
    a.data = a.name ? copy_values(type, count, data) : NULL;
    if (!a.data) {
        free(a.name);
        return STORQ_RUNTIME_FAIL(err, "out of memory setting attribute '%s'", name);
    }
    int found;
    size_t at = attr_position(n, name, &found);
    if (found) {
        free_attr(&n->attrs[at]);
        n->attrs[at] = a;
        return STORQ_OK;
    }
    storq_pt_attr *attrs = realloc(n->attrs, (n->nattrs + 1) * sizeof *attrs);
    if (!attrs) {
        free_attr(&a);
        return STORQ_RUNTIME_FAIL(err, "out of memory setting attribute '%s'", name);
    }
    memmove(&attrs[at + 1], &attrs[at], (n->nattrs - at) * sizeof *attrs);
    attrs[at] = a;
    n->attrs = attrs;
    n->nattrs++;
    return STORQ_OK;
}

int storq_pt_set_string(storq_pt_node *n, const char *name, const char *value, storq_error *err)
{
    return storq_pt_set_attr(n, name, STORQ_PT_STR, 0, 1, &value, err);
}

int storq_pt_set_f64(storq_pt_node *n, const char *name, double value, storq_error *err)
{
    return storq_pt_set_attr(n, name, STORQ_PT_F64, 0, 1, &value, err);
}

int storq_pt_set_u64(storq_pt_node *n, const char *name, uint64_t value, storq_error *err)
{
    return storq_pt_set_attr(n, name, STORQ_PT_U64, 0, 1, &value, err);
}

int storq_pt_set_i64(storq_pt_node *n, const char *name, int64_t value, storq_error *err)
{
    return storq_pt_set_attr(n, name, STORQ_PT_I64, 0, 1, &value, err);
}

/* ---- looking up ---- */

const storq_pt_node *storq_pt_find(const storq_pt_node *n, const char *path)
{
    while (n && *path) {
        size_t len = strcspn(path, "/");
        const storq_pt_node *next = NULL;
        for (size_t i = 0; n->kind == STORQ_PT_GROUP && i < n->nkids; i++) {
            const char *name = n->kids[i].name;
            if (strncmp(name, path, len) == 0 && name[len] == '\0') {
                next = &n->kids[i];
                break;
            }
        }
        n = next;
        path += len;
        if (*path == '/' && *++path == '\0')
            return NULL; /* a trailing '/': an empty name, which nothing has */
    }
    return n;
}

const storq_pt_attr *storq_pt_attr_find(const storq_pt_node *n, const char *name)
{
    int found;
    size_t at = attr_position(n, name, &found);
    return found ? &n->attrs[at] : NULL;
}

const char *storq_pt_attr_string(const storq_pt_node *n, const char *name)
{
    const storq_pt_attr *a = storq_pt_attr_find(n, name);
    if (!a || a->type != STORQ_PT_STR || a->rank != 0 || a->n != 1)
        return NULL;
    return ((char *const *)a->data)[0];
}

/* ---- comparing ---- */

static int values_equal(storq_pt_type type, size_t n, const void *a, const void *b)
{
    if (type != STORQ_PT_STR)
        return n == 0 || memcmp(a, b, n * storq_pt_type_size(type)) == 0;
    char *const *sa = a, *const *sb = b;
    for (size_t i = 0; i < n; i++)
        if (strcmp(sa[i], sb[i]) != 0)
            return 0;
    return 1;
}

static int attrs_equal(const storq_pt_attr *a, const storq_pt_attr *b)
{
    return strcmp(a->name, b->name) == 0 && a->type == b->type && a->rank == b->rank &&
           a->n == b->n && values_equal(a->type, a->n, a->data, b->data);
}

int storq_pt_equal(const storq_pt_node *a, const storq_pt_node *b)
{
    if (a == b)
        return 1;
    if (!a || !b || a->kind != b->kind || strcmp(a->name, b->name) != 0 ||
        a->nattrs != b->nattrs)
        return 0;
    for (size_t i = 0; i < a->nattrs; i++)
        if (!attrs_equal(&a->attrs[i], &b->attrs[i]))
            return 0;
    switch (a->kind) {
    case STORQ_PT_GROUP:
        if (a->nkids != b->nkids)
            return 0;
        for (size_t i = 0; i < a->nkids; i++)
            if (!storq_pt_equal(&a->kids[i], &b->kids[i]))
                return 0;
        return 1;
    case STORQ_PT_DATASET:
        if (a->type != b->type || a->rank != b->rank)
            return 0;
        for (int i = 0; i < a->rank; i++)
            if (a->dims[i] != b->dims[i])
                return 0;
        return values_equal(a->type, (size_t)storq_pt_count(a), a->data, b->data);
    case STORQ_PT_SOFTLINK:
        return strcmp(a->target, b->target) == 0;
    }
    return 0;
}
