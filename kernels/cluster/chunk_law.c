/* The chunk size law psi for the cluster theory's numerics (chunk_law.h). */
#include "chunk_law.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "quadrature.h"

void storq_cl_law_free(cl_law *L)
{
    free(L->uv);
    free(L->wv);
    free(L->gt);
    memset(L, 0, sizeof *L);
}

int storq_cl_law_init(cl_law *L, const storq_dist *d)
{
    memset(L, 0, sizeof *L);
    L->d = d;
    L->mean = d->mean;
    L->sd = isfinite(d->var) ? sqrt(d->var) : d->mean;
    L->lo = 0;
    L->hi = INFINITY;
    const double *p = d->p;
    switch (d->kind) {
    case STORQ_DIST_DET:
    case STORQ_DIST_TRACE: {
        size_t n = d->kind == STORQ_DIST_DET ? 1 : d->ntrace;
        L->discrete = 1;
        L->uv = malloc(n * sizeof *L->uv);
        L->wv = malloc(n * sizeof *L->wv);
        L->gt = malloc(n * sizeof *L->gt);
        if (!L->uv || !L->wv || !L->gt) {
            storq_cl_law_free(L);
            return -1;
        }
        if (d->kind == STORQ_DIST_DET)
            L->uv[0] = p[0];
        else
            memcpy(L->uv, d->trace, n * sizeof *L->uv);
        cl_sort_doubles(L->uv, n);
        size_t m = 0, i = 0;
        while (i < n) {
            size_t j = i;
            while (j < n && L->uv[j] == L->uv[i])
                j++;
            L->uv[m] = L->uv[i];
            L->wv[m] = (double)(j - i) / (double)n;
            L->gt[m] = (double)(n - j) / (double)n; /* exact count ratio, no cancellation */
            m++;
            i = j;
        }
        L->nu = m;
        L->lo = L->uv[0];
        L->hi = L->uv[m - 1];
        break;
    }
    case STORQ_DIST_SHEXP:
        L->bp[L->nbp++] = p[0];
        L->lo = p[0];
        break;
    case STORQ_DIST_PARETO:
        L->bp[L->nbp++] = p[2];
        L->lo = p[2];
        break;
    case STORQ_DIST_UNIFORM:
        L->bp[L->nbp++] = p[0];
        L->bp[L->nbp++] = p[1];
        L->lo = p[0];
        L->hi = p[1];
        break;
    default:
        break;
    }
    return 0;
}

/* P(Poisson(z) <= K - 1) = P(Erlang(K, 1) > z): the terms summed outwards from the largest. */
static double poisson_cdf(double K, double z)
{
    if (z <= 0)
        return 1;
    double i0 = fmin(K - 1, floor(z));
    double lt = -z + i0 * log(z) - lgamma(i0 + 1);
    double sum = 1, t = 1;
    for (double i = i0; i > 0; i--) {
        t *= i / z;
        sum += t;
        if (t < 1e-17 * sum)
            break;
    }
    t = 1;
    for (double i = i0 + 1; i <= K - 1; i++) {
        t *= z / i;
        sum += t;
        if (t < 1e-17 * sum)
            break;
    }
    return exp(lt + log(sum));
}

/* Number of atoms <= s (discrete laws). */
static size_t atoms_upto(const cl_law *L, double s)
{
    size_t lo = 0, hi = L->nu;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (L->uv[mid] <= s)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static double cl_law_survival(const cl_law *L, double s)
{
    const double *p = L->d->p;
    if (s < 0)
        return 1;
    if (L->discrete) {
        size_t i = atoms_upto(L, s);
        return i == 0 ? 1 : L->gt[i - 1];
    }
    switch (L->d->kind) {
    case STORQ_DIST_EXP:
        return exp(-p[0] * s);
    case STORQ_DIST_SHEXP:
        return s < p[0] ? 1 : exp(-p[1] * (s - p[0]));
    case STORQ_DIST_PARETO:
        return s < p[2] ? 1 : pow(p[2] / s, p[0]);
    case STORQ_DIST_ERLANG:
        return poisson_cdf(p[0], p[1] * s);
    case STORQ_DIST_HYPEREXP: {
        double v = 0;
        for (int i = 0; i < L->d->nparams; i += 2)
            v += p[i] * exp(-p[i + 1] * s);
        return v;
    }
    case STORQ_DIST_UNIFORM:
        return s < p[0] ? 1 : s >= p[1] ? 0 : (p[1] - s) / (p[1] - p[0]);
    default:
        return 0;
    }
}

/* Density of a continuous law. */
double storq_cl_law_pdf(const cl_law *L, double c)
{
    const double *p = L->d->p;
    if (c < 0)
        return 0;
    switch (L->d->kind) {
    case STORQ_DIST_EXP:
        return p[0] * exp(-p[0] * c);
    case STORQ_DIST_SHEXP:
        return c < p[0] ? 0 : p[1] * exp(-p[1] * (c - p[0]));
    case STORQ_DIST_PARETO:
        return c < p[2] ? 0 : p[0] / c * pow(p[2] / c, p[0]);
    case STORQ_DIST_ERLANG:
        if (c == 0)
            return p[0] == 1 ? p[1] : 0;
        return p[1] * exp((p[0] - 1) * log(p[1] * c) - p[1] * c - lgamma(p[0]));
    case STORQ_DIST_HYPEREXP: {
        double v = 0;
        for (int i = 0; i < L->d->nparams; i += 2)
            v += p[i] * p[i + 1] * exp(-p[i + 1] * c);
        return v;
    }
    case STORQ_DIST_UNIFORM:
        return c < p[0] || c > p[1] ? 0 : 1 / (p[1] - p[0]);
    default:
        return 0;
    }
}

/* Upper bound on int_s^inf S(t) dt = E[(c - s)^+] (exact where a closed form exists; erlang: the
 * Chernoff bound at theta = RATE/2, P(c > t) <= 2^K e^{-RATE t / 2}). */
double storq_cl_law_tail_int(const cl_law *L, double s)
{
    const double *p = L->d->p;
    if (s < 0)
        s = 0;
    if (L->discrete)
        return s >= L->hi ? 0 : INFINITY; /* the kernel vanishes there exactly anyway */
    switch (L->d->kind) {
    case STORQ_DIST_EXP:
        return exp(-p[0] * s) / p[0];
    case STORQ_DIST_SHEXP:
        return s < p[0] ? (p[0] - s) + 1 / p[1] : exp(-p[1] * (s - p[0])) / p[1];
    case STORQ_DIST_PARETO:
        return s < p[2] ? (p[2] - s) + p[2] / (p[0] - 1) : s * pow(p[2] / s, p[0]) / (p[0] - 1);
    case STORQ_DIST_ERLANG:
        return 2 / p[1] * exp(p[0] * M_LN2 - p[1] * s / 2);
    case STORQ_DIST_HYPEREXP: {
        double v = 0;
        for (int i = 0; i < L->d->nparams; i += 2)
            v += p[i] * exp(-p[i + 1] * s) / p[i + 1];
        return v;
    }
    case STORQ_DIST_UNIFORM:
        return s >= p[1] ? 0 : s < p[0] ? (p[0] - s) + (p[1] - p[0]) / 2
                                        : (p[1] - s) * (p[1] - s) / (2 * (p[1] - p[0]));
    default:
        return INFINITY;
    }
}

/* Widest panel starting at a on which S and the density are smooth enough for 5-point
 * Gauss-Legendre (relative error below ~1e-12: for e^{-rs} on width 1/r the GL5 remainder is
 * 3.9e-13 (r w)^10 of the integral; for s^-ALPHA on width s/4, 4e-5 (1/4)^10 = 4e-11). */
double storq_cl_law_width(const cl_law *L, double a)
{
    const double *p = L->d->p;
    switch (L->d->kind) {
    case STORQ_DIST_EXP:
        return 1 / p[0];
    case STORQ_DIST_SHEXP:
        return 1 / p[1];
    case STORQ_DIST_PARETO:
        return fmax(a, p[2]) / 4;
    case STORQ_DIST_ERLANG:
        return sqrt(p[0]) / p[1];
    case STORQ_DIST_HYPEREXP: {
        double r = 0;
        for (int i = 0; i < L->d->nparams; i += 2)
            r = fmax(r, p[i + 1]);
        return 1 / r;
    }
    default:
        return INFINITY;
    }
}

/* Smallest s (doubling from the mean) with P(c > s) < CL_CHUNK_TAIL: chunk sizes beyond it are
 * dropped from the product-form quadratures (their weight is below CL_CHUNK_TAIL). */
double storq_cl_law_cut(const cl_law *L)
{
    if (isfinite(L->hi))
        return L->hi;
    double s = fmax(L->mean, 1e-300);
    while (cl_law_survival(L, s) >= CL_CHUNK_TAIL && s < 1e300)
        s *= 2;
    return s;
}

/* t0 = int_a^b S(s) ds, t1 = int_a^b (s - a) S(s) ds. */
void storq_cl_law_cell(const cl_law *L, double a, double b, double *t0, double *t1)
{
    double r0 = 0, r1 = 0;
    if (!(b > a) || a >= L->hi) {
        *t0 = *t1 = 0;
        return;
    }
    if (L->discrete) { /* S piecewise constant: exact */
        size_t i = atoms_upto(L, a);
        double s0 = a;
        while (s0 < b) {
            double Sv = i == 0 ? 1 : L->gt[i - 1];
            if (Sv == 0)
                break;
            double s1 = (i < L->nu && L->uv[i] < b) ? L->uv[i] : b;
            r0 += Sv * (s1 - s0);
            r1 += Sv * (s1 - s0) * ((s1 - a) + (s0 - a)) / 2;
            s0 = s1;
            i++;
        }
        *t0 = r0;
        *t1 = r1;
        return;
    }
    double s0 = a;
    for (int k = 0; k <= L->nbp; k++) {
        double s1 = k < L->nbp ? L->bp[k] : b;
        if (s1 <= s0)
            continue;
        if (s1 > b)
            s1 = b;
        double w = storq_cl_law_width(L, s0);
        double span = s1 - s0;
        double np = isfinite(w) ? ceil(span / w) : 1;
        if (np < 1)
            np = 1;
        double pw = span / np;
        for (double j = 0; j < np; j++) {
            double pa = s0 + j * pw, pb = j + 1 == np ? s1 : pa + pw;
            double mid = (pa + pb) / 2, half = (pb - pa) / 2;
            for (int g = 0; g < 5; g++) {
                double s = mid + half * gl5_x[g];
                double v = gl5_w[g] * half * cl_law_survival(L, s);
                r0 += v;
                r1 += v * (s - a);
            }
        }
        s0 = s1;
        if (s0 >= b)
            break;
    }
    *t0 = r0;
    *t1 = r1;
}
