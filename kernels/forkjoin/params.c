/* `forkjoin`: (n,k) fork-join with cancellation, and (m,n,k) groups (MODELS.md; seed 003).
 *
 * A job sent to a group forks one task to each of its n FCFS nodes and departs when k of them are
 * done; the other n - k tasks leave at once. Every node of a group sees the same job order, so a
 * group is a vector recursion over its nodes, done in two passes over contiguous arrays:
 *   S_i = max(A, E_i), F_i = S_i + x_i, D = k-th smallest F_i, E_i = max(E_i, min(F_i, D)),
 * with E_i the time node i is released from its previous job. A job costs O(n), plus O(D) for
 * pod:D or O(log g) for lwl (forkjoin_lwl.c), never O(g n). The random-number contract and the loads are described in
 * forkjoin_internal.h; the theory (bounds, exact cases, the paper's eq. (15)) is in
 * forkjoin_theory.c. See docs/models/forkjoin.md. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "lwl.h"
#include "select.h"


static const storq_param_def fj_params[] = {
    {"n", STORQ_PARAM_INT, "10", 1, 2147483647.0, 0, "nodes", NULL,
     "nodes per group: a job forks one task to each"},
    {"k", STORQ_PARAM_INT, "5", 1, 2147483647.0, 0, "tasks", NULL,
     "tasks a job needs (k <= n); each node stores 1/k unit of content"},
    {"groups", STORQ_PARAM_INT, "1", 1, 2147483647.0, 0, "groups", NULL,
     "number g of independent (n,k) groups (m = g n disks)"},
    {"lambda", STORQ_PARAM_REAL, "1", 0, HUGE_VAL, 1, "1/time", NULL,
     "job arrival rate (all groups together)"},
    {"mu", STORQ_PARAM_REAL, "3", 0, HUGE_VAL, 1, "1/time", NULL,
     "rate of reading one unit of content: a task's mean service time is 1/(k mu)"},
    {"service", STORQ_PARAM_STRING, "exp", 0, 0, 0, "", NULL,
     "family of the task service time, always at mean 1/(k mu): exp, pareto:ALPHA (ALPHA > 1), "
     "shexp:F (shift F/(k mu) plus an exponential, 0 <= F < 1), det, trace:PATH (the file's "
     "numbers rescaled to that mean)"},
    {"correlation", STORQ_PARAM_REAL, "0", 0, 1, 0, "1", NULL,
     "delta: a task's time is delta X_d + (1 - delta) X_i, X_d drawn once per job and shared by "
     "its n tasks, X_i per task, both from the service family"},
    {"assign", STORQ_PARAM_STRING, "uniform", 0, 0, 0, "", NULL,
     "group of an arriving job (g > 1): uniform, pod:D (the least loaded of D distinct groups "
     "drawn at random, 1 <= D <= g), lwl (the least loaded of all groups)"},
    {"load", STORQ_PARAM_STRING, "work", 0, 0, 0, "", "jobs|work",
     "load of a group for pod/lwl: jobs (jobs present) or work (time until the group would be "
     "empty with no more arrivals)"},
    {"warmup", STORQ_PARAM_INT, "10000", 0, HUGE_VAL, 0, "jobs", NULL,
     "jobs simulated before measuring"},
    {"arrivals", STORQ_PARAM_INT, "100000", 2, HUGE_VAL, 0, "jobs", NULL,
     "measured jobs per replication"},
    {NULL, 0, NULL, 0, 0, 0, NULL, NULL, NULL},
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

static int fj_parse_service(fj_ctx *c, const char *spec, storq_error *err)
{
    const double mean = c->mean;
    char law[300];
    char *end;
    if (strcmp(spec, "exp") == 0) {
        c->family = FJ_FAM_EXP;
        snprintf(law, sizeof law, "exp:%.17g", 1.0 / mean);
    } else if (strcmp(spec, "det") == 0) {
        c->family = FJ_FAM_DET;
        snprintf(law, sizeof law, "det:%.17g", mean);
    } else if (strcmp(spec, "pareto") == 0 || strcmp(spec, "shexp") == 0) {
        return storq_fail(err, STORQ_ERR_USAGE,
                          "--service: '%s' needs its parameter: pareto:ALPHA (shape ALPHA > 1) or "
                          "shexp:F (the shift's share F of the mean, 0 <= F < 1)", spec);
    } else if (strncmp(spec, "pareto:", 7) == 0) {
        c->family = FJ_FAM_PARETO;
        c->alpha = strtod(spec + 7, &end);
        if (end == spec + 7 || *end || !isfinite(c->alpha))
            return storq_fail(err, STORQ_ERR_USAGE,
                              "--service: '%s': give the Pareto shape as pareto:ALPHA with a "
                              "number ALPHA > 1 (the mean is fixed at 1/(k mu))", spec);
        if (!(c->alpha > 1.0))
            return storq_fail(err, STORQ_ERR_USAGE,
                              "--service: Pareto shape %g is not > 1: the mean service time is "
                              "infinite for ALPHA <= 1; give pareto:ALPHA with ALPHA > 1",
                              c->alpha);
        snprintf(law, sizeof law, "pareto:%.17g,%.17g", c->alpha, mean);
    } else if (strncmp(spec, "shexp:", 6) == 0) {
        c->family = FJ_FAM_SHEXP;
        c->fraction = strtod(spec + 6, &end);
        if (end == spec + 6 || *end || !(c->fraction >= 0.0 && c->fraction < 1.0))
            return storq_fail(err, STORQ_ERR_USAGE,
                              "--service: '%s': give the shifted exponential as shexp:F with the "
                              "shift's share F of the mean, 0 <= F < 1 (det is F = 1)", spec);
        snprintf(law, sizeof law, "shexp:%.17g,%.17g", c->fraction * mean,
                 1.0 / ((1.0 - c->fraction) * mean));
    } else if (strncmp(spec, "trace:", 6) == 0) {
        c->family = FJ_FAM_TRACE;
        snprintf(law, sizeof law, "%s", spec);
    } else {
        return storq_fail(err, STORQ_ERR_USAGE,
                          "--service: '%s' is not a service family; accepted: exp, pareto:ALPHA "
                          "(ALPHA > 1), shexp:F (0 <= F < 1), det, trace:PATH (all at mean "
                          "1/(k mu))", spec);
    }
    snprintf(c->service_spec, sizeof c->service_spec, "%s", law);
    int rc = storq_dist_parse(law, "--service", &c->law, err);
    if (rc) {
        /* the parser lists every law it knows; --service takes only the families above */
        char *tail = strstr(err->msg, "; accepted:");
        if (tail)
            snprintf(tail, sizeof err->msg - (size_t)(tail - err->msg),
                     "; give trace:PATH with one number >= 0 per line");
        return rc;
    }
    c->have_law = 1;
    c->scale = 1.0;
    if (c->family == FJ_FAM_TRACE) {
        if (!(c->law.mean > 0) || !isfinite(c->law.mean))
            return storq_fail(err, STORQ_ERR_USAGE,
                              "--service: the trace '%s' has mean %g; it needs a finite positive "
                              "mean to be rescaled to 1/(k mu)", spec + 6, c->law.mean);
        c->scale = mean / c->law.mean;
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
        char *end;
        double d = strtod(spec + 4, &end);
        /* with one group there is nothing to choose: any D is accepted (sweeps over groups) */
        if (end != spec + 4 && !*end && d == floor(d) && d >= 1 &&
            (d <= (double)c->g || c->g == 1)) {
            c->assign = FJ_ASSIGN_POD;
            c->pod_d = c->g == 1 ? 1 : (uint64_t)d;
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
    fj_moments_compute(c, &m);
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
        if (!p->allow_unstable)
            return storq_fail(err, STORQ_ERR_USAGE,
                              "--lambda: %g is at or beyond the stability bound: each of the "
                              "%llu group(s) takes less than %g jobs per unit time, by %s; so "
                              "lambda must be below %g under --assign %s. Lower --lambda or pass "
                              "--allow-unstable",
                              c->lambda, (unsigned long long)c->g, c->capacity, why,
                              c->capacity * (double)c->g, storq_param_string(p, "assign"));
        storq_warn("forkjoin: --lambda %g is at or beyond the stability bound %g; queues grow "
                   "without bound and the steady-state figures mean nothing (--allow-unstable)",
                   c->lambda, c->capacity * (double)c->g);
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
    c->warmup = (uint64_t)storq_param_int(p, "warmup");
    c->arrivals = (uint64_t)storq_param_int(p, "arrivals");
    c->load = strcmp(storq_param_string(p, "load"), "jobs") == 0 ? FJ_LOAD_JOBS : FJ_LOAD_WORK;
    c->mean = 1.0 / ((double)c->k * c->mu);
    c->lambda_group = c->lambda / (double)c->g;
    c->companion = c->delta > 0.0 && c->delta < 1.0;

    if (c->k > c->n) {
        rc = storq_fail(err, STORQ_ERR_USAGE,
                        "--k: %llu exceeds --n %llu; a job needs k of its n tasks, so 1 <= k <= n",
                        (unsigned long long)c->k, (unsigned long long)c->n);
        goto fail;
    }
    /* per replication: one release time per node (twice with the companion), and per group */
    size_t bytes = storq_bytes_add(
        storq_bytes_mul(storq_bytes_mul(c->g, c->n), c->companion ? 16 : 8),
        storq_bytes_mul(c->g, 64));
    char what[128];
    snprintf(what, sizeof what, "--groups/--n: %llu groups of %llu nodes",
             (unsigned long long)c->g, (unsigned long long)c->n);
    if ((rc = storq_memory_check(bytes, what, "for per-node arrays per replication (and thread)", err)))
        goto fail;
    if ((rc = fj_parse_service(c, storq_param_string(p, "service"), err)))
        goto fail;
    if ((rc = fj_parse_assign(c, storq_param_string(p, "assign"), err)))
        goto fail;
    if ((rc = fj_check_stability(c, p, err)))
        goto fail;
    /* rebase the clock every few thousand arrivals (and never more often than every g n of them,
     * so the O(g n) shift stays O(1) per job): times stay small and precise */
    c->rebase_time = 4096.0 / c->lambda;
    c->rebase_count = c->g * c->n > 4096 ? c->g * c->n : 4096;
    *out = c;
    return STORQ_OK;
fail:
    fj_release(c);
    return rc;
}

/* ------------------------------------------------------------------ observables */

static int fj_declare(void *vctx, storq_observables *obs, storq_error *err)
{
    fj_ctx *c = vctx;
    fj_ids *id = &c->id;
    const double lo = c->mean * 1e-6, hi = c->mean * 1e9;
    id->resp0 = id->mean0 = -1;
    STORQ_TRY(storq_declare_hist_loglin(obs, &id->resp, "response_time", "time",
                                        "response time D - A of a measured job (arrival to its "
                                        "k-th finished task)", lo, hi, 7, err));
    STORQ_TRY(storq_declare_scalar(obs, &id->mean, "mean_response_time", "time",
                                   "mean response time of the measured jobs", err));
    STORQ_TRY(storq_declare_scalar(obs, &id->util, "utilisation", "1",
                                   "node busy time (tasks served, cancelled ones up to their "
                                   "cancellation) / (g n T) over the measurement window",
                                   err));
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
    if (rc || !c->companion)
        return rc;
    STORQ_TRY(storq_declare_hist_loglin(obs, &id->resp0, "uncorrelated_response_time", "time",
                                        "companion system with correlation 0 on the same "
                                        "arrivals, groups draws and X_i: response time", lo, hi,
                                        7, err));
    return storq_declare_scalar(obs, &id->mean0, "uncorrelated_mean_response_time", "time",
                                "companion system with correlation 0 (same arrivals, group "
                                "draws and X_i): mean response time, the T(n,k) of the paper's "
                                "eq. (15)", err);
}

/* ------------------------------------------------------------------ one replication */

/* Departure times of a group's jobs still present, oldest first (power-of-two ring). */
typedef struct fj_fifo {
    double *d;
    size_t head, len, cap;
} fj_fifo;

/* The state of one system of g groups (the main one, or the delta = 0 companion). */
typedef struct fj_system {
    double *E;     /* g n release times, group-major */
    double *Dlast; /* g: departure of the last job sent to the group */
    fj_fifo *q;    /* g, pod with load = jobs only */
    fj_lwl lwl;    /* lwl only: keys are Dlast (-inf when idle) for work, job counts for jobs */
    int has_lwl;
    uint64_t *jobs; /* g, lwl with load = jobs: jobs present */
    storq_rng tie;
    storq_hist resp;
    double sum;
    double *busy;    /* g: node busy time of measured jobs */
    uint64_t *count; /* g: measured jobs */
} fj_system;

static void fj_system_free(fj_system *s, uint64_t g)
{
    if (s->q)
        for (uint64_t i = 0; i < g; i++)
            free(s->q[i].d);
    free(s->q);
    if (s->has_lwl)
        fj_lwl_free(&s->lwl);
    free(s->jobs);
    free(s->E);
    free(s->Dlast);
    free(s->busy);
    free(s->count);
}

static int fj_system_init(fj_system *s, const fj_ctx *c)
{
    memset(s, 0, sizeof *s);
    s->E = calloc(c->g * c->n, sizeof *s->E);
    s->Dlast = calloc(c->g, sizeof *s->Dlast);
    s->busy = calloc(c->g, sizeof *s->busy);
    s->count = calloc(c->g, sizeof *s->count);
    if (!s->E || !s->Dlast || !s->busy || !s->count)
        return -1;
    if (c->g > 1 && c->assign == FJ_ASSIGN_POD && c->load == FJ_LOAD_JOBS &&
        !(s->q = calloc(c->g, sizeof *s->q)))
        return -1;
    if (c->g > 1 && c->assign == FJ_ASSIGN_LWL) {
        s->has_lwl = 1;
        if (fj_lwl_init(&s->lwl, c->g, c->load == FJ_LOAD_WORK ? -INFINITY : 0.0))
            return -1;
        if (c->load == FJ_LOAD_JOBS && !(s->jobs = calloc(c->g, sizeof *s->jobs)))
            return -1;
    }
    return 0;
}

static int fj_fifo_push(fj_fifo *f, double d)
{
    if (f->len == f->cap) {
        size_t cap = f->cap ? 2 * f->cap : 16;
        double *nd = malloc(cap * sizeof *nd);
        if (!nd)
            return -1;
        for (size_t i = 0; i < f->len; i++)
            nd[i] = f->d[(f->head + i) & (f->cap - 1)];
        free(f->d);
        f->d = nd;
        f->head = 0;
        f->cap = cap;
    }
    f->d[(f->head + f->len) & (f->cap - 1)] = d;
    f->len++;
    return 0;
}

/* The load group G shows a job arriving at t, as a key ordered like the load: for work, D_last
 * for a busy group (the same order as D_last - t, without the subtraction's rounding) and -inf
 * for every empty one. */
static inline double fj_load(const fj_ctx *c, fj_system *s, uint64_t G, double t)
{
    if (c->load == FJ_LOAD_WORK) {
        double d = s->Dlast[G];
        return d > t ? d : -INFINITY;
    }
    fj_fifo *f = &s->q[G];
    while (f->len && f->d[f->head] <= t) {
        f->head = (f->head + 1) & (f->cap - 1);
        f->len--;
    }
    return (double)f->len;
}

/* The group of a job arriving at t: cand holds the pod:D draw, or the uniform draw in cand[0]. */
static uint64_t fj_choose(const fj_ctx *c, fj_system *s, const uint64_t *cand, double t)
{
    if (c->g == 1)
        return 0;
    switch (c->assign) {
    case FJ_ASSIGN_UNIFORM:
        return cand[0];
    case FJ_ASSIGN_POD: {
        uint64_t best = cand[0];
        double bl = fj_load(c, s, best, t);
        for (uint64_t j = 1; j < c->pod_d; j++) {
            double l = fj_load(c, s, cand[j], t);
            if (l < bl) {
                bl = l;
                best = cand[j];
            }
        }
        return best;
    }
    default: { /* lwl: uniform among the least loaded, by rank in group order */
        fj_lwl *l = &s->lwl;
        /* loads that changed on their own since the last arrival: groups emptied (work) or jobs
         * departed (jobs); stale work events (the group got a later job) are skipped */
        while (l->hn && fj_lwl_top_time(l) <= t) {
            const uint64_t G = fj_lwl_top_group(l);
            const double when = fj_lwl_top_time(l);
            fj_lwl_pop(l);
            if (c->load == FJ_LOAD_JOBS)
                fj_lwl_set(l, G, (double)--s->jobs[G]);
            else if (s->Dlast[G] == when)
                fj_lwl_set(l, G, -INFINITY);
        }
        uint64_t ties;
        fj_lwl_min(l, &ties);
        return fj_lwl_rank(l, ties > 1 ? storq_rng_below(&s->tie, ties) : 0);
    }
    }
}

/* A job departing at D was sent to group G: the least-loaded tree learns its new load. */
static int fj_lwl_assigned(const fj_ctx *c, fj_system *s, uint64_t G, double D)
{
    if (c->load == FJ_LOAD_JOBS)
        fj_lwl_set(&s->lwl, G, (double)++s->jobs[G]);
    else
        fj_lwl_set(&s->lwl, G, D);
    return fj_lwl_push(&s->lwl, D, G);
}

/* Serve a job arriving at t in group G with task times x; returns its departure time and adds the
 * node busy time it caused to *busy. F is scratch of n doubles. The two passes over the nodes are
 * branch-free and alias-free (restrict), so the compiler vectorises them; the busy times are
 * summed in node order afterwards, as floating addition is not associative. */
static double fj_serve(const fj_ctx *c, fj_system *s, uint64_t G, double t,
                       const double *restrict x, double *restrict F, double *busy)
{
    const size_t n = (size_t)c->n;
    double *restrict E = s->E + G * n;
    for (size_t i = 0; i < n; i++)
        F[i] = (E[i] > t ? E[i] : t) + x[i];
    const double D = storq_kth_smallest(F, n, (size_t)c->k);
    for (size_t i = 0; i < n; i++) {
        const double S = E[i] > t ? E[i] : t;
        const double f = S + x[i] < D ? S + x[i] : D;
        const double w = f - S;
        F[i] = w > 0.0 ? w : 0.0; /* F's values are spent: it now holds the busy times */
        E[i] = E[i] > f ? E[i] : f;
    }
    double b = 0.0;
    for (size_t i = 0; i < n; i++)
        b += F[i];
    *busy = b;
    s->Dlast[G] = D;
    return D;
}

/* n node parts X_i of the family: storq_dist_sample's draws, with the family's branch taken once
 * per job instead of once per task (exponential inline, deterministic without a call). */
static void fj_draw_parts(const fj_ctx *c, storq_rng *rng, double *x, size_t n)
{
    const double scale = c->scale;
    switch (c->law.kind) {
    case STORQ_DIST_EXP: {
        const double rate = c->law.p[0];
        for (size_t i = 0; i < n; i++)
            x[i] = scale * storq_rng_exp(rng, rate);
        return;
    }
    case STORQ_DIST_DET:
        for (size_t i = 0; i < n; i++)
            x[i] = scale * c->law.p[0];
        return;
    default:
        for (size_t i = 0; i < n; i++)
            x[i] = scale * storq_dist_sample(&c->law, rng);
    }
}

static void fj_rebase(const fj_ctx *c, fj_system *s, double t)
{
    for (uint64_t i = 0; i < c->g * c->n; i++)
        s->E[i] -= t;
    if (s->has_lwl)
        fj_lwl_shift(&s->lwl, t, c->load == FJ_LOAD_WORK);
    for (uint64_t G = 0; G < c->g; G++) {
        s->Dlast[G] -= t;
        if (s->q)
            for (size_t i = 0; i < s->q[G].len; i++)
                s->q[G].d[(s->q[G].head + i) & (s->q[G].cap - 1)] -= t;
    }
}

static int fj_replicate(const void *vctx, const storq_stream_key *key, storq_record *rec,
                        storq_error *err)
{
    const fj_ctx *c = vctx;
    const size_t n = (size_t)c->n;
    const double delta = c->delta, scale = c->scale;
    const int nsys = c->companion ? 2 : 1;
    storq_rng arr = storq_rng_stream(key, STORQ_STREAM_ARRIVALS);
    storq_rng rte = storq_rng_stream(key, STORQ_STREAM_ROUTING);
    storq_rng shared = storq_rng_stream(key, STORQ_STREAM_SIZES);
    storq_rng svc = storq_rng_stream(key, STORQ_STREAM_SERVICE);

    fj_system sys[2];
    memset(sys, 0, sizeof sys);
    double *x = malloc(sizeof *x * n * 3);
    uint64_t *cand = malloc(sizeof *cand * (c->assign == FJ_ASSIGN_POD ? c->pod_d : 1));
    int rc = STORQ_OK;
    if (!x || !cand)
        goto oom;
    double *x0 = x + n, *F = x + 2 * n;
    for (int si = 0; si < nsys; si++) {
        if (fj_system_init(&sys[si], c))
            goto oom;
        sys[si].tie = storq_rng_stream(key, si == 0 ? STORQ_STREAM_TIES : STORQ_STREAM_EXTRA);
        sys[si].resp = storq_record_hist(rec, si == 0 ? c->id.resp : c->id.resp0);
    }

    const uint64_t total = c->warmup + c->arrivals;
    double t = 0.0, Tmeas = 0.0;
    uint64_t since = 0;
    cand[0] = 0;
    for (uint64_t j = 0; j < total; j++) {
        const double tau = storq_rng_exp(&arr, c->lambda);
        t += tau;
        since++;
        const int meas = j >= c->warmup;
        if (meas && j > c->warmup)
            Tmeas += tau;
        if (t > c->rebase_time && since >= c->rebase_count) {
            for (int si = 0; si < nsys; si++)
                fj_rebase(c, &sys[si], t);
            t = 0.0;
            since = 0;
        }
        if (c->g > 1) {
            if (c->assign == FJ_ASSIGN_UNIFORM)
                cand[0] = storq_rng_below(&rte, c->g);
            else if (c->assign == FJ_ASSIGN_POD)
                storq_rng_sample_distinct_fast(&rte, c->g, (unsigned)c->pod_d, cand);
        }
        uint64_t G[2];
        for (int si = 0; si < nsys; si++)
            G[si] = fj_choose(c, &sys[si], cand, t);

        /* task times: the shared part, then the node parts in node order */
        if (delta == 0.0) {
            fj_draw_parts(c, &svc, x, n);
        } else {
            const double xd = scale * storq_dist_sample(&c->law, &shared);
            if (delta == 1.0) {
                for (size_t i = 0; i < n; i++)
                    x[i] = xd;
            } else {
                fj_draw_parts(c, &svc, x0, n);
                for (size_t i = 0; i < n; i++)
                    x[i] = delta * xd + (1.0 - delta) * x0[i];
            }
        }
        for (int si = 0; si < nsys; si++) {
            fj_system *s = &sys[si];
            double busy;
            const double D = fj_serve(c, s, G[si], t, si == 0 ? x : x0, F, &busy);
            if (s->q && fj_fifo_push(&s->q[G[si]], D))
                goto oom;
            if (s->has_lwl && fj_lwl_assigned(c, s, G[si], D))
                goto oom;
            if (meas) {
                const double T = D - t;
                storq_hist_add(&s->resp, T);
                s->sum += T;
                s->busy[G[si]] += busy;
                s->count[G[si]]++;
            }
        }
    }

    const double N = (double)c->arrivals;
    storq_record_scalar(rec, c->id.mean, sys[0].sum / N);
    if (c->companion)
        storq_record_scalar(rec, c->id.mean0, sys[1].sum / N);
    double *share = storq_record_vector(rec, c->id.share);
    double *gutil = storq_record_vector(rec, c->id.gutil);
    double busy_all = 0.0;
    for (uint64_t G = 0; G < c->g; G++) {
        share[G] = (double)sys[0].count[G] / N;
        gutil[G] = sys[0].busy[G] / ((double)n * Tmeas);
        busy_all += sys[0].busy[G];
    }
    storq_record_scalar(rec, c->id.util, busy_all / ((double)n * (double)c->g * Tmeas));
    rec->events += total;
    goto done;
oom:
    rc = STORQ_RUNTIME_FAIL(err, "out of memory (%llu groups of %llu nodes)",
                            (unsigned long long)c->g, (unsigned long long)c->n);
done:
    for (int si = 0; si < nsys; si++)
        fj_system_free(&sys[si], c->g);
    free(x);
    free(cand);
    return rc;
}

static double fj_cost(const void *vctx)
{
    const fj_ctx *c = vctx;
    double choose = c->g == 1 ? 0.0
                    : c->assign == FJ_ASSIGN_LWL ? 4.0 * log2((double)c->g)
                    : c->assign == FJ_ASSIGN_POD ? (double)c->pod_d
                                                 : 1.0;
    return (double)(c->warmup + c->arrivals) * ((double)c->n + choose + 1.0) *
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
    .replicate = fj_replicate,
    .theory = fj_theory,
    .compare = fj_compare,
    .cost = fj_cost,
};
