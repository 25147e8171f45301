/* Statistical validation of the `cluster` kernel, with fixed seeds.
 *
 * Every check compares a mean over R independent replications with an exact value (or with 0, or
 * with a theory curve) and allows c standard errors, c the two-sided 1e-5 quantile of Student's t
 * with R - 1 degrees of freedom: a correct kernel fails a given check with probability about 1e-5
 * (replication means of long averages are close to normal); with the ~120 checks below the whole
 * test raises a false alarm with probability about 1e-3 for a random seed. The seeds are fixed, so
 * the outcome is deterministic. No tolerance is tuned to pass.
 *
 * (a) m = 1, fixed k = 1, det chunks: an M/D/1 queue. Mean delay c/mu + rho c / (2 mu (1 - rho)),
 *     utilisation rho; with exp chunks M/M/1: mean delay (E[c]/mu) / (1 - rho). On one server the
 *     three policies coincide: their values must be identical.
 * (b) The paper's bound: BR's delay CCDF lies below the product-form CCDF of the cavity queue
 *     (theory() of the model): simulated P(D > x) - product form <= c se + cavity_error at every x.
 *     Checked in the logarithmic (m = 20, k in 1..8, plus:2) and linear (m = 5, k in 1..17,
 *     times:1.5) regimes. Also BR_mean_delay <= product_form_mean + c se.
 * (c) WF and BS are better than BR in increasing convex order, so their mean delays are not above
 *     BR's: the paired difference diff_P_BR_mean_delay fails only when significantly positive
 *     (mean > c se). Utilisation = rho within the CI for every policy. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "model_run.h"
#include "theory.h"


#define FALSE_ALARM 1e-5

/* ------------------------------------------------------------------ (a) M/D/1 and M/M/1 */

static void case_single(const char *chunk_dist, double lambda, uint64_t seed)
{
    const size_t R = 16;
    char lam[64], cd[64];
    snprintf(lam, sizeof lam, "lambda=%g", lambda);
    snprintf(cd, sizeof cd, "chunk_dist=%s", chunk_dist);
    const char *args[] = {"m=1", "size=fixed:1", "mu=2", "chunk=1.5", cd, lam,
                          "warmup=20000", "arrivals=200000", NULL};
    model_run r;
    if (model_run_point(&r, &storq_model_cluster, R, seed, args)) {
        CHECK(0);
        return;
    }
    double c = model_t_two_sided(FALSE_ALARM, R - 1);
    int det = strncmp(chunk_dist, "det", 3) == 0;
    double s = 1.5 / 2, rho = lambda * s; /* E[c]/mu, load */
    double exact = det ? s + rho * s / (2 * (1 - rho)) : s / (1 - rho);
    printf("(a) m = 1, fixed:1, %s: M/%s/1 at rho = %g, %zu replications of 2e5, c = %.3f\n",
           chunk_dist, det ? "D" : "M", rho, R, c);
    double m, se;
    model_run_stat(&r, model_run_offset(&r, "BR_mean_delay", 0), &m, &se);
    model_check_mean(det ? "BR_mean_delay = s + rho s/(2(1-rho))" : "BR_mean_delay = s/(1-rho)",
                     m, se, exact, 0, c);
    model_run_stat(&r, model_run_offset(&r, "BR_utilisation", 0), &m, &se);
    model_check_mean("BR_utilisation = rho", m, se, rho, 0, c);
    /* one server: the three policies are the same */
    int same = 1;
    for (size_t i = 0; i < R; i++) {
        double br = model_run_value(&r, i, "BR_mean_delay", 0);
        same &= br == model_run_value(&r, i, "BS_mean_delay", 0) &&
                br == model_run_value(&r, i, "WF_mean_delay", 0);
    }
    printf("  BR, BS, WF identical on one server: %s\n", same ? "yes" : "NO  FAIL");
    CHECK(same);
    model_run_free(&r);
}

/* ------------------------------------------------------------------ (b), (c) */

/* rho: the point's load, lambda E[k] E[c] / (m mu), worked out from its arguments by hand */
static void case_bound(const char *label, const char *const *args, double rho, uint64_t seed,
                       size_t R)
{
    model_run r;
    if (model_run_point(&r, &storq_model_cluster, R, seed, args)) {
        CHECK(0);
        return;
    }
    double c = model_t_two_sided(FALSE_ALARM, R - 1);
    printf("%s: %zu replications, c = %.3f\n", label, R, c);

    /* (c) utilisation and the policy order */
    const char *pols[] = {"BR", "BS", "WF"};
    for (int p = 0; p < 3; p++) {
        char nm[64];
        double m, se;
        snprintf(nm, sizeof nm, "%s_utilisation", pols[p]);
        model_run_stat(&r, model_run_offset(&r, nm, 0), &m, &se);
        char what[80];
        snprintf(what, sizeof what, "%s = rho", nm);
        model_check_mean(what, m, se, rho, 0, c);
    }
    double mbr, sebr;
    model_run_stat(&r, model_run_offset(&r, "BR_mean_delay", 0), &mbr, &sebr);
    for (int p = 1; p < 3; p++) {
        char nm[64];
        double m, se;
        snprintf(nm, sizeof nm, "diff_%s_BR_mean_delay", pols[p]);
        model_run_stat(&r, model_run_offset(&r, nm, 0), &m, &se);
        int ok = m <= c * se;
        printf("  %-40s mean %.6g  se %.3g  (BR mean %.6g)%s\n", nm, m, se, mbr,
               ok ? "  <= 0 within noise" : "  significantly POSITIVE: FAIL");
        CHECK(ok);
    }

    /* (b) the product-form bound, from the model's own theory() */
    storq_theory th = {0};
    storq_error err = {0};
    int rc = storq_model_cluster.theory(r.ctx, &th, &err);
    const storq_array *pf = rc ? NULL : storq_theory_find(&th, "product_form_ccdf");
    const storq_array *pm = rc ? NULL : storq_theory_find(&th, "product_form_mean");
    const storq_array *ce = rc ? NULL : storq_theory_find(&th, "cavity_error");
    if (!pf || !pm) {
        /* TODO until kernels/cluster_cavity.c is complete: this must fail, not pass */
        printf("  TODO: no product-form theory (%s): the bound is NOT checked  FAIL\n",
               rc ? err.msg : "arrays missing");
        CHECK(pf && pm);
    } else {
        double cerr = ce ? ce->data[0] : 0.0;
        const storq_obs_def *cd = model_run_def(&r, "BR_delay_ccdf");
        int bad = 0;
        double worst = -1e300, worst_x = 0, worst_se = 0;
        for (size_t j = 0; j < pf->len; j++) {
            double m, se;
            model_run_stat(&r, cd->value_offset + j, &m, &se);
            double ex = m - pf->data[j];
            if (ex > worst) {
                worst = ex;
                worst_x = cd->axis[j];
                worst_se = se;
            }
            if (ex > c * se + cerr) {
                printf("  BR P(D > %.4g) = %.6g above the product form %.6g by %.3g (se %.3g)  "
                       "FAIL\n", cd->axis[j], m, pf->data[j], ex, se);
                bad++;
            }
        }
        printf("  BR CCDF <= product form at all %zu x (largest excess %.3g at x = %.4g, se %.3g, "
               "cavity error %.2g)%s\n", pf->len, worst, worst_x, worst_se, cerr,
               bad ? "  FAIL" : "");
        CHECK(bad == 0);
        int ok = mbr <= pm->data[0] + c * sebr;
        printf("  BR_mean_delay %.6g <= product_form_mean %.6g (ratio %.4f)%s\n", mbr, pm->data[0],
               mbr / pm->data[0], ok ? "" : "  FAIL");
        CHECK(ok);
    }
    storq_theory_free(&th);
    model_run_free(&r);
}

int main(void)
{
    case_single("det", 0.8 / 0.75, 11);      /* rho = 0.8 */
    case_single("exp:0.6666666666666666", 0.7 / 0.75, 12); /* E[c] = 1.5, rho = 0.7 */

    const char *lg[] = {"m=20", "size=uniform:1,8", "coding=plus:2", "lambda=3.111111111111111",
                        "warmup=20000", "arrivals=150000", NULL}; /* rho = 0.7 */
    case_bound("(b,c) logarithmic regime: m = 20, k ~ uniform 1..8, plus:2, det chunks, rho 0.7",
               lg, 0.7, 21, 10);
    const char *lge[] = {"m=20", "size=uniform:1,8", "coding=plus:1", "chunk_dist=exp:1",
                         "lambda=3.5555555555555554", "warmup=20000", "arrivals=150000",
                         NULL}; /* rho = 0.8 */
    case_bound("(b,c) logarithmic regime: m = 20, k ~ uniform 1..8, plus:1, exp chunks, "
               "rho 0.8",
               lge, 0.8, 22, 10);
    const char *ln[] = {"m=5", "size=uniform:1,17", "coding=times:1.5", "lambda=0.3888888888888889",
                        "warmup=20000", "arrivals=150000", NULL}; /* rho = 0.7 */
    case_bound("(b,c) linear regime: m = 5, k ~ uniform 1..17, times:1.5, det chunks, rho 0.7",
               ln, 0.7, 23, 10);
    return check_report("test_cluster_stats");
}
