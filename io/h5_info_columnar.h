/* `storq info` of a schema 2.0 file (docs/hdf5-schema-2.md): each row printed as h5_info.c
 * prints a 1.x point, from the columns read a block of rows at a time. */
#ifndef STORQ_H5_INFO_COLUMNAR_H
#define STORQ_H5_INFO_COLUMNAR_H

#include <hdf5.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "error.h"

/* Every row (a complete point) of the 2.0 file, in row order (increasing point id). */
int storq_info_columnar_points(hid_t file, FILE *out, storq_error *err);

/* The point ids of the rows (/point), increasing; *ids to free(). */
int storq_info_columnar_ids(hid_t file, uint64_t **ids, size_t *n, storq_error *err);

#endif
