/* The theory stored beside `cluster` runs (docs/models/cluster-theory.md): BR's cavity queue and
 * the product-form delay figure of the paper "Delay Comparison of Delivery and Coding Policies in
 * Data Clusters", over the size law's mixture, overall and per size class; and the simulated BR
 * delay against it. The numerics are in cavity.c and product_form.c. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cavity.h"
#include "memory.h"
#include "internal.h"
#include "model.h"

#define CL_BOUND_NOTE                                                                          \
    " The paper proves the product-form figure bounds BR's delay (BR's delay is stochastically " \
    "smaller), and that WF and BS are better than BR in increasing convex order."

/* The axis of a theory array: the BR observable named suffix (the first listed policy's when BR
 * is not listed: the grids are the same for every policy). */
static const char *cl_grid_name(const cl_ctx *c, const char *suffix, char *buf, size_t size)
{
    int pi = 0;
    for (int i = 0; i < c->npol; i++)
        if (c->pol[i] == CL_BR)
            pi = i;
    snprintf(buf, size, "%s_%s", storq_cl_pol_name[c->pol[pi]], suffix);
    return buf;
}

/* The cavity queue's stationary workload: 0, 1 when it cannot be solved (a warning: the run has
 * no theory), or an error. */
static int cl_solve_cavity(const cl_ctx *c, cl_cavity *cav, storq_error *err)
{
    size_t xmax = 0;
    double *px = storq_cl_cavity_blocks_law(&c->size, (unsigned)c->m, &xmax);
    if (!px)
        return STORQ_RUNTIME_FAIL(err, "cavity queue: blocks law failed (out of memory)");
    memset(cav, 0, sizeof *cav);
    int bad = storq_cl_cavity_solve(c->lambda, c->mu, px, xmax, &c->cdist, 1e-6, cav);
    free(px);
    if (bad) { /* a tail too heavy to capture: the simulation stands without its theory */
        storq_warn("cluster: the cavity queue could not be solved (rho = %g, chunk_dist %s): "
                   "no theory arrays for this point", c->rho, c->cdist.spec);
        return -1;
    }
    return STORQ_OK;
}

/* The cavity queue's arrays: its grid, workload CDF and error, and the M/M/1 closed form when it
 * applies (exponential chunks, every k <= m). */
static int cl_theory_cavity(const cl_ctx *c, const cl_cavity *cav, storq_theory *out,
                            storq_error *err)
{
    size_t np = cav->npoints;
    double *grid = malloc(2 * np * sizeof *grid), *mm1 = grid + np;
    if (!grid)
        return STORQ_RUNTIME_FAIL(err, "out of memory");
    for (size_t j = 0; j < np; j++)
        grid[j] = (double)j * cav->h;
    int rc;
    if ((rc = storq_theory_add(out, "cavity_grid", "time",
                               "workload levels w = j h of the cavity queue's grid", "", grid, np,
                               err)) ||
        (rc = storq_theory_add(out, "cavity_workload_cdf", "1",
                               "BR cavity queue (M/G/1 fed at rate lambda with work c X per "
                               "arrival): stationary P(V <= w) on cavity_grid (time units). It "
                               "bounds BR: WF and BS are better than BR in increasing convex "
                               "order",
                               "cavity_grid", cav->cdf, np, err)) ||
        (rc = storq_theory_add(out, "cavity_error", "1",
                               "estimated max absolute error of cavity_workload_cdf", "",
                               &cav->error, 1, err)))
        goto done;
    if (storq_dist_is_exp(&c->cdist) && c->kmax_support <= (int64_t)c->m) {
        double lam_eff = c->lambda * c->EX, srate = c->mu / c->Ec;
        for (size_t j = 0; j < np; j++)
            mm1[j] = storq_cl_cavity_mm1_cdf(lam_eff, srate, grid[j]);
        rc = storq_theory_add(out, "cavity_mm1_cdf", "1",
                              "closed form of the cavity queue for exponential chunks and "
                              "k <= m (M/M/1, arrival rate lambda E[k]/m, service rate "
                              "mu/E[c]): P(V <= w) on cavity_grid; cross-checks "
                              "cavity_workload_cdf",
                              "cavity_grid", mm1, np, err);
    }
done:
    free(grid);
    return rc;
}

/* The product form's budget: evaluations of the cavity CDF (15 to 45 ns each here, so at most
 * about 10 s for the product form and as much for the regimes' two means; the corpus's cluster
 * points use at most 6e7). Its cost is the grid's points (which grow as 1/(1 - rho) and with the
 * mean work) times the keys of k (at most 2m - 1, 4096) and the quadrature nodes of the chunk
 * law: without a bound, minutes to hours (geom:0.01 on 10 servers with exp chunks: 9e8, 40 s).
 * Past it the arrays are left out, with a warning. */
#define CL_PF_WORK_MAX 2.5e8

static void cl_warn_work(const cl_ctx *c, const cl_cavity *cav, const char *what)
{
    storq_warn("cluster: %s would take more than %.2g evaluations of the cavity queue's CDF (its "
               "grid of %zu points, %zu values of k, chunk_dist %s): left out for this point "
               "(docs/models/cluster-theory.md, \"Cost\")",
               what, CL_PF_WORK_MAX, cav->npoints, c->nq, c->cdist.spec);
}

/* The product-form CCDF on the delay grid over the mixture (pf), and per size class (row j of
 * ccls: P(D > x) given k in class j; cw: the classes' weights). */
static void cl_product_form_ccdfs(const cl_ctx *c, const cl_cavity *cav, const double *cw,
                                  double *pf, double *ccls, cl_pf_work *work)
{
    for (int j = 0; j < CL_NGRID; j++) {
        double s = 0.0;
        for (size_t i = 0; i < c->nq; i++) {
            double F = storq_cl_product_form_cdf_w(cav, (unsigned)c->qk[i], (unsigned)c->m,
                                                   &c->cdist, c->xgrid[j], work);
            s += c->qw[i] * F;
            ccls[cl_class_of(c, c->qk[i]) * CL_NGRID + (size_t)j] += c->qw[i] * F;
        }
        pf[j] = 1.0 - s;
    }
    for (size_t ci = 0; ci < c->nclass; ci++)
        for (int j = 0; j < CL_NGRID; j++)
            ccls[ci * CL_NGRID + (size_t)j] =
                cw[ci] > 0 ? 1.0 - ccls[ci * CL_NGRID + (size_t)j] / cw[ci] : NAN;
}

/* The product-form arrays: the CCDF per class and over the mixture, and the means per class and
 * over the mixture. */
static int cl_theory_product_form(const cl_ctx *c, const cl_cavity *cav, storq_theory *out,
                                  storq_error *err)
{
    double *buf = malloc(sizeof *buf * (CL_NGRID + 2 * c->nclass + 2 * c->nq + 1));
    double *ccls = calloc(c->nclass * CL_NGRID, sizeof *ccls);
    uint64_t *keys = malloc((c->nq + 1) * sizeof *keys);
    int rc = STORQ_OK;
    if (!buf || !ccls || !keys) {
        rc = STORQ_RUNTIME_FAIL(err, "out of memory");
        goto done;
    }
    double *pf = buf, *cmean = pf + CL_NGRID, *cw = cmean + c->nclass, *kmean = cw + c->nclass;
    double *waits = kmean + c->nq;
    double mean = 0.0;
    cl_pf_work work = {0, CL_PF_WORK_MAX};
    /* one wait per key (at most 2m - 1 of them), not per k (up to 4096): the same numbers */
    size_t nkeys = 0;
    for (size_t i = 0; i < c->nq; i++) {
        uint64_t key = storq_cl_product_form_wait_key((uint64_t)c->qk[i], c->m);
        size_t j = 0;
        while (j < nkeys && keys[j] != key)
            j++;
        if (j == nkeys) {
            keys[nkeys++] = key;
            waits[j] = storq_cl_product_form_wait(cav, (unsigned)c->qk[i], (unsigned)c->m,
                                                  &c->cdist, &work);
        }
        kmean[i] = storq_cl_product_form_base((unsigned)c->qk[i], (unsigned)c->m, &c->cdist,
                                              cav->mu) +
                   waits[j];
        mean += c->qw[i] * kmean[i];
    }
    for (size_t j = 0; j < c->nclass; j++)
        cmean[j] = cw[j] = 0.0;
    for (size_t i = 0; i < c->nq; i++) {
        size_t ci = cl_class_of(c, c->qk[i]);
        cmean[ci] += c->qw[i] * kmean[i];
        cw[ci] += c->qw[i];
    }
    cl_product_form_ccdfs(c, cav, cw, pf, ccls, &work);
    for (size_t j = 0; j < c->nclass; j++)
        cmean[j] = cw[j] > 0 ? cmean[j] / cw[j] : NAN;
    if (work.used > work.max) {
        cl_warn_work(c, cav, "the product-form figure (product_form_*)");
        goto done;
    }

    char gname[STORQ_NAME_MAX], desc[512];
    if ((rc = storq_theory_add(out, "product_form_class_ccdf", "1",
                               "product-form P(D > x) per size class: row j (a class, axis of "
                               "class_mean_delay) on the delay_ccdf x grid (columns); an upper "
                               "bound for BR's CCDF of that class",
                               cl_grid_name(c, "delay_ccdf", gname, sizeof gname), ccls,
                               c->nclass * CL_NGRID, err)))
        goto done;
    snprintf(desc, sizeof desc,
             "product-form P(D > x) = 1 - sum_k pi_k P(D_k <= x), the delay as if the servers a "
             "request asks had evolved independently (cavity queue); on the delay_ccdf grid%s.%s",
             c->q_exact ? "" : " (size law bucketed into 4096 k values)", CL_BOUND_NOTE);
    desc[255] = 0;
    if ((rc = storq_theory_add(out, "product_form_ccdf", "1", desc,
                               cl_grid_name(c, "delay_ccdf", gname, sizeof gname), pf, CL_NGRID,
                               err)))
        goto done;
    snprintf(desc, sizeof desc,
             "product-form mean delay of each size class (pi-weighted over its k); an upper "
             "bound for BR.%s", CL_BOUND_NOTE);
    desc[255] = 0;
    if ((rc = storq_theory_add(out, "product_form_class_mean", "time", desc,
                               cl_grid_name(c, "class_mean_delay", gname, sizeof gname), cmean,
                               c->nclass, err)))
        goto done;
    snprintf(desc, sizeof desc,
             "product-form mean delay over the size law; an upper bound for BR's mean delay.%s",
             CL_BOUND_NOTE);
    desc[255] = 0;
    rc = storq_theory_add(out, "product_form_mean", "time", desc,
                          cl_grid_name(c, "mean_delay", gname, sizeof gname), &mean, 1, err);
done:
    free(buf);
    free(ccls);
    free(keys);
    return rc;
}

/* The two regimes of delay against k (regimes.c): per size class and over the size law, the
 * logarithmic-regime asymptote (k <= m) or the linear-regime one (k > m), and the isolation delay
 * (a lower bound for every policy); plus the cavity tail's theta and C. Left out (a note) when the
 * chunk law has no exponential moment: the logarithmic asymptote needs the exponential tail. */
static int cl_theory_regimes(const cl_ctx *c, const cl_cavity *cav, storq_theory *out,
                             storq_error *err)
{
    size_t xmax = 0;
    double *px = storq_cl_cavity_blocks_law(&c->size, (unsigned)c->m, &xmax);
    if (!px)
        return STORQ_RUNTIME_FAIL(err, "cavity queue: blocks law failed (out of memory)");
    double theta = NAN, C = NAN;
    int tail = storq_cl_lundberg(c->lambda, c->mu, px, xmax, &c->cdist, &theta, &C) == 0;
    free(px);
    double *buf = calloc(5 * c->nclass + 4, sizeof *buf);
    if (!buf)
        return STORQ_RUNTIME_FAIL(err, "out of memory");
    double *reg = buf, *iso = reg + c->nclass, *w = iso + c->nclass, *low = w + c->nclass;
    double *sc = low + c->nclass;
    /* E[max of m cavity workloads] and E[V]: the product-form means at k = m and k = 1 minus
     * E[c]/mu (a request of k <= m blocks waits c/mu after the largest of k workloads) */
    cl_pf_work work = {0, CL_PF_WORK_MAX};
    unsigned m = (unsigned)c->m;
    double maxm = storq_cl_product_form_base(m, m, &c->cdist, cav->mu) +
                  storq_cl_product_form_wait(cav, m, m, &c->cdist, &work) - c->Ec / c->mu;
    double ev = storq_cl_product_form_base(1, m, &c->cdist, cav->mu) +
                storq_cl_product_form_wait(cav, 1, m, &c->cdist, &work) - c->Ec / c->mu;
    if (work.used > work.max) /* NaN: the linear regime and the linear lower bound */
        cl_warn_work(c, cav, "E[V] and E[max of m cavity workloads] (linear regime, "
                     "linear_lower_class_mean)");
    double rmean = 0.0, imean = 0.0;
    for (size_t i = 0; i < c->nq; i++) {
        double k = (double)c->qk[i];
        double r = k <= (double)c->m
                       ? (tail ? storq_cl_log_regime_mean(c->Ec, c->mu, theta, C, k) : NAN)
                       : storq_cl_linear_regime_mean(c->Ec, c->mu, maxm, (unsigned)c->m, k);
        double is = storq_cl_isolation_delay(c->Ec, c->mu, (unsigned)c->m, k);
        size_t ci = cl_class_of(c, c->qk[i]);
        /* k >= m asks every server; D >= the average over servers of (V_i + c s_i/mu), whose
         * mean under BR is E[V] + E[c] k/(m mu) (equality when every k is a multiple of m: the
         * servers' workloads are then identical) */
        low[ci] += c->qw[i] * (k >= (double)c->m ? ev + c->Ec * k / ((double)c->m * c->mu) : NAN);
        reg[ci] += c->qw[i] * r;
        iso[ci] += c->qw[i] * is;
        w[ci] += c->qw[i];
        rmean += c->qw[i] * r;
        imean += c->qw[i] * is;
    }
    for (size_t j = 0; j < c->nclass; j++) {
        reg[j] = w[j] > 0 ? reg[j] / w[j] : NAN;
        iso[j] = w[j] > 0 ? iso[j] / w[j] : NAN;
        low[j] = w[j] > 0 ? low[j] / w[j] : NAN;
    }
    sc[0] = rmean;
    sc[1] = imean;
    sc[2] = theta;
    sc[3] = C;
    int rc;
    if ((rc = storq_theory_add(out, "regime_mean", "time",
                               "the regimes' asymptotes over the size law: k <= m (logarithmic) "
                               "E[c]/mu + (ln(C k) + gamma_E)/theta, the Gumbel mean of the max "
                               "of k cavity workloads (NaN where C k < e^-gamma_E: outside the "
                               "limit's domain); k > m (linear) E[c] k/(m mu) + E[max of m "
                               "cavity workloads]",
                               "", &sc[0], 1, err)) ||
        (rc = storq_theory_add(out, "regime_class_mean", "time",
                               "regime_mean per size class (axis of class_mean_delay)", "", reg,
                               c->nclass, err)) ||
        (rc = storq_theory_add(out, "isolation_delay", "time",
                               "E[c] ceil(k/m)/mu over the size law: a request alone waits for "
                               "ceil(k/m) blocks at its busiest server; a lower bound on every "
                               "policy's mean delay",
                               "", &sc[1], 1, err)) ||
        (rc = storq_theory_add(out, "isolation_class_delay", "time",
                               "isolation_delay per size class (axis of class_mean_delay)", "",
                               iso, c->nclass, err)) ||
        (rc = storq_theory_add(out, "linear_lower_class_mean", "time",
                               "per size class with k >= m (NaN below): E[V] + E[c] k/(m mu), "
                               "the mean over the m servers of their delay, a lower bound on "
                               "BR's mean delay (exact for every policy when all k are multiples "
                               "of m: the servers' workloads are then identical)",
                               "", low, c->nclass, err)) ||
        (rc = storq_theory_add(out, "cavity_tail_theta", "1/time",
                               "decay rate theta of the cavity workload's tail, P(V > w) ~ C "
                               "e^{-theta w}: the root of lambda (E[e^{theta B}] - 1) = theta "
                               "(NaN: the chunk law has no exponential moment)",
                               "", &sc[2], 1, err)))
        goto done;
    rc = storq_theory_add(out, "cavity_tail_C", "1",
                          "Cramer-Lundberg constant C = (1 - rho)/(lambda E[B e^{theta B}] - 1) of "
                          "P(V > w) ~ C e^{-theta w}",
                          "", &sc[3], 1, err);
done:
    free(buf);
    return rc;
}

/* The blocks law's table and sum are capped (cavity.c): a size law past them is refused here,
 * before anything is written, with what it would take and what to change. */
static int cl_check_blocks(const cl_ctx *c, storq_error *err)
{
    cl_blocks_size b;
    if (storq_cl_cavity_blocks_fit(&c->size, (unsigned)c->m, &b))
        return STORQ_OK;
    /* the largest file the caps allow on these servers, and for geom the P that stays within */
    double kfit = fmin(b.xmax_cap * (double)c->m, b.terms_cap + (double)c->size.min - 1);
    char hint[96] = "";
    if (c->size.kind == STORQ_DDIST_GEOM)
        snprintf(hint, sizeof hint, " (geom:P with P >= %.3g)", -expm1(log(1e-15) / kfit));
    /* more servers shorten X, not the sum over k */
    const char *more_m = b.terms <= b.terms_cap ? ", or more servers (--m)" : "";
    return storq_fail(err, STORQ_ERR_USAGE,
                      "--size: '%s' (mean %.4g chunks) has files of up to %.4g chunks%s; the "
                      "cavity queue's law of the blocks a request asks of one of %llu servers "
                      "would need %.4g values (%.3g GB) and a sum of %.4g terms, past its caps of "
                      "%.0f values and %.0f terms: give a size law with files of at most %.4g "
                      "chunks%s%s",
                      c->size.spec, c->size.mean, b.kmax,
                      c->size.kind == STORQ_DDIST_GEOM ? " (where P(k > K) < 1e-15)" : "",
                      (unsigned long long)c->m, b.xmax + 1, (b.xmax + 1) * 8 / 1e9, b.terms,
                      b.xmax_cap, b.terms_cap, kfit, hint, more_m);
}

int storq_cl_theory_check(const cl_ctx *c, storq_error *err)
{
    if (!(c->rho < 1.0) || c->m > 4294967295ULL) /* no theory: nothing to hold */
        return STORQ_OK;
    STORQ_TRY(cl_check_blocks(c, err));
    char what[160];
    snprintf(what, sizeof what, "--size/--m/--chunk_dist: the cavity queue of %llu servers",
             (unsigned long long)c->m);
    return storq_memory_check_rank(storq_cl_cavity_bytes(&c->size, (unsigned)c->m, &c->cdist),
                                   what, "for the theory (its grid counted at its cap of 2^21 "
                                   "points, the size and chunk laws' tables)", err);
}

int storq_cl_theory(const void *vctx, storq_theory *out, storq_error *err)
{
    const cl_ctx *c = vctx;
    if (!(c->rho < 1.0) || c->m > 4294967295ULL)
        return STORQ_OK;
    cl_cavity cav;
    int rc = cl_solve_cavity(c, &cav, err);
    if (rc)
        return rc < 0 ? STORQ_OK : rc;
    if (!(rc = cl_theory_cavity(c, &cav, out, err)) &&
        !(rc = cl_theory_product_form(c, &cav, out, err)))
        rc = cl_theory_regimes(c, &cav, out, err);
    storq_cl_cavity_free(&cav);
    return rc;
}

int storq_cl_compare(const void *vctx, const storq_summary *sim, const storq_theory *theory,
               storq_theory *out, storq_error *err)
{
    const storq_obs_def *dc = storq_obs_find(sim->schema, "BR_delay_ccdf");
    const storq_obs_def *dm = storq_obs_find(sim->schema, "BR_mean_delay");
    const storq_array *pf = storq_theory_find(theory, "product_form_ccdf");
    const storq_array *pm = storq_theory_find(theory, "product_form_mean");
    if (dc && pf && pf->len == CL_NGRID) {
        double ex = -HUGE_VAL, ci = 0.0;
        for (size_t j = 0; j < CL_NGRID; j++) {
            double e = sim->mean[dc->value_offset + j] - pf->data[j];
            if (e > ex) {
                ex = e;
                ci = sim->ci95[dc->value_offset + j];
            }
        }
        STORQ_TRY(storq_theory_add(out, "BR_ccdf_excess_max", "1",
                                   "max over the x grid of (simulated BR P(D > x) - product-form "
                                   "P(D > x)); <= 0 within noise when the bound holds",
                                   "", &ex, 1, err));
        STORQ_TRY(storq_theory_add(out, "BR_ccdf_excess_ci95", "1",
                                   "95% CI half-width of the simulated BR P(D > x) where the "
                                   "excess is largest (the noise in BR_ccdf_excess_max)",
                                   "", &ci, 1, err));
    }
    if (dm && pm && pm->len == 1) {
        double r = sim->mean[dm->value_offset] / pm->data[0];
        STORQ_TRY(storq_theory_add(out, "BR_mean_delay_over_product_form", "1",
                                   "simulated BR mean delay / product-form mean delay (<= 1 "
                                   "within noise when the bound holds)",
                                   "", &r, 1, err));
    }
    return STORQ_OK;
}
