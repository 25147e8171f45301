/* Mean-field theory of batch sampling ("Steady-state behavior of some load balancing mechanisms in
 * cloud storage systems"). See the header for the interface and docs/models/supermarket-theory.md
 * for the mathematics and the measured accuracy. */
#include "meanfield.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------------------------------------- */
/* f(x) = E[(J - (L - k))^+], J ~ Binomial(L, x)                                                  */
/* ---------------------------------------------------------------------------------------------- */

/* log(n!) without lgamma (which writes the global signgam, a data race under OpenMP): the exact
 * product for n <= 30 (rounded once per factor), Stirling's series beyond (next term < 1e-18). */
#define LOG_2PI 1.8378770664093454835606594728112353 /* log(2 pi) */

static double log_fact(int n)
{
    if (n < 2)
        return 0.0;
    if (n <= 30) {
        double p = 1.0;
        for (int i = 2; i <= n; i++)
            p *= i;
        return log(p);
    }
    const double x = n, x2 = x * x;
    const double series =
        (1.0 / 12.0 -
         (1.0 / 360.0 - (1.0 / 1260.0 - (1.0 / 1680.0 - (1.0 / 1188.0) / x2) / x2) / x2) / x2) /
        x;
    return x * log(x) - x + 0.5 * (LOG_2PI + log(x)) + series;
}

static double log_binom(int L, int j)
{
    return log_fact(L) - log_fact(j) - log_fact(L - j);
}

double storq_sm_binom_pmf(int m, double x, int j)
{
    if (j < 0 || j > m)
        return 0.0;
    if (x <= 0.0)
        return j == 0 ? 1.0 : 0.0;
    if (x >= 1.0)
        return j == m ? 1.0 : 0.0;
    return exp(log_binom(m, j) + (double)j * log(x) + (double)(m - j) * log1p(-x));
}

/* C(L,m) in double for L <= SM_F_DIRECT_MAX (no overflow: C(1000,500) ~ 2.7e299). Each partial
 * product is C(L-m+i, i), an integer: exact while below 2^53, otherwise one rounding per factor. */
#define SM_F_DIRECT_MAX 1000

static double binom_double(int L, int j)
{
    const int m = j < L - j ? j : L - j;
    double c = 1.0;
    for (int i = 1; i <= m; i++)
        c = c * (double)(L - m + i) / (double)i;
    return c;
}

/* Binomial coefficients for the general case, j = L-k+1..L: log C(L,j) always, C(L,j) itself when
 * L <= SM_F_DIRECT_MAX. */
typedef struct binom_table {
    const double *lc, *c;
} binom_table;

/* The general case 1 < k < L, 0 < x < 1. The binomial terms t_j = C(L,j) x^j (1-x)^(L-j),
 * j = L-k+1..L, are computed from the largest one in that range (the binomial mode clamped to it)
 * by the ratios t_{j+1}/t_j = (L-j)/(j+1) * x/(1-x), walking away from it in both directions; the
 * terms decrease monotonically away from the start, and each walk stops once the terms still to
 * come are provably below 2^-60 of the sum. 1 - x is carried as y (1 + cy) with y = fl(1 - x) and
 * cy = the exact rounding error / y (|cy| <= 2^-53), so that the rounding of 1 - x does not get
 * raised to the power L - j. Start term, L <= SM_F_DIRECT_MAX: C(L,j) in double, x^j and y^(L-j) by
 * pow on the frexp mantissas
 * (>= 2^-1000, so nothing leaves the normal range before the final ldexp), the binary exponents
 * summed as integers: a few ulp. L > SM_F_DIRECT_MAX: exp(log C + j log x + (L-j) log1p(-x)), which
 * loses about eps (|log C| + |j log x| + |(L-j) log(1-x)|) in relative accuracy. */
static double f_general(int L, int k, double x, const binom_table *tab)
{
    const int j0 = L - k + 1;
    int jm = (int)floor((L + 1) * x);
    if (jm < j0)
        jm = j0;
    if (jm > L)
        jm = L;
    const double y = 1.0 - x;
    const double cy = ((1.0 - y) - x) / y; /* 1 - x = y (1 + cy) exactly up to O(cy^2) */
    double tm;
    if (L <= SM_F_DIRECT_MAX) {
        int ec, ex, ey, e1, e2;
        const double mx = frexp(x, &ex), my = frexp(y, &ey);
        double m = frexp(tab ? tab->c[jm - j0] : binom_double(L, jm), &ec);
        m = frexp(m * pow(mx, jm), &e1);
        m = frexp(m * pow(my, L - jm) * (1.0 + (double)(L - jm) * cy), &e2);
        tm = ldexp(m, ec + e1 + e2 + ex * jm + ey * (L - jm));
    } else {
        const double lcm = tab ? tab->lc[jm - j0] : log_binom(L, jm);
        tm = exp(lcm + jm * log(x) + (L - jm) * log1p(-x));
    }
    if (tm == 0.0)
        return 0.0; /* the largest term underflows: f < k^2 * DBL_TRUE_MIN */
    const double rho = x / y * (1.0 - cy), irho = y / x * (1.0 + cy);
    double sum = (double)(jm - L + k) * tm;
    double t = tm;
    for (int j = jm; j < L; j++) { /* upwards: t_{j+1} */
        const double q = (double)(L - j) / (double)(j + 1) * rho;
        /* The ratios q decrease with j (log-concavity), so once q < 1 the terms still to come sum
         * to at most t q / (1 - q), with weights at most k: stop when that is below 2^-60 of the
         * sum. */
        if (q < 1.0 && (double)k * t * q < 0x1p-60 * (1.0 - q) * sum)
            break;
        t *= q;
        sum += (double)(j + 1 - L + k) * t;
    }
    t = tm;
    for (int j = jm; j > j0; j--) { /* downwards: t_{j-1} */
        const double q = (double)j / (double)(L - j + 1) * irho;
        /* Same bound downwards, where the weights decrease: at most (j - L + k) t q / (1 - q). */
        if (q < 1.0 && (double)(j - L + k) * t * q < 0x1p-60 * (1.0 - q) * sum)
            break;
        t *= q;
        sum += (double)(j - 1 - L + k) * t;
    }
    return sum;
}

static double f_eval(int L, int k, double x, const binom_table *tab)
{
    if (x <= 0.0)
        return 0.0;
    if (x >= 1.0)
        return (double)k;
    if (k <= 1)
        return pow(x, L); /* k = 1: the supermarket model, f(x) = x^L exactly */
    if (k >= L)
        return (double)L * x; /* k = L: E[J] = L x exactly */
    return f_general(L, k, x, tab);
}

double storq_sm_f(int L, int k, double x)
{
    return f_eval(L, k, x, NULL);
}

/* ---------------------------------------------------------------------------------------------- */
/* Fixed point, tail bounds, number of levels                                                     */
/* ---------------------------------------------------------------------------------------------- */

/* Values below the smallest normal double are reported as 0: they carry no precision and are
 * negligible for every purpose here. */
static double flush(double v)
{
    return v < DBL_MIN ? 0.0 : v;
}

void storq_sm_fixed_point(int L, int k, double lambda, size_t levels, double *u)
{
    if (levels == 0)
        return;
    u[0] = 1.0;
    const double c = lambda / (double)k;
    for (size_t i = 1; i < levels; i++)
        u[i] = flush(c * f_eval(L, k, u[i - 1], NULL));
}

/* lambda^e_i with e_i = (a^i - 1)/(a - 1) = 1 + a + ... + a^(i-1), accumulated as e_i = 1 + a
 * e_{i-1}: exact for integer a while e_i < 2^53, e_i = i exactly when a = 1 (the limit), and +inf
 * rather than NaN once a^i overflows (then lambda^e = 0 for lambda < 1). */
static void geometric_power(double a, double lambda, size_t levels, double *out)
{
    double e = 0.0;
    for (size_t i = 0; i < levels; i++) {
        if (i == 0)
            out[i] = 1.0;
        else if (lambda <= 0.0)
            out[i] = 0.0;
        else
            out[i] = flush(pow(lambda, e));
        e = 1.0 + a * e;
    }
}

void storq_sm_tail_bounds(int L, int k, double lambda, size_t levels, double *lower, double *upper)
{
    geometric_power((double)(L - k + 1), lambda, levels, lower);
    geometric_power((double)L / (double)k, lambda, levels, upper);
}

size_t storq_sm_auto_levels(int L, int k, double lambda, double eps, size_t max_levels)
{
    size_t n = max_levels; /* u_I never fell below eps within max_levels levels */
    double u = 1.0;        /* u_0 */
    const double c = lambda / (double)k;
    for (size_t i = 0; i < max_levels; i++) {
        if (i > 0)
            u = flush(c * f_eval(L, k, u, NULL));
        if (u < eps) {
            n = i + 1;
            break;
        }
    }
    if (n < 4)
        n = 4;
    if (n > max_levels)
        n = max_levels;
    return n;
}

/* ---------------------------------------------------------------------------------------------- */
/* The ODE                                                                                        */
/* ---------------------------------------------------------------------------------------------- */

/* Step rule: h = min(SM_ODE_STEP_MAX, SM_ODE_STEP_C / (lambda L + k)) = min(0.005, 0.012 / (lambda
 * L
 * + k)). lambda L + k bounds the rates of the system (sum_j |d rhs_i / d u_j| <= 2 (lambda L + k),
 * as 0 <= f' <= L), so h times every rate is at most 0.024, well inside RK4's stability interval
 * (2.78); the constant is set by accuracy, not stability. Between consecutive output times the
 * interval dt is split into ceil(dt / h) equal steps, so every output time is hit exactly (no
 * separate rule for the grid spacing is needed) and no step exceeds h. Measured accuracy: the
 * difference between the solutions with h and with h/2 (for a fourth-order method 15/16 of the
 * error of the h solution) is at most 4.7e-10 in max norm over levels and times t <= 40 (fine grid
 * on [0, 5]), for 15 pairs (L,k) from (1,1) to (64,64) including k = L-2, L-1, L, lambda in {0.5,
 * 0.9, 0.99}, from empty and from every queue at length 3 or 20. The largest differences come from
 * the first time unit and from k = L-1, where f has curvature L(L-1) at 0; they grow slowly with L
 * beyond 64 (6.4e-10 at (128,127), 1.4e-9 at (256,255), lambda = 0.9, t <= 2). Cost: about 4 (A +
 * 1) evaluations of f per step; e.g. (2,1) to t = 200 takes 0.05 s, (64,63) at lambda = 0.9 to t =
 * 50 takes 11 s. The state update uses compensated summation, so near equilibrium the increments
 * are not rounded away (the solution then settles within ~1e-16 of the fixed point instead of
 * ~1e-13).
 *
 * Truncation: levels 1..A are integrated with u_{A+1} = 0 (a system of capacity A, which keeps
 * 0 <= u <= 1). A starts 16 levels above the last nonzero entry of u0 (entries beyond `levels` are
 * 0) and, after every step in which u_A exceeds SM_ODE_DEPTH_TOL = 1e-25, grows by max(16, A/2)
 * levels (the new levels start at 0, which is what they are in the truncated system). The flux lost
 * at the boundary is lambda f(u_A) <= lambda L u_A per unit time, so over a horizon T the
 * truncation moves u by about T lambda L 1e-25 at most; measured against a tolerance of 1e-45 the
 * difference is below 1e-16 up to t = 200. A is capped at max(levels, 16) + 100000 (reached only
 * far beyond lambda < 1 over long horizons; the system then has that capacity). */
#define SM_ODE_STEP_C 0.012
#define SM_ODE_STEP_MAX 0.005
#define SM_ODE_DEPTH_TOL 1e-25
#define SM_ODE_DEPTH_EXTRA 100000

double storq_sm_ode_step(int L, int k, double lambda)
{
    const double rate = fabs(lambda) * (double)L + (double)k;
    const double h = SM_ODE_STEP_C / rate;
    return h < SM_ODE_STEP_MAX ? h : SM_ODE_STEP_MAX;
}

typedef struct ode {
    int L, k;
    double lambda;
    double *lc, *c; /* log C(L,j) and C(L,j), j = L-k+1..L (c only for L <= SM_F_DIRECT_MAX) */
    binom_table tab;
    size_t cap; /* arrays hold indices 0..cap-1 */
    size_t A;   /* integrated levels 1..A; u[A+1] = 0 */
    size_t Amax;
    double *u, *us, *acc, *d, *F;
    double *comp; /* Kahan compensation of u's updates */
} ode;

static void ode_free(ode *o)
{
    free(o->lc);
    free(o->c);
    free(o->u);
    free(o->us);
    free(o->acc);
    free(o->d);
    free(o->F);
    free(o->comp);
}

/* Make room for indices 0..need-1, zero-filling the new entries. */
static int ode_reserve(ode *o, size_t need)
{
    if (need <= o->cap)
        return 0;
    size_t cap = o->cap ? o->cap : 64;
    while (cap < need)
        cap *= 2;
    double **arrs[6] = {&o->u, &o->us, &o->acc, &o->d, &o->F, &o->comp};
    for (int a = 0; a < 6; a++) {
        double *p = realloc(*arrs[a], cap * sizeof(double));
        if (!p)
            return -1;
        memset(p + o->cap, 0, (cap - o->cap) * sizeof(double));
        *arrs[a] = p;
    }
    o->cap = cap;
    return 0;
}

/* d[i] = lambda [f(v_{i-1}) - f(v_i)] - k (v_i - v_{i+1}), i = 1..A, with v_0 = 1, v_{A+1} = 0. */
static void ode_rhs(ode *o, const double *v, double *d)
{
    const size_t A = o->A;
    double *F = o->F;
    F[0] = (double)o->k;
    for (size_t i = 1; i <= A; i++)
        F[i] = f_eval(o->L, o->k, v[i], o->lc ? &o->tab : NULL);
    for (size_t i = 1; i <= A; i++) {
        const double next = i < A ? v[i + 1] : 0.0;
        d[i] = o->lambda * (F[i - 1] - F[i]) - (double)o->k * (v[i] - next);
    }
}

/* One classical Runge-Kutta step of size h on levels 1..A. */
static void ode_step(ode *o, double h)
{
    const size_t A = o->A;
    double *u = o->u, *us = o->us, *acc = o->acc, *d = o->d;
    us[0] = 1.0;
    ode_rhs(o, u, d); /* k1 */
    for (size_t i = 1; i <= A; i++) {
        acc[i] = d[i];
        us[i] = u[i] + 0.5 * h * d[i];
    }
    ode_rhs(o, us, d); /* k2 */
    for (size_t i = 1; i <= A; i++) {
        acc[i] += 2.0 * d[i];
        us[i] = u[i] + 0.5 * h * d[i];
    }
    ode_rhs(o, us, d); /* k3 */
    for (size_t i = 1; i <= A; i++) {
        acc[i] += 2.0 * d[i];
        us[i] = u[i] + h * d[i];
    }
    ode_rhs(o, us, d); /* k4 */
    /* u += h/6 (k1 + 2 k2 + 2 k3 + k4) with compensated summation: near equilibrium the increments
     * fall below half an ulp of u and would otherwise be rounded away (stagnation ~1e-13 off). */
    double *comp = o->comp;
    for (size_t i = 1; i <= A; i++) {
        const double y = h / 6.0 * (acc[i] + d[i]) - comp[i];
        const double s = u[i] + y;
        comp[i] = (s - u[i]) - y;
        u[i] = s;
    }
}

/* Deepen the truncation while its last level is not negligible. */
static int ode_deepen(ode *o)
{
    while (o->A < o->Amax && o->u[o->A] > SM_ODE_DEPTH_TOL) {
        size_t grow = o->A / 2 > 16 ? o->A / 2 : 16;
        size_t A = o->A + grow;
        if (A > o->Amax)
            A = o->Amax;
        if (ode_reserve(o, A + 2))
            return -1;
        o->A = A; /* the new levels are already 0 */
    }
    return 0;
}

int storq_sm_ode_solve_h(int L, int k, double lambda, const double *u0, size_t levels,
                         const double *t, size_t nt, double *out, double h)
{
    if (levels == 0 || nt == 0)
        return 0;
    if (!(h > 0.0))
        return -1;
    ode o;
    memset(&o, 0, sizeof o);
    o.tab.lc = NULL;
    o.tab.c = NULL;
    o.L = L;
    o.k = k;
    o.lambda = lambda;
    if (k > 1 && k < L) {
        o.lc = malloc((size_t)k * sizeof(double));
        o.c = malloc((size_t)k * sizeof(double));
        if (!o.lc || !o.c) {
            ode_free(&o);
            return -1;
        }
        for (int j = L - k + 1; j <= L; j++) {
            o.lc[j - (L - k + 1)] = log_binom(L, j);
            o.c[j - (L - k + 1)] = L <= SM_F_DIRECT_MAX ? binom_double(L, j) : 0.0;
        }
        o.tab.lc = o.lc;
        o.tab.c = o.c;
    }
    size_t last = 0;
    for (size_t i = 1; i < levels; i++)
        if (u0[i] != 0.0)
            last = i;
    o.A = last + 16;
    o.Amax = (levels > 16 ? levels : 16) + SM_ODE_DEPTH_EXTRA;
    if (ode_reserve(&o, (o.A + 2 > levels ? o.A + 2 : levels))) {
        ode_free(&o);
        return -1;
    }
    o.u[0] = 1.0;
    for (size_t i = 1; i < levels; i++)
        o.u[i] = u0[i];
    if (ode_deepen(&o)) {
        ode_free(&o);
        return -1;
    }

    for (size_t j = 0; j < nt; j++) {
        if (j > 0) {
            const double dt = t[j] - t[j - 1];
            if (dt > 0.0) {
                const double n = ceil(dt / h);
                const double hs = dt / n;
                for (double s = 0; s < n; s++) {
                    ode_step(&o, hs);
                    if (ode_deepen(&o)) {
                        ode_free(&o);
                        return -1;
                    }
                }
            }
        }
        memcpy(out + j * levels, o.u, levels * sizeof(double));
    }
    ode_free(&o);
    return 0;
}

int storq_sm_ode_solve(int L, int k, double lambda, const double *u0, size_t levels,
                       const double *t, size_t nt, double *out)
{
    return storq_sm_ode_solve_h(L, k, lambda, u0, levels, t, nt, out,
                                storq_sm_ode_step(L, k, lambda));
}
