/* The `proxy` multi-class approximation (kernels/proxy/multiclass.c: the paper's eq. 5 and the
 * layers of its capacity region, its Fig. 8) against independent computations:
 *   - one class: eq. 5's objective with beta = 1 + 1/n (the Erlang(n) ratio of the single-class
 *     approximation) is the single-class D~(n) = D_s(n) + D~_q(n) that theory.c stores
 *     (delay_approx), at every n and several rates: the multi-class model reduces to it;
 *   - brute force: the objective rewritten here from the formulas, minimised by nested loops over
 *     every code vector at 400 rates across the full capacity region, gives the vector of the
 *     stored layer containing each rate (the kernel finds the layers by walking the lower envelope
 *     of crossing curves, not by enumeration), and the kernel's own mc_optimal_n at the point's
 *     rate; two adjacent layers' objectives are equal where one starts;
 *   - the structure the paper proves (its Corollary 1): the layers are totally ordered, every
 *     class's n non-increasing from light to heavy load, the last one no coding (n_i = k_i; but
 *     n_i = nmax_i for a class with Delta = 0, whose usage does not grow with n), their backlogs
 *     increasing;
 * for the paper's read/write setting at three read shares and a three-class setting with unequal
 * k and nmax. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "model_run.h"
#include "proxy/internal.h"

typedef struct {
    double share, delta, tau;
    long k, nmax;
} cls;

static double usage(const cls *c, long n) { return (double)n * c->delta + (double)c->k * c->tau; }

static double service(const cls *c, long n)
{
    double s = c->delta;
    for (long j = n - c->k + 1; j <= n; j++)
        s += c->tau / (double)j;
    return s;
}

/* Eq. 5's objective, written here from the paper's formulas. */
static double objective(const cls *c, int m, const long *n, double L, double beta, double lam)
{
    double E = 0.0, A = 0.0;
    for (int i = 0; i < m; i++) {
        E += c[i].share * usage(&c[i], n[i]) / L;
        A += c[i].share * service(&c[i], n[i]);
    }
    if (!(lam * E < 1.0))
        return INFINITY;
    return A + lam * beta * E * E / (2.0 * (1.0 - lam * E));
}

/* The best vector by brute force (nested loops over up to three classes). */
static double brute(const cls *c, int m, double L, double beta, double lam, long *best)
{
    double dbest = INFINITY;
    long n[3];
    for (n[0] = c[0].k; n[0] <= c[0].nmax; n[0]++)
        for (n[1] = c[1].k; n[1] <= c[1].nmax; n[1]++)
            for (n[2] = m > 2 ? c[2].k : 0; n[2] <= (m > 2 ? c[2].nmax : 0); n[2]++) {
                double d = objective(c, m, n, L, beta, lam);
                if (d < dbest) {
                    dbest = d;
                    memcpy(best, n, sizeof n);
                }
            }
    return dbest;
}

static const storq_array *get(const storq_theory *th, const char *name)
{
    const storq_array *a = storq_theory_find(th, name);
    CHECK(a != NULL);
    return a;
}

static void theory_at(const char *classes, double lambda, model_run *r, storq_theory *th)
{
    model_run_init(r, &storq_model_proxy);
    model_set(&r->p, "classes", classes);
    model_setd(&r->p, "lambda", lambda);
    model_set(&r->p, "code", "greedy");
    if (model_run_prepare(r))
        abort();
    storq_error err = {0};
    memset(th, 0, sizeof *th);
    if (r->model->theory(r->ctx, th, &err))
        abort();
}

static void single_class(void)
{
    printf("one class: eq. 5 with beta = 1 + 1/n is the single-class D~(n)\n");
    const double rates[] = {0.3, 1.7, 3.2, 4.3};
    for (size_t j = 0; j < 4; j++) {
        model_run r;
        model_run_init(&r, &storq_model_proxy);
        model_setd(&r.p, "lambda", rates[j]);
        model_set(&r.p, "code", "fixed:3");
        if (model_run_prepare(&r))
            abort();
        storq_theory th = {0};
        storq_error err = {0};
        if (r.model->theory(r.ctx, &th, &err))
            abort();
        const storq_array *d = get(&th, "delay_approx");
        CHECK(storq_theory_find(&th, "mc_beta") == NULL); /* eq. 5 is stored with classes only */
        for (uint64_t n = 3; n <= 6 && d; n++) {
            double mc = storq_px_mc_delay(r.ctx, &n, rates[j], 1.0 + 1.0 / (double)n);
            printf("  lambda %.1f n %llu: eq. 5 %.12f  D~ %.12f\n", rates[j], (unsigned long long)n,
                   mc, d->data[n - 3]);
            CHECK_NEAR(mc, d->data[n - 3], 1e-12 * d->data[n - 3]);
        }
        storq_theory_free(&th);
        model_run_free(&r);
    }
}

static void setting(const char *classes, const cls *c, int m)
{
    const double L = 16.0;
    double kbeta = 1e300;
    for (int i = 0; i < m; i++)
        kbeta = fmin(kbeta, (double)c[i].k);
    const double beta = 1.0 + 1.0 / kbeta;
    double EK = 0.0;
    for (int i = 0; i < m; i++)
        EK += c[i].share * usage(&c[i], c[i].k) / L;
    const double full = 1.0 / EK;
    printf("%s: C(K) = %.6f\n", classes, full);

    model_run r;
    storq_theory th;
    theory_at(classes, 0.5 * full, &r, &th);
    const storq_array *b = get(&th, "mc_beta"), *cap = get(&th, "mc_full_capacity");
    const storq_array *rate = get(&th, "mc_layer_rate"), *back = get(&th, "mc_layer_backlog");
    const storq_array *opt = get(&th, "mc_optimal_n");
    const storq_array *ln[3];
    const char *names[3] = {"mc_layer_n_a", "mc_layer_n_b", "mc_layer_n_c"};
    for (int i = 0; i < m; i++)
        ln[i] = get(&th, names[i]);
    if (!b || !cap || !rate || !back || !opt || !ln[0] || !ln[1] || (m > 2 && !ln[2]))
        return;
    CHECK_NEAR(b->data[0], beta, 1e-15);
    CHECK_NEAR(cap->data[0], full, 1e-12 * full);
    const size_t nl = rate->len;
    printf("  %zu layers:", nl);
    for (size_t l = 0; l < nl; l++) {
        printf(" (");
        for (int i = 0; i < m; i++)
            printf("%s%g", i ? "/" : "", ln[i]->data[l]);
        printf(") from %.4f", rate->data[l]);
    }
    printf("\n");
    /* Corollary 1: totally ordered, ending with no coding; rates and backlogs increasing */
    CHECK(nl >= 2 && rate->data[0] == 0.0 && back->data[0] == 0.0);
    for (size_t l = 1; l < nl; l++) {
        int some = 0;
        for (int i = 0; i < m; i++) {
            CHECK(ln[i]->data[l] <= ln[i]->data[l - 1]);
            some |= ln[i]->data[l] < ln[i]->data[l - 1];
        }
        CHECK(some);
        CHECK(rate->data[l] > rate->data[l - 1] && back->data[l] > back->data[l - 1]);
        CHECK(rate->data[l] < full);
        /* where a layer starts, its objective equals the previous layer's */
        long a[3], z[3];
        for (int i = 0; i < m; i++) {
            a[i] = (long)ln[i]->data[l - 1];
            z[i] = (long)ln[i]->data[l];
        }
        const double fa = objective(c, m, a, L, beta, rate->data[l]);
        const double fz = objective(c, m, z, L, beta, rate->data[l]);
        CHECK_NEAR(fa, fz, 1e-9 * fa);
    }
    for (int i = 0; i < m; i++) /* Delta = 0: u(n) = k/mu whatever n, so n = nmax throughout */
        CHECK(ln[i]->data[nl - 1] == (double)(c[i].delta > 0 ? c[i].k : c[i].nmax));
    /* brute force at 400 rates across (0, C(K)): the vector of the layer holding each rate */
    int mismatches = 0;
    for (int j = 1; j < 400; j++) {
        const double lam = full * (double)j / 400.0;
        long best[3];
        const double d = brute(c, m, L, beta, lam, best);
        size_t l = 0;
        while (l + 1 < nl && rate->data[l + 1] <= lam)
            l++;
        long lay[3];
        for (int i = 0; i < m; i++)
            lay[i] = (long)ln[i]->data[l];
        const double dl = objective(c, m, lay, L, beta, lam);
        /* the same vector, or (at a boundary, to rounding) an equally good one */
        int same = 1;
        for (int i = 0; i < m; i++)
            same &= lay[i] == best[i];
        if (!same && !(fabs(dl - d) <= 1e-12 * d))
            mismatches++;
    }
    printf("  brute force at 399 rates: %d mismatches\n", mismatches);
    CHECK(mismatches == 0);
    /* the kernel's mc_optimal_n at lambda = C(K)/2 */
    long best[3];
    brute(c, m, L, beta, 0.5 * full, best);
    for (int i = 0; i < m; i++)
        CHECK(opt->data[i] == (double)best[i]);
    storq_theory_free(&th);
    model_run_free(&r);

    /* the optimum at other rates, prepared at each (and NaN beyond the full capacity) */
    const double fr[] = {0.05, 0.3, 0.7, 0.9, 0.99, 1.01};
    for (size_t j = 0; j < 6; j++) {
        model_run_init(&r, &storq_model_proxy);
        model_set(&r.p, "classes", classes);
        model_setd(&r.p, "lambda", fr[j] * full);
        model_set(&r.p, "code", "greedy");
        r.p.allow_unstable = 1;
        storq_error err = {0};
        memset(&th, 0, sizeof th);
        if (r.model->prepare(&r.p, &r.ctx, &err) || r.model->theory(r.ctx, &th, &err))
            abort();
        opt = get(&th, "mc_optimal_n");
        brute(c, m, L, beta, fr[j] * full, best);
        for (int i = 0; opt && i < m; i++)
            CHECK(fr[j] < 1 ? opt->data[i] == (double)best[i] : isnan(opt->data[i]));
        storq_theory_free(&th);
        model_run_free(&r);
    }
}

int main(void)
{
    single_class();
    /* the paper's read/write setting (jobs/sweeps/proxy-read-write.ini), classes renamed a, b */
    const double shares[] = {0.9, 0.5, 0.1};
    for (size_t s = 0; s < 3; s++) {
        char spec[256];
        snprintf(spec, sizeof spec, "a:%g:3:6:shexp:0.1,1.25|b:%g:3:6:shexp:0.6,2.5", shares[s],
                 1.0 - shares[s]);
        const cls c[2] = {{shares[s], 0.1, 0.8, 3, 6}, {1.0 - shares[s], 0.6, 0.4, 3, 6}};
        setting(spec, c, 2);
    }
    /* three classes, unequal k and nmax, an exponential one (Delta = 0) */
    const cls c3[3] = {{0.5, 0.2, 0.8, 2, 5}, {0.3, 0.0, 0.5, 1, 4}, {0.2, 0.5, 0.25, 4, 7}};
    setting("a:0.5:2:5:shexp:0.2,1.25|b:0.3:1:4:exp:2|c:0.2:4:7:shexp:0.5,4", c3, 3);
    return check_report("test_proxy_multiclass");
}
