/* The 1/n coefficient V of the refined mean field (kernels/supermarket/refined.c, the Lyapunov
 * route) against V estimated from simulation alone. The convergence sweep's model
 * (jobs/sweeps/supermarket-convergence.ini: L = 2, k = 1, lambda = 0.9, sampling without
 * replacement) is simulated at n = 20, 50, 100, 200, 500, 1000 (counts engine, fixed seeds), and
 * the means of the queue length and of u_2..u_5 are regressed on 1/n by weighted least squares
 * (weights 1/se^2):
 *
 *     mean(n) = a + b / n + c / n^2.
 *
 * The 1/n^2 column takes the next term of the expansion: a straight line over n = 20..1000 fits
 * the points just as well (its chi^2 is unremarkable) but its slope carries the 1/n^2 term
 * (n^2 (sim - refined) is about 5 here) and misses V by several standard errors; both fits are
 * printed.
 *
 * The means: u_1, the fraction of busy servers, has expectation lambda at every n (work
 * conservation; up to O(1/A) for a window of A arrivals), and a replication's queue length
 * follows its u_1 closely (correlation 0.9-0.98: both record how many jobs the window's arrivals
 * happened to bring), so each mean is the control-variate estimate, the intercept at
 * u_1 = lambda of the least-squares line of the replications' values on their u_1 - lambda. Its
 * standard error is that line's, with R - 2 degrees of freedom; the variance falls 5 to 25-fold.
 *
 * Checks, each within t standard errors of the coefficient (t: the two-sided 1e-5 quantile of
 * Student's t with R - 2 degrees of freedom): b = V and a = the fixed point, for the mean queue
 * length and each u_i; and the check has power: b rejects V / 2 and the V of sampling with
 * replacement (3.99 against 2.77 without) for the mean queue length.
 * Prints the numbers quoted in docs/models/supermarket.md. With an argument, the seed of the
 * first n (default 300; n's j-th value uses seed + j), to repeat the test on other streams. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define MODEL_CHECK_WIDTH 44
#include "check.h"
#include "model_run.h"
#include "supermarket/meanfield.h"
#include "supermarket/refined.h"

#define NPTS 6
#define NSER 5 /* the mean queue length, u_2, u_3, u_4, u_5 */

static const int N[NPTS] = {20, 50, 100, 200, 500, 1000};
/* series s: level 0 is the mean queue length; u_6 (< 2e-3) has no resolvable 1/n term here */
static const size_t LEVEL[NSER] = {0, 2, 3, 4, 5};
#define R ((size_t)40) /* replications per n */
/* Measured jobs per replication: more at n = 50 and 1000, where they shrink the standard error of
 * b most (near the c-optimal design for b on these n: 0.8 times the se of equal shares). */
static const long JOBS[NPTS] = {400000, 1600000, 400000, 400000, 400000, 1200000};
/* Warm-up in time units from an empty start: the ODE from empty is within 1.1e-5 of the fixed
 * point's mean queue length by then (11 relaxation times of the slowest mode, eigenvalue -0.0755). */
static const double WARM_T = 150.0;
static const double LAMBDA = 0.9;

/* Weighted least squares of y on the p <= 3 columns of X (m rows, row-major), weights 1/se^2:
 * the coefficients, their standard errors (square roots of the diagonal of (X^T W X)^{-1}) and
 * the weighted residual sum of squares chi2. */
static void wls(const double *X, const double *y, const double *se, size_t m, size_t p,
                double *beta, double *sd, double *chi2)
{
    double M[3][6] = {{0}}, r[3] = {0};
    for (size_t j = 0; j < m; j++) {
        const double w = 1.0 / (se[j] * se[j]);
        for (size_t a = 0; a < p; a++) {
            r[a] += w * X[j * p + a] * y[j];
            for (size_t b = 0; b < p; b++)
                M[a][b] += w * X[j * p + a] * X[j * p + b];
        }
    }
    /* Gauss-Jordan on [M | I]: M is symmetric positive definite, no pivoting needed */
    for (size_t a = 0; a < p; a++)
        M[a][p + a] = 1.0;
    for (size_t a = 0; a < p; a++) {
        const double piv = M[a][a];
        for (size_t b = 0; b < 2 * p; b++)
            M[a][b] /= piv;
        for (size_t e = 0; e < p; e++)
            if (e != a) {
                const double f = M[e][a];
                for (size_t b = 0; b < 2 * p; b++)
                    M[e][b] -= f * M[a][b];
            }
    }
    for (size_t a = 0; a < p; a++) {
        beta[a] = 0.0;
        for (size_t b = 0; b < p; b++)
            beta[a] += M[a][p + b] * r[b];
        sd[a] = sqrt(M[a][p + a]);
    }
    *chi2 = 0.0;
    for (size_t j = 0; j < m; j++) {
        double fit = 0.0;
        for (size_t a = 0; a < p; a++)
            fit += X[j * p + a] * beta[a];
        *chi2 += (y[j] - fit) * (y[j] - fit) / (se[j] * se[j]);
    }
}

/* The control-variate mean of y (R values) given z (their u_1 - lambda, expectation 0): the
 * intercept of the least-squares line of y on z, and its standard error. */
static void cv_mean(const double *y, const double *z, size_t n, double *mean, double *se)
{
    double my = 0.0, mz = 0.0, szz = 0.0, szy = 0.0, rss = 0.0;
    for (size_t i = 0; i < n; i++) {
        my += y[i];
        mz += z[i];
    }
    my /= (double)n;
    mz /= (double)n;
    for (size_t i = 0; i < n; i++) {
        szz += (z[i] - mz) * (z[i] - mz);
        szy += (z[i] - mz) * (y[i] - my);
    }
    const double slope = szz > 0.0 ? szy / szz : 0.0;
    for (size_t i = 0; i < n; i++) {
        const double e = y[i] - my - slope * (z[i] - mz);
        rss += e * e;
    }
    *mean = my - slope * mz;
    *se = sqrt(rss / (double)(n - 2) * (1.0 / (double)n + (szz > 0.0 ? mz * mz / szz : 0.0)));
}

/* Simulated means (control-variate) and standard errors of the series at every n. */
static int simulate(uint64_t seed, double mean[NSER][NPTS], double se[NSER][NPTS])
{
    for (size_t j = 0; j < NPTS; j++) {
        char a[3][48];
        snprintf(a[0], sizeof a[0], "n=%d", N[j]);
        snprintf(a[1], sizeof a[1], "warmup=%.0f", N[j] * LAMBDA * WARM_T);
        snprintf(a[2], sizeof a[2], "arrivals=%ld", JOBS[j]);
        const char *args[] = {a[0], a[1], a[2], "L=2", "k=1", "lambda=0.9", "sampling=without",
                              "engine=counts", NULL};
        model_run r;
        if (model_run_point(&r, &storq_model_supermarket, R, seed + j, args))
            return -1;
        double y[R], z[R], plain, plain_se;
        for (size_t q = 0; q < R; q++)
            z[q] = model_run_value(&r, q, "u", 1) - LAMBDA;
        for (size_t s = 0; s < NSER; s++) {
            for (size_t q = 0; q < R; q++)
                y[q] = LEVEL[s] ? model_run_value(&r, q, "u", LEVEL[s])
                                : model_run_value(&r, q, "mean_queue_length", 0);
            cv_mean(y, z, R, &mean[s][j], &se[s][j]);
            if (s == 0) {
                model_mean_se(y, R, 1, &plain, &plain_se);
                printf("n = %4d, %zu x %ld jobs: mean queue length %.5f +- %.5f (se; plain mean "
                       "%.5f +- %.5f)\n",
                       N[j], R, JOBS[j], mean[0][j], se[0][j], plain, plain_se);
            }
        }
        model_run_free(&r);
    }
    return 0;
}

int main(int argc, char **argv)
{
    const uint64_t seed = argc > 1 ? strtoull(argv[1], NULL, 10) : 300;
    const size_t d = (size_t)storq_sm_auto_levels(2, 1, LAMBDA, 1e-17, 5000) + 2;
    double *u = calloc(d + 2, sizeof *u), *V = calloc(d + 1, sizeof *V);
    double *Vwith = calloc(d + 1, sizeof *Vwith);
    storq_sm_fixed_point(2, 1, LAMBDA, d + 1, u);
    CHECK(storq_sm_refined_steady(2, 1, LAMBDA, 1, d, V, NULL, NULL) == 0);
    CHECK(storq_sm_refined_steady(2, 1, LAMBDA, 0, d, Vwith, NULL, NULL) == 0);
    double fix[NSER] = {0}, v[NSER] = {0}, vwith[NSER] = {0};
    for (size_t i = d + 1; i-- > 1;) { /* series 0: the sums over levels */
        fix[0] += u[i];
        v[0] += V[i];
        vwith[0] += Vwith[i];
    }
    for (size_t s = 1; s < NSER; s++) {
        fix[s] = u[LEVEL[s]];
        v[s] = V[LEVEL[s]];
        vwith[s] = Vwith[LEVEL[s]];
    }

    static double mean[NSER][NPTS], se[NSER][NPTS];
    if (simulate(seed, mean, se)) {
        CHECK(0);
        return check_report("test_supermarket_refined_regression");
    }
    double X3[NPTS * 3], X2[NPTS * 2];
    for (size_t j = 0; j < NPTS; j++) {
        const double x = 1.0 / N[j];
        X3[3 * j] = X2[2 * j] = 1.0;
        X3[3 * j + 1] = X2[2 * j + 1] = x;
        X3[3 * j + 2] = x * x;
    }
    const double t = model_t_two_sided(1e-5, R - 2);
    printf("weighted least squares on (1, 1/n, 1/n^2) over n = 20..1000, seeds %llu..%llu, "
           "t = %.3f\n", (unsigned long long)seed, (unsigned long long)seed + NPTS - 1, t);
    for (size_t s = 0; s < NSER; s++) {
        double b3[3], sd3[3], chi3, b2[2], sd2[2], chi2;
        wls(X3, mean[s], se[s], NPTS, 3, b3, sd3, &chi3);
        wls(X2, mean[s], se[s], NPTS, 2, b2, sd2, &chi2);
        char what[32], lab[96];
        if (LEVEL[s])
            snprintf(what, sizeof what, "u_%zu", LEVEL[s]);
        else
            snprintf(what, sizeof what, "mean queue length");
        printf("%s: V regression %.4f +- %.4f (se), Lyapunov %.4f (with replacement %.4f); "
               "intercept %.5f +- %.5f, fixed point %.5f; 1/n^2 coefficient %.2f +- %.2f; chi2 "
               "%.2f (3 dof); straight line: V %.4f +- %.4f, chi2 %.2f (4 dof)\n",
               what, b3[1], sd3[1], v[s], vwith[s], b3[0], sd3[0], fix[s], b3[2], sd3[2], chi3,
               b2[1], sd2[1], chi2);
        snprintf(lab, sizeof lab, "%s: V (regression) = V (Lyapunov)", what);
        model_check_mean(lab, b3[1], sd3[1], v[s], 0.0, t);
        snprintf(lab, sizeof lab, "%s: intercept = fixed point", what);
        model_check_mean(lab, b3[0], sd3[0], fix[s], 0.0, t);
        if (s == 0) { /* power: a wrong V is rejected */
            const double half = fabs(b3[1] - 0.5 * v[s]), other = fabs(b3[1] - vwith[s]);
            printf("  power: |b - V/2| = %.3f, |b - V(with replacement)| = %.3f, limit %.3f\n",
                   half, other, t * sd3[1]);
            CHECK(half > t * sd3[1]);
            CHECK(other > t * sd3[1]);
        }
    }
    free(u);
    free(V);
    free(Vwith);
    return check_report("test_supermarket_refined_regression");
}
