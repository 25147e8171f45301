/* storq_crc32 (io/crc32.c, eight bytes a step) against the plain byte-at-a-time CRC-32 written
 * here from the polynomial, and against zlib's published check value: every length from 0 to
 * 300 at every alignment, fed whole and in pieces, from any starting CRC. */
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "crc32.h"

static uint32_t plain_crc32(uint32_t crc, const unsigned char *p, size_t n)
{
    crc = ~crc;
    for (size_t i = 0; i < n; i++) {
        crc ^= p[i];
        for (int k = 0; k < 8; k++)
            crc = crc & 1 ? 0xEDB88320u ^ (crc >> 1) : crc >> 1;
    }
    return ~crc;
}

int main(void)
{
    /* zlib.crc32(b"123456789") == 0xCBF43926, the standard check value */
    CHECK(storq_crc32(0, "123456789", 9) == 0xCBF43926u);
    CHECK(storq_crc32(0, "", 0) == 0);
    unsigned char buf[320];
    uint64_t s = 0x9E3779B97F4A7C15u;
    for (size_t i = 0; i < sizeof buf; i++) {
        s = s * 6364136223846793005u + 1442695040888963407u;
        buf[i] = (unsigned char)(s >> 56);
    }
    int bad = 0;
    for (size_t start = 0; start < 8; start++)
        for (size_t n = 0; n + start <= 300; n++) {
            const unsigned char *p = buf + start;
            uint32_t want = plain_crc32(0, p, n);
            bad += storq_crc32(0, p, n) != want;
            size_t cut = n / 3; /* in pieces: the CRC so far is the next piece's start */
            bad += storq_crc32(storq_crc32(0, p, cut), p + cut, n - cut) != want;
            bad += storq_crc32(0xDEADBEEFu, p, n) != plain_crc32(0xDEADBEEFu, p, n);
        }
    CHECK(bad == 0);
    printf("crc32: %d mismatches over every length 0..300 at 8 alignments\n", bad);
    return check_report("test_crc32");
}
