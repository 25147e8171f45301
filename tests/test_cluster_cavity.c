/* The cavity queue and product form of the `cluster` model: kernels/cluster_cavity.[ch].
 * Numerical results against closed forms (M/M/1, M/D/1, Pollaczek-Khinchine), exact identities of
 * the blocks law, and fixed-seed Monte Carlo where no closed form exists. Every tolerance is
 * justified where it is used. The measured values are printed ("measured: ...") so that the numbers
 * in docs/models/cluster-theory.md can be re-checked. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "cluster/cavity.h"
#include "cluster_laws.h"
#include "distribution.h"
#include "rng.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void moments(const double *px, size_t xmax, double *m0, double *m1, double *m2)
{
    *m0 = *m1 = *m2 = 0;
    for (size_t x = 0; x <= xmax; x++) {
        *m0 += px[x];
        *m1 += (double)x * px[x];
        *m2 += (double)x * (double)x * px[x];
    }
}

/* int_0^L (1 - W): the exact integral of the piecewise-linear interpolant (trapezoid on nodes). */
static double grid_mean(const cl_cavity *cav)
{
    double s = 0;
    for (size_t j = 0; j + 1 < cav->npoints; j++)
        s += (2 - cav->cdf[j] - cav->cdf[j + 1]) / 2;
    return s * cav->h;
}

static double grid_len(const cl_cavity *cav)
{
    return (double)(cav->npoints - 1) * cav->h;
}

/* ------------------------------------------------------------------------------------------------
 */
/* (a) exponential chunks, every request of at most m blocks: M/M/1 */
/* ------------------------------------------------------------------------------------------------
 */

static void test_mm1(void)
{
    /* size uniform:1,8 on m = 10 servers: X = 1 w.p. E[k]/m = 0.45, else 0. Chunks exp:RATE bits,
     * server rate mu: the cavity queue is M/M/1 with arrival rate l = lambda E[X] and service rate
     * s = mu RATE (a chunk takes c / mu ~ Exp(mu RATE) time units). */
    storq_ddist sz = ddist("uniform:1,8");
    size_t xmax;
    double *px = storq_cl_cavity_blocks_law(&sz, 10, &xmax);
    CHECK(px != NULL && xmax == 1);
    const double rate = 2, mu = 3;
    storq_dist c = cdist("exp:2");
    const double rhos[3] = {0.3, 0.7, 0.9};
    const double tols[2] = {1e-4, 1e-6};
    for (int i = 0; i < 3; i++)
        for (int t = 0; t < 2; t++) {
            double s = mu * rate, l = rhos[i] * s, lambda = l / px[1];
            cl_cavity cav;
            double t0 = now();
            int rc = storq_cl_cavity_solve(lambda, mu, px, xmax, &c, tols[t], &cav);
            double dt = now() - t0;
            CHECK(rc == 0);
            if (rc != 0)
                continue;
            CHECK_NEAR(cav.rho, rhos[i], 1e-14);
            /* On the grid: the true error of the returned solution must be within the reported
             * error (an estimate from the h vs h/2 difference, about 3x the true error for a
             * second-order scheme) and the reported error within the request. */
            double emax = 0;
            for (size_t j = 0; j < cav.npoints; j++)
                emax =
                    fmax(emax, fabs(cav.cdf[j] - storq_cl_cavity_mm1_cdf(l, s, (double)j * cav.h)));
            CHECK(emax <= cav.error);
            CHECK(cav.error <= tols[t]);
            /* Between the nodes (storq_cl_cavity_cdf interpolates linearly): add the interpolation
             * error h^2/8 max|W''| = h^2/8 rho gamma^2 (W'' = -rho gamma^2 e^{-gamma w}). */
            double g = s - l, imax = 0;
            for (size_t j = 0; j + 1 < cav.npoints; j += 7) {
                double w = ((double)j + 0.5) * cav.h;
                imax = fmax(imax,
                            fabs(storq_cl_cavity_cdf(&cav, w) - storq_cl_cavity_mm1_cdf(l, s, w)));
            }
            CHECK(imax <= cav.error + cav.h * cav.h / 8 * rhos[i] * g * g);
            /* Beyond the grid the cdf is 1: the tail there is below tol / 2 by construction. */
            double Lg = grid_len(&cav);
            CHECK(1 - storq_cl_cavity_mm1_cdf(l, s, Lg) <= tols[t] / 2 + cav.error);
            printf("measured: mm1 rho=%.2f tol=%.0e: N=%zu h=%.4g L=%.4g reported=%.3g "
                   "actual(grid)=%.3g actual(mid)=%.3g time=%.3fs\n",
                   rhos[i], tols[t], cav.npoints, cav.h, Lg, cav.error, emax, imax, dt);
            storq_cl_cavity_free(&cav);
        }
    /* Heavy traffic, rho = 0.999: a grid of ~5.8e5 points (the tail decays at rate s - l), cheap
     * because the exponential kernel is cut after ~40 E[B]. Same checks on the grid. */
    {
        double s = mu * rate, l = 0.999 * s;
        cl_cavity cav;
        double t0 = now();
        CHECK(storq_cl_cavity_solve(l / px[1], mu, px, xmax, &c, 1e-6, &cav) == 0);
        double dt = now() - t0, emax = 0;
        for (size_t j = 0; j < cav.npoints; j++)
            emax = fmax(emax, fabs(cav.cdf[j] - storq_cl_cavity_mm1_cdf(l, s, (double)j * cav.h)));
        CHECK(emax <= cav.error && cav.error <= 1e-6);
        printf("measured: mm1 rho=0.999 tol=1e-06: N=%zu h=%.4g L=%.4g reported=%.3g "
               "actual(grid)=%.3g time=%.3fs\n",
               cav.npoints, cav.h, grid_len(&cav), cav.error, emax, dt);
        storq_cl_cavity_free(&cav);
    }
    free(px);
    storq_dist_free(&c);
    storq_ddist_free(&sz);
}

/* ------------------------------------------------------------------------------------------------
 */
/* (b) deterministic work: M/D/1 */
/* ------------------------------------------------------------------------------------------------
 */

/* Erlang's M/D/1 workload cdf: P(V <= w) = (1 - rho) sum_{j=0}^{floor(w/D)} (L(jD - w))^j / j!
 * e^{-L(jD - w)}. It solves W' = L (W(w) - W(w - D)) with W = (1 - rho) e^{Lw} on [0, D) (the
 * renewal equation with P(B > y) = 1{y < D}) and is continuous at every jD; the terms alternate in
 * sign, so it is summed in long double and only used for w <= 8 D, where the largest term is
 * below ~e^{L w} <= e^{8 rho} (at most 2e2 here): rounding ~2e2 * 1e-19. */
static double md1_cdf(double L, double D, double w)
{
    long double s = 0;
    double rho = L * D;
    for (int j = 0; j <= (int)floor(w / D); j++) {
        long double a = (long double)L * ((long double)j * D - w);
        s += powl(a, j) / tgammal(j + 1) * expl(-a);
    }
    return (double)((1 - (long double)rho) * s);
}

static void test_md1(void)
{
    /* fixed:3 on m = 10: X = 1 w.p. 0.3, else 0; det:2 bits at mu = 1: B = 2 time units. */
    storq_ddist sz = ddist("fixed:3");
    size_t xmax;
    double *px = storq_cl_cavity_blocks_law(&sz, 10, &xmax);
    storq_dist c = cdist("det:2");
    const double rhos[2] = {0.5, 0.8};
    for (int i = 0; i < 2; i++) {
        double D = 2, Lam = rhos[i] / D, lambda = Lam / px[1];
        cl_cavity cav;
        double t0 = now();
        int rc = storq_cl_cavity_solve(lambda, 1, px, xmax, &c, 1e-6, &cav);
        double dt = now() - t0;
        CHECK(rc == 0);
        if (rc != 0)
            continue;
        /* The atom: W_0 = 1 - rho is the first value of the march, exactly up to rounding. */
        CHECK_NEAR(cav.cdf[0], 1 - rhos[i], 1e-15);
        /* Erlang's formula on the grid, w <= 8D. */
        double emax = 0;
        for (size_t j = 0; j < cav.npoints && (double)j * cav.h <= 8 * D; j++)
            emax = fmax(emax, fabs(cav.cdf[j] - md1_cdf(Lam, D, (double)j * cav.h)));
        CHECK(emax <= cav.error + 1e-15);
        /* Pollaczek-Khinchine: E[V] = Lam E[B^2] / (2 (1 - rho)). The grid mean differs from it
         * by at most L max|W_num - W| <= L error, plus the part beyond the grid,
         * int_L^inf (1 - W) <= (1 - W(L)) L for an exponentially decaying tail whose decay length
         * is below L (1 - W(L) < tol / 2 forces L >= log(2 / tol) decay lengths). */
        double pk = Lam * D * D / (2 * (1 - rhos[i]));
        double m = grid_mean(&cav), Lg = grid_len(&cav);
        double allow = Lg * cav.error + (1 - cav.cdf[cav.npoints - 1]) * Lg;
        CHECK_NEAR(m, pk, allow);
        printf("measured: md1 rho=%.2f: N=%zu h=%.4g reported=%.3g actual(erlang, w<=8D)=%.3g "
               "mean=%.10g pk=%.10g diff=%.3g allow=%.3g time=%.3fs\n",
               rhos[i], cav.npoints, cav.h, cav.error, emax, m, pk, fabs(m - pk), allow, dt);
        storq_cl_cavity_free(&cav);
    }
    free(px);
    storq_dist_free(&c);
    storq_ddist_free(&sz);
}

/* Pollaczek-Khinchine mean for every chunk law, with a spread-out X (geom sizes, few servers). */
static char trace_path[64];

static void test_pk_all_laws(void)
{
    const char *laws[] = {"exp:1",           "det:1",
                          "shexp:0.5,2",     "uniform:0.2,1.8",
                          "erlang:3,3",      "hyperexp:0.9,3,0.1,0.3333333333333333",
                          "pareto:4.5,1",    trace_path};
    const double kappa[] = {1, 1, 1, 1, 1, 1, 1 / (4.5 - 2), 1};
    storq_ddist sz = ddist("geom:0.25"); /* E[k] = 4 */
    const unsigned m = 3;
    size_t xmax;
    double *px = storq_cl_cavity_blocks_law(&sz, m, &xmax);
    double m0, m1, m2;
    moments(px, xmax, &m0, &m1, &m2);
    for (size_t i = 0; i < sizeof laws / sizeof laws[0]; i++) {
        storq_dist c = cdist(laws[i]);
        double Ec = c.mean, Ec2 = c.var + c.mean * c.mean, mu = 1.5, rho = 0.6;
        double lambda = rho * mu / (m1 * Ec);
        cl_cavity cav;
        double t0 = now();
        int rc = storq_cl_cavity_solve(lambda, mu, px, xmax, &c, 1e-6, &cav);
        double dt = now() - t0;
        CHECK(rc == 0);
        if (rc != 0) {
            storq_dist_free(&c);
            continue;
        }
        /* E[V] = lambda E[B^2] / (2 (1 - rho)), B = c X / mu (X = 0 included: it adds nothing). */
        double pk = lambda * Ec2 * m2 / (mu * mu) / (2 * (1 - rho));
        double mgrid = grid_mean(&cav), Lg = grid_len(&cav);
        /* As in test_md1; for pareto the tail beyond L decays like y^-(ALPHA - 1) (the integrated
         * tail of B), so int_L^inf (1 - W) ~ (1 - W(L)) L / (ALPHA - 2): kappa = 1 / (ALPHA - 2).
         */
        double allow = Lg * cav.error + (1 - cav.cdf[cav.npoints - 1]) * Lg * kappa[i];
        CHECK_NEAR(mgrid, pk, allow);
        CHECK(cav.error <= 1e-6);
        printf("measured: pk %-40s N=%6zu h=%.4g reported=%.3g mean=%.8g pk=%.8g diff=%.3g "
               "allow=%.3g time=%.3fs\n",
               laws[i], cav.npoints, cav.h, cav.error, mgrid, pk, fabs(mgrid - pk), allow, dt);
        storq_cl_cavity_free(&cav);
        storq_dist_free(&c);
    }
    free(px);
    storq_ddist_free(&sz);
}

/* Fixed-seed Monte Carlo of the cavity queue itself (Lindley recursion for the workload found by
 * Poisson arrivals, which by PASTA has the stationary law of V), where no closed form exists:
 * shexp chunks and a two-point X (linear regime). */
static void test_lindley_mc(void)
{
    storq_ddist sz = ddist("pmf:2=0.5,13=0.5");
    const unsigned m = 5; /* k = 2: X in {0,1}; k = 13 = 2*5 + 3: X = 3 w.p. 0.6, 2 w.p. 0.4 */
    size_t xmax;
    double *px = storq_cl_cavity_blocks_law(&sz, m, &xmax);
    storq_dist c = cdist("shexp:0.3,2");
    double m0, m1, m2, mu = 2, rho = 0.75;
    moments(px, xmax, &m0, &m1, &m2);
    double lambda = rho * mu / (m1 * c.mean);
    cl_cavity cav;
    CHECK(storq_cl_cavity_solve(lambda, mu, px, xmax, &c, 1e-6, &cav) == 0);
    /* px as an inverse-cdf table. */
    storq_rng rng;
    storq_rng_seed(&rng, 20240611u, 7u);
    const int nb = 40;
    const long per = 100000, warm = 20000;
    const double ws[4] = {0.25, 1, 3, 8};
    double bsum[4][40], bmean[40];
    double W = 0;
    for (long n = -warm; n < (long)nb * per; n++) {
        if (n >= 0) {
            int b = (int)(n / per);
            if (n % per == 0) {
                for (int q = 0; q < 4; q++)
                    bsum[q][b] = 0;
                bmean[b] = 0;
            }
            for (int q = 0; q < 4; q++)
                bsum[q][b] += W <= ws[q];
            bmean[b] += W;
        }
        double u = storq_rng_uniform(&rng), acc = 0;
        size_t x = 0;
        while (x < xmax && u >= acc + px[x])
            acc += px[x++];
        double B = storq_dist_sample(&c, &rng) * (double)x / mu;
        W = fmax(W + B - storq_rng_exp(&rng, lambda), 0);
    }
    /* Batch means: 40 batches of 1e5 arrivals (each batch >> the relaxation time of the queue,
     * ~ E[B^2]/E[B]/(1 - rho)^2 ~ 50 arrivals), so batches are nearly independent; allow 4.5
     * standard errors (a fixed seed: the result is deterministic, and 4.5 SE would be exceeded by
     * chance with probability ~1e-5 per check for a correct solver) plus the solver's error. */
    for (int q = 0; q < 5; q++) {
        double s = 0, ss = 0;
        for (int b = 0; b < nb; b++) {
            double v = q < 4 ? bsum[q][b] / per : bmean[b] / per;
            s += v;
            ss += v * v;
        }
        double mean = s / nb, se = sqrt((ss / nb - mean * mean) / (nb - 1));
        double num = q < 4 ? storq_cl_cavity_cdf(&cav, ws[q]) : grid_mean(&cav);
        double allow = 4.5 * se + (q < 4 ? cav.error : grid_len(&cav) * cav.error);
        CHECK_NEAR(num, mean, allow);
        if (q < 4)
            printf("measured: lindley P(V<=%g): numeric=%.6f mc=%.6f se=%.2g\n", ws[q], num, mean,
                   se);
        else
            printf("measured: lindley E[V]: numeric=%.6f mc=%.6f se=%.2g\n", num, mean, se);
    }
    storq_cl_cavity_free(&cav);
    free(px);
    storq_dist_free(&c);
    storq_ddist_free(&sz);
}

/* ------------------------------------------------------------------------------------------------
 */
/* (c) the blocks law */
/* ------------------------------------------------------------------------------------------------
 */

static void test_blocks_law(void)
{
    const struct {
        const char *spec;
        unsigned m;
    } cases[] = {{"fixed:1", 10},     {"fixed:7", 10},   {"fixed:10", 10},   {"fixed:20", 10},
                 {"fixed:23", 10},    {"uniform:1,40", 7}, {"binom:50,0.3", 8}, {"geom:0.05", 6},
                 {"geom:1", 4},       {"pmf:1=0.2,5=0.3,17=0.5", 4}, {"uniform:1,8", 10}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        storq_ddist sz = ddist(cases[i].spec);
        size_t xmax;
        double *px = storq_cl_cavity_blocks_law(&sz, cases[i].m, &xmax);
        CHECK(px != NULL);
        if (!px)
            continue;
        double m0, m1, m2;
        moments(px, xmax, &m0, &m1, &m2);
        /* Mass 1 and E[X] = E[k]/m (the m servers' X sum to k, exchangeable): exact identities, so
         * only rounding is allowed: a sum of <= 1e3 terms, relative 1e-13. geom: the truncated
         * mass (< 1e-15, folded into the largest X) moves E[X] by < 1e-15 E[X | k > K] <<
         * 1e-13. */
        CHECK_NEAR(m0, 1, 1e-13);
        CHECK_NEAR(m1, sz.mean / cases[i].m, 1e-13 * (1 + sz.mean));
        CHECK(px[xmax] > 0);
        for (size_t x = 0; x <= xmax; x++)
            CHECK(px[x] >= 0);
        printf("measured: blocks %s m=%u: xmax=%zu sum-1=%.2g E[X]-E[k]/m=%.2g\n", cases[i].spec,
               cases[i].m, xmax, m0 - 1, m1 - sz.mean / cases[i].m);
        free(px);
        storq_ddist_free(&sz);
    }
    /* Linear regime k = 2m + 3 = 23, m = 10: q = 2, k' = 3: X = 3 w.p. 0.3, 2 w.p. 0.7. */
    storq_ddist sz = ddist("fixed:23");
    size_t xmax;
    double *px = storq_cl_cavity_blocks_law(&sz, 10, &xmax);
    CHECK(xmax == 3);
    CHECK_NEAR(px[3], 0.3, 1e-15);
    CHECK_NEAR(px[2], 0.7, 1e-15);
    CHECK(px[0] == 0 && px[1] == 0);
    free(px);
    storq_ddist_free(&sz);
    /* k = q m exactly: X = q surely. */
    sz = ddist("fixed:20");
    px = storq_cl_cavity_blocks_law(&sz, 10, &xmax);
    CHECK(xmax == 2 && px[2] == 1 && px[0] == 0 && px[1] == 0);
    free(px);
    storq_ddist_free(&sz);
    /* Logarithmic regime k = 3 < m = 10: X = 1 w.p. 0.3. */
    sz = ddist("fixed:3");
    px = storq_cl_cavity_blocks_law(&sz, 10, &xmax);
    CHECK(xmax == 1);
    CHECK_NEAR(px[1], 0.3, 1e-15);
    CHECK_NEAR(px[0], 0.7, 1e-15);
    free(px);
    storq_ddist_free(&sz);
}

/* ------------------------------------------------------------------------------------------------
 */
/* (d) the product form */
/* ------------------------------------------------------------------------------------------------
 */

/* E_c[(1 - rho e^{-g (x - c/mu)})^k 1{c <= mu x}], c/mu ~ Exp(s), g = s - l: binomial expansion,
 * sum_j C(k,j) (-rho)^j s (e^{-j g x} - e^{-s x}) / (s - j g) (s x e^{-s x} when j g = s). */
static double pf_mm1(double l, double s, unsigned k, double x)
{
    long double r = 0, rho = (long double)l / s, g = (long double)s - l, C = 1;
    for (unsigned j = 0; j <= k; j++) {
        long double t = j * g, d = s - t, v;
        if (fabsl(d) < 1e-12L * s)
            v = s * x * expl(-(long double)s * x);
        else
            v = s * expl(-t * x) * -expm1l(-d * x) / d;
        r += C * powl(-rho, j) * v;
        C = C * (k - j) / (j + 1);
    }
    return (double)r;
}

/* int_0^X (1 - cdf(x)) dx by composite 5-point Gauss-Legendre on n and 2n equal panels between the
 * sorted breakpoints bp (where the cdf may jump: for a det chunk, where an argument of F crosses 0
 * or the grid end). Returns the finer value; *diff = |fine - coarse|, an error bound for the coarse
 * one and, since the rule converges at least linearly (kinks of the interpolated F), a bound for
 * the finer one too. */
static double direct_mean(const cl_cavity *cav, unsigned k, unsigned m, const storq_dist *c,
                          double X, const double *bp, int nbp, int n, double *diff)
{
    static const double gx[5] = {-0.9061798459386640, -0.5384693101056831, 0,
                                 0.5384693101056831, 0.9061798459386640};
    static const double gw[5] = {0.2369268850561891, 0.4786286704993665, 0.5688888888888889,
                                 0.4786286704993665, 0.2369268850561891};
    double pts[64];
    int np = 0;
    pts[np++] = 0;
    for (int i = 0; i < nbp && np < 63; i++)
        if (bp[i] > 0 && bp[i] < X)
            pts[np++] = bp[i];
    pts[np++] = X;
    for (int i = 1; i < np; i++) /* insertion sort */
        for (int j = i; j > 0 && pts[j] < pts[j - 1]; j--) {
            double t = pts[j];
            pts[j] = pts[j - 1];
            pts[j - 1] = t;
        }
    double t[2];
    for (int r = 0; r < 2; r++) {
        int nn = n << r;
        double sum = 0;
        for (int p = 0; p + 1 < np; p++) {
            double a = pts[p], b = pts[p + 1];
            if (!(b > a))
                continue;
            int panels = (int)ceil(nn * (b - a) / X);
            double w = (b - a) / panels;
            for (int i = 0; i < panels; i++) {
                double mid = a + (i + 0.5) * w;
                for (int g = 0; g < 5; g++)
                    sum += gw[g] * w / 2 *
                           (1 - storq_cl_product_form_cdf(cav, k, m, c, mid + w / 2 * gx[g]));
            }
        }
        t[r] = sum;
    }
    *diff = fabs(t[1] - t[0]);
    return t[1];
}

/* Where the product-form cdf of a det chunk c jumps: an argument x - c s/mu of F crosses 0 or the
 * grid end, s in {q, q+1}. */
static int det_jumps(const cl_cavity *cav, unsigned k, unsigned m, double c, double *bp)
{
    unsigned q = k <= m ? 0 : k / m;
    double Lend = (double)(cav->npoints - 1) * cav->h;
    int n = 0;
    for (unsigned s = q; s <= q + 1; s++) {
        bp[n++] = c * s / cav->mu;
        bp[n++] = Lend + c * s / cav->mu;
    }
    return n;
}

static void test_product_form(void)
{
    /* M/M/1 cavity queue: size uniform:1,8 on m = 10, exp chunks. */
    storq_ddist sz = ddist("uniform:1,8");
    size_t xmax;
    double *px = storq_cl_cavity_blocks_law(&sz, 10, &xmax);
    storq_dist ce = cdist("exp:2"), cd = cdist("det:0.5"), cs = cdist("shexp:0.2,4");
    const double mu = 3, rate = 2, s = mu * rate, rho = 0.7, l = rho * s;
    cl_cavity cav;
    CHECK(storq_cl_cavity_solve(l / px[1], mu, px, xmax, &ce, 1e-7, &cav) == 0);
    double g = s - l;
    /* Interpolation error of F between nodes: h^2/8 rho g^2 (see test_mm1). */
    double ferr = cav.error + cav.h * cav.h / 8 * rho * g * g;

    /* k = 1, det chunk: the product form is F(x - c/mu) itself. */
    for (double x = 0; x < 4; x += 0.0373)
        CHECK_NEAR(storq_cl_product_form_cdf(&cav, 1, 10, &cd, x),
                   storq_cl_cavity_cdf(&cav, x - 0.5 / mu), 1e-15);
    /* k = 1, exp chunk: V + c/mu is the M/M/1 sojourn time, Exp(s - l). k <= m, k = 1..5: the
     * closed form pf_mm1. |a^k - b^k| <= k |a - b| for a, b in [0, 1], so the allowance is
     * k (F's error on and between the nodes) + 1e-10 for the c-quadrature (GL5 on panels no wider
     * than 1/RATE: ~1e-12 relative). */
    double worst[6] = {0};
    double t0 = now();
    int nev = 0;
    for (unsigned k = 1; k <= 5; k++)
        for (double x = 0; x < 6; x += 0.0517) {
            double v = storq_cl_product_form_cdf(&cav, k, 10, &ce, x);
            double ref = k == 1 ? 1 - exp(-g * x) : pf_mm1(l, s, k, x);
            CHECK_NEAR(v, ref, k * ferr + 1e-10);
            CHECK_NEAR(pf_mm1(l, s, k, x), ref, 1e-12);
            worst[k] = fmax(worst[k], fabs(v - ref));
            nev++;
        }
    double dt = now() - t0;
    printf("measured: product form vs M/M/1 closed form (F error %.3g): k=1..5 max diff "
           "%.3g %.3g %.3g %.3g %.3g; %.2f ms per cdf (N=%zu)\n",
           ferr, worst[1], worst[2], worst[3], worst[4], worst[5], 1e3 * dt / nev, cav.npoints);

    /* Monotone in x (it is a cdf), for every regime and chunk law. */
    const storq_dist *laws[3] = {&ce, &cd, &cs};
    const unsigned ks[4] = {1, 4, 23, 30};
    for (int li = 0; li < 3; li++)
        for (int ki = 0; ki < 4; ki++) {
            double prev = 0;
            int ok = 1;
            for (double x = 0; x < 8; x += 0.0491) {
                double v = storq_cl_product_form_cdf(&cav, ks[ki], 10, laws[li], x);
                if (v < prev - 1e-13 || v < 0 || v > 1)
                    ok = 0;
                prev = fmax(prev, v);
            }
            CHECK(ok);
            CHECK(prev > 0.999); /* and it reaches 1 */
        }

    /* Means. k = 1: E[V] + E[c]/mu = 1/(s - l) (the M/M/1 sojourn mean); the grid's error and
     * the tail beyond it allow L error + (1 - W(L)) L (as in test_md1). */
    double Lg = grid_len(&cav);
    double m1 = storq_cl_product_form_mean(&cav, 1, 10, &ce);
    CHECK_NEAR(m1, 1 / g, Lg * cav.error + (1 - cav.cdf[cav.npoints - 1]) * Lg);
    printf("measured: product form mean k=1: %.10g vs 1/(s-l)=%.10g diff=%.3g\n", m1, 1 / g,
           fabs(m1 - 1 / g));
    storq_cl_cavity_free(&cav);

    /* Mean vs the direct integral of 1 - cdf, for the three regimes (k <= m; k = q m; k > m with
     * k' > 0, the chunk-dependent case) and the three chunk laws, on a cavity solved to 1e-6 (so
     * that the direct integral stays cheap). Both integrate the same interpolated F, so they agree
     * up to the error of the direct rule (its n vs 2n difference d, doubled), the cut of the
     * direct integral at X = 12 (12 (1 - cdf(12))) and the mean's own quadratures (GL3 per grid
     * cell with a kink of F(y + s) inside: O(h^2), and the c-quadrature to 1e-9 relative):
     * 1e-7 covers them (measured differences are printed). */
    CHECK(storq_cl_cavity_solve(l / px[1], mu, px, xmax, &ce, 1e-6, &cav) == 0);
    const struct {
        const storq_dist *c;
        unsigned k;
    } mc[] = {{&ce, 4}, {&ce, 23}, {&cd, 1}, {&cd, 23}, {&cs, 30}, {&cs, 23}};
    for (size_t i = 0; i < sizeof mc / sizeof mc[0]; i++) {
        double t1 = now();
        double pm = storq_cl_product_form_mean(&cav, mc[i].k, 10, mc[i].c);
        double tm = now() - t1;
        double bp[4], d;
        int nbp = mc[i].c == &cd ? det_jumps(&cav, mc[i].k, 10, 0.5, bp) : 0;
        double dm = direct_mean(&cav, mc[i].k, 10, mc[i].c, 12, bp, nbp, 100, &d);
        double cut = 12 * (1 - storq_cl_product_form_cdf(&cav, mc[i].k, 10, mc[i].c, 12));
        CHECK(isfinite(pm) && pm > 0);
        CHECK_NEAR(pm, dm, 2 * d + 1e-7 + cut);
        printf("measured: product form mean %-12s k=%2u m=10: %.10g direct=%.10g diff=%.3g "
               "(direct n vs 2n: %.2g) time=%.1f ms (N=%zu)\n",
               mc[i].c->spec, mc[i].k, pm, dm, fabs(pm - dm), d, 1e3 * tm, cav.npoints);
    }
    storq_cl_cavity_free(&cav);

    /* k > m with a continuous chunk law: Monte Carlo of the product form itself (independent
     * workloads V_i ~ F drawn by inverse cdf from the grid, one chunk c ~ shexp shared by the
     * request), against storq_cl_product_form_cdf. Linear regime, k = 13 on m = 5 (X in {2, 3}).
     * 4.5 binomial standard errors, fixed seed. */
    storq_ddist sz2 = ddist("fixed:13");
    size_t xm2;
    double *px2 = storq_cl_cavity_blocks_law(&sz2, 5, &xm2);
    double mm0, mm1, mm2, mu2 = 4;
    moments(px2, xm2, &mm0, &mm1, &mm2);
    cl_cavity cav2;
    CHECK(storq_cl_cavity_solve(0.6 * mu2 / (mm1 * cs.mean), mu2, px2, xm2, &cs, 1e-7, &cav2) == 0);
    storq_rng rng;
    storq_rng_seed(&rng, 987654321u, 3u);
    const int n = 200000;
    const double xs[4] = {0.8, 1.2, 1.8, 3};
    int cnt[4] = {0};
    double dsum = 0, dsum2 = 0;
    for (int i = 0; i < n; i++) {
        double c = storq_dist_sample(&cs, &rng), d = 0;
        for (unsigned srv = 0; srv < 5; srv++) {
            /* inverse cdf of the piecewise-linear F */
            double u = storq_rng_uniform(&rng), v;
            if (u <= cav2.cdf[0]) {
                v = 0;
            } else if (u >= cav2.cdf[cav2.npoints - 1]) {
                v = grid_len(&cav2);
            } else {
                size_t lo = 0, hi = cav2.npoints - 1;
                while (hi - lo > 1) {
                    size_t mid = (lo + hi) / 2;
                    if (cav2.cdf[mid] < u)
                        lo = mid;
                    else
                        hi = mid;
                }
                double f = (u - cav2.cdf[lo]) / (cav2.cdf[hi] - cav2.cdf[lo]);
                v = ((double)lo + f) * cav2.h;
            }
            unsigned blocks = srv < 3 ? 3 : 2; /* k' = 3 servers with q + 1 = 3 blocks */
            d = fmax(d, v + c * blocks / mu2);
        }
        dsum += d;
        dsum2 += d * d;
        for (int q = 0; q < 4; q++)
            cnt[q] += d <= xs[q];
    }
    for (int q = 0; q < 4; q++) {
        double p = (double)cnt[q] / n, se = sqrt(fmax(p * (1 - p), 1e-12) / n);
        double v = storq_cl_product_form_cdf(&cav2, 13, 5, &cs, xs[q]);
        CHECK_NEAR(v, p, 4.5 * se + 5 * cav2.error);
        printf("measured: product form k=13 m=5 shexp P(D<=%g): %.6f mc=%.6f se=%.2g\n", xs[q], v,
               p, se);
    }
    double pm = storq_cl_product_form_mean(&cav2, 13, 5, &cs), dm = dsum / n;
    double dse = sqrt((dsum2 / n - dm * dm) / n);
    /* The MC draws V from the interpolated F capped at the grid end, as the product form uses it:
     * 4.5 standard errors plus the grid's error times the grid length (a bound on the mean's
     * sensitivity to F). */
    CHECK_NEAR(pm, dm, 4.5 * dse + grid_len(&cav2) * cav2.error);
    printf("measured: product form k=13 m=5 shexp mean %.6f mc=%.6f se=%.2g\n", pm, dm, dse);
    storq_cl_cavity_free(&cav2);
    free(px2);
    storq_ddist_free(&sz2);

    free(px);
    storq_dist_free(&ce);
    storq_dist_free(&cd);
    storq_dist_free(&cs);
    storq_ddist_free(&sz);
}

/* ------------------------------------------------------------------------------------------------
 */
/* (e) accuracy control, refusals */
/* ------------------------------------------------------------------------------------------------
 */

static void test_error_control(void)
{
    storq_ddist sz = ddist("uniform:1,8");
    size_t xmax;
    double *px = storq_cl_cavity_blocks_law(&sz, 10, &xmax);
    storq_dist c = cdist("exp:1");
    const double l = 0.8, s = 1;
    double prev = INFINITY;
    for (double tol = 1e-3; tol >= 0.99e-7; tol /= 10) {
        cl_cavity cav;
        double t0 = now();
        CHECK(storq_cl_cavity_solve(l / px[1], 1, px, xmax, &c, tol, &cav) == 0);
        double dt = now() - t0;
        double emax = 0;
        for (size_t j = 0; j < cav.npoints; j++)
            emax = fmax(emax, fabs(cav.cdf[j] - storq_cl_cavity_mm1_cdf(l, s, (double)j * cav.h)));
        /* Within the request, the true error within the estimate, and the estimate shrinking with
         * the request: strictly once the request is below what the starting grid (h = E[B]/32)
         * already achieves (~1.2e-5 here), so from 1e-5 on. */
        CHECK(cav.error <= tol);
        CHECK(tol < 2e-5 ? cav.error < prev : cav.error <= 1.1 * prev);
        CHECK(emax <= cav.error);
        printf("measured: tol=%.0e rho=0.8: reported=%.3g actual=%.3g N=%zu h=%.4g time=%.3fs\n",
               tol, cav.error, emax, cav.npoints, cav.h, dt);
        prev = cav.error;
        storq_cl_cavity_free(&cav);
    }
    /* rho >= 1 is refused. */
    cl_cavity cav;
    CHECK(storq_cl_cavity_solve(1.0 / px[1], 1, px, xmax, &c, 1e-6, &cav) == -1);
    CHECK(storq_cl_cavity_solve(1.2 / px[1], 1, px, xmax, &c, 1e-6, &cav) == -1);
    storq_dist_free(&c);
    /* Heavy tails. pareto ALPHA = 1.5: V has an infinite mean and P(V > w) ~ w^-0.5; the level
     * tol / 2 = 5e-7 is out of reach, so the solver settles for a higher tail level and reports it
     * in `error` (the mass beyond the grid, where storq_cl_cavity_cdf says 1). */
    c = cdist("pareto:1.5,1");
    double t0 = now();
    CHECK(storq_cl_cavity_solve(0.5 / px[1], 1, px, xmax, &c, 1e-6, &cav) == 0);
    CHECK(cav.error > 1e-6);
    CHECK(1 - cav.cdf[cav.npoints - 1] <= cav.error);
    printf("measured: pareto:1.5 rho=0.5 tol=1e-6: accepted with error %.3g (tail beyond the "
           "grid %.3g), N=%zu, %.2fs\n",
           cav.error, 1 - cav.cdf[cav.npoints - 1], cav.npoints, now() - t0);
    storq_cl_cavity_free(&cav);
    storq_dist_free(&c);
    /* pareto ALPHA = 1.05: P(V > w) ~ w^-0.05 cannot reach even 1e-2: refused. */
    c = cdist("pareto:1.05,1");
    t0 = now();
    CHECK(storq_cl_cavity_solve(0.5 / px[1], 1, px, xmax, &c, 1e-6, &cav) == -1);
    printf("measured: pareto:1.05 refused in %.2fs\n", now() - t0);
    storq_dist_free(&c);
    /* No work at all: V = 0. */
    c = cdist("det:0");
    CHECK(storq_cl_cavity_solve(0.5, 1, px, xmax, &c, 1e-6, &cav) == 0);
    CHECK(cav.npoints >= 1 && storq_cl_cavity_cdf(&cav, 0) == 1 &&
          storq_cl_cavity_cdf(&cav, -1) == 0);
    storq_cl_cavity_free(&cav);
    storq_dist_free(&c);
    /* M/M/1 closed form itself. */
    CHECK_NEAR(storq_cl_cavity_mm1_cdf(0.5, 1, 0), 0.5, 1e-15);
    CHECK_NEAR(storq_cl_cavity_mm1_cdf(0.5, 1, 2), 1 - 0.5 * exp(-1), 1e-15);
    CHECK(storq_cl_cavity_mm1_cdf(0.5, 1, -1) == 0);
    free(px);
    storq_ddist_free(&sz);
}

/* A trace law with an atom at 0 (a zero-size chunk brings no work) through the whole chain. */
static void test_trace(void)
{
    storq_ddist sz = ddist("fixed:13");
    size_t xmax;
    double *px = storq_cl_cavity_blocks_law(&sz, 5, &xmax);
    storq_dist c = cdist(trace_path);
    double m0, m1, m2, mu = 1, rho = 0.5;
    moments(px, xmax, &m0, &m1, &m2);
    cl_cavity cav;
    CHECK(storq_cl_cavity_solve(rho * mu / (m1 * c.mean), mu, px, xmax, &c, 1e-6, &cav) == 0);
    double d, pm = storq_cl_product_form_mean(&cav, 13, 5, &c);
    /* The cdf jumps where x - a s / mu crosses 0 or the grid end, a an atom of the trace
     * (0, 0.5, 1, 1.5, 2.5), s in {2, 3} blocks: 20 breakpoints for the direct rule. */
    const double atoms[5] = {0, 0.5, 1, 1.5, 2.5};
    double bp[20];
    int nbp = 0;
    for (int a = 0; a < 5; a++)
        for (int sb = 2; sb <= 3; sb++) {
            bp[nbp++] = atoms[a] * sb / mu;
            bp[nbp++] = grid_len(&cav) + atoms[a] * sb / mu;
        }
    double dm = direct_mean(&cav, 13, 5, &c, 80, bp, nbp, 200, &d);
    double cut = 80 * (1 - storq_cl_product_form_cdf(&cav, 13, 5, &c, 80));
    CHECK_NEAR(pm, dm, 2 * d + 1e-7 + cut);
    printf("measured: trace k=13 m=5 mean %.8g direct %.8g diff %.3g (direct n vs 2n: %.2g, "
           "cut %.2g)\n", pm, dm, fabs(pm - dm), d, cut);
    storq_cl_cavity_free(&cav);
    storq_dist_free(&c);
    free(px);
    storq_ddist_free(&sz);
}

int main(void)
{
    /* The trace file for the trace law: values with repeats and a zero. */
    snprintf(trace_path, sizeof trace_path, "trace:/tmp/storq_cavity_trace_%ld.txt",
             (long)getpid());
    FILE *f = fopen(trace_path + 6, "w");
    if (!f)
        return 2;
    fputs("# chunk sizes\n0\n0.5\n1\n1\n1.5\n2.5\n0.5\n1\n", f);
    fclose(f);

    double t0 = now();
    void (*tests[])(void) = {test_mm1,          test_md1,       test_pk_all_laws,  test_lindley_mc,
                             test_blocks_law,   test_product_form, test_error_control, test_trace};
    const char *names[] = {"mm1", "md1", "pk_all_laws", "lindley_mc", "blocks_law",
                           "product_form", "error_control", "trace"};
    for (size_t i = 0; i < sizeof tests / sizeof tests[0]; i++) {
        double t1 = now();
        tests[i]();
        printf("measured: section %s %.2fs\n", names[i], now() - t1);
    }
    remove(trace_path + 6);
    printf("measured: total time %.2fs\n", now() - t0);
    return check_report("test_cluster_cavity");
}
