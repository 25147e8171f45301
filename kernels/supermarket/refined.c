/* Refined mean field of batch sampling (Gast and Van Houdt 2017). See refined.h for the interface
 * and docs/models/supermarket-theory.md for the derivation: the transitions of the occupancy, the
 * noise Q, the 1/n term f_1 for each sampling, and the measured accuracy. */
#include "refined.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "meanfield.h"

/* ---------------------------------------------------------------------------------------------- */
/* f', f'' and the drift                                                                          */
/* ---------------------------------------------------------------------------------------------- */

/* f(x) = E[g(J)], J ~ Bin(L, x), g(j) = (j - L + k)^+. d/dx E[g(J)] = L E[g(J'+1) - g(J')],
 * J' ~ Bin(L-1, x), and g(j+1) - g(j) = 1{j >= L-k}: f'(x) = L P(Bin(L-1, x) >= L-k); once more,
 * f''(x) = L (L-1) P(Bin(L-2, x) = L-k-1). */
double storq_sm_fprime(int L, int k, double x)
{
    if (k >= L)
        return (double)L;
    double s = 0.0;
    for (int j = L - k; j <= L - 1; j++)
        s += storq_sm_binom_pmf(L - 1, x, j);
    return (double)L * s;
}

double storq_sm_fsecond(int L, int k, double x)
{
    if (k >= L || L < 2)
        return 0.0;
    return (double)L * (double)(L - 1) * storq_sm_binom_pmf(L - 2, x, L - k - 1);
}

/* u_i with u_{d+1} = 0 (the capacity). */
static double lev(const double *u, size_t d, size_t i)
{
    return i > d ? 0.0 : u[i];
}

/* drift_i = lambda [f(u_{i-1}) - f(u_i)] - k (u_i - u_{i+1}), i = 1..d, into dr[1..d]. */
static void drift(int L, int k, double lambda, const double *u, size_t d, double *dr)
{
    double fprev = (double)k; /* f(u_0) = f(1) */
    for (size_t i = 1; i <= d; i++) {
        const double fi = storq_sm_f(L, k, u[i]);
        dr[i] = lambda * (fprev - fi) - (double)k * (u[i] - lev(u, d, i + 1));
        fprev = fi;
    }
}

void storq_sm_refined_jacobian(int L, int k, double lambda, const double *u, size_t d, double *A)
{
    memset(A, 0, sizeof *A * d * d);
    for (size_t i = 1; i <= d; i++) {
        const size_t r = i - 1;
        A[r * d + r] = -lambda * storq_sm_fprime(L, k, u[i]) - (double)k;
        if (i >= 2)
            A[r * d + r - 1] = lambda * storq_sm_fprime(L, k, u[i - 1]);
        if (i < d)
            A[r * d + r + 1] = (double)k;
    }
}

/* ---------------------------------------------------------------------------------------------- */
/* Q = sum_l l l^T beta_l                                                                         */
/* ---------------------------------------------------------------------------------------------- */

/* An arrival changes u_i by N_i / n, N_i = C_{i-1} - C_i, where C_a = g(J_a) is the number of the
 * k chosen queues at or above level a and J_a ~ Bin(L, u_a) the number of sampled ones (to leading
 * order in 1/n the samples are i.i.d. under both samplings). A departure from a queue of length i
 * lowers u_i by 1/n at rate n k (u_i - u_{i+1}). So Q_ij = lambda E[N_i N_j] + delta_ij k (u_i -
 * u_{i+1}), and E[N_i N_j] expands into M_ab = E[C_a C_b]. For a < b (u_a >= u_b), J_a = J_b + T
 * with T ~ Bin(L - J_b, (u_a - u_b)/(1 - u_b)) given J_b; only J_b > L - k contributes. */
static double gpos(int L, int k, int j)
{
    return j > L - k ? (double)(j - L + k) : 0.0;
}

static double moment_cc(int L, int k, double ua, double ub, int same)
{
    double s = 0.0;
    if (same) {
        for (int j = L - k + 1; j <= L; j++)
            s += storq_sm_binom_pmf(L, ua, j) * gpos(L, k, j) * gpos(L, k, j);
        return s;
    }
    if (ub >= 1.0)
        return (double)k * (double)k;
    double q = (ua - ub) / (1.0 - ub);
    q = q < 0.0 ? 0.0 : (q > 1.0 ? 1.0 : q);
    for (int jb = L - k + 1; jb <= L; jb++) {
        const double pb = storq_sm_binom_pmf(L, ub, jb);
        if (pb == 0.0)
            continue;
        double inner = 0.0;
        for (int t = 0; t <= L - jb; t++)
            inner += storq_sm_binom_pmf(L - jb, q, t) * gpos(L, k, jb + t);
        s += pb * gpos(L, k, jb) * inner;
    }
    return s;
}

int storq_sm_refined_noise(int L, int k, double lambda, const double *u, size_t d, double *Q)
{
    const size_t m = d + 1; /* M_ab, a, b = 0..d */
    double *M = malloc(sizeof *M * m * m);
    if (!M)
        return -1;
    for (size_t a = 0; a <= d; a++)
        for (size_t b = a; b <= d; b++) {
            const double v =
                k == 1 ? storq_sm_f(L, k, u[b]) /* C_a C_b = C_b: all L samples >= b */
                       : moment_cc(L, k, u[a], u[b], a == b);
            M[a * m + b] = v;
            M[b * m + a] = v;
        }
    for (size_t i = 1; i <= d; i++)
        for (size_t j = 1; j <= d; j++) {
            double q = lambda * (M[(i - 1) * m + (j - 1)] - M[(i - 1) * m + j] -
                                 M[i * m + (j - 1)] + M[i * m + j]);
            if (i == j)
                q += (double)k * (u[i] - lev(u, d, i + 1));
            Q[(i - 1) * d + (j - 1)] = q;
        }
    free(M);
    return 0;
}

/* ---------------------------------------------------------------------------------------------- */
/* f_1: the drift's 1/n term                                                                      */
/* ---------------------------------------------------------------------------------------------- */

/* Without replacement J_a is hypergeometric (n servers, n u_a of them at or above a, L drawn):
 * P(J = j) = Bin(L, x)(j) [1 + (L(L-1) - j(j-1)/x - (L-j)(L-j-1)/(1-x)) / (2n)] + O(1/n^2), and
 * the bracket's 1/n coefficient is -x(1-x) b_j''(x) / b_j(x) / 2 (b_j the binomial term), so
 * f_n(x) = f(x) + phi(x)/n + O(1/n^2) with phi(x) = -x (1-x) f''(x) / 2. */
static double phi_without(int L, int k, double x)
{
    return -0.5 * x * (1.0 - x) * storq_sm_fsecond(L, k, x);
}

/* With replacement the sampled lengths are i.i.d. from the empirical law at every n, so the
 * chosen-queue counts are exact; but a server sampled twice and chosen twice gets +1 then +1
 * (m -> m+2: e_{m+1} + e_{m+2} instead of 2 e_{m+1}). A given pair of the L draws names the same
 * server with probability 1/n; more coincidences are O(1/n^2). Given such a pair at a server of
 * length m (probability p_m = u_m - u_{m+1}), with B of the other L-2 draws shorter and E equal, s
 * = k - B slots go to the E + 2 tied draws at random (ties by draw position, exchangeable), so both
 * copies are chosen with probability 1 if s >= E + 2, s (s-1) / ((E+2)(E+1)) otherwise (0 if
 * s < 2). D(m) below is that probability averaged over (B, E). k = 1: never (f_1 = 0). */
static double both_chosen(int L, int k, double um, double um1)
{
    if (k < 2 || L < 2 || um <= 0.0)
        return 0.0;
    const double pl = 1.0 - um, q = (um - um1) / um;
    double s = 0.0;
    const int bmax = k - 2 < L - 2 ? k - 2 : L - 2;
    for (int B = 0; B <= bmax; B++) {
        const double pB = storq_sm_binom_pmf(L - 2, pl, B);
        if (pB == 0.0)
            continue;
        const int slots = k - B;
        double inner = 0.0;
        for (int E = 0; E <= L - 2 - B; E++) {
            const double w = slots >= E + 2 ? 1.0
                                            : (double)slots * (double)(slots - 1) /
                                                  ((double)(E + 2) * (double)(E + 1));
            inner += storq_sm_binom_pmf(L - 2 - B, q, E) * w;
        }
        s += pB * inner;
    }
    return s;
}

int storq_sm_refined_f1(int L, int k, double lambda, int without, const double *u, size_t d,
                        double *f1)
{
    f1[0] = 0.0;
    if (without) {
        double prev = phi_without(L, k, 1.0);
        for (size_t i = 1; i <= d; i++) {
            const double p = phi_without(L, k, u[i]);
            f1[i] = lambda * (prev - p);
            prev = p;
        }
        return 0;
    }
    /* P2[m] = p_m D(m), m = 0..d-1; level i gains from m = i-2 and loses from m = i-1. */
    double *P2 = malloc(sizeof *P2 * (d + 1));
    if (!P2)
        return -1;
    for (size_t m = 0; m < d; m++)
        P2[m] = (u[m] - lev(u, d, m + 1)) * both_chosen(L, k, u[m], lev(u, d, m + 1));
    const double pairs = 0.5 * (double)L * (double)(L - 1);
    for (size_t i = 1; i <= d; i++)
        f1[i] = lambda * pairs * ((i >= 2 ? P2[i - 2] : 0.0) - P2[i - 1]);
    free(P2);
    return 0;
}

/* ---------------------------------------------------------------------------------------------- */
/* Dense linear algebra                                                                           */
/* ---------------------------------------------------------------------------------------------- */

static double maxabs(const double *a, size_t len)
{
    double m = 0.0;
    for (size_t i = 0; i < len; i++)
        if (fabs(a[i]) > m)
            m = fabs(a[i]);
    return m;
}

/* C = A B (d x d); C must not alias A or B. */
static void matmul(const double *A, const double *B, size_t d, double *C)
{
    memset(C, 0, sizeof *C * d * d);
    for (size_t i = 0; i < d; i++)
        for (size_t l = 0; l < d; l++) {
            const double a = A[i * d + l];
            if (a == 0.0)
                continue;
            for (size_t j = 0; j < d; j++)
                C[i * d + j] += a * B[l * d + j];
        }
}

/* C = A B^T. */
static void matmul_t(const double *A, const double *B, size_t d, double *C)
{
    for (size_t i = 0; i < d; i++)
        for (size_t j = 0; j < d; j++) {
            double s = 0.0;
            for (size_t l = 0; l < d; l++)
                s += A[i * d + l] * B[j * d + l];
            C[i * d + j] = s;
        }
}

/* Inverse of the d x d matrix M (destroyed) into Inv, Gauss-Jordan with partial pivoting.
 * Returns -1 if singular. */
static int invert(double *M, size_t d, double *Inv)
{
    memset(Inv, 0, sizeof *Inv * d * d);
    for (size_t i = 0; i < d; i++)
        Inv[i * d + i] = 1.0;
    for (size_t c = 0; c < d; c++) {
        size_t p = c;
        for (size_t r = c + 1; r < d; r++)
            if (fabs(M[r * d + c]) > fabs(M[p * d + c]))
                p = r;
        if (M[p * d + c] == 0.0)
            return -1;
        if (p != c)
            for (size_t j = 0; j < d; j++) {
                double t = M[c * d + j];
                M[c * d + j] = M[p * d + j];
                M[p * d + j] = t;
                t = Inv[c * d + j];
                Inv[c * d + j] = Inv[p * d + j];
                Inv[p * d + j] = t;
            }
        const double piv = 1.0 / M[c * d + c];
        for (size_t j = 0; j < d; j++) {
            M[c * d + j] *= piv;
            Inv[c * d + j] *= piv;
        }
        for (size_t r = 0; r < d; r++) {
            if (r == c || M[r * d + c] == 0.0)
                continue;
            const double f = M[r * d + c];
            for (size_t j = 0; j < d; j++) {
                M[r * d + j] -= f * M[c * d + j];
                Inv[r * d + j] -= f * Inv[c * d + j];
            }
        }
    }
    return 0;
}

/* A W + W A^T + Q = 0 <=> W = T W T^T + X0 with T = (A - sI)^{-1} (A + sI) (spectral radius < 1
 * for A stable, s > 0) and X0 = 2 s (A - sI)^{-1} Q (A - sI)^{-T}: from (A - sI) W (A - sI)^T -
 * (A + sI) W (A + sI)^T = -2s (A W + W A^T). Smith's doubling sums W = sum_j T^j X0 T^jT in
 * log2 of the number of terms: X <- X + T X T^T, T <- T^2. */
int storq_sm_lyapunov(const double *A, const double *Q, size_t d, double s, double *W)
{
    const size_t dd = d * d;
    double *buf = malloc(sizeof *buf * 5 * dd);
    if (!buf)
        return -1;
    double *Mi = buf, *T = Mi + dd, *Y = T + dd, *Z = Y + dd, *S = Z + dd;
    memcpy(S, A, sizeof *S * dd);
    for (size_t i = 0; i < d; i++)
        S[i * d + i] -= s;
    if (invert(S, d, Mi)) {
        free(buf);
        return -2;
    }
    memcpy(S, A, sizeof *S * dd);
    for (size_t i = 0; i < d; i++)
        S[i * d + i] += s;
    matmul(Mi, S, d, T);
    matmul(Mi, Q, d, Z);
    matmul_t(Z, Mi, d, W);
    for (size_t i = 0; i < dd; i++)
        W[i] *= 2.0 * s;
    int it = 0, ok = 0;
    for (; it < 80; it++) {
        matmul(T, W, d, Z);
        matmul_t(Z, T, d, Y);
        for (size_t i = 0; i < dd; i++)
            W[i] += Y[i];
        matmul(T, T, d, Z);
        memcpy(T, Z, sizeof *T * dd);
        if (maxabs(Y, dd) <= 1e-18 * maxabs(W, dd) && maxabs(T, dd) < 1e-8) {
            ok = 1;
            it++;
            break;
        }
    }
    for (size_t i = 0; i < d; i++) /* W is symmetric: remove the rounding asymmetry */
        for (size_t j = i + 1; j < d; j++) {
            const double m = 0.5 * (W[i * d + j] + W[j * d + i]);
            W[i * d + j] = m;
            W[j * d + i] = m;
        }
    free(buf);
    return ok ? it : -2;
}

/* Number of eigenvalues below x of the tridiagonal A (similar to the symmetric tridiagonal with
 * off-diagonal sqrt(A_{r,r+1} A_{r+1,r}), the products being >= 0): Sturm sequence. */
static size_t sturm_below(const double *A, size_t d, double x)
{
    size_t cnt = 0;
    double q = 1.0;
    for (size_t r = 0; r < d; r++) {
        const double p = r > 0 ? A[(r - 1) * d + r] * A[r * d + r - 1] : 0.0;
        q = A[r * d + r] - x - (r > 0 ? p / q : 0.0);
        if (q == 0.0)
            q = -DBL_EPSILON * (fabs(A[r * d + r]) + fabs(x) + DBL_MIN);
        if (q < 0.0)
            cnt++;
    }
    return cnt;
}

/* The idx-th smallest eigenvalue (0-based) by bisection. */
static double eig_bisect(const double *A, size_t d, size_t idx)
{
    double g = 0.0;
    for (size_t r = 0; r < d; r++) {
        double s = fabs(A[r * d + r]);
        if (r > 0)
            s += fabs(A[r * d + r - 1]);
        if (r + 1 < d)
            s += fabs(A[r * d + r + 1]);
        if (s > g)
            g = s;
    }
    double lo = -g - 1.0, hi = g + 1.0;
    for (int it = 0; it < 200 && hi - lo > 1e-15 * (fabs(lo) + fabs(hi)); it++) {
        const double mid = 0.5 * (lo + hi);
        if (sturm_below(A, d, mid) > idx)
            hi = mid;
        else
            lo = mid;
    }
    return 0.5 * (lo + hi);
}

/* Solve the tridiagonal A x = rhs (Thomas: A is diagonally dominant by columns, so elimination
 * without pivoting is stable). Returns -1 on allocation failure or a zero pivot. */
static int tridiag_solve(const double *A, size_t d, const double *rhs, double *x)
{
    double *c = malloc(sizeof *c * d);
    if (!c)
        return -1;
    double piv = A[0];
    if (piv == 0.0) {
        free(c);
        return -1;
    }
    x[0] = rhs[0] / piv;
    c[0] = d > 1 ? A[1] / piv : 0.0;
    for (size_t r = 1; r < d; r++) {
        const double sub = A[r * d + r - 1];
        piv = A[r * d + r] - sub * c[r - 1];
        if (piv == 0.0) {
            free(c);
            return -1;
        }
        c[r] = r + 1 < d ? A[r * d + r + 1] / piv : 0.0;
        x[r] = (rhs[r] - sub * x[r - 1]) / piv;
    }
    for (size_t r = d - 1; r-- > 0;)
        x[r] -= c[r] * x[r + 1];
    free(c);
    return 0;
}

/* h_i = (1/2) D^2 f_i : W = (lambda/2) (f''(u_{i-1}) W_{i-1,i-1} - f''(u_i) W_ii), W_00 = 0: the
 * drift's second derivatives are diagonal (f acts on one level at a time). */
static void hessian_term(int L, int k, double lambda, const double *u, size_t d, const double *W,
                         double *h)
{
    double prev = 0.0; /* f''(u_0) W_00 = 0: u_0 = 1 does not fluctuate */
    for (size_t i = 1; i <= d; i++) {
        const double cur = storq_sm_fsecond(L, k, u[i]) * W[(i - 1) * d + (i - 1)];
        h[i] = 0.5 * lambda * (prev - cur);
        prev = cur;
    }
}

/* ---------------------------------------------------------------------------------------------- */
/* Steady state                                                                                   */
/* ---------------------------------------------------------------------------------------------- */

int storq_sm_refined_steady(int L, int k, double lambda, int without, size_t d, double *V,
                            double *Wdiag, storq_sm_refined_info *info)
{
    storq_sm_refined_info inf;
    memset(&inf, 0, sizeof inf);
    if (info)
        *info = inf;
    if (d == 0)
        return 0;
    const int need_w = k < L && L >= 2; /* f'' = 0 when f is linear (k = L) */
    if (need_w && d > STORQ_SM_REFINED_MAX_DIM)
        return -3;
    const size_t dd = d * d;
    double *u = malloc(sizeof *u * (d + 1));
    double *A = malloc(sizeof *A * dd);
    double *vec = malloc(sizeof *vec * 3 * (d + 1));
    double *Q = need_w ? malloc(sizeof *Q * dd) : NULL;
    double *W = need_w ? malloc(sizeof *W * dd) : NULL;
    int rc = -1;
    if (!u || !A || !vec || (need_w && (!Q || !W)))
        goto done;
    double *b = vec, *f1 = vec + d + 1, *x = f1 + d + 1;
    storq_sm_fixed_point(L, k, lambda, d + 1, u);
    storq_sm_refined_jacobian(L, k, lambda, u, d, A);
    inf.eig_min = eig_bisect(A, d, 0);
    inf.eig_max = eig_bisect(A, d, d - 1);
    rc = -2;
    if (!(inf.eig_max < 0.0))
        goto done;
    rc = -1;
    if (storq_sm_refined_f1(L, k, lambda, without, u, d, f1))
        goto done;
    memset(b, 0, sizeof *b * (d + 1));
    if (need_w) {
        if (storq_sm_refined_noise(L, k, lambda, u, d, Q))
            goto done;
        const double s = sqrt(inf.eig_min * inf.eig_max);
        int it = storq_sm_lyapunov(A, Q, d, s, W);
        if (it < 0) {
            rc = it;
            goto done;
        }
        inf.lyap_doublings = it;
        /* residual max |A W + W A^T + Q| / max |Q| */
        double *R = malloc(sizeof *R * dd);
        if (!R)
            goto done;
        matmul(A, W, d, R);
        double worst = 0.0;
        for (size_t i = 0; i < d; i++)
            for (size_t j = 0; j < d; j++) {
                const double r = R[i * d + j] + R[j * d + i] + Q[i * d + j];
                if (fabs(r) > worst)
                    worst = fabs(r);
            }
        free(R);
        inf.lyap_residual = worst / maxabs(Q, dd);
        hessian_term(L, k, lambda, u, d, W, b);
    }
    for (size_t i = 1; i <= d; i++) {
        b[i] += f1[i];
        x[i - 1] = -b[i];
    }
    /* A V = -b */
    if (tridiag_solve(A, d, x, V + 1))
        goto done;
    V[0] = 0.0;
    double worst = 0.0, bmax = DBL_MIN;
    for (size_t i = 1; i <= d; i++) {
        double r = b[i];
        for (size_t j = 1; j <= d; j++)
            r += A[(i - 1) * d + (j - 1)] * V[j];
        if (fabs(r) > worst)
            worst = fabs(r);
        if (fabs(b[i]) > bmax)
            bmax = fabs(b[i]);
    }
    inf.solve_residual = worst / bmax;
    if (Wdiag) {
        Wdiag[0] = 0.0;
        for (size_t i = 1; i <= d; i++)
            Wdiag[i] = need_w ? W[(i - 1) * d + (i - 1)] : NAN;
    }
    rc = 0;
done:
    if (info)
        *info = inf;
    free(u);
    free(A);
    free(vec);
    free(Q);
    free(W);
    return rc;
}

/* ---------------------------------------------------------------------------------------------- */
/* Transient                                                                                      */
/* ---------------------------------------------------------------------------------------------- */

typedef struct trans {
    int L, k, without;
    double lambda;
    size_t d;
    double *A, *Q, *f1, *h, *AW; /* work */
} trans;

/* The derivative of the state y = (u[0..d], V[0..d], W[d*d]) into dy (same layout). */
static int trans_rhs(trans *tr, const double *y, double *dy)
{
    const size_t d = tr->d;
    const double *u = y, *V = y + d + 1, *W = V + d + 1;
    double *du = dy, *dV = dy + d + 1, *dW = dV + d + 1;
    drift(tr->L, tr->k, tr->lambda, u, d, du);
    du[0] = 0.0;
    storq_sm_refined_jacobian(tr->L, tr->k, tr->lambda, u, d, tr->A);
    if (storq_sm_refined_noise(tr->L, tr->k, tr->lambda, u, d, tr->Q) ||
        storq_sm_refined_f1(tr->L, tr->k, tr->lambda, tr->without, u, d, tr->f1))
        return -1;
    hessian_term(tr->L, tr->k, tr->lambda, u, d, W, tr->h);
    const double *A = tr->A;
    dV[0] = 0.0;
    for (size_t i = 1; i <= d; i++) { /* A is tridiagonal */
        const size_t r = i - 1;
        double s = A[r * d + r] * V[i];
        if (i >= 2)
            s += A[r * d + r - 1] * V[i - 1];
        if (i < d)
            s += A[r * d + r + 1] * V[i + 1];
        dV[i] = s + tr->h[i] + tr->f1[i];
    }
    double *AW = tr->AW; /* (A W)_rc, tridiagonal A */
    for (size_t r = 0; r < d; r++)
        for (size_t c = 0; c < d; c++) {
            double s = A[r * d + r] * W[r * d + c];
            if (r >= 1)
                s += A[r * d + r - 1] * W[(r - 1) * d + c];
            if (r + 1 < d)
                s += A[r * d + r + 1] * W[(r + 1) * d + c];
            AW[r * d + c] = s;
        }
    for (size_t r = 0; r < d; r++)
        for (size_t c = 0; c < d; c++)
            dW[r * d + c] = AW[r * d + c] + AW[c * d + r] + tr->Q[r * d + c];
    return 0;
}

int storq_sm_refined_transient(int L, int k, double lambda, int without, const double *u0,
                               size_t d, const double *t, size_t nt, double h, double *out)
{
    if (nt == 0 || d == 0)
        return 0;
    const size_t n = 2 * (d + 1) + d * d, dd = d * d;
    trans tr = {.L = L, .k = k, .without = without, .lambda = lambda, .d = d};
    double *buf = malloc(sizeof *buf * (6 * n + 3 * dd + 2 * (d + 1)));
    if (!buf)
        return -1;
    double *y = buf, *ys = y + n, *acc = ys + n, *dy = acc + n, *k1 = dy + n, *tmp = k1 + n;
    (void)tmp;
    tr.A = buf + 6 * n;
    tr.Q = tr.A + dd;
    tr.AW = tr.Q + dd;
    tr.f1 = tr.AW + dd;
    tr.h = tr.f1 + d + 1;
    memset(y, 0, sizeof *y * n);
    memcpy(y, u0, sizeof *y * (d + 1));
    y[0] = 1.0;
    int rc = 0;
    for (size_t j = 0; j < nt && rc == 0; j++) {
        if (j > 0 && t[j] > t[j - 1]) {
            const double dt = t[j] - t[j - 1];
            const double steps = ceil(dt / h);
            const double hs = dt / steps;
            for (double s = 0; s < steps && rc == 0; s++) {
                /* classical RK4 */
                if ((rc = trans_rhs(&tr, y, k1)))
                    break;
                for (size_t i = 0; i < n; i++) {
                    acc[i] = k1[i];
                    ys[i] = y[i] + 0.5 * hs * k1[i];
                }
                if ((rc = trans_rhs(&tr, ys, dy)))
                    break;
                for (size_t i = 0; i < n; i++) {
                    acc[i] += 2.0 * dy[i];
                    ys[i] = y[i] + 0.5 * hs * dy[i];
                }
                if ((rc = trans_rhs(&tr, ys, dy)))
                    break;
                for (size_t i = 0; i < n; i++) {
                    acc[i] += 2.0 * dy[i];
                    ys[i] = y[i] + hs * dy[i];
                }
                if ((rc = trans_rhs(&tr, ys, dy)))
                    break;
                for (size_t i = 0; i < n; i++)
                    y[i] += hs / 6.0 * (acc[i] + dy[i]);
                y[0] = 1.0;
            }
        }
        memcpy(out + j * (d + 1), y + d + 1, sizeof *out * (d + 1));
        out[j * (d + 1)] = 0.0;
    }
    free(buf);
    return rc ? -1 : 0;
}
