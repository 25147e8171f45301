/* `proxy` theory with several classes: the paper's multi-class approximation (its Sec. IV-B, "the
 * eq. 5 optimisation") and the layers of its capacity region (its Fig. 8); docs/models/proxy.md.
 *
 * Non-blocking admission, classes i with shares alpha_i, code lengths n_i (k_i <= n_i <= nmax_i),
 * usage u_i(n) = n Delta_i + k_i/mu_i and service delay D_s,i(n) from theory.c. The request queue
 * is an M/G/1 queue whose service time X has mean E = sum_i alpha_i u_i(n_i) / L (the single-class
 * non-blocking E[X] = u(n)/L, mixed over the classes) and E[X^2] = beta E^2 with one constant beta
 * (the paper's "simple and rough assumption"); Pollaczek-Khinchine gives
 *     D_q(N, lambda) = lambda beta E^2 / (2 (1 - lambda E)),   backlog Q = lambda D_q,
 * and eq. 5 is: minimise D(N, lambda) = sum_i alpha_i D_s,i(n_i) + D_q(N, lambda) over integer
 * code vectors N with lambda E < 1 (the capacity region C(N) = {lambda E(N) < 1}; C(K), with no
 * coding, is the full region).
 *
 * beta: the paper leaves its value open. storq takes the Erlang(k) ratio 1 + 1/k of the
 * single-class approximation at n = k (the smallest k over the classes): near the capacity, where
 * the queueing term matters, every class is served with n = k.
 *
 * Along one composition (the point's shares) D(N, .) is A_N + a_N lambda / (1 - lambda E_N), with
 * A_N = sum_i alpha_i D_s,i(n_i) and a_N = beta E_N^2 / 2: increasing and convex in lambda, so the
 * optimal vector over lambda is a lower envelope: the vector with the smallest A_N at lambda = 0,
 * then at each step the vector whose curve first crosses below the current one. Two curves cross
 * where a quadratic in lambda (the difference times (1 - lambda E_N)(1 - lambda E_c) > 0) changes
 * sign; the walk takes the smallest sign change downwards after the current rate. The layers are
 * these vectors in order of rate, each with the rate where it starts. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

double storq_px_mc_beta(const px_ctx *x)
{
    uint64_t k = x->cls[0].k;
    for (int i = 1; i < x->nclass; i++)
        if (x->cls[i].k < k)
            k = x->cls[i].k;
    return 1.0 + 1.0 / (double)k;
}

/* E = sum_i alpha_i u_i(n_i) / L and A = sum_i alpha_i D_s,i(n_i) of code vector n. */
static void px_mc_moments(const px_ctx *x, const uint64_t *n, double *E, double *A)
{
    double e = 0.0, a = 0.0;
    for (int i = 0; i < x->nclass; i++) {
        e += x->cls[i].share * storq_px_usage(&x->cls[i], (double)n[i]);
        a += x->cls[i].share * storq_px_service(&x->cls[i], n[i]);
    }
    *E = e / (double)x->L;
    *A = a;
}

double storq_px_mc_queueing(const px_ctx *x, const uint64_t *n, double lambda, double beta)
{
    double E, A;
    px_mc_moments(x, n, &E, &A);
    const double rho = lambda * E;
    if (!(rho < 1.0))
        return INFINITY;
    return lambda * beta * E * E / (2.0 * (1.0 - rho));
}

double storq_px_mc_delay(const px_ctx *x, const uint64_t *n, double lambda, double beta)
{
    double E, A;
    px_mc_moments(x, n, &E, &A);
    return A + storq_px_mc_queueing(x, n, lambda, beta);
}

size_t storq_px_mc_count(const px_ctx *x)
{
    size_t v = 1;
    for (int i = 0; i < x->nclass; i++) {
        const size_t r = (size_t)(x->cls[i].nmax - x->cls[i].k + 1);
        if (v > PX_MC_MAX_VECTORS / r)
            return 0;
        v *= r;
    }
    return v;
}

/* The code vector number idx (mixed radix, the first class fastest). */
static void px_mc_vector(const px_ctx *x, size_t idx, uint64_t *n)
{
    for (int i = 0; i < x->nclass; i++) {
        const size_t r = (size_t)(x->cls[i].nmax - x->cls[i].k + 1);
        n[i] = x->cls[i].k + (uint64_t)(idx % r);
        idx /= r;
    }
}

int storq_px_mc_optimal(const px_ctx *x, double lambda, double beta, uint64_t *best)
{
    const size_t V = storq_px_mc_count(x);
    uint64_t n[PX_MAX_CLASSES];
    double dbest = INFINITY;
    int found = 0;
    for (size_t v = 0; v < V; v++) {
        px_mc_vector(x, v, n);
        const double d = storq_px_mc_delay(x, n, lambda, beta);
        if (d < dbest) {
            dbest = d;
            memcpy(best, n, sizeof n[0] * (size_t)x->nclass);
            found = 1;
        }
    }
    return found;
}

/* The smallest rate in (after, hi) where the curve of (A1, E1) falls below that of (A0, E0):
 * the sign change downwards of P(l) = (D1 - D0)(1 - l E0)(1 - l E1), a quadratic; INFINITY when
 * none. */
static double px_mc_cross(double A0, double E0, double A1, double E1, double beta, double after,
                          double hi)
{
    const double a0 = 0.5 * beta * E0 * E0, a1 = 0.5 * beta * E1 * E1, dA = A1 - A0;
    /* P(l) = dA (1 - l E0)(1 - l E1) + a1 l (1 - l E0) - a0 l (1 - l E1) */
    const double c2 = dA * E0 * E1 - a1 * E0 + a0 * E1;
    const double c1 = -dA * (E0 + E1) + a1 - a0;
    const double c0 = dA;
    double r[2];
    int nr = 0;
    if (c2 != 0.0) {
        const double disc = c1 * c1 - 4.0 * c2 * c0;
        if (disc < 0.0)
            return INFINITY;
        const double s = sqrt(disc), q = -0.5 * (c1 + (c1 >= 0.0 ? s : -s));
        if (q != 0.0) {
            r[nr++] = q / c2;
            r[nr++] = c0 / q;
        } else {
            r[nr++] = 0.0;
        }
    } else if (c1 != 0.0) {
        r[nr++] = -c0 / c1;
    }
    double best = INFINITY;
    for (int j = 0; j < nr; j++) {
        const double l = r[j];
        if (!(l > after && l < hi) || !(l < best))
            continue;
        if (2.0 * c2 * l + c1 < 0.0) /* P falls through zero: the new curve goes below */
            best = l;
    }
    return best;
}

size_t storq_px_mc_layers(const px_ctx *x, double beta, px_mc_layer *out, size_t cap)
{
    const size_t V = storq_px_mc_count(x);
    if (V == 0 || cap == 0)
        return 0;
    uint64_t n[PX_MAX_CLASSES], cur[PX_MAX_CLASSES];
    double Ec = 0.0, Ac = INFINITY;
    for (size_t v = 0; v < V; v++) { /* lambda = 0: the smallest A (ties: the smaller E) */
        double E, A;
        px_mc_vector(x, v, n);
        px_mc_moments(x, n, &E, &A);
        if (A < Ac || (A == Ac && E < Ec)) {
            Ac = A;
            Ec = E;
            memcpy(cur, n, sizeof cur);
        }
    }
    size_t count = 0;
    double lam = 0.0;
    for (;;) {
        px_mc_layer *ly = &out[count++];
        memcpy(ly->n, cur, sizeof cur);
        ly->rate = lam;
        ly->capacity = 1.0 / Ec;
        if (count == cap)
            break;
        double next = INFINITY, En = 0.0, An = 0.0;
        uint64_t nn[PX_MAX_CLASSES];
        for (size_t v = 0; v < V; v++) {
            double E, A;
            px_mc_vector(x, v, n);
            if (memcmp(n, cur, sizeof n[0] * (size_t)x->nclass) == 0)
                continue;
            px_mc_moments(x, n, &E, &A);
            const double hi = fmin(1.0 / E, 1.0 / Ec);
            const double l = px_mc_cross(Ac, Ec, A, E, beta, lam, hi);
            if (l < next || (l == next && E < En)) {
                next = l;
                En = E;
                An = A;
                memcpy(nn, n, sizeof nn);
            }
        }
        if (!isfinite(next))
            break;
        memcpy(cur, nn, sizeof cur);
        Ec = En;
        Ac = An;
        lam = next;
    }
    return count;
}

/* ------------------------------------------------------------------ stored arrays */

int storq_px_mc_theory(const px_ctx *x, storq_theory *out, storq_error *err)
{
    if (x->nclass < 2 || x->admission != PX_NONBLOCKING)
        return STORQ_OK; /* the paper's multi-class approximation is for non-blocking policies */
    for (int i = 0; i < x->nclass; i++)
        if (!isfinite(x->cls[i].delta) || !isfinite(x->cls[i].tau))
            return STORQ_OK; /* no Delta + Exp fit (infinite variance) */
    const size_t V = storq_px_mc_count(x);
    if (V == 0)
        return STORQ_OK; /* more code vectors than the enumeration takes */
    const double beta = storq_px_mc_beta(x);
    const size_t m = (size_t)x->nclass;
    px_mc_layer *ly = malloc(sizeof *ly * (V + 1));
    double *buf = malloc(sizeof *buf * (V + 1 + m));
    if (!ly || !buf) {
        free(ly);
        free(buf);
        return STORQ_RUNTIME_FAIL(err, "out of memory");
    }
    uint64_t K[PX_MAX_CLASSES], best[PX_MAX_CLASSES];
    for (size_t i = 0; i < m; i++)
        K[i] = x->cls[i].k;
    double E, A;
    px_mc_moments(x, K, &E, &A);
    const double full = 1.0 / E;
    const size_t nl = storq_px_mc_layers(x, beta, ly, V + 1);
    int rc = STORQ_OK;
    char name[STORQ_NAME_MAX], desc[256];
#define ADD(nm, unit, ptr, count, ...)                                                             \
    do {                                                                                           \
        snprintf(name, sizeof name, "%s", nm);                                                     \
        snprintf(desc, sizeof desc, __VA_ARGS__);                                                  \
        if (!rc)                                                                                   \
            rc = storq_theory_add(out, name, unit, desc, "", ptr, count, err);                     \
    } while (0)
    ADD("mc_beta", "1", &beta, 1,
        "beta = E[X^2]/E[X]^2 of the multi-class M/G/1 approximation: 1 + 1/k, k the smallest "
        "k_i (storq's choice; the paper leaves it open)");
    ADD("mc_full_capacity", "1/time", &full, 1,
        "C(K) = L / sum_i alpha_i u_i(k_i): total rate of the full capacity region (no coding) "
        "at these shares (approximation)");
    const int have = x->lambda < full && storq_px_mc_optimal(x, x->lambda, beta, best);
    for (size_t i = 0; i < m; i++)
        buf[i] = have ? (double)best[i] : NAN;
    ADD("mc_optimal_n", "tasks", buf, m,
        "eq. 5: the code vector (n_i, classes in order) minimising sum_i alpha_i D_s,i(n_i) + "
        "D_q at this lambda, by enumeration (NaN beyond C(K))");
    double d = have ? storq_px_mc_delay(x, best, x->lambda, beta) : NAN;
    double q = have ? storq_px_mc_queueing(x, best, x->lambda, beta) : NAN;
    double b = have ? x->lambda * q : NAN;
    ADD("mc_optimal_delay", "time", &d, 1,
        "eq. 5's minimum: sum_i alpha_i D_s,i(n_i) + D_q of mc_optimal_n (approximation)");
    ADD("mc_optimal_queueing_delay", "time", &q, 1,
        "D_q = lambda beta E^2 / (2 (1 - lambda E)), E = sum_i alpha_i u_i(n_i) / L, of "
        "mc_optimal_n (approximation)");
    ADD("mc_optimal_backlog", "requests", &b, 1,
        "lambda D_q of mc_optimal_n: the expected requests waiting, all classes (approximation)");
    for (size_t l = 0; l < nl; l++)
        buf[l] = ly[l].rate;
    ADD("mc_layer_rate", "1/time", buf, nl,
        "layers of eq. 5's optimal code vector along these shares, in order of the total rate: "
        "the rate where each starts (the first at 0)");
    for (size_t l = 0; l < nl; l++) {
        uint64_t *n = ly[l].n;
        buf[l] = ly[l].rate * storq_px_mc_queueing(x, n, ly[l].rate, beta);
    }
    ADD("mc_layer_backlog", "requests", buf, nl,
        "lambda D_q of each layer's code vector at the rate where it starts: the backlog at "
        "which eq. 5 switches to it (approximation)");
    for (size_t l = 0; l < nl; l++)
        buf[l] = ly[l].capacity;
    ADD("mc_layer_capacity", "1/time", buf, nl,
        "L / sum_i alpha_i u_i(n_i) of each layer's code vector: its capacity at these shares");
    for (size_t i = 0; i < m && !rc; i++) {
        char nm[STORQ_NAME_MAX];
        for (size_t l = 0; l < nl; l++)
            buf[l] = (double)ly[l].n[i];
        snprintf(nm, sizeof nm, "mc_layer_n_%s", x->cls[i].name);
        ADD(nm, "tasks", buf, nl, "class %s's code length n in each layer (mc_layer_rate)",
            x->cls[i].name);
    }
#undef ADD
    free(ly);
    free(buf);
    return rc;
}
