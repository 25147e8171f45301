/* `storq info FILE`: what a results file holds, as aligned text tables. Reads any schema 1.x file
 * (fields it does not know are still listed where the tables are generic); of a partial file's
 * checkpoints (1.2) it says how many replications each unfinished point has in; of the run's
 * record of its units, one line per session and per rank (h5_info_units.c). */
#include "h5_info.h"

#include <hdf5.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "h5_check.h"
#include "h5_info_hist.h"
#include "h5_info_index.h"
#include "h5_info_theory.h"
#include "h5_info_units.h"
#include "h5_util.h"
#include "schema.h"
#include "table.h"

#define PREVIEW 4 /* leading values shown for each vector */

/* ---- attribute values as text ---- */

static void join_numbers(hid_t a, hid_t ftype, hssize_t count, char *buf, size_t size)
{
    int is_float = H5Tget_class(ftype) == H5T_FLOAT;
    int is_signed = !is_float && H5Tget_sign(ftype) == H5T_SGN_2;
    void *vals = malloc((size_t)count * 8 + 8);
    hid_t mtype = is_float ? H5T_NATIVE_DOUBLE : is_signed ? H5T_NATIVE_INT64 : H5T_NATIVE_UINT64;
    buf[0] = '\0';
    if (!vals || H5Aread(a, mtype, vals) < 0) {
        snprintf(buf, size, "?");
        free(vals);
        return;
    }
    size_t used = 0;
    for (hssize_t i = 0; i < count && used < size; i++) {
        const char *sep = i ? ", " : "";
        if (is_float)
            used += (size_t)snprintf(buf + used, size - used, "%s%.10g", sep, ((double *)vals)[i]);
        else if (is_signed)
            used += (size_t)snprintf(buf + used, size - used, "%s%" PRId64, sep,
                                     ((int64_t *)vals)[i]);
        else
            used += (size_t)snprintf(buf + used, size - used, "%s%" PRIu64, sep,
                                     ((uint64_t *)vals)[i]);
    }
    free(vals);
}

static void attr_text(hid_t loc, const char *name, char *buf, size_t size)
{
    snprintf(buf, size, "?");
    hid_t a = H5Aopen(loc, name, H5P_DEFAULT);
    if (a < 0) {
        H5Eclear2(H5E_DEFAULT);
        return;
    }
    hid_t ftype = H5Aget_type(a), space = H5Aget_space(a);
    hssize_t count = space >= 0 ? H5Sget_simple_extent_npoints(space) : 0;
    H5T_class_t cls = ftype >= 0 ? H5Tget_class(ftype) : H5T_NO_CLASS;
    if (cls == H5T_STRING) {
        char **strs = NULL;
        size_t n = 0;
        storq_error ignore = {0};
        if (storq_h5u_read_attr_string_array(loc, name, &strs, &n, &ignore) == STORQ_OK) {
            size_t used = 0;
            buf[0] = '\0';
            for (size_t i = 0; i < n && used < size; i++)
                used += (size_t)snprintf(buf + used, size - used, "%s%s", i ? ", " : "", strs[i]);
            storq_h5u_free_names(strs, n);
        }
    } else if ((cls == H5T_INTEGER || cls == H5T_FLOAT) && count > 0) {
        join_numbers(a, ftype, count, buf, size);
    }
    storq_h5u_close_type(&ftype);
    storq_h5u_close_space(&space);
    H5Aclose(a);
    H5Eclear2(H5E_DEFAULT);
}

/* ---- the file as a whole ---- */

static void add_attr_row(storq_table *t, hid_t loc, const char *name)
{
    char value[1024];
    attr_text(loc, name, value, sizeof value);
    storq_table_add(t, "%s", name);
    storq_table_add(t, "%s", value);
}

static herr_t add_other_attr(hid_t loc, const char *name, const H5A_info_t *info, void *data)
{
    for (const char *const *r = storq_schema_root_attrs; *r; r++)
        if (strcmp(*r, name) == 0)
            return 0;
    add_attr_row(data, loc, name);
    return 0;
}

/* The root attributes the schema defines come in its order; others (a later minor version's)
 * follow by name. */
static void print_root(hid_t file, const char *path, FILE *out)
{
    storq_table t;
    storq_table_init(&t, 2, NULL, "  ");
    storq_table_title(&t, "%s: storq results file", path);
    for (const char *const *r = storq_schema_root_attrs; *r; r++)
        if (storq_h5u_has_attr(file, *r))
            add_attr_row(&t, file, *r);
    hsize_t pos = 0;
    H5Aiterate2(file, H5_INDEX_NAME, H5_ITER_INC, &pos, add_other_attr, &t);
    H5Eclear2(H5E_DEFAULT);
    storq_table_print(&t, out);
    storq_table_free(&t);
}

/* ---- tasks ---- */

storq_info_task storq_info_read_task(hid_t loc)
{
    storq_info_task t = {0, 1};
    storq_error ignore = {0};
    if (storq_h5u_has_attr(loc, STORQ_SCHEMA_ATTR_TASK_COUNT) &&
        storq_h5u_has_attr(loc, STORQ_SCHEMA_ATTR_TASK_INDEX) &&
        (storq_h5u_read_attr_u64(loc, STORQ_SCHEMA_ATTR_TASK_COUNT, &t.count, &ignore) ||
         storq_h5u_read_attr_u64(loc, STORQ_SCHEMA_ATTR_TASK_INDEX, &t.index, &ignore) ||
         t.count == 0))
        t = (storq_info_task){0, 1};
    return t;
}

/* ---- /points/index ---- */

/* Whether an unfinished point has a checkpoint (schema 1.2) that --resume would use: one with
 * status "complete"; *in and *of get its replications in and the point's replications. */
static int checkpoint_of(hid_t file, uint64_t id, uint64_t *in, uint64_t *of)
{
    char name[STORQ_SCHEMA_POINT_PATH_MAX];
    storq_schema_checkpoint_path((size_t)id, name, sizeof name);
    if (!storq_h5u_has_link(file, name) || storq_schema_point_complete(file, name) != 1)
        return 0;
    hid_t g = H5Gopen2(file, name, H5P_DEFAULT);
    hid_t d = g >= 0 ? H5Dopen2(g, STORQ_SCHEMA_CHECKPOINT_DONE, H5P_DEFAULT) : -1;
    hid_t space = d >= 0 ? H5Dget_space(d) : -1;
    hssize_t n = space >= 0 ? H5Sget_simple_extent_npoints(space) : -1;
    storq_error ignore = {0};
    int ok = n >= 0 && storq_h5u_read_attr_u64(g, STORQ_SCHEMA_ATTR_REPLICATIONS_IN, in,
                                               &ignore) == STORQ_OK;
    *of = ok ? (uint64_t)n : 0;
    storq_h5u_close_space(&space);
    storq_h5u_close_dataset(&d);
    storq_h5u_close_group(&g);
    H5Eclear2(H5E_DEFAULT);
    return ok;
}

/* Status of point id: complete, interrupted (group without status "complete"), checkpoint (no
 * group yet, but replications kept in /checkpoints), pending, or "other task" in a task's file
 * for the points another task runs. */
static const char *point_status(hid_t file, storq_info_task task, uint64_t id)
{
    char name[STORQ_SCHEMA_POINT_PATH_MAX];
    uint64_t in, of;
    storq_schema_point_path((size_t)id, name, sizeof name);
    if (!storq_h5u_has_link(file, name)) {
        if (id % task.count != task.index)
            return "other task";
        return checkpoint_of(file, id, &in, &of) ? "checkpoint" : "pending";
    }
    const int complete = storq_schema_point_complete(file, name);
    return complete < 0 ? "unreadable" : complete ? "complete" : "interrupted";
}

/* One line per unfinished point with a checkpoint, under the index. */
static void print_checkpoints(hid_t file, const uint64_t *ids, size_t nrows, FILE *out)
{
    if (!storq_h5u_has_link(file, "/" STORQ_SCHEMA_CHECKPOINTS))
        return;
    int first = 1;
    for (size_t r = 0; r < nrows; r++) {
        char name[STORQ_SCHEMA_POINT_PATH_MAX];
        uint64_t in, of;
        storq_schema_point_path((size_t)ids[r], name, sizeof name);
        if (storq_schema_point_complete(file, name) == 1 || !checkpoint_of(file, ids[r], &in, &of))
            continue;
        if (first)
            fputc('\n', out);
        first = 0;
        fprintf(out, "point %" PRIu64 ": %" PRIu64 " of %" PRIu64 " replications in (checkpoint)\n",
                ids[r], in, of);
    }
    H5Eclear2(H5E_DEFAULT);
}

int storq_info_index_column(hid_t d, hid_t ftype, unsigned member, size_t nrows, char **cells,
                             uint64_t *ids, int precise)
{
    char *name = H5Tget_member_name(ftype, member);
    hid_t mft = H5Tget_member_type(ftype, member);
    H5T_class_t cls = H5Tget_class(mft);
    size_t elsize = cls == H5T_STRING ? H5Tget_size(mft) : 8;
    hid_t elem = cls == H5T_FLOAT    ? H5Tcopy(H5T_NATIVE_DOUBLE)
                 : cls == H5T_STRING ? H5Tcopy(mft)
                 : H5Tget_sign(mft) == H5T_SGN_2 ? H5Tcopy(H5T_NATIVE_INT64)
                                                 : H5Tcopy(H5T_NATIVE_UINT64);
    /* HDF5 matches compound members by name: a one-member type reads one column. */
    hid_t col = H5Tcreate(H5T_COMPOUND, elsize);
    H5Tinsert(col, name, 0, elem);
    unsigned char *buf = calloc(nrows + 1, elsize);
    int rc = -1;
    if (buf && (cls == H5T_INTEGER || cls == H5T_FLOAT || cls == H5T_STRING) &&
        (nrows == 0 || H5Dread(d, col, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0)) {
        for (size_t r = 0; r < nrows; r++) {
            char text[256];
            const unsigned char *v = buf + r * elsize;
            if (cls == H5T_FLOAT) {
                double x;
                memcpy(&x, v, sizeof x);
                snprintf(text, sizeof text, precise ? "%.17g" : "%.10g", x);
            } else if (cls == H5T_STRING) {
                snprintf(text, sizeof text, "%.*s", (int)elsize, (const char *)v);
            } else if (H5Tget_sign(mft) == H5T_SGN_2) {
                int64_t x;
                memcpy(&x, v, sizeof x);
                snprintf(text, sizeof text, "%" PRId64, x);
            } else {
                uint64_t x;
                memcpy(&x, v, sizeof x);
                snprintf(text, sizeof text, "%" PRIu64, x);
                if (ids && strcmp(name, STORQ_SCHEMA_INDEX_POINT) == 0)
                    ids[r] = x;
            }
            cells[r] = strdup(text);
        }
        rc = 0;
    }
    free(buf);
    H5Tclose(col);
    H5Tclose(elem);
    H5Tclose(mft);
    H5free_memory(name);
    H5Eclear2(H5E_DEFAULT);
    return rc;
}

static void add_index_header(storq_table *t, hid_t d, hid_t ftype, unsigned nmembers)
{
    char **units = NULL;
    size_t nunits = 0;
    storq_error ignore = {0};
    if (storq_h5u_has_attr(d, STORQ_SCHEMA_INDEX_UNITS))
        storq_h5u_read_attr_string_array(d, STORQ_SCHEMA_INDEX_UNITS, &units, &nunits, &ignore);
    for (unsigned m = 0; m < nmembers; m++) {
        char *name = H5Tget_member_name(ftype, m);
        if (m < nunits && units[m][0])
            storq_table_add(t, "%s [%s]", name, units[m]);
        else
            storq_table_add(t, "%s", name);
        H5free_memory(name);
    }
    storq_table_add(t, "status");
    storq_table_end_header(t);
    storq_h5u_free_names(units, nunits);
}

/* Print the index with each point's status; *ids gets the point ids of the rows. */
static int print_index(hid_t file, FILE *out, uint64_t **ids, size_t *nrows, storq_error *err)
{
    *ids = NULL;
    *nrows = 0;
    hid_t d = H5Dopen2(file, STORQ_SCHEMA_INDEX_PATH, H5P_DEFAULT);
    if (d < 0)
        return storq_h5u_fail(err, file, "cannot open dataset '" STORQ_SCHEMA_INDEX_PATH "'");
    hid_t ftype = H5Dget_type(d), space = H5Dget_space(d);
    hssize_t n = space >= 0 ? H5Sget_simple_extent_npoints(space) : -1;
    int nm = ftype >= 0 && H5Tget_class(ftype) == H5T_COMPOUND ? H5Tget_nmembers(ftype) : -1;
    int rc = STORQ_OK;
    char **cells = NULL;
    if (n < 0 || nm < 1) {
        rc = storq_h5u_fail(err, file, "'" STORQ_SCHEMA_INDEX_PATH "' is not a table");
        goto done;
    }
    *nrows = (size_t)n;
    *ids = calloc(*nrows + 1, sizeof **ids);
    cells = calloc(*nrows * (size_t)nm + 1, sizeof *cells);
    if (!*ids || !cells) {
        rc = storq_fail(err, STORQ_ERR_RUNTIME,
                        "out of memory reading '" STORQ_SCHEMA_INDEX_PATH "'");
        goto done;
    }
    for (size_t r = 0; r < *nrows; r++)
        (*ids)[r] = r;
    for (int m = 0; m < nm; m++)
        if (storq_info_index_column(d, ftype, (unsigned)m, *nrows, cells + (size_t)m * *nrows, *ids,
                                     0)) {
            rc = storq_h5u_fail(err, d, "cannot read a column of the index");
            goto done;
        }
    storq_table t;
    storq_table_init(&t, (size_t)nm + 1, NULL, "  ");
    storq_info_task task = storq_info_read_task(file);
    add_index_header(&t, d, ftype, (unsigned)nm);
    size_t complete = 0;
    for (size_t r = 0; r < *nrows; r++) {
        for (int m = 0; m < nm; m++) {
            const char *c = cells[(size_t)m * *nrows + r];
            storq_table_add(&t, "%s", c ? c : "?");
        }
        const char *status = point_status(file, task, (*ids)[r]);
        complete += strcmp(status, "complete") == 0;
        storq_table_add(&t, "%s", status);
    }
    if (task.count > 1)
        fprintf(out, "\npoints: %zu (%zu complete; task %" PRIu64 "/%" PRIu64 " of a job array "
                "holds the points p with p %% %" PRIu64 " = %" PRIu64 ")\n", *nrows, complete,
                task.index, task.count, task.count, task.index);
    else
        fprintf(out, "\npoints: %zu (%zu complete)\n", *nrows, complete);
    storq_table_print(&t, out);
    storq_table_free(&t);
    print_checkpoints(file, *ids, *nrows, out);
done:
    if (cells)
        for (size_t i = 0; i < *nrows * (size_t)(nm > 0 ? nm : 0); i++)
            free(cells[i]);
    free(cells);
    storq_h5u_close_type(&ftype);
    storq_h5u_close_space(&space);
    H5Dclose(d);
    if (rc) {
        free(*ids);
        *ids = NULL;
        *nrows = 0;
    }
    return rc;
}

/* ---- one point ---- */

static void shape_text(hid_t loc, const char *name, char *buf, size_t size)
{
    snprintf(buf, size, "?");
    hid_t d = H5Dopen2(loc, name, H5P_DEFAULT);
    if (d < 0) {
        H5Eclear2(H5E_DEFAULT);
        return;
    }
    hid_t space = H5Dget_space(d);
    hsize_t dims[8];
    int nd = space >= 0 ? H5Sget_simple_extent_ndims(space) : -1;
    if (nd >= 0 && nd <= 8 && H5Sget_simple_extent_dims(space, dims, NULL) >= 0) {
        size_t used = 0;
        buf[0] = '\0';
        if (nd == 0)
            snprintf(buf, size, "1");
        for (int i = 0; i < nd && used < size; i++)
            used += (size_t)snprintf(buf + used, size - used, "%s%llu", i ? "x" : "",
                                     (unsigned long long)dims[i]);
    }
    storq_h5u_close_space(&space);
    H5Dclose(d);
    H5Eclear2(H5E_DEFAULT);
}

static void preview_text(const double *v, size_t n, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n && i < PREVIEW && used < size; i++)
        used += (size_t)snprintf(buf + used, size - used, "%s%.4g", i ? " " : "", v[i]);
    if (n > PREVIEW && used < size)
        snprintf(buf + used, size - used, " ... (%zu more)", n - PREVIEW);
}

/* Tables of one point, filled observable by observable. */
typedef struct point_tables {
    storq_table scalars, vectors, hists;
} point_tables;

static int add_scalar(point_tables *pt, hid_t g, hid_t theory, const char *name,
                      const char *unit, storq_error *err)
{
    double *mean = NULL, *ci = NULL;
    size_t n1, n2;
    int rc = storq_h5u_read_f64(g, "mean", &mean, &n1, err);
    if (!rc)
        rc = storq_h5u_read_f64(g, "ci95", &ci, &n2, err);
    if (!rc && (n1 != 1 || n2 != 1))
        rc = storq_h5u_fail(err, g, "scalar '%s' does not hold one value", name);
    if (!rc) {
        storq_table_add(&pt->scalars, "%s", name);
        storq_table_add(&pt->scalars, "%.6g", mean[0]);
        storq_table_add(&pt->scalars, "+- %.3g", ci[0]);
        double *th = NULL;
        char thname[128];
        if (storq_info_theory_for(theory, name, 1, &th, thname, sizeof thname))
            storq_table_add(&pt->scalars, "%.6g", th[0]);
        else
            storq_table_add(&pt->scalars, "%s", "");
        free(th);
        storq_table_add(&pt->scalars, "%s", unit);
    }
    free(mean);
    free(ci);
    return rc;
}

static int add_vector(point_tables *pt, hid_t g, hid_t theory, const char *name,
                      const char *unit, storq_error *err)
{
    double *mean = NULL, *th = NULL;
    size_t n, nth = 0;
    char shape[64], sim[256], theo[256] = "";
    STORQ_TRY(storq_h5u_read_f64(g, "mean", &mean, &n, err));
    shape_text(g, "mean", shape, sizeof shape);
    preview_text(mean, n, sim, sizeof sim);
    char thname[128];
    if (storq_info_theory_for(theory, name, n, &th, thname, sizeof thname)) {
        nth = n;
        preview_text(th, nth, theo, sizeof theo);
    }
    storq_table_add(&pt->vectors, "%s", name);
    storq_table_add(&pt->vectors, "%s", shape);
    storq_table_add(&pt->vectors, "%s", sim);
    storq_table_add(&pt->vectors, "%s", theo[0] ? theo : "-");
    storq_table_add(&pt->vectors, "%s", unit);
    free(mean);
    free(th);
    return err->code;
}

static int add_histogram(point_tables *pt, hid_t g, const char *name, const char *unit,
                         storq_error *err)
{
    storq_info_hist h;
    STORQ_TRY(storq_info_hist_read(g, &h, err));
    char text[64];
    storq_table_add(&pt->hists, "%s", name);
    storq_table_add(&pt->hists, "%" PRIu64, h.count);
    storq_table_add(&pt->hists, "%.6g", h.mean);
    storq_table_add(&pt->hists, "%.6g", h.min);
    for (int i = 0; i < STORQ_INFO_NQUANTILES; i++) {
        storq_info_quantile_text(&h, i, text, sizeof text);
        storq_table_add(&pt->hists, "%s", text);
    }
    storq_table_add(&pt->hists, "%.6g", h.max);
    storq_info_resolution_text(&h, text, sizeof text);
    storq_table_add(&pt->hists, "%s", text);
    storq_table_add(&pt->hists, "%s", unit);
    return STORQ_OK;
}

static int add_observable(point_tables *pt, hid_t obs, hid_t theory, const char *name,
                          storq_error *err)
{
    hid_t g = H5Gopen2(obs, name, H5P_DEFAULT);
    if (g < 0)
        return storq_h5u_fail(err, obs, "cannot open observable '%s'", name);
    char *kind = NULL, *unit = NULL;
    int rc = storq_h5u_read_attr_string(g, "kind", &kind, err);
    if (!rc)
        rc = storq_h5u_has_attr(g, "unit") ? storq_h5u_read_attr_string(g, "unit", &unit, err)
                                           : STORQ_OK;
    const char *u = unit ? unit : "";
    if (rc) {
        /* err is set */
    } else if (strcmp(kind, "scalar") == 0) {
        rc = add_scalar(pt, g, theory, name, u, err);
    } else if (strcmp(kind, "vector") == 0) {
        rc = add_vector(pt, g, theory, name, u, err);
    } else if (strcmp(kind, "histogram") == 0) {
        rc = add_histogram(pt, g, name, u, err);
    }
    free(kind);
    free(unit);
    H5Gclose(g);
    return rc;
}

/* Length-1 comparison arrays (distances, errors) as name = value rows. */
static int print_comparisons(hid_t point, FILE *out, storq_error *err)
{
    if (!storq_h5u_has_link(point, STORQ_SCHEMA_COMPARISON))
        return STORQ_OK;
    hid_t g = H5Gopen2(point, STORQ_SCHEMA_COMPARISON, H5P_DEFAULT);
    if (g < 0)
        return storq_h5u_fail(err, point, "cannot open group '%s'", STORQ_SCHEMA_COMPARISON);
    char **names = NULL;
    size_t n = 0;
    storq_table t;
    storq_table_init(&t, 3, NULL, "    ");
    storq_table_title(&t, "  " STORQ_SCHEMA_COMPARISON ":");
    int rc = storq_h5u_list_links(g, &names, &n, err);
    for (size_t i = 0; !rc && i < n; i++) {
        double *v = NULL;
        size_t len;
        rc = storq_h5u_read_f64(g, names[i], &v, &len, err);
        if (!rc && len == 1) {
            char unit[64] = "";
            hid_t d = H5Dopen2(g, names[i], H5P_DEFAULT);
            if (d >= 0) {
                attr_text(d, "unit", unit, sizeof unit);
                H5Dclose(d);
            }
            storq_table_add(&t, "%s", names[i]);
            storq_table_add(&t, "%.6g", v[0]);
            storq_table_add(&t, "%s", strcmp(unit, "?") ? unit : "");
        }
        free(v);
    }
    if (!rc && storq_table_rows(&t) > 0)
        storq_table_print(&t, out);
    storq_table_free(&t);
    storq_h5u_free_names(names, n);
    H5Gclose(g);
    return rc;
}

/* A table of one kind of observable, when the point has any. */
static void print_section(FILE *out, storq_table *t)
{
    if (storq_table_rows(t) > 0)
        storq_table_print(t, out);
    storq_table_free(t);
}

static int print_observables(hid_t point, FILE *out, storq_error *err)
{
    point_tables pt;
    storq_table_init(&pt.scalars, 5, NULL, "    ");
    storq_table_title(&pt.scalars, "  scalars:");
    storq_table_header(&pt.scalars, "scalar", "mean", "ci95", "theory", "unit", (char *)NULL);
    storq_table_init(&pt.vectors, 5, NULL, "    ");
    storq_table_title(&pt.vectors, "  vectors:");
    storq_table_header(&pt.vectors, "vector", "shape", "mean (first values)",
                       "theory (grid or name)", "unit", (char *)NULL);
    storq_table_init(&pt.hists, 11, NULL, "    ");
    storq_table_title(&pt.hists, "  histograms: (quantiles read off the bins, within the "
                      "resolution; <x: below the first bin edge x, >=x: beyond the last)");
    storq_table_header(&pt.hists, "histogram", "count", "mean", "min", "p50", "p90", "p99",
                       "p99.9", "max", "resolution", "unit", (char *)NULL);

    hid_t obs = H5Gopen2(point, STORQ_SCHEMA_OBSERVABLES, H5P_DEFAULT);
    hid_t theory = storq_h5u_has_link(point, STORQ_SCHEMA_THEORY)
                       ? H5Gopen2(point, STORQ_SCHEMA_THEORY, H5P_DEFAULT)
                       : -1;
    char **names = NULL;
    size_t n = 0;
    int rc = obs >= 0 ? storq_h5u_list_links(obs, &names, &n, err)
                      : storq_h5u_fail(err, point, "cannot open group '%s'",
                                       STORQ_SCHEMA_OBSERVABLES);
    for (size_t i = 0; !rc && i < n; i++)
        rc = add_observable(&pt, obs, theory, names[i], err);
    storq_h5u_free_names(names, n);
    storq_h5u_close_group(&obs);
    storq_h5u_close_group(&theory);
    if (rc) {
        storq_table_free(&pt.scalars);
        storq_table_free(&pt.vectors);
        storq_table_free(&pt.hists);
        return rc;
    }
    print_section(out, &pt.scalars);
    print_section(out, &pt.vectors);
    print_section(out, &pt.hists);
    return STORQ_OK;
}

static int print_point(hid_t file, uint64_t id, FILE *out, storq_error *err)
{
    char name[STORQ_SCHEMA_POINT_PATH_MAX];
    storq_schema_point_path((size_t)id, name, sizeof name);
    hid_t g = H5Gopen2(file, name, H5P_DEFAULT);
    if (g < 0)
        return storq_h5u_fail(err, file, "cannot open group '%s'", name);
    double wall = 0;
    uint64_t events = 0, reps = 0;
    int rc = storq_h5u_read_attr_f64(g, STORQ_SCHEMA_ATTR_WALL_SECONDS, &wall, err);
    if (!rc)
        rc = storq_h5u_read_attr_u64(g, STORQ_SCHEMA_ATTR_EVENTS, &events, err);
    if (!rc)
        rc = storq_h5u_read_attr_u64(g, STORQ_SCHEMA_ATTR_REPLICATIONS, &reps, err);
    if (!rc) {
        fprintf(out, "\npoint %06" PRIu64 ": %" PRIu64 " replications, %" PRIu64
                     " events, %.3f s wall\n",
                id, reps, events, wall);
        rc = print_observables(g, out, err);
    }
    if (!rc)
        rc = print_comparisons(g, out, err);
    H5Gclose(g);
    return rc;
}

int storq_h5_info(const char *path, FILE *out, storq_error *err)
{
    storq_h5u_quiet();
    hid_t file;
    storq_h5_checked checked;
    /* Everything printed below was checked first: a damaged or crafted file is refused. */
    STORQ_TRY(storq_h5_open_checked(path, STORQ_INFO_WRITING_HINT, &file, &checked, err));
    print_root(file, path, out);
    storq_info_units(file, out);
    uint64_t *ids = NULL;
    size_t n = 0;
    int rc = print_index(file, out, &ids, &n, err);
    storq_info_task task = storq_info_read_task(file);
    for (size_t r = 0; !rc && r < n; r++)
        if (strcmp(point_status(file, task, ids[r]), "complete") == 0)
            rc = print_point(file, ids[r], out, err);
    if (!rc && checked.unreadable)
        rc = storq_info_unreadable(path, checked.unreadable, err);
    free(ids);
    H5Fclose(file);
    return rc;
}

int storq_info_unreadable(const char *path, size_t n, storq_error *err)
{
    return storq_fail(err, STORQ_ERR_USAGE, "%s: %zu point group%s cannot be read (marked "
                      "'unreadable'): %s HDF5 object header%s damaged: the file is damaged", path,
                      n, n == 1 ? "" : "s", n == 1 ? "its" : "their", n == 1 ? " is" : "s are");
}
