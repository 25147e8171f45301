/* Reading an earlier run's /run/units and /points/index back (h5_units_read.h). The file is
 * checked whole first, as `storq info` checks it: the tables' sizes are then known to fit the
 * file before anything is allocated for them. */
#include "h5_units_read.h"

#include <hdf5.h>
#include <stdlib.h>
#include <string.h>

#include "h5_check.h"
#include "h5_info_index.h"
#include "h5_util.h"
#include "schema.h"

/* One column of the compound table d, converted to mtype (8 bytes) into out (nrows values).
 * HDF5 matches compound members by name: a one-member type reads the one column. */
static int read_column(hid_t d, const char *name, hid_t mtype, size_t nrows, void *out)
{
    hid_t col = H5Tcreate(H5T_COMPOUND, 8);
    int bad = col < 0 || H5Tinsert(col, name, 0, mtype) < 0 ||
              (nrows > 0 && H5Dread(d, col, H5S_ALL, H5S_ALL, H5P_DEFAULT, out) < 0);
    storq_h5u_close_type(&col);
    return bad ? -1 : 0;
}

static int has_member(hid_t d, const char *name)
{
    hid_t t = H5Dget_type(d);
    int has = t >= 0 && H5Tget_class(t) == H5T_COMPOUND && H5Tget_member_index(t, name) >= 0;
    storq_h5u_close_type(&t);
    H5Eclear2(H5E_DEFAULT);
    return has;
}

static size_t rows_of(hid_t d)
{
    hid_t space = H5Dget_space(d);
    hssize_t n = space >= 0 ? H5Sget_simple_extent_npoints(space) : -1;
    storq_h5u_close_space(&space);
    return n > 0 ? (size_t)n : 0;
}

static int read_units(hid_t file, const char *path, const char *label, storq_units_read *u,
                      storq_error *err)
{
    if (!storq_h5u_has_link(file, STORQ_SCHEMA_UNITS_PATH))
        return storq_fail(err, STORQ_ERR_USAGE, "%s: %s has no " STORQ_SCHEMA_UNITS_PATH
                          " (the record of a run's units): it was written by a storq without it, "
                          "or by a run killed before it ended; give a finished run's file",
                          label, path);
    hid_t d = H5Dopen2(file, STORQ_SCHEMA_UNITS_PATH, H5P_DEFAULT);
    if (d < 0)
        return storq_h5u_fail(err, file, "cannot open '" STORQ_SCHEMA_UNITS_PATH "'");
    size_t n = rows_of(d);
    u->nrows = n;
    u->cpu_seconds = has_member(d, STORQ_SCHEMA_UNIT_CPU);
    u->point = malloc((n + 1) * sizeof *u->point);
    u->rep = malloc((n + 1) * sizeof *u->rep);
    u->cost = malloc((n + 1) * sizeof *u->cost);
    u->seconds = malloc((n + 1) * sizeof *u->seconds);
    double *end = malloc((n + 1) * sizeof *end);
    int rc = STORQ_OK;
    if (!u->point || !u->rep || !u->cost || !u->seconds || !end)
        rc = STORQ_RUNTIME_FAIL(err, "out of memory for %zu rows of %s", n, path);
    else if (read_column(d, STORQ_SCHEMA_UNIT_POINT, H5T_NATIVE_UINT64, n, u->point) ||
             read_column(d, STORQ_SCHEMA_UNIT_REP, H5T_NATIVE_INT64, n, u->rep) ||
             read_column(d, STORQ_SCHEMA_UNIT_COST, H5T_NATIVE_DOUBLE, n, u->cost) ||
             (u->cpu_seconds
                  ? read_column(d, STORQ_SCHEMA_UNIT_CPU, H5T_NATIVE_DOUBLE, n, u->seconds)
                  : read_column(d, STORQ_SCHEMA_UNIT_START, H5T_NATIVE_DOUBLE, n, u->seconds) ||
                        read_column(d, STORQ_SCHEMA_UNIT_END, H5T_NATIVE_DOUBLE, n, end)))
        rc = storq_fail(err, STORQ_ERR_USAGE, "%s: %s: '" STORQ_SCHEMA_UNITS_PATH "' lacks the "
                        "columns point, rep, cost, start and end of a storq units table", label,
                        path);
    for (size_t i = 0; !rc && i < n; i++) {
        double s = u->cpu_seconds ? u->seconds[i] : end[i] - u->seconds[i];
        u->seconds[i] = s > 0 ? s : 0.0; /* clock skew between ranks: never negative */
    }
    free(end);
    storq_h5u_close_dataset(&d);
    H5Eclear2(H5E_DEFAULT);
    return rc;
}

static int read_index(hid_t file, const char *path, storq_units_read *u, storq_error *err)
{
    hid_t d = H5Dopen2(file, STORQ_SCHEMA_INDEX_PATH, H5P_DEFAULT);
    hid_t ftype = d >= 0 ? H5Dget_type(d) : -1;
    int members = ftype >= 0 ? H5Tget_nmembers(ftype) : -1;
    if (members < 1) {
        storq_h5u_close_type(&ftype);
        storq_h5u_close_dataset(&d);
        return storq_h5u_fail(err, file, "cannot read '" STORQ_SCHEMA_INDEX_PATH "'");
    }
    size_t n = rows_of(d), np = (size_t)members - 1; /* the checker put "point" first */
    u->npoints = n;
    u->nparams = np;
    u->param_names = calloc(np + 1, sizeof *u->param_names);
    u->param_values = calloc(n * np + 1, sizeof *u->param_values);
    char **column = calloc(n + 1, sizeof *column);
    int rc = u->param_names && u->param_values && column
                 ? STORQ_OK
                 : STORQ_RUNTIME_FAIL(err, "out of memory for the index of %s", path);
    for (size_t j = 0; !rc && j < np; j++) {
        char *name = H5Tget_member_name(ftype, (unsigned)(j + 1));
        u->param_names[j] = name ? strdup(name) : NULL;
        H5free_memory(name);
        if (!u->param_names[j] ||
            storq_info_index_column(d, ftype, (unsigned)(j + 1), n, column, NULL, 1)) {
            rc = storq_h5u_fail(err, d, "cannot read a column of the index");
            break;
        }
        for (size_t p = 0; p < n; p++) {
            u->param_values[p * np + j] = column[p];
            column[p] = NULL;
        }
    }
    free(column);
    storq_h5u_close_type(&ftype);
    storq_h5u_close_dataset(&d);
    return rc;
}

int storq_h5_units_read(const char *path, const char *label, storq_units_read *out,
                        storq_error *err)
{
    memset(out, 0, sizeof *out);
    storq_h5u_quiet();
    hid_t file;
    STORQ_TRY(storq_schema_open(path, label, STORQ_SCHEMA_READ_COLUMNAR, STORQ_INFO_WRITING_HINT,
                                &file, NULL, err));
    int rc = storq_h5_check_file(file, path, label, NULL, err);
    if (!rc)
        rc = storq_h5u_read_attr_string(file, STORQ_SCHEMA_ATTR_MODEL, &out->model, err);
    if (!rc)
        rc = read_units(file, path, label, out, err);
    if (!rc)
        rc = read_index(file, path, out, err);
    H5Fclose(file);
    if (rc)
        storq_h5_units_read_free(out);
    return rc;
}

void storq_h5_units_read_free(storq_units_read *u)
{
    free(u->model);
    free(u->point);
    free(u->rep);
    free(u->cost);
    free(u->seconds);
    for (size_t j = 0; u->param_names && j < u->nparams; j++)
        free(u->param_names[j]);
    free(u->param_names);
    for (size_t i = 0; u->param_values && i < u->npoints * u->nparams; i++)
        free(u->param_values[i]);
    free(u->param_values);
    memset(u, 0, sizeof *u);
}
