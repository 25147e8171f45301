/* Statistical validation of the `forkjoin` kernel against exact results and bounds, fixed seeds.
 *
 * Each point runs R independent replications through the model interface (stream key {seed, 0,
 * rep}); a check compares the mean of the R replication values with a value computed here from
 * the formulas (never from kernels/forkjoin_theory.c) and allows c standard errors, c the
 * two-sided 1e-4 quantile of Student's t with R - 1 degrees of freedom: a correct kernel fails a
 * given check with probability about 1e-4 (the replication values are long averages, close to
 * normal). The seeds are fixed, so the outcome is deterministic; no tolerance is tuned to pass.
 * Every check prints mean, se, the exact value and the deviation in se units, so one can see that
 * the tolerance is tight enough to matter.
 *
 *  1. (n,1) exponential: the nodes move in lock-step (all are released at the first completion),
 *     an M/M/1 queue at rate n mu: T = 1/(n mu - lambda).
 *  2. (2,2) exponential (Flatto-Hahn, Nelson-Tantawi), node rate nu = 2 mu, rho = lambda/nu:
 *     T = (12 - rho) / (8 (nu - lambda)). Negative control: the same data must reject the (n,1) /
 *     M/M/1 value 1/(nu - lambda), so the checks can tell the two systems apart.
 *  3. (n,k) exponential between the stage lower bound and the split-merge upper bound.
 *  4. delta = 1 (and det tasks at any delta): lock-step nodes, an M/G/1 queue with the task time.
 *  5. k = 1 with pareto:3 and shexp:0.5 (and exp at 0 < delta < 1): an M/G/1 queue whose service
 *     is the minimum of the n task times; also the delta = 0 companion system's mean.
 *  6. Utilisation: exp, delta = 0: lambda / (g n mu) (a job takes k exponential completions at
 *     rate k mu per busy node, cancellation wastes nothing); lock-step cases: lambda E[S] / g.
 *  7. Uniform assignment over g groups: each group is an (n,1) M/M/1 at lambda/g; shares 1/g.
 *  8. Assignment order lwl <= pod:2 <= uniform, by paired differences (common random numbers:
 *     same arrivals and task times per replication), for load = work and load = jobs.
 *  9. The response-time histogram of an (n,1) exponential point: P(T >= x) = exp(-(n mu - lambda)
 *     x), read off the merged bins at bin edges. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "model_run.h"


#define FALSE_ALARM 1e-4 /* per check, two-sided */
#define REPS 32          /* replications per point */
#define NJOBS 200000     /* measured jobs per replication */
#define ARRIVALS "arrivals=200000"

/* ------------------------------------------------------------------ running a point */

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Run one point: "name=value" strings, REPS replications keyed {seed, 0, rep}. */
#define RUN(r, seed, ...)                                                                          \
    model_run_point((r), &storq_model_forkjoin, REPS, (seed),                                      \
                    (const char *const[]){__VA_ARGS__, NULL})

/* Mean and se over replications of element i of observable name; with b, of the paired
 * difference a - b (same seed and replication: common random numbers). */
static void stat_diff(const model_run *a, const model_run *b, const char *name, size_t i,
                      double *mean, double *se)
{
    double v[REPS];
    for (size_t rep = 0; rep < a->reps; rep++)
        v[rep] = model_run_value(a, rep, name, i) - (b ? model_run_value(b, rep, name, i) : 0.0);
    model_mean_se(v, a->reps, 1, mean, se);
}

static void stat(const model_run *r, const char *name, size_t i, double *mean, double *se)
{
    stat_diff(r, NULL, name, i, mean, se);
}

static double c_of(size_t reps)
{
    return model_t_two_sided(FALSE_ALARM, reps - 1);
}

/* |mean - exact| <= c se. Also rejects se = 0 (a degenerate estimate proves nothing). */
static void check_exact(const char *what, double mean, double se, double exact, double c)
{
    const double dev = fabs(mean - exact);
    const int ok = se > 0 && dev <= c * se;
    printf("  %-46s mean %-11.6g se %-9.3g exact %-11.6g dev %5.2f se (limit %.2f; rel. tol "
           "%.2g)%s\n",
           what, mean, se, exact, se > 0 ? dev / se : INFINITY, c, c * se / fabs(exact),
           ok ? "" : "  FAIL");
    CHECK(ok);
}

static void check_run_exact(const model_run *r, const char *what, const char *name, size_t i,
                            double exact)
{
    double m, se;
    stat(r, name, i, &m, &se);
    check_exact(what, m, se, exact, c_of(r->reps));
}

/* ------------------------------------------------------------------ exact values */

/* Mean response time of an M/G/1 FCFS queue (Pollaczek-Khinchine): E[S] + lambda E[S^2] /
 * (2 (1 - lambda E[S])). */
static double pk(double lambda, double es, double es2)
{
    return es + lambda * es2 / (2.0 * (1.0 - lambda * es));
}

static double harmonic(unsigned n, int power)
{
    double h = 0;
    for (unsigned j = 1; j <= n; j++)
        h += power == 1 ? 1.0 / j : 1.0 / ((double)j * j);
    return h;
}

/* ------------------------------------------------------------------ 1, 6, 9: (n,1) exponential */

/* P(T >= x) of every replication, x snapped up to the first bin edge >= x (*edge). */
static void ccdf_at(const model_run *r, double x, double *edge, double *frac)
{
    const storq_obs_def *d = model_run_def(r, "response_time");
    double *edges = malloc((d->nbins + 1) * sizeof *edges);
    storq_hist_edges(d, edges);
    size_t j = 0;
    while (j < d->nbins && edges[j] < x)
        j++;
    *edge = edges[j];
    for (size_t rep = 0; rep < r->reps; rep++) {
        const uint64_t *cnt = model_run_counts(r, rep, d);
        uint64_t above = 0, all = 0;
        /* counts[0] is the underflow, counts[i] covers [edges[i-1], edges[i]), the last the
         * overflow: T >= edges[j] is everything from counts[j + 1] on */
        for (size_t i = 0; i < d->nbins + 2; i++) {
            all += cnt[i];
            if (i >= j + 1)
                above += cnt[i];
        }
        frac[rep] = (double)above / (double)all;
    }
    free(edges);
}

static void case_n1_exp(unsigned n, double mu, double lambda, uint64_t seed, int with_hist)
{
    char an[32], am[32], al[32];
    snprintf(an, sizeof an, "n=%u", n);
    snprintf(am, sizeof am, "mu=%.17g", mu);
    snprintf(al, sizeof al, "lambda=%.17g", lambda);
    model_run r;
    if (RUN(&r, seed, an, "k=1", am, al, "warmup=5000", ARRIVALS)) {
        CHECK(0);
        return;
    }
    const double rate = n * mu - lambda;
    printf("1. (%u,1) exp, mu %g, lambda %g: M/M/1 at rate n mu = %g (c = %.2f)\n", n, mu,
           lambda, n * mu, c_of(r.reps));
    check_run_exact(&r, "mean_response_time = 1/(n mu - lambda)", "mean_response_time", 0,
                    1.0 / rate);
    check_run_exact(&r, "6. utilisation = lambda/(n mu)", "utilisation", 0, lambda / (n * mu));
    const storq_obs_def *d = model_run_def(&r, "response_time");
    /* every measured job lands in the histogram, and its sum is the mean's numerator */
    int complete = 1;
    for (size_t rep = 0; rep < r.reps; rep++) {
        complete &= model_run_hist_total(&r, rep, d) == NJOBS;
        complete &= fabs(model_run_row(&r, rep)[d->value_offset] / NJOBS -
                         model_run_value(&r, rep, "mean_response_time", 0)) <=
                    1e-12 * model_run_value(&r, rep, "mean_response_time", 0);
    }
    printf("  histogram holds every measured job, its sum / N = mean_response_time: %s\n",
           complete ? "yes" : "NO  FAIL");
    CHECK(complete);
    if (with_hist) {
        /* 9. M/M/1 response time is exponential at rate n mu - lambda. Jobs of a replication are
         * correlated, so the se comes from the spread of the per-replication fractions, not the
         * binomial formula (printed for comparison: it is too small). */
        const double mean_t = 1.0 / rate;
        const double xs[] = {0.1 * mean_t, 0.5 * mean_t, mean_t, 2 * mean_t, 4 * mean_t,
                             7 * mean_t};
        for (size_t q = 0; q < sizeof xs / sizeof *xs; q++) {
            double frac[REPS], edge, m, se;
            ccdf_at(&r, xs[q], &edge, frac);
            model_mean_se(frac, r.reps, 1, &m, &se);
            const double exact = exp(-rate * edge);
            char what[96];
            snprintf(what, sizeof what, "9. P(T >= %.5g) = exp(-%g x)", edge, rate);
            check_exact(what, m, se, exact, c_of(r.reps));
            printf("     (binomial se with all %zu jobs independent: %.3g)\n",
                   r.reps * (size_t)NJOBS,
                   sqrt(exact * (1 - exact) / (double)(r.reps * (size_t)NJOBS)));
        }
    }
    model_run_free(&r);
}

/* ------------------------------------------------------------------ 2: (2,2) exponential */

static void case_22(double mu, double lambda, uint64_t seed, int negative_control)
{
    char am[32], al[32];
    snprintf(am, sizeof am, "mu=%.17g", mu);
    snprintf(al, sizeof al, "lambda=%.17g", lambda);
    model_run r;
    if (RUN(&r, seed, "n=2", "k=2", am, al, "warmup=5000", ARRIVALS)) {
        CHECK(0);
        return;
    }
    const double nu = 2 * mu, rho = lambda / nu, c = c_of(r.reps);
    const double exact = (12 - rho) / (8 * (nu - lambda));
    printf("2. (2,2) exp, mu %g (node rate %g), lambda %g, rho %g (c = %.2f)\n", mu, nu, lambda,
           rho, c);
    double m, se;
    stat(&r, "mean_response_time", 0, &m, &se);
    check_exact("mean_response_time = (12-rho)/(8(nu-lambda))", m, se, exact, c);
    check_run_exact(&r, "6. utilisation = lambda/(n mu)", "utilisation", 0, lambda / (2 * mu));
    if (negative_control) {
        /* the (n,1) formula at this point, 1/(n mu - lambda) = 1/(nu - lambda): must be rejected */
        const double wrong = 1.0 / (2 * mu - lambda);
        const int rejected = fabs(m - wrong) > c * se;
        printf("  negative control: (n,1) value 1/(n mu - lambda) = %.6g is %.1f se away: %s\n",
               wrong, fabs(m - wrong) / se, rejected ? "rejected (good)" : "NOT rejected  FAIL");
        CHECK(rejected);
    }
    model_run_free(&r);
}

/* ------------------------------------------------------------------ 3: (n,k) bounds */

static void case_bounds(unsigned n, unsigned k, double mu, double lambda, uint64_t seed)
{
    char an[32], ak[32], am[32], al[32];
    snprintf(an, sizeof an, "n=%u", n);
    snprintf(ak, sizeof ak, "k=%u", k);
    snprintf(am, sizeof am, "mu=%.17g", mu);
    snprintf(al, sizeof al, "lambda=%.17g", lambda);
    model_run r;
    if (RUN(&r, seed, an, ak, am, al, "warmup=5000", ARRIVALS)) {
        CHECK(0);
        return;
    }
    const double km = k * mu, c = c_of(r.reps);
    /* split-merge: S = k-th smallest of n Exp(k mu), a sum of independent Exp((n - j) k mu) */
    const double es = (harmonic(n, 1) - harmonic(n - k, 1)) / km;
    const double vs = (harmonic(n, 2) - harmonic(n - k, 2)) / (km * km);
    const double upper = lambda * es < 1 ? pk(lambda, es, vs + es * es) : INFINITY;
    /* stages: while j tasks are done, at most n - j nodes serve at rate k mu */
    double lower = 0;
    for (unsigned j = 0; j < k; j++)
        lower += 1.0 / ((n - j) * km - lambda);
    double m, se;
    stat(&r, "mean_response_time", 0, &m, &se);
    printf("3. (%u,%u) exp, mu %g, lambda %g: E[S] %.6g, V[S] %.6g, lambda E[S] %.3g (c = %.2f)\n",
           n, k, mu, lambda, es, vs, lambda * es, c);
    printf("  %-46s mean %-11.6g se %-9.3g lower %.6g  upper %.6g\n",
           "lower <= mean_response_time <= upper", m, se, lower, upper);
    printf("  gaps: mean - lower = %.4g (%.1f se), upper - mean = %.4g (%.1f se), upper - lower "
           "= %.4g (%.1f%% of the mean)\n",
           m - lower, (m - lower) / se, upper - m, (upper - m) / se, upper - lower,
           100 * (upper - lower) / m);
    const int ok_lo = m >= lower - c * se, ok_hi = m <= upper + c * se;
    if (!ok_lo)
        printf("  FAIL: below the lower bound\n");
    if (!ok_hi)
        printf("  FAIL: above the upper bound\n");
    CHECK(se > 0);
    CHECK(ok_lo);
    CHECK(ok_hi);
    check_run_exact(&r, "6. utilisation = lambda/(n mu)", "utilisation", 0, lambda / (n * mu));
    model_run_free(&r);
}

/* ------------------------------------------------------------------ 4, 5: lock-step M/G/1 */

/* A lock-step point: service S of the M/G/1 queue with moments es, es2. */
static void case_lockstep(const char *label, const char *const *args, double lambda, double es,
                          double es2, uint64_t seed, int companion, double companion_exact)
{
    model_run r;
    if (model_run_point(&r, &storq_model_forkjoin, REPS, seed, args)) {
        CHECK(0);
        return;
    }
    printf("%s: E[S] %.6g, E[S^2] %.6g, rho %.3g (c = %.2f)\n", label, es, es2, lambda * es,
           c_of(r.reps));
    check_run_exact(&r, "mean_response_time = P-K", "mean_response_time", 0, pk(lambda, es, es2));
    /* every node is busy for S per job and idle otherwise */
    check_run_exact(&r, "6. utilisation = lambda E[S]", "utilisation", 0, lambda * es);
    if (companion)
        check_run_exact(&r, "uncorrelated_mean_response_time (delta = 0)",
                        "uncorrelated_mean_response_time", 0, companion_exact);
    model_run_free(&r);
}

static void cases_lockstep(void)
{
    /* 4a. delta = 1, exp: every task is X_d ~ Exp(k mu): M/M/1 at rate k mu */
    {
        const double km = 5, lambda = 3;
        const char *args[] = {"n=10", "k=5", "mu=1", "lambda=3", "correlation=1", "warmup=5000",
                              ARRIVALS, NULL};
        case_lockstep("4. (10,5) exp, delta 1, mu 1, lambda 3: M/M/1 at k mu = 5", args, lambda,
                      1 / km, 2 / (km * km), 401, 0, 0);
    }
    /* 4b. det tasks, c = 1/(k mu): M/D/1, whatever delta (delta X_d + (1-delta) X_i = c); at
     * 0 < delta < 1 the companion is the same M/D/1 */
    {
        const double cdet = 1.0 / 5, lambda = 3;
        const char *a0[] = {"n=10", "k=5", "mu=1", "lambda=3", "service=det", "warmup=5000",
                            ARRIVALS, NULL};
        case_lockstep("4. (10,5) det, delta 0, mu 1, lambda 3: M/D/1, c = 0.2", a0, lambda, cdet,
                      cdet * cdet, 402, 0, 0);
        const char *a1[] = {"n=10", "k=5", "mu=1", "lambda=3", "service=det", "correlation=0.3",
                            "warmup=5000", ARRIVALS, NULL};
        case_lockstep("4. (10,5) det, delta 0.3, mu 1, lambda 3: M/D/1, c = 0.2", a1, lambda, cdet,
                      cdet * cdet, 403, 1, pk(lambda, cdet, cdet * cdet));
    }
    /* 4c. delta = 1, pareto:4: M/G/1 with the Pareto task time, xm = mean (alpha-1)/alpha */
    {
        const double alpha = 4, mean = 1.0 / 5, xm = mean * (alpha - 1) / alpha, lambda = 2;
        const char *args[] = {"n=10", "k=5", "mu=1", "lambda=2", "service=pareto:4",
                              "correlation=1", "warmup=5000", ARRIVALS, NULL};
        case_lockstep("4. (10,5) pareto:4, delta 1, mu 1, lambda 2: M/G/1", args, lambda, mean,
                      xm * xm * alpha / (alpha - 2), 404, 0, 0);
    }
    /* 5a. k = 1, pareto:3: the minimum of n Pareto(alpha, xm) is Pareto(n alpha, xm) */
    {
        const double alpha = 3, mean = 1.0, xm = mean * (alpha - 1) / alpha, na = 5 * alpha;
        const double lambda = 1;
        const char *args[] = {"n=5", "k=1", "mu=1", "lambda=1", "service=pareto:3", "warmup=5000",
                              ARRIVALS, NULL};
        case_lockstep("5. (5,1) pareto:3, mu 1, lambda 1: M/G/1, S = min, Pareto(15, 2/3)", args,
                      lambda, na * xm / (na - 1), na * xm * xm / (na - 2), 501, 0, 0);
    }
    /* 5b. k = 1, shexp:0.5: shift F mean plus Exp of mean (1-F) mean; the minimum keeps the shift
     * and has an Exp of mean (1-F) mean / n */
    {
        const double mean = 1.0, shift = 0.5 * mean, em = 0.5 * mean / 5, lambda = 1.2;
        const char *args[] = {"n=5", "k=1", "mu=1", "lambda=1.2", "service=shexp:0.5",
                              "warmup=5000", ARRIVALS, NULL};
        case_lockstep("5. (5,1) shexp:0.5, mu 1, lambda 1.2: M/G/1, S = 0.5 + Exp(mean 0.1)", args,
                      lambda, shift + em, (shift + em) * (shift + em) + em * em, 502, 0, 0);
    }
    /* 5c. k = 1, exp, delta = 0.5: S = min_i(delta X_d + (1-delta) X_i) = delta X_d + (1-delta)
     * min_i X_i, X_d ~ Exp(mean m), min X_i ~ Exp(mean m/n), independent. The companion (delta =
     * 0) is the (n,1) M/M/1 at rate n mu. */
    {
        const double m = 1.0 / 3, nn = 10, d = 0.5, lambda = 2;
        const double a = d * m, b = (1 - d) * m / nn; /* means of the two exponential parts */
        const double es = a + b, es2 = 2 * a * a + 2 * a * b + 2 * b * b;
        const char *args[] = {"n=10", "k=1", "mu=3", "lambda=2", "correlation=0.5",
                              "warmup=5000", ARRIVALS, NULL};
        case_lockstep("5. (10,1) exp, delta 0.5, mu 3, lambda 2: M/G/1, S = 0.5 X_d + 0.5 min X_i",
                      args, lambda, es, es2, 503, 1, 1.0 / (nn * 3 - lambda));
    }
}

/* ------------------------------------------------------------------ 6, 7: groups */

static void case_groups(void)
{
    /* 7. uniform over 3 groups of (5,1) exp: each an M/M/1 at rate 5 mu fed lambda/3 */
    {
        model_run r;
        if (RUN(&r, 701, "n=5", "k=1", "mu=1", "groups=3", "assign=uniform", "lambda=9",
                "warmup=5000", ARRIVALS)) {
            CHECK(0);
            return;
        }
        printf("7. 3 groups of (5,1) exp, uniform, mu 1, lambda 9: M/M/1 at rate 5, lambda 3 "
               "each (c = %.2f)\n", c_of(r.reps));
        check_run_exact(&r, "mean_response_time = 1/(n mu - lambda/g)", "mean_response_time", 0,
                        1.0 / (5 - 3));
        check_run_exact(&r, "6. utilisation = lambda/(g n mu)", "utilisation", 0, 9.0 / 15);
        for (size_t G = 0; G < 3; G++) {
            char what[64];
            snprintf(what, sizeof what, "group_share[%zu] = 1/3", G);
            check_run_exact(&r, what, "group_share", G, 1.0 / 3);
            snprintf(what, sizeof what, "group_utilisation[%zu] = lambda/(g n mu)", G);
            check_run_exact(&r, what, "group_utilisation", G, 9.0 / 15);
        }
        model_run_free(&r);
    }
    /* 6. power of 2 over 4 groups of (5,2) exp: the groups are exchangeable, so share 1/4 each,
     * and the utilisation is still lambda/(g n mu) */
    {
        model_run r;
        if (RUN(&r, 601, "n=5", "k=2", "mu=1", "groups=4", "assign=pod:2", "lambda=12",
                "warmup=5000", ARRIVALS)) {
            CHECK(0);
            return;
        }
        printf("6. 4 groups of (5,2) exp, pod:2, mu 1, lambda 12 (c = %.2f)\n", c_of(r.reps));
        check_run_exact(&r, "utilisation = lambda/(g n mu)", "utilisation", 0, 12.0 / 20);
        for (size_t G = 0; G < 4; G++) {
            char what[64];
            snprintf(what, sizeof what, "group_share[%zu] = 1/4", G);
            check_run_exact(&r, what, "group_share", G, 0.25);
            snprintf(what, sizeof what, "group_utilisation[%zu] = lambda/(g n mu)", G);
            check_run_exact(&r, what, "group_utilisation", G, 12.0 / 20);
        }
        model_run_free(&r);
    }
}

/* ------------------------------------------------------------------ 8: assignment order */

/* a < b in mean response time: the paired difference b - a is significantly positive. */
static void check_better(const char *what, const model_run *a, const model_run *b)
{
    double d, se, ma, sa, mb, sb;
    stat_diff(b, a, "mean_response_time", 0, &d, &se);
    stat(a, "mean_response_time", 0, &ma, &sa);
    stat(b, "mean_response_time", 0, &mb, &sb);
    const double c = c_of(a->reps);
    const int ok = se > 0 && d > c * se;
    printf("  %-34s %.6g (se %.3g) < %.6g (se %.3g): paired diff %.5g, se %.3g, %.1f se "
           "(need > %.2f)%s\n",
           what, ma, sa, mb, sb, d, se, se > 0 ? d / se : 0.0, c, ok ? "" : "  FAIL");
    CHECK(ok);
}

static void case_order(void)
{
    /* 4 groups of (5,2) exp, mu 1: each group takes up to n mu = 5 jobs per unit time; at lambda
     * 16 (80% of the capacity 20) the policies differ clearly. Same seed for all: common random
     * numbers (arrivals and task times per job do not depend on the group). */
    const uint64_t seed = 801;
    model_run uni;
    if (RUN(&uni, seed, "n=5", "k=2", "mu=1", "groups=4", "lambda=16", "assign=uniform",
            "warmup=5000", ARRIVALS)) {
        CHECK(0);
        return;
    }
    printf("8. 4 groups of (5,2) exp, mu 1, lambda 16: lwl < pod:2 < uniform (c = %.2f)\n",
           c_of(uni.reps));
    check_run_exact(&uni, "uniform: utilisation = lambda/(g n mu)", "utilisation", 0, 16.0 / 20);
    const char *loads[] = {"load=work", "load=jobs"};
    for (int l = 0; l < 2; l++) {
        model_run pod, lwl;
        if (RUN(&pod, seed, "n=5", "k=2", "mu=1", "groups=4", "lambda=16", "assign=pod:2",
                loads[l], "warmup=5000", ARRIVALS) ||
            RUN(&lwl, seed, "n=5", "k=2", "mu=1", "groups=4", "lambda=16", "assign=lwl", loads[l],
                "warmup=5000", ARRIVALS)) {
            CHECK(0);
            return;
        }
        char what[64];
        snprintf(what, sizeof what, "%s: pod:2 < uniform", loads[l]);
        check_better(what, &pod, &uni);
        snprintf(what, sizeof what, "%s: lwl < pod:2", loads[l]);
        check_better(what, &lwl, &pod);
        for (size_t G = 0; G < 4; G++) {
            snprintf(what, sizeof what, "%s: lwl group_share[%zu] = 1/4", loads[l], G);
            check_run_exact(&lwl, what, "group_share", G, 0.25);
        }
        check_run_exact(&lwl, "lwl: utilisation = lambda/(g n mu)", "utilisation", 0, 16.0 / 20);
        model_run_free(&pod);
        model_run_free(&lwl);
    }
    model_run_free(&uni);
}

/* ------------------------------------------------------------------ main */

int main(void)
{
    const double t0 = now();
    printf("forkjoin statistical checks: %d replications per point, per-check false alarm %g\n",
           REPS, FALSE_ALARM);
    case_n1_exp(5, 1, 3, 101, 1);
    case_n1_exp(10, 3, 1, 102, 0);
    case_22(1, 1.5, 201, 1);
    case_22(1, 0.5, 202, 0);
    case_bounds(10, 5, 3, 1, 301);
    case_bounds(10, 8, 1, 1, 302);
    case_bounds(6, 3, 1, 4, 303);
    cases_lockstep();
    case_groups();
    case_order();
    printf("run time %.1f s\n", now() - t0);
    return check_report("test_forkjoin_stats");
}
