/* Theory of the `cluster` model under BR (docs/models/cluster-theory.md; the paper "Delay
 * Comparison of Delivery and Coding Policies in Data Clusters"): the cavity queue -- an M/G/1 queue
 * fed at the request rate lambda whose per-arrival work is c X / mu time units (X = q + 1 with
 * probability k'/m, q otherwise, for a request of k = q m + k' blocks; k ~ pi; c ~ psi) -- its
 * stationary workload distribution computed numerically (cavity.c), and the product-form delay
 * figure per k (product_form.c). Pure numerics: no engine types beyond the distribution laws. */
#ifndef STORQ_CLUSTER_CAVITY_H
#define STORQ_CLUSTER_CAVITY_H

#include <stddef.h>
#include <stdint.h>

#include "distribution.h"

typedef struct cl_cavity {
    double lambda;  /* request rate */
    double mu;      /* service rate per server (bits per unit time) */
    double rho;     /* load of one server: lambda E[X] E[c] / mu */
    double h;       /* grid step of the workload, in time units */
    size_t npoints; /* grid points: cdf[j] = P(V <= j h), V the stationary workload (time units) */
    double *cdf;
    double error; /* estimated max |error| of cdf on the grid (grid-halving comparison), plus the
                     tail mass left beyond the grid; can exceed the requested tol for heavy tails */
} cl_cavity;

/* px[x] = P(X = x), x = 0..xmax (mixed over the size law and the placement), chunk = psi (bits).
 * Solve to the requested accuracy (absolute, on the CDF) up to the workload level where the tail
 * falls below tol. Returns 0 (check `error` against tol: heavy tails may only reach a coarser
 * accuracy), or -1 when rho >= 1, on bad arguments, when even a 1e-2 tail cannot be captured
 * within the work budget, or on allocation failure. */
int storq_cl_cavity_solve(double lambda, double mu, const double *px, size_t xmax,
                    const storq_dist *chunk, double tol, cl_cavity *out);
/* P(V <= w), w in time units (linear interpolation on the grid, whose error between nodes can
 * slightly exceed `error`; 1 beyond it). */
double storq_cl_cavity_cdf(const cl_cavity *cav, double w);
void storq_cl_cavity_free(cl_cavity *cav);

/* X's law for the cavity queue: px[x] for x = 0..xmax from the size law pi and the coding rule's
 * alpha is not needed (BR asks k blocks in all). *xmax_out = largest x with mass. Caller frees. */
double *storq_cl_cavity_blocks_law(const storq_ddist *size, unsigned m, size_t *xmax_out);

/* The size of X's law for this size law on m servers: the largest k counted (geom: where
 * P(k > K) < 1e-15), the largest X = ceil(K / m) (its table holds xmax + 1 doubles) and the terms
 * summed to build it, with the caps storq_cl_cavity_blocks_law keeps to (1e7 values, 1e8 terms).
 * 1 when they fit (the law can be built), 0 when not (out gets the figures either way). */
typedef struct cl_blocks_size {
    double kmax, xmax, terms, xmax_cap, terms_cap;
} cl_blocks_size;
int storq_cl_cavity_blocks_fit(const storq_ddist *size, unsigned m, cl_blocks_size *out);

/* At most what solving the cavity queue for this size law, m and chunk law and the product form
 * after it hold at once, in bytes (the grid counted at its cap of 2^21 points). */
size_t storq_cl_cavity_bytes(const storq_ddist *size, unsigned m, const storq_dist *chunk);

/* The product-form figure for a request of k blocks on m servers, with chunk size law psi:
 * P(D <= x) ~= E_c[ P(V + c (q+1)/mu <= x)^k' P(V + c q/mu <= x)^(m-k') ] (k > m), or
 * E_c[ P(V + c/mu <= x)^k ] (k <= m): the delay as if the servers had evolved independently. */
double storq_cl_product_form_cdf(const cl_cavity *cav, unsigned k, unsigned m,
                                 const storq_dist *chunk, double x);
/* Its mean, the integral of 1 - cdf. */
double storq_cl_product_form_mean(const cl_cavity *cav, unsigned k, unsigned m,
                                  const storq_dist *chunk);

/* A budget of evaluations of the cavity CDF (a point of F, or a quadrature node of the
 * product form): the _w functions count what they do in used and return NaN once it passes max,
 * so that the product form's cost is bounded whatever the grid and the laws (theory.c). */
typedef struct cl_pf_work {
    double used, max;
} cl_pf_work;
/* storq_cl_product_form_cdf within the budget work (NULL: none). */
double storq_cl_product_form_cdf_w(const cl_cavity *cav, unsigned k, unsigned m,
                                   const storq_dist *chunk, double x, cl_pf_work *work);
/* The mean is base + wait: base = E[c] ceil(k/m) / mu, the service of the busiest server's
 * blocks, and wait, the mean of the largest (shifted) workload, which depends on k only through
 * k <= m ? k : k mod m (k = q m counts as m): requests of k and k + m blocks share it. wait
 * within the budget work (NULL: none). */
double storq_cl_product_form_base(unsigned k, unsigned m, const storq_dist *chunk, double mu);
double storq_cl_product_form_wait(const cl_cavity *cav, unsigned k, unsigned m,
                                  const storq_dist *chunk, cl_pf_work *work);
/* The key of k's wait (requests of k and k + m blocks share it): k while k <= m, beyond m + k mod m,
 * or m when m divides k (every server then holds k/m blocks, as at k = m). */
static inline uint64_t storq_cl_product_form_wait_key(uint64_t k, uint64_t m)
{
    return k <= m ? k : (k % m ? m + k % m : m);
}

/* Closed form for exponential chunks with every request of at most m blocks: the cavity queue is
 * M/M/1 with arrival rate lambda E[X] and service rate mu / E[c]: P(V <= w). */
double storq_cl_cavity_mm1_cdf(double lambda_eff, double service_rate, double w);

/* The two regimes of delay against k (regimes.c). The cavity workload's exponential tail,
 * P(V > w) ~ C e^{-theta w} (Cramer-Lundberg): 0, or -1 when the chunk law has no exponential
 * moment (pareto) or rho >= 1. */
int storq_cl_lundberg(double lambda, double mu, const double *px, size_t xmax,
                      const storq_dist *chunk, double *theta, double *C);
/* k <= m: E[c]/mu + (ln(C k) + gamma_E)/theta, the Gumbel asymptote of the product-form mean;
 * NaN where C k < e^{-gamma_E} (outside the limit's domain: it would fall below E[c]/mu). */
double storq_cl_log_regime_mean(double Ec, double mu, double theta, double C, double k);
/* k > m: E[c] k/(m mu) + E[max of m cavity workloads]. */
double storq_cl_linear_regime_mean(double Ec, double mu, double max_m_workload, unsigned m,
                                   double k);
/* E[c] ceil(k/m)/mu: the delay of a request alone, a lower bound for every policy. */
double storq_cl_isolation_delay(double Ec, double mu, unsigned m, double k);

#endif
