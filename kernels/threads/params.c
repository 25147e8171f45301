/* `threads` parameters: L download threads scheduled over (n,k)-coded requests
 * (docs/models/threads.md; Sun, Zheng, Koksal, Kim, Shroff, "Provably Delay Efficient Data
 * Retrieving in Storage Clouds").
 *
 * The parameter table, the parsing of --classes and --policy, the load (rho -> lambda), the
 * throughput check of every listed policy, the observables, the cost and the ops table. The
 * simulation is in dynamics.c, the load, capacity and gap terms in theory.c. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "class_list.h"
#include "model_kit.h"
#include "internal.h"
#include "memory.h"

#define TH_DEFAULT_CLASSES "small:0.9:3:1|large:0.1:14:10"
#define TH_DEFAULT_IA "hyperexp:0.5,0.6,0.5,3"

static const storq_param_def th_params[] = {
    {.name = "L", .type = STORQ_PARAM_INT, .def = "3", .min = 1, .max = TH_MAX_L,
     .unit = "threads", .doc = "download threads (at most L chunk downloads at once)"},
    {.name = "classes", .type = STORQ_PARAM_STRING, .def = TH_DEFAULT_CLASSES, .unit = "",
     .doc = "request classes NAME:SHARE:N:K joined by '|' (or ';', but not after a blank in a "
            "sweep file): a request of the class is stored with an (N,K) MDS code, any K of its "
            "N chunks restore it; shares sum to 1 (default: the paper's 90% (3,1), 10% (14,10))"},
    {.name = "rho", .type = STORQ_PARAM_REAL, .def = "0.5", .min = 0, .max = HUGE_VAL,
     .min_open = 1, .unit = "1",
     .doc = "traffic intensity; sets the arrival rate lambda through --load"},
    {.name = "load", .type = STORQ_PARAM_STRING, .def = "mean", .unit = "", .choices = "mean|min",
     .doc = "definition of rho: mean, rho = lambda E[k] E[X] / L (the paper's lambda E[k] / "
            "(L mu) with 1/mu = E[X]); min, rho = lambda E[k] E[min of L downloads] (the paper's "
            "Fig. 4 definition for NSU downloads under SEDPT-R)"},
    {.name = "interarrival", .type = STORQ_PARAM_STRING, .def = TH_DEFAULT_IA, .unit = "",
     .laws = STORQ_LAWS_TIME,
     .doc = "law of the inter-arrival times up to scale: samples are multiplied by 1 / (lambda "
            "E[law]) so that the rate is lambda (default: a mixture of exponentials of mean 1 and "
            "squared coefficient of variation 1.89; the paper's mixture was lost)"},
    {.name = "download", .type = STORQ_PARAM_STRING, .def = "exp:50", .unit = "",
     .laws = STORQ_LAWS_TIME,
     .doc = "law of one chunk's download time (exp:MU; shexp:DELTA,MU is New-Longer-than-Used, "
            "hyperexp:... New-Shorter-than-Used); the paper's 1/mu = 0.02 s"},
    {.name = "policy", .type = STORQ_PARAM_STRING, .def = "fcfs-r+serpt-r+sedpt-r", .unit = "",
     .doc = "thread-scheduling policies joined by '+', run coupled on common random numbers: "
            "fcfs-r, fcfs-wcr, serpt-r, sedpt-r, sedpt-nr, sedpt-wcr, each optionally :on or :off "
            "(preemption); and bound: the paper's lower bounds on the optimal delay "
            "(exponential downloads: bound_mean_flow_time, Theorem 1's relaxation; exponential "
            "or New-Longer-than-Used downloads with d_min >= L: bound_last_start_mean_flow_time, "
            "mean time to the start of a request's last chunk under non-preemptive SEDPT-NR)"},
    {.name = "preemption", .type = STORQ_PARAM_STRING, .def = "default", .unit = "",
     .choices = "default|on|off",
     .doc = "preemption of every listed policy without its own :on/:off; default: on for "
            "serpt-r, sedpt-wcr, fcfs-wcr, off for fcfs-r, sedpt-r, sedpt-nr (sedpt-nr cannot "
            "preempt)"},
    {.name = "mode", .type = STORQ_PARAM_STRING, .def = "finite", .unit = "",
     .choices = "finite|steady",
     .doc = "finite: --requests arrivals from an empty system, the first at time 0 (the "
            "paper's runs); steady: --warmup then --arrivals measured"},
    {.name = "requests", .type = STORQ_PARAM_INT, .def = "3000", .min = 1, .max = HUGE_VAL,
     .unit = "requests", .doc = "requests of a finite run (the paper's N = 3000)"},
    STORQ_PARAM_WARMUP("10000", "requests", " (steady mode)"),
    STORQ_PARAM_ARRIVALS("100000", 2, "requests", " (steady mode)"),
    {.name = NULL},
};

/* ------------------------------------------------------------------ release */

static void th_release(void *vctx)
{
    th_ctx *x = vctx;
    if (!x)
        return;
    if (x->have_ia)
        storq_dist_free(&x->ia);
    if (x->have_dl)
        storq_dist_free(&x->dl);
    free(x);
}

/* ------------------------------------------------------------------ classes */

/* --classes: NAME:SHARE:N:K joined by '|' or ';' (src/toolkit/class_list.h); K <= N. */
static int th_parse_classes(th_ctx *x, const char *spec, storq_error *err)
{
#define TH_CLASS_FORM "NAME:SHARE:N:K joined by '|' or ';' (NAME a letter then letters, " \
                      "digits or '_', at most 16; 0 < SHARE <= 1, the shares summing to 1; " \
                      "1 <= K <= N integers)"
    static const storq_class_form form = {TH_CLASS_FORM, "N", "K", TH_CLASS_FORM, TH_MAX_N, 0};
    char buf[4096];
    storq_class_fields f[TH_MAX_CLASSES];
    STORQ_TRY(storq_class_list_parse(spec, &form, buf, sizeof buf, f, TH_MAX_CLASSES,
                                     &x->nclass, err));
    for (int i = 0; i < x->nclass; i++) {
        th_class *c = &x->cls[i];
        _Static_assert(sizeof c->name == sizeof f[i].name, "class names of one length");
        memcpy(c->name, f[i].name, sizeof c->name);
        c->share = f[i].share;
        c->n = f[i].a;
        c->k = f[i].b;
        if (c->k > c->n)
            return storq_fail(err, STORQ_ERR_USAGE,
                              "--classes: class '%s': K = %llu exceeds N = %llu; an (N,K) code "
                              "restores a request from K of its N chunks, so K <= N",
                              c->name, (unsigned long long)c->k, (unsigned long long)c->n);
    }
    return STORQ_OK;
}

/* ------------------------------------------------------------------ policies */

typedef struct th_known {
    const char *name;
    int order, redund, preempt_default, can_preempt;
} th_known;

static const th_known th_known_policies[] = {
    {"fcfs-r", TH_FCFS, TH_R, 0, 1},     {"fcfs-wcr", TH_FCFS, TH_WCR, 1, 1},
    {"serpt-r", TH_SERPT, TH_R, 1, 1},   {"sedpt-r", TH_SEDPT, TH_R, 0, 1},
    {"sedpt-nr", TH_SEDPT, TH_NR, 0, 0}, {"sedpt-wcr", TH_SEDPT, TH_WCR, 1, 1},
};

static int th_parse_policy(th_ctx *x, const char *spec, const char *pre, storq_error *err)
{
    const char *acc = "distinct policies fcfs-r, fcfs-wcr, serpt-r, sedpt-r, sedpt-nr, "
                      "sedpt-wcr, each optionally :on or :off (preemption), joined by '+' and run "
                      "coupled (e.g. fcfs-r+serpt-r:on+sedpt-r:off), and optionally bound (the "
                      "paper's lower bounds on the optimum: exponential or New-Longer-than-Used "
                      "downloads)";
    char buf[1024];
    if (strlen(spec) >= sizeof buf)
        return storq_fail(err, STORQ_ERR_USAGE, "--policy: '%.40s...' is too long; accepted: %s",
                          spec, acc);
    snprintf(buf, sizeof buf, "%s", spec);
    x->npol = 0;
    x->bound = 0;
    char *save = NULL;
    for (char *tok = strtok_r(buf, "+", &save); tok; tok = strtok_r(NULL, "+", &save)) {
        tok = storq_trim(tok);
        if (strcmp(tok, "bound") == 0) {
            if (x->bound)
                return storq_fail(err, STORQ_ERR_USAGE,
                                  "--policy: bound is listed twice in '%s'; accepted: %s", spec,
                                  acc);
            x->bound = 1;
            continue;
        }
        if (x->npol == TH_MAX_POLICIES)
            return storq_fail(err, STORQ_ERR_USAGE, "--policy: more than %d policies",
                              TH_MAX_POLICIES);
        char given[64];
        snprintf(given, sizeof given, "%s", tok);
        int suffix = -1; /* -1 none, 0 off, 1 on */
        char *colon = strchr(tok, ':');
        if (colon) {
            *colon = 0;
            if (strcmp(colon + 1, "on") == 0)
                suffix = 1;
            else if (strcmp(colon + 1, "off") == 0)
                suffix = 0;
            else
                return storq_fail(err, STORQ_ERR_USAGE,
                                  "--policy: '%s' in '%s': the preemption suffix must be :on or "
                                  ":off; accepted: %s", given, spec, acc);
        }
        const th_known *k = NULL;
        for (size_t i = 0; i < sizeof th_known_policies / sizeof *th_known_policies; i++)
            if (strcmp(tok, th_known_policies[i].name) == 0)
                k = &th_known_policies[i];
        if (!k)
            return storq_fail(err, STORQ_ERR_USAGE,
                              "--policy: '%s' in '%s' is not a policy; accepted: %s", given, spec,
                              acc);
        int preempt = k->preempt_default;
        if (suffix >= 0)
            preempt = suffix;
        else if (strcmp(pre, "on") == 0)
            preempt = 1;
        else if (strcmp(pre, "off") == 0)
            preempt = 0;
        if (preempt && !k->can_preempt)
            return storq_fail(err, STORQ_ERR_USAGE,
                              "%s: %s is non-preemptive by definition (it may leave threads "
                              "idle rather than take them back; its preemptive counterpart is "
                              "sedpt-wcr); drop the preemption for it",
                              suffix >= 0 ? "--policy" : "--preemption", k->name);
        th_policy *P = &x->pol[x->npol];
        memset(P, 0, sizeof *P);
        P->order = k->order;
        P->redund = k->redund;
        P->preempt = preempt;
        snprintf(P->spec, sizeof P->spec, "%s:%s", k->name, preempt ? "on" : "off");
        size_t at = 0;
        for (const char *c = k->name; *c; c++)
            P->name[at++] = *c == '-' ? '_' : *c;
        snprintf(P->name + at, sizeof P->name - at, "%s", preempt ? "_p" : "_np");
        for (int i = 0; i < x->npol; i++)
            if (strcmp(x->pol[i].name, P->name) == 0)
                return storq_fail(err, STORQ_ERR_USAGE,
                                  "--policy: %s is listed twice in '%s'; accepted: %s", P->spec,
                                  spec, acc);
        x->npol++;
    }
    if (x->npol == 0)
        return storq_fail(err, STORQ_ERR_USAGE, "--policy: '%s' names no policy; accepted: %s",
                          spec, acc);
    return STORQ_OK;
}

/* ------------------------------------------------------------------ laws and load */

/* 0 exponential, 1 New-Longer-than-Used (increasing failure rate: shexp, det, erlang, uniform),
 * 2 New-Shorter-than-Used (decreasing failure rate: hyperexp, pareto), 3 not classified. */
static int th_law_class(const storq_dist *d)
{
    switch (d->kind) {
    case STORQ_DIST_EXP:
        return 0;
    case STORQ_DIST_SHEXP:
        return d->p[0] > 0.0 ? 1 : 0;
    case STORQ_DIST_ERLANG:
        return d->p[0] > 1.0 ? 1 : 0;
    case STORQ_DIST_DET:
    case STORQ_DIST_UNIFORM:
        return 1;
    case STORQ_DIST_HYPEREXP: {
        for (int i = 3; i < d->nparams; i += 2)
            if (d->p[i] != d->p[1])
                return 2;
        return 0;
    }
    case STORQ_DIST_PARETO:
        return 2;
    default:
        return 3;
    }
}

static int th_check_capacity(const th_ctx *x, const storq_params *p, storq_error *err)
{
    for (int q = 0; q < x->npol; q++) {
        const th_policy *P = &x->pol[q];
        int exact = 0;
        const double C = storq_th_capacity(x, P, &exact);
        if (!isfinite(C)) {
            storq_warn("threads: no throughput bound is known for %s with --download %s: the "
                       "load is not checked", P->spec, x->dl.spec);
            continue;
        }
        const double need = x->lambda * x->Ek;
        if (need < C)
            continue;
        STORQ_TRY(storq_refuse_unstable(p, "threads", "--rho", err,
                                        "--rho: %g asks for %g chunks per unit time, at or beyond "
                                        "the %s %g of --policy %s (L = %llu, --download %s; "
                                        "theory/capacity_*)",
                                        x->rho, need,
                                        exact ? "throughput" : "throughput upper bound", C,
                                        P->spec, (unsigned long long)x->L, x->dl.spec));
    }
    return STORQ_OK;
}

/* ------------------------------------------------------------------ the bounds */

/* Which lower bounds `bound` computes (docs/models/threads.md, "The lower bound on the optimal
 * delay"): Theorem 1's relaxation needs exponential downloads; SEDPT-NR's last starts need
 * exponential or NLU downloads (a used chunk is no slower than a new one) and d_min >= L (every
 * request can use every thread). NLU downloads with d_min < L, and any other law, are refused. */
static int th_bound_setup(th_ctx *x, storq_error *err)
{
    x->relax_bound = x->last_start = 0;
    x->vsys = -1;
    if (!x->bound)
        return STORQ_OK;
    if (x->law_class != 0 && x->law_class != 1)
        return storq_fail(err, STORQ_ERR_USAGE,
                          "--policy: bound (the paper's lower bounds on the optimal delay) needs "
                          "exponential or New-Longer-than-Used downloads (exp, shexp, erlang with "
                          "K >= 2, det, uniform); --download %s is %s", x->dl.spec,
                          x->law_class == 2 ? "New-Shorter-than-Used" : "not classified");
    x->relax_bound = x->law_class == 0;
    if (x->dmin < x->L && x->law_class == 1)
        return storq_fail(err, STORQ_ERR_USAGE,
                          "--policy: bound with New-Longer-than-Used downloads (--download %s) "
                          "needs d_min >= L (every class's N - K + 1 at least --L = %llu; "
                          "d_min is %llu): the last-start bound's argument lets every request "
                          "use every thread",
                          x->dl.spec, (unsigned long long)x->L, (unsigned long long)x->dmin);
    x->last_start = x->dmin >= x->L;
    if (!x->last_start)
        return STORQ_OK;
    x->vsys = x->npol; /* a companion SEDPT-NR, unless the policies list it */
    for (int q = 0; q < x->npol; q++)
        if (x->pol[q].order == TH_SEDPT && x->pol[q].redund == TH_NR && !x->pol[q].preempt)
            x->vsys = q;
    return STORQ_OK;
}

/* ------------------------------------------------------------------ prepare */

static int th_prepare(const storq_params *p, void **out, storq_error *err)
{
    *out = NULL;
    th_ctx *x = calloc(1, sizeof *x);
    if (!x)
        return STORQ_RUNTIME_FAIL(err, "out of memory");
    int rc;
    x->L = (uint64_t)storq_param_int(p, "L");
    x->rho = storq_param_real(p, "rho");
    x->load_min = strcmp(storq_param_string(p, "load"), "min") == 0;
    x->mode = strcmp(storq_param_string(p, "mode"), "steady") == 0 ? TH_STEADY : TH_FINITE;
    x->requests = (uint64_t)storq_param_int(p, "requests");
    x->run = storq_run_length_of(p);
    if ((rc = th_parse_classes(x, storq_param_string(p, "classes"), err)))
        goto fail;
    x->dmin = UINT64_MAX;
    x->Ek = 0.0;
    for (int i = 0; i < x->nclass; i++) {
        const th_class *c = &x->cls[i];
        if (c->n > x->nmax)
            x->nmax = c->n;
        if (c->n - c->k + 1 < x->dmin)
            x->dmin = c->n - c->k + 1;
        x->Ek += c->share * (double)c->k;
    }
    if ((rc = storq_dist_parse_as(storq_param_string(p, "interarrival"), "--interarrival",
                                  storq_law_forms(STORQ_LAWS_TIME), &x->ia, err)))
        goto fail;
    x->have_ia = 1;
    if (!(x->ia.mean > 0.0) || !isfinite(x->ia.mean)) {
        rc = storq_fail(err, STORQ_ERR_USAGE, "--interarrival: '%s' has mean %g; it needs a "
                        "finite mean > 0 (it is rescaled to the rate --rho sets)", x->ia.spec,
                        x->ia.mean);
        goto fail;
    }
    if ((rc = storq_dist_parse_as(storq_param_string(p, "download"), "--download",
                                  storq_law_forms(STORQ_LAWS_TIME), &x->dl, err)))
        goto fail;
    x->have_dl = 1;
    if (!(x->dl.mean > 0.0) || !isfinite(x->dl.mean)) {
        rc = storq_fail(err, STORQ_ERR_USAGE, "--download: '%s' has mean %g; a download time "
                        "needs a finite mean > 0", x->dl.spec, x->dl.mean);
        goto fail;
    }
    x->law_class = th_law_class(&x->dl);
    x->emin_L = storq_th_emin(&x->dl, x->L);
    if (x->load_min) {
        if (!(x->emin_L > 0.0)) {
            rc = storq_fail(err, STORQ_ERR_USAGE, "--load: min needs E[min of L downloads], "
                            "which is not computed for --download %s; use --load mean",
                            x->dl.spec);
            goto fail;
        }
        x->lambda = x->rho / (x->Ek * x->emin_L);
    } else {
        x->lambda = x->rho * (double)x->L / (x->Ek * x->dl.mean);
    }
    x->ia_scale = 1.0 / (x->lambda * x->ia.mean);
    if ((rc = th_parse_policy(x, storq_param_string(p, "policy"),
                              storq_param_string(p, "preemption"), err)))
        goto fail;
    if ((rc = th_bound_setup(x, err)))
        goto fail;
    if ((rc = th_check_capacity(x, p, err)))
        goto fail;
    /* the clock is never rebased: it runs over every request of the run; the shortest mean
     * times are a download and the gap between arrivals */
    if ((rc = storq_check_time_resolution("threads: --rho/--download",
                                          (double)th_requests_simulated(x) / x->lambda,
                                          fmin(x->dl.mean, 1.0 / x->lambda), err)))
        goto fail;
    /* per system (the policies, and SEDPT-NR's companion when the last-start bound runs one):
     * the thread arrays of dynamics.c (event heap, lists, candidates: about 5 L 32-bit entries)
     * and the requests-present bins; request records grow with those present */
    const int nsys = th_systems(x);
    size_t bytes = storq_bytes_mul((size_t)nsys,
                                   storq_bytes_add(storq_bytes_mul((size_t)x->L + 2, 5 * 4),
                                                   TH_PRESENT_BINS * sizeof(double)));
    char what[96];
    snprintf(what, sizeof what, "--L/--policy: %llu threads for %d policies",
             (unsigned long long)x->L, x->npol);
    if ((rc = storq_memory_check(bytes, what, "for per-thread arrays per replication (and thread)",
                                 err)))
        goto fail;
    snprintf(x->headline, sizeof x->headline, "%s_mean_flow_time", x->pol[0].name);
    *out = x;
    return STORQ_OK;
fail:
    th_release(x);
    return rc;
}

/* ------------------------------------------------------------------ observables */

static int th_declare_policy(th_ctx *x, int pi, const double *axis, storq_observables *obs,
                             storq_error *err)
{
    const char *P = x->pol[pi].name, *S = x->pol[pi].spec;
    th_ids *id = &x->id[pi];
    const double lo = x->dl.mean * 1e-6, hi = x->dl.mean * 1e9;
    char name[STORQ_NAME_MAX], desc[256];
#define NM(...) (snprintf(name, sizeof name, __VA_ARGS__), name)
#define DS(...) (snprintf(desc, sizeof desc, __VA_ARGS__), desc)
    STORQ_TRY(storq_declare_hist_loglin(obs, &id->flow, NM("%s_flow_time", P), "time",
                                        DS("%s: flow time of a measured request (arrival to its "
                                           "k-th downloaded chunk)", S), lo, hi, 7, err));
    STORQ_TRY(storq_declare_scalar(obs, &id->mean, NM("%s_mean_flow_time", P), "time",
                                   DS("%s: mean flow time of the measured requests (the paper's "
                                      "average flow time)", S), err));
    STORQ_TRY(storq_declare_scalar(obs, &id->p50, NM("%s_flow_time_p50", P), "time",
                                   DS("%s: median flow time of the replication, read off its "
                                      "histogram (within 2^-7 relative)", S), err));
    STORQ_TRY(storq_declare_scalar(obs, &id->p99, NM("%s_flow_time_p99", P), "time",
                                   DS("%s: 99th percentile of the replication's flow times", S),
                                   err));
    STORQ_TRY(storq_declare_scalar(obs, &id->p999, NM("%s_flow_time_p999", P), "time",
                                   DS("%s: 99.9th percentile of the replication's flow times", S),
                                   err));
    STORQ_TRY(storq_declare_scalar(obs, &id->throughput, NM("%s_throughput", P), "1/time",
                                   DS("%s: requests completed in the window / its length", S),
                                   err));
    STORQ_TRY(storq_declare_scalar(obs, &id->useful, NM("%s_utilisation_useful", P), "1",
                                   DS("%s: thread time on chunks that completed / (L T)", S),
                                   err));
    STORQ_TRY(storq_declare_scalar(obs, &id->cancelled, NM("%s_utilisation_cancelled", P), "1",
                                   DS("%s: thread time on chunks cancelled when their request "
                                      "completed (redundant work) / (L T)", S), err));
    STORQ_TRY(storq_declare_scalar(obs, &id->mean_present, NM("%s_mean_present", P), "requests",
                                   DS("%s: time-average number of requests present", S), err));
    STORQ_TRY(storq_declare_vector(obs, &id->present, NM("%s_present", P), "1",
                                   DS("%s: fraction of the window with v requests present (axis "
                                      "v; the last entry: v >= %d)", S, TH_PRESENT_BINS - 1),
                                   TH_PRESENT_BINS, "v", axis, err));
    id->diff = -1;
    if (pi > 0)
        STORQ_TRY(storq_declare_scalar(obs, &id->diff,
                                       NM("diff_%s_%s_mean_flow_time", P, x->pol[0].name), "time",
                                       DS("%s_mean_flow_time - %s_mean_flow_time in the same "
                                          "replication (coupled: its CI is the paired "
                                          "difference's)", P, x->pol[0].name), err));
    for (int c = 0; c < x->nclass && x->nclass > 1; c++) {
        const char *C = x->cls[c].name;
        STORQ_TRY(storq_declare_hist_loglin(obs, &id->cflow[c], NM("%s_%s_flow_time", P, C),
                                            "time", DS("%s: flow time of a measured %s request",
                                                       S, C), lo, hi, 7, err));
        STORQ_TRY(storq_declare_scalar(obs, &id->cmean[c], NM("%s_%s_mean_flow_time", P, C),
                                       "time", DS("%s: mean flow time of class %s", S, C), err));
    }
#undef NM
#undef DS
    return STORQ_OK;
}

static int th_declare(void *vctx, storq_observables *obs, storq_error *err)
{
    th_ctx *x = vctx;
    double axis[TH_PRESENT_BINS];
    for (int v = 0; v < TH_PRESENT_BINS; v++)
        axis[v] = (double)v;
    for (int pi = 0; pi < x->npol; pi++)
        STORQ_TRY(th_declare_policy(x, pi, axis, obs, err));
    x->bound_id = x->last_start_id = -1;
    if (x->relax_bound)
        STORQ_TRY(storq_declare_scalar(obs, &x->bound_id, "bound_mean_flow_time", "time",
                                       "the paper's lower bound on the optimal policy's mean flow "
                                       "time: preemptive SERPT-R with every request's n raised to "
                                       "k + L - 1 (Theorem 1), i.e. one server of rate L mu, "
                                       "shortest remaining chunks first (bound.c)", err));
    if (x->last_start)
        STORQ_TRY(storq_declare_scalar(obs, &x->last_start_id,
                                       "bound_last_start_mean_flow_time", "time",
                                       "the paper's lower bound on the optimal mean flow time for "
                                       "New-Longer-than-Used (and exponential) downloads with "
                                       "d_min >= L (Lemma 3, storq's reading): mean over the "
                                       "measured requests of V - a, V the instant the last of a "
                                       "request's k chunks starts under non-preemptive SEDPT-NR "
                                       "on the same arrivals, classes and chunk times", err));
    x->steady.first = x->steady.second = -1;
    if (x->mode == TH_STEADY)
        STORQ_TRY(storq_steady_declare(obs, &x->steady, x->headline, "time", err));
    return STORQ_OK;
}

/* ------------------------------------------------------------------ cost and ops */

static const char *th_headline(const void *vctx)
{
    const th_ctx *x = vctx;
    return x->headline;
}

static double th_cost(const void *vctx)
{
    const th_ctx *x = vctx;
    const double N = (double)th_requests_simulated(x);
    const int nsys = th_systems(x);
    return N * (x->Ek + 1.0) * log2((double)x->L + 2.0) * (double)nsys;
}

/* The event loop counts requests (and goes on while the last ones drain). */
static double th_steps(const void *vctx)
{
    const th_ctx *x = vctx;
    return (double)th_requests_simulated(x);
}

const storq_model storq_model_threads = {
    .name = "threads",
    .summary = "L download threads scheduled over (n,k)-coded requests (FCFS-R, SERPT-R, "
               "SEDPT-R, SEDPT-NR, SEDPT-WCR, FCFS-WCR, preemptive or not, coupled), with the "
               "paper's load, throughput and delay-gap terms",
    .params = th_params,
    .prepare = th_prepare,
    .release = th_release,
    .declare = th_declare,
    .replicate = storq_th_replicate_all,
    .theory = storq_th_theory,
    .compare = storq_th_compare,
    .cost = th_cost,
    .steps = th_steps,
    .headline = th_headline,
    .class_fields = "share:n:k",
};
