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

#include "error.h"

/* zlib's crc32(crc, buf, n): start with crc = 0; feed pieces in turn. */
uint32_t storq_crc32(uint32_t crc, const void *buf, size_t n);

/* Write the attribute crc32 on group and on every object below it (file open read-write). */
int storq_h5_checksum_stamp(hid_t group, storq_error *err);
/* Write it on obj alone, once its attributes (and, for a dataset, its data) are written: a
 * group's checksum covers its attributes, not its members. Stamped as it is made, an object
 * gets its crc32 while its header is still the last block of the file's metadata, where HDF5
 * grows it in place rather than adding a continuation block (docs/hdf5-schema.md, Storage). */
int storq_h5_checksum_stamp_object(hid_t obj, storq_error *err);

/* Check the checksums of group and every object below it, when group has one (files written
 * before checksums have none, and are read unchecked: *checked = 0). A mismatch, or an object
 * without a checksum below a group with one, is a usage error (the file given is damaged)
 * naming the object: "WHO: object '/points/000002/observables/u/mean': ...", WHO being
 * "LABEL: PATH" or "PATH". */
int storq_h5_checksum_verify(hid_t group, const char *label, const char *path, int *checked,
                             storq_error *err);

#endif
