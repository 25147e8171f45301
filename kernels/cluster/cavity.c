/* The cavity queue of the `cluster` model under BR and the product-form delay figure (MODELS.md,
 * seed 000 section IV/V). See docs/models/cluster-theory.md for the derivations and the measured
 * accuracy; every choice below is justified where it is made.
 *
 * Method for the stationary workload V (time units) of the M/G/1 cavity queue.
 *   Arrivals: Poisson(lambda); work per arrival B = c X / mu, X ~ px (X = 0 allowed), c ~ psi.
 *   The Pollaczek-Khinchine/Benes form P(V <= w) = (1 - rho) sum_n rho^n B_e^{*n}(w) is the solution
 *   of the renewal (Volterra) equation
 *       W(w) = (1 - rho) + int_0^w W(w - y) K(y) dy,   K(y) = lambda P(B > y),   int K = rho,
 *   (rho B_e has density K). Using K = lambda P(B > y) with the unthinned rate lambda is the same as
 *   thinning the arrivals to lambda P(X > 0) and conditioning B on X > 0: the X = 0 (and c = 0)
 *   arrivals contribute nothing to P(B > y), y >= 0, so no special case is needed.
 *   W is continuous on [0, inf) with W(0) = 1 - rho (the atom of V at 0) and Lipschitz with constant
 *   lambda P(X > 0); it has kinks (e.g. at multiples of D for deterministic work).
 * Discretisation ("product integration"): W is replaced by its piecewise-linear interpolant on the
 *   grid jh, and the kernel is integrated exactly against it on each cell:
 *       a_j = int_{(j-1)h}^{jh} K,   b_j = (1/h) int_{(j-1)h}^{jh} (y - (j-1)h) K(y) dy,
 *       W_n = (1 - rho) + sum_{j=1..n} [(a_j - b_j) W_{n-j+1} + b_j W_{n-j}]   (W_n on both sides:
 *       solved for it; the denominator 1 - a_1 + b_1 >= 1 - lambda h > 0).
 *   The cell integrals of P(B > y) are computed in the chunk variable s = y mu / x from the survival
 *   function S of psi, split at the points where S is not smooth (atoms of a det/trace law, the shift
 *   of shexp, the ends of uniform, the scale of pareto) and on sub-panels no wider than the scale on
 *   which S is smooth, with 5-point Gauss-Legendre (exact for the piecewise constant/linear S of
 *   det/trace/uniform; relative error < 1e-12 for the exponential-type laws on panels of width
 *   1/rate). So jumps of K (deterministic chunks) cost nothing, all weights are >= 0, and
 *   sum_j a_j = rho exactly up to rounding: the discrete solution keeps the total mass 1.
 *   The scheme is second order in h (the interpolation error of W, integrated); it costs
 *   O(N * J) for N grid points and a kernel of J cells (J = N for heavy tails), a plain
 *   convolution: no FFT, the marching order is causal so the grid can be extended until the tail
 *   is below the target without knowing its length in advance.
 * Kernel truncation: once an upper bound R on the remaining kernel mass int_{Jh}^inf K is below
 *   1e-3 tol (1 - rho), the kernel is cut (bounded-support laws: exactly when it vanishes). Dropping
 *   mass R moves W by at most R / (1 - rho) (the resolvent sum_n rho^n), i.e. < 1e-3 tol.
 * Accuracy control: solve at h and h/2 (same grid length); the reported error is the largest
 *   difference on the coarse grid (+ the truncation bound 1e-3 tol); halve until it is <= tol or
 *   the next halving would exceed CAV_WORK_MAX multiply-adds or CAV_MAX_POINTS points (then
 *   `error` > tol is returned with 0: callers compare `error` with their tol). The finer solution
 *   is returned: for a second-order scheme its own error is about a third of the reported
 *   difference (measured: 0.31-0.34 for M/M/1 and M/D/1), so `error` is conservative.
 *   tol is clamped to [1e-10, 1e-2].
 * Grid length: marched until 1 - W_n < tol / 2 (so cl_cavity_cdf's "1 beyond the grid" is within
 *   tol). A first coarse pass (h = E[B | B > 0] / 4) finds that length. When this pass would cost
 *   more than CAV_WORK_MAX / 8 (heavy tails: pareto with small ALPHA; rho very close to 1 only
 *   beyond 0.9999 for exponential work), the tail level is raised tenfold at a time up to
 *   CAV_TAIL_MAX = 1e-2 and `error` is raised to that level (the mass beyond the grid, where the
 *   cdf is reported as 1); when even 1e-2 lies beyond, the tail cannot be captured and
 *   cl_cavity_solve refuses with -1 (cav->error = INFINITY), e.g. pareto:1.05.
 * Between the nodes cl_cavity_cdf interpolates linearly (the header's contract): add
 *   h^2/8 max|W''| there (h |jump of W'| / 4 at a kink, e.g. w = D for M/D/1). */
#include "cavity.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define CAV_MAX_POINTS ((size_t)1 << 21) /* memory: 5 arrays of doubles, 80 MB */
#define CAV_WORK_MAX 8e9 /* multiply-adds of the finest march (~3 s at the measured 2.7e9/s) */
#define CAV_TOL_MIN 1e-10                /* rounding of the O(N) accumulations stays below this */
#define CAV_TOL_MAX 1e-2
#define CAV_TAIL_MAX 1e-2 /* heavy tails: the largest tail mass left beyond the grid */
#define BLOCKS_TAIL 1e-15 /* size laws with infinite support: truncate when the rest is below */
#define BLOCKS_XMAX_CAP ((size_t)10000000)
#define BLOCKS_MAX_TERMS ((size_t)100000000)
#define CHUNK_TAIL 1e-17 /* product form: chunk sizes with P(c > s) below this are dropped */

/* 5-point Gauss-Legendre on [-1, 1]. */
static const double gl5_x[5] = {-0.906179845938663992797626878299, -0.538469310105683091036314420700,
                                0.0, 0.538469310105683091036314420700,
                                0.906179845938663992797626878299};
static const double gl5_w[5] = {0.236926885056189087514264040720, 0.478628670499366468041291514836,
                                0.568888888888888888888888888889, 0.478628670499366468041291514836,
                                0.236926885056189087514264040720};
/* 3-point Gauss-Legendre on [-1, 1]. */
static const double gl3_x[3] = {-0.774596669241483377035853079956, 0.0,
                                0.774596669241483377035853079956};
static const double gl3_w[3] = {5.0 / 9.0, 8.0 / 9.0, 5.0 / 9.0};
/* Gauss-Kronrod 7-15 (QUADPACK qk15): Kronrod abscissae, their weights, the Gauss weights. */
static const double gk_x[8] = {0.991455371120812639206854697526329, 0.949107912342758524526189684047851,
                               0.864864423359769072789712788640926, 0.741531185599394439863864773280788,
                               0.586087235467691130294144845693013, 0.405845151377397166906606412076961,
                               0.207784955007898467600689403773245, 0.0};
static const double gk_wk[8] = {0.022935322010529224963732008058970, 0.063092092629978553290700663189204,
                                0.104790010322250183839876322541518, 0.140653259715525918745189590510238,
                                0.169004726639267902826583426598550, 0.190350578064785409913256402421014,
                                0.204432940075298892414161999234649, 0.209482141084727828012999174891714};
static const double gk_wg[4] = {0.129484966168869693270611432679082, 0.279705391489276667901467771423780,
                                0.381830050505118944950369775488975, 0.417959183673469387755102040816327};

/* ------------------------------------------------------------------------------------------------ */
/* The chunk law psi: survival S(s) = P(c > s), density, non-smooth points, smoothness scale.       */
/* ------------------------------------------------------------------------------------------------ */

typedef struct law {
    const storq_dist *d;
    int discrete;     /* det and trace: atoms uv[i] with probabilities wv[i] */
    double *uv, *wv;  /* sorted distinct values, their probabilities (discrete only) */
    double *gt;       /* gt[i] = P(c > uv[i]) */
    size_t nu;
    double bp[2];     /* continuous laws: points where S or the density is not smooth */
    int nbp;
    double lo, hi;    /* support of c */
    double mean, sd;
} law;

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void law_free(law *L)
{
    free(L->uv);
    free(L->wv);
    free(L->gt);
    memset(L, 0, sizeof *L);
}

static int law_init(law *L, const storq_dist *d)
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
            law_free(L);
            return -1;
        }
        if (d->kind == STORQ_DIST_DET)
            L->uv[0] = p[0];
        else
            memcpy(L->uv, d->trace, n * sizeof *L->uv);
        qsort(L->uv, n, sizeof *L->uv, cmp_double);
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
static size_t atoms_upto(const law *L, double s)
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

static double law_S(const law *L, double s)
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
static double law_pdf(const law *L, double c)
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
static double law_tail_int(const law *L, double s)
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

/* Widest panel starting at a on which S and the density are smooth enough for 5-point Gauss-Legendre
 * (relative error below ~1e-12: for e^{-rs} on width 1/r the GL5 remainder is
 * 3.9e-13 (r w)^10 of the integral; for s^-ALPHA on width s/4, 4e-5 (1/4)^10 = 4e-11). */
static double law_width(const law *L, double a)
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

/* Smallest s (doubling from the mean) with P(c > s) < CHUNK_TAIL: chunk sizes beyond it are
 * dropped from the product-form quadratures (their weight is below CHUNK_TAIL). */
static double law_cut(const law *L)
{
    if (isfinite(L->hi))
        return L->hi;
    double s = fmax(L->mean, 1e-300);
    while (law_S(L, s) >= CHUNK_TAIL && s < 1e300)
        s *= 2;
    return s;
}

/* t0 = int_a^b S(s) ds, t1 = int_a^b (s - a) S(s) ds. */
static void law_cell(const law *L, double a, double b, double *t0, double *t1)
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
        double w = law_width(L, s0);
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
                double v = gl5_w[g] * half * law_S(L, s);
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

/* ------------------------------------------------------------------------------------------------ */
/* The discretised renewal equation                                                                 */
/* ------------------------------------------------------------------------------------------------ */

typedef struct kern {
    const law *L;
    double rho, h, thr;
    size_t nx;
    double *coef; /* lambda px[x] x / mu for the x with mass */
    double *sc;   /* mu / x */
} kern;

/* a_j and b_j of cell j (>= 1) at step h. */
static void kern_cell(const kern *K, size_t j, double *a, double *b)
{
    double u0 = (double)(j - 1) * K->h, u1 = (double)j * K->h;
    double ra = 0, rb = 0;
    for (size_t i = 0; i < K->nx; i++) {
        double t0, t1;
        law_cell(K->L, u0 * K->sc[i], u1 * K->sc[i], &t0, &t1);
        ra += K->coef[i] * t0;
        rb += K->coef[i] / K->sc[i] * t1;
    }
    *a = ra;
    *b = rb / K->h;
}

/* Upper bound on int_{y}^inf K. */
static double kern_tail(const kern *K, double y)
{
    double r = 0;
    for (size_t i = 0; i < K->nx; i++)
        r += K->coef[i] * law_tail_int(K->L, y * K->sc[i]);
    return r;
}

/* sum_{d=1..D} g[d] Wn[-d]: the O(N) inner product of the march. Eight independent partial sums
 * (a floating-point reduction is not reordered by the compiler without -ffast-math): the loop runs
 * at the load throughput instead of the latency of one add chain (measured 8x faster). */
static double conv(const double *restrict g, const double *restrict Wn, size_t D)
{
    double s0 = 0, s1 = 0, s2 = 0, s3 = 0, s4 = 0, s5 = 0, s6 = 0, s7 = 0;
    const double *w = Wn - 1;
    size_t d = 1;
    for (; d + 7 <= D; d += 8, w -= 8) {
        s0 += g[d] * w[0];
        s1 += g[d + 1] * w[-1];
        s2 += g[d + 2] * w[-2];
        s3 += g[d + 3] * w[-3];
        s4 += g[d + 4] * w[-4];
        s5 += g[d + 5] * w[-5];
        s6 += g[d + 6] * w[-6];
        s7 += g[d + 7] * w[-7];
    }
    for (; d <= D; d++, w--)
        s0 += g[d] * w[0];
    return ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7));
}

static int grow(double **p, size_t n)
{
    double *t = realloc(*p, n * sizeof *t);
    if (!t)
        return -1;
    *p = t;
    return 0;
}

/* March W_0 = 1 - rho, W_1, ... at step K->h. nfixed > 0: exactly nfixed points. Else until
 * 1 - W_n < stop_tail, giving up (return 1) at CAV_MAX_POINTS points or `work_limit`
 * multiply-adds. *Jout: the kernel's length in cells (n when never truncated); *work: the
 * multiply-adds done. Returns 0, 1, or -1 (memory). */
static int march(const kern *K, size_t nfixed, double stop_tail, double work_limit, double **Wout,
                 size_t *Nout, size_t *Jout, double *work)
{
    size_t limit = CAV_MAX_POINTS;
    double wk = 0;
    size_t cap = nfixed ? nfixed : 1024;
    double *W = malloc(cap * sizeof *W), *a = malloc(cap * sizeof *a), *b = malloc(cap * sizeof *b),
           *g = malloc(cap * sizeof *g);
    int rc = 0;
    size_t jlast = SIZE_MAX; /* last cell of a non-zero kernel, once truncated */
    size_t n = 1;
    double den = 1;
    if (!W || !a || !b || !g) {
        rc = -1;
        goto done;
    }
    W[0] = 1 - K->rho;
    a[0] = b[0] = g[0] = 0;
    for (;; n++) {
        if (nfixed && n >= nfixed)
            break;
        if (!nfixed && (n >= limit || wk > work_limit)) {
            rc = 1;
            break;
        }
        if (n >= cap) {
            size_t nc = 2 * cap;
            if (grow(&W, nc) || grow(&a, nc) || grow(&b, nc) || grow(&g, nc)) {
                rc = -1;
                goto done;
            }
            cap = nc;
        }
        if (n <= jlast) {
            kern_cell(K, n, &a[n], &b[n]);
            if (jlast == SIZE_MAX && kern_tail(K, (double)n * K->h) <= K->thr)
                jlast = n;
        } else {
            a[n] = b[n] = 0;
        }
        if (n == 1)
            den = 1 - a[1] + b[1];
        else
            g[n - 1] = b[n - 1] + a[n] - b[n];
        size_t dmax = n - 1 < jlast ? n - 1 : jlast;
        wk += (double)dmax;
        W[n] = ((1 - K->rho) + b[n] * W[0] + conv(g, W + n, dmax)) / den;
        if (!nfixed && 1 - W[n] < stop_tail) {
            n++;
            break;
        }
    }
done:
    free(a);
    free(b);
    free(g);
    if (rc < 0) {
        free(W);
        W = NULL;
        n = 0;
    }
    *Wout = W; /* rc = 1: the n points marched so far */
    *Nout = n;
    *Jout = jlast < n ? jlast : n;
    *work = wk;
    return rc;
}

int cl_cavity_solve(double lambda, double mu, const double *px, size_t xmax,
                    const storq_dist *chunk, double tol, cl_cavity *out)
{
    memset(out, 0, sizeof *out);
    out->error = INFINITY;
    if (!px || !chunk || !(lambda >= 0) || !(mu > 0) || !isfinite(lambda))
        return -1;
    double EX = 0, Ppos = 0;
    size_t nx = 0;
    for (size_t x = 1; x <= xmax; x++)
        if (px[x] > 0) {
            EX += (double)x * px[x];
            Ppos += px[x];
            nx++;
        }
    double Ec = chunk->mean;
    double rho = lambda * EX * Ec / mu;
    out->lambda = lambda;
    out->mu = mu;
    out->rho = rho;
    if (!(rho < 1))
        return -1;
    if (rho == 0) { /* no work ever: V = 0 */
        out->cdf = malloc(sizeof *out->cdf);
        if (!out->cdf)
            return -1;
        out->cdf[0] = 1;
        out->npoints = 1;
        out->h = 1;
        out->error = 0;
        return 0;
    }
    if (!(tol >= CAV_TOL_MIN))
        tol = CAV_TOL_MIN;
    if (tol > CAV_TOL_MAX)
        tol = CAV_TOL_MAX;

    law L;
    if (law_init(&L, chunk) != 0)
        return -1;
    kern K = {.L = &L, .rho = rho, .thr = 1e-3 * tol * (1 - rho), .nx = nx};
    K.coef = malloc((nx ? nx : 1) * sizeof *K.coef);
    K.sc = malloc((nx ? nx : 1) * sizeof *K.sc);
    int rc = -1;
    double *W = NULL, *W2 = NULL;
    if (!K.coef || !K.sc)
        goto fail;
    for (size_t x = 1, i = 0; x <= xmax; x++)
        if (px[x] > 0) {
            K.coef[i] = lambda * px[x] * (double)x / mu;
            K.sc[i] = mu / (double)x;
            i++;
        }
    double Bbar = Ec * EX / (mu * Ppos);  /* E[B | X > 0] */
    double Lam = lambda * Ppos;           /* rate of arrivals bringing work */
    double stop_tail = tol / 2;
    size_t N;

    /* Coarse pass: the grid length. When the tail level tol/2 lies beyond what the coarse pass
     * may afford (CAV_MAX_POINTS points or CAV_WORK_MAX / 8 multiply-adds: heavy tails), settle
     * for a tail level 10, 100, ... times higher, up to CAV_TAIL_MAX, and report it in `error`
     * (the cdf is 1 beyond the grid); beyond that, refuse. */
    double hc = fmin(Bbar / 4, 0.25 / Lam), work;
    size_t J;
    K.h = hc;
    int r = march(&K, 0, stop_tail, CAV_WORK_MAX / 8, &W, &N, &J, &work);
    if (r < 0)
        goto fail;
    if (r == 1) { /* the march is causal: find the first level reached on the way */
        size_t n = 0;
        while (stop_tail * 10 <= CAV_TAIL_MAX) {
            stop_tail *= 10;
            for (n = 0; n < N && !(1 - W[n] < stop_tail); n++)
                ;
            if (n < N)
                break;
        }
        if (n >= N)
            goto fail; /* the tail is too long to capture */
        N = n + 1;
        if (J > N)
            J = N;
    }
    double Lc = (double)(N - 1) * hc, Jlen = (double)J * hc;
    free(W);
    W = NULL;

    /* First accurate pass: h resolving B (E[B]/16), coarser if needed so that this pass costs at
     * most CAV_WORK_MAX / 16 (N(h) min(N(h), J(h)) = Lc min(Lc, Jlen) / h^2) and has at most
     * CAV_MAX_POINTS / 2 points: at least one halving then fits in the budget. */
    K.h = fmin(Bbar / 16, 0.05 / Lam);
    K.h = fmax(K.h, sqrt(1.2 * Lc * fmin(Lc, Jlen) / (CAV_WORK_MAX / 16)));
    K.h = fmax(K.h, 1.2 * Lc / (double)(CAV_MAX_POINTS / 2));
    r = march(&K, 0, stop_tail, CAV_WORK_MAX / 4, &W, &N, &J, &work);
    if (r != 0)
        goto fail;
    double err = INFINITY;
    for (;;) {
        size_t N2 = 2 * N - 1;
        /* halving doubles N and the kernel's length in cells: 4x the work */
        if (isfinite(err) && (N2 > CAV_MAX_POINTS || 4 * work > CAV_WORK_MAX))
            break;
        K.h /= 2;
        size_t got;
        if (march(&K, N2, 0, 0, &W2, &got, &J, &work) != 0)
            goto fail;
        err = 0;
        for (size_t j = 0; j < N; j++)
            err = fmax(err, fabs(W[j] - W2[2 * j]));
        free(W);
        W = W2;
        W2 = NULL;
        N = N2;
        if (err + 1e-3 * tol <= tol)
            break;
    }
    for (size_t j = 0; j < N; j++) /* rounding can leave W a few ulps outside [0, 1] */
        W[j] = fmin(fmax(W[j], 0), 1);
    out->cdf = W;
    W = NULL;
    out->npoints = N;
    out->h = K.h;
    out->error = err + 1e-3 * tol; /* + the kernel truncation bound R / (1 - rho) */
    if (stop_tail > tol / 2)       /* a heavy tail cut above the request */
        out->error = fmax(out->error, stop_tail);
    rc = 0;
fail:
    free(W);
    free(W2);
    free(K.coef);
    free(K.sc);
    law_free(&L);
    return rc;
}

double cl_cavity_cdf(const cl_cavity *cav, double w)
{
    if (!(w >= 0))
        return 0;
    if (!cav->cdf || cav->npoints == 0)
        return 1;
    double t = w / cav->h;
    if (t >= (double)(cav->npoints - 1))
        return t == (double)(cav->npoints - 1) ? cav->cdf[cav->npoints - 1] : 1;
    size_t j = (size_t)t;
    double f = t - (double)j;
    return cav->cdf[j] + f * (cav->cdf[j + 1] - cav->cdf[j]);
}

void cl_cavity_free(cl_cavity *cav)
{
    if (!cav)
        return;
    free(cav->cdf);
    cav->cdf = NULL;
    cav->npoints = 0;
}

/* ------------------------------------------------------------------------------------------------ */
/* X's law                                                                                          */
/* ------------------------------------------------------------------------------------------------ */

/* Size laws with infinite support (geom) are truncated at the first K with P(k > K) < BLOCKS_TAIL
 * and the truncated mass is folded into px[xmax] (the largest X kept): the masses sum to 1 and E[X]
 * is low by less than BLOCKS_TAIL * E[X | k > K]. */
double *cl_cavity_blocks_law(const storq_ddist *size, unsigned m, size_t *xmax_out)
{
    if (xmax_out)
        *xmax_out = 0;
    if (!size || m == 0 || size->min < 1)
        return NULL;
    int64_t kmax = size->max;
    double tail_fold = 0;
    if (size->kind == STORQ_DDIST_GEOM) {
        double P = size->p[0];
        if (P >= 1) {
            kmax = 1;
        } else { /* P(k > K) = (1-P)^K < BLOCKS_TAIL */
            double K = ceil(log(BLOCKS_TAIL) / size->p[1]);
            if (!(K < 9e18))
                return NULL;
            kmax = (int64_t)K;
            if (kmax < 1)
                kmax = 1;
            tail_fold = exp((double)kmax * size->p[1]);
        }
    }
    size_t xmax = (size_t)(kmax / (int64_t)m) + ((kmax % (int64_t)m) ? 1 : 0);
    if (xmax > BLOCKS_XMAX_CAP)
        return NULL;
    double *px = calloc(xmax + 1, sizeof *px);
    if (!px)
        return NULL;
    const int64_t mm = (int64_t)m;
    /* Iterate over the support: the table for binom/pmf, k = min..kmax otherwise. */
    size_t nvals = (size->kind == STORQ_DDIST_BINOM || size->kind == STORQ_DDIST_PMF)
                       ? size->nvalues
                       : (size_t)(kmax - size->min + 1);
    if (nvals > BLOCKS_MAX_TERMS) { /* e.g. uniform:1,1e12: refuse rather than loop for hours */
        free(px);
        return NULL;
    }
    for (size_t i = 0; i < nvals; i++) {
        int64_t k = (size->kind == STORQ_DDIST_BINOM || size->kind == STORQ_DDIST_PMF)
                        ? size->values[i]
                        : size->min + (int64_t)i;
        double pk = storq_ddist_pmf(size, k);
        if (!(pk > 0))
            continue;
        int64_t q = k / mm, kp = k - q * mm;
        double f = (double)kp / (double)m;
        if (kp > 0)
            px[q + 1] += pk * f;
        px[q] += pk * (1 - f);
    }
    px[xmax] += tail_fold;
    size_t top = xmax;
    while (top > 0 && px[top] == 0)
        top--;
    if (xmax_out)
        *xmax_out = top;
    return px;
}

/* ------------------------------------------------------------------------------------------------ */
/* Product form                                                                                     */
/* ------------------------------------------------------------------------------------------------ */

/* k <= m: F(x - c/mu)^k = shifts (q, e1, e0) = (0, k, 0); k > m: q = floor(k/m), e1 = k', e0 = m - k'
 * (e1 = 0 when m divides k). g(c) = F(x - c (q+1)/mu)^e1 F(x - c q/mu)^e0. */
typedef struct pf {
    const cl_cavity *cav;
    unsigned q, e1, e0;
    double x;
} pf;

static void pf_setup(pf *P, const cl_cavity *cav, unsigned k, unsigned m, double x)
{
    P->cav = cav;
    P->x = x;
    if (k <= m) {
        P->q = 0;
        P->e1 = k;
        P->e0 = 0;
    } else {
        P->q = k / m;
        P->e1 = k % m;
        P->e0 = m - P->e1;
    }
}

static double ipow(double f, unsigned e)
{
    return e == 1 ? f : pow(f, (double)e);
}

static double pf_g(const pf *P, double c)
{
    double mu = P->cav->mu, v = 1;
    if (P->e1) {
        double f = cl_cavity_cdf(P->cav, P->x - c * (P->q + 1) / mu);
        if (f <= 0)
            return 0;
        v = ipow(f, P->e1);
    }
    if (P->e0) {
        double f = cl_cavity_cdf(P->cav, P->x - c * P->q / mu);
        if (f <= 0)
            return 0;
        v *= ipow(f, P->e0);
    }
    return v;
}

#define PF_CELLS_PER_PANEL 4

double cl_product_form_cdf(const cl_cavity *cav, unsigned k, unsigned m, const storq_dist *chunk,
                           double x)
{
    if (!cav || !chunk || k == 0 || m == 0 || !(x >= 0))
        return 0;
    pf P;
    pf_setup(&P, cav, k, m, x);
    if (chunk->kind == STORQ_DIST_DET) /* exact */
        return pf_g(&P, chunk->p[0]);
    if (chunk->kind == STORQ_DIST_TRACE) { /* the empirical law, exactly: O(ntrace), no sorting */
        double r = 0;
        for (size_t i = 0; i < chunk->ntrace; i++)
            r += pf_g(&P, chunk->trace[i]);
        return chunk->ntrace ? r / (double)chunk->ntrace : NAN;
    }
    law L;
    if (law_init(&L, chunk) != 0)
        return NAN;
    double res = 0;
    /* Continuous psi: int g(c) psi(c) dc over [lo, hi]: g vanishes beyond x mu / (q+1) (x mu / q
     * when e1 = 0), chunk sizes beyond law_cut carry < CHUNK_TAIL. For continuous psi, B has no atom
     * but 0, so F is C^1 on (0, inf) and resolved by its grid (the solver refined h until the
     * piecewise-linear F is within `error`). Panels: split at the ends, psi's non-smooth points
     * and where an argument of F leaves the grid (F jumps to 1 there), then no wider than
     * PF_CELLS_PER_PANEL grid cells of the faster-moving argument x - c (q+1)/mu and than psi's
     * smoothness scale; 5-point Gauss-Legendre on each (5 nodes per 4 cells: F is sampled as
     * densely as its grid, so the quadrature adds an error of the order of F's interpolation
     * error, no more). */
    double mu = cav->mu, h = cav->h, Lend = (double)(cav->npoints - 1) * h;
    double sfast = (P.e1 ? P.q + 1 : P.q) / mu; /* d(argument)/dc of the faster argument */
    double chi = x / sfast;
    double lo = fmax(0, L.lo), hi = fmin(fmin(chi, L.hi), law_cut(&L));
    if (!(hi > lo)) {
        law_free(&L);
        return 0;
    }
    double bp[8];
    int nb = 0;
    bp[nb++] = lo;
    bp[nb++] = hi;
    for (int i = 0; i < L.nbp; i++)
        bp[nb++] = L.bp[i];
    if (P.e1)
        bp[nb++] = (x - Lend) * mu / (P.q + 1);
    if (P.e0 && P.q > 0)
        bp[nb++] = (x - Lend) * mu / P.q;
    for (int i = 0; i < nb; i++)
        bp[i] = fmin(fmax(bp[i], lo), hi);
    qsort(bp, (size_t)nb, sizeof *bp, cmp_double);
    double wgrid = PF_CELLS_PER_PANEL * h / sfast;
    for (int i = 0; i + 1 < nb; i++) {
        double a = bp[i], b = bp[i + 1];
        if (!(b > a))
            continue;
        double w = fmin(law_width(&L, a), wgrid), span = b - a;
        double np = fmax(1, ceil(span / w));
        double pw = span / np;
        for (double j = 0; j < np; j++) {
            double pa = a + j * pw, pb = j + 1 == np ? b : pa + pw;
            double mid = (pa + pb) / 2, half = (pb - pa) / 2;
            for (int g = 0; g < 5; g++) {
                double c = mid + half * gl5_x[g];
                res += gl5_w[g] * half * law_pdf(&L, c) * pf_g(&P, c);
            }
        }
    }
    law_free(&L);
    return fmin(fmax(res, 0), 1);
}

/* J(s) = int_0^inf (1 - F(y)^e1 F(y + s)^e0) dy, F piecewise linear on the grid (1 beyond it).
 * Fixed rule: 3-point Gauss-Legendre on every grid cell [jh, (j+1)h], so F(y)^e1 is tabulated once
 * and each J(s) costs one power per point. On a cell F(y)^e1 is a polynomial of degree e1 (exact for
 * e1 <= 5; F varies by O(h f) on a cell, so higher powers are nearly polynomial of low degree);
 * F(y + s) has one kink inside the cell (at a shifted node), which costs O(h^3 |jump of F'|) per
 * cell, O(h^2) in all: the order of F's own error. Points past the grid end (F(y + s) = 1) are
 * summed once in a suffix table. */
typedef struct jtab {
    size_t n;         /* 3 points per grid cell: y_i = (j + 1/2 + x_g / 2) h, weight w_g h / 2 */
    double h;
    double *A, *suf;  /* F(y_i)^e1; suf[i] = sum_{i' >= i} w (1 - A) */
} jtab;

static double jtab_y(const jtab *T, size_t i)
{
    return ((double)(i / 3) + 0.5 + 0.5 * gl3_x[i % 3]) * T->h;
}

static void jtab_free(jtab *T)
{
    free(T->A);
    free(T->suf);
    memset(T, 0, sizeof *T);
}

static int jtab_init(jtab *T, const cl_cavity *cav, unsigned e1)
{
    memset(T, 0, sizeof *T);
    size_t cells = cav->npoints > 1 ? cav->npoints - 1 : 0, n = 3 * cells;
    T->n = n;
    T->h = cav->h;
    T->A = malloc((n + 1) * sizeof *T->A);
    T->suf = malloc((n + 1) * sizeof *T->suf);
    if (!T->A || !T->suf) {
        jtab_free(T);
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        T->A[i] = ipow(cl_cavity_cdf(cav, jtab_y(T, i)), e1);
    T->suf[n] = 0;
    for (size_t i = n; i-- > 0;)
        T->suf[i] = T->suf[i + 1] + 0.5 * T->h * gl3_w[i % 3] * (1 - T->A[i]);
    return 0;
}

static double jtab_J(const jtab *T, const cl_cavity *cav, unsigned e0, double s)
{
    if (e0 == 0 || T->n == 0)
        return T->suf[0];
    double Lend = (double)(cav->npoints - 1) * cav->h;
    /* first point with y + s >= Lend: y increases with i */
    size_t lo = 0, hi = T->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (jtab_y(T, mid) + s < Lend)
            lo = mid + 1;
        else
            hi = mid;
    }
    double r = T->suf[lo];
    for (size_t i = 0; i < lo; i++)
        r += 0.5 * T->h * gl3_w[i % 3] *
             (1 - T->A[i] * ipow(cl_cavity_cdf(cav, jtab_y(T, i) + s), e0));
    return r;
}

typedef struct jctx {
    const cl_cavity *cav;
    const law *L;
    const jtab *T;
    unsigned e0;
} jctx;

static double j_integrand(const jctx *C, double c)
{
    double f = law_pdf(C->L, c);
    return f > 0 ? f * jtab_J(C->T, C->cav, C->e0, c / C->cav->mu) : 0;
}

static double gk15(const jctx *C, double a, double b, double *err)
{
    double mid = (a + b) / 2, half = (b - a) / 2;
    double fc = j_integrand(C, mid);
    double rk = fc * gk_wk[7], rg = fc * gk_wg[3];
    for (int j = 0; j < 7; j++) {
        double dx = half * gk_x[j];
        double f = j_integrand(C, mid - dx) + j_integrand(C, mid + dx);
        rk += gk_wk[j] * f;
        if (j % 2 == 1)
            rg += gk_wg[j / 2] * f;
    }
    *err = fabs(rk - rg) * half;
    return rk * half;
}

#define PF_MAX_PANELS 160

/* Globally adaptive Gauss-Kronrod over the panels between the sorted points pts[0..np-1]: split the
 * panel of largest error estimate until the sum of the estimates is <= tol or PF_MAX_PANELS panels
 * (a bounded cost: at most 15 PF_MAX_PANELS evaluations of J). */
static double adapt_global(const jctx *C, const double *pts, int np, double tol)
{
    double pa[PF_MAX_PANELS], pb[PF_MAX_PANELS], pr[PF_MAX_PANELS], pe[PF_MAX_PANELS];
    int n = 0;
    for (int i = 0; i + 1 < np && n < PF_MAX_PANELS; i++) {
        if (!(pts[i + 1] > pts[i]))
            continue;
        pa[n] = pts[i];
        pb[n] = pts[i + 1];
        pr[n] = gk15(C, pa[n], pb[n], &pe[n]);
        n++;
    }
    for (;;) {
        double etot = 0;
        int worst = 0;
        for (int i = 0; i < n; i++) {
            etot += pe[i];
            if (pe[i] > pe[worst])
                worst = i;
        }
        if (etot <= tol || n + 1 > PF_MAX_PANELS)
            break;
        double mid = (pa[worst] + pb[worst]) / 2;
        pa[n] = mid;
        pb[n] = pb[worst];
        pb[worst] = mid;
        pr[worst] = gk15(C, pa[worst], pb[worst], &pe[worst]);
        pr[n] = gk15(C, pa[n], pb[n], &pe[n]);
        n++;
    }
    double r = 0;
    for (int i = 0; i < n; i++)
        r += pr[i];
    return r;
}

/* E[D] = int_0^inf (1 - cdf(x)) dx, exchanged with E_c (Fubini): for a chunk c the delay is
 * D_c = c (q+1)/mu + (the max of the shifted workloads), so
 *   E[D] = (q+1) E[c]/mu + E_c[ J(c/mu) ]      (e1 > 0; with q and exponent m when e1 = 0).
 * J does not depend on c unless both e1 and e0 are > 0 (k > m, k' > 0); then E_c[J(c/mu)] is taken
 * exactly for det/trace (one J per distinct value) and for continuous psi by globally adaptive
 * Gauss-Kronrod (7-15) over c (J is continuous, between 0 and J(0)) on panels split at the law's
 * non-smooth points, mean + {-2,-1,0,1,2,4,8} sd and E[c] 2^j beyond, cut where P(c > s) <
 * CHUNK_TAIL, to an absolute target of 1e-8 (J(0) + E[c]/mu) (GK's |K15 - G7| overestimates
 * the error of K15 by orders of magnitude: measured changes of the mean between targets 1e-7..1e-9
 * are below 2e-9 relative). */
double cl_product_form_mean(const cl_cavity *cav, unsigned k, unsigned m, const storq_dist *chunk)
{
    if (!cav || !chunk || k == 0 || m == 0)
        return NAN;
    pf P;
    pf_setup(&P, cav, k, m, 0);
    double mu = cav->mu;
    unsigned e1 = P.e1 ? P.e1 : P.e0, e0 = P.e1 ? P.e0 : 0;
    double base = (P.e1 ? P.q + 1 : P.q) * chunk->mean / mu;
    jtab T;
    if (jtab_init(&T, cav, e1) != 0)
        return NAN;
    if (e0 == 0) { /* k <= m, or k = q m: J does not depend on c */
        double r = base + jtab_J(&T, cav, 0, 0);
        jtab_free(&T);
        return r;
    }
    law L;
    if (law_init(&L, chunk) != 0) {
        jtab_free(&T);
        return NAN;
    }
    double res = 0;
    if (L.discrete) {
        for (size_t i = 0; i < L.nu; i++)
            res += L.wv[i] * jtab_J(&T, cav, e0, L.uv[i] / mu);
    } else {
        jctx C = {cav, &L, &T, e0};
        double lo = fmax(0, L.lo), hi = law_cut(&L);
        double pts[96];
        int np = 0;
        pts[np++] = lo;
        pts[np++] = hi;
        for (int i = 0; i < L.nbp; i++)
            pts[np++] = L.bp[i];
        const double nsd[7] = {-2, -1, 0, 1, 2, 4, 8};
        for (int i = 0; i < 7; i++)
            pts[np++] = L.mean + nsd[i] * L.sd;
        for (int e = 4; e <= 80 && np < 96; e++)
            pts[np++] = ldexp(L.mean, e);
        for (int i = 0; i < np; i++)
            pts[i] = fmin(fmax(pts[i], lo), hi);
        qsort(pts, (size_t)np, sizeof *pts, cmp_double);
        double tol = 1e-8 * (jtab_J(&T, cav, e0, 0) + chunk->mean / mu);
        res = adapt_global(&C, pts, np, tol);
    }
    law_free(&L);
    jtab_free(&T);
    return base + res;
}

double cl_cavity_mm1_cdf(double lambda_eff, double service_rate, double w)
{
    if (!(lambda_eff >= 0) || !(service_rate > lambda_eff))
        return NAN;
    if (!(w >= 0))
        return 0;
    double rho = lambda_eff / service_rate;
    return 1 - rho * exp(-(service_rate - lambda_eff) * w);
}
