/* The cavity queue of the `cluster` model under BR (section IV of the paper "Delay Comparison of
 * Delivery and Coding Policies in Data Clusters"): its stationary workload, and the law of the
 * blocks X a request asks of one server. See docs/models/cluster-theory.md for the derivations and
 * the measured accuracy; every choice below is justified where it is made.
 *
 * Method for the stationary workload V (time units) of the M/G/1 cavity queue.
 *   Arrivals: Poisson(lambda); work per arrival B = c X / mu, X ~ px (X = 0 allowed), c ~ psi.
 *   The Pollaczek-Khinchine/Benes form P(V <= w) = (1 - rho) sum_n rho^n B_e^{*n}(w) is the
 * solution of the renewal (Volterra) equation W(w) = (1 - rho) + int_0^w W(w - y) K(y) dy,   K(y) =
 * lambda P(B > y),   int K = rho, (rho B_e has density K). Using K = lambda P(B > y) with the
 * unthinned rate lambda is the same as thinning the arrivals to lambda P(X > 0) and conditioning B
 * on X > 0: the X = 0 (and c = 0) arrivals contribute nothing to P(B > y), y >= 0, so no special
 * case is needed. W is continuous on [0, inf) with W(0) = 1 - rho (the atom of V at 0) and
 * Lipschitz with constant lambda P(X > 0); it has kinks (e.g. at multiples of D for deterministic
 * work). Discretisation ("product integration"): W is replaced by its piecewise-linear interpolant
 * on the grid jh, and the kernel is integrated exactly against it on each cell: a_j =
 * int_{(j-1)h}^{jh} K,   b_j = (1/h) int_{(j-1)h}^{jh} (y - (j-1)h) K(y) dy, W_n = (1 - rho) +
 * sum_{j=1..n} [(a_j - b_j) W_{n-j+1} + b_j W_{n-j}]   (W_n on both sides: solved for it; the
 * denominator 1 - a_1 + b_1 >= 1 - lambda h > 0). The cell integrals of P(B > y) are computed in
 * the chunk variable s = y mu / x from the survival function S of psi, split at the points where S
 * is not smooth (atoms of a det/trace law, the shift of shexp, the ends of uniform, the scale of
 * pareto) and on sub-panels no wider than the scale on which S is smooth, with 5-point
 * Gauss-Legendre (exact for the piecewise constant/linear S of det/trace/uniform; relative error <
 * 1e-12 for the exponential-type laws on panels of width 1/rate). So jumps of K (deterministic
 * chunks) cost nothing, all weights are >= 0, and sum_j a_j = rho exactly up to rounding: the
 * discrete solution keeps the total mass 1. The scheme is second order in h (the interpolation
 * error of W, integrated); it costs O(N * J) for N grid points and a kernel of J cells (J = N for
 * heavy tails), a plain convolution: no FFT, the marching order is causal so the grid can be
 * extended until the tail is below the target without knowing its length in advance. Kernel
 * truncation: once an upper bound R on the remaining kernel mass int_{Jh}^inf K is below 1e-3 tol
 * (1 - rho), the kernel is cut (bounded-support laws: exactly when it vanishes). Dropping mass R
 * moves W by at most R / (1 - rho) (the resolvent sum_n rho^n), i.e. < 1e-3 tol. Accuracy control:
 * solve at h and h/2 (same grid length); the reported error is the largest difference on the coarse
 * grid (+ the truncation bound 1e-3 tol); halve until it is <= tol or the next halving would exceed
 * CAV_WORK_MAX multiply-adds or CAV_MAX_POINTS points (then `error` > tol is returned with 0:
 * callers compare `error` with their tol). The finer solution is returned: for a second-order
 * scheme its own error is about a third of the reported difference (measured: 0.31-0.34 for M/M/1
 * and M/D/1), so `error` is conservative. tol is clamped to [1e-10, 1e-2]. Grid length: marched
 * until 1 - W_n < tol / 2 (so storq_cl_cavity_cdf's "1 beyond the grid" is within tol). A first
 * coarse pass (h = E[B | B > 0] / 4) finds that length. When this pass would cost more than
 * CAV_WORK_MAX / 8 (heavy tails: pareto with small ALPHA; rho very close to 1 only beyond 0.9999
 * for exponential work), the tail level is raised tenfold at a time up to CAV_TAIL_MAX = 1e-2 and
 * `error` is raised to that level (the mass beyond the grid, where the cdf is reported as 1); when
 * even 1e-2 lies beyond, the tail cannot be captured and storq_cl_cavity_solve refuses with -1
 * (cav->error = INFINITY), e.g. pareto:1.05. Between the nodes storq_cl_cavity_cdf interpolates
 * linearly (the header's contract): add h^2/8 max|W''| there (h |jump of W'| / 4 at a kink, e.g. w
 * = D for M/D/1). */
#include "cavity.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "chunk_law.h"
#include "memory.h"

#define CAV_MAX_POINTS ((size_t)1 << 21) /* memory: 5 arrays of doubles, 80 MB */
#define CAV_WORK_MAX 8e9 /* multiply-adds of the finest march (~3 s at the measured 2.7e9/s) */
#define CAV_TOL_MIN 1e-10                /* rounding of the O(N) accumulations stays below this */
#define CAV_TOL_MAX 1e-2
#define CAV_TAIL_MAX 1e-2 /* heavy tails: the largest tail mass left beyond the grid */
#define BLOCKS_TAIL 1e-15 /* size laws with infinite support: truncate when the rest is below */
#define BLOCKS_XMAX_CAP ((size_t)10000000)
#define BLOCKS_MAX_TERMS ((size_t)100000000)

/* ------------------------------------------------------------------------------------------------
 */
/* The discretised renewal equation */
/* ------------------------------------------------------------------------------------------------
 */

typedef struct kern {
    const cl_law *L;
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
        storq_cl_law_cell(K->L, u0 * K->sc[i], u1 * K->sc[i], &t0, &t1);
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
        r += K->coef[i] * storq_cl_law_tail_int(K->L, y * K->sc[i]);
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

/* Coarse pass (step hc): the grid length Lc, and the kernel's Jlen, for a tail level
 * *stop_tail. When tol/2 lies beyond what the coarse pass may afford (CAV_MAX_POINTS points or
 * CAV_WORK_MAX / 8 multiply-adds: heavy tails), settle for a tail level 10, 100, ... times
 * higher, up to CAV_TAIL_MAX (*stop_tail raised: the caller reports it in `error`, the cdf being
 * 1 beyond the grid); beyond that, refuse. 0, or -1 (refused, or memory). */
static int coarse_pass(kern *K, double hc, double *stop_tail, double *Lc, double *Jlen)
{
    double *W = NULL, work;
    size_t N, J;
    K->h = hc;
    int r = march(K, 0, *stop_tail, CAV_WORK_MAX / 8, &W, &N, &J, &work);
    if (r < 0)
        return -1;
    if (r == 1) { /* the march is causal: find the first level reached on the way */
        size_t n = 0;
        while (*stop_tail * 10 <= CAV_TAIL_MAX) {
            *stop_tail *= 10;
            for (n = 0; n < N && !(1 - W[n] < *stop_tail); n++)
                ;
            if (n < N)
                break;
        }
        if (n >= N) { /* the tail is too long to capture */
            free(W);
            return -1;
        }
        N = n + 1;
        if (J > N)
            J = N;
    }
    *Lc = (double)(N - 1) * hc;
    *Jlen = (double)J * hc;
    free(W);
    return 0;
}

/* The accurate passes from step K->h: march to the tail level stop_tail, then halve h (same
 * grid length) until the largest difference between successive solutions, *err, is within tol
 * with the truncation bound, or the next halving would pass the budget. *Wout: the finest
 * solution, of *Nout points. 0, or -1 (memory, or the first march over its budget). */
static int accurate_passes(kern *K, double stop_tail, double tol, double **Wout, size_t *Nout,
                           double *err)
{
    double *W = NULL, *W2 = NULL, work;
    size_t N, J;
    if (march(K, 0, stop_tail, CAV_WORK_MAX / 4, &W, &N, &J, &work) != 0)
        goto fail;
    *err = INFINITY;
    for (;;) {
        size_t N2 = 2 * N - 1;
        /* halving doubles N and the kernel's length in cells: 4x the work */
        if (isfinite(*err) && (N2 > CAV_MAX_POINTS || 4 * work > CAV_WORK_MAX))
            break;
        K->h /= 2;
        size_t got;
        if (march(K, N2, 0, 0, &W2, &got, &J, &work) != 0)
            goto fail;
        *err = 0;
        for (size_t j = 0; j < N; j++)
            *err = fmax(*err, fabs(W[j] - W2[2 * j]));
        free(W);
        W = W2;
        W2 = NULL;
        N = N2;
        if (*err + 1e-3 * tol <= tol)
            break;
    }
    *Wout = W;
    *Nout = N;
    return 0;
fail:
    free(W);
    free(W2);
    return -1;
}

/* The kernel's coefficients for the x with mass. 0, or -1 (memory). */
static int kern_init(kern *K, double lambda, double mu, const double *px, size_t xmax)
{
    K->coef = malloc((K->nx ? K->nx : 1) * sizeof *K->coef);
    K->sc = malloc((K->nx ? K->nx : 1) * sizeof *K->sc);
    if (!K->coef || !K->sc)
        return -1;
    for (size_t x = 1, i = 0; x <= xmax; x++)
        if (px[x] > 0) {
            K->coef[i] = lambda * px[x] * (double)x / mu;
            K->sc[i] = mu / (double)x;
            i++;
        }
    return 0;
}

/* V = 0: no work ever arrives. */
static int solve_empty(cl_cavity *out)
{
    out->cdf = malloc(sizeof *out->cdf);
    if (!out->cdf)
        return -1;
    out->cdf[0] = 1;
    out->npoints = 1;
    out->h = 1;
    out->error = 0;
    return 0;
}

int storq_cl_cavity_solve(double lambda, double mu, const double *px, size_t xmax,
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
    if (rho == 0)
        return solve_empty(out);
    if (!(tol >= CAV_TOL_MIN))
        tol = CAV_TOL_MIN;
    if (tol > CAV_TOL_MAX)
        tol = CAV_TOL_MAX;

    cl_law L;
    if (storq_cl_law_init(&L, chunk) != 0)
        return -1;
    kern K = {.L = &L, .rho = rho, .thr = 1e-3 * tol * (1 - rho), .nx = nx};
    int rc = -1;
    double *W = NULL;
    size_t N;
    double Bbar = Ec * EX / (mu * Ppos);  /* E[B | X > 0] */
    double Lam = lambda * Ppos;           /* rate of arrivals bringing work */
    double stop_tail = tol / 2, Lc, Jlen, err;
    if (kern_init(&K, lambda, mu, px, xmax) ||
        coarse_pass(&K, fmin(Bbar / 4, 0.25 / Lam), &stop_tail, &Lc, &Jlen))
        goto fail;
    /* First accurate pass: h resolving B (E[B]/16), coarser if needed so that this pass costs at
     * most CAV_WORK_MAX / 16 (N(h) min(N(h), J(h)) = Lc min(Lc, Jlen) / h^2) and has at most
     * CAV_MAX_POINTS / 2 points: at least one halving then fits in the budget. */
    K.h = fmin(Bbar / 16, 0.05 / Lam);
    K.h = fmax(K.h, sqrt(1.2 * Lc * fmin(Lc, Jlen) / (CAV_WORK_MAX / 16)));
    K.h = fmax(K.h, 1.2 * Lc / (double)(CAV_MAX_POINTS / 2));
    if (accurate_passes(&K, stop_tail, tol, &W, &N, &err))
        goto fail;
    for (size_t j = 0; j < N; j++) /* rounding can leave W a few ulps outside [0, 1] */
        W[j] = fmin(fmax(W[j], 0), 1);
    out->cdf = W;
    out->npoints = N;
    out->h = K.h;
    out->error = err + 1e-3 * tol; /* + the kernel truncation bound R / (1 - rho) */
    if (stop_tail > tol / 2)       /* a heavy tail cut above the request */
        out->error = fmax(out->error, stop_tail);
    rc = 0;
fail:
    free(K.coef);
    free(K.sc);
    storq_cl_law_free(&L);
    return rc;
}

double storq_cl_cavity_cdf(const cl_cavity *cav, double w)
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

void storq_cl_cavity_free(cl_cavity *cav)
{
    if (!cav)
        return;
    free(cav->cdf);
    cav->cdf = NULL;
    cav->npoints = 0;
}

/* ------------------------------------------------------------------------------------------------
 */
/* X's cl_law */
/* ------------------------------------------------------------------------------------------------
 */

/* Size laws with infinite support (geom) are truncated at the first K with P(k > K) < BLOCKS_TAIL
 * and the truncated mass is folded into px[xmax] (the largest X kept): the masses sum to 1 and E[X]
 * is low by less than BLOCKS_TAIL * E[X | k > K]. */
static double blocks_kmax(const storq_ddist *size)
{
    if (size->kind != STORQ_DDIST_GEOM)
        return (double)size->max;
    if (size->p[0] >= 1)
        return 1;
    return fmax(ceil(log(BLOCKS_TAIL) / size->p[1]), 1); /* P(k > K) = (1-P)^K */
}

int storq_cl_cavity_blocks_fit(const storq_ddist *size, unsigned m, cl_blocks_size *out)
{
    cl_blocks_size b = {.kmax = blocks_kmax(size), .xmax_cap = (double)BLOCKS_XMAX_CAP,
                        .terms_cap = (double)BLOCKS_MAX_TERMS};
    b.xmax = m ? ceil(b.kmax / m) : INFINITY;
    b.terms = size->kind == STORQ_DDIST_BINOM || size->kind == STORQ_DDIST_PMF
                  ? (double)size->nvalues
                  : b.kmax - (double)size->min + 1;
    if (out)
        *out = b;
    return b.kmax < 9e18 && b.xmax <= b.xmax_cap && b.terms <= b.terms_cap;
}

double *storq_cl_cavity_blocks_law(const storq_ddist *size, unsigned m, size_t *xmax_out)
{
    if (xmax_out)
        *xmax_out = 0;
    if (!size || m == 0 || size->min < 1 || !storq_cl_cavity_blocks_fit(size, m, NULL))
        return NULL; /* refused in prepare (storq_cl_theory_check) */
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

size_t storq_cl_cavity_bytes(const storq_ddist *size, unsigned m, const storq_dist *chunk)
{
    /* X's support, as storq_cl_cavity_blocks_law finds it (beyond its caps the point is refused:
     * storq_cl_cavity_blocks_fit) */
    cl_blocks_size b;
    double xmax = storq_cl_cavity_blocks_fit(size, m, &b) ? b.xmax : 0;
    /* px and the kernel's coefficients; the chunk law's three tables (a trace's every number);
     * the grid at its cap: five arrays while marching, ten while the product form runs (the
     * cdf, the three stored arrays and its table of three cells a point, twice) */
    size_t bytes = storq_bytes_mul(3 * ((size_t)xmax + 1), sizeof(double));
    size_t law = chunk->kind == STORQ_DIST_TRACE ? chunk->ntrace : 1;
    bytes = storq_bytes_add(bytes, storq_bytes_mul(3 * law, sizeof(double)));
    return storq_bytes_add(bytes, 10 * CAV_MAX_POINTS * sizeof(double));
}

double storq_cl_cavity_mm1_cdf(double lambda_eff, double service_rate, double w)
{
    if (!(lambda_eff >= 0) || !(service_rate > lambda_eff))
        return NAN;
    if (!(w >= 0))
        return 0;
    double rho = lambda_eff / service_rate;
    return 1 - rho * exp(-(service_rate - lambda_eff) * w);
}
