#include "observables.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

static int valid_name(const char *name)
{
    if (!name || !*name || strlen(name) >= STORQ_NAME_MAX)
        return 0;
    for (const char *p = name; *p; p++)
        if (!isalnum((unsigned char)*p) && *p != '_')
            return 0;
    return 1;
}

/* Append a definition; the kind-specific fields are filled by the caller. */
static storq_obs_def *add_def(storq_observables *obs, const char *name, const char *unit,
                              const char *desc, storq_obs_kind kind, storq_error *err)
{
    if (!valid_name(name)) {
        STORQ_RUNTIME_FAIL(err, "observable name '%s' must be letters, digits and '_'", name);
        return NULL;
    }
    if (storq_obs_find(obs, name)) {
        STORQ_RUNTIME_FAIL(err, "observable '%s' declared twice", name);
        return NULL;
    }
    if (obs->ndefs == obs->cap) {
        size_t cap = obs->cap ? 2 * obs->cap : 16;
        storq_obs_def *defs = realloc(obs->defs, cap * sizeof *defs);
        if (!defs) {
            STORQ_RUNTIME_FAIL(err, "out of memory");
            return NULL;
        }
        obs->defs = defs;
        obs->cap = cap;
    }
    storq_obs_def *d = &obs->defs[obs->ndefs];
    memset(d, 0, sizeof *d);
    snprintf(d->name, sizeof d->name, "%s", name);
    snprintf(d->unit, sizeof d->unit, "%s", unit ? unit : "");
    snprintf(d->desc, sizeof d->desc, "%s", desc ? desc : "");
    d->kind = kind;
    d->cols = 1;
    d->length = 1;
    d->value_offset = obs->nvalues;
    return d;
}

/* Commit the definition returned by add_def: reserve its storage and write its id. */
static int commit_def(storq_observables *obs, storq_obs_def *d, int *id)
{
    obs->nvalues += d->length;
    size_t doubles = d->length;
    if (d->kind == STORQ_OBS_HIST) {
        d->count_offset = obs->ncounts;
        d->minmax_offset = obs->nminmax;
        obs->ncounts += d->nbins + 2;
        obs->nminmax += 2;
        doubles = storq_bytes_add(doubles, storq_bytes_add(d->nbins, 4)); /* counts, min, max */
    }
    if (d->axis)
        doubles = storq_bytes_add(doubles, d->length / d->cols);
    obs->bytes = storq_bytes_add(obs->bytes, storq_bytes_mul(doubles, sizeof(double)));
    *id = (int)obs->ndefs++;
    return STORQ_OK;
}

/* The error code to return after a failed declaration (add_def failed or a check did). */
static int failed(int *id, storq_error *err)
{
    *id = -1;
    return err->code ? err->code : STORQ_ERR_RUNTIME;
}

int storq_declare_scalar(storq_observables *obs, int *id, const char *name, const char *unit,
                         const char *desc, storq_error *err)
{
    storq_obs_def *d = add_def(obs, name, unit, desc, STORQ_OBS_SCALAR, err);
    return d ? commit_def(obs, d, id) : failed(id, err);
}

int storq_declare_matrix(storq_observables *obs, int *id, const char *name, const char *unit,
                         const char *desc, size_t rows, size_t cols, const char *axis_name,
                         const double *axis, storq_error *err)
{
    if (rows == 0 || cols == 0) {
        STORQ_RUNTIME_FAIL(err, "observable '%s' has no elements", name);
        return failed(id, err);
    }
    /* a record holds the matrix, a point's table holds it per replication: the sizes are checked
     * by the kernel's prepare (storq_memory_check); here they must at least not wrap */
    if (storq_bytes_mul(storq_bytes_mul(rows, cols), sizeof(double)) == SIZE_MAX) {
        /* the sizes come from the parameters (grid, levels): the request is what is wrong */
        storq_fail(err, STORQ_ERR_USAGE, "observable '%s': %zu x %zu values are more than can "
                   "be addressed; lower the parameters that size it", name, rows, cols);
        return failed(id, err);
    }
    storq_obs_def *d = add_def(obs, name, unit, desc, STORQ_OBS_VECTOR, err);
    if (!d)
        return failed(id, err);
    d->length = rows * cols;
    d->cols = cols;
    if (axis) {
        d->axis = malloc(rows * sizeof *d->axis);
        if (!d->axis) {
            STORQ_RUNTIME_FAIL(err, "out of memory");
            return failed(id, err);
        }
        memcpy(d->axis, axis, rows * sizeof *d->axis);
        snprintf(d->axis_name, sizeof d->axis_name, "%s", axis_name ? axis_name : "axis");
    }
    return commit_def(obs, d, id);
}

int storq_declare_vector(storq_observables *obs, int *id, const char *name, const char *unit,
                         const char *desc, size_t length, const char *axis_name,
                         const double *axis, storq_error *err)
{
    return storq_declare_matrix(obs, id, name, unit, desc, length, 1, axis_name, axis, err);
}

int storq_declare_hist_loglin(storq_observables *obs, int *id, const char *name,
                              const char *unit, const char *desc, double lo, double hi,
                              int sub_bits, storq_error *err)
{
    if (!(lo > 0) || !(hi > lo) || sub_bits < 0 || sub_bits > 20 || !isfinite(hi)) {
        STORQ_RUNTIME_FAIL(err, "histogram '%s': need 0 < lo < hi and 0 <= sub_bits <= 20", name);
        return failed(id, err);
    }
    storq_obs_def *d = add_def(obs, name, unit, desc, STORQ_OBS_HIST, err);
    if (!d)
        return failed(id, err);
    int emin, emax;
    frexp(lo, &emin); /* lo = m 2^emin with m in [0.5, 1): 2^(emin-1) <= lo */
    frexp(hi, &emax);
    d->hist_kind = STORQ_HIST_LOGLIN;
    d->emin = emin - 1;
    d->emax = ldexp(1.0, emax - 1) == hi ? emax - 1 : emax;
    d->sub_bits = sub_bits;
    d->nbins = (size_t)(d->emax - d->emin) << sub_bits;
    return commit_def(obs, d, id);
}

int storq_declare_hist_int(storq_observables *obs, int *id, const char *name, const char *unit,
                           const char *desc, size_t nbins, storq_error *err)
{
    if (nbins == 0 || nbins > SIZE_MAX / sizeof(uint64_t) - 2) {
        storq_fail(err, STORQ_ERR_USAGE, "histogram '%s' needs between 1 and %zu bins", name,
                   SIZE_MAX / sizeof(uint64_t) - 2);
        return failed(id, err);
    }
    storq_obs_def *d = add_def(obs, name, unit, desc, STORQ_OBS_HIST, err);
    if (!d)
        return failed(id, err);
    d->hist_kind = STORQ_HIST_INT;
    d->nbins = nbins;
    return commit_def(obs, d, id);
}

void storq_observables_free(storq_observables *obs)
{
    if (!obs)
        return;
    for (size_t i = 0; i < obs->ndefs; i++)
        free(obs->defs[i].axis);
    free(obs->defs);
    memset(obs, 0, sizeof *obs);
}

const storq_obs_def *storq_obs_find(const storq_observables *obs, const char *name)
{
    for (size_t i = 0; obs && i < obs->ndefs; i++)
        if (strcmp(obs->defs[i].name, name) == 0)
            return &obs->defs[i];
    return NULL;
}

void storq_hist_edges(const storq_obs_def *def, double *edges)
{
    if (def->hist_kind == STORQ_HIST_INT) {
        for (size_t j = 0; j <= def->nbins; j++)
            edges[j] = (double)j;
        return;
    }
    size_t per = (size_t)1 << def->sub_bits;
    for (size_t j = 0; j <= def->nbins; j++) {
        int e = def->emin + (int)(j / per);
        edges[j] = ldexp(1.0 + (double)(j % per) / (double)per, e);
    }
}

size_t storq_observables_max_nbins(const storq_observables *obs)
{
    size_t most = 0;
    for (size_t i = 0; i < obs->ndefs; i++)
        if (obs->defs[i].kind == STORQ_OBS_HIST && obs->defs[i].nbins > most)
            most = obs->defs[i].nbins;
    return most;
}

double storq_record_hist_quantile(const storq_record *rec, int id, double q, double *edges)
{
    const storq_obs_def *d = &rec->schema->defs[id];
    const uint64_t *cnt = rec->counts + d->count_offset;
    uint64_t all = 0;
    for (size_t b = 0; b < d->nbins + 2; b++)
        all += cnt[b];
    if (!all)
        return NAN;
    storq_hist_edges(d, edges);
    const double want = q * (double)all;
    double cum = (double)cnt[0];
    if (cum >= want)
        return edges[0];
    for (size_t b = 1; b <= d->nbins; b++) {
        const double cb = (double)cnt[b];
        if (cb > 0 && cum + cb >= want)
            return edges[b - 1] + (want - cum) / cb * (edges[b] - edges[b - 1]);
        cum += cb;
    }
    return INFINITY;
}

static void reset_minmax(double *minmax, size_t n)
{
    for (size_t i = 0; i < n; i += 2) {
        minmax[i] = INFINITY;
        minmax[i + 1] = -INFINITY;
    }
}

int storq_record_init(storq_record *rec, const storq_observables *schema, storq_error *err)
{
    memset(rec, 0, sizeof *rec);
    rec->schema = schema;
    rec->values = calloc(schema->nvalues + 1, sizeof *rec->values);
    rec->counts = calloc(schema->ncounts + 1, sizeof *rec->counts);
    rec->minmax = calloc(schema->nminmax + 1, sizeof *rec->minmax);
    if (!rec->values || !rec->counts || !rec->minmax) {
        storq_record_free(rec);
        return STORQ_RUNTIME_FAIL(err, "out of memory");
    }
    storq_record_reset(rec);
    return STORQ_OK;
}

void storq_record_reset(storq_record *rec)
{
    const storq_observables *s = rec->schema;
    memset(rec->values, 0, s->nvalues * sizeof *rec->values);
    memset(rec->counts, 0, s->ncounts * sizeof *rec->counts);
    reset_minmax(rec->minmax, s->nminmax);
    rec->events = 0;
}

void storq_record_free(storq_record *rec)
{
    if (!rec)
        return;
    free(rec->values);
    free(rec->counts);
    free(rec->minmax);
    rec->values = NULL;
    rec->counts = NULL;
    rec->minmax = NULL;
}

storq_hist storq_record_hist(storq_record *rec, int id)
{
    const storq_obs_def *d = &rec->schema->defs[id];
    storq_hist h;
    h.counts = rec->counts + d->count_offset;
    h.sum = rec->values + d->value_offset;
    h.min = rec->minmax + d->minmax_offset;
    h.max = h.min + 1;
    h.kind = d->hist_kind;
    h.nbins = d->nbins;
    h.sub_bits = d->sub_bits;
    h.emin = d->emin;
    if (d->hist_kind == STORQ_HIST_INT) {
        h.lo = 0.0;
        h.hi = (double)d->nbins;
    } else {
        h.lo = ldexp(1.0, d->emin);
        h.hi = ldexp(1.0, d->emax);
    }
    return h;
}

int storq_point_result_init(storq_point_result *res, const storq_observables *schema,
                            size_t replications, storq_error *err)
{
    memset(res, 0, sizeof *res);
    res->schema = schema;
    res->replications = replications;
    res->values = calloc(replications * schema->nvalues + 1, sizeof *res->values);
    res->counts = calloc(schema->ncounts + 1, sizeof *res->counts);
    res->minmax = calloc(schema->nminmax + 1, sizeof *res->minmax);
    if (!res->values || !res->counts || !res->minmax) {
        storq_point_result_free(res);
        return STORQ_RUNTIME_FAIL(err, "out of memory");
    }
    reset_minmax(res->minmax, schema->nminmax);
    return STORQ_OK;
}

void storq_point_result_add(storq_point_result *res, size_t rep, const storq_record *rec)
{
    const storq_observables *s = res->schema;
    memcpy(res->values + rep * s->nvalues, rec->values, s->nvalues * sizeof *rec->values);
    for (size_t i = 0; i < s->ncounts; i++)
        res->counts[i] += rec->counts[i];
    for (size_t i = 0; i < s->nminmax; i += 2) {
        res->minmax[i] = fmin(res->minmax[i], rec->minmax[i]);
        res->minmax[i + 1] = fmax(res->minmax[i + 1], rec->minmax[i + 1]);
    }
    res->events += rec->events;
}

void storq_point_result_free(storq_point_result *res)
{
    if (!res)
        return;
    free(res->values);
    free(res->counts);
    free(res->minmax);
    memset(res, 0, sizeof *res);
}

/* Element j over replications 0 .. R-1, t the Student quantile of R - 1 degrees of freedom. */
static void summary_column(const storq_point_result *res, size_t R, size_t j, double t,
                           double *mean_out, double *stderr_out, double *ci95_out)
{
    const size_t nv = res->schema->nvalues;
    /* Two passes in replication order: the same numbers whatever ran where. In units of 2^k near
     * the largest value, so that squares at time scales like 1e-200 do not underflow to a ci95
     * of 0 (nor sums at 1e300 overflow); exact, hence the same bits. */
    const int k = storq_scale_exponent(res->values + j, R, nv);
    double sum = 0.0;
    for (size_t r = 0; r < R; r++)
        sum += ldexp(res->values[r * nv + j], -k);
    double mean = R ? sum / (double)R : NAN;
    double ss = 0.0;
    for (size_t r = 0; r < R; r++) {
        double d = ldexp(res->values[r * nv + j], -k) - mean;
        ss += d * d;
    }
    *mean_out = ldexp(mean, k);
    *stderr_out = R > 1 ? ldexp(sqrt(ss / (double)(R - 1) / (double)R), k) : INFINITY;
    *ci95_out = R > 1 ? t * *stderr_out : INFINITY;
}

int storq_summary_compute(storq_summary *s, const storq_point_result *res, storq_error *err)
{
    size_t nv = res->schema->nvalues, R = res->replications;
    memset(s, 0, sizeof *s);
    s->schema = res->schema;
    s->replications = R;
    s->result = res;
    s->mean = calloc(nv + 1, sizeof *s->mean);
    s->stderr_ = calloc(nv + 1, sizeof *s->stderr_);
    s->ci95 = calloc(nv + 1, sizeof *s->ci95);
    if (!s->mean || !s->stderr_ || !s->ci95) {
        storq_summary_free(s);
        return STORQ_RUNTIME_FAIL(err, "out of memory");
    }
    double t = R > 1 ? storq_t_quantile(0.95, R - 1) : INFINITY;
    for (size_t j = 0; j < nv; j++)
        summary_column(res, R, j, t, &s->mean[j], &s->stderr_[j], &s->ci95[j]);
    return STORQ_OK;
}

void storq_summary_column(const storq_point_result *res, size_t R, size_t j, double *mean,
                          double *stderr_, double *ci95)
{
    double t = R > 1 ? storq_t_quantile(0.95, R - 1) : INFINITY;
    summary_column(res, R, j, t, mean, stderr_, ci95);
}

void storq_summary_free(storq_summary *s)
{
    if (!s)
        return;
    free(s->mean);
    free(s->stderr_);
    free(s->ci95);
    s->mean = s->stderr_ = s->ci95 = NULL;
}
