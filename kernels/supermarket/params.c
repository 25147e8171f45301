/* `supermarket`: batch sampling over n FIFO servers and its mean-field limit (MODELS.md; seed 001).
 *
 * Jobs arrive at rate n lambda; each samples L servers and sends one task to each of the k shortest
 * queues among them (ties broken uniformly at random); servers serve FIFO. Two exact engines:
 * per-server queues (any service law; sojourns and job delays) and occupancy counts (exponential
 * service; memory O(levels) for any n). See docs/models/supermarket.md. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "internal.h"
#include "meanfield.h"

#define OUTSIDE "outside the theory (service not exponential): "

static const storq_param_def smk_params[] = {
    {"n", STORQ_PARAM_INT, "1000", 1, 2147483647.0, 0, "servers", NULL,
     "number of servers"},
    {"L", STORQ_PARAM_INT, "2", 1, 1024, 0, "servers", NULL,
     "servers sampled per job (at most n)"},
    {"k", STORQ_PARAM_INT, "1", 1, 1024, 0, "tasks", NULL,
     "tasks per job, sent to the k shortest sampled queues (at most L)"},
    {"lambda", STORQ_PARAM_REAL, "0.9", 0, HUGE_VAL, 1, "1/time", NULL,
     "job arrival rate per server (jobs arrive at rate n lambda); the per-server load is "
     "lambda k E[service] (= lambda with the default service), capacity 1"},
    {"sampling", STORQ_PARAM_STRING, "without", 0, 0, 0, "", "without|with",
     "sample the L servers without replacement (a random L-subset) or with replacement"},
    {"service", STORQ_PARAM_STRING, "auto", 0, 0, 0, "time", NULL,
     "service-time law of one task (a distribution spec); auto = exp:k (mean 1/k), the law the "
     "mean-field theory assumes"},
    {"engine", STORQ_PARAM_STRING, "servers", 0, 0, 0, "", "servers|counts",
     "servers: per-server FIFO queues, any service law, sojourns and delays; counts: occupancy "
     "counts only, exponential service, memory independent of n"},
    {"mode", STORQ_PARAM_STRING, "steady", 0, 0, 0, "", "steady|transient",
     "steady: time averages after a warm-up; transient: u(t) on a time grid from --start"},
    {"warmup", STORQ_PARAM_INT, "100000", 0, HUGE_VAL, 0, "jobs", NULL,
     "jobs simulated before measuring (steady mode)"},
    {"arrivals", STORQ_PARAM_INT, "1000000", 1, HUGE_VAL, 0, "jobs", NULL,
     "measured jobs per replication (steady mode)"},
    {"horizon", STORQ_PARAM_REAL, "20", 0, HUGE_VAL, 1, "time", NULL,
     "end of the time grid (transient mode)"},
    {"grid", STORQ_PARAM_INT, "100", 1, 1000000, 0, "intervals", NULL,
     "u(t) recorded at t_j = j horizon / grid, j = 0..grid (transient mode)"},
    {"start", STORQ_PARAM_STRING, "empty", 0, 0, 0, "", NULL,
     "initial state of transient runs: empty, fill:J (every queue holds J tasks) or "
     "u:U1,U2,... (fraction of queues with at least i tasks)"},
    {"levels", STORQ_PARAM_INT, "0", 0, 100000, 0, "levels", NULL,
     "occupancy levels 0..levels-1 reported; 0 = auto (until the fixed point falls below 1e-10, "
     "at least 8, at least the start's depth + 1; 64 at a load >= 1)"},
    {NULL, 0, NULL, 0, 0, 0, NULL, NULL, NULL},
};

static void smk_release(void *vctx)
{
    smk_ctx *c = vctx;
    if (!c)
        return;
    storq_dist_free(&c->service);
    free(c->start_N);
    free(c);
}

static int smk_prepare(const storq_params *p, void **out, storq_error *err)
{
    *out = NULL;
    smk_ctx *c = calloc(1, sizeof *c);
    if (!c)
        return STORQ_RUNTIME_FAIL(err, "out of memory");
    int rc = STORQ_OK;
    int have_service = 0;

    c->n = (uint64_t)storq_param_int(p, "n");
    c->L = (unsigned)storq_param_int(p, "L");
    c->k = (unsigned)storq_param_int(p, "k");
    c->lambda = storq_param_real(p, "lambda");
    c->with_replacement = strcmp(storq_param_string(p, "sampling"), "with") == 0;
    c->engine = strcmp(storq_param_string(p, "engine"), "counts") == 0 ? SMK_ENGINE_COUNTS
                                                                        : SMK_ENGINE_SERVERS;
    c->mode = strcmp(storq_param_string(p, "mode"), "transient") == 0 ? SMK_MODE_TRANSIENT
                                                                       : SMK_MODE_STEADY;
    c->warmup = (uint64_t)storq_param_int(p, "warmup");
    c->arrivals = (uint64_t)storq_param_int(p, "arrivals");
    c->horizon = storq_param_real(p, "horizon");
    c->grid = (size_t)storq_param_int(p, "grid");
    int64_t levels = storq_param_int(p, "levels");
    const char *start = storq_param_string(p, "start");
    snprintf(c->start_spec, sizeof c->start_spec, "%s", start);

    if (c->k > c->L) {
        rc = storq_fail(err, STORQ_ERR_USAGE, "--k: %u exceeds --L %u; k must be at most L",
                        c->k, c->L);
        goto fail;
    }
    if (c->L > c->n) {
        rc = storq_fail(err, STORQ_ERR_USAGE,
                        "--L: %u exceeds --n %llu; at most n servers can be sampled", c->L,
                        (unsigned long long)c->n);
        goto fail;
    }

    const char *svc = storq_param_string(p, "service");
    char spec[64];
    if (strcmp(svc, "auto") == 0) {
        snprintf(spec, sizeof spec, "exp:%u", c->k);
        svc = spec;
    }
    rc = storq_dist_parse(svc, "--service", &c->service, err);
    if (rc)
        goto fail;
    have_service = 1;
    c->service_exp = storq_dist_is_exp(&c->service);
    if (c->service_exp) {
        c->mu = c->service.kind == STORQ_DIST_EXP ? c->service.p[0] : 1.0 / c->service.mean;
        c->load = c->lambda * (double)c->k / c->mu;
    } else {
        c->mu = 1.0 / c->service.mean;
        c->load = c->lambda * (double)c->k * c->service.mean;
    }
    if (!(c->service.mean > 0.0) || !isfinite(c->service.mean)) {
        rc = storq_fail(err, STORQ_ERR_USAGE,
                        "--service: '%s' must have a finite positive mean", c->service.spec);
        goto fail;
    }
    if (c->engine == SMK_ENGINE_COUNTS && !c->service_exp) {
        rc = storq_fail(err, STORQ_ERR_USAGE,
                        "--engine: counts needs exponential service (got --service %s); use "
                        "--engine servers for other service laws",
                        c->service.spec);
        goto fail;
    }
    if (c->mode == SMK_MODE_STEADY && c->load >= 1.0) {
        double cap = 1.0 / ((double)c->k * (c->service_exp ? 1.0 / c->mu : c->service.mean));
        if (!p->allow_unstable) {
            rc = storq_fail(err, STORQ_ERR_USAGE,
                            "--lambda: %g gives a per-server load lambda k E[service] = %g, at or "
                            "above the capacity 1 (lambda must be below %g with --k %u and "
                            "--service %s); there is no steady state. Lower --lambda or pass "
                            "--allow-unstable",
                            c->lambda, c->load, cap, c->k, c->service.spec);
            goto fail;
        }
        storq_warn("supermarket: --lambda %g gives a per-server load %g >= capacity 1; queues grow "
                   "without bound and the steady-state figures mean nothing (--allow-unstable)",
                   c->lambda, c->load);
    }
    if (c->mode == SMK_MODE_TRANSIENT) {
        rc = smk_parse_start(start, c->n, &c->start_N, &c->start_depth, err);
        if (rc)
            goto fail;
    } else if (strcmp(start, "empty") != 0) {
        rc = storq_fail(err, STORQ_ERR_USAGE,
                        "--start: '%s' applies to --mode transient only; steady runs always "
                        "start empty",
                        start);
        goto fail;
    }
    if (levels == 0) {
        /* at a load >= 1 there is no fixed point to size the levels by: 64 (set --levels to see
         * deeper) */
        size_t a = c->load < 1.0 ? sm_auto_levels((int)c->L, (int)c->k, c->load, 1e-10, 10000)
                                 : 64;
        c->levels = a < 8 ? 8 : a;
        if (c->mode == SMK_MODE_TRANSIENT && c->levels < c->start_depth + 1)
            c->levels = c->start_depth + 1;
    } else {
        c->levels = (size_t)levels;
    }
    if (!c->service_exp)
        storq_warn("supermarket: --service %s is not exponential: outside the mean-field theory "
                   "(which assumes exponential service); theory arrays are computed at the same "
                   "load %g and marked as such",
                   c->service.spec, c->load);
    *out = c;
    return STORQ_OK;

fail:
    if (!have_service)
        memset(&c->service, 0, sizeof c->service);
    smk_release(c);
    return rc;
}

static int smk_declare(void *vctx, storq_observables *obs, storq_error *err)
{
    smk_ctx *c = vctx;
    size_t nl = c->levels;
    int rc = STORQ_OK;
    c->id_u = c->id_nvar = c->id_mql = c->id_aql = -1;
    c->id_sojourn = c->id_delay = c->id_msojourn = c->id_mdelay = -1;
    c->id_ut = c->id_mqlt = -1;

    if (c->mode == SMK_MODE_STEADY) {
        double *axis = malloc(sizeof *axis * nl);
        if (!axis)
            return STORQ_RUNTIME_FAIL(err, "out of memory");
        for (size_t i = 0; i < nl; i++)
            axis[i] = (double)i;
        rc = storq_declare_vector(
            obs, &c->id_u, "u", "1",
            "fraction of queues with at least i tasks, time-averaged over the measurement window "
            "(u_0 = 1)",
            nl, "level", axis, err);
        if (!rc)
            rc = storq_declare_vector(
                obs, &c->id_nvar, "n_var_u", "1",
                "n times the time variance of u_i(t) over the measurement window", nl, "level",
                axis, err);
        free(axis);
        STORQ_TRY(rc);
        STORQ_TRY(storq_declare_scalar(obs, &c->id_mql, "mean_queue_length", "tasks",
                                       "time-averaged tasks per server, sum_{i>=1} u_i", err));
        STORQ_TRY(storq_declare_hist_int(
            obs, &c->id_aql, "arrival_queue_length", "tasks",
            "queue length each arriving task of a measured job finds at its server, before "
            "joining",
            nl, err));
        if (c->engine != SMK_ENGINE_SERVERS)
            return STORQ_OK;
        STORQ_TRY(storq_declare_hist_loglin(
            obs, &c->id_sojourn, "task_sojourn", "time",
            "time from a measured task's arrival to the end of its service", 1e-6, 1e6, 7, err));
        STORQ_TRY(storq_declare_hist_loglin(
            obs, &c->id_delay, "job_delay", "time",
            "time from a measured job's arrival to the completion of its last task", 1e-6, 1e6,
            7, err));
        STORQ_TRY(storq_declare_scalar(obs, &c->id_msojourn, "mean_task_sojourn", "time",
                                       "mean sojourn of the measured tasks", err));
        return storq_declare_scalar(obs, &c->id_mdelay, "mean_job_delay", "time",
                                    "mean delay of the measured jobs", err);
    }

    size_t rows = c->grid + 1;
    double *axis = malloc(sizeof *axis * rows);
    if (!axis)
        return STORQ_RUNTIME_FAIL(err, "out of memory");
    for (size_t j = 0; j < rows; j++)
        axis[j] = smk_grid_time(c, j);
    rc = storq_declare_matrix(
        obs, &c->id_ut, "u_t", "1",
        "u_i(t_j): fraction of queues with at least i tasks at grid time t_j (rows: times, "
        "columns: levels i = 0..levels-1)",
        rows, nl, "t", axis, err);
    if (!rc)
        rc = storq_declare_vector(obs, &c->id_mqlt, "mean_queue_length_t", "tasks",
                                  "tasks per server at grid time t_j", rows, "t", axis, err);
    free(axis);
    return rc;
}

static int smk_replicate(const void *vctx, const storq_stream_key *key, storq_record *rec,
                         storq_error *err)
{
    const smk_ctx *c = vctx;
    if (c->engine == SMK_ENGINE_COUNTS)
        return smk_run_counts(c, key, rec, NULL, err);
    return smk_run_servers(c, key, rec, NULL, err);
}

/* ---- theory ---- */

static int add(storq_theory *t, const smk_ctx *c, const char *name, const char *unit,
               const char *desc, const char *grid, const double *data, size_t len,
               storq_error *err)
{
    char d[256];
    snprintf(d, sizeof d, "%s%s", c->service_exp ? "" : OUTSIDE, desc);
    return storq_theory_add(t, name, unit, d, grid, data, len, err);
}

static int smk_theory(const void *vctx, storq_theory *out, storq_error *err)
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
        fv[i] = sm_f(L, k, fx[i]);
    }
    STORQ_TRY(add(out, c, "f_x", "1", "abscissae x of f", "", fx, 101, err));
    STORQ_TRY(add(out, c, "f", "1",
                  "f(x) = sum_{j=L-k+1..L} (j-L+k) C(L,j) x^j (1-x)^(L-j): expected number of "
                  "the k chosen queues at or above a level each sampled queue reaches with "
                  "probability x",
                  "f_x", fv, 101, err));

    if (lam < 1.0) {
        size_t deep = sm_auto_levels(L, k, lam, 1e-17, 100000);
        if (deep < nl)
            deep = nl;
        buf = malloc(sizeof *buf * (deep + 2 * nl));
        if (!buf)
            return STORQ_RUNTIME_FAIL(err, "out of memory");
        double *u = buf, *lo = buf + deep, *hi = lo + nl;
        sm_fixed_point(L, k, lam, deep, u);
        sm_tail_bounds(L, k, lam, nl, lo, hi);
        const char *g = c->mode == SMK_MODE_STEADY ? "u" : "";
        double mql = 0.0;
        for (size_t i = deep; i-- > 1;)
            mql += u[i];
        double soj = mql / (c->lambda * (double)k);
        if ((rc = add(out, c, "u", "1",
                      "mean-field fixed point u_0 = 1, u_i = (lambda/k) f(u_{i-1}) (lambda: the "
                      "per-server load)",
                      g, u, nl, err)) ||
            (rc = add(out, c, "u_lower", "1",
                      "lower tail bound lambda^(((L-k+1)^i - 1)/(L-k)) of the fixed point", g, lo,
                      nl, err)) ||
            (rc = add(out, c, "u_upper", "1",
                      "upper tail bound lambda^((r^i - 1)/(r - 1)), r = L/k, of the fixed point",
                      g, hi, nl, err)) ||
            (rc = add(out, c, "mean_queue_length", "tasks",
                      "mean-field tasks per server, sum_{i>=1} u_i",
                      c->mode == SMK_MODE_STEADY ? "mean_queue_length" : "", &mql, 1, err)) ||
            (rc = add(out, c, "mean_task_sojourn", "time",
                      "mean-field task sojourn by Little's law: mean_queue_length / (lambda k)",
                      c->mode == SMK_MODE_STEADY && c->engine == SMK_ENGINE_SERVERS
                          ? "mean_task_sojourn"
                          : "",
                      &soj, 1, err)))
            goto done;
        free(buf);
        buf = NULL;
    }

    if (c->mode == SMK_MODE_TRANSIENT) {
        /* The ODE runs deep enough for the start and for the fixed point's mass, and reports the
         * first `levels` columns. Time in the theory's units: service rate k. */
        size_t depth = c->start_depth + 1;
        size_t extra = lam < 1.0 ? sm_auto_levels(L, k, lam, 1e-10, 10000) : 64;
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
        if (sm_ode_solve(L, k, lam, u0, nd, tt, rows, ode)) {
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
        if ((rc = add(out, c, "u_t", "1",
                      "mean-field ODE du_i/dt = lambda [f(u_{i-1}) - f(u_i)] - k (u_i - u_{i+1}) "
                      "from the same start (the realised fractions round(n U_i)/n), on the same "
                      "time grid",
                      "u_t", ut, rows * nl, err)) ||
            (rc = add(out, c, "mean_queue_length_t", "tasks",
                      "sum_{i>=1} u_i(t_j) of the mean-field ODE", "mean_queue_length_t", mq,
                      rows, err)))
            goto done;
    }

done:
    free(buf);
    return rc;
}

/* ---- comparison ---- */

static int smk_compare(const void *vctx, const storq_summary *sim, const storq_theory *theory,
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
        if ((rc = add(out, c, "u_l1", "1", "sum_i |mean u_i - fixed point u_i|", "", &l1, 1,
                      err)) ||
            (rc = add(out, c, "u_linf", "1", "max_i |mean u_i - fixed point u_i|", "", &linf, 1,
                      err)) ||
            (rc = add(out, c, "u_n_diff", "1", "n (mean u_i - fixed point u_i)", "u", buf, nl,
                      err)) ||
            (rc = add(out, c, "u_n_diff_ci95", "1",
                      "n times the 95% CI half-width of mean u_i (the noise in u_n_diff)", "u",
                      buf + nl, nl, err)) ||
            (rc = add(out, c, "u_l1_noise", "1",
                      "sum_i of the 95% CI half-widths of mean u_i: the part of u_l1 that noise "
                      "alone can explain",
                      "", &noise, 1, err))) {
        }
        free(buf);
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
    return add(out, c, "u_t_linf", "1",
               "max over grid times and levels of |mean u_i(t_j) - ODE u_i(t_j)|", "", &linf, 1,
               err);
}

static double smk_cost(const void *vctx)
{
    const smk_ctx *c = vctx;
    double init = c->engine == SMK_ENGINE_SERVERS ? (double)c->n : 0.0;
    double per_job = 1.0 + (double)c->k + 0.25 * (double)c->L;
    if (c->mode == SMK_MODE_STEADY)
        return (double)(c->warmup + c->arrivals) * per_job + init;
    return (double)c->n * c->horizon * c->lambda * per_job + init;
}

const storq_model storq_model_supermarket = {
    .name = "supermarket",
    .summary = "batch sampling: jobs of k tasks to the k shortest of L sampled FIFO queues among n "
               "servers, with its mean-field limit",
    .params = smk_params,
    .prepare = smk_prepare,
    .release = smk_release,
    .declare = smk_declare,
    .replicate = smk_replicate,
    .theory = smk_theory,
    .compare = smk_compare,
    .cost = smk_cost,
};
