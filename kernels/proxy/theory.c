/* `proxy` theory: the paper's delay model and approximations (docs/models/proxy.md).
 *
 * Each class's task delay is read as Delta + Exp(mu) (exact for shexp, exp and det; otherwise
 * fitted as the paper does: 1/mu = the standard deviation, Delta + 1/mu = the mean, after dropping
 * the worst 0.1% of a trace). From that:
 *   u(n)      = n Delta + k/mu, the expected thread time of one request          (exact under the
 *                                                                                 model, blocking)
 *   D_s(n)    = Delta + sum_{j=n-k+1..n} 1/(j mu), the mean service delay        (exact for
 *               blocking and shexp: all n tasks start together; else an approximation)
 *   C_b       in [(L - n + 1)/u(n), L/u(n)]                                      (bounds, blocking)
 *   C~_b      their mean, C~_nb = L/u(n)                                         (approximations)
 *   D~_q      = lambda (1 + 1/n) / (2 C~ (C~ - lambda)): Pollaczek-Khinchine with Erlang(n)
 *               service of mean 1/C~                                            (approximation)
 *   lambda_n  where D_s(n) + D~_q(n) = D_s(n+1) + D~_q(n+1); Q_n = lambda_n D~_q(n, lambda_n)
 *               (the paper's thresholds: design quantities, not predictions)
 * The crossover is the one root of that quadratic in (0, min(C~(n), C~(n+1))): the difference of
 * the two delays is D_s(n) - D_s(n+1) > 0 at lambda = 0 and falls to -infinity at the smaller
 * capacity, crossing zero once (a quadratic has at most two roots and the sign changes an odd
 * number of times); it is found by bisection to rounding. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

double storq_px_usage(const px_class *c, double n)
{
    return n * c->delta + (double)c->k * c->tau;
}

double storq_px_service(const px_class *c, uint64_t n)
{
    double s = 0.0;
    for (uint64_t j = n - c->k + 1; j <= n; j++)
        s += 1.0 / (double)j;
    return c->delta + c->tau * s;
}

double storq_px_capacity(const px_ctx *x, const px_class *c, uint64_t n)
{
    const double u = storq_px_usage(c, (double)n), L = (double)x->L;
    if (x->admission == PX_BLOCKING)
        return (2.0 * L - (double)n + 1.0) / (2.0 * u);
    return L / u;
}

double storq_px_queueing(const px_ctx *x, const px_class *c, uint64_t n, double lambda)
{
    const double C = storq_px_capacity(x, c, n);
    if (!(lambda < C))
        return INFINITY;
    /* rates in units of 2^k near C (exact): C^2 overflows at time scales like 1e-200 */
    int k = 0;
    frexp(C, &k);
    const double cs = ldexp(C, -k), l = ldexp(lambda, -k);
    return ldexp(l * (1.0 + 1.0 / (double)n) / (2.0 * cs * (cs - l)), -k);
}

static double px_total(const px_ctx *x, const px_class *c, uint64_t n, double lambda)
{
    return storq_px_service(c, n) + storq_px_queueing(x, c, n, lambda);
}

void storq_px_thresholds(const px_ctx *x, px_class *c)
{
    for (uint64_t n = c->k; n < c->nmax; n++) {
        c->lam_cross[n] = NAN;
        c->Q[n] = INFINITY;
        if (!isfinite(c->delta) || !isfinite(c->tau))
            continue;
        const double gap = storq_px_service(c, n) - storq_px_service(c, n + 1);
        if (!(gap > 0.0)) { /* no spread to gain from: n always beats n + 1 */
            c->lam_cross[n] = 0.0;
            c->Q[n] = 0.0;
            continue;
        }
        double Cn = storq_px_capacity(x, c, n), Cn1 = storq_px_capacity(x, c, n + 1);
        double hi = Cn < Cn1 ? Cn : Cn1, lo = 0.0;
        double top = hi * (1.0 - 1e-15);
        if (px_total(x, c, n, top) - px_total(x, c, n + 1, top) > 0.0)
            continue; /* n + 1 is better up to the capacity (Delta = 0, non-blocking) */
        for (int it = 0; it < 200 && lo < hi; it++) {
            double mid = 0.5 * (lo + hi);
            if (mid <= lo || mid >= hi)
                break;
            if (px_total(x, c, n, mid) - px_total(x, c, n + 1, mid) > 0.0)
                lo = mid;
            else
                hi = mid;
        }
        c->lam_cross[n] = lo;
        c->Q[n] = lo * storq_px_queueing(x, c, n, lo);
    }
}

static int add1(storq_theory *out, const char *name, const char *unit, const char *desc,
                double v, storq_error *err)
{
    return storq_theory_add(out, name, unit, desc, "", &v, 1, err);
}

/* The arrays of one class over n = k .. nmax (crossovers over n = k .. nmax - 1); pre is "" for a
 * single class, "NAME_" otherwise, and lambda the class's own arrival rate. */
static int px_theory_class(const px_ctx *x, const px_class *c, const char *pre, double lambda,
                           storq_theory *out, storq_error *err)
{
    const size_t len = (size_t)(c->nmax - c->k + 1);
    double *v = malloc(sizeof *v * len * 8);
    if (!v)
        return STORQ_RUNTIME_FAIL(err, "out of memory");
    double *n = v, *u = v + len, *ds = v + 2 * len, *clo = v + 3 * len, *chi = v + 4 * len;
    double *cap = v + 5 * len, *dq = v + 6 * len, *d = v + 7 * len;
    for (size_t i = 0; i < len; i++) {
        uint64_t nn = c->k + i;
        const double un = storq_px_usage(c, (double)nn);
        n[i] = (double)nn;
        u[i] = un;
        ds[i] = storq_px_service(c, nn);
        clo[i] = ((double)x->L - (double)nn + 1.0) / un;
        chi[i] = (double)x->L / un;
        cap[i] = storq_px_capacity(x, c, nn);
        dq[i] = storq_px_queueing(x, c, nn, lambda);
        d[i] = ds[i] + dq[i];
    }
    const char *how = c->fit ? "with Delta and 1/mu fitted to the law (mean and standard "
                               "deviation, the paper's fit)"
                             : "with the law's own Delta and mu";
    const char *adm = x->admission == PX_BLOCKING ? "blocking" : "non-blocking";
    char name[STORQ_NAME_MAX], desc[256];
    int rc = STORQ_OK;
#define ARR(nm, unit, ptr, count, ...)                                                             \
    do {                                                                                           \
        snprintf(name, sizeof name, "%s%s", pre, nm);                                              \
        snprintf(desc, sizeof desc, __VA_ARGS__);                                                  \
        if (!rc)                                                                                   \
            rc = storq_theory_add(out, name, unit, desc, "", ptr, count, err);                     \
    } while (0)
    ARR("code_n", "tasks", n, len, "code lengths n = k .. nmax of the arrays below");
    ARR("usage", "time", u, len,
        "u(n) = n Delta + k/mu: expected thread time per request (exact under the Delta + Exp "
        "model with blocking admission), %s", how);
    ARR("service_delay", "time", ds, len,
        "D_s(n) = Delta + sum_{j=n-k+1..n} 1/(j mu): exact mean service delay for blocking "
        "admission and shexp delays, an approximation otherwise; %s", how);
    ARR("capacity_blocking_lower", "1/time", clo, len,
        "(L - n + 1)/u(n): the paper's lower bound on the blocking capacity (Delta + Exp model)");
    ARR("capacity_blocking_upper", "1/time", chi, len,
        "L/u(n): the paper's upper bound on the blocking capacity, and its approximation C~_nb "
        "of the non-blocking capacity");
    ARR("capacity_estimate", "1/time", cap, len,
        "C~(n) for %s admission: %s (approximation)", adm,
        x->admission == PX_BLOCKING ? "the mean of the two blocking bounds" : "L/u(n)");
    ARR("queueing_delay_approx", "time", dq, len,
        "D~_q(n) at this class's arrival rate %.6g: M/G/1 with Erlang(n) service of mean 1/C~(n) "
        "(Pollaczek-Khinchine; approximation; inf beyond C~)", lambda);
    ARR("delay_approx", "time", d, len, "D~(n) = D_s(n) + D~_q(n): the paper's approximation of "
        "the mean delay with a fixed (n,k) code");
    if (len > 1) {
        for (size_t i = 0; i + 1 < len; i++) {
            u[i] = c->lam_cross[c->k + i];
            ds[i] = c->Q[c->k + i];
        }
        ARR("crossover_rate", "1/time", u, len - 1,
            "lambda_n, n = k .. nmax-1: the rate where D~(n) = D~(n+1) (approximation; NaN when "
            "n+1 is better up to the capacity)");
        ARR("threshold", "requests", ds, len - 1,
            "Q_n = lambda_n D~_q(n, lambda_n), n = k .. nmax-1: BAFEC's backlog thresholds (n = k "
            "+ #{j : backlog < Q_j}; inf when lambda_n is none)");
    }
    ARR("delta", "time", &c->delta, 1, "Delta of the Delta + Exp(mu) delay model (%s)",
        c->fit ? "fitted" : "exact");
    ARR("inv_mu", "time", &c->tau, 1, "1/mu of the Delta + Exp(mu) delay model (%s)",
        c->fit ? "fitted" : "exact");
#undef ARR
    free(v);
    return rc;
}

int storq_px_theory(const void *vctx, storq_theory *out, storq_error *err)
{
    const px_ctx *x = vctx;
    for (int i = 0; i < x->nclass; i++) {
        const px_class *c = &x->cls[i];
        char pre[24] = "";
        if (x->nclass > 1)
            snprintf(pre, sizeof pre, "%s_", c->name);
        /* one class: its rate is lambda; several: each class's own arrays at its own rate (the
         * paper computes MBAFEC's thresholds from class-i-only arrivals) */
        STORQ_TRY(px_theory_class(x, c, pre, x->lambda * c->share, out, err));
    }
    return storq_px_mc_theory(x, out, err); /* several classes: eq. 5 and its layers */
}

/* Per fixed-code policy of one class: simulation minus the approximation, with its CI (the
 * approximation is a constant, so the simulated mean's CI is the difference's). */
int storq_px_compare(const void *vctx, const storq_summary *sim, const storq_theory *theory,
                     storq_theory *out, storq_error *err)
{
    const px_ctx *x = vctx;
    (void)theory;
    if (x->nclass != 1)
        return STORQ_OK;
    const px_class *c = &x->cls[0];
    for (int p = 0; p < x->npol; p++) {
        const px_policy *P = &x->pol[p];
        if (P->kind != PX_FIXED)
            continue;
        char name[STORQ_NAME_MAX], desc[256];
        snprintf(name, sizeof name, "%s_mean_delay", P->name);
        const storq_obs_def *dm = storq_obs_find(sim->schema, name);
        if (!dm)
            continue;
        const double T = sim->mean[dm->value_offset], ci = sim->ci95[dm->value_offset];
        const double D = px_total(x, c, P->n[0], x->lambda);
        snprintf(name, sizeof name, "%s_sim_minus_approx", P->name);
        snprintf(desc, sizeof desc, "%s: simulated mean delay - D~(%llu) (the paper's "
                 "approximation)", P->name, (unsigned long long)P->n[0]);
        STORQ_TRY(add1(out, name, "time", desc, T - D, err));
        snprintf(name, sizeof name, "%s_sim_minus_approx_ci95", P->name);
        snprintf(desc, sizeof desc, "%s: 95%% CI half-width of sim_minus_approx", P->name);
        STORQ_TRY(add1(out, name, "time", desc, ci, err));
        snprintf(name, sizeof name, "%s_approx_error", P->name);
        snprintf(desc, sizeof desc, "%s: (D~ - simulated mean) / simulated mean, the relative "
                 "error of the approximation (the paper's Table I)", P->name);
        STORQ_TRY(add1(out, name, "1", desc, (D - T) / T, err));
    }
    return STORQ_OK;
}
