/* Refined mean field of batch sampling: the 1/n term of the finite-n bias of the occupancy
 * (Gast and Van Houdt, "A refined mean field approximation", 2017), E[u^n_i] = u_i + V_i / n +
 * O(1/n^2). The occupancy u_1..u_d (u_0 = 1; a system of capacity d, as the ODE truncates) is a
 * density-dependent population process; docs/models/supermarket-theory.md derives its drift, noise
 * covariance Q and the 1/n term f_1 of its drift for both samplings. Pure numerics: no engine
 * types. Time in the theory's units (service rate k per server, jobs at rate n lambda). */
#ifndef STORQ_SUPERMARKET_REFINED_H
#define STORQ_SUPERMARKET_REFINED_H

#include <stddef.h>

/* Largest state dimension for which the dense Lyapunov solve is attempted (O(d^3) per doubling). */
#define STORQ_SM_REFINED_MAX_DIM 400

typedef struct storq_sm_refined_info {
    double eig_min, eig_max; /* extreme eigenvalues of A = Df(u*) (real: A is tridiagonal with
                                nonnegative off-diagonal products); eig_max < 0 means stable */
    double lyap_residual;    /* max |A W + W A^T + Q| / max |Q| (0 when W is not needed) */
    double solve_residual;   /* max |A V + b| / max(|b|, tiny), b = D^2 f : W / 2 + f_1 */
    int lyap_doublings;      /* Smith doublings used */
} storq_sm_refined_info;

/* The pieces, at a point u (u[0] = 1, u[1..d]; u_{d+1} = 0), each as a function of the state
 * u_1..u_d. Matrices are d x d, row-major, index (i-1, j-1) for levels i, j.
 * A: the Jacobian of the drift (tridiagonal). Q: sum_l l l^T beta_l. f1: the 1/n term of the
 * drift (without = 1: sampling without replacement; 0: with). Returns 0, -1 on allocation
 * failure. */
void storq_sm_refined_jacobian(int L, int k, double lambda, const double *u, size_t d, double *A);
int storq_sm_refined_noise(int L, int k, double lambda, const double *u, size_t d, double *Q);
int storq_sm_refined_f1(int L, int k, double lambda, int without, const double *u, size_t d,
                        double *f1);
/* f'(x) and f''(x) of the drift function storq_sm_f. */
double storq_sm_fprime(int L, int k, double x);
double storq_sm_fsecond(int L, int k, double x);

/* Solve A W + W A^T + Q = 0 (A stable, d x d) by the Smith doubling iteration on the Cayley
 * transform with shift s > 0. Returns the number of doublings, -1 on allocation failure, -2 if
 * it did not converge. */
int storq_sm_lyapunov(const double *A, const double *Q, size_t d, double s, double *W);

/* Steady state at the fixed point of a system of capacity d (levels 1..d): V[0] = 0 and V[i],
 * i = 1..d. Wdiag (may be NULL): W_ii, i = 1..d, in Wdiag[i] (Wdiag[0] = 0): n times the
 * stationary variance of u_i to leading order. Returns 0; -1 on allocation failure; -2 if A is not
 * stable or the Lyapunov iteration failed; -3 if d > STORQ_SM_REFINED_MAX_DIM and W is needed. */
int storq_sm_refined_steady(int L, int k, double lambda, int without, size_t d, double *V,
                            double *Wdiag, storq_sm_refined_info *info);

/* Transient: dV/dt = A(t) V + D^2 f(t) : W / 2 + f_1(t), dW/dt = A W + W A^T + Q(t), V(0) = W(0) = 0,
 * along the mean-field trajectory from u0 (u0[0] = 1, u0[1..d]) in a system of capacity d, by
 * classical RK4 on (u, V, W) with step at most h; V at the nt times t (t[0] = 0) in
 * out[j*(d+1) + i], i = 0..d (out[..0] = 0). Returns 0 or -1 on allocation failure. */
int storq_sm_refined_transient(int L, int k, double lambda, int without, const double *u0,
                               size_t d, const double *t, size_t nt, double h, double *out);

#endif
