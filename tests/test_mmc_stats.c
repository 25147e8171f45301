/* Statistical validation of the `mmc` kernel and its Erlang C theory, fixed seeds.
 *
 * The exact values are computed here by the textbook sum, in long double (never by the kernel's
 * Erlang B recursion): C(c, a) = (a^c / c!) (c / (c - a)) / (sum_{k<c} a^k / k! + (a^c / c!)
 * (c / (c - a))), W = C / (c mu - lambda), T = W + 1/mu, N = lambda T, P(W > t) = C e^{-(c mu -
 * lambda) t}. Each check allows c standard errors over R replications, c the two-sided 1e-4
 * Student-t quantile (a correct kernel fails one check with probability about 1e-4). Negative
 * control: the same data must reject the M/M/1 at rate c mu (the pooled server), whose wait differs.
 * The kernel's theory is checked against the textbook sum, against published values (C(10, 6)
 * "about 0.10", the Erlang C curve example of a 10-server desk at 6 erlangs) and closed forms
 * (C(1, a) = a; C(2, a) = a^2 / (2 + a)), and at c = 2000 where the factorial sum needs logs. */
#include <math.h>
#include <stdio.h>

#include "check.h"
#include "model_run.h"
#include "erlang.h"
#include "mmc/internal.h"

#define REPS 32

static double erlang_c_sum(int c, double a)
{
    long double term = 1, sum = 0; /* term = a^k / k!, in logs beyond c = 150 */
    long double lterm = 0, lsum = -INFINITY;
    for (int k = 0; k < c; k++) {
        if (c <= 150) {
            sum += term;
            term *= (long double)a / (k + 1);
        } else {
            lsum = lsum > lterm ? lsum + log1pl(expl(lterm - lsum)) : lterm + log1pl(expl(lsum - lterm));
            lterm += logl((long double)a) - logl((long double)(k + 1));
        }
    }
    if (c <= 150) {
        long double top = term * c / (c - a);
        return (double)(top / (sum + top));
    }
    long double ltop = lterm + logl((long double)c / (c - a));
    return (double)(1 / (1 + expl(lsum - ltop)));
}

static void check_point(int c, double lambda, double mu)
{
    char arg_c[32], arg_l[40], arg_m[40];
    snprintf(arg_c, sizeof arg_c, "c=%d", c);
    snprintf(arg_l, sizeof arg_l, "lambda=%.17g", lambda);
    snprintf(arg_m, sizeof arg_m, "mu=%.17g", mu);
    const char *args[] = {arg_c, arg_l, arg_m, "warmup=20000", "arrivals=200000", NULL};
    model_run r;
    if (model_run_point(&r, &storq_model_mmc, REPS, 2026, args)) {
        CHECK(0);
        return;
    }
    const double C = erlang_c_sum(c, lambda / mu), gap = c * mu - lambda, W = C / gap;
    const double q = model_t_two_sided(1e-4, REPS - 1);
    const mmc_ctx *x = r.ctx;
    double m, se;
    printf("M/M/%d, lambda %g, mu %g (rho %.3f): Erlang C %.6f\n", c, lambda, mu, lambda / (c * mu), C);
    model_run_stat(&r, model_run_offset(&r, "wait_probability", 0), &m, &se);
    model_check_mean("wait_probability", m, se, C, 0, q);
    model_run_stat(&r, model_run_offset(&r, "mean_waiting_time", 0), &m, &se);
    model_check_mean("mean_waiting_time", m, se, W, 0, q);
    const double pooled = (lambda / (c * mu)) / gap; /* M/M/1 at rate c mu: rho / (c mu - lambda) */
    printf("  negative control: M/M/1 at rate c mu waits %.6g, %.1f se away\n", pooled,
           fabs(m - pooled) / se);
    if (c > 1)
        CHECK(fabs(m - pooled) > q * se);
    model_run_stat(&r, model_run_offset(&r, "mean_sojourn_time", 0), &m, &se);
    model_check_mean("mean_sojourn_time", m, se, W + 1 / mu, 0, q);
    model_run_stat(&r, model_run_offset(&r, "mean_number_in_system", 0), &m, &se);
    model_check_mean("mean_number_in_system", m, se, lambda * (W + 1 / mu), 0, q);
    for (int j = 0; j < MMC_CCDF_POINTS; j += 5) {
        char what[48];
        snprintf(what, sizeof what, "P(W > %.3g)", j * x->dt);
        model_run_stat(&r, model_run_offset(&r, "waiting_time_ccdf", (size_t)j), &m, &se);
        model_check_mean(what, m, se, C * exp(-gap * j * x->dt), 0, q);
    }
    model_run_free(&r);
}

/* The supermarket model's pooled benchmark (k = 1): its theory stores the M/M/n mean sojourn at
 * the same n and load, checked here against the textbook sum; and its simulated job delay (power
 * of two choices) lies above it, as every dispatching policy's does. */
static void check_pooled_supermarket(void)
{
    const char *args[] = {"n=50", "L=2", "k=1", "lambda=0.9", "warmup=5000", "arrivals=50000",
                          NULL};
    model_run r;
    if (model_run_point(&r, &storq_model_supermarket, 8, 7, args)) {
        CHECK(0);
        return;
    }
    storq_theory t = {0};
    storq_error err = {0};
    CHECK(r.model->theory(r.ctx, &t, &err) == STORQ_OK);
    const storq_array *a = storq_theory_find(&t, "pooled_mmn_mean_sojourn");
    const double exact = erlang_c_sum(50, 45) / (50 - 45.0) + 1; /* mu = 1 */
    CHECK(a && a->len == 1 && fabs(a->data[0] - exact) <= 1e-12 * exact);
    double m, se;
    model_run_stat(&r, model_run_offset(&r, "mean_job_delay", 0), &m, &se);
    printf("supermarket n 50, L 2, load 0.9: pooled M/M/50 sojourn %.6f (textbook %.6f); simulated "
           "job delay %.4f +- %.4f above it\n", a ? a->data[0] : NAN, exact, m, se);
    CHECK(m - 3 * se > exact);
    storq_theory_free(&t);
    model_run_free(&r);
}

int main(void)
{
    check_pooled_supermarket();
    check_point(1, 0.5, 1);   /* M/M/1: C = rho */
    check_point(4, 3, 1);     /* rho 0.75 */
    check_point(10, 2, 1.0 / 3); /* the published desk: 10 servers, 6 erlangs (2 a minute, 3 min) */
    check_point(50, 45, 1);   /* rho 0.9 */

    /* the kernel's theory (Erlang B recursion) against the textbook sum and known values */
    CHECK_NEAR(storq_erlang_c(10, 6), 0.10, 0.005); /* published: "about 0.10" */
    CHECK_NEAR(storq_erlang_c(1, 0.3), 0.3, 1e-15);
    CHECK_NEAR(storq_erlang_c(2, 1.5), 1.5 * 1.5 / (2 + 1.5), 1e-15);
    const int cs[] = {3, 20, 100, 150, 2000};
    const double rhos[] = {0.3, 0.8, 0.99};
    for (size_t i = 0; i < sizeof cs / sizeof *cs; i++)
        for (size_t k = 0; k < 3; k++) {
            double a = rhos[k] * cs[i], mine = storq_erlang_c((uint64_t)cs[i], a);
            double sum = erlang_c_sum(cs[i], a);
            printf("  C(%d, %g): recursion %.15g, sum %.15g\n", cs[i], a, mine, sum);
            CHECK(fabs(mine - sum) <= 1e-10 * sum);
        }
    return check_report("test_mmc_stats");
}
