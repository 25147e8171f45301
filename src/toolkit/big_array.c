#define _GNU_SOURCE /* madvise, MADV_HUGEPAGE */
#include "big_array.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(__linux__)
#include <sys/mman.h>
#endif

size_t storq_big_array_bytes(size_t bytes)
{
    const size_t unit = bytes >= STORQ_HUGE_PAGE ? STORQ_HUGE_PAGE : 64;
    if (bytes > SIZE_MAX - unit)
        return SIZE_MAX;
    return (bytes + unit - 1) / unit * unit;
}

void *storq_big_array_zeroed(size_t bytes)
{
    const size_t size = storq_big_array_bytes(bytes ? bytes : 1);
    if (size == SIZE_MAX)
        return NULL;
    const size_t align = size >= STORQ_HUGE_PAGE ? STORQ_HUGE_PAGE : 64;
    void *p = NULL;
    if (posix_memalign(&p, align, size))
        return NULL;
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    /* before the first touch (memset below): pages already faulted in stay small. A refusal
     * (no THP in this kernel, or THP off) leaves an ordinary array. */
    if (align == STORQ_HUGE_PAGE)
        (void)madvise(p, size, MADV_HUGEPAGE);
#endif
    memset(p, 0, size);
    return p;
}
