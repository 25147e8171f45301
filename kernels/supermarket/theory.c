/* `supermarket` theory: the mean-field limit stored beside a run and the comparison of the
 * simulation with it (docs/models/supermarket-theory.md; "Steady-state behavior of some load
 * balancing mechanisms in cloud storage systems"). The numerics -- the drift f, the fixed point,
 * its tail bounds and the ODE solver -- are in meanfield.c; here they are evaluated at the point's
 * parameters and named. With non-exponential service every array is computed at the same load and
 * its description says it is outside the theory. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "erlang.h"
#include "internal.h"
#include "jobdelay.h"
#include "meanfield.h"
#include "memory.h"
#include "refined.h"

/* Most levels for which V(t) of a transient run is computed (a d x d W per RK4 stage). */
#define SMK_REFINED_T_MAX 64

#define SMK_POOLED_MAX 100000000 /* servers: the pooled M/M/n's Erlang C recursion is O(n) */
#define REFINED "refined mean field (Gast-Van Houdt 2017), approximate: "
#define OUTSIDE "outside the theory (service not exponential): "

/* Add a theory array, its description marked when the service makes it outside the theory. */
static int add_marked(storq_theory *t, const smk_ctx *c, const char *name, const char *unit,
                      const char *desc, const char *grid, const double *data, size_t len,
                      storq_error *err)
{
    char d[256];
    snprintf(d, sizeof d, "%s%s", c->service_exp ? "" : OUTSIDE, desc);
    return storq_theory_add(t, name, unit, d, grid, data, len, err);
}

/* ---- refined mean field (refined.c): the 1/n term ---- */


static const char *sampling_name(const smk_ctx *c)
{
    return c->with_replacement ? "sampling with replacement" : "sampling without replacement";
}

/* V at a capacity of `deep` levels and, as the truncation check, at twice that; then V, u + V/n,
 * the mean queue length and the mean task sojourn (Little) refined the same way. Nothing is added
 * where V cannot be computed (A unstable, or too many levels for the dense Lyapunov solve). */
static int add_refined(storq_theory *out, const smk_ctx *c, const double *u, size_t deep,
                       storq_error *err)
{
    const int L = (int)c->L, k = (int)c->k, without = !c->with_replacement;
    const double lam = c->load, n = (double)c->n;
    const size_t nl = c->levels;
    double *V = calloc(3 * deep + 2 + nl, sizeof *V);
    if (!V)
        return STORQ_RUNTIME_FAIL(err, "out of memory");
    double *V2 = V + deep, *ur = V2 + 2 * deep + 1;
    storq_sm_refined_info inf;
    int r1 = storq_sm_refined_steady(L, k, lam, without, deep - 1, V, NULL, &inf);
    int r2 = r1 ? r1 : storq_sm_refined_steady(L, k, lam, without, 2 * deep, V2, NULL, NULL);
    int rc = STORQ_OK;
    if (r1 == -1 || r2 == -1) {
        rc = STORQ_RUNTIME_FAIL(err, "out of memory");
        goto done;
    }
    if (r1 || r2)
        goto done;
    double trunc = 0.0, mq = 0.0, vq = 0.0;
    for (size_t i = 0; i <= 2 * deep; i++)
        trunc = fmax(trunc, fabs((i < deep ? V[i] : 0.0) - V2[i]));
    for (size_t i = deep; i-- > 1;) {
        mq += u[i];
        vq += V[i];
    }
    for (size_t i = 0; i < nl; i++)
        ur[i] = u[i] + V[i] / n;
    double mqr = mq + vq / n, sojr = mqr / (c->lambda * (double)k);
    char d1[176], d2[176];
    snprintf(d1, sizeof d1,
             REFINED "V_i, the 1/n coefficient of E[u^n_i] = u_i + V_i/n + O(1/n^2) (%s)",
             sampling_name(c));
    snprintf(d2, sizeof d2, REFINED "u_i + V_i/n at this point's n (%s)", sampling_name(c));
    if ((rc = add_marked(out, c, "V", "1", d1, "u", V, nl, err)) ||
        (rc = add_marked(out, c, "u_refined", "1", d2, "u", ur, nl, err)) ||
        (rc = add_marked(out, c, "mean_queue_length_V", "tasks",
                         REFINED "sum_{i>=1} V_i, the 1/n coefficient of the mean queue length",
                         "", &vq, 1, err)) ||
        (rc = add_marked(out, c, "mean_queue_length_refined", "tasks",
                         REFINED "sum_{i>=1} (u_i + V_i/n)", "mean_queue_length", &mqr, 1,
                         err)) ||
        (rc = add_marked(out, c, "mean_task_sojourn_refined", "time",
                         REFINED "mean_queue_length_refined / (lambda k) (Little's law)",
                         c->engine == SMK_ENGINE_SERVERS ? "mean_task_sojourn" : "", &sojr, 1,
                         err)) ||
        (rc = add_marked(out, c, "V_truncation", "1",
                         "max_i |V_i at the levels used - V_i at twice as many levels|: the "
                         "truncation error of V",
                         "", &trunc, 1, err)) ||
        (rc = add_marked(out, c, "V_lyapunov_residual", "1",
                         "max |A W + W A^T + Q| / max |Q| of the Lyapunov solve behind V (0 when "
                         "f is linear and W is not needed)",
                         "", &inf.lyap_residual, 1, err)))
        goto done;
done:
    free(V);
    return rc;
}

/* The transient theory: the ODE's grid x depth matrix and the reported grid x levels (and their
 * copies in the theory's arrays), with V(t) beside them at up to SMK_REFINED_T_MAX levels. */
static size_t transient_bytes(const smk_ctx *c)
{
    const size_t nl = c->levels, depth = c->start_depth + 1, rows = c->grid + 1;
    const size_t extra = c->load < 1.0 ? storq_sm_auto_levels((int)c->L, (int)c->k, c->load,
                                                              1e-10, 10000)
                                       : 64;
    const size_t nd = nl > depth + extra ? nl : depth + extra;
    const size_t grid_nd = storq_bytes_mul(rows, nd), grid_nl = storq_bytes_mul(rows, nl);
    size_t doubles = storq_bytes_add(storq_bytes_add(nd, 3 * rows),
                                     storq_bytes_add(grid_nd, storq_bytes_mul(grid_nl, 2)));
    if (nd - 1 <= SMK_REFINED_T_MAX)
        doubles = storq_bytes_add(doubles, storq_bytes_add(grid_nd, storq_bytes_mul(grid_nl, 4)));
    return storq_bytes_mul(doubles, sizeof(double));
}

size_t storq_smk_theory_bytes(const smk_ctx *c)
{
    if (c->mode == SMK_MODE_TRANSIENT)
        return transient_bytes(c);
    if (!(c->load < 1.0))
        return 0;
    size_t deep = storq_sm_auto_levels((int)c->L, (int)c->k, c->load, 1e-17, 100000);
    if (deep < c->levels)
        deep = c->levels;
    /* storq_sm_refined_steady at d = deep - 1, then 2 deep: the d x d Jacobian; with W (k < L)
     * also the noise, W and Smith's 5 work matrices, but only up to STORQ_SM_REFINED_MAX_DIM */
    const int need_w = c->k < c->L && c->L >= 2;
    const size_t dims[2] = {deep - 1, 2 * deep};
    size_t worst = 0;
    for (int i = 0; i < 2; i++) {
        if (need_w && dims[i] > STORQ_SM_REFINED_MAX_DIM)
            continue;
        const size_t b = storq_bytes_mul(storq_bytes_mul(dims[i], dims[i]),
                                         (need_w ? 8 : 1) * sizeof(double));
        worst = b > worst ? b : worst;
    }
    return storq_bytes_add(worst, storq_bytes_mul(5 * deep + 2 * c->levels, sizeof(double)));
}

int storq_smk_theory(const void *vctx, storq_theory *out, storq_error *err)
{
    const smk_ctx *c = vctx;
    const int L = (int)c->L, k = (int)c->k;
    const double lam = c->load; /* lambda in the units of the theory (service rate k) */
    const size_t nl = c->levels;
    int rc = STORQ_OK;
    double *buf = NULL;

    /* f on [0, 1] */
    double fx[101], fv[101];
    for (int i = 0; i <= 100; i++) {
        fx[i] = i / 100.0;
        fv[i] = storq_sm_f(L, k, fx[i]);
    }
    STORQ_TRY(add_marked(out, c, "f_x", "1", "abscissae x of f", "", fx, 101, err));
    STORQ_TRY(add_marked(out, c, "f", "1",
                         "f(x) = sum_{j=L-k+1..L} (j-L+k) C(L,j) x^j (1-x)^(L-j): expected "
                         "number of the k chosen queues at or above a level each sampled queue "
                         "reaches with probability x",
                         "f_x", fv, 101, err));

    if (lam < 1.0) {
        size_t deep = storq_sm_auto_levels(L, k, lam, 1e-17, 100000);
        if (deep < nl)
            deep = nl;
        buf = malloc(sizeof *buf * (deep + 2 * nl));
        if (!buf)
            return STORQ_RUNTIME_FAIL(err, "out of memory");
        double *u = buf, *lo = buf + deep, *hi = lo + nl;
        storq_sm_fixed_point(L, k, lam, deep, u);
        storq_sm_tail_bounds(L, k, lam, nl, lo, hi);
        const char *g = c->mode == SMK_MODE_STEADY ? "u" : "";
        double mql = 0.0;
        for (size_t i = deep; i-- > 1;)
            mql += u[i];
        double soj = mql / (c->lambda * (double)k);
        if ((rc = add_marked(out, c, "u", "1",
                             "mean-field fixed point u_0 = 1, u_i = (lambda/k) f(u_{i-1}) "
                             "(lambda: the per-server load)",
                             g, u, nl, err)) ||
            (rc = add_marked(out, c, "u_lower", "1",
                             "lower tail bound lambda^(((L-k+1)^i - 1)/(L-k)) of the fixed point",
                             g, lo, nl, err)) ||
            (rc = add_marked(out, c, "u_upper", "1",
                             "upper tail bound lambda^((r^i - 1)/(r - 1)), r = L/k, of the fixed "
                             "point",
                             g, hi, nl, err)) ||
            (rc = add_marked(out, c, "mean_queue_length", "tasks",
                             "mean-field tasks per server, sum_{i>=1} u_i",
                             c->mode == SMK_MODE_STEADY ? "mean_queue_length" : "", &mql, 1,
                             err)) ||
            (rc = add_marked(out, c, "mean_task_sojourn", "time",
                             "mean-field task sojourn by Little's law: mean_queue_length / "
                             "(lambda k)",
                             c->mode == SMK_MODE_STEADY && c->engine == SMK_ENGINE_SERVERS
                                 ? "mean_task_sojourn"
                                 : "",
                             &soj, 1, err)))
            goto done;
        /* with one task a job's delay is its task's sojourn: the same figure, beside the job
         * delay the servers engine measures */
        if (k == 1 && c->mode == SMK_MODE_STEADY && c->engine == SMK_ENGINE_SERVERS &&
            (rc = add_marked(out, c, "mean_job_delay", "time",
                             "mean-field job delay: with k = 1 a job is its one task, so this is "
                             "mean_task_sojourn",
                             "mean_job_delay", &soj, 1, err)))
            goto done;
        /* the pooled queue every dispatching policy sits above: one FCFS queue for the n servers
         * (M/M/n at the same load), k = 1 and exponential service; its O(n) recursion up to
         * SMK_POOLED_MAX servers */
        if (k == 1 && c->service_exp && c->mode == SMK_MODE_STEADY && c->n <= SMK_POOLED_MAX) {
            const double n = (double)c->n;
            double pooled = storq_mmc_mean_sojourn(c->n, n * c->load * c->mu, c->mu);
            if (isfinite(pooled) &&
                (rc = storq_theory_add(out, "pooled_mmn_mean_sojourn", "time",
                                       "M/M/n at the same n and load (one FCFS queue for the n "
                                       "servers, Erlang C): the mean delay no dispatching policy "
                                       "goes below",
                                       "", &pooled, 1, err)))
                goto done;
        }
        /* k > 1: the largest of the k tasks' sojourns, the k shortest of L sampled queues
         * (jobdelay.c); exponential service only (the Erlang sojourns need it) */
        if (k > 1 && c->service_exp && c->L <= 64 && c->mode == SMK_MODE_STEADY &&
            c->engine == SMK_ENGINE_SERVERS) {
            double jd = storq_sm_job_delay_mean(L, k, c->mu, u, deep);
            if (isfinite(jd) &&
                (rc = storq_theory_add(out, "mean_job_delay", "time",
                                       "mean-field job delay: the largest of the k tasks' "
                                       "Erlang(Q + 1, mu) sojourns, Q the lengths of the k "
                                       "shortest of L sampled queues (i.i.d., P(Q >= i) = u_i)",
                                       "mean_job_delay", &jd, 1, err)))
                goto done;
        }
        if (c->mode == SMK_MODE_STEADY && (rc = add_refined(out, c, u, deep, err)))
            goto done;
        free(buf);
        buf = NULL;
    }

    if (c->mode == SMK_MODE_TRANSIENT) {
        /* The ODE runs deep enough for the start and for the fixed point's mass, and reports the
         * first `levels` columns. Time in the theory's units: service rate k. */
        size_t depth = c->start_depth + 1;
        size_t extra = lam < 1.0 ? storq_sm_auto_levels(L, k, lam, 1e-10, 10000) : 64;
        size_t nd = nl;
        if (nd < depth + extra)
            nd = depth + extra;
        size_t rows = c->grid + 1;
        buf = malloc(sizeof *buf * (nd + 2 * rows + rows * nd + rows * nl));
        if (!buf)
            return STORQ_RUNTIME_FAIL(err, "out of memory");
        double *u0 = buf, *tt = u0 + nd, *mq = tt + rows, *ode = mq + rows, *ut = ode + rows * nd;
        for (size_t i = 0; i < nd; i++)
            u0[i] = i <= c->start_depth ? (double)c->start_N[i] / (double)c->n : 0.0;
        u0[0] = 1.0;
        double scale = c->mu / (double)k;
        for (size_t j = 0; j < rows; j++)
            tt[j] = smk_grid_time(c, j) * scale;
        if (storq_sm_ode_solve(L, k, lam, u0, nd, tt, rows, ode)) {
            rc = STORQ_RUNTIME_FAIL(err, "mean-field ODE solver failed (out of memory)");
            goto done;
        }
        for (size_t j = 0; j < rows; j++) {
            double s = 0.0;
            for (size_t i = nd; i-- > 1;)
                s += ode[j * nd + i];
            mq[j] = s;
            memcpy(ut + j * nl, ode + j * nd, sizeof *ut * nl);
        }
        if ((rc = add_marked(out, c, "u_t", "1",
                             "mean-field ODE du_i/dt = lambda [f(u_{i-1}) - f(u_i)] - k (u_i - "
                             "u_{i+1}) from the same start (the realised fractions round(n "
                             "U_i)/n), on the same time grid",
                             "u_t", ut, rows * nl, err)) ||
            (rc = add_marked(out, c, "mean_queue_length_t", "tasks",
                             "sum_{i>=1} u_i(t_j) of the mean-field ODE", "mean_queue_length_t",
                             mq, rows, err)))
            goto done;
        /* Refined: V(t) along the trajectory in a system of capacity nd - 1 (dense W: only for
         * up to SMK_REFINED_T_MAX levels). */
        if (nd - 1 <= SMK_REFINED_T_MAX) {
            double *vt = malloc(sizeof *vt * (rows * nd + 2 * rows * nl + rows));
            if (!vt) {
                rc = STORQ_RUNTIME_FAIL(err, "out of memory");
                goto done;
            }
            double *Vn = vt + rows * nd, *ur = Vn + rows * nl, *mr = ur + rows * nl;
            if (storq_sm_refined_transient(L, k, lam, !c->with_replacement, u0, nd - 1, tt, rows,
                                           storq_sm_ode_step(L, k, lam), vt)) {
                free(vt);
                rc = STORQ_RUNTIME_FAIL(err, "refined mean-field solver failed (out of memory)");
                goto done;
            }
            for (size_t j = 0; j < rows; j++) {
                double s = 0.0;
                for (size_t i = nd; i-- > 1;)
                    s += vt[j * nd + i];
                mr[j] = mq[j] + s / (double)c->n;
                for (size_t i = 0; i < nl; i++) {
                    Vn[j * nl + i] = vt[j * nd + i];
                    ur[j * nl + i] = ut[j * nl + i] + vt[j * nd + i] / (double)c->n;
                }
            }
            if ((rc = add_marked(out, c, "V_t", "1",
                                 REFINED "V_i(t), the 1/n coefficient of E[u^n_i(t)], dV/dt = A V + "
                                 "D^2 f : W / 2 + f_1, V(0) = W(0) = 0",
                                 "u_t", Vn, rows * nl, err)) ||
                (rc = add_marked(out, c, "u_t_refined", "1", REFINED "u_i(t) + V_i(t)/n", "u_t",
                                 ur, rows * nl, err)) ||
                (rc = add_marked(out, c, "mean_queue_length_t_refined", "tasks",
                                 REFINED "sum_{i>=1} (u_i(t) + V_i(t)/n)", "mean_queue_length_t",
                                 mr, rows, err))) {
                free(vt);
                goto done;
            }
            free(vt);
        }
    }

done:
    free(buf);
    return rc;
}

/* ---- comparison ---- */

/* Simulation minus the refined estimate, with its CI, and n^2 times it: what the 1/n term leaves
 * (O(1/n^2) if the expansion holds). */
static int compare_refined(const smk_ctx *c, const storq_summary *sim, const storq_theory *theory,
                           storq_theory *out, storq_error *err)
{
    const size_t nl = c->levels;
    const double n = (double)c->n;
    const storq_obs_def *d = storq_obs_find(sim->schema, "u");
    const storq_array *th = storq_theory_find(theory, "u_refined");
    if (!d || !th || th->len != nl)
        return STORQ_OK;
    const double *m = sim->mean + d->value_offset, *ci = sim->ci95 + d->value_offset;
    double *buf = malloc(sizeof *buf * 3 * nl);
    if (!buf)
        return STORQ_RUNTIME_FAIL(err, "out of memory");
    for (size_t i = 0; i < nl; i++) {
        buf[i] = m[i] - th->data[i];
        buf[nl + i] = ci[i];
        buf[2 * nl + i] = n * n * buf[i];
    }
    int rc;
    if ((rc = add_marked(out, c, "u_refined_diff", "1",
                         "mean u_i - refined u_i + V_i/n (" REFINED "O(1/n^2) if it holds)", "u",
                         buf, nl, err)) ||
        (rc = add_marked(out, c, "u_refined_diff_ci95", "1",
                         "95% CI half-width of mean u_i (the noise in u_refined_diff)", "u",
                         buf + nl, nl, err)) ||
        (rc = add_marked(out, c, "u_refined_n2_diff", "1", "n^2 (mean u_i - refined u_i)", "u",
                         buf + 2 * nl, nl, err)))
        goto done;
    const storq_obs_def *dq = storq_obs_find(sim->schema, "mean_queue_length");
    const storq_array *tq = storq_theory_find(theory, "mean_queue_length_refined");
    if (dq && tq && tq->len == 1) {
        double v[3];
        v[0] = sim->mean[dq->value_offset] - tq->data[0];
        v[1] = sim->ci95[dq->value_offset];
        v[2] = n * n * v[0];
        if ((rc = add_marked(out, c, "mean_queue_length_refined_diff", "tasks",
                             "mean queue length - refined (" REFINED "O(1/n^2) if it holds)", "",
                             v, 1, err)) ||
            (rc = add_marked(out, c, "mean_queue_length_refined_diff_ci95", "tasks",
                             "95% CI half-width of the mean queue length", "", v + 1, 1, err)) ||
            (rc = add_marked(out, c, "mean_queue_length_refined_n2_diff", "tasks",
                             "n^2 (mean queue length - refined)", "", v + 2, 1, err)))
            goto done;
    }
done:
    free(buf);
    return rc;
}

int storq_smk_compare(const void *vctx, const storq_summary *sim, const storq_theory *theory,
                storq_theory *out, storq_error *err)
{
    const smk_ctx *c = vctx;
    const size_t nl = c->levels;
    const double n = (double)c->n;
    if (c->mode == SMK_MODE_STEADY) {
        const storq_obs_def *d = storq_obs_find(sim->schema, "u");
        const storq_array *th = storq_theory_find(theory, "u");
        if (!d || !th || th->len != nl)
            return STORQ_OK;
        const double *m = sim->mean + d->value_offset, *ci = sim->ci95 + d->value_offset;
        double *buf = malloc(sizeof *buf * 2 * nl);
        if (!buf)
            return STORQ_RUNTIME_FAIL(err, "out of memory");
        double l1 = 0.0, linf = 0.0, noise = 0.0;
        for (size_t i = 0; i < nl; i++) {
            double diff = m[i] - th->data[i];
            l1 += fabs(diff);
            if (fabs(diff) > linf)
                linf = fabs(diff);
            noise += ci[i];
            buf[i] = n * diff;
            buf[nl + i] = n * ci[i];
        }
        int rc;
        if ((rc = add_marked(out, c, "u_l1", "1", "sum_i |mean u_i - fixed point u_i|", "", &l1,
                             1, err)) ||
            (rc = add_marked(out, c, "u_linf", "1", "max_i |mean u_i - fixed point u_i|", "",
                             &linf, 1, err)) ||
            (rc = add_marked(out, c, "u_n_diff", "1", "n (mean u_i - fixed point u_i)", "u", buf,
                             nl, err)) ||
            (rc = add_marked(out, c, "u_n_diff_ci95", "1",
                             "n times the 95% CI half-width of mean u_i (the noise in u_n_diff)",
                             "u", buf + nl, nl, err)) ||
            (rc = add_marked(out, c, "u_l1_noise", "1",
                             "sum_i of the 95% CI half-widths of mean u_i: the part of u_l1 that "
                             "noise alone can explain",
                             "", &noise, 1, err))) {
        }
        free(buf);
        if (rc == STORQ_OK)
            rc = compare_refined(c, sim, theory, out, err);
        return rc;
    }
    const storq_obs_def *d = storq_obs_find(sim->schema, "u_t");
    const storq_array *th = storq_theory_find(theory, "u_t");
    size_t len = (c->grid + 1) * nl;
    if (!d || !th || th->len != len)
        return STORQ_OK;
    const double *m = sim->mean + d->value_offset;
    double linf = 0.0;
    for (size_t i = 0; i < len; i++)
        if (fabs(m[i] - th->data[i]) > linf)
            linf = fabs(m[i] - th->data[i]);
    return add_marked(out, c, "u_t_linf", "1",
                      "max over grid times and levels of |mean u_i(t_j) - ODE u_i(t_j)|", "",
                      &linf, 1, err);
}
