/* What the parts of `storq info` (h5_info.c: the table; h5_info_units.c: its lines on the run's
 * units; h5_info_formats.c: csv and json) share: the index read column by column, a task's share,
 * and the hint for a file a run is writing. */
#ifndef STORQ_H5_INFO_INDEX_H
#define STORQ_H5_INFO_INDEX_H

#include <hdf5.h>
#include <stddef.h>
#include <stdint.h>

/* Member member of the compound index d (type ftype) as text cells, one per row (cells[row],
 * strdup'd); ids (when not NULL) gets the point ids from the point column. precise: floats with
 * every digit (%.17g) rather than ten. Returns 0, or -1 when the column cannot be read. */
int storq_info_index_column(hid_t d, hid_t ftype, unsigned member, size_t nrows, char **cells,
                            uint64_t *ids, int precise);

/* The share of the points a job-array task's file holds (schema 1.1): p % count == index; of
 * the whole run {0, 1}. */
typedef struct storq_info_task {
    uint64_t index, count;
} storq_info_task;

/* The task attributes of loc (the root, or /run/units, which carries its task's); {0, 1} without
 * them or when they cannot be read. Defined in h5_info.c. */
storq_info_task storq_info_read_task(hid_t loc);

/* What storq info says about a file it cannot open (a run may be writing it). */
#define STORQ_INFO_WRITING_HINT \
    "if a run is still writing it, set HDF5_USE_FILE_LOCKING=FALSE to read it meanwhile"

#endif
