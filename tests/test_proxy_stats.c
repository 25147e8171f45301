/* Statistical validation of the `proxy` model (fixed seeds; tolerances from the replications'
 * standard errors, c the Student-t quantile of 1e-5 false alarms per check at R - 1 degrees of
 * freedom, R = 16 replications):
 *   - blocking admission with L >= n: every request's n tasks start together, so its mean service
 *     delay is D_s(n,k) = Delta + sum_{j=n-k+1..n} 1/(j mu) exactly (order statistics of the
 *     shifted exponential), at any load; and the thread time per request is u(n) = n Delta + k/mu,
 *     so the utilisation is lambda u(n) / L;
 *   - non-blocking as lambda -> 0 (lambda = 0.01, L = 16 >= 2 nmax): the mean total delay is D_s;
 *   - Delta = 0, n = k = 1, L = 1 is M/M/1: mean delay 1/(mu - lambda), queueing rho/(mu - lambda),
 *     waiting requests rho^2/(1 - rho), utilisation and throughput rho and lambda, both admissions;
 *   - Little's law: time-average backlog = lambda x mean queueing delay;
 *   - the theory's crossover rates solve D~(n) = D~(n+1) (recomputed here from the formulas) and
 *     Q_n = lambda_n D~_q(n, lambda_n);
 *   - the paper's claim that Greedy and BAFEC stay within 10% of the best fixed code's mean delay,
 *     in its evaluation setting (k = 3, nmax = 6, L = 16, non-blocking; paired differences on
 *     common random numbers), checked where it holds; where it fails, what causes it is checked
 *     instead (Greedy: the composition-weighted service delay; BAFEC: all-or-nothing codes;
 *     see adaptive()); docs/models/proxy.md has the whole sweep (jobs/sweeps/proxy-greedy.sh):
 *     shift ratio 0.2 (lambda = 1 .. 4.4): BAFEC everywhere, Greedy not at lambda = 2 and 3;
 *     the S3-like trace of jobs/traces (0.2, 0.4, 0.7, 0.9 C~(3)): BAFEC everywhere, Greedy not
 *     at 0.4 C~(3); shift ratio 0.6 (0.3, 0.6, 0.9 C~(3)): Greedy everywhere, BAFEC not at 0.9. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "model_run.h"

#define SEED 7071u
#define REPS 16

static double ds(double delta, double mu, long n, long k)
{
    double s = delta;
    for (long j = n - k + 1; j <= n; j++)
        s += 1.0 / ((double)j * mu);
    return s;
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* D_s(n, k) of a trace resampled i.i.d.: the mean k-th smallest of n draws from the trace's
 * empirical law, E[Y] = x_1 + sum_j (x_{j+1} - x_j) P(Bin(n, j/N) < k) over the sorted values
 * (ties add nothing). Written here from the definition, apart from the model's fit. */
static double trace_ds(const char *path, long n, long k)
{
    FILE *f = fopen(path, "r");
    if (!f)
        abort();
    size_t cap = 1024, N = 0;
    double *x = malloc(cap * sizeof *x);
    char line[256];
    while (x && fgets(line, sizeof line, f)) {
        double v;
        if (line[0] == '#' || sscanf(line, "%lf", &v) != 1)
            continue;
        if (N == cap)
            x = realloc(x, (cap *= 2) * sizeof *x);
        if (x)
            x[N++] = v;
    }
    fclose(f);
    if (!x || N == 0)
        abort();
    qsort(x, N, sizeof *x, cmp_double);
    double e = x[0];
    for (size_t j = 1; j < N; j++) {
        const double p = (double)j / (double)N;
        double below = 0, term = pow(1 - p, (double)n); /* P(Bin(n, p) = i), i = 0.. */
        for (long i = 0; i < k; i++) {
            below += term;
            term *= (double)(n - i) / (double)(i + 1) * p / (1 - p);
        }
        e += (x[j] - x[j - 1]) * below;
    }
    free(x);
    return e;
}

static void stat(const model_run *r, const char *name, double *m, double *se)
{
    model_run_stat(r, model_run_offset(r, name, 0), m, se);
}

static void check_obs(const model_run *r, const char *name, double exact, double allowance)
{
    double m, se;
    stat(r, name, &m, &se);
    model_check_mean(name, m, se, exact, allowance, model_t_two_sided(1e-5, r->reps - 1));
}

static void blocking_service(void)
{
    printf("blocking, L >= n: mean service delay = D_s(n,k), utilisation = lambda u(n)/L\n");
    const char *args[] = {"L=16",          "lambda=3",      "k=3",     "nmax=6",
                          "delay=shexp:0.2,1.25", "admission=blocking",
                          "code=fixed:3+fixed:6+greedy+bafec", "warmup=2000",
                          "arrivals=40000", NULL};
    model_run r;
    if (model_run_point(&r, &storq_model_proxy, REPS, SEED, args))
        abort();
    const double delta = 0.2, mu = 1.25;
    check_obs(&r, "fixed3_mean_service_delay", ds(delta, mu, 3, 3), 0);
    check_obs(&r, "fixed6_mean_service_delay", ds(delta, mu, 6, 3), 0);
    check_obs(&r, "fixed3_utilisation", 3.0 * (3 * delta + 3 / mu) / 16, 0);
    check_obs(&r, "fixed6_utilisation", 3.0 * (6 * delta + 3 / mu) / 16, 0);
    /* Little: waiting requests = lambda x queueing delay (both estimated: allow both errors) */
    const char *pols[] = {"fixed3", "fixed6", "greedy", "bafec"};
    for (int i = 0; i < 4; i++) {
        char nb[64], nq[64];
        snprintf(nb, sizeof nb, "%s_mean_backlog", pols[i]);
        snprintf(nq, sizeof nq, "%s_mean_queueing_delay", pols[i]);
        double mb, sb, mq, sq;
        stat(&r, nb, &mb, &sb);
        stat(&r, nq, &mq, &sq);
        char label[80];
        snprintf(label, sizeof label, "%s Little (backlog vs lambda Dq)", pols[i]);
        model_check_mean(label, mb, sqrt(sb * sb + 9.0 * sq * sq), 3.0 * mq, 0,
                         model_t_two_sided(1e-5, r.reps - 1));
        snprintf(nb, sizeof nb, "%s_throughput", pols[i]);
        check_obs(&r, nb, 3.0, 0);
    }
    model_run_free(&r);
}

static void light_load(void)
{
    printf("non-blocking, lambda -> 0: mean delay = D_s(n,k)\n");
    const char *args[] = {"L=16", "lambda=0.01", "k=3", "nmax=6", "delay=shexp:0.3,2",
                          "code=fixed:3+fixed:4+fixed:6+greedy+bafec", "warmup=100",
                          "arrivals=20000", NULL};
    model_run r;
    if (model_run_point(&r, &storq_model_proxy, REPS, SEED + 1, args))
        abort();
    check_obs(&r, "fixed3_mean_delay", ds(0.3, 2, 3, 3), 0);
    check_obs(&r, "fixed4_mean_delay", ds(0.3, 2, 4, 3), 0);
    check_obs(&r, "fixed6_mean_delay", ds(0.3, 2, 6, 3), 0);
    check_obs(&r, "greedy_mean_delay", ds(0.3, 2, 6, 3), 0);
    check_obs(&r, "bafec_mean_delay", ds(0.3, 2, 6, 3), 0);
    model_run_free(&r);
}

static void mm1(const char *admission)
{
    printf("Delta = 0, n = k = 1, L = 1 (%s): M/M/1 at rho = 0.7\n", admission);
    char adm[64];
    snprintf(adm, sizeof adm, "admission=%s", admission);
    const char *args[] = {"L=1", "lambda=0.7", "k=1", "nmax=1", "delay=shexp:0,1", adm,
                          "code=fixed:1+greedy+bafec", "warmup=5000", "arrivals=100000", NULL};
    model_run r;
    if (model_run_point(&r, &storq_model_proxy, REPS, SEED + 2, args))
        abort();
    const double lam = 0.7, rho = 0.7;
    check_obs(&r, "fixed1_mean_delay", 1.0 / (1.0 - lam), 0);
    check_obs(&r, "fixed1_mean_queueing_delay", rho / (1.0 - lam), 0);
    check_obs(&r, "fixed1_mean_service_delay", 1.0, 0);
    check_obs(&r, "fixed1_mean_backlog", rho * rho / (1.0 - rho), 0);
    check_obs(&r, "fixed1_utilisation", rho, 0);
    check_obs(&r, "fixed1_throughput", lam, 0);
    check_obs(&r, "bafec_mean_delay", 1.0 / (1.0 - lam), 0);
    /* with n = k = 1 every policy is the same system on the same numbers */
    check_obs(&r, "diff_greedy_fixed1_mean_delay", 0, 1e-12);
    check_obs(&r, "diff_bafec_fixed1_mean_delay", 0, 1e-12);
    model_run_free(&r);
}

/* D~(n, lambda) from the paper's formulas, written here again. */
static double approx(double delta, double tau, long L, long n, long k, int blocking, double lam)
{
    double u = n * delta + k * tau;
    double Cap = blocking ? ((double)(L - n + 1) / u + (double)L / u) / 2 : (double)L / u;
    double s = delta;
    for (long j = n - k + 1; j <= n; j++)
        s += tau / (double)j;
    return s + lam * (1.0 + 1.0 / (double)n) / (Cap * Cap) / (2.0 * (1.0 - lam / Cap));
}

static void crossovers(int blocking)
{
    printf("crossover rates and thresholds (%s)\n", blocking ? "blocking" : "non-blocking");
    model_run r;
    model_run_init(&r, &storq_model_proxy);
    model_set(&r.p, "admission", blocking ? "blocking" : "nonblocking");
    if (model_run_prepare(&r))
        abort();
    storq_theory th = {0};
    storq_error err = {0};
    if (r.model->theory(r.ctx, &th, &err))
        abort();
    const storq_array *lam = storq_theory_find(&th, "crossover_rate");
    const storq_array *Q = storq_theory_find(&th, "threshold");
    CHECK(lam && Q && lam->len == 3 && Q->len == 3);
    const double delta = 0.2, tau = 0.8;
    double prevQ = INFINITY;
    for (long n = 3; n < 6 && lam && Q; n++) {
        double l = lam->data[n - 3];
        double a = approx(delta, tau, 16, n, 3, blocking, l);
        double b = approx(delta, tau, 16, n + 1, 3, blocking, l);
        double dq = a - ds(delta, 1.0 / tau, n, 3);
        printf("  n = %ld: lambda_n %.6f  D~(n) %.9f  D~(n+1) %.9f  Q_n %.6f (lambda D~_q %.6f)\n",
               n, l, a, b, Q->data[n - 3], l * dq);
        CHECK(l > 0 && fabs(a - b) <= 1e-9 * a);
        CHECK(fabs(Q->data[n - 3] - l * dq) <= 1e-9 * Q->data[n - 3]);
        CHECK(Q->data[n - 3] < prevQ); /* decreasing in n, as the paper states */
        prevQ = Q->data[n - 3];
    }
    storq_theory_free(&th);
    model_run_free(&r);
}

/* The kernel's capacity estimate C~(3) = L / u(3) of the (3,3) code for a delay law (L = 16,
 * non-blocking): the top of the paper's sweep. */
static double capacity3(const char *delay)
{
    model_run r;
    model_run_init(&r, &storq_model_proxy);
    model_set(&r.p, "delay", delay);
    if (model_run_prepare(&r))
        abort();
    storq_theory th = {0};
    storq_error err = {0};
    if (r.model->theory(r.ctx, &th, &err))
        abort();
    const storq_array *c = storq_theory_find(&th, "capacity_estimate");
    const double cap = c ? c->data[0] : NAN;
    storq_theory_free(&th);
    model_run_free(&r);
    return cap;
}

/* Paired: policy P's mean delay minus the best fixed code's, per replication, in the paper's
 * evaluation setting (non-blocking, k = 3, nmax = 6, L = 16); each adaptive policy's difference
 * is checked to be at most 10% of the best mean when its flag says the claim holds there.
 * Where it does not hold for Greedy, the test checks why instead (a shifted exponential law or a
 * trace, whose D_s is computed from its empirical law): a request served with n tasks has a mean service delay of at least D_s(n, k) (its
 * tasks start at its admission or later), so Greedy's mean delay is at least
 * sum_n share(n) D_s(n, k), its code composition weighting the exact service delays; that bound
 * must hold and account for at least 60% of Greedy's excess over the best fixed code (measured:
 * 91%, 80% and 78%): the excess comes from the codes the idle threads dictate (by PASTA, their
 * time-average law), not from the queueing. */
static void adaptive(const char *delay, double lambda, size_t reps, long arrivals, uint64_t seed,
                     int check_greedy, int check_bafec)
{
    char lam[32], law[320], arr[32];
    snprintf(lam, sizeof lam, "lambda=%.10g", lambda);
    snprintf(law, sizeof law, "delay=%s", delay);
    snprintf(arr, sizeof arr, "arrivals=%ld", arrivals);
    const char *args[] = {"L=16", lam, "k=3", "nmax=6", law,
                          "code=fixed:3+fixed:4+fixed:5+fixed:6+greedy+bafec", "warmup=10000",
                          arr, NULL};
    model_run r;
    model_run_init(&r, &storq_model_proxy);
    model_set_args(&r.p, args);
    r.p.allow_unstable = 1; /* at the larger loads the longer codes are past their capacity */
    if (model_run_prepare(&r) || model_run_reps(&r, reps, seed, 0))
        abort();
    const char *fixed[] = {"fixed3_mean_delay", "fixed4_mean_delay", "fixed5_mean_delay",
                           "fixed6_mean_delay"};
    double best = INFINITY;
    const char *bn = NULL;
    for (int i = 0; i < 4; i++) {
        double m, se;
        stat(&r, fixed[i], &m, &se);
        if (m < best) {
            best = m;
            bn = fixed[i];
        }
    }
    const char *ad[] = {"greedy_mean_delay", "bafec_mean_delay"};
    double excess[2];
    for (int a = 0; a < 2; a++) {
        double d[64];
        for (size_t i = 0; i < r.reps; i++)
            d[i] = model_run_value(&r, i, ad[a], 0) - model_run_value(&r, i, bn, 0);
        double m, se;
        model_mean_se(d, r.reps, 1, &m, &se);
        excess[a] = m;
        const int ok = m <= 0.10 * best, checked = a == 0 ? check_greedy : check_bafec;
        printf("  lambda %-7.4g %-18s - %s = %+.4f (se %.4f), %+.1f%% of the best %.4f%s\n",
               lambda, ad[a], bn, m, se, 100.0 * m / best, best,
               !checked ? "  (claim fails here)" : ok ? "" : "  FAIL");
        if (checked)
            CHECK(ok);
        else /* where docs/models/proxy.md reports the paper's claim failing: pinned too */
            CHECK(!ok);
    }
    double delta, mu, dsn[7];
    const int shexp = sscanf(delay, "shexp:%lf,%lf", &delta, &mu) == 2;
    if (!check_greedy && (shexp || strncmp(delay, "trace:", 6) == 0)) {
        for (long n = 3; n <= 6; n++)
            dsn[n] = shexp ? ds(delta, mu, n, 3) : trace_ds(delay + 6, n, 3);
        double lb[64], g[64];
        for (size_t i = 0; i < r.reps; i++) {
            lb[i] = 0;
            for (long n = 3; n <= 6; n++)
                lb[i] += model_run_value(&r, i, "greedy_code_share", (size_t)(n - 1)) * dsn[n];
            g[i] = model_run_value(&r, i, "greedy_mean_service_delay", 0) - lb[i];
        }
        double lm, lse, gm, gse;
        model_mean_se(lb, r.reps, 1, &lm, &lse);
        model_mean_se(g, r.reps, 1, &gm, &gse);
        const double c = model_t_two_sided(1e-5, r.reps - 1);
        printf("  lambda %-7.4g greedy: sum_n share(n) D_s(n) = %.4f (se %.4f), %+.1f%% of the "
               "best; service delay - it = %+.4f (se %.4f)\n",
               lambda, lm, lse, 100.0 * (lm - best) / best, gm, gse);
        CHECK(gm >= -c * gse);                            /* the bound holds */
        CHECK(lm - c * lse - best > 0.6 * excess[0]);     /* and explains most of the excess */
    }
    /* Where BAFEC fails it (shift ratio 0.6 at high load) every threshold Q_3..Q_5 is below 1,
     * so on the integer backlog BAFEC is all or nothing: n = 6 when no request waits, else
     * n = 3, never 4 or 5 (docs/models/proxy.md). */
    if (!check_bafec) {
        double s6 = 0;
        for (size_t i = 0; i < r.reps; i++) {
            CHECK(model_run_value(&r, i, "bafec_code_share", 3) == 0.0);
            CHECK(model_run_value(&r, i, "bafec_code_share", 4) == 0.0);
            s6 += model_run_value(&r, i, "bafec_code_share", 5) / (double)r.reps;
        }
        printf("  lambda %-7.4g bafec: shares of n = 4, 5 are 0, of n = 6 %.3f\n", lambda, s6);
        CHECK(s6 > 0.05);
    }
    model_run_free(&r);
}

int main(void)
{
    blocking_service();
    light_load();
    mm1("nonblocking");
    mm1("blocking");
    crossovers(0);
    crossovers(1);
    printf("adaptive policies against the best fixed code (paired), shexp:0.2,1.25\n");
    const char *sh2 = "shexp:0.2,1.25";
    adaptive(sh2, 1, REPS, 30000, SEED + 20, 1, 1);
    adaptive(sh2, 2, REPS, 30000, SEED + 30, 0, 1);
    adaptive(sh2, 3, REPS, 30000, SEED + 40, 0, 1);
    adaptive(sh2, 4, REPS, 30000, SEED + 50, 1, 1);
    adaptive(sh2, 4.4, REPS, 30000, SEED + 54, 1, 1);
    /* the synthetic S3-like read trace (jobs/traces), standing in for the paper's: Greedy holds
     * at light and at heavy load, not at 0.3 .. 0.5 C~(3) (docs/models/proxy.md) */
    const char *tr = "trace:" PROXY_TRACE;
    const double ct = capacity3(tr);
    printf("adaptive policies, %s (C~(3) = %.4f)\n", tr, ct);
    adaptive(tr, 0.2 * ct, 8, 20000, SEED + 60, 1, 1);
    adaptive(tr, 0.4 * ct, 8, 20000, SEED + 61, 0, 1);
    adaptive(tr, 0.7 * ct, 8, 20000, SEED + 62, 1, 1);
    adaptive(tr, 0.9 * ct, 8, 20000, SEED + 63, 1, 1);
    /* shift ratio 0.6: Greedy holds at every load; BAFEC not at 0.9 C~(3) */
    const char *sh6 = "shexp:0.6,2.5";
    const double c6 = capacity3(sh6);
    printf("adaptive policies, %s (C~(3) = %.4f)\n", sh6, c6);
    adaptive(sh6, 0.3 * c6, 8, 20000, SEED + 70, 1, 1);
    adaptive(sh6, 0.6 * c6, 8, 20000, SEED + 71, 1, 1);
    adaptive(sh6, 0.9 * c6, 8, 20000, SEED + 72, 1, 0);
    return check_failures_ ? 1 : 0;
}
