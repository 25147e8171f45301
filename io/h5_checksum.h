/* Checksums of stored results (docs/hdf5-schema.md, "What readers check"). Every object of a
 * point group (the group itself, its groups and datasets) carries an attribute crc32: the CRC-32
 * (zlib's) of its data and of its other attributes, in a canonical byte stream that does not
 * depend on how HDF5 laid them out, so a flipped bit on disk or in a copy is found and named.
 * HDF5's Fletcher32 filter cannot do this: it needs chunked storage, which scalar datasets (every
 * scalar observable's mean) cannot have. */
#ifndef STORQ_H5_CHECKSUM_H
#define STORQ_H5_CHECKSUM_H

#include <hdf5.h>
#include <stddef.h>
#include <stdint.h>

#include "crc32.h"
#include "error.h"


/* Write the attribute crc32 on group and on every object below it (file open read-write). */
int storq_h5_checksum_stamp(hid_t group, storq_error *err);
/* Write it on obj alone, once its attributes (and, for a dataset, its data) are written: a
 * group's checksum covers its attributes, not its members. Stamped as it is made, an object
 * gets its crc32 while its header is still the last block of the file's metadata, where HDF5
 * grows it in place rather than adding a continuation block (docs/hdf5-schema.md, Storage). */
int storq_h5_checksum_stamp_object(hid_t obj, storq_error *err);

/* Schema 2.0 (docs/hdf5-schema-2.md, Checksums): the checksum of obj's attributes alone, in the
 * byte stream above, leaving out crc32, covers and the dimension-scale attributes (CLASS, NAME,
 * DIMENSION_LIST, REFERENCE_LIST, _Netcdf4Dimid, _Netcdf4Coordinates); -1 when it cannot be
 * computed. And the attribute crc32 written with it on obj. */
int storq_h5_checksum_attrs(hid_t obj, uint32_t *out);
int storq_h5_checksum_stamp_attrs(hid_t obj, storq_error *err);

/* Check the checksums of group and every object below it, when group has one (files written
 * before checksums have none, and are read unchecked: *checked = 0). A mismatch, or an object
 * without a checksum below a group with one, is a usage error (the file given is damaged)
 * naming the object: "WHO: object '/points/000002/observables/u/mean': ...", WHO being
 * "LABEL: PATH" or "PATH". */
int storq_h5_checksum_verify(hid_t group, const char *label, const char *path, int *checked,
                             storq_error *err);

#endif
