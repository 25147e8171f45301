/* The two regimes of delay against the file size k (docs/models/cluster-theory.md, "The two
 * regimes"): the paper's headline that delays grow logarithmically in k while k <= m and linearly
 * once k > m, as curves computed from the BR cavity queue of the point.
 * - Logarithmic (k <= m): the product form is the law of c/mu + the maximum of k independent
 *   cavity workloads. Their tail is P(V > w) ~ C e^{-theta w} (Cramer-Lundberg), so the maximum
 *   is Gumbel and E[D_k] ~ E[c]/mu + (ln(C k) + gamma_E) / theta: slope 1/theta in ln k.
 * - Linear (k > m): every server holds about k/m of the request's blocks, so
 *   E[D_k] ~ E[c] k / (m mu) + E[max of m cavity workloads].
 * - Isolation: a request alone still waits for its busiest server's blocks, at least ceil(k/m)
 *   of them (pigeonhole), so E[c] ceil(k/m) / mu bounds every policy's mean delay from below. */
#include <math.h>
#include <stddef.h>

#include "cavity.h"

#define EULER_GAMMA 0.57721566490153286061

/* M(t) = E[e^{t c}] and M'(t) = E[c e^{t c}] of the chunk law; 0 when t is outside the domain
 * (or the law has no exponential moment: pareto). */
static int chunk_mgf(const storq_dist *d, double t, double *M, double *dM)
{
    const double *p = d->p;
    switch (d->kind) {
    case STORQ_DIST_DET:
        *M = exp(t * p[0]);
        *dM = p[0] * *M;
        return 1;
    case STORQ_DIST_EXP:
        if (!(t < p[0]))
            return 0;
        *M = p[0] / (p[0] - t);
        *dM = p[0] / ((p[0] - t) * (p[0] - t));
        return 1;
    case STORQ_DIST_SHEXP: {
        if (!(t < p[1]))
            return 0;
        double e = exp(t * p[0]), r = p[1] / (p[1] - t);
        *M = e * r;
        *dM = e * (p[0] * r + r / (p[1] - t));
        return 1;
    }
    case STORQ_DIST_ERLANG:
        if (!(t < p[1]))
            return 0;
        *M = pow(p[1] / (p[1] - t), p[0]);
        *dM = *M * p[0] / (p[1] - t);
        return 1;
    case STORQ_DIST_HYPEREXP:
        *M = *dM = 0.0;
        for (int i = 0; i + 1 < d->nparams; i += 2) {
            if (!(t < p[i + 1]))
                return 0;
            *M += p[i] * p[i + 1] / (p[i + 1] - t);
            *dM += p[i] * p[i + 1] / ((p[i + 1] - t) * (p[i + 1] - t));
        }
        return 1;
    case STORQ_DIST_UNIFORM: {
        double a = p[0], b = p[1];
        if (fabs(t) * (b - a) < 1e-8) { /* the series about t = 0 */
            *M = exp(t * (a + b) / 2);
            *dM = (a + b) / 2 * *M;
            return 1;
        }
        double ea = exp(t * a), eb = exp(t * b);
        *M = (eb - ea) / (t * (b - a));
        *dM = ((b * eb - a * ea) * t - (eb - ea)) / (t * t * (b - a));
        return 1;
    }
    case STORQ_DIST_TRACE:
        *M = *dM = 0.0;
        for (size_t i = 0; i < d->ntrace; i++) {
            double e = exp(t * d->trace[i]);
            *M += e;
            *dM += d->trace[i] * e;
        }
        *M /= (double)d->ntrace;
        *dM /= (double)d->ntrace;
        return 1;
    default:
        return 0;
    }
}

/* g(theta) = lambda (E[e^{theta B}] - 1) - theta, B = c X / mu; *dmb = E[B e^{theta B}]. */
static int lundberg_g(double lambda, double mu, const double *px, size_t xmax,
                      const storq_dist *chunk, double th, double *g, double *dmb)
{
    double mb = 0.0, db = 0.0;
    for (size_t x = 0; x <= xmax; x++) {
        if (!(px[x] > 0))
            continue;
        double M, dM;
        if (x == 0) {
            mb += px[x];
            continue;
        }
        if (!chunk_mgf(chunk, th * (double)x / mu, &M, &dM))
            return 0;
        mb += px[x] * M;
        db += px[x] * (double)x / mu * dM;
    }
    *g = lambda * (mb - 1.0) - th;
    *dmb = db;
    return 1;
}

int storq_cl_lundberg(double lambda, double mu, const double *px, size_t xmax,
                      const storq_dist *chunk, double *theta, double *C)
{
    double EX = 0.0;
    for (size_t x = 1; x <= xmax; x++)
        EX += px[x] * (double)x;
    double rho = lambda * EX * chunk->mean / mu;
    if (!(rho > 0 && rho < 1) || !(EX > 0))
        return -1;
    /* g(0) = 0, g'(0) = rho - 1 < 0 and g is convex: one positive root. Bracket it by doubling
     * from a step below the mean work's scale (an undefined g, outside the MGF's domain, counts
     * as positive: the MGF tends to infinity at the domain's edge). */
    double EB = EX * chunk->mean / mu, lo = 0.0, hi = 1e-3 / EB, g, d;
    for (int i = 0;; i++) {
        if (i > 200)
            return -1;
        if (!lundberg_g(lambda, mu, px, xmax, chunk, hi, &g, &d) || g > 0)
            break;
        lo = hi;
        hi *= 2;
    }
    for (int i = 0; i < 200 && hi - lo > 1e-15 * hi; i++) {
        double mid = 0.5 * (lo + hi);
        if (lundberg_g(lambda, mu, px, xmax, chunk, mid, &g, &d) && g <= 0)
            lo = mid;
        else
            hi = mid;
    }
    if (!(lo > 0) || !lundberg_g(lambda, mu, px, xmax, chunk, lo, &g, &d))
        return -1;
    *theta = lo;
    /* P(V > w) ~ C e^{-theta w}, C = (1 - rho) / (lambda E[B e^{theta B}] - 1) */
    *C = (1.0 - rho) / (lambda * d - 1.0);
    return isfinite(*C) && *C > 0 ? 0 : -1;
}

double storq_cl_log_regime_mean(double Ec, double mu, double theta, double C, double k)
{
    /* the Gumbel limit needs the largest of k workloads to lie in their exponential tail; where
     * C k < e^{-gamma_E} it is most likely 0 (a light load, small k) and the limit would put the
     * mean below c/mu, even below 0: outside its domain, NaN */
    const double gumbel = log(C * k) + EULER_GAMMA;
    return gumbel >= 0.0 ? Ec / mu + gumbel / theta : NAN;
}

double storq_cl_linear_regime_mean(double Ec, double mu, double max_m_workload, unsigned m,
                                   double k)
{
    return Ec * k / ((double)m * mu) + max_m_workload;
}

double storq_cl_isolation_delay(double Ec, double mu, unsigned m, double k)
{
    return Ec * ceil(k / (double)m) / mu;
}
