/* A finished point as a tree: the objects of its 1.x point group in the order and with the
 * attributes io/h5_point_writer.c gives them (docs/hdf5-schema.md, "Points"), checksums aside.
 * tests/test_point_record.c holds the two equal on every model. */
#include "point_record.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "schema.h"

static int oom(storq_error *err, const char *what)
{
    return STORQ_RUNTIME_FAIL(err, "out of memory building a point's record (%s)", what);
}

static int add_f64(storq_pt_node *g, const char *name, int nd, const uint64_t *dims,
                   const double *data, storq_error *err)
{
    return storq_pt_add_dataset(g, name, STORQ_PT_F64, nd, dims, data, NULL, err);
}

static int add_u64(storq_pt_node *g, const char *name, int nd, const uint64_t *dims,
                   const uint64_t *data, storq_error *err)
{
    return storq_pt_add_dataset(g, name, STORQ_PT_U64, nd, dims, data, NULL, err);
}

static int point_attrs(storq_pt_node *g, const storq_model *model, const storq_params *params,
                       const storq_point_result *res, double wall_seconds, storq_error *err)
{
    STORQ_TRY(storq_pt_set_string(g, STORQ_SCHEMA_ATTR_MODEL, model->name, err));
    STORQ_TRY(storq_pt_set_u64(g, STORQ_SCHEMA_ATTR_REPLICATIONS, res->replications, err));
    STORQ_TRY(storq_pt_set_f64(g, STORQ_SCHEMA_ATTR_WALL_SECONDS, wall_seconds, err));
    STORQ_TRY(storq_pt_set_u64(g, STORQ_SCHEMA_ATTR_EVENTS, res->events, err));
    size_t n = storq_param_count(model->params);
    for (size_t i = 0; i < n; i++) {
        const storq_param_def *d = &model->params[i];
        const storq_param_value *v = &params->v[i];
        if (d->type == STORQ_PARAM_INT)
            STORQ_TRY(storq_pt_set_i64(g, d->name, v->i, err));
        else if (d->type == STORQ_PARAM_REAL)
            STORQ_TRY(storq_pt_set_f64(g, d->name, v->r, err));
        else
            STORQ_TRY(storq_pt_set_string(g, d->name, v->s, err));
    }
    return STORQ_OK;
}

const char *storq_point_kind_name(storq_obs_kind kind)
{
    switch (kind) {
    case STORQ_OBS_SCALAR:
        return "scalar";
    case STORQ_OBS_VECTOR:
        return "vector";
    case STORQ_OBS_HIST:
        return "histogram";
    }
    return "unknown";
}

int storq_point_value_shape(const storq_obs_def *def, uint64_t *dims)
{
    if (def->kind != STORQ_OBS_VECTOR)
        return 0;
    if (def->cols > 1) {
        dims[0] = def->length / def->cols;
        dims[1] = def->cols;
        return 2;
    }
    dims[0] = def->length;
    return 1;
}

static int summary(storq_pt_node *g, const storq_obs_def *def, const storq_summary *s,
                   storq_error *err)
{
    uint64_t dims[2];
    int nd = storq_point_value_shape(def, dims);
    size_t off = def->value_offset;
    STORQ_TRY(add_f64(g, "mean", nd, dims, s->mean + off, err));
    STORQ_TRY(add_f64(g, "stderr", nd, dims, s->stderr_ + off, err));
    return add_f64(g, "ci95", nd, dims, s->ci95 + off, err);
}

static int axis(storq_pt_node *g, const storq_obs_def *def, storq_error *err)
{
    uint64_t rows = def->cols > 1 ? def->length / def->cols : def->length;
    storq_pt_node *d;
    STORQ_TRY(storq_pt_add_dataset(g, "axis", STORQ_PT_F64, 1, &rows, def->axis, &d, err));
    return storq_pt_set_string(d, "name", def->axis_name, err);
}

double storq_point_hist_sum(const storq_obs_def *def, const storq_point_result *res)
{
    double sum = 0;
    for (size_t r = 0; r < res->replications; r++)
        sum += res->values[r * res->schema->nvalues + def->value_offset];
    return sum;
}

void storq_point_layout_name(const storq_obs_def *def, char *buf, size_t size)
{
    if (def->hist_kind == STORQ_HIST_LOGLIN)
        snprintf(buf, size, "log-linear_emin%d_emax%d_sub%d", def->emin, def->emax,
                 def->sub_bits);
    else
        snprintf(buf, size, "integer_bins%zu", def->nbins);
}

static int histogram(storq_pt_node *g, const storq_obs_def *def, const storq_point_result *res,
                     storq_error *err)
{
    const uint64_t *c = res->counts + def->count_offset; /* underflow, bins, overflow */
    uint64_t nb = def->nbins, count = 0;
    for (size_t j = 0; j < def->nbins + 2; j++)
        count += c[j];
    double sum = storq_point_hist_sum(def, res);
    double min = res->minmax[def->minmax_offset], max = res->minmax[def->minmax_offset + 1];
    double mean = count ? sum / (double)count : NAN;
    char name[96], target[128];
    storq_point_layout_name(def, name, sizeof name);
    snprintf(target, sizeof target, STORQ_SCHEMA_LAYOUTS_PATH "/%s", name);
    STORQ_TRY(add_u64(g, "counts", 1, &nb, c + 1, err));
    STORQ_TRY(storq_pt_add_softlink(g, STORQ_SCHEMA_BIN_EDGES, target, err));
    STORQ_TRY(add_u64(g, "underflow", 0, NULL, &c[0], err));
    STORQ_TRY(add_u64(g, "overflow", 0, NULL, &c[def->nbins + 1], err));
    STORQ_TRY(add_u64(g, "count", 0, NULL, &count, err));
    STORQ_TRY(add_f64(g, "sum", 0, NULL, &sum, err));
    STORQ_TRY(add_f64(g, "min", 0, NULL, &min, err));
    STORQ_TRY(add_f64(g, "max", 0, NULL, &max, err));
    return add_f64(g, "mean", 0, NULL, &mean, err);
}

static int observable_attrs(storq_pt_node *g, const storq_obs_def *def, storq_error *err)
{
    STORQ_TRY(storq_pt_set_string(g, "kind", storq_point_kind_name(def->kind), err));
    STORQ_TRY(storq_pt_set_string(g, "unit", def->unit, err));
    STORQ_TRY(storq_pt_set_string(g, "description", def->desc, err));
    if (def->kind != STORQ_OBS_HIST)
        return STORQ_OK;
    if (def->hist_kind != STORQ_HIST_LOGLIN)
        return storq_pt_set_string(g, "histogram_kind", "integer", err);
    STORQ_TRY(storq_pt_set_string(g, "histogram_kind", "log-linear", err));
    return storq_pt_set_f64(g, "relative_resolution", ldexp(1.0, -def->sub_bits), err);
}

static int observable(storq_pt_node *obs, const storq_obs_def *def,
                      const storq_point_result *res, const storq_summary *s, storq_error *err)
{
    storq_pt_node *g;
    STORQ_TRY(storq_pt_add_group(obs, def->name, &g, err));
    STORQ_TRY(def->kind == STORQ_OBS_HIST ? histogram(g, def, res, err)
                                          : summary(g, def, s, err));
    if (def->kind == STORQ_OBS_VECTOR && def->axis)
        STORQ_TRY(axis(g, def, err));
    return observable_attrs(g, def, err);
}

/* Row r of replications/<name> is replication r's value: gathered out of the value rows. */
static int replication_values(storq_pt_node *reps, const storq_obs_def *def,
                              const storq_point_result *res, storq_error *err)
{
    size_t R = res->replications, len = def->length, nv = res->schema->nvalues;
    uint64_t dims[3] = {R};
    int nd = 1 + storq_point_value_shape(def, dims + 1);
    double *buf = malloc((R * len + 1) * sizeof *buf);
    if (!buf)
        return oom(err, def->name);
    for (size_t r = 0; r < R; r++)
        memcpy(buf + r * len, res->values + r * nv + def->value_offset, len * sizeof *buf);
    int rc = add_f64(reps, def->name, nd, dims, buf, err);
    free(buf);
    return rc;
}

static int arrays(storq_pt_node *point, const char *name, const storq_theory *t,
                  storq_error *err)
{
    storq_pt_node *g;
    STORQ_TRY(storq_pt_add_group(point, name, &g, err));
    for (size_t i = 0; t && i < t->n; i++) {
        const storq_array *a = &t->items[i];
        uint64_t len = a->len;
        storq_pt_node *d;
        STORQ_TRY(storq_pt_add_dataset(g, a->name, STORQ_PT_F64, 1, &len,
                                       a->len ? a->data : NULL, &d, err));
        STORQ_TRY(storq_pt_set_string(d, "unit", a->unit, err));
        STORQ_TRY(storq_pt_set_string(d, "description", a->desc, err));
        STORQ_TRY(storq_pt_set_string(d, "grid", a->grid, err));
    }
    return STORQ_OK;
}

static int precision_attrs(storq_pt_node *g, const storq_point_precision *pr, storq_error *err)
{
    STORQ_TRY(storq_pt_set_f64(g, STORQ_SCHEMA_ATTR_PRECISION_TARGET, pr->target, err));
    STORQ_TRY(storq_pt_set_string(g, STORQ_SCHEMA_ATTR_PRECISION_OBSERVABLE, pr->observable,
                                  err));
    STORQ_TRY(storq_pt_set_f64(g, STORQ_SCHEMA_ATTR_PRECISION_ACHIEVED, pr->achieved, err));
    STORQ_TRY(storq_pt_set_u64(g, STORQ_SCHEMA_ATTR_MAX_REPLICATIONS, pr->max_replications,
                               err));
    STORQ_TRY(storq_pt_set_u64(g, STORQ_SCHEMA_ATTR_PRECISION_MET, pr->met ? 1 : 0, err));
    return storq_pt_set_string(g, STORQ_SCHEMA_ATTR_STOPPED_BECAUSE,
                               pr->met ? "precision target met" : "max_replications reached",
                               err);
}

static int build(storq_pt_node *point, const storq_model *model, const storq_params *params,
                 const storq_point_result *res, const storq_summary *s,
                 const storq_theory *theory, const storq_theory *comparison,
                 double wall_seconds, const storq_point_precision *precision, storq_error *err)
{
    storq_pt_node *obs, *reps;
    STORQ_TRY(storq_pt_add_group(point, STORQ_SCHEMA_OBSERVABLES, &obs, err));
    for (size_t i = 0; i < res->schema->ndefs; i++)
        STORQ_TRY(observable(obs, &res->schema->defs[i], res, s, err));
    STORQ_TRY(storq_pt_add_group(point, STORQ_SCHEMA_REPLICATIONS, &reps, err));
    for (size_t i = 0; i < res->schema->ndefs; i++)
        STORQ_TRY(replication_values(reps, &res->schema->defs[i], res, err));
    STORQ_TRY(arrays(point, STORQ_SCHEMA_THEORY, theory, err));
    STORQ_TRY(arrays(point, STORQ_SCHEMA_COMPARISON, comparison, err));
    STORQ_TRY(point_attrs(point, model, params, res, wall_seconds, err));
    if (precision)
        STORQ_TRY(precision_attrs(point, precision, err));
    return storq_pt_set_string(point, STORQ_SCHEMA_ATTR_STATUS, STORQ_SCHEMA_COMPLETE, err);
}

int storq_point_record_build(const storq_model *model, const storq_params *params,
                             const storq_point_result *res, const storq_summary *summary,
                             const storq_theory *theory, const storq_theory *comparison,
                             double wall_seconds, const storq_point_precision *precision,
                             storq_pt_node **tree, storq_error *err)
{
    STORQ_TRY(storq_pt_new(tree, err));
    int rc = build(*tree, model, params, res, summary, theory, comparison, wall_seconds,
                   precision, err);
    if (rc) {
        storq_pt_free(*tree);
        *tree = NULL;
    }
    return rc;
}
