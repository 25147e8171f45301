/* The mean-field job delay of batch sampling (kernels/supermarket/jobdelay.c) against independent
 * computations: (a) k = 1, the supermarket model's closed form sum_{i>=1} lambda^((L^i - L)/(L-1))
 * / mu; (b) L = k (no choice: independent M/M/1 queues), H_k / (mu (1 - lambda)); (c) L > k > 1, a
 * fixed-seed Monte Carlo (2 x 10^5 jobs) of the same limit model (L i.i.d. lengths drawn from the fixed point, the
 * k shortest, Erlang sojourns, the largest), within 4 standard errors; (d) the cdf is monotone and
 * reaches 1. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "supermarket/jobdelay.h"
#include "supermarket/meanfield.h"

#define LEV 400

static uint64_t s_ = 0x9E3779B97F4A7C15ull;
static double unif(void) /* xorshift64*, (0,1) */
{
    s_ ^= s_ >> 12;
    s_ ^= s_ << 25;
    s_ ^= s_ >> 27;
    return ((double)((s_ * 2685821657736338717ull) >> 11) + 0.5) / 9007199254740992.0;
}

static int cmp(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

static void test_closed_forms(void)
{
    double u[LEV];
    const double lams[] = {0.5, 0.9};
    for (int li = 0; li < 2; li++) {
        double lam = lams[li], mu = 1.0;
        for (int L = 2; L <= 3; L++) { /* (a) k = 1 */
            storq_sm_fixed_point(L, 1, lam, LEV, u);
            double exact = 0.0;
            for (int i = 1; i < 40; i++)
                exact += pow(lam, (pow(L, i) - L) / (L - 1)) / mu;
            double got = storq_sm_job_delay_mean(L, 1, mu, u, LEV);
            printf("measured: k=1 L=%d lambda=%g job delay %.12g closed form %.12g\n", L, lam, got,
                   exact);
            CHECK_NEAR(got, exact, 1e-9 * exact);
        }
        for (int k = 1; k <= 4; k++) { /* (b) L = k, service rate k */
            double muk = k;
            storq_sm_fixed_point(k, k, lam, LEV, u);
            double H = 0.0;
            for (int j = 1; j <= k; j++)
                H += 1.0 / j;
            double exact = H / (muk * (1 - lam)), got = storq_sm_job_delay_mean(k, k, muk, u, LEV);
            printf("measured: L=k=%d lambda=%g job delay %.12g closed form %.12g\n", k, lam, got,
                   exact);
            CHECK_NEAR(got, exact, 1e-9 * exact);
        }
    }
}

static void test_monte_carlo(void)
{
    const int Ls[] = {4, 6, 8}, ks[] = {2, 3, 2};
    const double lam = 0.9;
    for (int c = 0; c < 3; c++) {
        int L = Ls[c], k = ks[c];
        double u[LEV], mu = k;
        storq_sm_fixed_point(L, k, lam, LEV, u);
        double s = 0.0, s2 = 0.0;
        const int N = 200000;
        for (int it = 0; it < N; it++) {
            int q[64];
            for (int i = 0; i < L; i++) { /* P(Q >= j) = u_j */
                double x = unif();
                int j = 0;
                while (j + 1 < LEV && x < u[j + 1])
                    j++;
                q[i] = j;
            }
            qsort(q, (size_t)L, sizeof q[0], cmp);
            double d = 0.0;
            for (int i = 0; i < k; i++) {
                double e = 0.0;
                for (int r = 0; r <= q[i]; r++)
                    e -= log(unif()) / mu;
                d = e > d ? e : d;
            }
            s += d;
            s2 += d * d;
        }
        double m = s / N, se = sqrt((s2 / N - m * m) / N);
        double got = storq_sm_job_delay_mean(L, k, mu, u, LEV);
        printf("measured: L=%d k=%d job delay %.6g Monte Carlo %.6g +- %.2g (z = %.2f)\n", L, k, got, m,
               se, (got - m) / se);
        CHECK(fabs(got - m) <= 4 * se);
        /* (d) */
        double prev = 0.0;
        for (double t = 0.0; t < 60; t += 0.5) {
            double F = storq_sm_job_delay_cdf(L, k, mu, u, LEV, t);
            CHECK(F >= prev - 1e-14 && F <= 1 + 1e-14);
            prev = F;
        }
        CHECK(prev > 1 - 1e-12);
    }
}

int main(void)
{
    test_closed_forms();
    test_monte_carlo();
    return check_report("test_supermarket_jobdelay");
}
