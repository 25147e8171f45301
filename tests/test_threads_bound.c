/* The paper's lower bound on the optimal mean flow time (`--policy ...+bound`, kernels/threads/
 * bound.c), against what holds independently of it:
 *   1. Theorem 1: with d_min >= L (the paper's setting at L = 3) preemptive SERPT-R is optimal and
 *      nothing is relaxed, so the bound -- a single server of rate L mu on its own chunk times --
 *      and the L-thread kernel's preemptive SERPT-R estimate the same mean (within their CIs);
 *   2. it lies below every policy at L = 5 (d_min = 3 < L), preemptive or not, at three loads;
 *   3. light traffic: a lone request is served by all L threads, E[k] E[X] / L (theory/
 *      bound_light_traffic), approached as rho -> 0.
 * (test_threads_exact checks it at L = 1 against the exact preemptive-SRPT Markov chain.) */
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
    return check_report("test_threads_bound");
}
