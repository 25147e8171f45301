/* Exact checks of the `threads` model at L = 1 with two classes of different k, where the
 * size-based policies are not FCFS (with one class they are; test_threads_stats checks that case).
 *
 * Setting: L = 1, Poisson arrivals, exponential downloads (rate mu), classes A = (1,1) and
 * B = (3,2) with shares p and 1 - p. With one thread there is no redundancy, so n does not matter
 * and a request needs 1 or 2 more chunks. The number present is a small-state Markov chain:
 *   - preemptive SERPT-R (and preemptive SEDPT-R, the same policy from scratch) is preemptive SRPT
 *     on the chunks still needed: state (a, b) = requests needing 1 and 2 chunks; the thread
 *     serves a "1" when there is one (rate mu: a - 1), else a "2" (rate mu: b - 1, a + 1);
 *   - the non-preemptive size policies (SERPT-R, SEDPT-R, SEDPT-NR, SEDPT-WCR either way: at L = 1
 *     there is no redundant thread to preempt) re-decide only when the thread frees: state
 *     (a, b, s), s the chunks still needed by the request in service (0: idle);
 *   - FCFS-R and FCFS-WCR are FCFS: M/G/1 with service Erlang(1) w.p. p, Erlang(2) w.p. 1 - p,
 *     mean flow time by Pollaczek-Khinchine.
 * The chains are truncated at a + b <= M (arrivals beyond are lost) and solved by Gauss-Seidel;
 * the truncation error is bounded by comparing M and 2M and enters the allowance. The simulation
 * (steady mode, 16 replications) must agree on the mean flow time, the time-average number
 * present (Little: N = lambda T) and the paired difference to preemptive SERPT-R, within the
 * replications' CI (Student-t, 1e-5 false alarms). Both lower bounds of `bound` are checked too:
 * Theorem 1's relaxation is preemptive SRPT at L = 1, and the last-start bound (SEDPT-NR's last
 * chunk starts) is the non-preemptive chain's mean flow time minus 1/mu, below the optimum. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "model_run.h"

#define SEED 7207u

static const double MU = 50.0, P_A = 0.5, RHO = 0.7;

/* ------------------------------------------------------------------ the Markov chain */

typedef struct chain {
    int M;          /* a + b <= M */
    size_t nstate;  /* (M+1)(M+2)/2 * 3 */
    size_t *in_from; /* incoming transitions, CSR by target */
    double *in_rate;
    size_t *in_start;
    double *out_total;
} chain;

static size_t idx(int M, int a, int b, int s)
{
    (void)M;
    /* (a, b) with a + b = t are numbered t(t+1)/2 + b; times 3 for s */
    const size_t t = (size_t)(a + b);
    return (t * (t + 1) / 2 + (size_t)b) * 3 + (size_t)s;
}

/* The request the free thread takes: a "1" if any, else a "2", else idle. */
static int pick(int a, int b)
{
    return a > 0 ? 1 : b > 0 ? 2 : 0;
}

typedef struct edge {
    size_t from, to;
    double rate;
} edge;

/* Every transition out of every state (reachable or not: unreachable states get probability 0). */
static size_t edges(int M, int preempt, double lambda, edge *e)
{
    size_t m = 0;
    for (int t = 0; t <= M; t++)
        for (int b = 0; b <= t; b++)
            for (int s = 0; s < 3; s++) {
                const int a = t - b;
                const size_t from = idx(M, a, b, s);
                if (t < M) { /* arrivals: a "1" w.p. P_A, a "2" otherwise */
                    for (int c = 1; c <= 2; c++) {
                        const int a2 = a + (c == 1), b2 = b + (c == 2);
                        const int s2 = (preempt || s == 0) ? pick(a2, b2) : s;
                        e[m++] = (edge){from, idx(M, a2, b2, s2),
                                        lambda * (c == 1 ? P_A : 1.0 - P_A)};
                    }
                }
                if (s > 0) { /* the chunk in service completes */
                    const int a2 = s == 1 ? a - 1 : a + 1, b2 = s == 2 ? b - 1 : b;
                    if (a2 < 0 || b2 < 0)
                        continue; /* s inconsistent with (a, b): never reached */
                    e[m++] = (edge){from, idx(M, a2, b2, pick(a2, b2)), MU};
                }
            }
    return m;
}

/* Mean number present of the truncated chain, by Gauss-Seidel on the balance equations. */
static double solve(int M, int preempt, double lambda)
{
    const size_t n = idx(M, 0, M, 2) + 1;
    edge *e = malloc(n * 3 * sizeof *e);
    size_t *start = calloc(n + 1, sizeof *start);
    size_t *from = malloc(n * 3 * sizeof *from);
    double *rate = malloc(n * 3 * sizeof *rate), *out = calloc(n, sizeof *out);
    double *pi = malloc(n * sizeof *pi);
    CHECK(e && start && from && rate && out && pi);
    const size_t m = edges(M, preempt, lambda, e);
    for (size_t i = 0; i < m; i++) {
        start[e[i].to + 1]++;
        out[e[i].from] += e[i].rate;
    }
    for (size_t j = 0; j < n; j++)
        start[j + 1] += start[j];
    size_t *fill = calloc(n, sizeof *fill);
    CHECK(fill != NULL);
    for (size_t i = 0; i < m; i++) {
        const size_t k = start[e[i].to] + fill[e[i].to]++;
        from[k] = e[i].from;
        rate[k] = e[i].rate;
    }
    for (size_t j = 0; j < n; j++)
        pi[j] = 1.0 / (double)n;
    double change = 1.0;
    int it = 0;
    for (; it < 200000 && change > 1e-13; it++) {
        change = 0.0;
        double sum = 0.0;
        for (size_t j = 0; j < n; j++) {
            double in = 0.0;
            for (size_t k = start[j]; k < start[j + 1]; k++)
                in += pi[from[k]] * rate[k];
            const double v = out[j] > 0.0 ? in / out[j] : 0.0;
            change = fmax(change, fabs(v - pi[j]));
            pi[j] = v;
            sum += v;
        }
        for (size_t j = 0; j < n; j++)
            pi[j] /= sum;
    }
    double mean = 0.0, resid = 0.0;
    for (int t = 0; t <= M; t++)
        for (int b = 0; b <= t; b++)
            for (int s = 0; s < 3; s++)
                mean += t * pi[idx(M, t - b, b, s)];
    /* the balance residual of the solution, as a check on convergence */
    for (size_t j = 0; j < n; j++) {
        double in = 0.0;
        for (size_t k = start[j]; k < start[j + 1]; k++)
            in += pi[from[k]] * rate[k];
        resid = fmax(resid, fabs(in - pi[j] * out[j]));
    }
    printf("    chain M = %d, %s: %zu states, %d sweeps, balance residual %.2g, E[N] = %.10g\n", M,
           preempt ? "preemptive" : "non-preemptive", n, it, resid, mean);
    CHECK(resid < 1e-9);
    free(e);
    free(start);
    free(from);
    free(rate);
    free(out);
    free(pi);
    free(fill);
    return mean;
}

/* E[N] of the chain with its truncation error (|E[N](2M) - E[N](M)|, taken as the bound). */
static double exact_present(int preempt, double lambda, double *trunc)
{
    const double m1 = solve(40, preempt, lambda), m2 = solve(80, preempt, lambda);
    *trunc = fabs(m2 - m1);
    return m2;
}

/* ------------------------------------------------------------------ the simulation */

/* preemptive SERPT-R first: the paired differences diff_P_serpt_r_p are against it */
static const char *ALL = "serpt-r:on+fcfs-r:off+fcfs-r:on+fcfs-wcr:off+fcfs-wcr:on+sedpt-r:on+"
                         "serpt-r:off+sedpt-r:off+sedpt-nr:off+sedpt-wcr:off+sedpt-wcr:on+bound";

static void check_obs(const model_run *r, const char *name, double exact, double allowance)
{
    double m, se;
    model_run_stat(r, model_run_offset(r, name, 0), &m, &se);
    model_check_mean(name, m, se, exact, allowance, model_t_two_sided(1e-5, r->reps - 1));
}

/* The policy's mean flow time and mean number present, and (but for preemptive SERPT-R itself)
 * its paired difference to preemptive SERPT-R, whose CI is much narrower (common random numbers):
 * this is what tells the three exact values apart sharply. */
static void check_policy(const model_run *r, const char *prefix, double T, double allowance_T,
                         double lambda, double T_p, double allowance_p)
{
    char name[96];
    snprintf(name, sizeof name, "%s_mean_flow_time", prefix);
    check_obs(r, name, T, allowance_T);
    snprintf(name, sizeof name, "%s_mean_present", prefix);
    check_obs(r, name, lambda * T, lambda * allowance_T);
    if (strcmp(prefix, "serpt_r_p") != 0) {
        snprintf(name, sizeof name, "diff_%s_serpt_r_p_mean_flow_time", prefix);
        check_obs(r, name, T - T_p, allowance_T + allowance_p);
    }
}

int main(void)
{
    const double Ek = P_A * 1.0 + (1.0 - P_A) * 2.0, lambda = RHO * MU / Ek;
    printf("L = 1, classes (1,1) %.0f%% and (3,2) %.0f%%, exp downloads mu = %g, Poisson arrivals, "
           "rho = %g (lambda = %.6g)\n",
           100 * P_A, 100 * (1 - P_A), MU, RHO, lambda);

    /* FCFS: Pollaczek-Khinchine with E[S] = E[k]/mu, E[S^2] = E[k(k+1)]/mu^2 */
    const double ES = Ek / MU, ES2 = (P_A * 2.0 + (1.0 - P_A) * 6.0) / (MU * MU);
    const double T_fcfs = ES + lambda * ES2 / (2.0 * (1.0 - RHO));
    double tr_p, tr_np;
    const double N_p = exact_present(1, lambda, &tr_p), N_np = exact_present(0, lambda, &tr_np);
    const double T_p = N_p / lambda, T_np = N_np / lambda;
    printf("  exact mean flow time: FCFS %.8g (Pollaczek-Khinchine), preemptive SRPT %.8g "
           "(truncation %.2g), non-preemptive %.8g (truncation %.2g)\n",
           T_fcfs, T_p, tr_p / lambda, T_np, tr_np / lambda);
    CHECK(tr_p / lambda < 1e-7 && tr_np / lambda < 1e-7);

    char pol[512];
    snprintf(pol, sizeof pol, "policy=%s", ALL);
    const char *args[] = {"L=1", "classes=a:0.5:1:1|b:0.5:3:2", "rho=0.7", "interarrival=exp:1",
                          "download=exp:50", pol, "mode=steady", "warmup=2000",
                          "arrivals=20000", NULL};
    model_run r;
    if (model_run_point(&r, &storq_model_threads, 16, SEED, args))
        abort();
    static const char *fcfs[] = {"fcfs_r_np", "fcfs_r_p", "fcfs_wcr_np", "fcfs_wcr_p"};
    static const char *srpt_p[] = {"serpt_r_p", "sedpt_r_p"};
    static const char *srpt_np[] = {"serpt_r_np", "sedpt_r_np", "sedpt_nr_np", "sedpt_wcr_np",
                                    "sedpt_wcr_p"};
    printf("  FCFS (M/G/1, Pollaczek-Khinchine)\n");
    for (size_t i = 0; i < sizeof fcfs / sizeof *fcfs; i++)
        check_policy(&r, fcfs[i], T_fcfs, 0.0, lambda, T_p, tr_p / lambda);
    printf("  preemptive SRPT on chunks still needed (Markov chain)\n");
    for (size_t i = 0; i < sizeof srpt_p / sizeof *srpt_p; i++)
        check_policy(&r, srpt_p[i], T_p, tr_p / lambda, lambda, T_p, tr_p / lambda);
    /* the paper's lower bound (bound.c: one server of rate L mu, shortest remaining chunks
     * first, its own chunk times): at L = 1 nothing is relaxed, so it is preemptive SRPT */
    printf("  the lower bound at L = 1: preemptive SRPT (Markov chain)\n");
    check_obs(&r, "bound_mean_flow_time", T_p, tr_p / lambda);
    /* the NLU/exp last-start bound (bound_last_start_mean_flow_time, V_j - a_j under SEDPT-NR):
     * at L = 1 the last needed chunk runs alone from V_j, its time independent of V_j, so the
     * bound is the non-preemptive chain's T - 1/mu; and it lies below the optimum T_p */
    printf("  the last-start bound at L = 1: non-preemptive chain's T - 1/mu = %.7g, below the "
           "optimum %.7g\n", T_np - 1.0 / MU, T_p);
    check_obs(&r, "bound_last_start_mean_flow_time", T_np - 1.0 / MU, tr_np / lambda);
    {
        double mv, sev;
        model_run_stat(&r, model_run_offset(&r, "bound_last_start_mean_flow_time", 0), &mv, &sev);
        const double c = model_t_two_sided(1e-5, r.reps - 1);
        printf("    %.7g +- %.2g at or below %.7g\n", mv, sev, T_p);
        CHECK(mv - c * sev <= T_p + tr_p / lambda);
        CHECK(T_np - 1.0 / MU < T_p); /* the exact values: the bound is strict here */
    }
    printf("  non-preemptive, re-deciding per chunk (Markov chain)\n");
    for (size_t i = 0; i < sizeof srpt_np / sizeof *srpt_np; i++)
        check_policy(&r, srpt_np[i], T_np, tr_np / lambda, lambda, T_p, tr_p / lambda);

    /* The checks must discriminate between the policies: the exact differences are many
     * standard errors of the paired differences (non-preemptive minus preemptive, the smaller). */
    double m, se;
    model_run_stat(&r, model_run_offset(&r, "diff_serpt_r_np_serpt_r_p_mean_flow_time", 0), &m,
                   &se);
    printf("  separation: FCFS - SRPT p = %.4g, SRPT np - SRPT p = %.4g, paired se %.3g\n",
           T_fcfs - T_p, T_np - T_p, se);
    CHECK(T_fcfs - T_np > 20 * se && T_np - T_p > 20 * se);
    model_run_free(&r);
    return check_report("test_threads_exact");
}
