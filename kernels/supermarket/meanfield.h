/* Mean-field theory of batch sampling (docs/models/supermarket-theory.md; "Steady-state behavior
 * of some load balancing mechanisms in cloud storage systems"): the drift f, the ODE for the
 * occupancy u_i(t), its fixed point and the tail bounds. Pure numerics: no engine types. */
#ifndef STORQ_SUPERMARKET_MEANFIELD_H
#define STORQ_SUPERMARKET_MEANFIELD_H

#include <stddef.h>

/* f(x) = sum_{j=L-k+1..L} (j - L + k) C(L,j) x^j (1-x)^(L-j), for x in [0,1]. */
double storq_sm_f(int L, int k, double x);

/* P(Binomial(m, x) = j) (0 outside 0..m), in the log domain: relative error a few eps times the
 * size of the logarithms. Used by the refined mean field (refined.c). */
double storq_sm_binom_pmf(int m, double x, int j);

/* Fixed point u_0 = 1, u_i = (lambda/k) f(u_{i-1}), for i = 0..levels-1. */
void storq_sm_fixed_point(int L, int k, double lambda, size_t levels, double *u);

/* Tail bounds of the fixed point, for i = 0..levels-1:
 * lambda^(((L-k+1)^i - 1)/(L-k)) <= u_i <= lambda^((r^i - 1)/(r - 1)), r = L/k
 * (limits taken where L-k = 0 or r = 1: lambda^i). */
void storq_sm_tail_bounds(int L, int k, double lambda, size_t levels, double *lower, double *upper);

/* Number of levels 0..I worth reporting: the smallest I + 1 such that the fixed point's u_I < eps
 * (at least 4 levels, at most max_levels). */
size_t storq_sm_auto_levels(int L, int k, double lambda, double eps, size_t max_levels);

/* Solve du_i/dt = lambda [f(u_{i-1}) - f(u_i)] - k (u_i - u_{i+1}), i >= 1, u_0 = 1, from u0
 * (levels values, u0[0] = 1) at the nt times t[0] = 0 < t[1] < ... (any spacing), writing
 * out[j*levels + i]. Internally truncates at a depth beyond `levels` where u stays negligible and
 * uses a fixed-step classical Runge-Kutta scheme with a step small enough for the stated accuracy
 * (documented in the .c file). Returns 0, or -1 on allocation failure. */
int storq_sm_ode_solve(int L, int k, double lambda, const double *u0, size_t levels,
                       const double *t, size_t nt, double *out);

/* The step storq_sm_ode_solve uses (its accuracy rule), and the solver with a given maximal step:
 * the tests halve the step to measure the error. */
double storq_sm_ode_step(int L, int k, double lambda);
int storq_sm_ode_solve_h(int L, int k, double lambda, const double *u0, size_t levels,
                         const double *t, size_t nt, double *out, double h);

#endif
