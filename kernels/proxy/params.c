/* `proxy` parameters: a proxy with L threads serving requests as (n,k)-coded tasks
 * (docs/models/proxy.md; Liang, Kozat, "FAST CLOUD: Pushing the Envelope on Delay Performance of
 * Cloud Storage with Coding").
 *
 * The parameter table, the parsing of --classes and --code, the checks of a point (k <= nmax,
 * nmax <= L when blocking, shares, stability against the capacity estimate), the Delta + Exp fit
 * of each class's law, the observables, the cost and the ops table. The simulation is in
 * dynamics.c, the approximations in theory.c; internal.h holds what they share. */
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
#include "number.h"

#define PX_DEFAULT_DELAY "shexp:0.2,1.25"

static const storq_param_def px_params[] = {
    {.name = "L", .type = STORQ_PARAM_INT, .def = "16", .min = 1, .max = 1048576,
     .unit = "threads", .doc = "threads of the proxy (at most L tasks run at once)"},
    {.name = "lambda", .type = STORQ_PARAM_REAL, .def = "2", .min = 0, .max = HUGE_VAL,
     .min_open = 1, .unit = "1/time", .doc = "request arrival rate, all classes together"},
    {.name = "k", .type = STORQ_PARAM_INT, .def = "3", .min = 1, .max = PX_MAX_N,
     .unit = "tasks", .doc = "tasks a request needs (one class; --classes gives each its own)"},
    {.name = "nmax", .type = STORQ_PARAM_INT, .def = "6", .min = 1, .max = PX_MAX_N,
     .unit = "tasks", .doc = "largest code length n an adaptive policy may use (k <= nmax)"},
    {.name = "delay", .type = STORQ_PARAM_STRING, .def = PX_DEFAULT_DELAY, .unit = "",
     .laws = STORQ_LAWS_TIME,
     .doc = "law of one task's delay (one class); the default is Delta + Exp(mu) with "
            "Delta + 1/mu = 1 and Delta/(Delta + 1/mu) = 0.2"},
    {.name = "admission", .type = STORQ_PARAM_STRING, .def = "nonblocking", .unit = "",
     .choices = "blocking|nonblocking",
     .doc = "when the head request enters service: with n idle threads (blocking) or with one "
            "(nonblocking)"},
    {.name = "code", .type = STORQ_PARAM_STRING, .def = "bafec", .unit = "",
     .doc = "code policies joined by '+', run coupled on common random numbers: fixed:N (or "
            "fixed:N1/N2/.. one per class), greedy, bafec (MBAFEC with several classes)"},
    {.name = "classes", .type = STORQ_PARAM_STRING, .def = "none", .unit = "",
     .doc = "none (one class from --k, --nmax, --delay) or NAME:SHARE:K:NMAX:LAW joined by '|' "
            "(or ';', but not after a blank in a sweep file, where ' ;' starts a comment), e.g. "
            "read:0.9:3:6:shexp:0.1,10|write:0.1:3:6:shexp:0.2,5 (shares sum to 1)"},
    STORQ_PARAM_WARMUP("10000", "requests", ""),
    STORQ_PARAM_ARRIVALS("100000", 2, "requests", ""),
    {.name = NULL},
};

/* ------------------------------------------------------------------ release */

static void px_release(void *vctx)
{
    px_ctx *x = vctx;
    if (!x)
        return;
    for (int i = 0; i < PX_MAX_CLASSES; i++) {
        if (x->cls[i].have_law)
            storq_dist_free(&x->cls[i].law);
        free(x->cls[i].lam_cross);
        free(x->cls[i].Q);
    }
    free(x);
}

/* ------------------------------------------------------------------ the Delta + Exp fit */

static int px_cmp_double(const void *a, const void *b)
{
    double u = *(const double *)a, v = *(const double *)b;
    return (u > v) - (u < v);
}

/* Delta and 1/mu of a class's law: exact for shexp, exp, det; otherwise the paper's fit (1/mu =
 * standard deviation, Delta + 1/mu = mean, Delta >= 0), a trace first losing its worst 0.1%. */
static int px_fit(px_class *c, storq_error *err)
{
    const storq_dist *d = &c->law;
    double mean = d->mean, var = d->var;
    c->fit = 0;
    switch (d->kind) {
    case STORQ_DIST_SHEXP:
        c->delta = d->p[0];
        c->tau = 1.0 / d->p[1];
        return STORQ_OK;
    case STORQ_DIST_EXP:
        c->delta = 0.0;
        c->tau = 1.0 / d->p[0];
        return STORQ_OK;
    case STORQ_DIST_DET:
        c->delta = d->p[0];
        c->tau = 0.0;
        return STORQ_OK;
    case STORQ_DIST_TRACE: {
        size_t M = d->ntrace, keep = M - (size_t)floor(0.001 * (double)M);
        double *y = malloc(sizeof *y * M);
        if (!y)
            return STORQ_RUNTIME_FAIL(err, "out of memory");
        memcpy(y, d->trace, sizeof *y * M);
        qsort(y, M, sizeof *y, px_cmp_double);
        double s = 0.0, s2 = 0.0;
        for (size_t i = 0; i < keep; i++)
            s += y[i];
        mean = s / (double)keep;
        for (size_t i = 0; i < keep; i++)
            s2 += (y[i] - mean) * (y[i] - mean);
        var = s2 / (double)keep;
        free(y);
        break;
    }
    default:
        break;
    }
    c->fit = 1;
    const double sd = sqrt(var);
    c->tau = sd;
    c->delta = mean - sd > 0.0 ? mean - sd : 0.0;
    return STORQ_OK;
}

/* ------------------------------------------------------------------ classes */

static int px_class_init(px_ctx *x, px_class *c, storq_error *err)
{
    if (c->k > c->nmax)
        return storq_fail(err, STORQ_ERR_USAGE,
                          "--k: %llu exceeds --nmax %llu%s%s%s; a request needs k of its n "
                          "tasks, so k <= n <= nmax",
                          (unsigned long long)c->k, (unsigned long long)c->nmax,
                          x->nclass > 1 ? " (class '" : "", x->nclass > 1 ? c->name : "",
                          x->nclass > 1 ? "' of --classes)" : "");
    if (x->admission == PX_BLOCKING && c->nmax > x->L)
        return storq_fail(err, STORQ_ERR_USAGE,
                          "--nmax: %llu exceeds --L %llu%s%s%s; with --admission blocking a "
                          "request waits for n idle threads, so nmax <= L",
                          (unsigned long long)c->nmax, (unsigned long long)x->L,
                          x->nclass > 1 ? " (class '" : "", x->nclass > 1 ? c->name : "",
                          x->nclass > 1 ? "' of --classes)" : "");
    c->lam_cross = malloc(sizeof *c->lam_cross * (c->nmax + 1));
    c->Q = malloc(sizeof *c->Q * (c->nmax + 1));
    if (!c->lam_cross || !c->Q)
        return STORQ_RUNTIME_FAIL(err, "out of memory");
    if (!(c->law.mean > 0.0) || !isfinite(c->law.mean))
        return storq_fail(err, STORQ_ERR_USAGE,
                          "--%s: '%s' has mean %g; a task delay needs a finite mean > 0",
                          x->nclass > 1 ? "classes" : "delay", c->law.spec, c->law.mean);
    STORQ_TRY(px_fit(c, err));
    if (c->nmax > x->nmax_all)
        x->nmax_all = c->nmax;
    return STORQ_OK;
}

/* --classes: NAME:SHARE:K:NMAX:LAW joined by '|' or ';' (src/toolkit/class_list.h). */
static int px_parse_classes(px_ctx *x, const char *spec, storq_error *err)
{
#define PX_CLASS_FORM "NAME:SHARE:K:NMAX:LAW joined by ';' or '|' (NAME a letter then letters, " \
                      "digits or '_', at most 16; 0 < SHARE <= 1, the shares summing to 1; " \
                      "1 <= K <= NMAX integers; LAW a delay law)"
    static const storq_class_form form = {PX_CLASS_FORM, "K", "NMAX", "none or " PX_CLASS_FORM,
                                          PX_MAX_N, 1};
    char buf[4096];
    storq_class_fields f[PX_MAX_CLASSES];
    STORQ_TRY(storq_class_list_parse(spec, &form, buf, sizeof buf, f, PX_MAX_CLASSES,
                                     &x->nclass, err));
    for (int i = 0; i < x->nclass; i++) {
        px_class *c = &x->cls[i];
        _Static_assert(sizeof c->name == sizeof f[i].name, "class names of one length");
        memcpy(c->name, f[i].name, sizeof c->name);
        c->share = f[i].share;
        c->k = f[i].a;
        c->nmax = f[i].b;
        char param[48];
        snprintf(param, sizeof param, "--classes (class '%s')", c->name);
        STORQ_TRY(storq_dist_parse_as(f[i].rest, param, storq_law_forms(STORQ_LAWS_TIME),
                                      &c->law, err));
        c->have_law = 1;
    }
    return STORQ_OK;
}

/* ------------------------------------------------------------------ code policies */

static int px_parse_fixed(px_ctx *x, px_policy *P, const char *arg, const char *acc,
                          storq_error *err)
{
    char buf[64];
    snprintf(buf, sizeof buf, "%s", arg);
    int cnt = 0;
    char *save = NULL;
    uint64_t v[PX_MAX_CLASSES];
    for (char *t = strtok_r(buf, "/", &save); t; t = strtok_r(NULL, "/", &save)) {
        int negative;
        uint64_t d;
        if (storq_number_integer(t, &negative, &d) || negative || d < 1 || d > PX_MAX_N ||
            cnt == PX_MAX_CLASSES)
            return storq_fail(err, STORQ_ERR_USAGE,
                              "--code: 'fixed:%s': '%s' is not a code length; accepted: %s", arg,
                              t, acc);
        v[cnt++] = d;
    }
    if (cnt != 1 && cnt != x->nclass)
        return storq_fail(err, STORQ_ERR_USAGE,
                          "--code: 'fixed:%s' gives %d code lengths for %d class%s; give one "
                          "for all or one per class (N1/N2/...)", arg, cnt, x->nclass,
                          x->nclass == 1 ? "" : "es");
    size_t pos = (size_t)snprintf(P->name, sizeof P->name, "fixed");
    for (int i = 0; i < x->nclass; i++) {
        const px_class *c = &x->cls[i];
        P->n[i] = v[cnt == 1 ? 0 : i];
        if (P->n[i] < c->k || P->n[i] > c->nmax)
            return storq_fail(err, STORQ_ERR_USAGE,
                              "--code: 'fixed:%s': n = %llu is outside k .. nmax = %llu .. %llu%s%s"
                              "%s",
                              arg, (unsigned long long)P->n[i], (unsigned long long)c->k,
                              (unsigned long long)c->nmax, x->nclass > 1 ? " of class '" : "",
                              x->nclass > 1 ? c->name : "", x->nclass > 1 ? "'" : "");
    }
    /* the observable prefix: fixed3 (one length for all classes), fixed3_5 (one per class) */
    for (int i = 0; i < cnt; i++) {
        int w = snprintf(P->name + pos, sizeof P->name - pos, "%s%llu", i ? "_" : "",
                         (unsigned long long)v[i]);
        if (w < 0 || pos + (size_t)w > 24)
            return storq_fail(err, STORQ_ERR_USAGE,
                              "--code: 'fixed:%s' makes too long an observable name", arg);
        pos += (size_t)w;
    }
    return STORQ_OK;
}

static int px_parse_code(px_ctx *x, const char *spec, storq_error *err)
{
    const char *acc = "distinct policies fixed:N (k <= N <= nmax; fixed:N1/N2/.. one per "
                      "class), greedy, bafec, joined by '+' and run coupled (e.g. "
                      "fixed:3+fixed:6+greedy+bafec)";
    char buf[1024];
    if (strlen(spec) >= sizeof buf)
        return storq_fail(err, STORQ_ERR_USAGE, "--code: '%.40s...' is too long; accepted: %s",
                          spec, acc);
    snprintf(buf, sizeof buf, "%s", spec);
    x->npol = 0;
    char *save = NULL;
    for (char *tok = strtok_r(buf, "+", &save); tok; tok = strtok_r(NULL, "+", &save)) {
        tok = storq_trim(tok);
        if (x->npol == PX_MAX_POLICIES)
            return storq_fail(err, STORQ_ERR_USAGE, "--code: more than %d policies",
                              PX_MAX_POLICIES);
        px_policy *P = &x->pol[x->npol];
        memset(P, 0, sizeof *P);
        snprintf(P->spec, sizeof P->spec, "%s", tok);
        if (strcmp(tok, "greedy") == 0) {
            P->kind = PX_GREEDY;
            snprintf(P->name, sizeof P->name, "greedy");
        } else if (strcmp(tok, "bafec") == 0) {
            P->kind = PX_BAFEC;
            snprintf(P->name, sizeof P->name, "bafec");
        } else if (strncmp(tok, "fixed:", 6) == 0) {
            P->kind = PX_FIXED;
            STORQ_TRY(px_parse_fixed(x, P, tok + 6, acc, err));
        } else {
            return storq_fail(err, STORQ_ERR_USAGE,
                              "--code: '%s' in '%s' is not a code policy; accepted: %s", tok,
                              spec, acc);
        }
        for (int i = 0; i < x->npol; i++)
            if (strcmp(x->pol[i].name, P->name) == 0)
                return storq_fail(err, STORQ_ERR_USAGE,
                                  "--code: '%s' is listed twice in '%s'; accepted: %s", tok, spec,
                                  acc);
        x->npol++;
    }
    if (x->npol == 0)
        return storq_fail(err, STORQ_ERR_USAGE, "--code: '%s' names no policy; accepted: %s",
                          spec, acc);
    return STORQ_OK;
}

/* ------------------------------------------------------------------ stability */

/* The capacity estimate of the arrival mix with code vector n (one per class): non-blocking
 * L / sum_i share_i u_i(n_i) (the paper's multi-class region); blocking the mean of that and the
 * (L - n + 1) lower bound, n the largest n_i (the single-class estimate for one class). */
static double px_mix_capacity(const px_ctx *x, const uint64_t *n)
{
    double su = 0.0;
    uint64_t big = 0;
    for (int i = 0; i < x->nclass; i++) {
        su += x->cls[i].share * storq_px_usage(&x->cls[i], (double)n[i]);
        if (n[i] > big)
            big = n[i];
    }
    const double L = (double)x->L;
    if (x->admission == PX_BLOCKING)
        return (2.0 * L - (double)big + 1.0) / (2.0 * su);
    return L / su;
}

static int px_check_stability(const px_ctx *x, const storq_params *p, storq_error *err)
{
    for (int i = 0; i < x->nclass; i++)
        if (!isfinite(x->cls[i].tau)) {
            for (int q = 0; q < x->npol; q++)
                if (x->pol[q].kind == PX_BAFEC)
                    return storq_fail(err, STORQ_ERR_USAGE,
                                      "--code: bafec needs the Delta + Exp fit of every class's "
                                      "delay law (mean and standard deviation), but '%s' has an "
                                      "infinite variance", x->cls[i].law.spec);
            storq_warn("proxy: the delay law '%s' has an infinite variance: there is no capacity "
                       "estimate, and the load is not checked", x->cls[i].law.spec);
            return STORQ_OK;
        }
    for (int q = 0; q < x->npol; q++) {
        const px_policy *P = &x->pol[q];
        uint64_t n[PX_MAX_CLASSES];
        for (int i = 0; i < x->nclass; i++)
            n[i] = P->kind == PX_FIXED ? P->n[i] : x->cls[i].k;
        const double C = px_mix_capacity(x, n);
        if (x->lambda < C)
            continue;
        STORQ_TRY(storq_refuse_unstable(p, "proxy", "--lambda", err,
                                        "--lambda: %g is at or beyond the capacity estimate %g "
                                        "of --code %s (%s admission, L = %llu; the paper's "
                                        "approximation, theory/capacity_estimate)",
                                        x->lambda, C, P->spec,
                                        x->admission == PX_BLOCKING ? "blocking"
                                                                    : "non-blocking",
                                        (unsigned long long)x->L));
    }
    return STORQ_OK;
}

/* ------------------------------------------------------------------ prepare */

static int px_prepare(const storq_params *p, void **out, storq_error *err)
{
    *out = NULL;
    px_ctx *x = calloc(1, sizeof *x);
    if (!x)
        return STORQ_RUNTIME_FAIL(err, "out of memory");
    int rc;
    x->L = (uint64_t)storq_param_int(p, "L");
    x->lambda = storq_param_real(p, "lambda");
    x->admission = strcmp(storq_param_string(p, "admission"), "blocking") == 0 ? PX_BLOCKING
                                                                                : PX_NONBLOCKING;
    x->run = storq_run_length_of(p);
    const char *classes = storq_param_string(p, "classes");
    if (strcmp(classes, "none") == 0) {
        px_class *c = &x->cls[0];
        x->nclass = 1;
        snprintf(c->name, sizeof c->name, "all");
        c->share = 1.0;
        c->k = (uint64_t)storq_param_int(p, "k");
        c->nmax = (uint64_t)storq_param_int(p, "nmax");
        if ((rc = storq_dist_parse_as(storq_param_string(p, "delay"), "--delay",
                                      storq_law_forms(STORQ_LAWS_TIME), &c->law, err)))
            goto fail;
        c->have_law = 1;
    } else {
        /* with classes, the one-class flags would be silently ignored: refuse them instead */
        static const char *const single[] = {"k", "nmax", "delay"};
        for (size_t i = 0; i < 3; i++) {
            size_t idx;
            const storq_param_def *d = storq_param_find(px_params, single[i], &idx);
            if (strcmp(storq_param_string(p, single[i]), d->def) != 0) {
                rc = storq_fail(err, STORQ_ERR_USAGE,
                                "--%s: has no effect with --classes, which gives each class its "
                                "own K, NMAX and LAW; drop --%s",
                                single[i], single[i]);
                goto fail;
            }
        }
        if ((rc = px_parse_classes(x, classes, err)))
            goto fail;
    }
    x->mean_task = 0.0;
    for (int i = 0; i < x->nclass; i++) {
        if ((rc = px_class_init(x, &x->cls[i], err)))
            goto fail;
        x->mean_task += x->cls[i].share * x->cls[i].law.mean;
    }
    if ((rc = px_parse_code(x, storq_param_string(p, "code"), err)))
        goto fail;
    if ((rc = px_check_stability(x, p, err)))
        goto fail;
    /* the clock is never rebased: it runs over every arrival; the shortest mean times are a
     * class's task delay and the gap between arrivals */
    double shortest = 1.0 / x->lambda;
    for (int i = 0; i < x->nclass; i++)
        shortest = fmin(shortest, x->cls[i].law.mean);
    if ((rc = storq_check_time_resolution("proxy: --lambda/--delay (or --classes)",
                                          ((double)x->run.warmup + (double)x->run.arrivals) / x->lambda,
                                          shortest, err)))
        goto fail;
    /* per policy, per thread: request slot, task, end time, heap entry and position, idle heap
     * (dynamics.c); the request slots grow with the backlog, up to PX_MAX_BACKLOG */
    size_t per_thread = 2 * sizeof(int32_t) + sizeof(double) + 3 * sizeof(uint32_t);
    char what[96];
    snprintf(what, sizeof what, "--L/--code: %llu threads for %d policies",
             (unsigned long long)x->L, x->npol);
    if ((rc = storq_memory_check(storq_bytes_mul(storq_bytes_mul((size_t)x->L, per_thread),
                                                 (size_t)x->npol),
                                 what, "for per-thread arrays per replication (and thread)", err)))
        goto fail;
    snprintf(x->headline, sizeof x->headline, "%s_mean_delay", x->pol[0].name);
    for (int i = 0; i < x->nclass; i++)
        storq_px_thresholds(x, &x->cls[i]);
    *out = x;
    return STORQ_OK;
fail:
    px_release(x);
    return rc;
}

/* ------------------------------------------------------------------ observables */

static int px_declare_policy(px_ctx *x, int pi, const double *axis, storq_observables *obs,
                             storq_error *err)
{
    const char *P = x->pol[pi].name;
    px_ids *id = &x->id[pi];
    const double lo = x->mean_task * 1e-6, hi = x->mean_task * 1e9;
    char name[STORQ_NAME_MAX], desc[256];
#define NM(...) (snprintf(name, sizeof name, __VA_ARGS__), name)
#define DS(...) (snprintf(desc, sizeof desc, __VA_ARGS__), desc)
    STORQ_TRY(storq_declare_hist_loglin(obs, &id->delay, NM("%s_delay", P), "time",
                                        DS("%s: total delay of a measured request (arrival to its "
                                           "k-th finished task)", P), lo, hi, 7, err));
    STORQ_TRY(storq_declare_hist_loglin(obs, &id->qdelay, NM("%s_queueing_delay", P), "time",
                                        DS("%s: queueing delay, admission - arrival", P), lo, hi,
                                        7, err));
    STORQ_TRY(storq_declare_hist_loglin(obs, &id->sdelay, NM("%s_service_delay", P), "time",
                                        DS("%s: service delay, completion - admission", P), lo,
                                        hi, 7, err));
    STORQ_TRY(storq_declare_scalar(obs, &id->mean, NM("%s_mean_delay", P), "time",
                                   DS("%s: mean total delay of the measured requests", P), err));
    STORQ_TRY(storq_declare_scalar(obs, &id->qmean, NM("%s_mean_queueing_delay", P), "time",
                                   DS("%s: mean queueing delay", P), err));
    STORQ_TRY(storq_declare_scalar(obs, &id->smean, NM("%s_mean_service_delay", P), "time",
                                   DS("%s: mean service delay", P), err));
    STORQ_TRY(storq_declare_scalar(obs, &id->p99, NM("%s_delay_p99", P), "time",
                                   DS("%s: 99th percentile of the replication's total delays, "
                                      "read off its histogram (within 2^-7 relative)", P), err));
    STORQ_TRY(storq_declare_scalar(obs, &id->p999, NM("%s_delay_p999", P), "time",
                                   DS("%s: 99.9th percentile of the replication's total delays, "
                                      "read off its histogram (within 2^-7 relative)", P), err));
    STORQ_TRY(storq_declare_vector(obs, &id->share, NM("%s_code_share", P), "1",
                                   DS("%s: fraction of the measured requests served with n tasks "
                                      "(axis n)", P), (size_t)x->nmax_all, "n", axis, err));
    STORQ_TRY(storq_declare_scalar(obs, &id->util, NM("%s_utilisation", P), "1",
                                   DS("%s: busy thread time / (L T) over the measurement window "
                                      "(cancelled tasks up to their cancellation)", P), err));
    STORQ_TRY(storq_declare_hist_int(obs, &id->backlog, NM("%s_backlog", P), "requests",
                                     DS("%s: requests waiting in the request queue seen by a "
                                        "measured arrival (by PASTA the time-average law)", P),
                                     PX_BACKLOG_BINS, err));
    STORQ_TRY(storq_declare_scalar(obs, &id->mean_backlog, NM("%s_mean_backlog", P), "requests",
                                   DS("%s: time-average number of requests waiting over the "
                                      "measurement window", P), err));
    STORQ_TRY(storq_declare_scalar(obs, &id->throughput, NM("%s_throughput", P), "1/time",
                                   DS("%s: requests completed in the measurement window / its "
                                      "length", P), err));
    id->diff = -1;
    if (pi > 0)
        STORQ_TRY(storq_declare_scalar(obs, &id->diff,
                                       NM("diff_%s_%s_mean_delay", P, x->pol[0].name), "time",
                                       DS("%s_mean_delay - %s_mean_delay in the same replication "
                                          "(coupled: its CI is the paired difference's)", P,
                                          x->pol[0].name), err));
    for (int c = 0; c < x->nclass && x->nclass > 1; c++) {
        const char *C = x->cls[c].name;
        STORQ_TRY(storq_declare_hist_loglin(obs, &id->cdelay[c], NM("%s_%s_delay", P, C), "time",
                                            DS("%s: total delay of a measured %s request", P, C),
                                            lo, hi, 7, err));
        STORQ_TRY(storq_declare_scalar(obs, &id->cmean[c], NM("%s_%s_mean_delay", P, C), "time",
                                       DS("%s: mean total delay of class %s", P, C), err));
        STORQ_TRY(storq_declare_scalar(obs, &id->cqmean[c], NM("%s_%s_mean_queueing_delay", P, C),
                                       "time", DS("%s: mean queueing delay of class %s", P, C),
                                       err));
        STORQ_TRY(storq_declare_scalar(obs, &id->csmean[c], NM("%s_%s_mean_service_delay", P, C),
                                       "time", DS("%s: mean service delay of class %s", P, C),
                                       err));
        STORQ_TRY(storq_declare_scalar(obs, &id->cp999[c], NM("%s_%s_delay_p999", P, C), "time",
                                       DS("%s: 99.9th percentile of class %s's total delays in "
                                          "the replication", P, C), err));
        STORQ_TRY(storq_declare_vector(obs, &id->cshare[c], NM("%s_%s_code_share", P, C), "1",
                                       DS("%s: fraction of the measured %s requests served with n "
                                          "tasks (axis n)", P, C), (size_t)x->nmax_all, "n", axis,
                                       err));
    }
#undef NM
#undef DS
    return STORQ_OK;
}

static int px_declare(void *vctx, storq_observables *obs, storq_error *err)
{
    px_ctx *x = vctx;
    double *axis = malloc(sizeof *axis * (size_t)x->nmax_all);
    if (!axis)
        return STORQ_RUNTIME_FAIL(err, "out of memory");
    for (uint64_t n = 0; n < x->nmax_all; n++)
        axis[n] = (double)(n + 1);
    int rc = STORQ_OK;
    for (int pi = 0; pi < x->npol && !rc; pi++)
        rc = px_declare_policy(x, pi, axis, obs, err);
    free(axis);
    /* the steady-state check of the headline (docs/steady-state.md), declared last: the other
     * observables keep the layout of a point without it */
    return rc ? rc : storq_steady_declare(obs, &x->steady, x->headline, "time", err);
}

/* ------------------------------------------------------------------ cost and ops */

static const char *px_headline(const void *vctx)
{
    const px_ctx *x = vctx;
    return x->headline; /* the first policy's mean delay */
}

static double px_cost(const void *vctx)
{
    const px_ctx *x = vctx;
    double n = 0.0;
    for (int i = 0; i < x->nclass; i++)
        n += x->cls[i].share * (double)x->cls[i].nmax;
    return (double)(x->run.warmup + x->run.arrivals) * (n * log2((double)x->L + 1.0) + 2.0) *
           (double)x->npol;
}

/* The event loop counts requests (and goes on while the last ones drain). */
const storq_model storq_model_proxy = {
    .name = "proxy",
    .summary = "a proxy with L threads serving requests as (n,k)-coded tasks (fixed codes, Greedy, "
               "BAFEC/MBAFEC coupled, one or more classes), with the paper's delay and capacity "
               "approximations and thresholds",
    .params = px_params,
    .prepare = px_prepare,
    .release = px_release,
    .declare = px_declare,
    .replicate = storq_px_replicate,
    .theory = storq_px_theory,
    .compare = storq_px_compare,
    .cost = px_cost,
    .headline = px_headline,
    .class_fields = "share:k:nmax:delay",
};
