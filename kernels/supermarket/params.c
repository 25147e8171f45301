/* `supermarket` parameters: batch sampling over n FIFO servers and its mean-field limit
 * (docs/models/supermarket.md; "Steady-state behavior of some load balancing mechanisms in cloud
 * storage systems").
 *
 * Jobs arrive at rate n lambda; each samples L servers and sends one task to each of the k shortest
 * queues among them (ties broken uniformly at random); servers serve FIFO. This file holds the
 * parameter table, the checks of a point (sizes, service law, engine, stability, start state,
 * levels), the observables, the cost and the model's ops table. The replication is in dynamics.c
 * (two exact engines: servers.c, counts.c), the theory and the comparison in theory.c; internal.h
 * holds what they share. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "model_kit.h"
#include "meanfield.h"
#include "memory.h"

static const storq_param_def smk_params[] = {
    {.name = "n", .type = STORQ_PARAM_INT, .def = "1000", .min = 1, .max = 2147483647.0,
     .unit = "servers", .doc = "number of servers"},
    {.name = "L", .type = STORQ_PARAM_INT, .def = "2", .min = 1, .max = 1024, .unit = "servers",
     .doc = "servers sampled per job (at most n)"},
    {.name = "k", .type = STORQ_PARAM_INT, .def = "1", .min = 1, .max = 1024, .unit = "tasks",
     .doc = "tasks per job, sent to the k shortest sampled queues (at most L)"},
    {.name = "lambda", .type = STORQ_PARAM_REAL, .def = "0.9", .min = 0, .max = HUGE_VAL,
     .min_open = 1, .unit = "1/time",
     .doc = "job arrival rate per server (jobs arrive at rate n lambda); the per-server load is "
            "lambda k E[service] (= lambda with the default service), capacity 1"},
    {.name = "sampling", .type = STORQ_PARAM_STRING, .def = "without", .unit = "",
     .choices = "without|with",
     .doc = "sample the L servers without replacement (a random L-subset) or with replacement"},
    {.name = "service", .type = STORQ_PARAM_STRING, .def = "auto", .unit = "time",
     .laws = STORQ_LAWS_TIME,
     .doc = "service-time law of one task, or auto = exp:k (mean 1/k), the "
            "law the mean-field theory assumes"},
    {.name = "engine", .type = STORQ_PARAM_STRING, .def = "servers", .unit = "",
     .choices = "servers|counts",
     .doc = "servers: per-server FIFO queues, any service law, sojourns and delays; counts: "
            "occupancy counts only, exponential service, memory independent of n"},
    {.name = "mode", .type = STORQ_PARAM_STRING, .def = "steady", .unit = "",
     .choices = "steady|transient",
     .doc = "steady: time averages after a warm-up; transient: u(t) on a time grid from --start"},
    STORQ_PARAM_WARMUP("100000", "jobs", " (steady mode)"),
    STORQ_PARAM_ARRIVALS("1000000", 1, "jobs", " (steady mode)"),
    {.name = "horizon", .type = STORQ_PARAM_REAL, .def = "20", .min = 0, .max = HUGE_VAL,
     .min_open = 1, .unit = "time", .doc = "end of the time grid (transient mode)"},
    {.name = "grid", .type = STORQ_PARAM_INT, .def = "100", .min = 1, .max = 1000000,
     .unit = "intervals",
     .doc = "u(t) recorded at t_j = j horizon / grid, j = 0..grid (transient mode)"},
    {.name = "start", .type = STORQ_PARAM_STRING, .def = "empty", .unit = "",
     .doc = "initial state (steady runs warm up from it): empty, fill:J (every queue holds J "
            "tasks), u:U1,U2,... (fraction of queues with at least i tasks) or fixed (the "
            "mean-field fixed point, load < 1)"},
    {.name = "levels", .type = STORQ_PARAM_INT, .def = "0", .min = 0, .max = 100000,
     .unit = "levels",
     .doc = "occupancy levels 0..levels-1 reported; 0 = auto (until the fixed point falls below "
            "1e-10, at least 8, at least the start's depth + 1; 64 at a load >= 1)"},
    {.name = NULL},
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
    c->run = storq_run_length_of(p);
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
    /* before the stability warning: a bad start is one message */
    rc = storq_smk_parse_start(start, c->n, c->L, c->k, c->load, &c->start_N, &c->start_depth,
                               err);
    if (rc)
        goto fail;
    if (c->mode == SMK_MODE_STEADY && c->load >= 1.0) {
        double cap = 1.0 / ((double)c->k * (c->service_exp ? 1.0 / c->mu : c->service.mean));
        rc = storq_refuse_unstable(p, "supermarket", "--lambda", err,
                                   "--lambda: %g gives a per-server load lambda k E[service] = %g, "
                                   "at or above the capacity 1 (lambda must be below %g with --k "
                                   "%u and --service %s); there is no steady state",
                                   c->lambda, c->load, cap, c->k, c->service.spec);
        if (rc)
            goto fail;
    }
    if (levels == 0) {
        /* at a load >= 1 there is no fixed point to size the levels by: 64 (set --levels to see
         * deeper) */
        size_t a = c->load < 1.0 ? storq_sm_auto_levels((int)c->L, (int)c->k, c->load, 1e-10, 10000)
                                 : 64;
        c->levels = a < 8 ? 8 : a;
        if (c->mode == SMK_MODE_TRANSIENT && c->levels < c->start_depth + 1)
            c->levels = c->start_depth + 1;
    } else {
        c->levels = (size_t)levels;
    }
    if (c->engine == SMK_ENGINE_SERVERS) {
        char what[64];
        snprintf(what, sizeof what, "--n: %llu servers", (unsigned long long)c->n);
        rc = storq_memory_check(storq_smk_servers_bytes(c), what,
                                "for per-server records per replication (and thread)", err);
        if (rc)
            goto fail;
    }
    {
        /* the theory's refined solve is sized by the levels the fixed point needs: 12 GB at
         * --L 1 --lambda 0.999, allocated after the results file was created */
        char what[96];
        if (c->mode == SMK_MODE_TRANSIENT)
            snprintf(what, sizeof what, "--grid %llu at --lambda %g", (unsigned long long)c->grid,
                     c->lambda);
        else
            snprintf(what, sizeof what, "--lambda %g with --L %u --k %u", c->lambda, c->L, c->k);
        rc = storq_memory_check_rank(storq_smk_theory_bytes(c), what,
                                     c->mode == SMK_MODE_TRANSIENT
                                         ? "for the mean-field theory's ODE over the time grid "
                                           "(--grid) and the levels it integrates"
                                         : "for the mean-field theory's refined solve (its dense "
                                           "matrices over the fixed point's levels)",
                                     err);
        if (rc)
            goto fail;
    }
    {
        /* the clock never rebases: it runs over the whole run (steady: warmup + arrivals jobs
         * at total rate n lambda; transient: the horizon); the shortest times are the service
         * and the interarrival gaps */
        double rate = (double)c->n * c->lambda;
        double clock = c->mode == SMK_MODE_TRANSIENT
                           ? c->horizon
                           : ((double)c->run.warmup + (double)c->run.arrivals) / rate;
        rc = storq_check_time_resolution("supermarket: --lambda/--n/--service", clock,
                                         fmin(c->service.mean, 1.0 / rate), err);
        if (rc)
            goto fail;
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

/* Steady mode, servers engine: the observables of individual tasks and jobs. */
static int smk_declare_servers(smk_ctx *c, storq_observables *obs, storq_error *err)
{
    STORQ_TRY(storq_declare_hist_loglin(
        obs, &c->id_sojourn, "task_sojourn", "time",
        "time from a measured task's arrival to the end of its service", 1e-6, 1e6, 7, err));
    STORQ_TRY(storq_declare_hist_loglin(
        obs, &c->id_delay, "job_delay", "time",
        "time from a measured job's arrival to the completion of its last task", 1e-6, 1e6, 7,
        err));
    STORQ_TRY(storq_declare_scalar(obs, &c->id_msojourn, "mean_task_sojourn", "time",
                                   "mean sojourn of the measured tasks", err));
    return storq_declare_scalar(obs, &c->id_mdelay, "mean_job_delay", "time",
                                "mean delay of the measured jobs", err);
}

static int smk_declare(void *vctx, storq_observables *obs, storq_error *err)
{
    smk_ctx *c = vctx;
    size_t nl = c->levels;
    int rc = STORQ_OK;
    c->id_u = c->id_nvar = c->id_mql = c->id_aql = -1;
    c->id_sojourn = c->id_delay = c->id_msojourn = c->id_mdelay = -1;
    c->id_ut = c->id_mqlt = -1;
    c->steady.first = c->steady.second = -1;

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
        if (c->engine == SMK_ENGINE_SERVERS)
            STORQ_TRY(smk_declare_servers(c, obs, err));
        /* the steady-state check (docs/steady-state.md), declared last: the ids of the other
         * observables, hence the layout of their values, are those of a point without it */
        return storq_steady_declare(obs, &c->steady, "mean_queue_length", "tasks", err);
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

/* Steady state: the mean queue length (both engines); a transient run has no headline scalar. */
static const char *smk_headline(const void *vctx)
{
    const smk_ctx *c = vctx;
    return c->mode == SMK_MODE_STEADY ? "mean_queue_length" : NULL;
}

static double smk_cost(const void *vctx)
{
    const smk_ctx *c = vctx;
    double init = c->engine == SMK_ENGINE_SERVERS ? (double)c->n : 0.0;
    double per_job = 1.0 + (double)c->k + 0.25 * (double)c->L;
    if (c->mode == SMK_MODE_STEADY)
        return (double)(c->run.warmup + c->run.arrivals) * per_job + init;
    return (double)c->n * c->horizon * c->lambda * per_job + init;
}

/* The event loop counts arrivals and task departures: about 1 + k events per job. */
static double smk_steps(const void *vctx)
{
    const smk_ctx *c = vctx;
    double jobs = c->mode == SMK_MODE_STEADY ? (double)(c->run.warmup + c->run.arrivals)
                                             : (double)c->n * c->horizon * c->lambda;
    return jobs * (1.0 + (double)c->k);
}

const storq_model storq_model_supermarket = {
    .name = "supermarket",
    .summary = "batch sampling: jobs of k tasks to the k shortest of L sampled FIFO queues among n "
               "servers, with its mean-field limit",
    .params = smk_params,
    .prepare = smk_prepare,
    .release = smk_release,
    .declare = smk_declare,
    .replicate = storq_smk_replicate,
    .theory = storq_smk_theory,
    .compare = storq_smk_compare,
    .cost = smk_cost,
    .steps = smk_steps,
    .headline = smk_headline,
};
