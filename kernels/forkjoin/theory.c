/* `forkjoin` theory: the analytic companions of a point (docs/models/forkjoin.md; Joshi, Liu,
 * Soljanin, "On the Delay-Storage Trade-off in Content Download from Coded Distributed Storage
 * Systems", called "the paper" below).
 *
 * Every figure states where it holds; nothing is stored where it does not:
 *   split-merge upper bound  any service family and correlation, one group or uniform assignment
 *                            (pathwise: a fork-join node never starts a job later than the
 *                            split-merge system that blocks all n nodes until the k-th finish), so
 *                            M/G/1 with S = the k-th smallest task time of a job (exact moments of
 *                            the order statistic per family: harmonic sums, Beta functions, or the
 *                            trace's empirical law); for exponential tasks it is the paper's (6);
 *   stage lower bound        exponential tasks, delta = 0, uniform: sum_j 1/((n-j) k mu -
 * lambda/g); no-queueing lower bound  everything (a job cannot leave before its k-th task would
 * finish on idle nodes): E[S]; exact (n,1)              exponential: 1/(n mu - lambda/g); any
 * family: the nodes move in lock-step, M/G/1 with S = the fastest task (also delta = 1 or det:
 *                            lock-step, M/G/1 with the task time);
 *   exact (2,2)              exponential, delta = 0 (Flatto-Hahn, Nelson-Tantawi);
 *   (n,n) upper bound        exponential, delta = 0: H_n / (n mu - lambda/g) (Nelson-Tantawi);
 *   paper's eq. (15)         delta E[X] + (1 - delta) T(n,k): an approximation, not a bound; with
 *                            T(n,k) exact where known, else the pair from its bounds, and (in
 *                            compare) from the coupled delta = 0 companion simulation. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* sum_{j = a+1}^{b} 1/j^p for p = 1, 2 (smallest terms first). */
static double fj_harmonic_gap(uint64_t a, uint64_t b, int p)
{
    double s = 0.0;
    for (uint64_t j = b; j > a; j--)
        s += p == 1 ? 1.0 / (double)j : 1.0 / ((double)j * (double)j);
    return s;
}

/* Regularised incomplete beta I_x(a, b) by its continued fraction (modified Lentz). */
static double fj_beta_reg(double a, double b, double x)
{
    if (x <= 0.0)
        return 0.0;
    if (x >= 1.0)
        return 1.0;
    if (x > (a + 1.0) / (a + b + 2.0))
        return 1.0 - fj_beta_reg(b, a, 1.0 - x);
    const double tiny = 1e-300;
    double front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x)) / a;
    double f = 1.0, C = 1.0, D = 0.0;
    for (int i = 0; i < 10000; i++) {
        double num;
        if (i == 0) {
            num = 1.0;
        } else if (i % 2 == 0) {
            double m = i / 2;
            num = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m));
        } else {
            double m = (i - 1) / 2;
            num = -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1));
        }
        D = 1.0 + num * D;
        D = fabs(D) < tiny ? 1.0 / tiny : 1.0 / D;
        C = 1.0 + num / C;
        if (fabs(C) < tiny)
            C = tiny;
        double cd = C * D;
        f *= cd;
        if (fabs(1.0 - cd) < 1e-15)
            break;
    }
    return front * (f - 1.0);
}

static int fj_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* E[X_(k)] and E[X_(k)^2] of the k-th smallest of n i.i.d. task parts X of the family. */
static void fj_order_moments(const fj_ctx *c, double *m1, double *m2)
{
    const double mean = c->mean, n = (double)c->n, k = (double)c->k;
    switch (c->family) {
    case FJ_FAM_EXP:
    case FJ_FAM_SHEXP: {
        double shift = c->family == FJ_FAM_SHEXP ? c->fraction * mean : 0.0;
        double emean = mean - shift; /* mean of the exponential part */
        double e = emean * fj_harmonic_gap(c->n - c->k, c->n, 1);
        double v = emean * emean * fj_harmonic_gap(c->n - c->k, c->n, 2);
        *m1 = shift + e;
        *m2 = v + (shift + e) * (shift + e);
        return;
    }
    case FJ_FAM_DET:
        *m1 = mean;
        *m2 = mean * mean;
        return;
    case FJ_FAM_PARETO: {
        /* E[X_(k)^r] = xm^r n!/(n-k)! Gamma(n-k+1-r/alpha) / Gamma(n+1-r/alpha), finite iff
         * n - k + 1 > r / alpha */
        const double a = c->alpha, xm = mean * (a - 1.0) / a;
        double r1 = 1.0 / a, r2 = 2.0 / a;
        *m1 = n - k + 1.0 > r1 ? xm * exp(lgamma(n + 1) - lgamma(n - k + 1) +
                                          lgamma(n - k + 1 - r1) - lgamma(n + 1 - r1))
                               : INFINITY;
        *m2 = n - k + 1.0 > r2 ? xm * xm * exp(lgamma(n + 1) - lgamma(n - k + 1) +
                                               lgamma(n - k + 1 - r2) - lgamma(n + 1 - r2))
                               : INFINITY;
        return;
    }
    default: { /* trace: the empirical law, each number with mass 1/M */
        const size_t M = c->law.ntrace;
        double *y = malloc(M * sizeof *y);
        if (!y) {
            *m1 = *m2 = NAN;
            return;
        }
        memcpy(y, c->law.trace, M * sizeof *y);
        qsort(y, M, sizeof *y, fj_cmp_double);
        double s1 = 0.0, s2 = 0.0, prev = 0.0;
        for (size_t j = 0; j < M; j++) {
            /* P(X_(k) <= y_j) = P(Bin(n, F(y_j)) >= k) = I_F(k, n - k + 1) */
            double G = j + 1 == M ? 1.0 : fj_beta_reg(k, n - k + 1.0, (double)(j + 1) / (double)M);
            double w = G - prev, v = y[j] * c->scale;
            prev = G;
            s1 += w * v;
            s2 += w * v * v;
        }
        free(y);
        *m1 = s1;
        *m2 = s2;
        return;
    }
    }
}

static double fj_family_var(const fj_ctx *c)
{
    const double mean = c->mean;
    switch (c->family) {
    case FJ_FAM_EXP:
        return mean * mean;
    case FJ_FAM_SHEXP:
        return (1.0 - c->fraction) * mean * (1.0 - c->fraction) * mean;
    case FJ_FAM_DET:
        return 0.0;
    case FJ_FAM_PARETO: {
        const double a = c->alpha, xm = mean * (a - 1.0) / a;
        return a > 2.0 ? xm * xm * a / (a - 2.0) - mean * mean : INFINITY;
    }
    default:
        return c->law.var * c->scale * c->scale;
    }
}

void storq_fj_moments_compute(const fj_ctx *c, fj_moments *m)
{
    const double d = c->delta, vx = fj_family_var(c);
    double o1, o2;
    fj_order_moments(c, &o1, &o2);
    double vo = o2 - o1 * o1;
    if (vo < 0.0)
        vo = 0.0;
    m->ex = c->mean;
    /* x = d X_d + (1-d) X_i; S = d X_d + (1-d) X_(k) (the shared part shifts every task) */
    if (d == 0.0) {
        m->vx = vx;
        m->es = o1;
        m->vs = isfinite(o2) ? vo : INFINITY;
    } else if (d == 1.0) {
        m->vx = vx;
        m->es = c->mean;
        m->vs = vx;
    } else {
        m->vx = (d * d + (1 - d) * (1 - d)) * vx;
        m->es = d * c->mean + (1 - d) * o1;
        m->vs = d * d * vx + (1 - d) * (1 - d) * (isfinite(o2) ? vo : INFINITY);
    }
}

/* Pollaczek-Khinchine mean response time of an M/G/1 queue (infinite when unstable). */
static double fj_pk(double lambda, double es, double vs)
{
    if (!(lambda * es < 1.0) || !isfinite(vs))
        return INFINITY;
    return es + lambda * (vs + es * es) / (2.0 * (1.0 - lambda * es));
}

static int add1(storq_theory *out, const char *name, const char *unit, const char *desc,
                double v, storq_error *err)
{
    return storq_theory_add(out, name, unit, desc, "", &v, 1, err);
}

/* Exact mean response time of the delta = 0 system where known (NAN otherwise). */
static double fj_exact_uncorrelated(const fj_ctx *c, double lg)
{
    const double n = (double)c->n, mu = c->mu;
    if (c->family == FJ_FAM_EXP && c->k == 1)
        return 1.0 / (n * mu - lg);
    if (c->family == FJ_FAM_EXP && c->n == 2 && c->k == 2) {
        double nu = 2.0 * mu, rho = lg / nu;
        return (12.0 - rho) / (8.0 * (nu - lg));
    }
    if (c->k == 1 || c->family == FJ_FAM_DET) {
        fj_ctx c0 = *c;
        c0.delta = 0.0;
        fj_moments m;
        storq_fj_moments_compute(&c0, &m);
        return fj_pk(lg, m.es, m.vs);
    }
    return NAN;
}

/* Mean response time of the M/M/c FCFS queue (arrival rate lambda, service rate mu each), by
 * Erlang B's recursion B_j = a B_{j-1} / (j + a B_{j-1}), a = lambda/mu, and Erlang C from it. */
static double fj_mmc(uint64_t c, double lambda, double mu)
{
    const double a = lambda / mu, rho = a / (double)c;
    if (!(rho < 1.0))
        return INFINITY;
    double B = 1.0;
    for (uint64_t j = 1; j <= c; j++)
        B = a * B / ((double)j + a * B);
    const double C = B / (1.0 - rho * (1.0 - B));
    return 1.0 / mu + C / ((double)c * mu - lambda);
}

int storq_fj_theory(const void *vctx, storq_theory *out, storq_error *err)
{
    const fj_ctx *c = vctx;
    const double lg = c->lambda_group, n = (double)c->n, k = (double)c->k, mu = c->mu;
    const int exp0 = c->family == FJ_FAM_EXP && c->delta == 0.0;
    const int uniform = c->g == 1 || c->assign == FJ_ASSIGN_UNIFORM;
    fj_moments m;
    storq_fj_moments_compute(c, &m);

    STORQ_TRY(add1(out, "task_mean", "time", "mean service time of a task, 1/(k mu)", c->mean,
                   err));
    STORQ_TRY(add1(out, "split_merge_service_mean", "time",
                   "E[S], S = the k-th smallest of a job's n task times (exact for the family)",
                   m.es, err));
    STORQ_TRY(add1(out, "split_merge_service_var", "time^2", "V[S] (infinite for heavy tails)",
                   m.vs, err));
    {
        char desc[256];
        snprintf(desc, sizeof desc,
                 "arrival rate (all groups) the point must stay below: g times %s%s",
                 c->capacity_why,
                 c->capacity_exact ? ""
                                   : "; the split-merge sufficient "
                                     "condition lambda/g < 1/E[S] fails here");
        STORQ_TRY(add1(out, "capacity", "1/time", desc, c->capacity * (double)c->g, err));
    }
    STORQ_TRY(add1(out, "lower_bound_no_queueing", "time",
                   "E[S]: a job cannot leave before its k-th task would finish on idle nodes; "
                   "holds for every family, correlation and assignment",
                   m.es, err));
    /* single-disk groups holding a full copy (the paper's Fig. 7): sending each job to the disk
     * with the least work left starts it exactly when a central FCFS queue would, so least work
     * left (or power-of-g) over g exponential disks is the M/M/g queue */
    if (c->n == 1 && c->k == 1 && c->g > 1 && c->family == FJ_FAM_EXP && c->delta == 0.0 &&
        c->load == FJ_LOAD_WORK &&
        (c->assign == FJ_ASSIGN_LWL || (c->assign == FJ_ASSIGN_POD && c->pod_d == c->g)) &&
        c->lambda < (double)c->g * mu)
        STORQ_TRY(add1(out, "mean_response_time", "time",
                       "exact: least work left over g single-disk groups (n = k = 1, exponential "
                       "tasks, load = work) is an M/M/g FCFS queue: 1/mu + C(g, lambda/mu)/(g mu - "
                       "lambda), C Erlang's delay probability",
                       fj_mmc(c->g, c->lambda, mu), err));
    if (!uniform)
        return STORQ_OK; /* the paper's bounds and exact results assume Poisson lambda/g per group
                          */
    if (!(lg < c->capacity))
        return STORQ_OK; /* beyond capacity (--allow-unstable, storq theory): no steady state for
                          * the bounds and exact means below to describe */

    double ub = fj_pk(lg, m.es, m.vs);
    if (isfinite(ub))
        STORQ_TRY(add1(out, "upper_bound", "time",
                       "split-merge upper bound (the paper's Thm 1, eq. 6 for exponential tasks): "
                       "M/G/1 at lambda/g with service S; holds for every family and correlation "
                       "under uniform assignment, finite while lambda E[S] / g < 1",
                       ub, err));
    double lb = NAN;
    if (exp0) {
        lb = 0.0;
        for (uint64_t j = 0; j < c->k; j++)
            lb += 1.0 / ((n - (double)j) * k * mu - lg);
        STORQ_TRY(add1(out, "lower_bound", "time",
                       "stage lower bound (the paper's Thm 2, eq. 10): sum_j 1/((n-j) k mu - "
                       "lambda/g); exponential tasks without correlation only",
                       lb, err));
        if (c->k == c->n)
            STORQ_TRY(add1(out, "upper_bound_nn", "time",
                           "Nelson-Tantawi upper bound of the (n,n) system, H_n / (n mu - "
                           "lambda/g); exponential tasks without correlation only",
                           fj_harmonic_gap(0, c->n, 1) / (n * mu - lg), err));
    }

    /* exact mean response time, where one is known */
    double exact = NAN;
    const char *why = NULL;
    if (exp0 && c->k == 1) {
        exact = 1.0 / (n * mu - lg);
        why = "exact (n,1), the paper's Corollary 1: 1/(n mu - lambda/g)";
    } else if (exp0 && c->n == 2 && c->k == 2) {
        exact = fj_exact_uncorrelated(c, lg);
        why = "exact (2,2) (Flatto-Hahn, Nelson-Tantawi): (12 - rho)/(8 (nu - lambda/g)), "
              "nu = 2 mu, rho = lambda/(g nu)";
    } else if (c->k == 1 || c->delta == 1.0 || c->family == FJ_FAM_DET) {
        exact = ub;
        why = c->delta == 1.0 ? "exact: with delta = 1 every node is identical, an M/G/1 queue "
                                "with the shared task time (exponential: M/M/1 at rate k mu)"
              : c->k == 1     ? "exact (n,1) for any family: the nodes move in lock-step, an "
                                "M/G/1 queue with S = the fastest of the n task times"
                              : "exact: deterministic tasks keep the nodes in lock-step, an "
                                "M/D/1 queue with service 1/(k mu)";
    }
    if (!why && c->k == c->n && c->delta == 0.0 && !isfinite(fj_family_var(c))) {
        exact = INFINITY; /* T >= the M/G/1 waiting time at any one node, whose mean is infinite */
        why = "infinite: with k = n every task is served in full, so each node is an M/G/1 queue "
              "whose service time has an infinite second moment (Pareto alpha <= 2)";
    }
    if (why && !isnan(exact))
        STORQ_TRY(add1(out, "mean_response_time", "time", why, exact, err));

    /* the paper's eq. (15): delta E[X_d] + (1 - delta) T(n,k), T(n,k) at delta = 0 */
    if (c->delta > 0.0) {
        const char *d15 = "the paper's eq. (15), delta/(k mu) + (1 - delta) T(n,k): an "
                          "approximation (it ignores the queueing the shared part causes; at "
                          "delta = 1 it gives 1/(k mu), not 1/(k mu - lambda/g))";
        double t0 = c->delta == 1.0 ? 0.0 : fj_exact_uncorrelated(c, lg);
        char desc[256];
        if (isfinite(t0)) {
            STORQ_TRY(add1(out, "paper_eq15", "time", d15, c->delta * c->mean +
                           (1.0 - c->delta) * t0, err));
        } else {
            fj_ctx c0 = *c;
            c0.delta = 0.0;
            fj_moments m0;
            storq_fj_moments_compute(&c0, &m0);
            double lo = m0.es, hi = fj_pk(lg, m0.es, m0.vs);
            if (c->family == FJ_FAM_EXP) {
                lo = 0.0;
                for (uint64_t j = 0; j < c->k; j++)
                    lo += 1.0 / ((n - (double)j) * k * mu - lg);
            }
            snprintf(desc, sizeof desc, "%s, with T(n,k) at its lower bound", d15);
            STORQ_TRY(add1(out, "paper_eq15_lower", "time", desc,
                           c->delta * c->mean + (1.0 - c->delta) * lo, err));
            if (isfinite(hi)) {
                snprintf(desc, sizeof desc, "%s, with T(n,k) at its split-merge upper bound", d15);
                STORQ_TRY(add1(out, "paper_eq15_upper", "time", desc,
                               c->delta * c->mean + (1.0 - c->delta) * hi, err));
            }
        }
    }
    (void)lb;
    return STORQ_OK;
}

int storq_fj_compare(const void *vctx, const storq_summary *sim, const storq_theory *theory,
               storq_theory *out, storq_error *err)
{
    const fj_ctx *c = vctx;
    const storq_obs_def *dm = storq_obs_find(sim->schema, "mean_response_time");
    if (!dm)
        return STORQ_OK;
    const double T = sim->mean[dm->value_offset];
    const storq_array *a;
    if ((a = storq_theory_find(theory, "mean_response_time")) && a->len == 1)
        STORQ_TRY(add1(out, "sim_minus_exact", "time",
                       "simulated mean response time - the exact one (0 within its ci95)",
                       T - a->data[0], err));
    if ((a = storq_theory_find(theory, "upper_bound")) && a->len == 1)
        STORQ_TRY(add1(out, "upper_bound_minus_sim", "time",
                       "split-merge upper bound - simulated mean (>= 0 within noise)",
                       a->data[0] - T, err));
    if ((a = storq_theory_find(theory, "lower_bound")) && a->len == 1)
        STORQ_TRY(add1(out, "sim_minus_lower_bound", "time",
                       "simulated mean - stage lower bound (>= 0 within noise)", T - a->data[0],
                       err));
    const storq_obs_def *d0 = storq_obs_find(sim->schema, "uncorrelated_mean_response_time");
    if (d0) {
        double eq15 = c->delta * c->mean + (1.0 - c->delta) * sim->mean[d0->value_offset];
        STORQ_TRY(add1(out, "paper_eq15_sim", "time",
                       "the paper's eq. (15) with T(n,k) from the coupled delta = 0 companion",
                       eq15, err));
        STORQ_TRY(add1(out, "sim_minus_paper_eq15", "time",
                       "simulated mean - paper_eq15_sim: how far the approximation is off",
                       T - eq15, err));
    }
    return STORQ_OK;
}
