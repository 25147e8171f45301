/* Refined mean field of the supermarket model (kernels/supermarket/refined.[ch]): deterministic
 * checks of the pieces and of the 1/n coefficient V.
 *
 * (a) JSQ(2) with replacement, lambda = 0.9: sum_i (u_i + V_i / N) against the refined values
 *     rmf_tool prints in its Example_2choice notebook (Gast and Van Houdt's tool; 16 digits there).
 * (b) V_1 = 0 for every (L, k) and sampling: E[u^n_1] = lambda at every n (work conservation).
 * (c) L = k = 1 (independent M/M/1 queues, E[u^n_i] = lambda^i at every n): V = 0 under both
 *     samplings; k = L without replacement (f linear, no 1/n term): V = 0.
 * (d) Lyapunov residual and solve residual at rounding level; A stable.
 * (e) Truncation: doubling the number of levels changes V by < 1e-12.
 * (f) The 1/n term f_1 of the drift against the exact finite-n drift, by enumerating every ordered
 *     draw of L servers from a configuration of n servers with the kernels' selection rule (ties
 *     by draw position; a server chosen twice gets +1 then +1), both samplings, extrapolated in n
 *     (Richardson on n = N, 2N removes the O(1/n) remainder).
 * (g) Transient: V(0) = 0, and from the fixed point V(t) tends to the steady V.
 * (h) with the argument "stats" (CTest test_supermarket_refined_stats, statistical): the refined
 *     mean queue length against simulation (counts engine, 20 replications, fixed seeds) at n = 20,
 *     50, 100, within c standard errors (c: two-sided 1e-5 quantile of Student's t, 19 degrees of
 *     freedom) plus an O(1/n^2) allowance C / n^2 (C stated at case_sim); and the plain mean field
 *     rejected at n = 20 (the check has power where the 1/n term matters).
 * Prints the numbers quoted in docs/models/supermarket-theory.md. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MODEL_CHECK_WIDTH 44
#include "check.h"
#include "model_run.h"
#include "supermarket/meanfield.h"
#include "supermarket/refined.h"

static double sum_from1(const double *v, size_t d)
{
    double s = 0.0;
    for (size_t i = d + 1; i-- > 1;)
        s += v[i];
    return s;
}

/* ------------------------------------------------------------------ (a) rmf_tool */

static void case_rmf_tool(void)
{
    /* rmf_tool, Example_2choice.ipynb, "refined mean-field, N=..." (two-choice with
     * replacement, rho = 0.9) */
    const int N[] = {10, 20, 30, 50, 100};
    const double ref[] = {2.751294338309056, 2.551972988950278, 2.4855325391640175,
                          2.4323801793350093, 2.3925159094632535};
    const size_t d = 30;
    double V[31], u[31];
    storq_sm_refined_info inf;
    CHECK(storq_sm_refined_steady(2, 1, 0.9, 0, d, V, NULL, &inf) == 0);
    storq_sm_fixed_point(2, 1, 0.9, d + 1, u);
    const double su = sum_from1(u, d), sv = sum_from1(V, d);
    printf("(a) JSQ(2) with replacement, lambda = 0.9: sum u* = %.15g, sum V = %.15g\n", su, sv);
    for (size_t j = 0; j < 5; j++) {
        const double r = su + sv / N[j];
        printf("    N = %3d: refined E[Q] = %.15g  rmf_tool %.15g  rel diff %.2g\n", N[j], r,
               ref[j], fabs(r - ref[j]) / ref[j]);
        CHECK(fabs(r - ref[j]) <= 1e-12 * ref[j]);
    }
}

/* ------------------------------------------------------------------ (b)-(e) */

static void case_general(int L, int k, double lambda, int without)
{
    const size_t d = (size_t)storq_sm_auto_levels(L, k, lambda, 1e-17, 5000) + 2;
    double *V = calloc(2 * d + 1, sizeof *V), *V2 = calloc(2 * d + 1, sizeof *V2);
    double *W = calloc(d + 1, sizeof *W);
    storq_sm_refined_info inf, inf2;
    CHECK(storq_sm_refined_steady(L, k, lambda, without, d, V, W, &inf) == 0);
    CHECK(storq_sm_refined_steady(L, k, lambda, without, 2 * d, V2, NULL, &inf2) == 0);
    double trunc = 0.0, vmax = 0.0;
    for (size_t i = 0; i <= 2 * d; i++) {
        const double a = i <= d ? V[i] : 0.0;
        if (fabs(a - V2[i]) > trunc)
            trunc = fabs(a - V2[i]);
        if (fabs(V2[i]) > vmax)
            vmax = fabs(V2[i]);
    }
    printf("(b-e) L = %2d k = %2d lambda = %.2f %-7s d = %3zu: sum V = %10.6f max|V| = %9.4g "
           "V_1 = %8.1e eig [%.4g, %.4g] lyap res %.1e (%d doublings) solve res %.1e, "
           "doubling d moves V by %.1e\n",
           L, k, lambda, without ? "without" : "with", d, sum_from1(V, d), vmax, V[1],
           inf.eig_min, inf.eig_max, inf.lyap_residual, inf.lyap_doublings, inf.solve_residual,
           trunc);
    CHECK(inf.eig_max < 0.0);
    CHECK(fabs(V[1]) <= 1e-12 * (1.0 + vmax));
    CHECK(inf.lyap_residual <= 1e-12);
    CHECK(inf.solve_residual <= 1e-12);
    CHECK(trunc <= 1e-12 * (1.0 + vmax));
    if ((L == 1 && k == 1) || (k == L && without))
        CHECK(vmax == 0.0 || vmax <= 1e-12);
    free(V);
    free(V2);
    free(W);
}

/* ------------------------------------------------------------------ (f) f_1 by enumeration */

/* The exact expected change of N_i (queues with >= i tasks) per job, i = 1..D, for n servers with
 * the given lengths, every ordered draw of L servers (with or without replacement) enumerated, the
 * k shortest chosen with ties by draw position, a server chosen twice getting +1 then +1. */
static void exact_increment(const int *len, int n, int L, int k, int without, int D, double *inc)
{
    int idx[8], sel[8], used[8];
    memset(inc, 0, sizeof *inc * (size_t)(D + 2));
    double count = 0.0;
    for (int i = 0; i < L; i++)
        idx[i] = 0;
    for (;;) {
        int ok = 1;
        if (without)
            for (int a = 0; a < L && ok; a++)
                for (int b = a + 1; b < L; b++)
                    if (idx[a] == idx[b])
                        ok = 0;
        if (ok) {
            count += 1.0;
            /* the k smallest (len, position) */
            for (int i = 0; i < L; i++)
                used[i] = 0;
            for (int c = 0; c < k; c++) {
                int best = -1;
                for (int i = 0; i < L; i++)
                    if (!used[i] && (best < 0 || len[idx[i]] < len[idx[best]]))
                        best = i;
                used[best] = 1;
                sel[c] = best;
            }
            /* chosen in draw order; duplicates (same server) take +1, +2, ... */
            for (int c = 0; c < k; c++) {
                int dup = 0;
                for (int e = 0; e < k; e++)
                    if (e != c && idx[sel[e]] == idx[sel[c]] && sel[e] < sel[c])
                        dup++;
                const int level = len[idx[sel[c]]] + dup + 1;
                if (level <= D)
                    inc[level] += 1.0;
            }
        }
        int p = L - 1;
        while (p >= 0 && ++idx[p] == n) {
            idx[p] = 0;
            p--;
        }
        if (p < 0)
            break;
    }
    for (int i = 0; i <= D; i++)
        inc[i] /= count;
}

/* g_i(n) = n (exact increment_i - [f(u_{i-1}) - f(u_i)]) -> f_1,i / lambda as n grows. */
static void case_f1(int L, int k, int without, int n0)
{
    /* a configuration with lengths 0..3 in proportions 3:4:2:1 (n a multiple of 10) */
    const int D = 5;
    double g[2][7];
    double u[7];
    for (int s = 0; s < 2; s++) {
        const int n = n0 << s;
        int *len = malloc(sizeof *len * (size_t)n);
        int cnt[4] = {3 * n / 10, 4 * n / 10, 2 * n / 10, n / 10}, p = 0;
        for (int l = 0; l < 4; l++)
            for (int j = 0; j < cnt[l]; j++)
                len[p++] = l;
        double inc[8];
        exact_increment(len, n, L, k, without, D, inc);
        for (int i = 0; i <= D; i++) {
            int ge = 0;
            for (int j = 0; j < n; j++)
                ge += len[j] >= i;
            u[i] = (double)ge / n;
        }
        for (int i = 1; i <= D; i++)
            g[s][i] = n * (inc[i] - (storq_sm_f(L, k, u[i - 1]) - storq_sm_f(L, k, u[i])));
        free(len);
    }
    double f1[7];
    CHECK(storq_sm_refined_f1(L, k, 1.0, without, u, (size_t)D, f1) == 0);
    printf("(f) f_1, L = %d k = %d %-7s: n = %d, %d, Richardson vs f_1 (lambda = 1):\n", L, k,
           without ? "without" : "with", n0, 2 * n0);
    for (int i = 1; i <= D; i++) {
        const double rich = 2.0 * g[1][i] - g[0][i];
        printf("    level %d: g(n) %.6f  g(2n) %.6f  extrapolated %.6f  f_1 %.6f\n", i, g[0][i],
               g[1][i], rich, f1[i]);
        /* Richardson leaves O(1/n^2) * n = O(1/n): 2 / n0 allows it */
        CHECK(fabs(rich - f1[i]) <= 2.0 / n0 * (1.0 + fabs(f1[i])));
        /* and the direct value is at least within O(1/n) */
        CHECK(fabs(g[1][i] - f1[i]) <= 10.0 / n0 * (1.0 + fabs(f1[i])));
    }
}

/* ------------------------------------------------------------------ (g) transient */

static void case_transient(int L, int k, int without)
{
    const double lambda = 0.9;
    const size_t d = (size_t)storq_sm_auto_levels(L, k, lambda, 1e-17, 5000) + 2;
    double *Vs = calloc(d + 1, sizeof *Vs), *u0 = calloc(d + 1, sizeof *u0);
    double *out = calloc(3 * (d + 1), sizeof *out);
    CHECK(storq_sm_refined_steady(L, k, lambda, without, d, Vs, NULL, NULL) == 0);
    /* from the fixed point (W(0) = 0, so V(t) -> V only as W relaxes) */
    storq_sm_fixed_point(L, k, lambda, d + 1, u0);
    const double t[3] = {0.0, 10.0, 300.0};
    CHECK(storq_sm_refined_transient(L, k, lambda, without, u0, d, t, 3,
                                     storq_sm_ode_step(L, k, lambda) * 4, out) == 0);
    double v0 = 0.0, dev = 0.0, vmax = 0.0;
    for (size_t i = 0; i <= d; i++) {
        v0 = fmax(v0, fabs(out[i]));
        dev = fmax(dev, fabs(out[2 * (d + 1) + i] - Vs[i]));
        vmax = fmax(vmax, fabs(Vs[i]));
    }
    printf("(g) transient L = %d k = %d %s from the fixed point: sum V(10) = %.6f, sum V(300) = "
           "%.10f, steady sum V = %.10f, max|V(300) - V| = %.2g\n",
           L, k, without ? "without" : "with", sum_from1(out + d + 1, d),
           sum_from1(out + 2 * (d + 1), d), sum_from1(Vs, d), dev);
    CHECK(v0 == 0.0);
    CHECK(dev <= 1e-8 * (1.0 + vmax));
    free(Vs);
    free(u0);
    free(out);
}

/* ------------------------------------------------------------------ (h) simulation */

/* The O(1/n^2) allowance is C / n^2, C stated per case: n^2 (E[Q^n] - refined) for JSQ(2) with
 * replacement at lambda = 0.9 is 5.7-6.4 in rmf_tool's long simulations at N = 20..100 (its
 * Example_2choice notebook), so C = 10; for (4,2) without replacement we measured 14.6 +- 4.5 (se)
 * at n = 20 and 2.6 +- 16 at n = 50 (this test, 2e5 jobs per replication; 17.7 +- 4.3 and 24 +- 16
 * with the counts engine's earlier draws), so C = 30. */
static void case_sim(int L, int k, int without, int n, double C, uint64_t seed)
{
    const size_t R = 20;
    char a[4][32];
    snprintf(a[0], sizeof a[0], "n=%d", n);
    snprintf(a[1], sizeof a[1], "L=%d", L);
    snprintf(a[2], sizeof a[2], "k=%d", k);
    snprintf(a[3], sizeof a[3], "sampling=%s", without ? "without" : "with");
    const char *args[] = {a[0], a[1], a[2], a[3], "lambda=0.9", "engine=counts",
                          "warmup=20000", "arrivals=200000", NULL};
    model_run r;
    if (model_run_point(&r, &storq_model_supermarket, R, seed, args)) {
        CHECK(0);
        return;
    }
    storq_theory th = {0};
    storq_error err = {0};
    CHECK(storq_model_supermarket.theory(r.ctx, &th, &err) == 0);
    const storq_array *mf = storq_theory_find(&th, "mean_queue_length");
    const storq_array *rf = storq_theory_find(&th, "mean_queue_length_refined");
    CHECK(mf && rf);
    if (mf && rf) {
        const double c = model_t_two_sided(1e-5, R - 1);
        double m, se;
        model_run_stat(&r, model_run_offset(&r, "mean_queue_length", 0), &m, &se);
        printf("(h) L = %d k = %d %-7s n = %3d: sim E[Q] = %.5f +- %.5f (se), mean field %.5f, "
               "refined %.5f, n^2 (sim - refined) = %.2f +- %.2f\n",
               L, k, without ? "without" : "with", n, m, se, mf->data[0], rf->data[0],
               (double)n * n * (m - rf->data[0]), (double)n * n * se);
        model_check_mean("mean_queue_length = refined + O(1/n^2)", m, se, rf->data[0],
                         C / ((double)n * n), c);
        if (n == 20) /* the plain mean field is off by V/n, far beyond the noise */
            CHECK(fabs(m - mf->data[0]) > c * se + C / ((double)n * n));
    }
    storq_theory_free(&th);
    model_run_free(&r);
}

/* Transient from empty, n = 50, JSQ(2) with replacement: u_i(t) against u_i(t) + V_i(t)/n at
 * t = 5, 10, 15, 20 within c standard errors plus C / n^2, C = 10 as in the steady case. */
static void case_sim_transient(uint64_t seed)
{
    const size_t R = 400;
    const double n = 50.0;
    const char *args[] = {"n=50", "L=2", "k=1", "sampling=with", "lambda=0.9", "mode=transient",
                          "horizon=20", "grid=4", "levels=6", "engine=counts", NULL};
    model_run r;
    if (model_run_point(&r, &storq_model_supermarket, R, seed, args)) {
        CHECK(0);
        return;
    }
    storq_theory th = {0};
    storq_error err = {0};
    CHECK(storq_model_supermarket.theory(r.ctx, &th, &err) == 0);
    const storq_array *rf = storq_theory_find(&th, "u_t_refined");
    const storq_array *mf = storq_theory_find(&th, "u_t");
    CHECK(rf && mf && rf->len == 5 * 6);
    if (rf && mf && rf->len == 5 * 6) {
        const double c = model_t_two_sided(1e-5, R - 1);
        printf("(h) transient from empty, L = 2 k = 1 with, n = 50, %zu replications:\n", R);
        for (size_t j = 1; j <= 4; j++)
            for (size_t i = 1; i <= 4; i++) {
                double m, se;
                model_run_stat(&r, model_run_offset(&r, "u_t", j * 6 + i), &m, &se);
                char what[64];
                snprintf(what, sizeof what, "u_%zu(t_%zu) = refined (ODE %.4f)", i, j,
                         mf->data[j * 6 + i]);
                model_check_mean(what, m, se, rf->data[j * 6 + i], 10.0 / (n * n), c);
            }
    }
    storq_theory_free(&th);
    model_run_free(&r);
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "stats") == 0) {
        case_sim(2, 1, 0, 20, 10.0, 101);
        case_sim(2, 1, 0, 50, 10.0, 102);
        case_sim(2, 1, 0, 100, 10.0, 103);
        case_sim(4, 2, 1, 20, 30.0, 104);
        case_sim(4, 2, 1, 50, 30.0, 105);
        case_sim_transient(106);
        return check_report("test_supermarket_refined_stats");
    }
    case_rmf_tool();
    const int lk[][2] = {{1, 1}, {2, 1}, {3, 1}, {4, 2}, {3, 3}, {5, 3}, {10, 5}, {16, 15}};
    for (size_t j = 0; j < sizeof lk / sizeof lk[0]; j++)
        for (int w = 0; w < 2; w++) {
            case_general(lk[j][0], lk[j][1], 0.9, w);
            if (lk[j][0] <= 4)
                case_general(lk[j][0], lk[j][1], 0.99, w);
        }
    case_f1(2, 1, 1, 40);
    case_f1(3, 2, 1, 40);
    case_f1(3, 2, 0, 40);
    case_f1(3, 3, 0, 40);
    case_f1(4, 2, 0, 20);
    case_f1(4, 2, 1, 20);
    case_transient(2, 1, 0);
    case_transient(4, 2, 1);
    return check_report("test_supermarket_refined");
}
