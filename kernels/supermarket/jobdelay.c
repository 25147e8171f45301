/* Mean-field job delay of batch sampling (jobdelay.h). In the limit n -> infinity the L sampled
 * queues have i.i.d. lengths with P(Q = j) = u_j - u_{j+1}, and the k queues chosen evolve
 * independently afterwards, so a task joining a queue of length j has an Erlang(j + 1, mu) sojourn
 * and the job's delay is the largest of its k tasks' sojourns:
 *   P(D <= t) = E[ prod over the k shortest sampled queues of F_{Q+1}(t) ].
 * The expectation over the k smallest of L i.i.d. lengths is a sum over the multinomial counts of
 * the L samples per length; it factorises level by level, so a DP over the levels whose state is
 * the number of samples already placed below costs O(levels L^2) per t. */
#include <math.h>
#include <stdlib.h>

#include "jobdelay.h"

#define LMAX 64

/* F_n(t) = P(Erlang(n, mu) <= t) for n = 1..levels, into F[n - 1]: 1 - the Poisson(mu t)
 * probabilities of fewer than n events, summed in the log domain (mu t can be in the hundreds). */
static void erlang_cdfs(double mu, double t, size_t levels, double *F)
{
    double x = mu * t, below = 0.0;
    for (size_t n = 1; n <= levels; n++) {
        double i = (double)(n - 1);
        below += x > 0 ? exp(-x + i * log(x) - lgamma(i + 1.0)) : (n == 1 ? 1.0 : 0.0);
        F[n - 1] = below >= 1.0 ? 0.0 : 1.0 - below;
    }
}

double storq_sm_job_delay_cdf(int L, int k, double mu, const double *u, size_t levels, double t)
{
    if (L < 1 || L > LMAX || k < 1 || k > L || levels < 1 || !(t >= 0))
        return NAN;
    double *F = malloc(levels * sizeof *F);
    if (!F)
        return NAN;
    erlang_cdfs(mu, t, levels, F);
    double dp[LMAX + 1] = {0}, nx[LMAX + 1], binom[LMAX + 1][LMAX + 1];
    for (int a = 0; a <= L; a++) {
        binom[a][0] = 1.0;
        for (int b = 1; b <= a; b++)
            binom[a][b] = binom[a][b - 1] * (double)(a - b + 1) / (double)b;
    }
    dp[0] = 1.0;
    for (size_t j = 0; j < levels && dp[L] < 1.0; j++) {
        double p = u[j] - (j + 1 < levels ? u[j + 1] : 0.0); /* P(Q = j) */
        if (!(p > 0))
            continue;
        for (int c = 0; c <= L; c++)
            nx[c] = 0.0;
        for (int c = 0; c <= L; c++) {
            if (dp[c] == 0.0)
                continue;
            int take = k - c > 0 ? k - c : 0; /* chosen among the samples at this length */
            double pn = 1.0;
            for (int n = 0; c + n <= L; n++) {
                int chosen = n < take ? n : take;
                nx[c + n] += dp[c] * binom[L - c][n] * pn * pow(F[j], chosen);
                pn *= p;
            }
        }
        for (int c = 0; c <= L; c++)
            dp[c] = nx[c];
    }
    free(F);
    return dp[L];
}

double storq_sm_job_delay_mean(int L, int k, double mu, const double *u, size_t levels)
{
    static const double x8[4] = {0.1834346424956498, 0.5255324099163290, 0.7966664774136267,
                                 0.9602898564975363};
    static const double w8[4] = {0.3626837833783620, 0.3137066458778873, 0.2223810344533745,
                                 0.1012285362903763};
    double h = 0.25 / mu, mean = 0.0;
    for (int panel = 0; panel < 1000000; panel++) {
        double a = panel * h, mid = a + h / 2, s = 0.0;
        for (int i = 0; i < 4; i++)
            for (int sgn = -1; sgn <= 1; sgn += 2) {
                double cdf = storq_sm_job_delay_cdf(L, k, mu, u, levels, mid + sgn * x8[i] * h / 2);
                if (isnan(cdf))
                    return NAN;
                s += w8[i] * (1.0 - cdf);
            }
        mean += s * h / 2;
        if (1.0 - storq_sm_job_delay_cdf(L, k, mu, u, levels, a + h) < 1e-15)
            return mean;
    }
    return NAN;
}
