/* The paper's lower bound on the optimal mean flow time (`--policy ...+bound`, kernels/threads/
 * bound.c), against what holds independently of it:
 *   1. Theorem 1: with d_min >= L (the paper's setting at L = 3) preemptive SERPT-R is optimal and
 *      nothing is relaxed, so the bound -- a single server of rate L mu on its own chunk times --
 *      and the L-thread kernel's preemptive SERPT-R estimate the same mean (within their CIs);
 *   2. it lies below every policy at L = 5 (d_min = 3 < L), preemptive or not, at three loads;
 *   3. light traffic: a lone request is served by all L threads, E[k] E[X] / L (theory/
 *      bound_light_traffic), approached as rho -> 0.
 * (test_threads_exact checks it at L = 1 against the exact preemptive-SRPT Markov chain.)
 *
 * The last-start bound (bound_last_start_mean_flow_time: V_j - a_j, V_j the start of request j's
 * last needed chunk under non-preemptive SEDPT-NR; exp and NLU downloads, d_min >= L), against
 * what holds independently of its construction (test_threads_exact has it at L = 1):
 *   4. exp, L = 3 = d_min: at or below preemptive SERPT-R, optimal by Theorem 1 (paired, CI), and
 *      below Theorem 1's relaxation bound (which equals the optimum there: the tighter one);
 *   5. NLU (shexp:0.01,100), L = 3: under SEDPT-NR the last chunk started at V_j must run to the
 *      end, so D - bound >= E[X] = 0.02; the alpha_j <= L chunks running from V_j are no slower
 *      used than new (NLU), so D - bound <= E[max of L downloads] = 0.01 + 0.01 (1 + 1/2 + 1/3)
 *      (paired, CI); and the bound lies below every listed policy, at three loads.
 * Paired statistics: per replication differences, their mean and standard error. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "model_run.h"

#define SEED 4404u

static void stat(const model_run *r, const char *name, double *m, double *se)
{
    model_run_stat(r, model_run_offset(r, name, 0), m, se);
}

/* mean and standard error over the replications of a - b (b NULL: of a) */
static void paired(const model_run *r, const char *a, const char *b, double *m, double *se)
{
    const size_t ia = model_run_offset(r, a, 0), ib = b ? model_run_offset(r, b, 0) : 0;
    double s = 0.0, s2 = 0.0;
    for (size_t i = 0; i < r->reps; i++) {
        const double *row = model_run_row(r, i);
        const double d = row[ia] - (b ? row[ib] : 0.0);
        s += d;
        s2 += d * d;
    }
    const double n = (double)r->reps;
    *m = s / n;
    *se = sqrt(fmax(s2 / n - *m * *m, 0.0) / (n - 1.0));
}

static void last_start_exp(double c)
{
    printf("L = 3 = d_min, exp downloads, rho = 0.7: last-start bound <= preemptive SERPT-R "
           "(optimal) and <= the relaxation bound\n");
    const char *args[] = {"L=3", "rho=0.7", "policy=serpt-r:on+sedpt-nr:off+bound",
                          "requests=3000", NULL};
    model_run r;
    if (model_run_point(&r, &storq_model_threads, 24, SEED + 20, args))
        abort();
    double m, se, mv, sev, mb, seb;
    paired(&r, "bound_last_start_mean_flow_time", NULL, &mv, &sev);
    paired(&r, "bound_mean_flow_time", NULL, &mb, &seb);
    paired(&r, "serpt_r_p_mean_flow_time", "bound_last_start_mean_flow_time", &m, &se);
    printf("  last start %.6g (+- %.2g), relaxation %.6g (+- %.2g); SERPT-R p - last start "
           "%.4g (se %.2g)\n", mv, sev, mb, seb, m, se);
    CHECK(m >= -c * se);
    /* the relaxation bound is the optimum here (Theorem 1; tested above), so no valid lower bound
     * exceeds it: the relaxation is the tighter bound at d_min = L */
    CHECK(mb - mv >= -c * hypot(seb, sev));
    model_run_free(&r);
}

static void last_start_nlu(double c)
{
    static const char *rhos[] = {"rho=0.2", "rho=0.5", "rho=0.7"};
    static const char *pols[] = {"sedpt_wcr_p", "sedpt_nr_np", "sedpt_r_np", "fcfs_wcr_p"};
    const double EX = 0.02, Emax = 0.01 + 0.01 * (1.0 + 1.0 / 2 + 1.0 / 3);
    for (size_t i = 0; i < 3; i++) {
        printf("NLU shexp:0.01,100, L = 3, %s: E[X] <= D_sedpt-nr - bound <= E[max of 3] = %.6g, "
               "the bound below every policy\n", rhos[i], Emax);
        const char *args[] = {"L=3", rhos[i], "download=shexp:0.01,100", "requests=3000",
                              "policy=sedpt-wcr:on+sedpt-nr:off+sedpt-r:off+fcfs-wcr:on+bound",
                              NULL};
        model_run r;
        if (model_run_point(&r, &storq_model_threads, 24, SEED + 30 + (unsigned)i, args))
            abort();
        double m, se;
        paired(&r, "sedpt_nr_np_mean_flow_time", "bound_last_start_mean_flow_time", &m, &se);
        const int in = m >= EX - c * se && m <= Emax + c * se;
        printf("  D_sedpt_nr_np - bound = %.6g (se %.2g) in [%g, %.6g]%s\n", m, se, EX, Emax,
               in ? "" : "  FAIL");
        CHECK(in);
        for (size_t q = 0; q < sizeof pols / sizeof *pols; q++) {
            char name[64];
            snprintf(name, sizeof name, "%s_mean_flow_time", pols[q]);
            paired(&r, name, "bound_last_start_mean_flow_time", &m, &se);
            const int ok = m >= -c * se;
            printf("  %-14s - bound = %.6g (se %.2g)%s\n", pols[q], m, se, ok ? "" : "  FAIL");
            CHECK(ok);
        }
        model_run_free(&r);
    }
}

int main(void)
{
    const double c = model_t_two_sided(1e-5, 23);
    {
        printf("L = 3 = d_min, exp downloads, N = 3000, rho = 0.7: bound = preemptive SERPT-R\n");
        const char *args[] = {"L=3", "rho=0.7", "policy=serpt-r:on+bound", "requests=3000", NULL};
        model_run r;
        if (model_run_point(&r, &storq_model_threads, 24, SEED, args))
            abort();
        double ms, ses, mb, seb;
        stat(&r, "serpt_r_p_mean_flow_time", &ms, &ses);
        stat(&r, "bound_mean_flow_time", &mb, &seb);
        model_check_mean("bound vs serpt_r_p (Theorem 1)", mb, sqrt(seb * seb + ses * ses), ms,
                         0.0, c);
        model_run_free(&r);
    }
    static const char *rhos[] = {"rho=0.2", "rho=0.5", "rho=0.8"};
    static const char *pols[] = {"fcfs_r_p", "serpt_r_p", "sedpt_r_p", "fcfs_r_np", "serpt_r_np",
                                 "sedpt_r_np", "sedpt_nr_np", "sedpt_wcr_p"};
    for (size_t i = 0; i < 3; i++) {
        printf("L = 5, d_min = 3, %s: the bound below every policy\n", rhos[i]);
        const char *args[] = {"L=5", rhos[i], "requests=3000",
                              "policy=fcfs-r:on+serpt-r:on+sedpt-r:on+fcfs-r:off+serpt-r:off+"
                              "sedpt-r:off+sedpt-nr:off+sedpt-wcr:on+bound", NULL};
        model_run r;
        if (model_run_point(&r, &storq_model_threads, 24, SEED + 1 + (unsigned)i, args))
            abort();
        double mb, seb;
        stat(&r, "bound_mean_flow_time", &mb, &seb);
        for (size_t q = 0; q < sizeof pols / sizeof *pols; q++) {
            char name[64];
            double m, se;
            snprintf(name, sizeof name, "%s_mean_flow_time", pols[q]);
            stat(&r, name, &m, &se);
            const int ok = m - mb >= -c * sqrt(se * se + seb * seb);
            printf("  %-24s %.6g  bound %.6g  (+- %.2g)%s\n", pols[q], m, mb, seb,
                   ok ? "" : "  FAIL");
            CHECK(ok);
        }
        model_run_free(&r);
    }
    {
        printf("light traffic, L = 5, rho = 0.002: E[k] E[X] / L\n");
        const char *args[] = {"L=5", "rho=0.002", "policy=serpt-r:on+bound", "requests=3000",
                              NULL};
        model_run r;
        if (model_run_point(&r, &storq_model_threads, 24, SEED + 9, args))
            abort();
        double mb, seb;
        stat(&r, "bound_mean_flow_time", &mb, &seb);
        const double light = (0.9 * 1 + 0.1 * 10) * 0.02 / 5;
        /* queueing adds O(rho): at rho = 0.002 well under 1% */
        model_check_mean("bound vs E[k] E[X] / L", mb, seb, light, 0.01 * light, c);
        model_run_free(&r);
    }
    last_start_exp(c);
    last_start_nlu(c);
    return check_report("test_threads_bound");
}
