#include "memory.h"

#include <string.h>

#include "number.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define UNSET_LIMIT ((size_t)8 << 30)

static size_t rank_budget = UNSET_LIMIT;
static unsigned replications_in_flight = 1;
static char budget_source[384] = "8 GiB when no budget is set";

void storq_memory_set_budget(size_t rank_bytes, unsigned in_flight, const char *source)
{
    rank_budget = rank_bytes;
    replications_in_flight = in_flight ? in_flight : 1;
    snprintf(budget_source, sizeof budget_source, "%s", source);
}

size_t storq_memory_limit(void)
{
    return rank_budget / replications_in_flight;
}

int storq_memory_parse_size(const char *text, size_t *bytes)
{
    /* a number of the one grammar (src/toolkit/number.h), then at most a suffix letter */
    char number[64];
    size_t len = text ? strlen(text) : 0;
    if (len == 0 || len >= sizeof number)
        return -1;
    memcpy(number, text, len + 1);
    double scale = 1;
    switch (number[len - 1]) {
    case 'K': case 'k': scale = 1024.0; break;
    case 'M': case 'm': scale = 1024.0 * 1024; break;
    case 'G': case 'g': scale = 1024.0 * 1024 * 1024; break;
    case 'T': case 't': scale = 1024.0 * 1024 * 1024 * 1024; break;
    default: break;
    }
    if (scale > 1)
        number[len - 1] = '\0';
    double v;
    if (storq_number_real(number, &v) || !(v * scale >= 1))
        return -1;
    double b = v * scale;
    *bytes = b >= (double)SIZE_MAX ? SIZE_MAX : (size_t)b;
    return 0;
}

size_t storq_bytes_mul(size_t n, size_t size)
{
    return size && n > SIZE_MAX / size ? SIZE_MAX : n * size;
}

size_t storq_bytes_add(size_t a, size_t b)
{
    return a > SIZE_MAX - b ? SIZE_MAX : a + b;
}

static int over_budget(size_t bytes, size_t limit, const char *what, const char *for_what,
                       storq_error *err)
{
    const double gib = 1024.0 * 1024 * 1024;
    if (bytes == SIZE_MAX)
        return storq_fail(err, STORQ_ERR_USAGE,
                          "%s need more memory than can be addressed %s; at most %.3g GiB are "
                          "allowed (%s)", what, for_what, (double)limit / gib, budget_source);
    return storq_fail(err, STORQ_ERR_USAGE, "%s need %.3g GiB %s; at most %.3g GiB are allowed (%s)",
                      what, (double)bytes / gib, for_what, (double)limit / gib, budget_source);
}

int storq_memory_check(size_t bytes, const char *what, const char *for_what, storq_error *err)
{
    size_t limit = storq_memory_limit();
    return bytes <= limit ? STORQ_OK : over_budget(bytes, limit, what, for_what, err);
}

int storq_memory_check_rank(size_t bytes, const char *what, const char *for_what,
                            storq_error *err)
{
    return bytes <= rank_budget ? STORQ_OK
                                : over_budget(bytes, rank_budget, what, for_what, err);
}
