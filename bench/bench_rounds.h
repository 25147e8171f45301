/* Summaries over a bench's rounds, shared by the benches that report medians with their spread. */
#ifndef STORQ_BENCH_ROUNDS_H
#define STORQ_BENCH_ROUNDS_H

#include <stdlib.h>
#include <string.h>

static int bench_cmp_double(const void *x, const void *y)
{
    const double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* The median of v[0..n-1], 1 <= n <= 64 (v itself is left as it is). */
static inline double bench_median(const double *v, size_t n)
{
    double w[64];
    memcpy(w, v, n * sizeof *w);
    qsort(w, n, sizeof *w, bench_cmp_double);
    return n % 2 ? w[n / 2] : 0.5 * (w[n / 2 - 1] + w[n / 2]);
}

#endif
