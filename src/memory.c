#include "memory.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#define DEFAULT_LIMIT ((size_t)8 << 30)

size_t storq_memory_limit(void)
{
    const char *text = getenv("STORQ_MEMORY_LIMIT");
    if (!text || !*text)
        return DEFAULT_LIMIT;
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    double scale = 1;
    switch (*end) {
    case 'K': case 'k': scale = 1024.0; end++; break;
    case 'M': case 'm': scale = 1024.0 * 1024; end++; break;
    case 'G': case 'g': scale = 1024.0 * 1024 * 1024; end++; break;
    case 'T': case 't': scale = 1024.0 * 1024 * 1024 * 1024; end++; break;
    default: break;
    }
    if (errno || *end || !(v > 0))
        return DEFAULT_LIMIT; /* a malformed limit is ignored rather than turned into 0 */
    double bytes = v * scale;
    return bytes >= (double)SIZE_MAX ? SIZE_MAX : (size_t)bytes;
}

size_t storq_bytes_mul(size_t n, size_t size)
{
    return size && n > SIZE_MAX / size ? SIZE_MAX : n * size;
}

size_t storq_bytes_add(size_t a, size_t b)
{
    return a > SIZE_MAX - b ? SIZE_MAX : a + b;
}

int storq_memory_check(size_t bytes, const char *what, const char *for_what, storq_error *err)
{
    size_t limit = storq_memory_limit();
    if (bytes <= limit)
        return STORQ_OK;
    const double gib = 1024.0 * 1024 * 1024;
    if (bytes == SIZE_MAX)
        return storq_fail(err, STORQ_ERR_USAGE,
                          "%s need more memory than can be addressed %s; at most %.3g GiB are "
                          "allowed (STORQ_MEMORY_LIMIT)", what, for_what, (double)limit / gib);
    return storq_fail(err, STORQ_ERR_USAGE,
                      "%s need %.3g GiB %s; at most %.3g GiB are allowed (STORQ_MEMORY_LIMIT)",
                      what, (double)bytes / gib, for_what, (double)limit / gib);
}
