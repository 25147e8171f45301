/* Mean-field theory of the supermarket (batch sampling) model: kernels/supermarket_meanfield.[ch].
 * Every tolerance is justified where it is used; the measured values are printed so that the
 * numbers in docs/models/supermarket-theory.md can be re-checked. eps below is DBL_EPSILON
 * = 2.2e-16. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "supermarket/meanfield.h"


#define EPS DBL_EPSILON

static double rel_diff(double a, double b)
{
    const double m = fabs(a) > fabs(b) ? fabs(a) : fabs(b);
    return m == 0.0 ? 0.0 : fabs(a - b) / m;
}

/* ------------------------------------------------------------------------------------------------
 */
/* f */
/* ------------------------------------------------------------------------------------------------
 */

/* Brute force from the routing rule itself, in long double. Each of the L sampled queues is at or
 * above the level (length 1 here) with probability x, independently, else below it (length 0). For
 * each of the 2^L outcomes the job goes to the k shortest: take lengths in increasing order (all
 * the 0s, then the 1s; ties between equal lengths do not change the count) and count the 1s among
 * the first k. f(x) is the expectation of that count. */
static long double f_brute(int L, int k, double x)
{
    long double sum = 0.0L;
    for (unsigned s = 0; s < (1u << L); s++) {
        int above = 0;
        for (int q = 0; q < L; q++)
            above += (s >> q) & 1u;
        const int below = L - above;
        int chosen_above = 0;
        for (int slot = 0; slot < k; slot++) /* slot-th shortest queue */
            chosen_above += slot >= below;
        const long double p = powl((long double)x, above) * powl(1.0L - (long double)x, below);
        sum += chosen_above * p;
    }
    return sum;
}

static void test_f(void)
{
    /* f(0) = 0 and f(1) = k exactly (both are special-cased, so no rounding is allowed). */
    const int bigL[] = {100, 333, 1000};
    for (int L = 1; L <= 64; L++)
        for (int k = 1; k <= L; k++) {
            CHECK(storq_sm_f(L, k, 0.0) == 0.0);
            CHECK(storq_sm_f(L, k, 1.0) == (double)k);
        }
    for (int a = 0; a < 3; a++)
        for (int k = 1; k <= bigL[a]; k += 7) {
            CHECK(storq_sm_f(bigL[a], k, 0.0) == 0.0);
            CHECK(storq_sm_f(bigL[a], k, 1.0) == (double)k);
        }

    /* k = 1: f(x) = x^L, returned as pow(x, L) itself: exact equality. */
    for (int L = 1; L <= 1000; L += (L < 20 ? 1 : 61))
        for (int m = 0; m <= 100; m++) {
            const double x = m / 100.0;
            CHECK(storq_sm_f(L, 1, x) == pow(x, L));
        }

    /* Brute force over all 2^L outcomes for L <= 10, all k, x on a grid including tiny and
     * near-1 values. The brute force in long double has relative error < 2^L * 2^-63 ~ 1e-16; the
     * kernel's measured error against an 80-bit reference is < 1e-15 for L <= 10. Tolerance 1e-14
     * relative leaves a factor 10. */
    double worst = 0.0;
    for (int L = 1; L <= 10; L++)
        for (int k = 1; k <= L; k++)
            for (int m = 0; m <= 60; m++) {
                double x;
                if (m <= 40)
                    x = m / 40.0;
                else if (m <= 50)
                    x = pow(10.0, -(m - 40) * 3.0);       /* 1e-3 .. 1e-30 */
                else
                    x = 1.0 - pow(10.0, -(m - 50) * 1.5); /* 1 - 3e-2 .. 1 - 1e-15 */
                const double f = storq_sm_f(L, k, x);
                const double r = rel_diff(f, (double)f_brute(L, k, x));
                if (r > worst)
                    worst = r;
                CHECK(r <= 1e-14);
            }
    printf("f vs brute force (L <= 10): max relative difference %.3g\n", worst);

    /* Closed forms valid for any L, exercising large L (up to 1000): k = L gives f = E[J] = L x;
     * k = 2 gives f = L x^(L-1) (1-x) + 2 x^L; k = L-1 gives f = E[(J-1)^+] = L x - 1 + (1-x)^L.
     * The closed forms are evaluated with pow at a few ulp (1-x exact for x >= 1/2); the k = L-1
     * form cancels, so it is used only where L x >= 2 (it then loses at most a factor 2). The
     * kernel's measured error against an 80-bit reference is < 1e-14 for L <= 1000. Tolerance
     * 1e-13. */
    worst = 0.0;
    const int Ls[] = {20, 64, 100, 500, 1000};
    for (int a = 0; a < 5; a++) {
        const int L = Ls[a];
        for (int m = 1; m < 200; m++) {
            const double x = m / 200.0;
            CHECK(storq_sm_f(L, L, x) == (double)L * x);
            if (x >= 0.5) {
                const double c2 = L * pow(x, L - 1) * (1.0 - x) + 2.0 * pow(x, L);
                if (c2 > 1e-300) {
                    const double r = rel_diff(storq_sm_f(L, 2, x), c2);
                    worst = r > worst ? r : worst;
                    CHECK(r <= 1e-13);
                }
            }
            if (L * x >= 2.0) {
                const double c1 = L * x - 1.0 + pow(1.0 - x, L);
                const double r = rel_diff(storq_sm_f(L, L - 1, x), c1);
                worst = r > worst ? r : worst;
                CHECK(r <= 1e-13);
            }
        }
    }
    printf("f vs closed forms (k = 2, L-1, L; L <= 1000): max relative difference %.3g\n", worst);

    /* Bounds k x^(L-k+1) <= f(x) <= k x^(L/k) (Theorem 2.2's ingredients). They are equalities for
     * k = 1 (both x^L), for k = L (both L x) and at x = 0, 1, so a slack is needed: pow is within
     * 1 ulp and f within 2e-15 (measured) for L <= 64, so 1e-14 relative is ample. f is also
     * checked to be nondecreasing in x (it is a sum of increasing binomial tails). */
    for (int L = 1; L <= 64; L++)
        for (int k = 1; k <= L; k++) {
            double prev = 0.0;
            for (int m = 0; m <= 200; m++) {
                const double x = m / 200.0;
                const double f = storq_sm_f(L, k, x);
                const double lo = k * pow(x, L - k + 1), hi = k * pow(x, (double)L / k);
                CHECK(f >= lo * (1.0 - 1e-14));
                CHECK(f <= hi * (1.0 + 1e-14));
                CHECK(f >= prev);
                prev = f;
            }
        }
}

/* ------------------------------------------------------------------------------------------------
 */
/* Fixed point and tail bounds */
/* ------------------------------------------------------------------------------------------------
 */

/* The rounding of the fixed point's recursion u_i = (lambda/k) f(u_{i-1}): a relative error d in
 * u_{i-1} becomes (x f'(x)/f(x)) d <= (L-k+1) d in u_i (the elasticity of f, at most the lowest
 * power L-k+1 in f; L for k = 1), plus a few eps of its own. So the relative error of u_i is at
 * most a few eps times e_i = 1 + a + ... + a^(i-1), a = L-k+1: the exponent of the lower bound. */
static double exponent_lower(int L, int k, size_t i)
{
    double e = 0.0;
    for (size_t m = 0; m < i; m++)
        e = 1.0 + (L - k + 1) * e;
    return e;
}

static void test_fixed_point(void)
{
    const double lams[] = {0.1, 0.5, 0.9, 0.99};
    enum { N = 40 };
    double u[N], lo[N], hi[N];

    /* u_0 = 1 and u_1 = (lambda/k) f(1) = (lambda/k) k: lambda within two roundings (2 ulp). */
    for (int L = 1; L <= 12; L++)
        for (int k = 1; k <= L; k++)
            for (int a = 0; a < 4; a++) {
                storq_sm_fixed_point(L, k, lams[a], N, u);
                CHECK(u[0] == 1.0);
                CHECK_NEAR(u[1], lams[a], 2.0 * EPS * lams[a]);
                for (size_t i = 1; i < N; i++)
                    CHECK(u[i] <= u[i - 1]);
                for (size_t i = 0; i < N; i++) /* no denormals: 0 or normal */
                    CHECK(u[i] == 0.0 || u[i] >= DBL_MIN);
            }

    /* k = 1: u_i = lambda^((L^i - 1)/(L - 1)); L = k = 1: u_i = lambda^i. Relative tolerance
     * 4 eps e_i (see exponent_lower; here e_i is exactly the closed form's exponent), only where
     * the value is a normal number (smaller ones are flushed to 0 by the kernel; both must then be
     * tiny). */
    double worst = 0.0;
    for (int L = 1; L <= 6; L++)
        for (int a = 0; a < 4; a++) {
            storq_sm_fixed_point(L, 1, lams[a], N, u);
            for (size_t i = 0; i < N; i++) {
                const double e = L == 1 ? (double)i : (pow(L, (double)i) - 1.0) / (L - 1);
                const double c = pow(lams[a], e);
                if (c >= DBL_MIN && u[i] > 0.0) {
                    const double r = rel_diff(u[i], c);
                    worst = r > worst ? r : worst;
                    CHECK(r <= 4.0 * EPS * (e + 1.0));
                } else {
                    CHECK(u[i] < 2.0 * DBL_MIN && c < 2.0 * DBL_MIN);
                }
            }
        }
    printf("fixed point vs closed form (k = 1): max relative difference %.3g\n", worst);
    storq_sm_fixed_point(1, 1, 0.9, N, u);
    for (size_t i = 0; i < N; i++)
        CHECK(rel_diff(u[i], pow(0.9, (double)i)) <= 4.0 * EPS * (i + 1.0));

    /* Tail bounds lower <= u <= upper. Both are exact mathematically; the slack is the rounding of
     * u (4 eps e_i, as above) plus a few ulp for pow and the exponent, and 2 DBL_MIN absolute for
     * the flush of values below DBL_MIN to 0. */
    const int cases[][2] = {{2, 1}, {3, 1}, {4, 2}, {5, 3}, {10, 5}, {6, 6}};
    for (int c = 0; c < 6; c++)
        for (int a = 0; a < 4; a++) {
            const int L = cases[c][0], k = cases[c][1];
            storq_sm_fixed_point(L, k, lams[a], N, u);
            storq_sm_tail_bounds(L, k, lams[a], N, lo, hi);
            CHECK(lo[0] == 1.0 && hi[0] == 1.0);
            for (size_t i = 0; i < N; i++) {
                const double tol = 8.0 * EPS * (exponent_lower(L, k, i) + 1.0);
                CHECK(lo[i] <= hi[i]);
                CHECK(u[i] >= lo[i] * (1.0 - tol) - 2.0 * DBL_MIN);
                CHECK(u[i] <= hi[i] * (1.0 + tol) + 2.0 * DBL_MIN);
                CHECK(!isnan(lo[i]) && !isnan(hi[i]));
                CHECK(lo[i] == 0.0 || lo[i] >= DBL_MIN);
                CHECK(hi[i] == 0.0 || hi[i] >= DBL_MIN);
            }
        }

    /* The bounds coincide when k = 1 (a = L-k+1 = L = r) and when k = L (a = r = 1, the limit:
     * lambda^i). Same arithmetic on both sides, so exact equality. */
    for (int L = 1; L <= 8; L++)
        for (int a = 0; a < 4; a++) {
            storq_sm_tail_bounds(L, 1, lams[a], N, lo, hi);
            for (size_t i = 0; i < N; i++)
                CHECK(lo[i] == hi[i]);
            storq_sm_tail_bounds(L, L, lams[a], N, lo, hi);
            for (size_t i = 0; i < N; i++) {
                CHECK(lo[i] == hi[i]);
                const double p = pow(lams[a], (double)i);
                CHECK(lo[i] == (p < DBL_MIN ? 0.0 : p));
            }
        }

    /* Huge exponents: L = 64, k = 1 has exponent ~64^i, overflowing to +inf for i >= 171; the bound
     * must be 0 (not NaN) from the first level where lambda^e < DBL_MIN on. */
    {
        enum { M = 200 };
        double l2[M], h2[M];
        storq_sm_tail_bounds(64, 1, 0.9, M, l2, h2);
        for (size_t i = 0; i < M; i++) {
            CHECK(!isnan(l2[i]) && !isnan(h2[i]));
            if (i >= 4) /* exponent 1 + 64 + 64^2 + 64^3 = 266305: 0.9^266305 = 1e-12185 */
                CHECK(l2[i] == 0.0 && h2[i] == 0.0);
        }
        CHECK(l2[3] == pow(0.9, 4161.0) && l2[3] > 0.0); /* 1e-190: still a normal number */
    }

    /* The fixed point is a stationary point of the ODE: the right-hand side
     * lambda [f(u_{i-1}) - f(u_i)] - k (u_i - u_{i+1}) vanishes, up to the rounding of
     * k u_i = k (lambda/k) f(u_{i-1}) against lambda f(u_{i-1}) (a few eps times k <= 10 here). */
    worst = 0.0;
    for (int c = 0; c < 6; c++)
        for (int a = 0; a < 4; a++) {
            const int L = cases[c][0], k = cases[c][1];
            storq_sm_fixed_point(L, k, lams[a], N, u);
            for (size_t i = 1; i + 1 < N; i++) {
                const double rhs = lams[a] * (storq_sm_f(L, k, u[i - 1]) - storq_sm_f(L, k, u[i])) -
                                   k * (u[i] - u[i + 1]);
                worst = fabs(rhs) > worst ? fabs(rhs) : worst;
                CHECK(fabs(rhs) < 1e-14);
            }
        }
    printf("ODE right-hand side at the fixed point: max |residual| %.3g\n", worst);
}

/* ------------------------------------------------------------------------------------------------
 */
/* Number of levels */
/* ------------------------------------------------------------------------------------------------
 */

static void test_auto_levels(void)
{
    /* lambda = 0.9, L = 2, k = 1: u_I = 0.9^(2^I - 1); the first I with u_I < 1e-10 is I = 8
     * (0.9^255 = 2.1e-12, while 0.9^127 = 1.5e-6), so 9 levels 0..8. Found from the closed form. */
    size_t I = 0;
    while (pow(0.9, pow(2.0, (double)I) - 1.0) >= 1e-10)
        I++;
    CHECK_EQ_U64(I, 8);
    CHECK_EQ_U64(storq_sm_auto_levels(2, 1, 0.9, 1e-10, 1000), I + 1);
    /* At least 4: u = 1, 0.1, 1e-3, ... is below 0.5 from I = 1 on. */
    CHECK_EQ_U64(storq_sm_auto_levels(2, 1, 0.1, 0.5, 1000), 4);
    /* At most max_levels: L = k = 1 needs 0.9^I < 1e-10, I = 219, but only 50 are allowed. */
    CHECK_EQ_U64(storq_sm_auto_levels(1, 1, 0.9, 1e-10, 50), 50);
    CHECK_EQ_U64(storq_sm_auto_levels(1, 1, 0.9, 1e-10, 1000), 219 + 1);
    /* Agrees with storq_sm_fixed_point for a general case. */
    double u[64];
    storq_sm_fixed_point(10, 5, 0.95, 64, u);
    const size_t n = storq_sm_auto_levels(10, 5, 0.95, 1e-12, 64);
    CHECK(n >= 4 && u[n - 1] < 1e-12 && u[n - 2] >= 1e-12);
}

/* ------------------------------------------------------------------------------------------------
 */
/* The ODE */
/* ------------------------------------------------------------------------------------------------
 */

/* Start vectors: every queue at length j (u_i = 1 for i <= j), j = 0 being empty. */
static void start_at(double *u0, size_t levels, size_t j)
{
    for (size_t i = 0; i < levels; i++)
        u0[i] = i <= j ? 1.0 : 0.0;
}

static double *grid(double T, size_t nt)
{
    double *t = malloc(nt * sizeof *t);
    for (size_t j = 0; j < nt; j++)
        t[j] = T * (double)j / (double)(nt - 1);
    return t;
}

/* 0 <= u <= 1 exactly, and u nonincreasing in i up to 2 ulp of 1 (4.4e-16): RK4 with
 * h (lambda L + k) <= 0.012 keeps them on this system, so no clipping is done or needed. (Measured:
 * 0 <= u <= 1 never violated; u_i > u_{i-1} only by 1 ulp, at levels that are both within 1 ulp of
 * 1, from the compensated summation of the updates.) */
static void check_occupancy(const double *out, size_t levels, size_t nt)
{
    int bad = 0;
    size_t where = 0;
    for (size_t j = 0; j < nt; j++) {
        const double *u = out + j * levels;
        bad += u[0] != 1.0;
        for (size_t i = 0; i < levels; i++)
            bad += !(u[i] >= 0.0 && u[i] <= 1.0);
        for (size_t i = 1; i < levels; i++)
            if (u[i] > u[i - 1] + 2.0 * EPS && !bad++)
                where = j * levels + i;
    }
    if (bad)
        fprintf(stderr, "occupancy: first violation at t index %zu level %zu: %.17g > %.17g\n",
                where / levels, where % levels, out[where], out[where - 1]);
    CHECK(bad == 0);
}

static void test_ode_fixed_point(void)
{
    /* Started at the fixed point (truncated where it is below 1e-30; the solver takes the levels
     * beyond as 0) the solution stays there: the right-hand side there is ~1e-16 and the system is
     * contracting, so the deviation stays at rounding level. Tolerance 1e-12. */
    const int cases[][2] = {{1, 1}, {2, 1}, {4, 2}, {10, 5}, {6, 6}};
    const size_t nt = 101;
    double *t = grid(50.0, nt);
    double worst = 0.0;
    for (int c = 0; c < 5; c++) {
        const int L = cases[c][0], k = cases[c][1];
        const double lambda = 0.9;
        const size_t levels = storq_sm_auto_levels(L, k, lambda, 1e-30, 2000);
        double *u = malloc(levels * sizeof *u), *out = malloc(levels * nt * sizeof *out);
        storq_sm_fixed_point(L, k, lambda, levels, u);
        CHECK(storq_sm_ode_solve(L, k, lambda, u, levels, t, nt, out) == 0);
        for (size_t j = 0; j < nt; j++)
            for (size_t i = 0; i < levels; i++) {
                const double d = fabs(out[j * levels + i] - u[i]);
                worst = d > worst ? d : worst;
                CHECK(d < 1e-12);
            }
        check_occupancy(out, levels, nt);
        free(u);
        free(out);
    }
    printf("ODE started at the fixed point, t <= 50: max deviation %.3g\n", worst);
    free(t);
}

static void test_ode_convergence(void)
{
    /* From empty and from every queue at length 3, lambda = 0.9, the solution reaches the fixed
     * point to within 1e-8 (Theorem 2.3: the fixed point is globally stable). The relaxation is
     * exponential, with measured rates 0.075 per unit time for (L,k) = (2,1) (max deviation 8e-8 at
     * t = 200, 4e-11 at t = 300: hence t = 300 for it) and 0.26 for (4,2) (2e-8 at t = 100, 1.5e-15
     * at t = 200). Also L = k = 1 at lambda = 0.5 (each queue an M/M/1 queue, relaxation time
     * 1/(1 - sqrt(lambda))^2 = 11.7), at t = 400. */
    const struct {
        int L, k;
        double lambda, T;
    } cases[] = {{2, 1, 0.9, 300.0}, {4, 2, 0.9, 200.0}, {1, 1, 0.5, 400.0}};
    for (int c = 0; c < 3; c++) {
        const int L = cases[c].L, k = cases[c].k;
        const double lambda = cases[c].lambda;
        const size_t levels = 120, nt = 41;
        double *t = grid(cases[c].T, nt);
        double u0[120], fp[120];
        double *out = malloc(levels * nt * sizeof *out);
        storq_sm_fixed_point(L, k, lambda, levels, fp);
        for (size_t s = 0; s <= 3; s += 3) {
            start_at(u0, levels, s);
            CHECK(storq_sm_ode_solve(L, k, lambda, u0, levels, t, nt, out) == 0);
            check_occupancy(out, levels, nt);
            double d = 0.0;
            for (size_t i = 0; i < levels; i++) {
                const double e = fabs(out[(nt - 1) * levels + i] - fp[i]);
                d = e > d ? e : d;
            }
            printf("ODE (L=%d, k=%d, lambda=%.1f) from length %zu: max |u(%g) - u*| = %.3g\n", L, k,
                   lambda, s, cases[c].T, d);
            CHECK(d < 1e-8);
        }
        free(out);
        free(t);
    }
}

/* Composite Simpson on n (even) equal intervals of y[0], y[stride], ..., y[n stride]. */
static double simpson(const double *y, size_t stride, size_t n, double dt)
{
    double s = y[0] + y[n * stride];
    for (size_t j = 1; j < n; j++)
        s += (j % 2 ? 4.0 : 2.0) * y[j * stride];
    return s * dt / 3.0;
}

/* Simpson on spacing dt and 2 dt combined by Richardson (error O(dt^6)); n a multiple of 4. */
static double romberg(const double *y, size_t n, double dt)
{
    const double s1 = simpson(y, 1, n, dt), s2 = simpson(y, 2, n / 2, 2.0 * dt);
    return s1 + (s1 - s2) / 15.0;
}

static void test_ode_mass(void)
{
    /* Summing the ODE over i >= 1 telescopes: d/dt sum_i u_i = lambda f(u_0) - k u_1 =
     * lambda k - k u_1 (mean queue length: arrival rate of tasks lambda k minus departures k u_1).
     * Check sum_i u_i(T) - sum_i u_i(0) = int_0^T (lambda k - k u_1) dt, the integral by Simpson on
     * the output grid (dt = 0.005) with one Richardson step. The levels cover all the mass (the
     * tail is < 1e-20). Measured: plain Simpson leaves a defect of 2e-9 for (10,5) that falls
     * 13-fold when dt is halved (quadrature error); with Richardson and with the step halved the
     * defect is unchanged at ~1e-11, which is the ODE's own error. Tolerance 1e-10. */
    const int cases[][2] = {{1, 1}, {2, 1}, {4, 2}, {10, 5}};
    const double T = 10.0, lambda = 0.9;
    const size_t nt = 2001;
    double *t = grid(T, nt);
    double worst = 0.0;
    for (int c = 0; c < 4; c++) {
        const int L = cases[c][0], k = cases[c][1];
        const size_t levels = 400;
        double *u0 = malloc(levels * sizeof *u0), *out = malloc(levels * nt * sizeof *out);
        double *g = malloc(nt * sizeof *g);
        for (size_t s = 0; s <= 3; s += 3) {
            start_at(u0, levels, s);
            CHECK(storq_sm_ode_solve(L, k, lambda, u0, levels, t, nt, out) == 0);
            CHECK(out[(nt - 1) * levels + levels - 1] < 1e-20);
            double m0 = 0.0, m1 = 0.0;
            for (size_t i = levels - 1; i >= 1; i--) {
                m0 += out[i];
                m1 += out[(nt - 1) * levels + i];
            }
            for (size_t j = 0; j < nt; j++)
                g[j] = lambda * k - k * out[j * levels + 1];
            const double d = fabs((m1 - m0) - romberg(g, nt - 1, T / (double)(nt - 1)));
            worst = d > worst ? d : worst;
            CHECK(d < 1e-10);
        }
        free(u0);
        free(out);
        free(g);
    }
    printf("ODE mass balance d/dt sum u_i = lambda k - k u_1 over t <= 10: max defect %.3g\n",
           worst);
    free(t);
}

static void test_ode_step_halving(void)
{
    /* The step rule's accuracy: solutions with h = storq_sm_ode_step and with h/2 agree to 1e-9
     * (for a fourth-order method their difference is 15/16 of the error of the h solution), over a
     * fine grid on [0, 5], where the transient is fastest and the difference largest, and a coarse
     * one on to t = 15 (measured on to t = 200: the difference only decays after the transient). */
    const struct {
        int L, k;
    } cases[] = {{1, 1}, {2, 1}, {4, 2}, {10, 5}, {10, 9}, {64, 1}, {64, 32}, {64, 64}};
    const double lams[] = {0.5, 0.9, 0.99};
    const size_t levels = 100;
    enum { NT = 501 + 10 };
    double t[NT];
    for (size_t j = 0; j <= 500; j++)
        t[j] = j * 0.01;
    for (size_t j = 1; j <= 10; j++)
        t[500 + j] = 5.0 + j;
    double *a = malloc(levels * NT * sizeof *a), *b = malloc(levels * NT * sizeof *b);
    double u0[100];
    double worst = 0.0;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
        for (int l = 0; l < 3; l++)
            for (size_t s = 0; s <= 20; s += (s == 0 ? 3 : 17)) { /* empty, length 3, length 20 */
                const int L = cases[c].L, k = cases[c].k;
                if (s == 20 && L > 10)
                    continue; /* costly (deep transient) and measured to behave as length 3 */
                const double h = storq_sm_ode_step(L, k, lams[l]);
                start_at(u0, levels, s);
                CHECK(storq_sm_ode_solve_h(L, k, lams[l], u0, levels, t, NT, a, h) == 0);
                CHECK(storq_sm_ode_solve_h(L, k, lams[l], u0, levels, t, NT, b, h / 2) == 0);
                check_occupancy(a, levels, NT);
                double d = 0.0;
                for (size_t i = 0; i < levels * NT; i++)
                    d = fabs(a[i] - b[i]) > d ? fabs(a[i] - b[i]) : d;
                worst = d > worst ? d : worst;
                if (!(d < 1e-9))
                    fprintf(stderr, "step halving L=%d k=%d lambda=%g start %zu: %.3g\n", L, k,
                            lams[l], s, d);
                CHECK(d < 1e-9);
            }
    printf("ODE step halving (L <= 64, lambda <= 0.99, t <= 15): max difference %.3g\n", worst);
    free(a);
    free(b);
}

static void test_ode_grid(void)
{
    /* Output times that are not multiples of the step: each interval is split into equal steps, so
     * the solution at t_j must not depend on which other times are on the grid beyond the ODE's own
     * accuracy (1e-9); the first row is u0 exactly; a repeated time repeats the row exactly; the
     * public solver is the rule-step solver. */
    const int L = 4, k = 2;
    const double lambda = 0.9;
    const size_t levels = 40;
    const double t[] = {0.0, 0.0123, 0.5, 0.5, 1.7777, 3.14159, 10.0};
    const size_t nt = sizeof t / sizeof t[0];
    double u0[40], out[7 * 40], out2[7 * 40], single[2 * 40];
    start_at(u0, levels, 2);
    u0[3] = 0.5;
    CHECK(storq_sm_ode_solve(L, k, lambda, u0, levels, t, nt, out) == 0);
    CHECK(storq_sm_ode_solve_h(L, k, lambda, u0, levels, t, nt, out2,
                               storq_sm_ode_step(L, k, lambda)) == 0);
    CHECK(memcmp(out, out2, sizeof out) == 0);
    CHECK(memcmp(out, u0, levels * sizeof(double)) == 0);
    CHECK(memcmp(out + 2 * levels, out + 3 * levels, levels * sizeof(double)) == 0);
    double worst = 0.0;
    for (size_t j = 1; j < nt; j++) {
        const double tj[2] = {0.0, t[j]};
        CHECK(storq_sm_ode_solve(L, k, lambda, u0, levels, tj, 2, single) == 0);
        for (size_t i = 0; i < levels; i++) {
            const double d = fabs(single[levels + i] - out[j * levels + i]);
            worst = d > worst ? d : worst;
            CHECK(d < 1e-9);
        }
    }
    printf("ODE irregular output grid vs single interval: max difference %.3g\n", worst);
    /* Degenerate sizes do nothing and succeed. */
    CHECK(storq_sm_ode_solve(L, k, lambda, u0, levels, t, 0, out) == 0);
    CHECK(storq_sm_ode_solve(L, k, lambda, u0, 0, t, nt, out) == 0);
    CHECK(storq_sm_ode_solve_h(L, k, lambda, u0, levels, t, nt, out, 0.0) == -1);
}

/* Run one group of checks and print its CPU time. */
#define RUN(fn)                                                                                    \
    do {                                                                                           \
        clock_t c0_ = clock();                                                                     \
        fn();                                                                                      \
        printf("  [%s: %.1f s]\n", #fn, (double)(clock() - c0_) / CLOCKS_PER_SEC);              \
    } while (0)
int main(void)
{
    RUN(test_f);
    RUN(test_fixed_point);
    RUN(test_auto_levels);
    RUN(test_ode_fixed_point);
    RUN(test_ode_convergence);
    RUN(test_ode_mass);
    RUN(test_ode_step_halving);
    RUN(test_ode_grid);
    return check_report("test_supermarket_meanfield");
}
