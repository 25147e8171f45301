/* The two regimes of the `cluster` model's delay against the file size k (kernels/cluster/
 * regimes.c), each against an independent computation:
 * (a) the cavity tail P(V > w) ~ C e^{-theta w}: the M/M/1 closed form (theta = s - l, C = rho),
 *     and, for five other chunk laws, the numerically solved workload CDF of cavity.c (a different
 *     method: the renewal equation on a grid) far in its tail;
 * (b) the logarithmic-regime asymptote against the product-form mean (numerical integral of
 *     1 - F^k) as k grows: the gap shrinks towards 0 (Gumbel limit of the maximum);
 * (c) the linear-regime asymptote against the product-form mean at k = j m (det chunks: equal,
 *     as both are c j/mu + E[max of m workloads]; the product form reaches it through k' = 0);
 * (d) the isolation delay against the product form at a vanishing load. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "check.h"
#include "cluster/cavity.h"
#include "cluster_laws.h"
#include "distribution.h"

/* X in {0, x1}: P(X = x1) = p */
static void two_point(double *px, size_t x1, double p)
{
    for (size_t x = 0; x <= x1; x++)
        px[x] = 0.0;
    px[0] = 1.0 - p;
    px[x1] = p;
}

static void test_mm1(void)
{
    /* exp chunks, X in {0,1}: M/M/1 with l = lambda p, s = mu/E[c]: theta = s - l, C = l/s */
    const double lam[] = {0.3, 2.0, 9.0}, p[] = {0.5, 0.3, 0.1}, mu = 1.5, rate = 2.0;
    storq_dist d = cdist("exp:2");
    for (int i = 0; i < 3; i++) {
        double px[2], th, C;
        two_point(px, 1, p[i]);
        CHECK(storq_cl_lundberg(lam[i], mu, px, 1, &d, &th, &C) == 0);
        double l = lam[i] * p[i], s = mu * rate;
        CHECK_NEAR(th, s - l, 1e-9 * s);
        CHECK_NEAR(C, l / s, 1e-9);
        printf("measured: M/M/1 l=%g s=%g theta=%.12g (exact %.12g) C=%.12g (exact %.12g)\n", l, s,
               th, s - l, C, l / s);
    }
    /* no exponential moment: refused */
    storq_dist par = cdist("pareto:2.5,1");
    double px[2], th, C;
    two_point(px, 1, 0.5);
    CHECK(storq_cl_lundberg(0.5, 1.0, px, 1, &par, &th, &C) == -1);
    CHECK(storq_cl_lundberg(10.0, 1.0, px, 1, &d, &th, &C) == -1); /* rho = 10 x 0.5 x 0.5 >= 1 */
}

static void test_tail_against_solver(void)
{
    /* The numerical CDF's tail (tol 1e-7 absolute) against C e^{-theta w} where the tail is
     * 1e-2 and 1e-3: relative gap <= 0.2% (the tail's next term decays faster, and the solver's
     * absolute error 1e-7 is 1e-4 of the smallest tail compared). */
    const char *laws[] = {"det:1", "shexp:0.5,2", "erlang:3,3", "hyperexp:0.5,2,0.5,0.6666666667",
                          "uniform:0.2,1.8"};
    double px[4] = {0.4, 0.3, 0.2, 0.1}; /* X in 0..3 */
    for (int i = 0; i < 5; i++) {
        storq_dist d = cdist(laws[i]);
        double EX = 0.3 + 0.4 + 0.3, mu = 1.5, lambda = 0.7 * mu / (EX * d.mean), th, C;
        CHECK(storq_cl_lundberg(lambda, mu, px, 3, &d, &th, &C) == 0);
        cl_cavity cav;
        clock_t c0 = clock();
        CHECK(storq_cl_cavity_solve(lambda, mu, px, 3, &d, 1e-7, &cav) == 0);
        printf("measured: %s solve %.2f s CPU, %zu points\n", laws[i], (double)(clock() - c0) / CLOCKS_PER_SEC, cav.npoints);
        double worst = 0.0;
        for (double target = 1e-2; target >= 1e-3 * 0.99; target /= 10) {
            double w = log(C / target) / th, tail = 1.0 - storq_cl_cavity_cdf(&cav, w);
            double rel = fabs(tail / (C * exp(-th * w)) - 1.0);
            worst = rel > worst ? rel : worst;
        }
        printf("measured: %s theta=%.6g C=%.6g largest relative tail gap %.3g\n", laws[i], th, C,
               worst);
        CHECK(worst <= 2e-3);
        storq_cl_cavity_free(&cav);
    }
}

static void test_log_regime(void)
{
    /* det chunks, m = 1000, every k <= m at load 0.7: X in {0,1} with P(1) = k/m; lambda = 0.7 m/k
     * keeps the cavity queue the same for every k. The gap between the Gumbel asymptote and the
     * product-form mean shrinks as k grows and is below 2% of the mean at k = 1000. */
    storq_dist d = cdist("det:1");
    const unsigned m = 1000, ks[] = {10, 100, 1000};
    double prev = INFINITY;
    for (int i = 0; i < 3; i++) {
        double px[2], th, C;
        two_point(px, 1, (double)ks[i] / m);
        double lambda = 0.7 * m / ks[i];
        CHECK(storq_cl_lundberg(lambda, 1.0, px, 1, &d, &th, &C) == 0);
        cl_cavity cav;
        CHECK(storq_cl_cavity_solve(lambda, 1.0, px, 1, &d, 1e-8, &cav) == 0);
        double pf = storq_cl_product_form_mean(&cav, ks[i], m, &d);
        double as = storq_cl_log_regime_mean(1.0, 1.0, th, C, ks[i]);
        double gap = fabs(as - pf) / pf;
        printf("measured: log regime k=%u product form %.6g asymptote %.6g relative gap %.3g\n",
               ks[i], pf, as, gap);
        CHECK(gap < prev);
        prev = gap;
        storq_cl_cavity_free(&cav);
    }
    CHECK(prev <= 1e-3);
}

static void test_log_regime_domain(void)
{
    /* exponential chunks at a light load (M/M/1 cavity queue: theta = s - l, C = l/s): for small
     * C k the Gumbel limit would put the mean below c/mu, even below 0; it is NaN there, and at
     * and above C k = e^{-gamma_E} at least c/mu and increasing in k */
    const double C = 0.01, th = 0.99;
    const double k0 = exp(-0.57721566490153286061) / C; /* about 56.1 */
    CHECK(isnan(storq_cl_log_regime_mean(1.0, 1.0, th, C, 1)));
    CHECK(isnan(storq_cl_log_regime_mean(1.0, 1.0, th, C, 56)));
    double prev = storq_cl_log_regime_mean(1.0, 1.0, th, C, 57);
    CHECK(prev >= 1.0 && prev < 1.0 + 0.02);
    for (double k = 58; k <= 1e4; k *= 1.5) {
        double v = storq_cl_log_regime_mean(1.0, 1.0, th, C, k);
        CHECK(v > prev);
        prev = v;
    }
    printf("measured: log regime domain starts at k = %.2f (C = %g)\n", k0, C);
}

static void test_linear_regime_and_isolation(void)
{
    /* det chunks c = 2, mu = 1.25, m = 10, k = 30 (q = 3, k' = 0): X = 3 always */
    storq_dist d = cdist("det:2");
    const unsigned m = 10, k = 30;
    double px[4];
    two_point(px, 3, 1.0);
    double lambda = 0.6 * 1.25 / (3 * 2.0);
    cl_cavity cav;
    CHECK(storq_cl_cavity_solve(lambda, 1.25, px, 3, &d, 1e-8, &cav) == 0);
    double maxm = storq_cl_product_form_mean(&cav, m, m, &d) - 2.0 / 1.25;
    double pf = storq_cl_product_form_mean(&cav, k, m, &d);
    double lin = storq_cl_linear_regime_mean(2.0, 1.25, maxm, m, k);
    printf("measured: linear regime k=30 m=10 product form %.9g asymptote %.9g\n", pf, lin);
    CHECK_NEAR(lin, pf, 1e-6 * pf);
    storq_cl_cavity_free(&cav);

    /* isolation: at load 1e-4 the product form's mean is the isolation delay to within the
     * chance of meeting another request's work (about rho m) */
    const unsigned kk[] = {3, 10, 25};
    for (int i = 0; i < 3; i++) {
        size_t q = kk[i] / m, xmax = q + 1;
        double p2[4] = {0};
        double kp = (double)(kk[i] - q * m) / m;
        p2[q] += 1.0 - kp;
        p2[q + 1] += kp;
        double lam = 1e-4 * 1.25 / (((double)kk[i] / m) * 2.0);
        CHECK(storq_cl_cavity_solve(lam, 1.25, p2, xmax, &d, 1e-10, &cav) == 0);
        double iso = storq_cl_isolation_delay(2.0, 1.25, m, kk[i]);
        double pfm = storq_cl_product_form_mean(&cav, kk[i], m, &d);
        printf("measured: isolation k=%u %.9g product form at load 1e-4 %.9g\n", kk[i], iso, pfm);
        CHECK(pfm >= iso - 1e-9);
        CHECK_NEAR(pfm, iso, 0.01 * iso);
        storq_cl_cavity_free(&cav);
    }
    CHECK_NEAR(storq_cl_isolation_delay(2.0, 1.25, 10, 10), 1.6, 1e-15);
    CHECK_NEAR(storq_cl_isolation_delay(2.0, 1.25, 10, 11), 3.2, 1e-15);
}

static double cpu(void)
{
    return (double)clock() / CLOCKS_PER_SEC;
}

int main(void)
{
    double t0 = cpu();
    test_mm1();
    test_tail_against_solver();
    double t1 = cpu();
    test_log_regime();
    test_log_regime_domain();
    double t2 = cpu();
    test_linear_regime_and_isolation();
    printf("measured: CPU seconds: tails %.2f, log regime %.2f, linear and isolation %.2f\n", t1 - t0,
           t2 - t1, cpu() - t2);
    return check_report("test_cluster_regimes");
}
