/* A point of a results file as a tree in memory: the objects of a schema 1.x point group (groups,
 * datasets, soft links) with their attributes, values included. It is what the writers and
 * readers of points have in common: a 1.x point group read from a file (storq_pt_read_h5) or
 * written to one (storq_pt_write_h5: storq merge's points of schema 2.0 files), a
 * point built from a run's results, a record of the partial file's log (storq_pt_serialise /
 * storq_pt_deserialise), and the input of the 2.0 writer (io/h5_convert*.c), which so writes the
 * same file from any of them (docs/architecture.md, "The results file at scale").
 *
 * Order: a group's members in their creation order (the model's order; a group that does not
 * track it: by name), a node's attributes by name (strcmp order, as HDF5's name index). The
 * checksum attributes of 1.x objects are not kept: a tree is checked as a whole. */
#ifndef STORQ_POINT_TREE_H
#define STORQ_POINT_TREE_H

#include <hdf5.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

#define STORQ_PT_RANK_MAX 4

/* The element types storq writes (file types: IEEE f64 LE, std u64/i64/u32/i32 LE, vlen UTF-8
 * strings). */
typedef enum storq_pt_type {
    STORQ_PT_F64 = 1,
    STORQ_PT_U64,
    STORQ_PT_I64,
    STORQ_PT_U32,
    STORQ_PT_I32,
    STORQ_PT_STR /* data: n char * (UTF-8, NUL-terminated, owned) */
} storq_pt_type;

typedef struct storq_pt_attr {
    char *name;
    storq_pt_type type;
    int rank;   /* 0: scalar (n == 1), 1: an array of n */
    size_t n;
    void *data; /* n elements of type (8 or 4 bytes each, or char *) */
} storq_pt_attr;

typedef enum storq_pt_kind {
    STORQ_PT_GROUP = 1,
    STORQ_PT_DATASET,
    STORQ_PT_SOFTLINK
} storq_pt_kind;

typedef struct storq_pt_node {
    char *name; /* the link's name in its parent ("" for the root) */
    storq_pt_kind kind;
    storq_pt_attr *attrs;
    size_t nattrs;
    /* group */
    struct storq_pt_node *kids;
    size_t nkids;
    /* dataset: type F64, U64, I64, U32 or I32; rank 0 is a scalar dataset (one element) */
    storq_pt_type type;
    int rank;
    uint64_t dims[STORQ_PT_RANK_MAX];
    void *data;
    /* soft link */
    char *target;
} storq_pt_node;

/* ---- building (every call: STORQ_OK, or an out-of-memory runtime error; a type, rank or count
 * outside the above, a caller's mistake, is a usage error and changes nothing) ---- */

/* An empty root group; free with storq_pt_free. */
int storq_pt_new(storq_pt_node **root, storq_error *err);
void storq_pt_free(storq_pt_node *root);

/* A member added at the end of group g; *out points into g (valid until g's next addition). */
int storq_pt_add_group(storq_pt_node *g, const char *name, storq_pt_node **out, storq_error *err);
/* Copies count(dims) elements of type from data. */
int storq_pt_add_dataset(storq_pt_node *g, const char *name, storq_pt_type type, int rank,
                         const uint64_t *dims, const void *data, storq_pt_node **out,
                         storq_error *err);
int storq_pt_add_softlink(storq_pt_node *g, const char *name, const char *target,
                          storq_error *err);

/* Attributes, inserted in name order (one of the same name is replaced). Values copied. */
int storq_pt_set_attr(storq_pt_node *n, const char *name, storq_pt_type type, int rank,
                      size_t count, const void *data, storq_error *err);
int storq_pt_set_string(storq_pt_node *n, const char *name, const char *value, storq_error *err);
int storq_pt_set_f64(storq_pt_node *n, const char *name, double value, storq_error *err);
int storq_pt_set_u64(storq_pt_node *n, const char *name, uint64_t value, storq_error *err);
int storq_pt_set_i64(storq_pt_node *n, const char *name, int64_t value, storq_error *err);

/* ---- looking up (NULL when absent) ---- */

/* A descendant by relative path "observables/u/mean" (soft links are not followed). */
const storq_pt_node *storq_pt_find(const storq_pt_node *n, const char *path);
const storq_pt_attr *storq_pt_attr_find(const storq_pt_node *n, const char *name);
/* A scalar string attribute's value, or NULL (absent or not a scalar string). */
const char *storq_pt_attr_string(const storq_pt_node *n, const char *name);
/* Elements of a dataset (product of dims; 1 for rank 0), bytes of one element of a type. */
uint64_t storq_pt_count(const storq_pt_node *d);
size_t storq_pt_type_size(storq_pt_type type);

/* Equal trees (names, kinds, attributes, shapes, values bit for bit, order). */
int storq_pt_equal(const storq_pt_node *a, const storq_pt_node *b);

/* ---- a record of bytes (the partial file's log) ----
 * Little-endian whatever the host, ending in a CRC-32 of everything before it, so that a record
 * cut short or altered is refused (usage error naming what) rather than half read. */
int storq_pt_serialise(const storq_pt_node *root, unsigned char **bytes, size_t *size,
                       storq_error *err);
int storq_pt_deserialise(const unsigned char *bytes, size_t size, storq_pt_node **root,
                         storq_error *err);

/* ---- from an HDF5 file ----
 * The group at path in loc, whole (every member, attribute and value), as a tree. Attributes
 * named in skip (NULL-terminated; NULL: none) are left out at every depth (the checksums). An
 * object of a type or shape outside the above is a usage error naming its path. */
int storq_pt_read_h5(hid_t loc, const char *path, const char *const *skip, storq_pt_node **root,
                     storq_error *err);
/* Attribute name of the open object obj read onto node, as storq_pt_read_h5 reads each (a
 * string or number, scalar or 1-D; anything else a usage error naming the object). */
int storq_pt_read_attr_h5(hid_t obj, const char *name, storq_pt_node *node, storq_error *err);
/* The tree's type of a numeric HDF5 file type (0: none a point holds), and the memory and file
 * types storq reads and writes a tree's numbers with. */
storq_pt_type storq_pt_h5_number_type(hid_t ftype);
hid_t storq_pt_h5_mem_type(storq_pt_type type);
hid_t storq_pt_h5_file_type(storq_pt_type type);
/* Attribute a written to obj with the file type storq gives its type (strings: vlen UTF-8). */
int storq_pt_write_attr(hid_t obj, const storq_pt_attr *a, storq_error *err);

/* ---- to an HDF5 file ----
 * tree written as the group name under parent (name: a link name or a path HDF5 resolves from
 * parent, its groups existing; file: the file the objects are made in, parent's), as
 * storq_h5_write_point writes a point (io/h5_point_writer.c): each object anonymous and whole
 * before the next one, bottom up: a dataset's data, attributes and checksum (crc32); a group's
 * members, then its attributes, checksum, links in order and status; the group linked into
 * parent last. The 1.x writer's creation properties (h5_util.h: chunked and deflated from
 * STORQ_H5U_COMPRESS_MIN bytes, compact groups tracking creation order) and file types (IEEE f64
 * LE, std u64/i64/u32/i32 LE, vlen UTF-8 strings, text that is not UTF-8 escaped as
 * storq_utf8_text does); soft links as soft links, their targets as they are (a histogram's
 * bin_edges needs its /layouts dataset, which the caller writes). The root's own name is not used;
 * the file is not flushed (the caller's choice: each point, or once at the end).
 * The tree is checked first: what a point tree cannot hold (see above; an attribute crc32, the
 * writer's own: read with skip; a name empty, with '/' or twice in one group; name existing in
 * parent already) is a usage error naming the object and writes nothing. A failure of HDF5 is a
 * runtime error (h5_util.h's message, the tree object it was writing added) that links nothing:
 * the objects made so far are closed unlinked. Every id opened is closed either way. */
int storq_pt_write_h5(hid_t file, hid_t parent, const char *name, const storq_pt_node *tree,
                      storq_error *err);

#endif
