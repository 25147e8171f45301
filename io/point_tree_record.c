/* A point tree as a record of bytes (point_tree.h), for the partial file's log:
 *
 *   record = "SQPT", u32 version (1), u64 length of the whole record, node (the root),
 *            u32 CRC-32 of every byte before it
 *   node   = u8 kind, str name, u64 nattrs, attr * nattrs, then by kind:
 *            group: u64 nkids, node * nkids
 *            dataset: u8 type, u8 rank, u64 dims[rank], values (the product of dims)
 *            soft link: str target
 *   attr   = str name, u8 type, u8 rank, u64 n, values (n)
 *   values = each element as 8 or 4 bytes (a double as its bits), or a str for strings
 *   str    = u32 length, its bytes (no NUL)
 *
 * Integers are little-endian whatever the host. Kinds and types are point_tree.h's numbers. The
 * length tells a record cut short from one altered, and the checksum is checked before anything
 * is read of the tree. */
#include "point_tree.h"

#include <stdlib.h>
#include <string.h>

#include "crc32.h"

#define MAGIC "SQPT"
#define VERSION 1u
#define HEAD_SIZE 16 /* magic, version, length */
#define CRC_SIZE 4
/* The fewest bytes an attribute (name length, type, rank, n) and a node (kind, name length,
 * nattrs, then at least a u64 kid count, two bytes of type and rank or a target's length) take:
 * counts read are checked against them before anything is allocated for them. */
#define ATTR_MIN 14
#define NODE_MIN 15
/* A point is 4 deep (point/observables/u/mean): deeper is refused, bounding the recursion. */
#define DEPTH_MAX 32

/* ---- writing: the same walk measures the record, then writes it ---- */

typedef struct out {
    unsigned char *buf; /* NULL while measuring */
    size_t len;
    int too_long; /* a string over 4 GiB: its length does not fit */
} out;

static void put(out *o, const void *p, size_t n)
{
    if (o->buf && n)
        memcpy(o->buf + o->len, p, n);
    o->len += n;
}

static void put_le(out *o, uint64_t x, int bytes)
{
    unsigned char b[8];
    for (int i = 0; i < bytes; i++)
        b[i] = (unsigned char)(x >> (8 * i));
    put(o, b, (size_t)bytes);
}

static void put_str(out *o, const char *s)
{
    size_t n = strlen(s);
    if (n > UINT32_MAX) {
        o->too_long = 1;
        n = 0;
    }
    put_le(o, n, 4);
    put(o, s, n);
}

static void put_values(out *o, storq_pt_type type, size_t n, const void *data)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++) {
        if (type == STORQ_PT_STR) {
            put_str(o, ((char *const *)data)[i]);
        } else if (storq_pt_type_size(type) == 8) {
            uint64_t x;
            memcpy(&x, p + 8 * i, 8);
            put_le(o, x, 8);
        } else {
            uint32_t x;
            memcpy(&x, p + 4 * i, 4);
            put_le(o, x, 4);
        }
    }
}

static void put_node(out *o, const storq_pt_node *n)
{
    put_le(o, (uint64_t)n->kind, 1);
    put_str(o, n->name);
    put_le(o, n->nattrs, 8);
    for (size_t i = 0; i < n->nattrs; i++) {
        const storq_pt_attr *a = &n->attrs[i];
        put_str(o, a->name);
        put_le(o, (uint64_t)a->type, 1);
        put_le(o, (uint64_t)a->rank, 1);
        put_le(o, a->n, 8);
        put_values(o, a->type, a->n, a->data);
    }
    if (n->kind == STORQ_PT_GROUP) {
        put_le(o, n->nkids, 8);
        for (size_t i = 0; i < n->nkids; i++)
            put_node(o, &n->kids[i]);
    } else if (n->kind == STORQ_PT_DATASET) {
        put_le(o, (uint64_t)n->type, 1);
        put_le(o, (uint64_t)n->rank, 1);
        for (int i = 0; i < n->rank; i++)
            put_le(o, n->dims[i], 8);
        put_values(o, n->type, (size_t)storq_pt_count(n), n->data);
    } else {
        put_str(o, n->target);
    }
}

static void put_record(out *o, const storq_pt_node *root, uint64_t length)
{
    put(o, MAGIC, 4);
    put_le(o, VERSION, 4);
    put_le(o, length, 8);
    put_node(o, root);
}

int storq_pt_serialise(const storq_pt_node *root, unsigned char **bytes, size_t *size,
                       storq_error *err)
{
    *bytes = NULL;
    *size = 0;
    out measure = {0};
    put_record(&measure, root, 0);
    if (measure.too_long)
        return storq_fail(err, STORQ_ERR_USAGE,
                          "a point tree holds a string over 4 GiB, too long for a record");
    out o = {.buf = malloc(measure.len + CRC_SIZE)};
    if (!o.buf)
        return STORQ_RUNTIME_FAIL(err, "out of memory making a point record of %zu bytes",
                                  measure.len + CRC_SIZE);
    put_record(&o, root, measure.len + CRC_SIZE);
    put_le(&o, storq_crc32(0, o.buf, o.len), 4);
    *bytes = o.buf;
    *size = o.len;
    return STORQ_OK;
}

/* ---- reading: every count checked against the bytes left before it is used ---- */

typedef struct in {
    const unsigned char *p;
    size_t left;
    storq_error *err;
} in;

/* A count or length larger than the bytes left: in a record whose length and checksum hold, the
 * writer's mistake. */
static int overrun(in *r)
{
    return storq_fail(r->err, STORQ_ERR_USAGE,
                      "a point record's contents run past its end (a count or length in it is "
                      "wrong)");
}

static uint64_t le(const unsigned char *p, int bytes)
{
    uint64_t x = 0;
    for (int i = 0; i < bytes; i++)
        x |= (uint64_t)p[i] << (8 * i);
    return x;
}

static int get_le(in *r, int bytes, uint64_t *x)
{
    *x = 0;
    if ((size_t)bytes > r->left)
        return overrun(r);
    *x = le(r->p, bytes);
    r->p += bytes;
    r->left -= (size_t)bytes;
    return STORQ_OK;
}

/* A count of items of at least min bytes each, which the bytes left can hold. */
static int get_count(in *r, size_t min, size_t *n)
{
    uint64_t x;
    STORQ_TRY(get_le(r, 8, &x));
    if (x > r->left / min)
        return overrun(r);
    *n = (size_t)x;
    return STORQ_OK;
}

static int get_str(in *r, char **s)
{
    uint64_t len;
    STORQ_TRY(get_le(r, 4, &len));
    if (len > r->left)
        return overrun(r);
    if (memchr(r->p, '\0', (size_t)len))
        return storq_fail(r->err, STORQ_ERR_USAGE, "a point record's string holds a NUL byte");
    *s = malloc((size_t)len + 1);
    if (!*s)
        return STORQ_RUNTIME_FAIL(r->err, "out of memory reading a point record");
    memcpy(*s, r->p, (size_t)len);
    (*s)[len] = '\0';
    r->p += len;
    r->left -= (size_t)len;
    return STORQ_OK;
}

/* n values of type into *data, which is the caller's to free from the moment it is set (for
 * strings: an array of NULLs filled in turn). */
static int get_values(in *r, storq_pt_type type, size_t n, void **data)
{
    size_t size = type == STORQ_PT_STR ? 4 : storq_pt_type_size(type); /* bytes in the record */
    if (n > r->left / size)
        return overrun(r);
    *data = calloc(n ? n : 1, storq_pt_type_size(type));
    if (!*data)
        return STORQ_RUNTIME_FAIL(r->err, "out of memory reading a point record");
    unsigned char *p = *data;
    for (size_t i = 0; i < n; i++) {
        uint64_t x;
        if (type == STORQ_PT_STR) {
            STORQ_TRY(get_str(r, &((char **)*data)[i]));
        } else if (size == 8) {
            STORQ_TRY(get_le(r, 8, &x));
            memcpy(p + 8 * i, &x, 8);
        } else {
            STORQ_TRY(get_le(r, 4, &x));
            uint32_t y = (uint32_t)x;
            memcpy(p + 4 * i, &y, 4);
        }
    }
    return STORQ_OK;
}

static int get_attr(in *r, storq_pt_attr *a)
{
    uint64_t type, rank;
    STORQ_TRY(get_str(r, &a->name));
    STORQ_TRY(get_le(r, 1, &type));
    STORQ_TRY(get_le(r, 1, &rank));
    if (type < STORQ_PT_F64 || type > STORQ_PT_STR)
        return storq_fail(r->err, STORQ_ERR_USAGE,
                          "a point record's attribute '%s' has an unknown type (%u)", a->name,
                          (unsigned)type);
    if (rank > 1)
        return storq_fail(r->err, STORQ_ERR_USAGE,
                          "a point record's attribute '%s' has rank %u (at most 1)", a->name,
                          (unsigned)rank);
    a->type = (storq_pt_type)type;
    a->rank = (int)rank;
    size_t n;
    STORQ_TRY(get_count(r, 1, &n));
    if (rank == 0 && n != 1)
        return storq_fail(r->err, STORQ_ERR_USAGE,
                          "a point record's scalar attribute '%s' holds %zu values", a->name, n);
    a->n = n;
    return get_values(r, a->type, n, &a->data);
}

static int get_dataset(in *r, storq_pt_node *n)
{
    uint64_t type, rank;
    STORQ_TRY(get_le(r, 1, &type));
    STORQ_TRY(get_le(r, 1, &rank));
    if (type < STORQ_PT_F64 || type > STORQ_PT_I32)
        return storq_fail(r->err, STORQ_ERR_USAGE,
                          "a point record's dataset '%s' has an unknown type (%u)", n->name,
                          (unsigned)type);
    if (rank > STORQ_PT_RANK_MAX)
        return storq_fail(r->err, STORQ_ERR_USAGE,
                          "a point record's dataset '%s' has rank %u (at most %d)", n->name,
                          (unsigned)rank, STORQ_PT_RANK_MAX);
    n->type = (storq_pt_type)type;
    n->rank = (int)rank;
    /* the product of the dims, bounded as it goes by what the bytes left can hold */
    size_t limit = r->left / storq_pt_type_size(n->type), count = 1;
    int empty = 0, too_big = 0;
    for (int i = 0; i < n->rank; i++) {
        STORQ_TRY(get_le(r, 8, &n->dims[i]));
        if (n->dims[i] == 0)
            empty = 1;
        else if (too_big || n->dims[i] > limit / count)
            too_big = 1;
        else
            count *= (size_t)n->dims[i];
    }
    if (empty)
        count = 0;
    else if (too_big)
        return overrun(r);
    return get_values(r, n->type, count, &n->data);
}

static int get_node(in *r, storq_pt_node *n, int depth)
{
    if (depth > DEPTH_MAX)
        return storq_fail(r->err, STORQ_ERR_USAGE,
                          "a point record nests groups more than %d deep", DEPTH_MAX);
    uint64_t kind;
    STORQ_TRY(get_le(r, 1, &kind));
    STORQ_TRY(get_str(r, &n->name));
    if (kind < STORQ_PT_GROUP || kind > STORQ_PT_SOFTLINK)
        return storq_fail(r->err, STORQ_ERR_USAGE,
                          "a point record's object '%s' is of an unknown kind (%u)", n->name,
                          (unsigned)kind);
    n->kind = (storq_pt_kind)kind;
    size_t count;
    STORQ_TRY(get_count(r, ATTR_MIN, &count));
    if (count && !(n->attrs = calloc(count, sizeof *n->attrs)))
        return STORQ_RUNTIME_FAIL(r->err, "out of memory reading a point record");
    for (size_t i = 0; i < count; i++) {
        n->nattrs = i + 1; /* freed with the tree from now on, even half read */
        STORQ_TRY(get_attr(r, &n->attrs[i]));
        /* in name order, each name once: as storq_pt_set_attr keeps them */
        if (i > 0 && strcmp(n->attrs[i - 1].name, n->attrs[i].name) >= 0)
            return storq_fail(r->err, STORQ_ERR_USAGE,
                              "a point record's object '%s' has its attributes out of order "
                              "('%s' after '%s')", n->name, n->attrs[i].name,
                              n->attrs[i - 1].name);
    }
    if (n->kind == STORQ_PT_DATASET)
        return get_dataset(r, n);
    if (n->kind == STORQ_PT_SOFTLINK)
        return get_str(r, &n->target);
    STORQ_TRY(get_count(r, NODE_MIN, &count));
    if (count && !(n->kids = calloc(count, sizeof *n->kids)))
        return STORQ_RUNTIME_FAIL(r->err, "out of memory reading a point record");
    for (size_t i = 0; i < count; i++) {
        n->nkids = i + 1;
        STORQ_TRY(get_node(r, &n->kids[i], depth + 1));
    }
    return STORQ_OK;
}

int storq_pt_deserialise(const unsigned char *bytes, size_t size, storq_pt_node **root,
                         storq_error *err)
{
    *root = NULL;
    if (size < HEAD_SIZE + CRC_SIZE)
        return storq_fail(err, STORQ_ERR_USAGE, "a point record cut short (%zu bytes)", size);
    if (memcmp(bytes, MAGIC, 4) != 0)
        return storq_fail(err, STORQ_ERR_USAGE,
                          "not a point record (it does not begin with '" MAGIC "')");
    uint64_t version = le(bytes + 4, 4), length = le(bytes + 8, 8);
    if (version != VERSION)
        return storq_fail(err, STORQ_ERR_USAGE,
                          "a point record of version %llu (this storq reads version %u)",
                          (unsigned long long)version, VERSION);
    if (length > size)
        return storq_fail(err, STORQ_ERR_USAGE, "a point record cut short (%zu of its %llu bytes)",
                          size, (unsigned long long)length);
    if (length < size)
        return storq_fail(err, STORQ_ERR_USAGE,
                          "a point record of %zu bytes states a length of %llu", size,
                          (unsigned long long)length);
    if (storq_crc32(0, bytes, size - CRC_SIZE) != le(bytes + size - CRC_SIZE, CRC_SIZE))
        return storq_fail(err, STORQ_ERR_USAGE,
                          "a point record's checksum does not match: it is damaged");
    in r = {bytes + HEAD_SIZE, size - HEAD_SIZE - CRC_SIZE, err};
    storq_pt_node *t = calloc(1, sizeof *t);
    int rc = t ? get_node(&r, t, 0)
               : STORQ_RUNTIME_FAIL(err, "out of memory reading a point record");
    if (!rc && t->kind != STORQ_PT_GROUP)
        rc = storq_fail(err, STORQ_ERR_USAGE, "a point record's root is not a group");
    if (!rc && r.left)
        rc = storq_fail(err, STORQ_ERR_USAGE,
                        "a point record's tree ends %zu bytes before the record does", r.left);
    if (rc) {
        storq_pt_free(t);
        return rc;
    }
    *root = t;
    return STORQ_OK;
}
