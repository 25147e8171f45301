/* CRC-32 (reflected polynomial 0xEDB88320, as zlib) eight bytes a step ("slicing by 8": eight
 * tables, table k giving the CRC of a byte followed by k zero bytes), so that checking a 2.0
 * file's rows, gigabytes of histogram counts for a large sweep, runs at memory speed rather than
 * a table lookup a byte. The bytes are fed in order; the result is that of the byte-at-a-time
 * loop (tests/test_crc32.c compares them, and Python's zlib.crc32 checks the files). */
#include "crc32.h"

#include <pthread.h>
#include <string.h>

static uint32_t table[8][256];
static pthread_once_t table_once = PTHREAD_ONCE_INIT;

static void make_tables(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        table[0][i] = c;
    }
    for (int k = 1; k < 8; k++)
        for (uint32_t i = 0; i < 256; i++)
            table[k][i] = (table[k - 1][i] >> 8) ^ table[0][table[k - 1][i] & 0xFF];
}

uint32_t storq_crc32(uint32_t crc, const void *buf, size_t n)
{
    pthread_once(&table_once, make_tables);
    const unsigned char *p = buf;
    crc = ~crc;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    for (; n >= 8; p += 8, n -= 8) {
        uint32_t lo, hi;
        memcpy(&lo, p, 4);
        memcpy(&hi, p + 4, 4);
        lo ^= crc;
        crc = table[7][lo & 0xFF] ^ table[6][(lo >> 8) & 0xFF] ^ table[5][(lo >> 16) & 0xFF] ^
              table[4][lo >> 24] ^ table[3][hi & 0xFF] ^ table[2][(hi >> 8) & 0xFF] ^
              table[1][(hi >> 16) & 0xFF] ^ table[0][hi >> 24];
    }
#endif
    for (; n > 0; p++, n--)
        crc = table[0][(crc ^ *p) & 0xFF] ^ (crc >> 8);
    return ~crc;
}
