/* Statistical validation of the `supermarket` kernel against exact results, with fixed seeds.
 *
 * Every check compares a mean over R independent replications with an exact value (or two such
 * means with each other) and allows c standard errors, c the two-sided 1e-5 quantile of Student's t
 * with R - 1 degrees of freedom (for a difference of two means, min(R1, R2) - 1 degrees of freedom,
 * which is conservative for Welch's statistic). A correct kernel therefore fails a given check with
 * probability about 1e-5 (replication means of long time averages are close to normal); with the
 * ~140 checks below the whole test raises a false alarm with probability about 1.5e-3 for a random
 * seed. The seeds are fixed, so the outcome is deterministic. No tolerance is tuned to pass: the
 * only allowance beyond the CI is the O(1/n) finite-n bias of the mean-field fixed point in (b),
 * stated and measured there.
 *
 * (a) L = k = 1: every server is an M/M/1 queue (arrival rate lambda, service rate 1): mean task
 *     sojourn 1/(1 - lambda), u_i = lambda^i, mean queue length found by arriving tasks (PASTA)
 *     lambda/(1 - lambda).
 * (b) n = 10^4, lambda = 0.9, (L, k) in {(2,1), (3,1), (4,2)}: u_i against the mean-field fixed
 *     point within the CI plus 5/n for the finite-n bias; u_1 = lambda (the busy fraction equals
 * the load for every n, by work conservation) with no allowance at all. (c) the servers and counts
 * engines agree (difference of means within the combined CI). (d) transient mode, n = 10^4:
 * u_i(t_j) against the mean-field ODE (the model's own theory()) from the same start, within the CI
 * plus the same 5/n allowance. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MODEL_CHECK_WIDTH 34
#include "check.h"
#include "model_run.h"
#include "supermarket/meanfield.h"


#define FALSE_ALARM 1e-5

/* ------------------------------------------------------------------ (a) M/M/1 */

static void case_mm1(double lambda, uint64_t seed)
{
    const size_t R = 20;
    char lam[32];
    snprintf(lam, sizeof lam, "lambda=%g", lambda);
    const char *args[] = {"n=100", "L=1", "k=1", lam, "warmup=200000", "arrivals=500000",
                          "levels=40", NULL};
    model_run r;
    if (model_run_point(&r, &storq_model_supermarket, R, seed, args)) {
        CHECK(0);
        return;
    }
    double c = model_t_two_sided(FALSE_ALARM, R - 1);
    printf("(a) M/M/1, lambda = %g, n = 100, %zu replications of 5e5 jobs, c = %.3f\n", lambda, R,
           c);
    double m, se;
    model_run_stat(&r, model_run_offset(&r, "mean_task_sojourn", 0), &m, &se);
    model_check_mean("mean_task_sojourn = 1/(1-lambda)", m, se, 1 / (1 - lambda), 0, c);
    double md, sed;
    model_run_stat(&r, model_run_offset(&r, "mean_job_delay", 0), &md, &sed);
    CHECK(md == m); /* k = 1: a job is its task */
    model_run_stat(&r, model_run_offset(&r, "mean_queue_length", 0), &m, &se);
    model_check_mean("mean_queue_length = lambda/(1-lambda)", m, se, lambda / (1 - lambda), 0, c);
    for (int i = 1; i <= 5; i++) {
        char what[64];
        snprintf(what, sizeof what, "u_%d = lambda^%d", i, i);
        model_run_stat(&r, model_run_offset(&r, "u", (size_t)i), &m, &se);
        model_check_mean(what, m, se, pow(lambda, i), 0, c);
    }
    /* PASTA: arriving tasks find the stationary queue length. Per replication: the histogram's
     * sum over all its counts, overflow included. */
    const storq_obs_def *ah = model_run_def(&r, "arrival_queue_length");
    double *aql_mean = malloc(R * sizeof *aql_mean);
    for (size_t i = 0; i < R; i++)
        aql_mean[i] = model_run_row(&r, i)[ah->value_offset] /
                      (double)model_run_hist_total(&r, i, ah);
    model_mean_se(aql_mean, R, 1, &m, &se);
    model_check_mean("arrival_queue_length mean (PASTA)", m, se, lambda / (1 - lambda), 0, c);
    free(aql_mean);
    model_run_free(&r);
}

/* ------------------------------------------------------------------ (b) mean field, n = 10^4 */

/* The finite-n bias n (E u^n_i - u_i), measured with the counts engine at n = 1000, lambda = 0.9
 * (30-40 replications of 2-4e6 jobs; docs/models/supermarket.md), is at most 1.0 for (2,1),
 * 1.4 for (3,1) and 2.3 for (4,2) in absolute value, so 5/n allows about twice the largest. */
#define BIAS_ALLOWANCE 5.0

static void case_meanfield(int L, int k, uint64_t seed)
{
    const size_t R = 20;
    const double lambda = 0.9, n = 1e4;
    char a1[32], a2[32];
    snprintf(a1, sizeof a1, "L=%d", L);
    snprintf(a2, sizeof a2, "k=%d", k);
    const char *args[] = {"n=10000", a1, a2, "lambda=0.9", "warmup=500000", "arrivals=1000000",
                          NULL};
    model_run r;
    if (model_run_point(&r, &storq_model_supermarket, R, seed, args)) {
        CHECK(0);
        return;
    }
    double c = model_t_two_sided(FALSE_ALARM, R - 1);
    const storq_obs_def *d = model_run_def(&r, "u");
    size_t levels = d->length;
    double *fp = malloc(sizeof *fp * levels);
    storq_sm_fixed_point(L, k, lambda, levels, fp);
    printf("(b) mean field, L = %d, k = %d, lambda = 0.9, n = 10^4, %zu replications of 1e6 jobs, "
           "c = %.3f, bias allowance %.0f/n\n",
           L, k, R, c, BIAS_ALLOWANCE);
    double m, se;
    model_run_stat(&r, d->value_offset + 1, &m, &se);
    model_check_mean("u_1 = lambda (no allowance)", m, se, lambda, 0, c);
    for (size_t i = 2; i < levels; i++) {
        if (fp[i] < 1e-6)
            break;
        char what[64];
        snprintf(what, sizeof what, "u_%zu = fixed point", i);
        model_run_stat(&r, d->value_offset + i, &m, &se);
        model_check_mean(what, m, se, fp[i], BIAS_ALLOWANCE / n, c);
    }
    free(fp);
    model_run_free(&r);
}

/* ------------------------------------------------------------------ (c) servers vs counts */

static void case_engines(const char *n, const char *L, const char *k, const char *sampling,
                         uint64_t seed)
{
    const size_t R = 20;
    const char *a_s[] = {n, L, k, "lambda=0.85", sampling, "warmup=100000", "arrivals=300000",
                         "levels=10", "engine=servers", NULL};
    const char *a_c[] = {n, L, k, "lambda=0.85", sampling, "warmup=100000", "arrivals=300000",
                         "levels=10", "engine=counts", NULL};
    model_run rs, rc;
    if (model_run_point(&rs, &storq_model_supermarket, R, seed, a_s)) {
        CHECK(0);
        return;
    }
    if (model_run_point(&rc, &storq_model_supermarket, R, seed + 1, a_c)) {
        CHECK(0);
        model_run_free(&rs);
        return;
    }
    double c = model_t_two_sided(FALSE_ALARM, R - 1);
    printf("(c) servers vs counts: %s %s %s lambda=0.85 %s, %zu + %zu replications, c = %.3f\n", n,
           L, k, sampling, R, R, c);
    for (int i = 1; i <= 4; i++) {
        double m1, s1, m2, s2;
        model_run_stat(&rs, model_run_offset(&rs, "u", (size_t)i), &m1, &s1);
        model_run_stat(&rc, model_run_offset(&rc, "u", (size_t)i), &m2, &s2);
        char what[64];
        snprintf(what, sizeof what, "u_%d servers - counts", i);
        model_check_mean(what, m1 - m2, sqrt(s1 * s1 + s2 * s2), 0, 0, c);
        model_run_stat(&rs, model_run_offset(&rs, "n_var_u", (size_t)i), &m1, &s1);
        model_run_stat(&rc, model_run_offset(&rc, "n_var_u", (size_t)i), &m2, &s2);
        snprintf(what, sizeof what, "n_var_u_%d servers - counts", i);
        model_check_mean(what, m1 - m2, sqrt(s1 * s1 + s2 * s2), 0, 0, c);
    }
    double m1, s1, m2, s2;
    model_run_stat(&rs, model_run_offset(&rs, "mean_queue_length", 0), &m1, &s1);
    model_run_stat(&rc, model_run_offset(&rc, "mean_queue_length", 0), &m2, &s2);
    model_check_mean("mean_queue_length servers - counts", m1 - m2, sqrt(s1 * s1 + s2 * s2), 0, 0,
                     c);
    model_run_free(&rs);
    model_run_free(&rc);
}

/* ------------------------------------------------------------------ (d) transient vs ODE */

static void case_transient(const char *L, const char *k, const char *start, const char *engine,
                           uint64_t seed)
{
    const size_t R = 40;
    const double n = 1e4;
    char st[64];
    snprintf(st, sizeof st, "start=%s", start);
    const char *args[] = {"n=10000", L, k, "lambda=0.9", "mode=transient", "horizon=20",
                          "grid=5", "levels=7", st, engine, NULL};
    model_run r;
    if (model_run_point(&r, &storq_model_supermarket, R, seed, args)) {
        CHECK(0);
        return;
    }
    storq_theory th = {0};
    storq_error err = {0};
    CHECK(storq_model_supermarket.theory(r.ctx, &th, &err) == 0);
    const storq_array *ode = storq_theory_find(&th, "u_t");
    const storq_obs_def *d = storq_obs_find(&r.obs, "u_t");
    CHECK(ode && d && ode->len == d->length);
    double c = model_t_two_sided(FALSE_ALARM, R - 1);
    printf("(d) transient vs ODE: %s %s lambda=0.9 %s %s n = 10^4, t = 0, 4, .., 20, %zu "
           "replications, c = %.3f, bias allowance %.0f/n\n",
           L, k, st, engine, R, c, BIAS_ALLOWANCE);
    if (ode && d && ode->len == d->length) {
        /* t = 0: the state is the start itself, in every replication, exactly */
        size_t bad = 0;
        for (size_t rep = 0; rep < R; rep++)
            for (size_t i = 0; i < 7; i++)
                bad += model_run_row(&r, rep)[d->value_offset + i] != ode->data[i];
        CHECK_EQ_U64(bad, 0);
        for (size_t j = 1; j <= 5; j++) {
            for (size_t i = 1; i < 7; i++) {
                double m, se, exact = ode->data[j * 7 + i];
                if (exact < 1e-6)
                    continue;
                model_run_stat(&r, d->value_offset + j * 7 + i, &m, &se);
                char what[64];
                snprintf(what, sizeof what, "u_%zu(%g) = ODE", i, 4.0 * (double)j);
                model_check_mean(what, m, se, exact, BIAS_ALLOWANCE / n, c);
            }
        }
    }
    storq_theory_free(&th);
    model_run_free(&r);
}

int main(void)
{
    /* the quantile routine against textbook values */
    CHECK_NEAR(model_t_two_sided(0.05, 9), 2.2622, 1e-4);
    CHECK_NEAR(model_t_two_sided(0.05, 1), 12.7062, 1e-4);
    CHECK_NEAR(model_t_two_sided(0.01, 30), 2.7500, 1e-4);

    case_mm1(0.5, 101);
    case_mm1(0.8, 102);
    case_meanfield(2, 1, 201);
    case_meanfield(3, 1, 202);
    case_meanfield(4, 2, 203);
    case_engines("n=20", "L=2", "k=1", "sampling=with", 301);
    case_engines("n=200", "L=3", "k=2", "sampling=without", 302);
    case_engines("n=1000", "L=5", "k=3", "sampling=with", 303);
    case_transient("L=2", "k=1", "empty", "engine=servers", 401);
    case_transient("L=4", "k=2", "fill:3", "engine=counts", 402);
    case_transient("L=3", "k=1", "u:0.9,0.5,0.2,0.05", "engine=servers", 403);
    return check_report("test_supermarket_stats");
}
