/* The product-form delay figure of the `cluster` model under BR (section V of the paper "Delay
 * Comparison of Delivery and Coding Policies in Data Clusters"; docs/models/cluster-theory.md,
 * "The product-form figure"): the delay of a request of k blocks as if the servers it asks had
 * evolved independently, each with the cavity queue's stationary workload (cavity.c). Its CDF at
 * a point and its mean, by quadrature over the chunk size law. */
#include "cavity.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "chunk_law.h"
#include "quadrature.h"

/* Count n evaluations against the budget w (none: NULL); 1 once it is spent. */
static int pf_spend(cl_pf_work *w, double n)
{
    if (!w)
        return 0;
    w->used += n;
    return w->used > w->max;
}

/* k <= m: F(x - c/mu)^k = shifts (q, e1, e0) = (0, k, 0); k > m: q = floor(k/m), e1 = k', e0 = m -
 * k' (e1 = 0 when m divides k). g(c) = F(x - c (q+1)/mu)^e1 F(x - c q/mu)^e0. */
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
        double f = storq_cl_cavity_cdf(P->cav, P->x - c * (P->q + 1) / mu);
        if (f <= 0)
            return 0;
        v = ipow(f, P->e1);
    }
    if (P->e0) {
        double f = storq_cl_cavity_cdf(P->cav, P->x - c * P->q / mu);
        if (f <= 0)
            return 0;
        v *= ipow(f, P->e0);
    }
    return v;
}

#define PF_CELLS_PER_PANEL 4

double storq_cl_product_form_cdf(const cl_cavity *cav, unsigned k, unsigned m,
                                 const storq_dist *chunk, double x)
{
    return storq_cl_product_form_cdf_w(cav, k, m, chunk, x, NULL);
}

double storq_cl_product_form_cdf_w(const cl_cavity *cav, unsigned k, unsigned m,
                                   const storq_dist *chunk, double x, cl_pf_work *work)
{
    if (!cav || !chunk || k == 0 || m == 0 || !(x >= 0))
        return 0;
    if (work && work->used > work->max)
        return NAN;
    pf P;
    pf_setup(&P, cav, k, m, x);
    if (chunk->kind == STORQ_DIST_DET) /* exact */
        return pf_spend(work, 1) ? NAN : pf_g(&P, chunk->p[0]);
    if (chunk->kind ==
        STORQ_DIST_TRACE) { /* the empirical cl_law, exactly: O(ntrace), no sorting */
        if (pf_spend(work, (double)chunk->ntrace))
            return NAN;
        double r = 0;
        for (size_t i = 0; i < chunk->ntrace; i++)
            r += pf_g(&P, chunk->trace[i]);
        return chunk->ntrace ? r / (double)chunk->ntrace : NAN;
    }
    cl_law L;
    if (storq_cl_law_init(&L, chunk) != 0)
        return NAN;
    double res = 0;
    /* Continuous psi: int g(c) psi(c) dc over [lo, hi]: g vanishes beyond x mu / (q+1) (x mu / q
     * when e1 = 0), chunk sizes beyond storq_cl_law_cut carry < CL_CHUNK_TAIL. For continuous psi,
     * B has no atom but 0, so F is C^1 on (0, inf) and resolved by its grid (the solver refined h
     * until the piecewise-linear F is within `error`). Panels: split at the ends, psi's non-smooth
     * points and where an argument of F leaves the grid (F jumps to 1 there), then no wider than
     * PF_CELLS_PER_PANEL grid cells of the faster-moving argument x - c (q+1)/mu and than psi's
     * smoothness scale; 5-point Gauss-Legendre on each (5 nodes per 4 cells: F is sampled as
     * densely as its grid, so the quadrature adds an error of the order of F's interpolation
     * error, no more). */
    double mu = cav->mu, h = cav->h, Lend = (double)(cav->npoints - 1) * h;
    double sfast = (P.e1 ? P.q + 1 : P.q) / mu; /* d(argument)/dc of the faster argument */
    double chi = x / sfast;
    double lo = fmax(0, L.lo), hi = fmin(fmin(chi, L.hi), storq_cl_law_cut(&L));
    if (!(hi > lo)) {
        storq_cl_law_free(&L);
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
    cl_sort_doubles(bp, (size_t)nb);
    double wgrid = PF_CELLS_PER_PANEL * h / sfast;
    for (int i = 0; i + 1 < nb; i++) {
        double a = bp[i], b = bp[i + 1];
        if (!(b > a))
            continue;
        double w = fmin(storq_cl_law_width(&L, a), wgrid), span = b - a;
        double np = fmax(1, ceil(span / w));
        double pw = span / np;
        if (pf_spend(work, 5 * np)) {
            storq_cl_law_free(&L);
            return NAN;
        }
        for (double j = 0; j < np; j++) {
            double pa = a + j * pw, pb = j + 1 == np ? b : pa + pw;
            double mid = (pa + pb) / 2, half = (pb - pa) / 2;
            for (int g = 0; g < 5; g++) {
                double c = mid + half * gl5_x[g];
                res += gl5_w[g] * half * storq_cl_law_pdf(&L, c) * pf_g(&P, c);
            }
        }
    }
    storq_cl_law_free(&L);
    return fmin(fmax(res, 0), 1);
}

/* J(s) = int_0^inf (1 - F(y)^e1 F(y + s)^e0) dy, F piecewise linear on the grid (1 beyond it).
 * Fixed rule: 3-point Gauss-Legendre on every grid cell [jh, (j+1)h], so F(y)^e1 is tabulated once
 * and each J(s) costs one power per point. On a cell F(y)^e1 is a polynomial of degree e1 (exact
 * for e1 <= 5; F varies by O(h f) on a cell, so higher powers are nearly polynomial of low degree);
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
        T->A[i] = ipow(storq_cl_cavity_cdf(cav, jtab_y(T, i)), e1);
    T->suf[n] = 0;
    for (size_t i = n; i-- > 0;)
        T->suf[i] = T->suf[i + 1] + 0.5 * T->h * gl3_w[i % 3] * (1 - T->A[i]);
    return 0;
}

static double jtab_J(const jtab *T, const cl_cavity *cav, unsigned e0, double s,
                     cl_pf_work *work)
{
    if (e0 == 0 || T->n == 0)
        return T->suf[0];
    if (work && work->used > work->max)
        return NAN;
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
    if (pf_spend(work, (double)lo))
        return NAN;
    for (size_t i = 0; i < lo; i++)
        r += 0.5 * T->h * gl3_w[i % 3] *
             (1 - T->A[i] * ipow(storq_cl_cavity_cdf(cav, jtab_y(T, i) + s), e0));
    return r;
}

typedef struct jctx {
    const cl_cavity *cav;
    const cl_law *L;
    const jtab *T;
    unsigned e0;
    cl_pf_work *work;
} jctx;

static double j_integrand(const jctx *C, double c)
{
    double f = storq_cl_law_pdf(C->L, c);
    return f > 0 ? f * jtab_J(C->T, C->cav, C->e0, c / C->cav->mu, C->work) : 0;
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
 * Gauss-Kronrod (7-15) over c (J is continuous, between 0 and J(0)) on panels split at the cl_law's
 * non-smooth points, mean + {-2,-1,0,1,2,4,8} sd and E[c] 2^j beyond, cut where P(c > s) <
 * CL_CHUNK_TAIL, to an absolute target of 1e-8 (J(0) + E[c]/mu) (GK's |K15 - G7| overestimates
 * the error of K15 by orders of magnitude: measured changes of the mean between targets 1e-7..1e-9
 * are below 2e-9 relative). */
double storq_cl_product_form_mean(const cl_cavity *cav, unsigned k, unsigned m,
                                  const storq_dist *chunk)
{
    if (!cav || !chunk || k == 0 || m == 0)
        return NAN;
    return storq_cl_product_form_base(k, m, chunk, cav->mu) +
           storq_cl_product_form_wait(cav, k, m, chunk, NULL);
}

double storq_cl_product_form_base(unsigned k, unsigned m, const storq_dist *chunk, double mu)
{
    pf P;
    pf_setup(&P, NULL, k, m, 0);
    return (P.e1 ? P.q + 1 : P.q) * chunk->mean / mu;
}

double storq_cl_product_form_wait(const cl_cavity *cav, unsigned k, unsigned m,
                                  const storq_dist *chunk, cl_pf_work *work)
{
    if (!cav || !chunk || k == 0 || m == 0)
        return NAN;
    pf P;
    pf_setup(&P, cav, k, m, 0);
    double mu = cav->mu;
    unsigned e1 = P.e1 ? P.e1 : P.e0, e0 = P.e1 ? P.e0 : 0;
    jtab T;
    if ((work && work->used > work->max) || pf_spend(work, 3.0 * (double)cav->npoints) ||
        jtab_init(&T, cav, e1) != 0)
        return NAN;
    if (e0 == 0) { /* k <= m, or k = q m: J does not depend on c */
        double r = jtab_J(&T, cav, 0, 0, work);
        jtab_free(&T);
        return r;
    }
    cl_law L;
    if (storq_cl_law_init(&L, chunk) != 0) {
        jtab_free(&T);
        return NAN;
    }
    double res = 0;
    if (L.discrete) {
        for (size_t i = 0; i < L.nu; i++)
            res += L.wv[i] * jtab_J(&T, cav, e0, L.uv[i] / mu, work);
    } else {
        jctx C = {cav, &L, &T, e0, work};
        double lo = fmax(0, L.lo), hi = storq_cl_law_cut(&L);
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
        cl_sort_doubles(pts, (size_t)np);
        double tol = 1e-8 * (jtab_J(&T, cav, e0, 0, work) + chunk->mean / mu);
        res = adapt_global(&C, pts, np, tol);
    }
    storq_cl_law_free(&L);
    jtab_free(&T);
    return res;
}
