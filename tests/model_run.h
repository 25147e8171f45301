/* Running a model's parameter point through the model interface, for the C tests: parameters set
 * by name (a usage error is a bug in the test: abort), one replication at a time (the reference
 * tests) or R replications keeping every replication's values and histogram counts (the
 * statistical tests), and the across-replication mean, standard error and "within c standard
 * errors" check. Header-only: every test is its own executable. */
#ifndef STORQ_TEST_MODEL_RUN_H
#define STORQ_TEST_MODEL_RUN_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "model.h"
#include "models.h"
#include "observables.h"
#include "params.h"
#include "stats.h"

/* ------------------------------------------------------------------ parameters */

static inline void model_defaults(storq_params *p, const storq_model *model)
{
    storq_error err = {0};
    if (storq_params_defaults(p, model, &err)) {
        fprintf(stderr, "defaults: %s\n", err.msg);
        abort();
    }
}

static inline void model_set(storq_params *p, const char *name, const char *text)
{
    storq_error err = {0};
    if (storq_params_set(p, name, text, &err)) {
        fprintf(stderr, "set %s=%s: %s\n", name, text, err.msg);
        abort();
    }
}

static inline void model_setl(storq_params *p, const char *name, long v)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%ld", v);
    model_set(p, name, buf);
}

/* %.17g round-trips: the model gets this very double. */
static inline void model_setd(storq_params *p, const char *name, double v)
{
    char buf[40];
    snprintf(buf, sizeof buf, "%.17g", v);
    model_set(p, name, buf);
}

/* args: "name=value" strings, NULL-terminated. */
static inline void model_set_args(storq_params *p, const char *const *args)
{
    for (const char *const *a = args; *a; a++) {
        const char *eq = strchr(*a, '=');
        if (!eq) {
            fprintf(stderr, "%s: not name=value\n", *a);
            abort();
        }
        char name[64];
        snprintf(name, sizeof name, "%.*s", (int)(eq - *a), *a);
        model_set(p, name, eq + 1);
    }
}

/* ------------------------------------------------------------------ a point */

typedef struct model_run {
    const storq_model *model;
    storq_params p;
    void *ctx;
    storq_observables obs;
    storq_record rec;  /* model_run_replicate's replication */
    size_t reps;       /* model_run_reps: */
    double *values;    /*   reps x obs.nvalues */
    uint64_t *counts;  /*   reps x obs.ncounts */
} model_run;

/* Start a point: every parameter at its default; set more with model_set(&r->p, ...). */
static inline void model_run_init(model_run *r, const storq_model *model)
{
    memset(r, 0, sizeof *r);
    r->model = model;
    model_defaults(&r->p, model);
}

static inline void model_run_free(model_run *r)
{
    free(r->values);
    free(r->counts);
    storq_record_free(&r->rec);
    storq_observables_free(&r->obs);
    if (r->ctx)
        r->model->release(r->ctx);
    storq_params_free(&r->p);
    memset(r, 0, sizeof *r);
}

/* Prepare and declare the point (and a record for model_run_replicate). -1 (printed, and r freed)
 * if the model refuses the point. */
static inline int model_run_prepare(model_run *r)
{
    storq_error err = {0};
    if (r->model->prepare(&r->p, &r->ctx, &err) || r->model->declare(r->ctx, &r->obs, &err) ||
        storq_record_init(&r->rec, &r->obs, &err)) {
        fprintf(stderr, "prepare/declare: %s\n", err.msg);
        model_run_free(r);
        return -1;
    }
    return 0;
}

/* One replication into r->rec, with streams keyed {seed, point, rep}. */
static inline int model_run_replicate(model_run *r, uint64_t seed, uint64_t point, uint64_t rep)
{
    storq_error err = {0};
    storq_record_reset(&r->rec);
    storq_stream_key key = {.seed = seed, .point = point, .replication = rep};
    if (r->model->replicate(r->ctx, &key, &r->rec, &err)) {
        fprintf(stderr, "replicate: %s\n", err.msg);
        return -1;
    }
    return 0;
}

/* Replications 0 .. reps-1 of a prepared point, keyed {seed, point, rep}, in parallel; every
 * replication's values and histogram counts are kept, in row rep. -1 if one fails. */
static inline int model_run_reps(model_run *r, size_t reps, uint64_t seed, uint64_t point)
{
    const size_t nv = r->obs.nvalues, nc = r->obs.ncounts;
    r->reps = reps;
    r->values = calloc(reps * (nv ? nv : 1), sizeof *r->values);
    r->counts = calloc(reps * (nc ? nc : 1), sizeof *r->counts);
    if (!r->values || !r->counts)
        abort();
    int failed = 0;
#pragma omp parallel for schedule(dynamic)
    for (size_t i = 0; i < reps; i++) {
        storq_record rec;
        storq_error e = {0};
        if (storq_record_init(&rec, &r->obs, &e)) {
#pragma omp atomic write
            failed = 1;
            continue;
        }
        storq_record_reset(&rec);
        storq_stream_key key = {.seed = seed, .point = point, .replication = i};
        if (r->model->replicate(r->ctx, &key, &rec, &e)) {
            fprintf(stderr, "replication %zu: %s\n", i, e.msg);
#pragma omp atomic write
            failed = 1;
        }
        memcpy(r->values + i * nv, rec.values, nv * sizeof *rec.values);
        memcpy(r->counts + i * nc, rec.counts, nc * sizeof *rec.counts);
        storq_record_free(&rec);
    }
    return failed ? -1 : 0;
}

/* Defaults, then args ("name=value", NULL-terminated), prepare, and reps replications keyed
 * {seed, 0, rep}. -1 if the model refuses the point (r is then freed) or a replication fails. */
static inline int model_run_point(model_run *r, const storq_model *model, size_t reps,
                                  uint64_t seed, const char *const *args)
{
    model_run_init(r, model);
    model_set_args(&r->p, args);
    if (model_run_prepare(r))
        return -1;
    return model_run_reps(r, reps, seed, 0);
}

/* ------------------------------------------------------------------ reading the results */

/* The observable name (a bug in the test if it is missing: abort). */
static inline const storq_obs_def *model_run_def(const model_run *r, const char *name)
{
    const storq_obs_def *d = storq_obs_find(&r->obs, name);
    if (!d) {
        fprintf(stderr, "no observable %s\n", name);
        abort();
    }
    return d;
}

/* Offset of element i of observable name in a row of values. */
static inline size_t model_run_offset(const model_run *r, const char *name, size_t i)
{
    return model_run_def(r, name)->value_offset + i;
}

static inline const double *model_run_row(const model_run *r, size_t rep)
{
    return r->values + rep * r->obs.nvalues;
}

static inline double model_run_value(const model_run *r, size_t rep, const char *name, size_t i)
{
    return model_run_row(r, rep)[model_run_offset(r, name, i)];
}

/* Replication rep's counts of histogram d (underflow, bins, overflow), and their total. */
static inline const uint64_t *model_run_counts(const model_run *r, size_t rep,
                                               const storq_obs_def *d)
{
    return r->counts + rep * r->obs.ncounts + d->count_offset;
}

static inline uint64_t model_run_hist_total(const model_run *r, size_t rep,
                                            const storq_obs_def *d)
{
    const uint64_t *c = model_run_counts(r, rep, d);
    uint64_t all = 0;
    for (size_t b = 0; b < d->nbins + 2; b++)
        all += c[b];
    return all;
}

/* ------------------------------------------------------------------ statistics */

/* Mean and standard error of v[0], v[stride], .., v[(n-1) stride], summed in that order. */
static inline void model_mean_se(const double *v, size_t n, size_t stride, double *mean,
                                 double *se)
{
    double m = 0, s = 0;
    for (size_t i = 0; i < n; i++)
        m += v[i * stride];
    m /= (double)n;
    for (size_t i = 0; i < n; i++) {
        double d = v[i * stride] - m;
        s += d * d;
    }
    *mean = m;
    *se = sqrt(s / (double)(n - 1) / (double)n);
}

/* Mean and standard error over the replications of value element off. */
static inline void model_run_stat(const model_run *r, size_t off, double *mean, double *se)
{
    model_mean_se(r->values + off, r->reps, r->obs.nvalues, mean, se);
}

/* The c with P(|T| > c) = p for Student's t with df degrees of freedom (src/toolkit/stats.c). */
static inline double model_t_two_sided(double p, size_t df)
{
    return storq_t_quantile(1.0 - p, df);
}

#ifndef MODEL_CHECK_WIDTH
#define MODEL_CHECK_WIDTH 40 /* the label column of model_check_mean */
#endif

/* |mean - exact| <= allowance + c se, printing the numbers. */
static inline void model_check_mean(const char *what, double mean, double se, double exact,
                                    double allowance, double c)
{
    double dev = fabs(mean - exact);
    int ok = dev <= allowance + c * se;
    printf("  %-*s mean %.6g  exact %.6g  |diff| %.3g  se %.3g  (%.2f se; limit %.3g)%s\n",
           MODEL_CHECK_WIDTH, what, mean, exact, dev, se, se > 0 ? dev / se : 0.0,
           allowance + c * se, ok ? "" : "  FAIL");
    CHECK(ok);
}

#endif
