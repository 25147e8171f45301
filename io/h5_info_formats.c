/* `storq info FILE --format csv|json`: a results file's complete points as machine-readable rows.
 *
 * Each point becomes a list of named cells (parameters as text, numbers as doubles); csv prints
 * the union of the names as its header, json an object per point. Only complete points are
 * listed: an unfinished point has no summaries yet. */
#include "h5_info.h"

#include <errno.h>
#include <hdf5.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "h5_check.h"
#include "h5_guard.h"
#include "h5_info_columnar.h"
#include "h5_info_hist.h"
#include "h5_info_index.h"
#include "h5_util.h"
#include "schema.h"

typedef struct cell {
    char *name;
    char *text; /* a parameter's text (or a number's, numeric = 1) */
    double x;
    int numeric, is_text;
} cell;

typedef struct row {
    uint64_t id;
    cell *cells;
    size_t n, cap;
} row;

static int push(row *r, const char *name, const char *text, double x, int numeric)
{
    if (r->n == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 32;
        cell *grown = realloc(r->cells, cap * sizeof *grown);
        if (!grown)
            return -1;
        r->cells = grown;
        r->cap = cap;
    }
    cell *c = &r->cells[r->n];
    c->name = strdup(name);
    c->text = text ? strdup(text) : NULL;
    c->x = x;
    c->numeric = numeric;
    c->is_text = text != NULL;
    if (!c->name || (text && !c->text)) {
        free(c->name);
        free(c->text);
        return -1;
    }
    r->n++;
    return 0;
}

static int push_x(row *r, const char *prefix, const char *name, const char *suffix, double x)
{
    char full[256];
    snprintf(full, sizeof full, "%s%s%s", prefix, name, suffix);
    return push(r, full, NULL, x, 1);
}

static void row_free(row *r)
{
    for (size_t i = 0; i < r->n; i++) {
        free(r->cells[i].name);
        free(r->cells[i].text);
    }
    free(r->cells);
    memset(r, 0, sizeof *r);
}

static double one_f64(hid_t g, const char *name, storq_error *err)
{
    double *v = NULL, x = NAN;
    size_t n = 0;
    if (storq_h5u_read_f64(g, name, &v, &n, err) == STORQ_OK && n == 1)
        x = v[0];
    free(v);
    return x;
}

/* Every one-number array of the group at path under the point, as prefix+name cells. */
static int add_singles(hid_t point, const char *group, const char *prefix, row *r,
                       storq_error *err)
{
    if (!storq_h5u_has_link(point, group))
        return STORQ_OK;
    hid_t g = H5Gopen2(point, group, H5P_DEFAULT);
    if (g < 0)
        return storq_h5u_fail(err, point, "cannot open group '%s'", group);
    char **names = NULL;
    size_t n = 0;
    int rc = storq_h5u_list_links(g, &names, &n, err);
    for (size_t i = 0; !rc && i < n; i++) {
        double *v = NULL;
        size_t len = 0;
        rc = storq_h5u_read_f64(g, names[i], &v, &len, err);
        if (!rc && len == 1 && push_x(r, prefix, names[i], "", v[0]))
            rc = STORQ_RUNTIME_FAIL(err, "out of memory");
        free(v);
    }
    storq_h5u_free_names(names, n);
    H5Gclose(g);
    return rc;
}

static int add_observables(hid_t point, row *r, storq_error *err)
{
    hid_t obs = H5Gopen2(point, STORQ_SCHEMA_OBSERVABLES, H5P_DEFAULT);
    if (obs < 0)
        return storq_h5u_fail(err, point, "cannot open group '%s'", STORQ_SCHEMA_OBSERVABLES);
    char **names = NULL;
    size_t n = 0;
    int rc = storq_h5u_list_links(obs, &names, &n, err);
    for (size_t i = 0; !rc && i < n; i++) {
        hid_t g = H5Gopen2(obs, names[i], H5P_DEFAULT);
        char *kind = NULL;
        if (g < 0) {
            rc = storq_h5u_fail(err, obs, "cannot open observable '%s'", names[i]);
            break;
        }
        rc = storq_h5u_read_attr_string(g, "kind", &kind, err);
        int oom = 0;
        if (!rc && !strcmp(kind, "scalar")) {
            oom |= push_x(r, "", names[i], "_mean", one_f64(g, "mean", err));
            oom |= push_x(r, "", names[i], "_stderr", one_f64(g, "stderr", err));
            oom |= push_x(r, "", names[i], "_ci95", one_f64(g, "ci95", err));
            rc = err->code;
        } else if (!rc && !strcmp(kind, "histogram")) {
            storq_info_hist h;
            rc = storq_info_hist_read(g, &h, err);
            if (!rc) {
                oom |= push_x(r, "", names[i], "_count", (double)h.count);
                oom |= push_x(r, "", names[i], "_mean", h.mean);
                for (int q = 0; q < STORQ_INFO_NQUANTILES; q++) {
                    char suffix[16];
                    snprintf(suffix, sizeof suffix, "_%s", storq_info_quantile_names[q]);
                    /* a quantile beyond the bins is a bound, not a value */
                    oom |= push_x(r, "", names[i], suffix,
                                  h.where[q] == STORQ_Q_BINS ? h.q[q] : NAN);
                }
                oom |= push_x(r, "", names[i], "_max", h.max);
            }
        }
        if (!rc && oom)
            rc = STORQ_RUNTIME_FAIL(err, "out of memory");
        free(kind);
        H5Gclose(g);
    }
    storq_h5u_free_names(names, n);
    H5Gclose(obs);
    return rc;
}

/* Index columns as cells; numeric ones keep every digit. */
static int read_index(hid_t file, row **rows, size_t *nrows, storq_error *err)
{
    hid_t d = H5Dopen2(file, STORQ_SCHEMA_INDEX_PATH, H5P_DEFAULT);
    if (d < 0)
        return storq_h5u_fail(err, file, "cannot open dataset '" STORQ_SCHEMA_INDEX_PATH "'");
    hid_t ftype = H5Dget_type(d), space = H5Dget_space(d);
    hssize_t n = space >= 0 ? H5Sget_simple_extent_npoints(space) : -1;
    int nm = ftype >= 0 && H5Tget_class(ftype) == H5T_COMPOUND ? H5Tget_nmembers(ftype) : -1;
    int rc = n < 0 || nm < 1 ? storq_h5u_fail(err, file, "the index is not a table") : STORQ_OK;
    size_t nr = n > 0 ? (size_t)n : 0;
    char **cells = rc ? NULL : calloc(nr + 1, sizeof *cells);
    uint64_t *ids = rc ? NULL : calloc(nr + 1, sizeof *ids);
    *rows = rc ? NULL : calloc(nr + 1, sizeof **rows);
    if (!rc && (!cells || !ids || !*rows))
        rc = STORQ_RUNTIME_FAIL(err, "out of memory");
    for (size_t i = 0; !rc && i < nr; i++)
        ids[i] = i;
    for (int m = 0; !rc && m < nm; m++) {
        char *name = H5Tget_member_name(ftype, (unsigned)m);
        hid_t mt = H5Tget_member_type(ftype, (unsigned)m);
        int numeric = H5Tget_class(mt) != H5T_STRING;
        H5Tclose(mt);
        if (storq_info_index_column(d, ftype, (unsigned)m, nr, cells, ids, 1))
            rc = storq_h5u_fail(err, d, "cannot read a column of the index");
        for (size_t i = 0; i < nr; i++) {
            if (!rc && strcmp(name, STORQ_SCHEMA_INDEX_POINT) != 0 &&
                push(&(*rows)[i], name, cells[i] ? cells[i] : "", numeric && cells[i]
                         ? strtod(cells[i], NULL) : NAN, numeric))
                rc = STORQ_RUNTIME_FAIL(err, "out of memory");
            free(cells[i]);
            cells[i] = NULL;
        }
        H5free_memory(name);
    }
    for (size_t i = 0; !rc && i < nr; i++)
        (*rows)[i].id = ids[i];
    *nrows = nr;
    free(cells);
    free(ids);
    storq_h5u_close_type(&ftype);
    storq_h5u_close_space(&space);
    H5Dclose(d);
    H5Eclear2(H5E_DEFAULT);
    return rc;
}

/* The point's own figures after its parameters; *complete = 0 for a point not complete; a
 * point HDF5 cannot open is kept with one cell, status = unreadable. */
static int read_point(hid_t file, row *r, int *complete, storq_error *err)
{
    char name[STORQ_SCHEMA_POINT_PATH_MAX];
    storq_schema_point_path((size_t)r->id, name, sizeof name);
    int state = storq_h5u_has_link(file, name) ? storq_schema_point_complete(file, name) : 0;
    H5Eclear2(H5E_DEFAULT);
    *complete = state != 0;
    if (state < 0) /* HDF5 cannot open it: listed, marked, and info fails after printing */
        return push(r, "status", "unreadable", 0, 0) ? STORQ_RUNTIME_FAIL(err, "out of memory")
                                                     : STORQ_OK;
    if (!*complete)
        return STORQ_OK;
    hid_t g = H5Gopen2(file, name, H5P_DEFAULT);
    if (g < 0)
        return storq_h5u_fail(err, file, "cannot open group '%s'", name);
    uint64_t reps = 0;
    int rc = storq_h5u_read_attr_u64(g, STORQ_SCHEMA_ATTR_REPLICATIONS, &reps, err);
    if (!rc && push(r, "replications", NULL, (double)reps, 1))
        rc = STORQ_RUNTIME_FAIL(err, "out of memory");
    if (!rc)
        rc = add_observables(g, r, err);
    if (!rc)
        rc = add_singles(g, STORQ_SCHEMA_THEORY, "theory_", r, err);
    if (!rc)
        rc = add_singles(g, STORQ_SCHEMA_COMPARISON, "comparison_", r, err);
    H5Gclose(g);
    return rc;
}

static void value_csv(FILE *out, const cell *c)
{
    if (c->is_text)
        storq_csv_field(out, c->text);
    else
        storq_csv_number(out, c->x);
}

static void value_json(FILE *out, const cell *c)
{
    if (c->is_text && !c->numeric)
        storq_json_string(out, c->text);
    else
        storq_json_number(out, c->x);
}

/* The column names in first-seen order over the rows. */
static const char **union_names(const row *rows, size_t nrows, size_t *n)
{
    size_t cap = 1;
    for (size_t i = 0; i < nrows; i++)
        cap += rows[i].n;
    const char **names = malloc(cap * sizeof *names);
    *n = 0;
    for (size_t i = 0; names && i < nrows; i++)
        for (size_t c = 0; c < rows[i].n; c++) {
            size_t k = 0;
            while (k < *n && strcmp(names[k], rows[i].cells[c].name))
                k++;
            if (k == *n)
                names[(*n)++] = rows[i].cells[c].name;
        }
    return names;
}

static const cell *find(const row *r, const char *name)
{
    for (size_t c = 0; c < r->n; c++)
        if (!strcmp(r->cells[c].name, name))
            return &r->cells[c];
    return NULL;
}

static int print_csv(FILE *out, const row *rows, size_t nrows, storq_error *err)
{
    size_t n;
    const char **names = union_names(rows, nrows, &n);
    if (!names)
        return STORQ_RUNTIME_FAIL(err, "out of memory");
    fputs("point", out);
    for (size_t k = 0; k < n; k++) {
        fputc(',', out);
        storq_csv_field(out, names[k]);
    }
    fputc('\n', out);
    for (size_t i = 0; i < nrows; i++) {
        fprintf(out, "%" PRIu64, rows[i].id);
        for (size_t k = 0; k < n; k++) {
            fputc(',', out);
            const cell *c = find(&rows[i], names[k]);
            if (c)
                value_csv(out, c);
        }
        fputc('\n', out);
    }
    free(names);
    return STORQ_OK;
}

static herr_t json_attr(hid_t loc, const char *name, const H5A_info_t *info, void *data)
{
    (void)info;
    FILE *out = ((void **)data)[0];
    int *first = ((void **)data)[1];
    char *s = NULL;
    double *x_all = NULL;
    storq_error ignore = {0};
    hid_t a = H5Aopen(loc, name, H5P_DEFAULT);
    hid_t t = a >= 0 ? H5Aget_type(a) : -1;
    H5T_class_t cls = t >= 0 ? H5Tget_class(t) : H5T_NO_CLASS;
    hid_t space = a >= 0 ? H5Aget_space(a) : -1;
    hssize_t count = space >= 0 ? H5Sget_simple_extent_npoints(space) : 0;
    fputs(*first ? "\n    " : ",\n    ", out);
    *first = 0;
    storq_json_string(out, name);
    fputs(": ", out);
    if (cls == H5T_STRING && count == 1 &&
        storq_h5u_read_attr_string(loc, name, &s, &ignore) == STORQ_OK) {
        storq_json_string(out, s);
    } else if ((cls == H5T_INTEGER || cls == H5T_FLOAT) && count == 1) {
        double x = NAN;
        H5Aread(a, H5T_NATIVE_DOUBLE, &x);
        storq_json_number(out, x);
    } else if ((cls == H5T_INTEGER || cls == H5T_FLOAT) && count > 1 &&
               (x_all = malloc(sizeof *x_all * (size_t)count)) != NULL &&
               H5Aread(a, H5T_NATIVE_DOUBLE, x_all) >= 0) {
        /* a numeric array (format_version [major, minor]): flattened, in storage order */
        fputc('[', out);
        for (hssize_t i = 0; i < count; i++) {
            if (i > 0)
                fputs(", ", out);
            storq_json_number(out, x_all[i]);
        }
        fputc(']', out);
    } else {
        fputs("null", out); /* other types: see the table format */
    }
    free(x_all);
    free(s);
    storq_h5u_close_space(&space);
    storq_h5u_close_type(&t);
    if (a >= 0)
        H5Aclose(a);
    H5Eclear2(H5E_DEFAULT);
    return 0;
}

static int print_json(FILE *out, hid_t file, const char *path, const row *rows, size_t nrows,
                      size_t nparams)
{
    fputs("{\"file\": ", out);
    storq_json_string(out, path);
    fputs(",\n  \"attributes\": {", out);
    int first = 1;
    void *data[2] = {out, &first};
    hsize_t pos = 0;
    H5Aiterate2(file, H5_INDEX_NAME, H5_ITER_INC, &pos, json_attr, data);
    H5Eclear2(H5E_DEFAULT);
    fputs("},\n  \"points\": [", out);
    for (size_t i = 0; i < nrows; i++) {
        const row *r = &rows[i];
        fprintf(out, "%s\n    {\"point\": %" PRIu64 ", \"params\": {", i ? "," : "", r->id);
        for (size_t c = 0; c < r->n; c++) {
            if (c == nparams)
                fputs("},\n     \"values\": {", out);
            else if (c > 0)
                fputs(", ", out);
            storq_json_string(out, r->cells[c].name);
            fputs(": ", out);
            value_json(out, &r->cells[c]);
        }
        fputs(r->n <= nparams ? "}, \"values\": {}}" : "}}", out);
    }
    fputs("\n  ]}\n", out);
    return STORQ_OK;
}

/* ---- schema 2.0: the rows' values as the check reads them (h5_info_columnar.c) ---- */

typedef struct columnar_rows {
    hid_t file;
    const char *path;
    storq_view_format fmt;
    FILE *out; /* a temporary file: copied out once the whole check passed */
    row *rows; /* the index's, row i point i */
    size_t nrows, nparams, kept;
    int read;
    row *cur;
} columnar_rows;

static int columnar_index(columnar_rows *c, storq_error *err)
{
    if (c->read)
        return STORQ_OK;
    c->read = 1;
    STORQ_TRY(read_index(c->file, &c->rows, &c->nrows, err));
    c->nparams = c->nrows > 0 ? c->rows[0].n : 0;
    return STORQ_OK;
}

static int columnar_begin(void *ctx, uint64_t id, uint64_t replications, storq_error *err)
{
    columnar_rows *c = ctx;
    STORQ_TRY(columnar_index(c, err));
    if (id >= c->nrows) /* the check refuses it first */
        return STORQ_RUNTIME_FAIL(err, "a row's point %" PRIu64 " is not in the index", id);
    /* rows come in increasing id: the kept ones move to the front in order */
    row t = c->rows[c->kept];
    c->rows[c->kept] = c->rows[id];
    c->rows[id] = t;
    c->cur = &c->rows[c->kept++];
    return push(c->cur, "replications", NULL, (double)replications, 1)
               ? STORQ_RUNTIME_FAIL(err, "out of memory")
               : STORQ_OK;
}

static int columnar_cell(void *ctx, const char *name, const char *suffix, double x,
                         storq_error *err)
{
    columnar_rows *c = ctx;
    return push_x(c->cur, "", name, suffix, x) ? STORQ_RUNTIME_FAIL(err, "out of memory")
                                               : STORQ_OK;
}

static int columnar_end(void *ctx, hid_t file, storq_error *err)
{
    columnar_rows *c = ctx;
    STORQ_TRY(columnar_index(c, err));
    int rc = c->fmt == STORQ_VIEW_CSV ? print_csv(c->out, c->rows, c->kept, err)
                                      : print_json(c->out, file, c->path, c->rows, c->kept,
                                                   c->nparams);
    if (!rc && fflush(c->out) != 0)
        rc = STORQ_RUNTIME_FAIL(err, "cannot write to a temporary file: %s", strerror(errno));
    return rc;
}

static int info_columnar(hid_t file, const char *path, storq_view_format fmt, FILE *out,
                         storq_error *err)
{
    columnar_rows c = {file, path, fmt, tmpfile(), NULL, 0, 0, 0, 0, NULL};
    if (!c.out)
        return STORQ_RUNTIME_FAIL(err, "cannot make a temporary file: %s", strerror(errno));
    storq_info_cells cells = {columnar_begin, columnar_cell, columnar_end, &c};
    int rc = storq_info_columnar_cells(file, path, &cells, err);
    if (!rc)
        rc = storq_info_copy_out(c.out, out, err);
    for (size_t i = 0; i < c.nrows; i++) /* read here when the check ran in this process */
        row_free(&c.rows[i]);
    free(c.rows);
    fclose(c.out);
    return rc;
}

typedef struct info_args {
    const char *path;
    storq_view_format fmt;
    FILE *out;
} info_args;

static int info_here(void *ctx, void *result, storq_error *err);

/* All of info reads in a child (h5_guard.h): a damaged part HDF5 crashes on, that the check
 * did not read (a root attribute), still ends in a message, not a crash. */
int storq_h5_info_format(const char *path, storq_view_format fmt, FILE *out, storq_error *err)
{
    info_args a = {path, fmt, out};
    return storq_h5_guard(info_here, &a, NULL, 0, out, NULL, path, err);
}

static int info_here(void *ctx, void *result, storq_error *err)
{
    (void)result;
    const info_args *a = ctx;
    const char *path = a->path;
    FILE *out = a->out;
    storq_view_format fmt = a->fmt;
    if (fmt == STORQ_VIEW_TABLE)
        return storq_h5_info(path, out, err);
    storq_h5u_quiet();
    hid_t file;
    storq_schema_info version;
    STORQ_TRY(storq_schema_open(path, NULL, STORQ_SCHEMA_READ_COLUMNAR, STORQ_INFO_WRITING_HINT,
                                &file, &version, err));
    if (version.major == STORQ_SCHEMA_MAJOR_COLUMNAR) {
        int rc = info_columnar(file, path, fmt, out, err);
        H5Fclose(file);
        return rc;
    }
    /* Everything printed below was checked first: a damaged or crafted file is refused. */
    storq_h5_checked checked;
    int checked_rc = storq_h5_check_file(file, path, NULL, &checked, err);
    if (checked_rc) {
        H5Fclose(file);
        return checked_rc;
    }
    row *rows = NULL;
    size_t nrows = 0, kept = 0, nparams = 0;
    int rc = read_index(file, &rows, &nrows, err);
    if (!rc && nrows > 0)
        nparams = rows[0].n;
    for (size_t i = 0; !rc && i < nrows; i++) {
        int complete = 0;
        rc = read_point(file, &rows[i], &complete, err);
        if (complete) {
            row tmp = rows[kept];
            rows[kept++] = rows[i];
            rows[i] = tmp;
        }
    }
    if (!rc && fmt == STORQ_VIEW_CSV)
        rc = print_csv(out, rows, kept, err);
    else if (!rc)
        rc = print_json(out, file, path, rows, kept, nparams);
    if (!rc && checked.unreadable)
        rc = storq_info_unreadable(path, checked.unreadable, err);
    for (size_t i = 0; i < nrows; i++)
        row_free(&rows[i]);
    free(rows);
    H5Fclose(file);
    return rc;
}
