/* `threads` theory: the paper's load, the throughput of each policy under full load, the delay-gap
 * terms of its theorems and the interval the optimal policy's mean flow time lies in
 * (docs/models/threads.md says which statements are exact and which are bounds).
 *
 * The seed text lost the theorems' formulas; what it states, and so what is used here:
 *   Theorem 1  exp downloads, d_min >= L, preemption: preemptive SERPT-R is delay-optimal (gap 0).
 *   Theorem 2  exp, preemption, d_min < L: gap (1/mu) sum_{l=d_min}^{L-1} 1/l (the "last term of
 *              (4)", quoted as 0.0117 s for L = 5, d_min = 3, 1/mu = 0.02 s).
 *   Theorem 3  exp, d_min >= L, no preemption: non-preemptive SEDPT-R is within 1/mu.
 *   Theorem 4  exp, no preemption, d_min < L: 1/mu plus the same last term (the text: "if
 *              d_min >= L the last term in (6) becomes zero, which corresponds to Theorem 3").
 *   Lemma 3, Theorems 5-6  NLU downloads: SEDPT-WCR (preemptive) and SEDPT-NR (non-preemptive)
 *              are within a gap "of the order" (ln L + 1)/mu, 1/mu = E[X]; the exact constants
 *              are lost (the paper quotes 0.0560 s for its Fig. 3), so this term is labelled an
 *              order, not a bound.
 *   Theorem 7  NSU downloads, no preemption: SEDPT-R is delay-optimal (as the text applies it, to
 *              Fig. 4's replicated requests: every k = 1; d_min >= L is also required here).
 * The optimum's interval, per preemption class: upper end the smallest simulated mean flow time of
 * the listed policies admissible in the class (any policy in the preemptive class, the
 * non-preemptive ones in the other), lower end the largest D_P - gap_P over the listed policies P
 * a theorem covers. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* integral over [0, T] of S(t)^m by Simpson's rule on n (even) intervals */
static double th_simpson(const storq_dist *d, uint64_t m, double T, int n)
{
    const double h = T / n;
    double s = 0.0;
    for (int i = 0; i <= n; i++) {
        const double t = h * i;
        double S;
        if (d->kind == STORQ_DIST_HYPEREXP) {
            S = 0.0;
            for (int j = 0; j + 1 < d->nparams; j += 2)
                S += d->p[j] * exp(-d->p[j + 1] * t);
        } else { /* erlang: P(Poisson(rt) < K) */
            const double rt = d->p[1] * t;
            double term = exp(-rt);
            S = 0.0;
            for (int j = 0; j < (int)d->p[0]; j++) {
                S += term;
                term *= rt / (j + 1);
            }
        }
        const double f = pow(S, (double)m);
        s += f * (i == 0 || i == n ? 1.0 : (i % 2 ? 4.0 : 2.0));
    }
    return s * h / 3.0;
}

double storq_th_emin(const storq_dist *d, uint64_t m)
{
    const double M = (double)m;
    switch (d->kind) {
    case STORQ_DIST_EXP:
        return 1.0 / (M * d->p[0]);
    case STORQ_DIST_SHEXP:
        return d->p[0] + 1.0 / (M * d->p[1]);
    case STORQ_DIST_DET:
        return d->p[0];
    case STORQ_DIST_UNIFORM:
        return d->p[0] + (d->p[1] - d->p[0]) / (M + 1.0);
    case STORQ_DIST_PARETO: /* the minimum of m is Pareto(m alpha) with the same scale */
        return M * d->p[0] > 1.0 ? d->p[2] * M * d->p[0] / (M * d->p[0] - 1.0) : INFINITY;
    case STORQ_DIST_HYPEREXP: {
        double rmin = INFINITY;
        for (int j = 1; j < d->nparams; j += 2)
            rmin = d->p[j] < rmin ? d->p[j] : rmin;
        return th_simpson(d, m, 45.0 / (M * rmin), 400000);
    }
    case STORQ_DIST_ERLANG: {
        const double K = d->p[0];
        if (K > 200)
            return NAN;
        return th_simpson(d, m, (K + 45.0 + 12.0 * sqrt(K)) / d->p[1], 400000);
    }
    default:
        return NAN;
    }
}

double storq_th_capacity(const th_ctx *x, const th_policy *P, int *exact)
{
    const double L = (double)x->L, EX = x->dl.mean;
    *exact = 1;
    /* exponential: every busy thread completes chunks at rate mu, each completion useful */
    if (x->law_class == 0 || P->redund != TH_R)
        return L / EX; /* NR, WCR: no redundancy under full load, each download one chunk */
    int all_k1 = 1;
    for (int i = 0; i < x->nclass; i++)
        all_k1 &= x->cls[i].k == 1;
    if (all_k1 && x->dmin >= x->L && x->emin_L > 0.0)
        return 1.0 / x->emin_L; /* all L threads race on one request at a time */
    *exact = 0;
    if (x->law_class == 1)
        return L / EX; /* NLU: m E[min of m] >= E[X], redundancy never adds throughput */
    if (x->law_class == 2 && x->emin_L > 0.0)
        return 1.0 / x->emin_L; /* NSU: no grouping of threads beats all L on one chunk */
    return INFINITY;
}

static double th_harmonic_tail(const th_ctx *x)
{
    double s = 0.0;
    for (uint64_t l = x->dmin; l < x->L; l++)
        s += 1.0 / (double)l;
    return s;
}

double storq_th_gap(const th_ctx *x, const th_policy *P, const char **label)
{
    const double inv_mu = x->dl.mean;
    *label = NULL;
    if (x->law_class == 0) {
        if (P->order == TH_SERPT && P->redund == TH_R && P->preempt) {
            *label = x->dmin >= x->L ? "Theorem 1 (exact: preemptive SERPT-R is optimal)"
                                     : "Theorem 2 (bound: (1/mu) sum_{l=d_min}^{L-1} 1/l)";
            return inv_mu * th_harmonic_tail(x);
        }
        if (P->order == TH_SEDPT && P->redund == TH_R && !P->preempt) {
            *label = x->dmin >= x->L ? "Theorem 3 (bound: 1/mu)"
                                     : "Theorem 4 (bound: 1/mu + (1/mu) sum_{l=d_min}^{L-1} 1/l)";
            return inv_mu * (1.0 + th_harmonic_tail(x));
        }
        return NAN;
    }
    if (x->law_class == 1 && P->order == TH_SEDPT &&
        ((P->redund == TH_WCR && P->preempt) || (P->redund == TH_NR && !P->preempt))) {
        *label = "Lemma 3 / Theorems 5-6 (order (ln L + 1)/mu, 1/mu = E[X]; constants lost)";
        return inv_mu * (log((double)x->L) + 1.0);
    }
    if (x->law_class == 2 && P->order == TH_SEDPT && P->redund == TH_R && !P->preempt &&
        x->dmin >= x->L) {
        for (int i = 0; i < x->nclass; i++)
            if (x->cls[i].k != 1)
                return NAN;
        *label = "Theorem 7 (exact: non-preemptive SEDPT-R is optimal for NSU, k = 1)";
        return 0.0;
    }
    return NAN;
}

static int add1(storq_theory *out, const char *name, const char *unit, const char *desc,
                double v, storq_error *err)
{
    return storq_theory_add(out, name, unit, desc, "", &v, 1, err);
}

int storq_th_theory(const void *vctx, storq_theory *out, storq_error *err)
{
    const th_ctx *x = vctx;
    const double L = (double)x->L;
    char name[STORQ_NAME_MAX], desc[256];
    STORQ_TRY(add1(out, "lambda", "1/time", "request arrival rate set by --rho and --load (exact)",
                   x->lambda, err));
    STORQ_TRY(add1(out, "rho_mean", "1",
                   "lambda E[k] E[X] / L: the paper's rho = lambda E[k] / (L mu) with 1/mu = E[X] "
                   "(its definition for exponential and NLU downloads)",
                   x->lambda * x->Ek * x->dl.mean / L, err));
    if (x->emin_L > 0.0 && isfinite(x->emin_L))
        STORQ_TRY(add1(out, "rho_min", "1",
                       "lambda E[k] E[min of L downloads]: the paper's rho for NSU downloads "
                       "under SEDPT-R (Fig. 4); equals rho_mean for exponential downloads",
                       x->lambda * x->Ek * x->emin_L, err));
    STORQ_TRY(add1(out, "mean_k", "chunks", "E[k], share-weighted (exact)", x->Ek, err));
    STORQ_TRY(add1(out, "d_min", "chunks", "minimum code distance n - k + 1 over the classes",
                   (double)x->dmin, err));
    STORQ_TRY(add1(out, "mean_download", "time", "E[X] = 1/mu (exact)", x->dl.mean, err));
    if (isfinite(x->emin_L))
        STORQ_TRY(add1(out, "mean_min_download", "time",
                       "E[min of L i.i.d. downloads] (closed form, or Simpson's rule to ~1e-10 "
                       "for hyperexp and erlang)", x->emin_L, err));
    if (x->relax_bound)
        STORQ_TRY(add1(out, "bound_light_traffic", "time",
                       "the lower bound's (bound_mean_flow_time's) limit as rho -> 0: a lone "
                       "request served by all L threads, E[k] E[X] / L (exact)",
                       x->Ek * x->dl.mean / L, err));
    for (int q = 0; q < x->npol; q++) {
        const th_policy *P = &x->pol[q];
        int exact = 0;
        const double C = storq_th_capacity(x, P, &exact);
        snprintf(name, sizeof name, "capacity_%s", P->name);
        snprintf(desc, sizeof desc, "%s: chunks per unit time sustained under full load (%s; "
                 "inf: unknown)", P->spec, exact ? "exact" : "upper bound");
        STORQ_TRY(add1(out, name, "1/time", desc, C, err));
        const char *label;
        const double g = storq_th_gap(x, P, &label);
        /* a delay gap needs finite delays: none at or beyond the policy's capacity */
        if (label && !(x->lambda * x->Ek >= C)) {
            snprintf(name, sizeof name, "gap_%s", P->name);
            snprintf(desc, sizeof desc, "%s: the paper's delay gap to the optimum, %s", P->spec,
                     label);
            STORQ_TRY(add1(out, name, "time", desc, g, err));
        }
    }
    return STORQ_OK;
}

/* The optimum's interval, per preemption class (see the top of the file). */
int storq_th_compare(const void *vctx, const storq_summary *sim, const storq_theory *theory,
                     storq_theory *out, storq_error *err)
{
    const th_ctx *x = vctx;
    (void)theory;
    char name[STORQ_NAME_MAX], desc[320];
    for (int cls = 1; cls >= 0; cls--) { /* 1: preemptive class, 0: non-preemptive */
        double upper = INFINITY, lower = -INFINITY, lower_ci = NAN, upper_ci = NAN;
        const char *lower_by = NULL, *upper_by = NULL;
        for (int q = 0; q < x->npol; q++) {
            const th_policy *P = &x->pol[q];
            snprintf(name, sizeof name, "%s_mean_flow_time", P->name);
            const storq_obs_def *d = storq_obs_find(sim->schema, name);
            if (!d)
                continue;
            const double D = sim->mean[d->value_offset], ci = sim->ci95[d->value_offset];
            if (cls == 1 || !P->preempt) {
                if (D < upper) {
                    upper = D;
                    upper_ci = ci;
                    upper_by = P->spec;
                }
            }
            if (P->preempt != cls)
                continue;
            const char *label;
            const double g = storq_th_gap(x, P, &label);
            if (!label || !(D - g > lower))
                continue;
            lower = D - g;
            lower_ci = ci;
            lower_by = P->spec;
        }
        if (!lower_by)
            continue;
        const char *c = cls ? "preemptive" : "nonpreemptive";
        snprintf(name, sizeof name, "optimum_%s_upper", c);
        snprintf(desc, sizeof desc, "upper end of the interval of the optimal %s policy's mean "
                 "flow time: %s's simulated mean (the best listed)", c, upper_by);
        STORQ_TRY(add1(out, name, "time", desc, upper, err));
        snprintf(name, sizeof name, "optimum_%s_upper_ci95", c);
        STORQ_TRY(add1(out, name, "time", "95% CI half-width of the upper end", upper_ci, err));
        snprintf(name, sizeof name, "optimum_%s_lower", c);
        snprintf(desc, sizeof desc, "lower end of the interval of the optimal %s policy's mean "
                 "flow time: %s's simulated mean minus its gap term (gap_*)", c, lower_by);
        STORQ_TRY(add1(out, name, "time", desc, lower, err));
        snprintf(name, sizeof name, "optimum_%s_lower_ci95", c);
        STORQ_TRY(add1(out, name, "time", "95% CI half-width of the lower end", lower_ci, err));
    }
    return STORQ_OK;
}
