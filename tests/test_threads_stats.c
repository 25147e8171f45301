/* Statistical validation of the `threads` model (fixed seeds; tolerances from the replications'
 * standard errors, c the Student-t quantile of 1e-5 false alarms per check):
 *   - L = 1, (1,1) requests, exponential downloads, Poisson arrivals is M/M/1 under every policy
 *     and preemption setting: mean flow time 1/(mu - lambda), time-average number present
 *     rho/(1 - rho), P(none present) = 1 - rho, useful utilisation rho, no cancelled work;
 *   - L = 1, one class (3,2), exponential downloads: SERPT-R (SRPT on the chunks still needed) is
 *     FCFS here -- the request in service always needs no more chunks than any other, and ties go
 *     to the earlier -- so every policy is M/E2/1: mean flow time 2/mu + lambda (6/mu^2) / (2 (1 -
 *     rho)) by Pollaczek-Khinchine;
 *   - the paper's setting (90% (3,1), 10% (14,10), L = 3 = d_min, exponential downloads, N = 3000
 *     from empty): preemptive SERPT-R is no worse than each other policy on the same sample paths
 *     (Theorem 1: the paired difference is not significantly negative), and non-preemptive SEDPT-R
 *     minus preemptive SERPT-R is at most 1/mu (Theorem 3);
 *   - preemptive and non-preemptive FCFS-R are the same policy (the FCFS order of the requests
 *     present never changes, so a from-scratch reassignment never moves a thread): equal values.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "model_run.h"

#define SEED 9091u

static const char *ALL =
    "fcfs-r:off+fcfs-r:on+serpt-r:off+serpt-r:on+sedpt-r:off+sedpt-r:on+sedpt-nr:off+"
    "sedpt-wcr:off+sedpt-wcr:on+fcfs-wcr:off+fcfs-wcr:on";
static const char *NAMES[] = {"fcfs_r_np",   "fcfs_r_p",     "serpt_r_np",  "serpt_r_p",
                              "sedpt_r_np",  "sedpt_r_p",    "sedpt_nr_np", "sedpt_wcr_np",
                              "sedpt_wcr_p", "fcfs_wcr_np", "fcfs_wcr_p"};
#define NN (sizeof NAMES / sizeof *NAMES)

static void check_obs(const model_run *r, const char *name, double exact, double allowance)
{
    double m, se;
    model_run_stat(r, model_run_offset(r, name, 0), &m, &se);
    model_check_mean(name, m, se, exact, allowance, model_t_two_sided(1e-5, r->reps - 1));
}

static void mm1(void)
{
    const double mu = 50.0, rho = 0.6, lambda = rho * mu;
    printf("L = 1, (1,1), exp downloads, Poisson arrivals: M/M/1 (rho %.2f) under every policy\n",
           rho);
    char pol[512];
    snprintf(pol, sizeof pol, "policy=%s", ALL);
    const char *args[] = {"L=1", "classes=a:1:1:1", "rho=0.6", "interarrival=exp:1",
                          "download=exp:50", pol, "mode=steady", "warmup=2000",
                          "arrivals=20000", NULL};
    model_run r;
    if (model_run_point(&r, &storq_model_threads, 16, SEED, args))
        abort();
    char name[96];
    for (size_t p = 0; p < NN; p++) {
        snprintf(name, sizeof name, "%s_mean_flow_time", NAMES[p]);
        check_obs(&r, name, 1.0 / (mu - lambda), 0);
    }
    check_obs(&r, "sedpt_r_np_mean_present", rho / (1.0 - rho), 0);
    check_obs(&r, "fcfs_wcr_p_utilisation_useful", rho, 0);
    double m, se;
    model_run_stat(&r, model_run_offset(&r, "serpt_r_p_present", 0), &m, &se);
    model_check_mean("serpt_r_p_present[0]", m, se, 1.0 - rho, 0,
                     model_t_two_sided(1e-5, r.reps - 1));
    model_run_stat(&r, model_run_offset(&r, "sedpt_wcr_p_utilisation_cancelled", 0), &m, &se);
    printf("  cancelled work %g (exactly 0 with k = n = 1)\n", m);
    CHECK(m == 0.0);
    model_run_free(&r);
}

static void me21(void)
{
    const double mu = 50.0, rho = 0.7, ES = 2.0 / mu, lambda = rho / ES;
    const double T = ES + lambda * (6.0 / (mu * mu)) / (2.0 * (1.0 - rho));
    printf("L = 1, one class (3,2), exp downloads: M/E2/1 under every policy, T = %.6g\n", T);
    char pol[512];
    snprintf(pol, sizeof pol, "policy=%s", ALL);
    const char *args[] = {"L=1", "classes=a:1:3:2", "rho=0.7", "interarrival=exp:1",
                          "download=exp:50", pol, "mode=steady", "warmup=2000",
                          "arrivals=20000", NULL};
    model_run r;
    if (model_run_point(&r, &storq_model_threads, 16, SEED + 1, args))
        abort();
    char name[96];
    for (size_t p = 0; p < NN; p++) {
        snprintf(name, sizeof name, "%s_mean_flow_time", NAMES[p]);
        check_obs(&r, name, T, 0);
    }
    model_run_free(&r);
}

static void theorems(void)
{
    const double inv_mu = 0.02;
    printf("paper's setting, L = 3 = d_min, exp downloads, N = 3000 from empty, rho 0.8\n");
    char pol[512];
    snprintf(pol, sizeof pol, "policy=serpt-r:on+fcfs-r:off+fcfs-r:on+serpt-r:off+sedpt-r:off+"
                              "sedpt-nr:off+sedpt-wcr:on+fcfs-wcr:on");
    const char *args[] = {"L=3", "rho=0.8", pol, "requests=3000", NULL};
    model_run r;
    if (model_run_point(&r, &storq_model_threads, 24, SEED + 2, args))
        abort();
    const double c = model_t_two_sided(1e-5, r.reps - 1);
    static const char *others[] = {"fcfs_r_np", "fcfs_r_p", "serpt_r_np", "sedpt_r_np",
                                   "sedpt_nr_np", "sedpt_wcr_p", "fcfs_wcr_p"};
    char name[96];
    for (size_t i = 0; i < sizeof others / sizeof *others; i++) {
        double m, se;
        snprintf(name, sizeof name, "diff_%s_serpt_r_p_mean_flow_time", others[i]);
        model_run_stat(&r, model_run_offset(&r, name, 0), &m, &se);
        const int ok = m >= -c * se;
        printf("  %-44s %.5g +- %.3g (Theorem 1: >= 0 within %.1f se)%s\n", name, m, se, c,
               ok ? "" : "  FAIL");
        CHECK(ok);
    }
    double m, se;
    model_run_stat(&r, model_run_offset(&r, "diff_sedpt_r_np_serpt_r_p_mean_flow_time", 0), &m,
                   &se);
    const int ok3 = m <= inv_mu + c * se;
    printf("  sedpt_r_np - serpt_r_p = %.5g +- %.3g <= 1/mu = %g (Theorem 3)%s\n", m, se, inv_mu,
           ok3 ? "" : "  FAIL");
    CHECK(ok3);
    /* FCFS-R preemptive and not: the same numbers, replication by replication */
    int same = 1;
    for (size_t rep = 0; rep < r.reps; rep++)
        same &= model_run_value(&r, rep, "fcfs_r_np_mean_flow_time", 0) ==
                model_run_value(&r, rep, "fcfs_r_p_mean_flow_time", 0);
    printf("  fcfs_r_p == fcfs_r_np in every replication: %s\n", same ? "yes" : "NO");
    CHECK(same);
    model_run_free(&r);
}

int main(void)
{
    mm1();
    me21();
    theorems();
    return check_report("test_threads_stats");
}
