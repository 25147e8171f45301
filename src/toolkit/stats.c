#include "stats.h"

#include <math.h>

/* Abramowitz & Stegun 26.7.3-26.7.4: with theta = atan(t / sqrt(df)), a finite series in
 * cos(theta) gives P(|T| < t) exactly for integer df. */
double storq_t_abs_cdf(double t, size_t df)
{
    if (df == 0)
        return 0.0;
    if (t <= 0)
        return 0.0;
    double theta = atan(t / sqrt((double)df));
    double c = cos(theta), s = sin(theta), c2 = c * c;
    if (df % 2 == 1) {
        double sum = 0.0, term = c;
        for (size_t j = 3; j <= df; j += 2) {
            sum += term;
            term *= c2 * (double)(j - 1) / (double)j;
        }
        return 2.0 / M_PI * (theta + s * sum);
    }
    double sum = 1.0, term = 1.0;
    for (size_t j = 2; j + 2 <= df; j += 2) {
        term *= c2 * (double)(j - 1) / (double)j;
        sum += term;
    }
    return s * sum;
}

double storq_t_quantile(double level, size_t df)
{
    if (df == 0)
        return INFINITY;
    double lo = 0.0, hi = 1.0;
    while (storq_t_abs_cdf(hi, df) < level)
        hi *= 2.0;
    for (int it = 0; it < 200 && hi - lo > 1e-13 * hi; it++) {
        double mid = 0.5 * (lo + hi);
        if (storq_t_abs_cdf(mid, df) < level)
            lo = mid;
        else
            hi = mid;
    }
    return 0.5 * (lo + hi);
}

/* Regularised upper incomplete gamma Q(a, x): series below a + 1, Lentz's continued fraction
 * above (where Q can be tiny and must be computed directly, not as 1 - P). */
static double gamma_q(double a, double x)
{
    if (x <= 0)
        return 1;
    double lpre = a * log(x) - x - lgamma(a);
    if (x < a + 1) {
        double term = 1 / a, sum = term;
        for (int n = 1; n < 100000 && term > sum * 1e-17; n++) {
            term *= x / (a + n);
            sum += term;
        }
        return 1 - sum * exp(lpre);
    }
    double b = x + 1 - a, c = 1e300, d = 1 / b, h = d;
    for (int i = 1; i < 100000; i++) {
        double an = -i * (i - a);
        b += 2;
        d = an * d + b;
        if (fabs(d) < 1e-300)
            d = 1e-300;
        c = b + an / c;
        if (fabs(c) < 1e-300)
            c = 1e-300;
        d = 1 / d;
        double del = d * c;
        h *= del;
        if (fabs(del - 1) < 1e-16)
            break;
    }
    return exp(lpre) * h;
}

/* P(chi-square with df degrees of freedom > x). */
double storq_chi2_sf(double x, int df)
{
    return gamma_q(df / 2.0, x / 2.0);
}

int storq_scale_exponent(const double *x, size_t n, size_t stride)
{
    double top = 0.0;
    for (size_t i = 0; i < n; i++) {
        const double a = fabs(x[i * stride]);
        if (isfinite(a) && a > top)
            top = a;
    }
    int k = 0;
    frexp(top, &k);
    return k;
}

void storq_running_add(storq_running *s, double x)
{
    s->n++;
    double d = x - s->mean;
    s->mean += d / (double)s->n;
    s->m2 += d * (x - s->mean);
}

/* Welford's update and the two-pass formula each err by at most about n u kappa in the sum of
 * squares (Chan, Golub and LeVeque 1983; u = 2^-53, kappa = sqrt(1 + mean^2 / variance)). The
 * bound taken is 16 times that plus its square; only a finite estimate with a bound under 1e-3
 * counts, of values whose squares stay far from underflow and overflow (the two-pass value is
 * scaled by a power of two, the estimate is not). */
int storq_running_clearly_above(const storq_running *s, double target)
{
    const size_t n = s->n;
    if (n < 2 || !(s->m2 > 0.0))
        return 0;
    double var = s->m2 / (double)(n - 1), m = fabs(s->mean);
    if (!(var >= 0x1p-800 && var <= 0x1p800 && m >= 0x1p-400 && m <= 0x1p400))
        return 0;
    double est = storq_t_quantile(0.95, n - 1) * sqrt(var / (double)n) / m;
    double kappa = sqrt(1.0 + m * m / var);
    double e = 16.0 * (double)n * 0x1p-53 * kappa;
    double bound = e + e * e;
    if (!isfinite(est) || !(bound < 1e-3))
        return 0;
    return est * (1.0 - bound) > target * (1.0 + bound);
}
