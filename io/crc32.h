/* CRC-32 with zlib's polynomial (Python's zlib.crc32 gives the same values), for the checksums
 * of stored results (h5_checksum.c, h5_check_columnar.c). */
#ifndef STORQ_CRC32_H
#define STORQ_CRC32_H

#include <stddef.h>
#include <stdint.h>

/* zlib's crc32(crc, buf, n): start with crc = 0; feed pieces in turn. */
uint32_t storq_crc32(uint32_t crc, const void *buf, size_t n);

#endif
