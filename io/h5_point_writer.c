/* One point of the results file (docs/hdf5-schema.md): its observables, theory and comparison
 * arrays, written bottom up and linked into /points whole, then flushed so --resume can skip
 * it. The file's creation, finish and resume are in h5_writer.c. */
#include "h5_writer_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "h5_checksum.h"
#include "point_record.h"
#include "h5_util.h"
#include "schema.h"
#include "utf8.h"

/* ---- one point, built bottom up ----
 * Each object of a point is made whole before the next one: an anonymous dataset with its data,
 * attributes and checksum; then the group of such members with its attributes and checksum, and
 * only then its links to them, in the model's order. So an object header grows while it is the
 * last block of the file's metadata, and HDF5 grows it in place: one block an object. Made the
 * other way (a group before its members, checksums stamped at the end) most headers got a
 * continuation block of about 50 bytes for each link or attribute added later, a quarter of a
 * sweep's file (docs/hdf5-schema.md, Storage). The point's group goes into /points last, after
 * its status. */

/* The members of a group being built, in order: an open anonymous object, or (id < 0) a soft
 * link to target. */
typedef struct member {
    const char *name; /* not owned: the model's names and literals */
    hid_t id;
    char *target;
} member;

typedef struct members {
    member *m;
    size_t n, cap;
} members;

/* A group or dataset: H5Oclose keeps the id when closing fails (a dataset's data cannot be
 * written to a full disk), which HDF5 1.10 then crashes on when it ends; H5Dclose and H5Gclose
 * release it whatever happens. */
static void close_object(hid_t id)
{
    if (H5Iget_type(id) == H5I_DATASET)
        H5Dclose(id);
    else
        H5Gclose(id);
}

/* Closes the members (an anonymous object closed unlinked is gone); again is harmless. */
static void members_close(members *kids)
{
    for (size_t i = 0; i < kids->n; i++) {
        if (kids->m[i].id >= 0)
            close_object(kids->m[i].id);
        free(kids->m[i].target);
    }
    free(kids->m);
    memset(kids, 0, sizeof *kids);
}

/* Adds id (from now on kids' to close) or, id < 0, a soft link to target. */
static int members_add(members *kids, const char *name, hid_t id, const char *target,
                       storq_error *err)
{
    char *t = target ? strdup(target) : NULL;
    if (kids->n == kids->cap && (!target || t)) {
        size_t cap = kids->cap ? 2 * kids->cap : 8;
        member *grown = realloc(kids->m, cap * sizeof *grown);
        if (grown) {
            kids->m = grown;
            kids->cap = cap;
        }
    }
    if (kids->n == kids->cap || (target && !t)) {
        free(t);
        if (id >= 0)
            close_object(id);
        return storq_fail(err, STORQ_ERR_RUNTIME, "out of memory writing '%s'", name);
    }
    kids->m[kids->n++] = (member){name, id, t};
    return STORQ_OK;
}

/* obj (anonymous, its data and attributes written) gets its checksum and joins kids. */
static int add_stamped(members *kids, const char *name, hid_t obj, storq_error *err)
{
    int rc = storq_h5_checksum_stamp_object(obj, err);
    if (rc) {
        close_object(obj);
        return rc;
    }
    return members_add(kids, name, obj, NULL, err);
}

static int add_f64(members *kids, hid_t file, const char *name, int nd, const hsize_t *dims,
                   const double *data, storq_error *err)
{
    hid_t d;
    STORQ_TRY(storq_h5u_new_f64(file, name, nd, dims, data, &d, err));
    return add_stamped(kids, name, d, err);
}

static int add_u64(members *kids, hid_t file, const char *name, int nd, const hsize_t *dims,
                   const uint64_t *data, storq_error *err)
{
    hid_t d;
    STORQ_TRY(storq_h5u_new_u64(file, name, nd, dims, data, &d, err));
    return add_stamped(kids, name, d, err);
}

/* g (its attributes written) gets its checksum, then its links to kids, which are closed. */
static int link_members(hid_t g, members *kids, storq_error *err)
{
    int rc = storq_h5_checksum_stamp_object(g, err);
    for (size_t i = 0; !rc && i < kids->n; i++) {
        const member *k = &kids->m[i];
        if (k->id >= 0)
            rc = storq_h5u_link(g, k->name, k->id, err);
        else if (H5Lcreate_soft(k->target, g, k->name, H5P_DEFAULT, H5P_DEFAULT) < 0)
            rc = storq_h5u_fail(err, g, "cannot link '%s' to '%s'", k->name, k->target);
    }
    members_close(kids);
    return rc;
}

/* A group without attributes of its own (but its checksum) of kids, added to parent as name. */
static int add_group(members *parent, hid_t file, const char *name, members *kids,
                     storq_error *err)
{
    hid_t g = -1;
    int rc = storq_h5u_new_group(file, &g, err);
    if (!rc)
        rc = link_members(g, kids, err);
    members_close(kids);
    if (rc) {
        storq_h5u_close_group(&g);
        return rc;
    }
    return members_add(parent, name, g, NULL, err);
}

static int write_point_attrs(hid_t g, const storq_h5_file *f, const storq_params *params,
                             const storq_point_result *res, double wall_seconds, storq_error *err)
{
    STORQ_TRY(storq_h5u_attr_string(g, STORQ_SCHEMA_ATTR_MODEL, f->model->name, err));
    STORQ_TRY(storq_h5u_attr_u64(g, STORQ_SCHEMA_ATTR_REPLICATIONS, res->replications, err));
    STORQ_TRY(storq_h5u_attr_f64(g, STORQ_SCHEMA_ATTR_WALL_SECONDS, wall_seconds, err));
    STORQ_TRY(storq_h5u_attr_u64(g, STORQ_SCHEMA_ATTR_EVENTS, res->events, err));
    for (size_t i = 0; i < f->nparams; i++) {
        const storq_param_def *d = &f->model->params[i];
        const storq_param_value *v = &params->v[i];
        if (d->type == STORQ_PARAM_INT)
            STORQ_TRY(storq_h5u_attr_i64(g, d->name, v->i, err));
        else if (d->type == STORQ_PARAM_REAL)
            STORQ_TRY(storq_h5u_attr_f64(g, d->name, v->r, err));
        else
            STORQ_TRY(storq_h5u_attr_string(g, d->name, v->s, err));
    }
    return STORQ_OK;
}

static int write_summary(members *kids, hid_t file, const storq_obs_def *def,
                         const storq_summary *s, storq_error *err)
{
    uint64_t shape[2];
    int nd = storq_point_value_shape(def, shape);
    hsize_t dims[2] = {shape[0], shape[1]};
    size_t off = def->value_offset;
    STORQ_TRY(add_f64(kids, file, "mean", nd, dims, s->mean + off, err));
    STORQ_TRY(add_f64(kids, file, "stderr", nd, dims, s->stderr_ + off, err));
    STORQ_TRY(add_f64(kids, file, "ci95", nd, dims, s->ci95 + off, err));
    return STORQ_OK;
}

static int write_axis(members *kids, hid_t file, const storq_obs_def *def, storq_error *err)
{
    hsize_t rows = def->cols > 1 ? def->length / def->cols : def->length;
    hid_t d;
    STORQ_TRY(storq_h5u_new_f64(file, "axis", 1, &rows, def->axis, &d, err));
    int rc = storq_h5u_attr_string(d, "name", def->axis_name, err);
    if (rc) {
        H5Dclose(d);
        return rc;
    }
    return add_stamped(kids, "axis", d, err);
}

/* /layouts/NAME, the edges a histogram's bin_edges links to (path gets it), written with its
 * checksum by the first histogram of that layout in the file, so a sweep stores them once. */
static int write_layout(hid_t file, const storq_obs_def *def, char *path, size_t size,
                        storq_error *err)
{
    char name[96];
    storq_point_layout_name(def, name, sizeof name);
    snprintf(path, size, STORQ_SCHEMA_LAYOUTS_PATH "/%s", name);
    if (storq_h5u_has_link(file, path))
        return STORQ_OK;
    hid_t layouts = -1, d = -1;
    hsize_t ne = def->nbins + 1;
    double *edges = malloc(ne * sizeof *edges);
    int rc = STORQ_OK;
    if (!edges)
        rc = storq_fail(err, STORQ_ERR_RUNTIME, "out of memory writing layout '%s'", name);
    else
        storq_hist_edges(def, edges);
    if (!rc && storq_h5u_has_link(file, STORQ_SCHEMA_LAYOUTS_PATH)) {
        layouts = H5Gopen2(file, STORQ_SCHEMA_LAYOUTS_PATH, H5P_DEFAULT);
        if (layouts < 0)
            rc = storq_h5u_fail(err, file, "cannot open group '" STORQ_SCHEMA_LAYOUTS "'");
    } else if (!rc) {
        rc = storq_h5u_create_group(file, STORQ_SCHEMA_LAYOUTS, &layouts, err);
    }
    if (!rc)
        rc = storq_h5u_write_f64(layouts, name, 1, &ne, edges, err);
    free(edges);
    if (!rc && (d = H5Dopen2(layouts, name, H5P_DEFAULT)) < 0)
        rc = storq_h5u_fail(err, layouts, "cannot open dataset '%s'", name);
    if (!rc)
        rc = storq_h5_checksum_stamp_object(d, err);
    storq_h5u_close_dataset(&d);
    storq_h5u_close_group(&layouts);
    if (!rc)
        rc = storq_schema_restate_version(file, err);
    return rc;
}

static int write_histogram(members *kids, hid_t file, const storq_obs_def *def,
                           const storq_point_result *res, storq_error *err)
{
    const uint64_t *c = res->counts + def->count_offset; /* underflow, bins, overflow */
    hsize_t nb = def->nbins;
    uint64_t count = 0;
    for (size_t j = 0; j < def->nbins + 2; j++)
        count += c[j];
    double sum = storq_point_hist_sum(def, res);
    double min = res->minmax[def->minmax_offset], max = res->minmax[def->minmax_offset + 1];
    double mean = count ? sum / (double)count : NAN;
    char edges[128];

    STORQ_TRY(add_u64(kids, file, "counts", 1, &nb, c + 1, err));
    STORQ_TRY(write_layout(file, def, edges, sizeof edges, err));
    STORQ_TRY(members_add(kids, STORQ_SCHEMA_BIN_EDGES, -1, edges, err));
    STORQ_TRY(add_u64(kids, file, "underflow", 0, NULL, &c[0], err));
    STORQ_TRY(add_u64(kids, file, "overflow", 0, NULL, &c[def->nbins + 1], err));
    STORQ_TRY(add_u64(kids, file, "count", 0, NULL, &count, err));
    STORQ_TRY(add_f64(kids, file, "sum", 0, NULL, &sum, err));
    STORQ_TRY(add_f64(kids, file, "min", 0, NULL, &min, err));
    STORQ_TRY(add_f64(kids, file, "max", 0, NULL, &max, err));
    STORQ_TRY(add_f64(kids, file, "mean", 0, NULL, &mean, err));
    return STORQ_OK;
}

static int write_observable_attrs(hid_t g, const storq_obs_def *def, storq_error *err)
{
    STORQ_TRY(storq_h5u_attr_string(g, "kind", storq_point_kind_name(def->kind), err));
    STORQ_TRY(storq_h5u_attr_string(g, "unit", def->unit, err));
    STORQ_TRY(storq_h5u_attr_string(g, "description", def->desc, err));
    if (def->kind != STORQ_OBS_HIST)
        return STORQ_OK;
    if (def->hist_kind != STORQ_HIST_LOGLIN)
        return storq_h5u_attr_string(g, "histogram_kind", "integer", err);
    STORQ_TRY(storq_h5u_attr_string(g, "histogram_kind", "log-linear", err));
    return storq_h5u_attr_f64(g, "relative_resolution", ldexp(1.0, -def->sub_bits), err);
}

static int write_observable(members *parent, hid_t file, const storq_obs_def *def,
                            const storq_point_result *res, const storq_summary *s,
                            storq_error *err)
{
    members kids = {0};
    hid_t g = -1;
    int rc = def->kind == STORQ_OBS_HIST ? write_histogram(&kids, file, def, res, err)
                                         : write_summary(&kids, file, def, s, err);
    if (!rc && def->kind == STORQ_OBS_VECTOR && def->axis)
        rc = write_axis(&kids, file, def, err);
    if (!rc)
        rc = storq_h5u_new_group(file, &g, err);
    if (!rc)
        rc = write_observable_attrs(g, def, err);
    if (!rc)
        rc = link_members(g, &kids, err);
    members_close(&kids);
    if (rc) {
        storq_h5u_close_group(&g);
        return rc;
    }
    return members_add(parent, def->name, g, NULL, err);
}

/* Row r of replications/<name> is replication r's value: gather it out of the value rows. */
static int write_replication_values(members *reps, hid_t file, const storq_obs_def *def,
                                    const storq_point_result *res, storq_error *err)
{
    size_t R = res->replications, len = def->length, nv = res->schema->nvalues;
    uint64_t shape[2];
    int nd = 1 + storq_point_value_shape(def, shape);
    hsize_t dims[3] = {R, shape[0], shape[1]};
    double *buf = malloc((R * len + 1) * sizeof *buf);
    if (!buf)
        return storq_fail(err, STORQ_ERR_RUNTIME, "out of memory writing replications/%s",
                          def->name);
    for (size_t r = 0; r < R; r++)
        memcpy(buf + r * len, res->values + r * nv + def->value_offset, len * sizeof *buf);
    int rc = add_f64(reps, file, def->name, nd, dims, buf, err);
    free(buf);
    return rc;
}

static int write_observables(members *point, hid_t file, const storq_point_result *res,
                             const storq_summary *s, storq_error *err)
{
    members obs = {0}, reps = {0};
    int rc = STORQ_OK;
    for (size_t i = 0; !rc && i < res->schema->ndefs; i++) {
        const storq_obs_def *def = &res->schema->defs[i];
        rc = write_observable(&obs, file, def, res, s, err);
        if (!rc)
            rc = write_replication_values(&reps, file, def, res, err);
    }
    if (!rc)
        rc = add_group(point, file, STORQ_SCHEMA_OBSERVABLES, &obs, err);
    if (!rc)
        rc = add_group(point, file, STORQ_SCHEMA_REPLICATIONS, &reps, err);
    members_close(&obs);
    members_close(&reps);
    return rc;
}

static int write_array(members *kids, hid_t file, const storq_array *a, storq_error *err)
{
    hsize_t len = a->len;
    hid_t d;
    STORQ_TRY(storq_h5u_new_f64(file, a->name, 1, &len, a->len ? a->data : NULL, &d, err));
    int rc = storq_h5u_attr_string(d, "unit", a->unit, err);
    if (!rc)
        rc = storq_h5u_attr_string(d, "description", a->desc, err);
    if (!rc)
        rc = storq_h5u_attr_string(d, "grid", a->grid, err);
    if (rc) {
        H5Dclose(d);
        return rc;
    }
    return add_stamped(kids, a->name, d, err);
}

/* theory/ and comparison/ always exist (possibly empty) so readers need no special case. */
static int write_arrays(members *point, hid_t file, const char *name, const storq_theory *t,
                        storq_error *err)
{
    members kids = {0};
    int rc = STORQ_OK;
    for (size_t i = 0; t && !rc && i < t->n; i++)
        rc = write_array(&kids, file, &t->items[i], err);
    if (!rc)
        rc = add_group(point, file, name, &kids, err);
    members_close(&kids);
    return rc;
}

static int write_precision_attrs(hid_t g, const storq_point_precision *pr, storq_error *err)
{
    STORQ_TRY(storq_h5u_attr_f64(g, STORQ_SCHEMA_ATTR_PRECISION_TARGET, pr->target, err));
    STORQ_TRY(storq_h5u_attr_string(g, STORQ_SCHEMA_ATTR_PRECISION_OBSERVABLE, pr->observable,
                                    err));
    STORQ_TRY(storq_h5u_attr_f64(g, STORQ_SCHEMA_ATTR_PRECISION_ACHIEVED, pr->achieved, err));
    STORQ_TRY(storq_h5u_attr_u64(g, STORQ_SCHEMA_ATTR_MAX_REPLICATIONS, pr->max_replications,
                                 err));
    STORQ_TRY(storq_h5u_attr_u64(g, STORQ_SCHEMA_ATTR_PRECISION_MET, pr->met ? 1 : 0, err));
    return storq_h5u_attr_string(g, STORQ_SCHEMA_ATTR_STOPPED_BECAUSE,
                                 pr->met ? "precision target met" : "max_replications reached",
                                 err);
}

/* The point's group, not yet linked: its members, then itself (attributes, checksum, links). */
static int write_point_group(hid_t g, const storq_h5_file *f, const storq_params *params,
                             const storq_point_result *res, double wall_seconds,
                             const storq_point_precision *precision, members *kids,
                             storq_error *err)
{
    STORQ_TRY(write_point_attrs(g, f, params, res, wall_seconds, err));
    if (precision)
        STORQ_TRY(write_precision_attrs(g, precision, err));
    /* Readers check every object against its checksum: a bit changed on disk or in a copy is
     * found. */
    STORQ_TRY(link_members(g, kids, err));
    /* Last: a group without status "complete" is an interrupted write, dropped by --resume. */
    return storq_h5u_attr_string(g, STORQ_SCHEMA_ATTR_STATUS, STORQ_SCHEMA_COMPLETE, err);
}

int storq_h5_write_point(storq_h5_file *f, size_t point_id, const storq_params *params,
                         const storq_point_result *res, const storq_summary *summary,
                         const storq_theory *theory, const storq_theory *comparison,
                         double wall_seconds, const storq_point_precision *precision,
                         storq_error *err)
{
    char name[STORQ_SCHEMA_POINT_PATH_MAX];
    storq_schema_point_path(point_id, name, sizeof name);
    if (storq_h5u_has_link(f->file, name))
        return storq_h5u_fail(err, f->file, "point %zu was already written", point_id);
    members kids = {0};
    hid_t g = -1;
    int rc = write_observables(&kids, f->file, res, summary, err);
    if (!rc)
        rc = write_arrays(&kids, f->file, STORQ_SCHEMA_THEORY, theory, err);
    if (!rc)
        rc = write_arrays(&kids, f->file, STORQ_SCHEMA_COMPARISON, comparison, err);
    if (!rc)
        rc = storq_h5u_new_group(f->file, &g, err);
    if (!rc)
        rc = write_point_group(g, f, params, res, wall_seconds, precision, &kids, err);
    members_close(&kids);
    if (!rc) /* the point appears in /points whole */
        rc = storq_h5u_link(f->file, name, g, err);
    storq_h5u_close_group(&g);
    if (rc) {
        f->write_failed = 1;
        return rc;
    }
    if (H5Fflush(f->file, H5F_SCOPE_GLOBAL) < 0) {
        f->write_failed = 1;
        return storq_h5u_fail(err, f->file, "cannot flush point %zu to disk", point_id);
    }
    return STORQ_OK;
}
