/* The rows of a schema 2.0 file (docs/hdf5-schema-2.md) as the trees of the 1.x point groups they
 * were converted from (io/point_tree.h): the inverse of `storq convert`, so that what reads 1.x
 * points as trees (storq merge) reads 2.0 files too. Row i's tree is equal (storq_pt_equal) to
 * storq_pt_read_h5 of the 1.x group /points/NNNNNN it came from, with skip {"crc32"}.
 *
 * What a row gives back:
 * - the groups observables, replications, theory, comparison; in each, the quantities in the
 *   order of the 2.0 groups (the model's), less those the row lacks (/points/has_<group>_<name>
 *   0: an observable's replications go with it); in an observable's group, its 2.0 datasets in
 *   their order but `layout`, a histogram's bin_edges (a soft link to /layouts/<its layout>)
 *   right after its counts: the order of io/point_record.c;
 * - values cut to the row's extent (a ragged dimension's /points/n_<dim>, the replication
 *   dimension's /points/replications), of the 2.0 dataset's rank less the point's and of its
 *   type (float64, uint64); a theory or comparison number (a (P,) dataset) as 1.x's 1-element
 *   array;
 * - a quantity's attributes as stored, less storq's own (crc32, dims, covers, a histogram
 *   group's layouts, HDF5's dimension-scale attributes); one stored a value a row (a 1-D string
 *   or float64 array of as many values as the file has rows, in a file of two rows or more: the
 *   1.x writer gives quantities scalar attributes only) as that row's value, a scalar;
 * - the point's attributes: model (the root's), status "complete", and one a column of /points
 *   but index, status, crc32, crc32_arrays, n_<dim> (a dimension with a scale /<dim>) and
 *   has_<group>_<name> (a quantity of the file): a parameter (a field of /points/index) typed by
 *   its field (integer int64, float float64, string), another column by its own type (float64,
 *   uint64, int64, string).
 *
 * Absent or padded. 2.0 pads a point attribute the point lacked as it pads values (NaN, 0, ""),
 * so a padded value is taken for an absent attribute by these rules, which give back every
 * 1.x point storq writes:
 * - replications, events, wall_seconds and the parameters: always there (every 1.x point has
 *   them);
 * - the precision attributes (precision_target, precision_observable, precision_achieved,
 *   max_replications, precision_met, stopped_because), which 1.x writes all or none: the row's
 *   iff its precision_target is not NaN (a target is a positive number; precision_met 0 and a
 *   NaN precision_achieved are values);
 * - any other point attribute (of a later minor version): absent where its column holds NaN
 *   (float64) or "" (string); an integer is always there (0 is a count);
 * - a quantity's attribute stored a value a row: there at every row that has the quantity, ""
 *   and NaN included (1.x writes each of a quantity's attributes wherever it writes the
 *   quantity).
 * What 2.0 does not keep cannot come back: an attribute's integer width (a 4-byte point
 * attribute is read back as 8 bytes), an integer quantity attribute that differed between
 * points (read back float64), an attribute a quantity's first point lacked (convert drops it).
 * No 1.x writer of storq writes any of these.
 *
 * Rows are read a block at a time (io/h5_columns.h): a row of the block in memory costs no
 * read; asked in increasing order, P rows cost one read a dataset a block. The row checksums
 * are not checked here (storq_h5_check does). A file that is not what `storq convert` writes
 * (a column without a row a point, an extent past its dataset's width, a layout index past the
 * layouts, a row that is not a complete point) is a usage error naming the file and the
 * object; a failed read of HDF5 a runtime error. */
#ifndef STORQ_H5_ROWS_TREE_H
#define STORQ_H5_ROWS_TREE_H

#include <hdf5.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "point_tree.h"

typedef struct storq_rows_tree storq_rows_tree;

/* The rows of the 2.0 file open as file (path names it in messages; file stays the caller's,
 * open until storq_rows_tree_close). */
int storq_rows_tree_open(hid_t file, const char *path, storq_rows_tree **out, storq_error *err);
/* Rows of the file. */
size_t storq_rows_tree_count(const storq_rows_tree *r);
/* The point id of row row (its 1.x group /points/NNNNNN); UINT64_MAX past the last row. */
uint64_t storq_rows_tree_point(const storq_rows_tree *r, size_t row);
/* Read at most rows rows at a time: at least 1, at most what open chose (about 32 MiB of values,
 * all the rows when they fit), rounded down to a power of two or a multiple of 1,024 when less
 * than the file, so that blocks in turn split no chunk of convert's. Fewer rows a block cost
 * more reads, not more memory (the buffers stay open's). */
void storq_rows_tree_block(storq_rows_tree *r, size_t rows);
/* Row row's point as the tree of its 1.x group; *tree the caller's (storq_pt_free), NULL on
 * failure. */
int storq_rows_tree_get(storq_rows_tree *r, size_t row, storq_pt_node **tree, storq_error *err);
/* Frees everything but the file; *r NULL after (NULL or *r NULL: nothing). */
void storq_rows_tree_close(storq_rows_tree **r);

#endif
