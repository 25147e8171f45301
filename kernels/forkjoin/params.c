/* `forkjoin` parameters: (n,k) fork-join with cancellation in g groups (docs/models/forkjoin.md;
 * Joshi, Liu, Soljanin, "On the Delay-Storage Trade-off in Content Download from Coded Distributed
 * Storage Systems").
 *
 * The parameter table, the parsing of --service and --assign, the checks of a point (k <= n,
 * memory, stability), the observables, the cost and the model's ops table. The simulation is in
 * dynamics.c, the theory (bounds, exact cases, the paper's eq. (15)) in theory.c, the least-loaded
 * group tree in lwl.c; internal.h holds what they share. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "number.h"
#include "model_kit.h"
#include "internal.h"

static const storq_param_def fj_params[] = {
    {.name = "n", .type = STORQ_PARAM_INT, .def = "10", .min = 1, .max = 2147483647.0,
     .unit = "nodes", .doc = "nodes per group: a job forks one task to each"},
    {.name = "k", .type = STORQ_PARAM_INT, .def = "5", .min = 1, .max = 2147483647.0,
     .unit = "tasks",
     .doc = "tasks a job needs (k <= n); each node stores 1/k unit of content"},
    {.name = "groups", .type = STORQ_PARAM_INT, .def = "1", .min = 1, .max = 2147483647.0,
     .unit = "groups", .doc = "number g of independent (n,k) groups (m = g n disks)"},
    {.name = "lambda", .type = STORQ_PARAM_REAL, .def = "1", .min = 0, .max = HUGE_VAL,
     .min_open = 1, .unit = "1/time", .doc = "job arrival rate (all groups together)"},
    {.name = "mu", .type = STORQ_PARAM_REAL, .def = "3", .min = 0, .max = HUGE_VAL,
     .min_open = 1, .unit = "1/time",
     .doc = "rate of reading one unit of content: a task's mean service time is 1/(k mu)"},
    {.name = "service", .type = STORQ_PARAM_STRING, .def = "exp", .unit = "",
     .laws = STORQ_LAWS_AT_MEAN,
     .doc = "family of the task service time, always at mean 1/(k mu): exp, pareto:ALPHA "
            "(ALPHA > 1), shexp:F (shift F/(k mu) plus an exponential, 0 <= F < 1), det, "
            "trace:PATH (the file's numbers rescaled to that mean)"},
    {.name = "correlation", .type = STORQ_PARAM_REAL, .def = "0", .min = 0, .max = 1,
     .unit = "1",
     .doc = "delta: a task's time is delta X_d + (1 - delta) X_i, X_d drawn once per job and "
            "shared by its n tasks, X_i per task, both from the service family"},
    {.name = "assign", .type = STORQ_PARAM_STRING, .def = "uniform", .unit = "",
     .doc = "group of an arriving job (g > 1): uniform, pod:D (the least loaded of D distinct "
            "groups drawn at random, 1 <= D <= g), lwl (the least loaded of all groups)"},
    {.name = "load", .type = STORQ_PARAM_STRING, .def = "work", .unit = "",
     .choices = "jobs|work",
     .doc = "load of a group for pod/lwl: jobs (jobs present) or work (time until the group "
            "would be empty with no more arrivals)"},
    STORQ_PARAM_WARMUP("10000", "jobs", ""),
    STORQ_PARAM_ARRIVALS("100000", 2, "jobs", ""),
    {.name = "group_vectors", .type = STORQ_PARAM_STRING, .def = "auto", .unit = "",
     .choices = "auto|full|summary|both",
     .doc = "per-group results: full (group_share and group_utilisation, g values each per "
            "replication), summary (their histograms across groups, largest value and spread), "
            "both, or auto: full up to 1000 groups, summary beyond"},
    {.name = NULL},
};

/* ------------------------------------------------------------------ parameters */

static void fj_release(void *vctx)
{
    fj_ctx *c = vctx;
    if (!c)
        return;
    if (c->have_law)
        storq_dist_free(&c->law);
    free(c);
}

/* The service family: a law's shape at the task mean 1/(k mu), in the toolkit's grammar. */
static int fj_parse_service(fj_ctx *c, const char *spec, storq_error *err)
{
    double shape;
    STORQ_TRY(storq_dist_parse_at_mean(spec, c->mean, "--service", &c->law, &shape, &c->scale,
                                       err));
    c->have_law = 1;
    snprintf(c->service_spec, sizeof c->service_spec, "%s", c->law.spec);
    switch (c->law.kind) {
    case STORQ_DIST_EXP:
        c->family = FJ_FAM_EXP;
        break;
    case STORQ_DIST_DET:
        c->family = FJ_FAM_DET;
        break;
    case STORQ_DIST_PARETO:
        c->family = FJ_FAM_PARETO;
        c->alpha = shape;
        break;
    case STORQ_DIST_SHEXP:
        c->family = FJ_FAM_SHEXP;
        c->fraction = shape;
        break;
    case STORQ_DIST_TRACE:
        c->family = FJ_FAM_TRACE;
        break;
    default: /* storq_dist_parse_at_mean gives only the families above */
        return STORQ_RUNTIME_FAIL(err, "--service: unexpected law '%s'", c->law.spec);
    }
    return STORQ_OK;
}

static int fj_parse_assign(fj_ctx *c, const char *spec, storq_error *err)
{
    if (strcmp(spec, "uniform") == 0) {
        c->assign = FJ_ASSIGN_UNIFORM;
        return STORQ_OK;
    }
    if (strcmp(spec, "lwl") == 0) {
        c->assign = FJ_ASSIGN_LWL;
        return STORQ_OK;
    }
    if (strncmp(spec, "pod:", 4) == 0) {
        int negative;
        uint64_t d;
        /* with one group there is nothing to choose: any D is accepted (sweeps over groups) */
        if (!storq_number_integer(spec + 4, &negative, &d) && !negative && d >= 1 &&
            (d <= c->g || c->g == 1)) {
            c->assign = FJ_ASSIGN_POD;
            c->pod_d = c->g == 1 ? 1 : d;
            return STORQ_OK;
        }
        return storq_fail(err, STORQ_ERR_USAGE,
                          "--assign: '%s': the power of D needs an integer D with 1 <= D <= "
                          "groups = %llu", spec, (unsigned long long)c->g);
    }
    return storq_fail(err, STORQ_ERR_USAGE,
                      "--assign: '%s' is not an assignment; accepted: uniform, pod:D (1 <= D <= "
                      "groups), lwl", spec);
}

/* The per-group arrival rate the point can take. Exponential tasks without correlation: n mu
 * exactly (Lemma 1; with memoryless tasks the n busy nodes complete k mu n tasks per unit time and
 * a job needs k). k = 1, delta = 1 or det tasks keep a group's nodes in lock-step, so the group is
 * an M/G/1 queue with the split-merge service S: capacity 1 / E[S] exactly. Otherwise the paper's
 * necessary condition n mu is enforced, and a warning says when the split-merge sufficient
 * condition lambda/g < 1/E[S] fails. */
static int fj_check_stability(fj_ctx *c, const storq_params *p, storq_error *err)
{
    fj_moments m;
    storq_fj_moments_compute(c, &m);
    const double lg = c->lambda_group, nmu = (double)c->n * c->mu;
    const char *why;
    if (c->family == FJ_FAM_EXP && c->delta == 0.0) {
        c->capacity = nmu;
        why = "n mu, the paper's Lemma 1 (exact for exponential tasks)";
    } else if (c->k == 1 || c->delta == 1.0 || c->family == FJ_FAM_DET) {
        c->capacity = 1.0 / m.es;
        why = c->k == 1 ? "1/E[min of the n task times], k = 1 making the group an M/G/1 queue"
                        : "1/E[task time], the nodes moving in lock-step as an M/G/1 queue";
    } else {
        c->capacity = nmu;
        why = "n mu, the paper's Lemma 1 (a necessary condition)";
    }
    c->capacity_exact = 1;
    c->capacity_why = why;
    if (lg >= c->capacity) {
        char groups[48] = "the group";
        if (c->g > 1)
            snprintf(groups, sizeof groups, "each of the %llu groups", (unsigned long long)c->g);
        STORQ_TRY(storq_refuse_unstable(p, "forkjoin", "--lambda", err,
                                        "--lambda: %g is at or beyond the stability bound: %s "
                                        "takes less than %g jobs per unit time, by %s; so lambda "
                                        "must be below %g under --assign %s",
                                        c->lambda, groups, c->capacity, why,
                                        c->capacity * (double)c->g,
                                        storq_param_string(p, "assign")));
    } else if (!isfinite(m.vs) && (c->k == 1 || c->delta == 1.0 || c->k == c->n)) {
        storq_warn("forkjoin: --service %s makes the mean response time infinite at this point "
                   "(the service time of a node has an infinite second moment): the simulated "
                   "means will not settle as the run grows",
                   storq_param_string(p, "service"));
    } else if (!(lg * m.es < 1.0) && !(c->family == FJ_FAM_EXP && c->delta == 0.0)) {
        c->capacity_exact = 0;
        storq_warn("forkjoin: lambda/g = %g is above 1/E[S] = %g, where the split-merge system "
                   "(a sufficient condition for stability) is unstable; the fork-join system's "
                   "exact capacity is not known for --service %s with --correlation %g "
                   "(necessary: below n mu = %g). Check that the response times settle",
                   lg, 1.0 / m.es, storq_param_string(p, "service"), c->delta, nmu);
    }
    return STORQ_OK;
}

static int fj_prepare(const storq_params *p, void **out, storq_error *err)
{
    *out = NULL;
    fj_ctx *c = calloc(1, sizeof *c);
    if (!c)
        return STORQ_RUNTIME_FAIL(err, "out of memory");
    int rc;
    c->n = (uint64_t)storq_param_int(p, "n");
    c->k = (uint64_t)storq_param_int(p, "k");
    c->g = (uint64_t)storq_param_int(p, "groups");
    c->lambda = storq_param_real(p, "lambda");
    c->mu = storq_param_real(p, "mu");
    c->delta = storq_param_real(p, "correlation");
    c->run = storq_run_length_of(p);
    c->load = strcmp(storq_param_string(p, "load"), "jobs") == 0 ? FJ_LOAD_JOBS : FJ_LOAD_WORK;
    c->mean = 1.0 / ((double)c->k * c->mu);
    c->lambda_group = c->lambda / (double)c->g;
    c->companion = c->delta > 0.0 && c->delta < 1.0;
    {
        const char *gv = storq_param_string(p, "group_vectors");
        const int autofull = c->g <= FJ_GROUP_VECTORS_AUTO_MAX;
        c->group_full = !strcmp(gv, "full") || !strcmp(gv, "both") ||
                        (!strcmp(gv, "auto") && autofull);
        c->group_summary = !strcmp(gv, "summary") || !strcmp(gv, "both") ||
                           (!strcmp(gv, "auto") && !autofull);
    }

    if (c->k > c->n) {
        rc = storq_fail(err, STORQ_ERR_USAGE,
                        "--k: %llu exceeds --n %llu; a job needs k of its n tasks, so 1 <= k <= n",
                        (unsigned long long)c->k, (unsigned long long)c->n);
        goto fail;
    }
    /* per replication: release times per node, per-group arrays and the policy's, scratch */
    if ((rc = fj_parse_assign(c, storq_param_string(p, "assign"), err)))
        goto fail;
    size_t bytes = storq_fj_state_bytes(c);
    char what[128];
    snprintf(what, sizeof what, "--groups/--n: %llu groups of %llu nodes",
             (unsigned long long)c->g, (unsigned long long)c->n);
    if ((rc = storq_memory_check(bytes, what, "for per-node arrays per replication (and thread)",
                                 err)))
        goto fail;
    if ((rc = fj_parse_service(c, storq_param_string(p, "service"), err)))
        goto fail;
    /* the theory's order statistics sort a copy of a trace's numbers (theory.c) */
    snprintf(what, sizeof what, "--service: the trace's %zu numbers", c->law.ntrace);
    if (c->family == FJ_FAM_TRACE &&
        (rc = storq_memory_check_rank(storq_bytes_mul(c->law.ntrace, sizeof(double)), what,
                                      "for the theory's sorted copy of them", err)))
        goto fail;
    if ((rc = fj_check_stability(c, p, err)))
        goto fail;
    /* rebase the clock every few thousand arrivals (and never more often than every g n of them,
     * so the O(g n) shift stays O(1) per job): times stay small and precise; the shortest times
     * are the tasks' (mean 1/(k mu)) and the interarrival gaps */
    if ((rc = storq_clock_plan(&c->clock, "forkjoin: --lambda/--mu", 4096.0 / c->lambda,
                               c->g * c->n > 4096 ? c->g * c->n : 4096, c->lambda,
                               ((double)c->run.warmup + (double)c->run.arrivals) / c->lambda,
                               fmin(c->mean, 1.0 / c->lambda), err)))
        goto fail;
    *out = c;
    return STORQ_OK;
fail:
    fj_release(c);
    return rc;
}

/* ------------------------------------------------------------------ observables */

/* The full per-group vectors: g values each per replication. */
static int fj_declare_group_vectors(fj_ctx *c, storq_observables *obs, storq_error *err)
{
    fj_ids *id = &c->id;
    double *axis = malloc(sizeof *axis * c->g);
    if (!axis)
        return STORQ_RUNTIME_FAIL(err, "out of memory");
    for (uint64_t i = 0; i < c->g; i++)
        axis[i] = (double)i;
    int rc = storq_declare_vector(obs, &id->share, "group_share", "1",
                                  "fraction of the measured jobs sent to each group", c->g,
                                  "group", axis, err);
    if (!rc)
        rc = storq_declare_vector(obs, &id->gutil, "group_utilisation", "1",
                                  "busy time of each group's nodes / (n T) over the "
                                  "measurement window", c->g, "group", axis, err);
    free(axis);
    return rc;
}

/* Their summary, a few kilobytes whatever g: the histogram of the g values across groups (log-
 * linear, relative bins of 2^-7; zero, a group that got no measured job, in the underflow), and
 * per replication the largest value and the standard deviation across groups. A share is a
 * multiple of 1/arrivals, so the share bins start there; utilisations below 2^-30 are
 * underflow. Both reach 2, so that a share or utilisation of 1 falls in a bin. */
static int fj_declare_group_summary(fj_ctx *c, storq_observables *obs, storq_error *err)
{
    fj_ids *id = &c->id;
    STORQ_TRY(storq_declare_hist_loglin(obs, &id->share_hist, "group_share_histogram", "1",
                                        "group_share across the g groups: each group's fraction "
                                        "of the measured jobs, one sample per group",
                                        1.0 / (double)c->run.arrivals, 2.0, 7, err));
    STORQ_TRY(storq_declare_scalar(obs, &id->share_max, "group_share_max", "1",
                                   "largest fraction of the measured jobs sent to one group "
                                   "(1/g when balanced)", err));
    STORQ_TRY(storq_declare_scalar(obs, &id->share_sd, "group_share_sd", "1",
                                   "standard deviation of the groups' fractions of the measured "
                                   "jobs across the g groups (their mean is 1/g)", err));
    STORQ_TRY(storq_declare_hist_loglin(obs, &id->gutil_hist, "group_utilisation_histogram",
                                        "1",
                                        "group_utilisation across the g groups: busy time of "
                                        "each group's nodes / (n T), one sample per group",
                                        0x1p-30, 2.0, 7, err));
    STORQ_TRY(storq_declare_scalar(obs, &id->gutil_max, "group_utilisation_max", "1",
                                   "largest busy time of one group's nodes / (n T) over the "
                                   "measurement window", err));
    return storq_declare_scalar(obs, &id->gutil_sd, "group_utilisation_sd", "1",
                                "standard deviation of the groups' utilisations across the g "
                                "groups (their mean is utilisation)", err);
}

static int fj_declare(void *vctx, storq_observables *obs, storq_error *err)
{
    fj_ctx *c = vctx;
    fj_ids *id = &c->id;
    const double lo = c->mean * 1e-6, hi = c->mean * 1e9;
    id->resp0 = id->mean0 = -1;
    id->share_hist = id->share_max = id->share_sd = -1;
    id->gutil_hist = id->gutil_max = id->gutil_sd = -1;
    c->steady.first = c->steady.second = -1;
    STORQ_TRY(storq_declare_hist_loglin(obs, &id->resp, "response_time", "time",
                                        "response time D - A of a measured job (arrival to its "
                                        "k-th finished task)", lo, hi, 7, err));
    STORQ_TRY(storq_declare_scalar(obs, &id->mean, "mean_response_time", "time",
                                   "mean response time of the measured jobs", err));
    STORQ_TRY(storq_declare_scalar(obs, &id->util, "utilisation", "1",
                                   "node busy time (tasks served, cancelled ones up to their "
                                   "cancellation) / (g n T) over the measurement window",
                                   err));
    int rc = STORQ_OK;
    id->share = id->gutil = -1;
    if (c->group_full)
        rc = fj_declare_group_vectors(c, obs, err);
    if (!rc && c->group_summary)
        rc = fj_declare_group_summary(c, obs, err);
    if (!rc && c->companion) {
        STORQ_TRY(storq_declare_hist_loglin(obs, &id->resp0, "uncorrelated_response_time",
                                            "time",
                                            "companion system with correlation 0 on the same "
                                            "arrivals, groups draws and X_i: response time", lo,
                                            hi, 7, err));
        STORQ_TRY(storq_declare_scalar(obs, &id->mean0, "uncorrelated_mean_response_time",
                                       "time",
                                       "companion system with correlation 0 (same arrivals, "
                                       "group draws and X_i): mean response time, the T(n,k) "
                                       "of the paper's eq. (15)", err));
    }
    /* the steady-state check (docs/steady-state.md), declared last: the other observables keep
     * the layout of a point without it */
    return rc ? rc : storq_steady_declare(obs, &c->steady, "mean_response_time", "time", err);
}

static double fj_cost(const void *vctx)
{
    const fj_ctx *c = vctx;
    double choose = c->g == 1 ? 0.0
                    : c->assign == FJ_ASSIGN_LWL ? 4.0 * log2((double)c->g)
                    : c->assign == FJ_ASSIGN_POD ? (double)c->pod_d
                                                 : 1.0;
    return (double)(c->run.warmup + c->run.arrivals) * ((double)c->n + choose + 1.0) *
           (c->companion ? 2.0 : 1.0);
}

const storq_model storq_model_forkjoin = {
    .name = "forkjoin",
    .summary = "(n,k) fork-join with cancellation in g groups (uniform, power-of-D or "
               "least-work-left assignment), with the split-merge and stage bounds, the exact "
               "(n,1), (2,2) and lock-step cases and the paper's eq. (15)",
    .params = fj_params,
    .prepare = fj_prepare,
    .release = fj_release,
    .declare = fj_declare,
    .replicate = storq_fj_replicate,
    .theory = storq_fj_theory,
    .compare = storq_fj_compare,
    .cost = fj_cost,
    .headline_name = "mean_response_time",
};
