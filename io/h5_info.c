/* `storq info FILE`: what a results file holds, as aligned text tables. Reads any schema 1.x file
 * (fields it does not know are still listed where the tables are generic); of a partial file's
 * checkpoints (1.2) it says how many replications each unfinished point has in; of the run's
 * record of its units, one line per session and per rank (h5_info_units.c). */
#include "h5_info.h"

#include <errno.h>
#include <hdf5.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "h5_check.h"
#include "h5_info_columnar.h"
#include "h5_info_hist.h"
#include "h5_info_index.h"
#include "h5_info_tables.h"
#include "h5_info_theory.h"
#include "h5_info_units.h"
#include "h5_util.h"
#include "schema.h"
#include "table.h"

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

/* Where the points' statuses come from: a 1.x file's point groups, or the rows of a 2.0 file
 * (rows: its point ids, increasing). */
typedef struct status_source {
    hid_t file;
    storq_info_task task;
    const uint64_t *rows;
    size_t nrows;
} status_source;

static const char *status_of(const status_source *s, uint64_t id)
{
    if (!s->rows)
        return point_status(s->file, s->task, id);
    size_t lo = 0, hi = s->nrows;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->rows[mid] < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < s->nrows && s->rows[lo] == id)
        return "complete"; /* a 2.0 file holds complete points only */
    return id % s->task.count != s->task.index ? "other task" : "pending";
}

/* Print the index with each point's status; *ids gets the point ids of the rows. */
static int print_index(hid_t file, const status_source *src, FILE *out, uint64_t **ids,
                       size_t *nrows, storq_error *err)
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
    storq_info_task task = src->task;
    add_index_header(&t, d, ftype, (unsigned)nm);
    size_t complete = 0;
    for (size_t r = 0; r < *nrows; r++) {
        for (int m = 0; m < nm; m++) {
            const char *c = cells[(size_t)m * *nrows + r];
            storq_table_add(&t, "%s", c ? c : "?");
        }
        const char *status = status_of(src, (*ids)[r]);
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

static int add_scalar(storq_info_tables *pt, hid_t g, hid_t theory, const char *name,
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
        double *th = NULL;
        char thname[128];
        storq_info_theory_for(theory, name, 1, &th, thname, sizeof thname);
        storq_info_add_scalar(pt, name, mean[0], ci[0], th, unit);
        free(th);
    }
    free(mean);
    free(ci);
    return rc;
}

static int add_vector(storq_info_tables *pt, hid_t g, hid_t theory, const char *name,
                      const char *unit, storq_error *err)
{
    double *mean = NULL, *th = NULL;
    size_t n;
    char shape[64], thname[128];
    STORQ_TRY(storq_h5u_read_f64(g, "mean", &mean, &n, err));
    shape_text(g, "mean", shape, sizeof shape);
    storq_info_theory_for(theory, name, n, &th, thname, sizeof thname);
    storq_info_add_vector(pt, name, shape, mean, n, th, unit);
    free(mean);
    free(th);
    return err->code;
}

static int add_observable(storq_info_tables *pt, hid_t obs, hid_t theory, const char *name,
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
    storq_info_hist h;
    if (rc) {
        /* err is set */
    } else if (strcmp(kind, "scalar") == 0) {
        rc = add_scalar(pt, g, theory, name, u, err);
    } else if (strcmp(kind, "vector") == 0) {
        rc = add_vector(pt, g, theory, name, u, err);
    } else if (strcmp(kind, "histogram") == 0 && !(rc = storq_info_hist_read(g, &h, err))) {
        storq_info_add_histogram(pt, name, &h, u);
    }
    free(kind);
    free(unit);
    H5Gclose(g);
    return rc;
}

/* Length-1 comparison arrays (distances, errors) as name = value rows. */
static int add_comparisons(storq_info_tables *pt, hid_t point, storq_error *err)
{
    if (!storq_h5u_has_link(point, STORQ_SCHEMA_COMPARISON))
        return STORQ_OK;
    hid_t g = H5Gopen2(point, STORQ_SCHEMA_COMPARISON, H5P_DEFAULT);
    if (g < 0)
        return storq_h5u_fail(err, point, "cannot open group '%s'", STORQ_SCHEMA_COMPARISON);
    char **names = NULL;
    size_t n = 0;
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
            storq_info_add_comparison(pt, names[i], v[0], strcmp(unit, "?") ? unit : "");
        }
        free(v);
    }
    storq_h5u_free_names(names, n);
    H5Gclose(g);
    return rc;
}

static int add_observables(storq_info_tables *pt, hid_t point, storq_error *err)
{
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
        rc = add_observable(pt, obs, theory, names[i], err);
    storq_h5u_free_names(names, n);
    storq_h5u_close_group(&obs);
    storq_h5u_close_group(&theory);
    return rc;
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
    storq_info_tables pt;
    storq_info_tables_init(&pt);
    if (!rc) {
        storq_info_point_line(out, id, reps, events, wall);
        rc = add_observables(&pt, g, err);
    }
    if (!rc)
        rc = add_comparisons(&pt, g, err);
    if (!rc)
        storq_info_tables_print(&pt, out);
    storq_info_tables_free(&pt);
    H5Gclose(g);
    return rc;
}

int storq_h5_info(const char *path, FILE *out, storq_error *err)
{
    storq_h5u_quiet();
    hid_t file;
    storq_h5_checked checked;
    storq_schema_info version;
    STORQ_TRY(storq_schema_open(path, NULL, STORQ_SCHEMA_READ_COLUMNAR, STORQ_INFO_WRITING_HINT,
                                &file, &version, err));
    /* Everything printed below was checked first: a damaged or crafted file is refused. A 2.0
     * file's rows are printed (to a temporary file) while they are checked, so that each block
     * of them is read and decompressed once. */
    int columnar = version.major == STORQ_SCHEMA_MAJOR_COLUMNAR, rc;
    FILE *rows = columnar ? tmpfile() : NULL;
    if (columnar && !rows)
        rc = storq_fail(err, STORQ_ERR_RUNTIME, "storq info: cannot make a temporary file: %s",
                        strerror(errno));
    else if (columnar)
        rc = storq_info_columnar_check(file, path, rows, &checked, err);
    else
        rc = storq_h5_check_file(file, path, NULL, &checked, err);
    uint64_t *ids = NULL, *row_ids = NULL;
    size_t n = 0, nrows = 0;
    status_source src = {file, storq_info_read_task(file), NULL, 0};
    if (!rc && columnar && !(rc = storq_info_columnar_ids(file, &row_ids, &nrows, err))) {
        src.rows = row_ids;
        src.nrows = nrows;
    }
    if (!rc) {
        print_root(file, path, out);
        storq_info_units(file, out);
        rc = print_index(file, &src, out, &ids, &n, err);
    }
    if (!rc && columnar)
        rc = storq_info_copy_out(rows, out, err);
    for (size_t r = 0; !rc && !columnar && r < n; r++)
        if (strcmp(point_status(file, src.task, ids[r]), "complete") == 0)
            rc = print_point(file, ids[r], out, err);
    if (!rc && checked.unreadable)
        rc = storq_info_unreadable(path, checked.unreadable, err);
    if (rows)
        fclose(rows);
    free(row_ids);
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
