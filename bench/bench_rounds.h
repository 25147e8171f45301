/* Summaries over a bench's rounds: medians, ranges and per-round ratios, shared by the benches
 * that report a median with its spread ("median (min-max)"). At most BENCH_MAX_ROUNDS rounds. */
#ifndef STORQ_BENCH_ROUNDS_H
#define STORQ_BENCH_ROUNDS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BENCH_MAX_ROUNDS 64

static int bench_cmp_double(const void *x, const void *y)
{
    const double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* The median of v[0..n-1], 1 <= n <= BENCH_MAX_ROUNDS (v itself is left as it is). */
static inline double bench_median(const double *v, size_t n)
{
    double w[BENCH_MAX_ROUNDS];
    memcpy(w, v, n * sizeof *w);
    qsort(w, n, sizeof *w, bench_cmp_double);
    return n % 2 ? w[n / 2] : 0.5 * (w[n / 2 - 1] + w[n / 2]);
}

/* The least and the largest of v[0..n-1], n >= 1. */
static inline void bench_range(const double *v, size_t n, double *lo, double *hi)
{
    *lo = *hi = v[0];
    for (size_t i = 1; i < n; i++) {
        *lo = v[i] < *lo ? v[i] : *lo;
        *hi = v[i] > *hi ? v[i] : *hi;
    }
}

/* The per-round ratios (num[r] / den[r]) * scale, r < n, as "median (min-max)" into buf. */
static inline const char *bench_ratio_text(char *buf, size_t len, const double *num,
                                           const double *den, size_t n, double scale)
{
    double q[BENCH_MAX_ROUNDS], lo, hi;
    for (size_t r = 0; r < n; r++)
        q[r] = num[r] / den[r] * scale;
    bench_range(q, n, &lo, &hi);
    snprintf(buf, len, "%.2f (%.2f-%.2f)", bench_median(q, n), lo, hi);
    return buf;
}

#endif
