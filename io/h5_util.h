/* Small HDF5 helpers shared by the io files: typed attributes and datasets, and error messages
 * that name the file and the object. Every function returns STORQ_OK, or STORQ_ERR_RUNTIME with
 * err set to "'FILE', object '/PATH': what failed (HDF5: detail)". */
#ifndef STORQ_H5_UTIL_H
#define STORQ_H5_UTIL_H

#include <hdf5.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

/* Silence HDF5's own error printing: storq reports one message of its own. */
void storq_h5u_quiet(void);

/* Record an HDF5 failure at loc (any open object of the file) with printf-style wording. */
int storq_h5u_fail(storq_error *err, hid_t loc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The same for a file that is not open (e.g. H5Fcreate or H5Fopen failed). */
int storq_h5u_fail_file(storq_error *err, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* HDF5's innermost error message of the last failed call ("" when none), then clear them. */
void storq_h5u_error_detail(char *buf, size_t size);

/* Close helpers that accept negative ids, so cleanup paths stay short. */
void storq_h5u_close_group(hid_t *id);
void storq_h5u_close_dataset(hid_t *id);
void storq_h5u_close_type(hid_t *id);
void storq_h5u_close_space(hid_t *id);
/* A variable-length UTF-8 string type (caller closes; -1 on failure). */
hid_t storq_h5u_vlen_string_type(void);

/* The file access properties storq writes with (caller closes; -1 on failure): HDF5 1.8's
 * object formats (compact object headers; readable by HDF5 1.8 and later). Not 1.10's: their
 * superblock marks a file open for writing, and HDF5 then refuses to open the partial file a
 * killed run leaves ("file is already open for write"), which --resume must read. */
hid_t storq_h5u_file_access(void);
/* The file creation properties (caller closes; -1 on failure): the B-tree that indexes a
 * chunked dataset's chunks sized for the one chunk storq writes per dataset (about 100 bytes
 * rather than HDF5's default 2 KB). */
#define STORQ_H5U_CHUNK_BTREE_K 1
hid_t storq_h5u_file_create(void);
/* With that K (HDF5 1.8's v1 B-tree, two entries a node), chunks added in order leave every node
 * but the last with one child: the tree gains a level per chunk, and the format keeps a node's
 * level in one byte, so HDF5 1.10.8 cannot write a dataset's 258th chunk ("unable to encode node
 * level"; the file can no longer be closed either). No dataset storq writes has more chunks than
 * this: a longer one gets longer chunks. */
#define STORQ_H5U_CHUNKS_MAX 128

/* Numeric arrays of at least STORQ_H5U_COMPRESS_MIN bytes are stored chunked, shuffled and
 * deflated (docs/hdf5-schema.md, "Storage"). */
#define STORQ_H5U_COMPRESS_MIN 1024
#define STORQ_H5U_CHUNK_MAX (1u << 20)
#define STORQ_H5U_DEFLATE_LEVEL 4
/* 1 when this HDF5 can deflate (it was built with zlib). */
int storq_h5u_deflate_available(void);
/* The dataset creation properties of a numeric array of ftype and shape dims (caller closes). */
hid_t storq_h5u_array_create_plist(hid_t ftype, int ndims, const hsize_t *dims);

/* Create a group whose links remember their creation order (so readers list observables in the
 * order the model declared them). */
int storq_h5u_create_group(hid_t loc, const char *name, hid_t *out, storq_error *err);
/* The same for a group that gains links one at a time while the file is written (/points): its
 * header is made big enough for nlinks links (up to STORQ_H5U_SIZED_LINKS_MAX) of names of about
 * name_len characters, which it keeps. So adding one rewrites that header in place; it never
 * grows a continuation block or moves its links to a heap and B-trees, blocks at the end of the
 * file that a write cut short (a disk full without fallocate) may leave unwritten, and the
 * header, pointing to them, unreadable with the complete points it lists. */
#define STORQ_H5U_SIZED_LINKS_MAX 4096
int storq_h5u_create_sized_group(hid_t loc, const char *name, size_t nlinks, size_t name_len,
                                 hid_t *out, storq_error *err);

/* Objects made before they are linked (a point is built bottom up, see io/h5_writer.c): an
 * anonymous group of a point (the point's own, its observables...) whose links and attributes
 * stay in its object header (a few KB smaller than a heap and two B-trees), anonymous datasets like
 * storq_h5u_write_*'s (name only names them in messages), left open for their attributes, and
 * storq_h5u_link to give one its name in parent. An object closed unlinked is gone. */
int storq_h5u_new_group(hid_t loc, hid_t *out, storq_error *err);
int storq_h5u_new_f64(hid_t loc, const char *name, int ndims, const hsize_t *dims,
                      const double *data, hid_t *out, storq_error *err);
int storq_h5u_new_u64(hid_t loc, const char *name, int ndims, const hsize_t *dims,
                      const uint64_t *data, hid_t *out, storq_error *err);
/* The same of any numeric file type ftype (IEEE f64 LE, std integers LE), data in memory type
 * mtype: the datasets of a point tree (point_tree.h) of other types than f64 and u64. */
int storq_h5u_new_array(hid_t loc, const char *name, hid_t ftype, hid_t mtype, int ndims,
                        const hsize_t *dims, const void *data, hid_t *out, storq_error *err);
int storq_h5u_link(hid_t parent, const char *name, hid_t obj, storq_error *err);

/* Attributes on loc. */
int storq_h5u_attr_string(hid_t loc, const char *name, const char *value, storq_error *err);
int storq_h5u_attr_strings(hid_t loc, const char *name, const char *const *values, size_t n,
                           storq_error *err);
int storq_h5u_attr_f64(hid_t loc, const char *name, double value, storq_error *err);
int storq_h5u_attr_u64(hid_t loc, const char *name, uint64_t value, storq_error *err);
int storq_h5u_attr_i64(hid_t loc, const char *name, int64_t value, storq_error *err);
int storq_h5u_attr_i32_array(hid_t loc, const char *name, const int32_t *values, size_t n,
                             storq_error *err);
/* A numeric attribute of any file type ftype, values in memory type mtype: a scalar (rank 0,
 * one value) or a 1-D array of n (n may be 0). */
int storq_h5u_attr_numbers(hid_t loc, const char *name, hid_t ftype, hid_t mtype, int rank,
                           const void *values, size_t n, storq_error *err);

/* Datasets under loc: rank 0 (scalar) when ndims == 0, else the given shape. */
int storq_h5u_write_f64(hid_t loc, const char *name, int ndims, const hsize_t *dims,
                        const double *data, storq_error *err);
int storq_h5u_write_u64(hid_t loc, const char *name, int ndims, const hsize_t *dims,
                        const uint64_t *data, storq_error *err);
int storq_h5u_write_string(hid_t loc, const char *name, const char *text, storq_error *err);

/* Readers. Missing objects are errors too; use H5Aexists / H5Lexists first where optional. */
/* A string attribute, as text to free(). */
int storq_h5u_read_attr_string(hid_t loc, const char *name, char **out, storq_error *err);
/* Every string of a string attribute (scalar or 1-D); free with storq_h5u_free_names(). */
int storq_h5u_read_attr_string_array(hid_t loc, const char *name, char ***out, size_t *n,
                                     storq_error *err);
int storq_h5u_read_attr_f64(hid_t loc, const char *name, double *out, storq_error *err);
int storq_h5u_read_attr_u64(hid_t loc, const char *name, uint64_t *out, storq_error *err);
/* Up to max int32 values of a numeric attribute; *n gets the element count stored. */
int storq_h5u_read_attr_i32_array(hid_t loc, const char *name, int32_t *out, size_t max,
                                  size_t *n, storq_error *err);
/* A whole string dataset (scalar), as text to free(). */
int storq_h5u_read_string(hid_t loc, const char *name, char **out, storq_error *err);
/* A whole numeric dataset as doubles (malloc'd, free()); *n gets the element count. */
int storq_h5u_read_f64(hid_t loc, const char *name, double **out, size_t *n, storq_error *err);
int storq_h5u_read_u64_scalar(hid_t loc, const char *name, uint64_t *out, storq_error *err);

/* The names of obj's attributes in name order, NULL-terminated (free each and the array);
 * -1 when they cannot be listed (or out of memory). */
int storq_h5u_attr_names(hid_t obj, char ***names);
/* Copy attribute name of src to dst, type, shape and value as they are; -1 on failure. */
int storq_h5u_copy_attr(hid_t src, const char *name, hid_t dst);

/* 1 when the attribute exists, 0 when not (no error is recorded either way). */
int storq_h5u_has_attr(hid_t loc, const char *name);
/* 1 when the link exists (its parent groups too), 0 otherwise. */
int storq_h5u_has_link(hid_t loc, const char *path);

/* The names of loc's direct links in creation order when tracked, else by name. */
int storq_h5u_list_links(hid_t loc, char ***names, size_t *n, storq_error *err);
void storq_h5u_free_names(char **names, size_t n);

#endif
