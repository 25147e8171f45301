/* `storq info` of a schema 2.0 file (docs/hdf5-schema-2.md): the same tables as of the 1.x file
 * it holds the points of, read a block of rows at a time from the columns, so that its cost is
 * that of the data (a few datasets a block), not of one HDF5 object a value. */
#include "h5_info_columnar.h"

#include <errno.h>
#include <hdf5.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "h5_check.h"
#include "h5_columns.h"
#include "h5_info_hist.h"
#include "h5_info_tables.h"
#include "h5_util.h"

typedef storq_col column;

/* A string attribute of a quantity: one value for every row, or (where the points of a 1.x file
 * differed) an array of one a row. */
typedef struct per_row {
    char **v;
    size_t n;
} per_row;

static const char *at_row(const per_row *a, size_t row)
{
    return a->n == 0 ? "" : a->n == 1 ? a->v[0] : row < a->n ? a->v[row] : "";
}

/* A quantity: an observable (its datasets) or a theory or comparison array. */
typedef struct quantity {
    char name[128];
    per_row unit, grid;              /* an attribute: one value, or one a row (docs) */
    enum { Q_SCALAR, Q_VECTOR, Q_HIST, Q_ARRAY } kind;
    column *has;                     /* its has_ column, or NULL */
    column *mean, *ci95, *counts;    /* scalar, vector: mean, ci95; histogram: counts, mean */
    column *stderr_;                 /* scalar: for --format csv and json */
    column *under, *over, *count, *min, *max, *layout;
    int integer;
    double resolution;
    char **layouts;                  /* histogram: the layout names, and their edges */
    double **edges;
    size_t nlayouts, *nedges;
} quantity;

typedef struct columnar {
    hid_t file;
    storq_cols *cols;                /* the check's (h5_check_columnar.c), which reads them */
    quantity *obs, *theory, *cmp;
    size_t nobs, ntheory, ncmp;
    column *point, *reps, *events, *wall;
} columnar;

static int fail_oom(storq_error *err)
{
    return storq_fail(err, STORQ_ERR_RUNTIME, "out of memory reading a schema 2.0 file");
}

static int read_per_row(hid_t loc, const char *name, per_row *out, storq_error *err)
{
    out->v = NULL;
    out->n = 0;
    return storq_h5u_has_attr(loc, name)
               ? storq_h5u_read_attr_string_array(loc, name, &out->v, &out->n, err)
               : STORQ_OK;
}

static void attr_or_empty(hid_t loc, const char *name, char *buf, size_t size)
{
    char *s = NULL;
    storq_error ignore = {0};
    buf[0] = '\0';
    if (storq_h5u_has_attr(loc, name) && !storq_h5u_read_attr_string(loc, name, &s, &ignore))
        snprintf(buf, size, "%s", s);
    free(s);
}

static int open_column(columnar *c, const char *path, column **out, storq_error *err)
{
    return storq_cols_open(c->cols, path, out, err);
}

static size_t extent(const columnar *c, const column *col, int k, size_t r)
{
    return storq_cols_extent(c->cols, col, k, r);
}

static size_t row_values(const columnar *c, const column *col, size_t r, double *out)
{
    return storq_cols_values(c->cols, col, r, out);
}

static const char *unit_at(const columnar *c, const quantity *q, size_t r)
{
    return at_row(&q->unit, c->cols->first + r);
}

static int present(const columnar *c, const quantity *q, size_t r)
{
    (void)c;
    return !q->has || storq_cols_u64(q->has, r) != 0;
}

/* ---- the file's quantities ---- */

static int has_column(columnar *c, const char *group, const char *name, column **out,
                      storq_error *err)
{
    char path[320];
    snprintf(path, sizeof path, "/points/has_%s_%s", group, name);
    *out = NULL;
    return storq_h5u_has_link(c->file, path) ? open_column(c, path, out, err) : STORQ_OK;
}

static int open_member(columnar *c, const char *group, const char *member, column **out,
                       storq_error *err)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", group, member);
    return open_column(c, path, out, err);
}

/* A histogram's layouts: their names (the group's attribute layouts) and edges. */
static int load_layouts(columnar *c, hid_t g, quantity *q, storq_error *err)
{
    STORQ_TRY(storq_h5u_read_attr_string_array(g, "layouts", &q->layouts, &q->nlayouts, err));
    q->edges = calloc(q->nlayouts + 1, sizeof *q->edges);
    q->nedges = calloc(q->nlayouts + 1, sizeof *q->nedges);
    if (!q->edges || !q->nedges)
        return fail_oom(err);
    for (size_t i = 0; i < q->nlayouts; i++) {
        char path[320];
        snprintf(path, sizeof path, "/layouts/%s", q->layouts[i]);
        STORQ_TRY(storq_h5u_read_f64(c->file, path, &q->edges[i], &q->nedges[i], err));
    }
    return STORQ_OK;
}

static int load_observable(columnar *c, const char *name, quantity *q, storq_error *err)
{
    char path[320], kind[32];
    snprintf(path, sizeof path, "/observables/%s", name);
    snprintf(q->name, sizeof q->name, "%s", name);
    hid_t g = H5Gopen2(c->file, path, H5P_DEFAULT);
    if (g < 0)
        return storq_h5u_fail(err, c->file, "cannot open group '%s'", path);
    attr_or_empty(g, "kind", kind, sizeof kind);
    int rc = read_per_row(g, "unit", &q->unit, err);
    if (!rc)
        rc = has_column(c, "observables", name, &q->has, err);
    if (rc) {
        /* err is set */
    } else if (!strcmp(kind, "scalar")) {
        q->kind = Q_SCALAR;
        rc = open_member(c, path, "mean", &q->mean, err);
        if (!rc)
            rc = open_member(c, path, "ci95", &q->ci95, err);
        if (!rc)
            rc = open_member(c, path, "stderr", &q->stderr_, err);
    } else if (!strcmp(kind, "vector")) {
        q->kind = Q_VECTOR;
        rc = open_member(c, path, "mean", &q->mean, err);
    } else if (!strcmp(kind, "histogram")) {
        q->kind = Q_HIST;
        char hk[32];
        attr_or_empty(g, "histogram_kind", hk, sizeof hk);
        q->integer = !strcmp(hk, "integer");
        q->resolution = NAN;
        if (!q->integer && storq_h5u_has_attr(g, "relative_resolution"))
            rc = storq_h5u_read_attr_f64(g, "relative_resolution", &q->resolution, err);
        const char *m[] = {"counts", "underflow", "overflow", "count", "mean", "min", "max",
                           "layout"};
        column **to[] = {&q->counts, &q->under, &q->over, &q->count, &q->mean, &q->min, &q->max,
                         &q->layout};
        for (size_t i = 0; !rc && i < sizeof m / sizeof *m; i++)
            rc = open_member(c, path, m[i], to[i], err);
        if (!rc)
            rc = load_layouts(c, g, q, err);
    } else {
        rc = storq_h5u_fail(err, g, "observable '%s' has an unknown kind '%s'", name, kind);
    }
    H5Gclose(g);
    return rc;
}

static int load_array(columnar *c, const char *group, const char *name, quantity *q,
                      storq_error *err)
{
    char path[320];
    snprintf(path, sizeof path, "/%s/%s", group, name);
    snprintf(q->name, sizeof q->name, "%s", name);
    q->kind = Q_ARRAY;
    STORQ_TRY(open_column(c, path, &q->mean, err));
    STORQ_TRY(read_per_row(q->mean->d, "unit", &q->unit, err));
    STORQ_TRY(read_per_row(q->mean->d, "grid", &q->grid, err));
    return has_column(c, group, name, &q->has, err);
}

/* The members of group (creation order), each loaded by one of the functions above. */
static int load_group(columnar *c, const char *group, quantity **qs, size_t *n, storq_error *err)
{
    char **names = NULL;
    *n = 0;
    if (!storq_h5u_has_link(c->file, group))
        return STORQ_OK;
    hid_t g = H5Gopen2(c->file, group, H5P_DEFAULT);
    int rc = g < 0 ? storq_h5u_fail(err, c->file, "cannot open group '%s'", group)
                   : storq_h5u_list_links(g, &names, n, err);
    storq_h5u_close_group(&g);
    if (!rc && !(*qs = calloc(*n + 1, sizeof **qs)))
        rc = fail_oom(err);
    for (size_t i = 0; !rc && i < *n; i++)
        rc = !strcmp(group, "observables") ? load_observable(c, names[i], &(*qs)[i], err)
                                           : load_array(c, group, names[i], &(*qs)[i], err);
    storq_h5u_free_names(names, *n);
    return rc;
}

/* Every quantity's columns, and the rows' own (most are the check's columns already). */
static int load(columnar *c, storq_error *err)
{
    STORQ_TRY(open_column(c, "/point", &c->point, err));
    STORQ_TRY(open_column(c, "/points/replications", &c->reps, err));
    STORQ_TRY(open_column(c, "/points/events", &c->events, err));
    STORQ_TRY(open_column(c, "/points/wall_seconds", &c->wall, err));
    STORQ_TRY(load_group(c, "observables", &c->obs, &c->nobs, err));
    STORQ_TRY(load_group(c, "theory", &c->theory, &c->ntheory, err));
    return load_group(c, "comparison", &c->cmp, &c->ncmp, err);
}

/* ---- one row ---- */

static size_t array_length(const columnar *c, const quantity *q, size_t r)
{
    return q->mean->rank == 1 ? 1 : extent(c, q->mean, 1, r);
}

/* The theory of observable obs at row r with len values (h5_info_theory.c's rule for 1.x: the
 * first array whose grid is obs, else the array named obs), into buf; NULL when none. */
static const double *theory_for(const columnar *c, const char *obs, size_t len, size_t r,
                                double *buf)
{
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < c->ntheory; i++) {
            const quantity *q = &c->theory[i];
            if (strcmp(pass ? q->name : at_row(&q->grid, c->cols->first + r), obs) ||
                !present(c, q, r) ||
                array_length(c, q, r) != len)
                continue;
            row_values(c, q->mean, r, buf);
            return buf;
        }
    return NULL;
}

static int read_hist(const columnar *c, const quantity *q, size_t r, storq_info_hist *hp,
                     double *counts, storq_error *err)
{
    storq_info_hist h;
    memset(&h, 0, sizeof h);
    h.count = storq_cols_u64(q->count, r);
    h.mean = storq_cols_f64(q->mean, r);
    h.min = storq_cols_f64(q->min, r);
    h.max = storq_cols_f64(q->max, r);
    h.integer = q->integer;
    h.resolution = q->resolution;
    size_t nb = row_values(c, q->counts, r, counts);
    uint64_t l = storq_cols_u64(q->layout, r);
    if (l >= q->nlayouts || q->nedges[l] < nb + 1)
        return storq_h5u_fail(err, q->layout->d, "row %zu's layout (%" PRIu64 ") does not "
                              "fit its %zu bins", c->cols->first + r, l, nb);
    storq_info_hist_quantiles(&h, counts, q->edges[l], nb, storq_cols_u64(q->under, r),
                              storq_cols_u64(q->over, r));
    *hp = h;
    return STORQ_OK;
}

static int add_hist(const columnar *c, const quantity *q, size_t r, storq_info_tables *t,
                    double *counts, storq_error *err)
{
    storq_info_hist h;
    STORQ_TRY(read_hist(c, q, r, &h, counts, err));
    storq_info_add_histogram(t, q->name, &h, unit_at(c, q, r));
    return STORQ_OK;
}

static int print_row(const columnar *c, size_t r, double *buf, double *theory, FILE *out,
                     storq_error *err)
{
    storq_info_point_line(out, storq_cols_u64(c->point, r), storq_cols_u64(c->reps, r),
                          storq_cols_u64(c->events, r), storq_cols_f64(c->wall, r));
    storq_info_tables t;
    storq_info_tables_init(&t);
    int rc = STORQ_OK;
    for (size_t i = 0; !rc && i < c->nobs; i++) {
        const quantity *q = &c->obs[i];
        if (!present(c, q, r))
            continue;
        if (q->kind == Q_SCALAR) {
            storq_info_add_scalar(&t, q->name, storq_cols_f64(q->mean, r),
                                  storq_cols_f64(q->ci95, r),
                                  theory_for(c, q->name, 1, r, theory), unit_at(c, q, r));
        } else if (q->kind == Q_VECTOR) {
            size_t n = row_values(c, q->mean, r, buf);
            char shape[64];
            if (q->mean->rank > 2)
                snprintf(shape, sizeof shape, "%zux%zu", extent(c, q->mean, 1, r),
                         extent(c, q->mean, 2, r));
            else
                snprintf(shape, sizeof shape, "%zu", n);
            storq_info_add_vector(&t, q->name, shape, buf, n, theory_for(c, q->name, n, r, theory),
                                  unit_at(c, q, r));
        } else {
            rc = add_hist(c, q, r, &t, buf, err);
        }
    }
    for (size_t i = 0; !rc && i < c->ncmp; i++) {
        const quantity *q = &c->cmp[i];
        if (present(c, q, r) && array_length(c, q, r) == 1) {
            row_values(c, q->mean, r, buf);
            storq_info_add_comparison(&t, q->name, buf[0], unit_at(c, q, r));
        }
    }
    if (!rc)
        storq_info_tables_print(&t, out);
    storq_info_tables_free(&t);
    return rc;
}

/* ---- the file ---- */

static void columnar_free(columnar *c)
{
    quantity *groups[] = {c->obs, c->theory, c->cmp};
    size_t counts[] = {c->nobs, c->ntheory, c->ncmp};
    for (int g = 0; g < 3; g++) {
        for (size_t i = 0; groups[g] && i < counts[g]; i++) {
            quantity *q = &groups[g][i];
            for (size_t k = 0; q->edges && k < q->nlayouts; k++)
                free(q->edges[k]);
            free(q->edges);
            free(q->nedges);
            storq_h5u_free_names(q->layouts, q->nlayouts);
            storq_h5u_free_names(q->unit.v, q->unit.n);
            storq_h5u_free_names(q->grid.v, q->grid.n);
        }
        free(groups[g]);
    }
}

/* The rows printed as the check reads them (storq_h5_rows_reader). */
typedef struct printer {
    columnar c;
    FILE *out;                    /* the tables, or NULL: cells */
    const storq_info_cells *cells;
    double *buf, *theory; /* a row's values, its theory: the widest row long */
} printer;

/* Row r's one-number values, in the order h5_info_formats.c gives a 1.x point's. */
static int row_cells(const columnar *c, size_t r, const storq_info_cells *k, double *buf,
                     storq_error *err)
{
    char name[300];
    void *x = k->ctx;
    STORQ_TRY(k->begin(x, storq_cols_u64(c->point, r), storq_cols_u64(c->reps, r), err));
    for (size_t i = 0; i < c->nobs; i++) {
        const quantity *q = &c->obs[i];
        if (!present(c, q, r))
            continue;
        if (q->kind == Q_SCALAR) {
            STORQ_TRY(k->cell(x, q->name, "_mean", storq_cols_f64(q->mean, r), err));
            STORQ_TRY(k->cell(x, q->name, "_stderr", storq_cols_f64(q->stderr_, r), err));
            STORQ_TRY(k->cell(x, q->name, "_ci95", storq_cols_f64(q->ci95, r), err));
        } else if (q->kind == Q_HIST) {
            storq_info_hist h;
            STORQ_TRY(read_hist(c, q, r, &h, buf, err));
            STORQ_TRY(k->cell(x, q->name, "_count", (double)h.count, err));
            STORQ_TRY(k->cell(x, q->name, "_mean", h.mean, err));
            for (int j = 0; j < STORQ_INFO_NQUANTILES; j++) {
                snprintf(name, sizeof name, "_%s", storq_info_quantile_names[j]);
                /* a quantile beyond the bins is a bound, not a value */
                STORQ_TRY(k->cell(x, q->name, name, h.where[j] == STORQ_Q_BINS ? h.q[j] : NAN,
                                  err));
            }
            STORQ_TRY(k->cell(x, q->name, "_max", h.max, err));
        }
    }
    const quantity *groups[] = {c->theory, c->cmp};
    size_t counts[] = {c->ntheory, c->ncmp};
    for (int g = 0; g < 2; g++)
        for (size_t i = 0; i < counts[g]; i++) {
            const quantity *q = &groups[g][i];
            if (!present(c, q, r) || array_length(c, q, r) != 1)
                continue;
            row_values(c, q->mean, r, buf);
            snprintf(name, sizeof name, "%s%s", g ? "comparison_" : "theory_", q->name);
            STORQ_TRY(k->cell(x, name, "", buf[0], err));
        }
    return STORQ_OK;
}

static int prepare(void *ctx, storq_cols *cols, storq_error *err)
{
    printer *p = ctx;
    p->c.cols = cols;
    p->c.file = cols->file;
    return load(&p->c, err);
}

static int block(void *ctx, storq_cols *cols, size_t n, storq_error *err)
{
    printer *p = ctx;
    if (!p->buf) {
        size_t widest = 1;
        for (size_t i = 0; i < cols->n; i++)
            if (cols->cols[i].row > widest)
                widest = cols->cols[i].row;
        p->buf = malloc(widest * sizeof *p->buf);
        p->theory = malloc(widest * sizeof *p->theory);
        if (!p->buf || !p->theory)
            return fail_oom(err);
    }
    for (size_t r = 0; r < n; r++)
        STORQ_TRY(p->cells ? row_cells(&p->c, r, p->cells, p->buf, err)
                           : print_row(&p->c, r, p->buf, p->theory, p->out, err));
    if (p->out && fflush(p->out) != 0)
        return storq_fail(err, STORQ_ERR_RUNTIME, "cannot write storq info's tables to a "
                          "temporary file: %s", strerror(errno));
    return STORQ_OK;
}

int storq_info_columnar_check(hid_t file, const char *path, FILE *rows_out,
                              storq_h5_checked *out, storq_error *err)
{
    printer p;
    memset(&p, 0, sizeof p);
    p.out = rows_out;
    storq_h5_rows_reader reader = {prepare, block, NULL, &p};
    int rc = storq_h5_check_file_reading(file, path, NULL, &reader, out, err);
    columnar_free(&p.c); /* what was read here, when the check ran in this process */
    free(p.buf);
    free(p.theory);
    return rc;
}

static int end(void *ctx, storq_error *err)
{
    const printer *p = ctx;
    return p->cells->end(p->cells->ctx, p->c.file, err);
}

int storq_info_columnar_cells(hid_t file, const char *path, const storq_info_cells *cells,
                              storq_error *err)
{
    printer p;
    memset(&p, 0, sizeof p);
    p.cells = cells;
    storq_h5_rows_reader reader = {prepare, block, end, &p};
    storq_h5_checked checked;
    int rc = storq_h5_check_file_reading(file, path, NULL, &reader, &checked, err);
    columnar_free(&p.c);
    free(p.buf);
    free(p.theory);
    return rc;
}

int storq_info_copy_out(FILE *tmp, FILE *out, storq_error *err)
{
    char buf[1 << 16];
    size_t n;
    if (fseek(tmp, 0, SEEK_SET) != 0)
        return storq_fail(err, STORQ_ERR_RUNTIME, "storq info: cannot read back a temporary "
                          "file: %s", strerror(errno));
    while ((n = fread(buf, 1, sizeof buf, tmp)) > 0)
        if (fwrite(buf, 1, n, out) != n)
            break; /* a reader gone away (storq info F | head) is not an error of the file */
    return STORQ_OK;
}

int storq_info_columnar_ids(hid_t file, uint64_t **ids, size_t *n, storq_error *err)
{
    *ids = NULL;
    *n = 0;
    double *v = NULL;
    STORQ_TRY(storq_h5u_read_f64(file, "/point", &v, n, err));
    *ids = malloc((*n + 1) * sizeof **ids);
    for (size_t i = 0; *ids && i < *n; i++)
        (*ids)[i] = (uint64_t)v[i];
    free(v);
    return *ids ? STORQ_OK : fail_oom(err);
}
