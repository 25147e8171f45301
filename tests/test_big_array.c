/* Large zeroed arrays (src/toolkit/big_array.c): the size a memory estimate counts, alignment and zeroing,
 * and, where the system offers transparent huge pages, whether the array got them (printed, not
 * checked: a fragmented machine may have none to give). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "big_array.h"
#include "check.h"

static void test_bytes(void)
{
    CHECK(storq_big_array_bytes(1) == 64);
    CHECK(storq_big_array_bytes(64) == 64);
    CHECK(storq_big_array_bytes(65) == 128);
    CHECK(storq_big_array_bytes(STORQ_HUGE_PAGE - 1) == STORQ_HUGE_PAGE);
    CHECK(storq_big_array_bytes(STORQ_HUGE_PAGE) == STORQ_HUGE_PAGE);
    CHECK(storq_big_array_bytes(STORQ_HUGE_PAGE + 1) == 2 * STORQ_HUGE_PAGE);
    CHECK(storq_big_array_bytes(320000000) == 153 * STORQ_HUGE_PAGE);
    CHECK(storq_big_array_bytes(SIZE_MAX - 5) == SIZE_MAX);
}

/* The AnonHugePages of the mapping holding p, in KiB (-1 when /proc/self/smaps is not there). */
static long huge_kib(const void *p)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    if (!f)
        return -1;
    char line[512];
    int inside = 0;
    long kib = -1;
    while (fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' '))
            inside = (uintptr_t)p >= lo && (uintptr_t)p < hi;
        else if (inside && sscanf(line, "AnonHugePages: %ld kB", &kib) == 1)
            break;
    }
    fclose(f);
    return kib;
}

static void test_arrays(void)
{
    const size_t sizes[] = {8, 1000, STORQ_HUGE_PAGE + 8, 64 * STORQ_HUGE_PAGE};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        const size_t n = storq_big_array_bytes(sizes[i]);
        unsigned char *p = storq_big_array_zeroed(sizes[i]);
        CHECK(p != NULL);
        if (!p)
            continue;
        CHECK((uintptr_t)p % (n >= STORQ_HUGE_PAGE ? STORQ_HUGE_PAGE : 64) == 0);
        size_t nonzero = 0;
        for (size_t j = 0; j < n; j++)
            nonzero += p[j] != 0;
        CHECK(nonzero == 0);
        if (n >= STORQ_HUGE_PAGE)
            printf("%zu bytes: AnonHugePages %ld KiB of %zu\n", n, huge_kib(p), n / 1024);
        free(p);
    }
}

int main(void)
{
    test_bytes();
    test_arrays();
    return check_report("test_big_array");
}
