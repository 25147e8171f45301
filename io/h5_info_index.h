/* The index of a results file (/points/index) read column by column for `storq info`. */
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

#endif
