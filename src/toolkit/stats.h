/* Small statistics helpers shared by the engine and the tests. */
#ifndef STORQ_STATS_H
#define STORQ_STATS_H

#include <stddef.h>

/* P(|T| < t) for Student's t with df degrees of freedom (closed forms for integer df). */
double storq_t_abs_cdf(double t, size_t df);
/* The two-sided quantile: t such that P(|T| < t) = level (e.g. 0.95). INFINITY when df == 0. */
double storq_t_quantile(double level, size_t df);

/* P(X > x) for X chi-square with df degrees of freedom (regularised upper incomplete gamma). */
double storq_chi2_sf(double x, int df);

/* k with max |x| = m 2^k, m in [0.5, 1), over the finite x[i * stride] (0 when there are none).
 * Sums and squares of x 2^-k cannot overflow or underflow on any time scale, and scaling by a
 * power of two is exact: results scaled back with ldexp are bit-identical to the plain formula
 * wherever that one neither overflowed nor underflowed. */
int storq_scale_exponent(const double *x, size_t n, size_t stride);

/* A running mean and sum of squared deviations (Welford's update), fed in a fixed order: the
 * cheap estimate that spares the precision decision its two passes where they cannot change it. */
typedef struct storq_running {
    size_t n;
    double mean, m2;
} storq_running;

void storq_running_add(storq_running *s, double x);
/* 1 when the 95% CI half-width over |mean| of the values fed, as the two-pass formula of
 * storq_summary_column computes it, is certainly above target: the estimate exceeds the target
 * by more than the two can differ. 0 when that is not certain (the two-pass value decides). */
int storq_running_clearly_above(const storq_running *s, double target);

#endif
