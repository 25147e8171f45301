/* The seconds of a run's units from an earlier run's record of its units (--calibrate-from
 * FILE.h5, plan_seconds.h). A point of this run that the file ran too (the same parameters, not
 * the same id: the file may be another sweep) takes the mean of its rows; any other takes the
 * file's seconds per cost unit, interpolated in log(cost) between the file's points, times its
 * own cost. */
#include "plan_seconds.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "h5_units_read.h"
#include "plan_curve.h"
#include "progress.h"

#define LABEL "--calibrate-from"

/* The file's figures per point. */
typedef struct file_point {
    double rep_seconds, rep_cost, theory_seconds;
    size_t reps, theories;
} file_point;

/* A point's parameters as one comparable text: numbers printed with every digit, so a value read
 * back from the file's index matches the value parsed from this run's text. */
typedef struct keyed {
    char *key;
    size_t point;
} keyed;

static int by_key(const void *a, const void *b)
{
    return strcmp(((const keyed *)a)->key, ((const keyed *)b)->key);
}

static void add_value(char *key, size_t size, const storq_param_def *d, const char *text,
                      const storq_param_value *v)
{
    char one[512];
    if (d->type == STORQ_PARAM_REAL)
        snprintf(one, sizeof one, "%.17g", v ? v->r : strtod(text, NULL));
    else if (d->type == STORQ_PARAM_INT)
        snprintf(one, sizeof one, "%" PRId64, v ? v->i : (int64_t)strtoll(text, NULL, 10));
    else
        snprintf(one, sizeof one, "%s", v ? v->s : text);
    strncat(key, one, size - strlen(key) - 1);
    strncat(key, "\x1f", size - strlen(key) - 1);
}

#define KEY_MAX 4096

/* The file's points as sorted keys; *n is 0 when the file lacks one of this model's parameters. */
static int file_keys(const storq_model *m, const storq_units_read *u, keyed **out, size_t *n,
                     storq_error *err)
{
    size_t np = storq_param_count(m->params);
    size_t *col = malloc((np ? np : 1) * sizeof *col);
    keyed *k = calloc(u->npoints + 1, sizeof *k);
    *out = k;
    *n = 0;
    if (!col || !k) {
        free(col);
        return STORQ_RUNTIME_FAIL(err, "out of memory");
    }
    for (size_t i = 0; i < np; i++) {
        col[i] = u->nparams;
        for (size_t j = 0; j < u->nparams; j++)
            if (!strcmp(u->param_names[j], m->params[i].name))
                col[i] = j;
        if (col[i] == u->nparams) {
            free(col);
            return STORQ_OK; /* an older file: its points cannot be told to be this run's */
        }
    }
    for (size_t q = 0; q < u->npoints; q++) {
        char key[KEY_MAX] = "";
        for (size_t i = 0; i < np; i++)
            add_value(key, sizeof key, &m->params[i], u->param_values[q * u->nparams + col[i]],
                      NULL);
        k[q] = (keyed){strdup(key), q};
        if (!k[q].key) {
            free(col);
            *n = q;
            return STORQ_RUNTIME_FAIL(err, "out of memory");
        }
    }
    free(col);
    *n = u->npoints;
    qsort(k, *n, sizeof *k, by_key);
    return STORQ_OK;
}

/* The file's point with p's parameters, or SIZE_MAX. */
static size_t find_point(const storq_run_spec *spec, size_t p, const keyed *keys, size_t n)
{
    char key[KEY_MAX] = "";
    size_t np = storq_param_count(spec->model->params);
    for (size_t i = 0; i < np; i++)
        add_value(key, sizeof key, &spec->model->params[i], NULL, &spec->points[p].v[i]);
    keyed want = {key, 0};
    const keyed *hit = n ? bsearch(&want, keys, n, sizeof *keys, by_key) : NULL;
    return hit ? hit->point : SIZE_MAX;
}

static int by_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Sums per file point; *reps the replication rows, *median_theory the median over the file's
 * points of their theory seconds (-1 when it has none). */
static int tally(const storq_units_read *u, file_point *fp, size_t *reps, double *median_theory,
                 storq_error *err)
{
    *reps = 0;
    for (size_t i = 0; i < u->nrows; i++) {
        if (u->point[i] >= u->npoints)
            continue; /* the checker refuses such rows' points in the index, not in the table */
        file_point *f = &fp[u->point[i]];
        if (u->rep[i] < 0) {
            f->theory_seconds += u->seconds[i];
            f->theories++;
        } else {
            f->rep_seconds += u->seconds[i];
            f->rep_cost += u->cost[i];
            f->reps++;
            (*reps)++;
        }
    }
    double *t = malloc((u->npoints + 1) * sizeof *t);
    if (!t)
        return STORQ_RUNTIME_FAIL(err, "out of memory");
    size_t nt = 0;
    for (size_t q = 0; q < u->npoints; q++)
        if (fp[q].theories)
            t[nt++] = fp[q].theory_seconds / (double)fp[q].theories;
    qsort(t, nt, sizeof *t, by_double);
    *median_theory = nt ? (nt % 2 ? t[nt / 2] : (t[nt / 2 - 1] + t[nt / 2]) / 2) : -1.0;
    free(t);
    return STORQ_OK;
}

/* The file's seconds per cost unit, point by point, as a curve in log(cost). */
static int cost_curve(const storq_units_read *u, const file_point *fp, storq_plan_curve *c,
                      storq_error *err)
{
    double *x = malloc((u->npoints + 1) * sizeof *x), *y = malloc((u->npoints + 1) * sizeof *y);
    size_t n = 0;
    int rc = x && y ? STORQ_OK : STORQ_RUNTIME_FAIL(err, "out of memory");
    for (size_t q = 0; !rc && q < u->npoints; q++)
        if (fp[q].reps && fp[q].rep_cost > 0) {
            x[n] = fp[q].rep_cost / (double)fp[q].reps;
            y[n++] = fp[q].rep_seconds / fp[q].rep_cost;
        }
    if (!rc)
        rc = storq_plan_curve_build(x, y, n, c, err);
    free(x);
    free(y);
    return rc;
}

static void describe(const char *path, const storq_units_read *u, size_t reps, size_t matched,
                     size_t planned, double median_theory, storq_plan_seconds *out)
{
    const char *timed = u->cpu_seconds ? "its units' cpu_seconds" : "its units' end - start";
    if (matched == planned)
        snprintf(out->how, sizeof out->how, "from %s (%zu replication rows, timed by %s): every "
                 "point of this run is one of its points (the same parameters): the mean of its "
                 "rows", path, reps, timed);
    else
        snprintf(out->how, sizeof out->how, "from %s (%zu replication rows of %zu points, timed "
                 "by %s): %zu of %zu points of this run are among its points (the same "
                 "parameters): the mean of their rows; the others by its seconds per cost unit, "
                 "interpolated in log(cost) between its points (constant beyond them)", path,
                 reps, u->npoints, timed, matched, planned);
    if (!out->theory)
        return;
    if (median_theory < 0)
        snprintf(out->theory_how, sizeof out->theory_how, "%s has no theory rows: theory units "
                 "counted as 0 s", path);
    else
        snprintf(out->theory_how, sizeof out->theory_how, "the file's theory rows of the points "
                 "it shares with this run; the others its median theory unit, %.3g s",
                 median_theory);
}

static int predict(const storq_plan_points *pts, const char *path, const storq_units_read *u,
                   storq_plan_seconds *out, storq_error *err)
{
    const storq_run_spec *spec = pts->spec;
    file_point *fp = calloc(u->npoints + 1, sizeof *fp);
    if (!fp)
        return STORQ_RUNTIME_FAIL(err, "out of memory");
    size_t reps = 0, nkeys = 0, matched = 0, planned = 0;
    double median_theory = -1;
    keyed *keys = NULL;
    storq_plan_curve c = {0};
    int rc = tally(u, fp, &reps, &median_theory, err);
    if (!rc && reps == 0)
        rc = storq_fail(err, STORQ_ERR_USAGE, LABEL ": %s: its /run/units has no replication "
                        "rows to time a replication by", path);
    if (!rc)
        rc = cost_curve(u, fp, &c, err);
    if (!rc)
        rc = file_keys(spec->model, u, &keys, &nkeys, err);
    for (size_t p = 0; !rc && p < spec->npoints; p++) {
        if (pts->skip[p])
            continue;
        planned++;
        size_t q = find_point(spec, p, keys, nkeys);
        int own = q != SIZE_MAX && fp[q].reps > 0;
        out->own[p] = (unsigned char)own;
        matched += (size_t)own;
        out->rep[p] = own ? fp[q].rep_seconds / (double)fp[q].reps
                          : storq_plan_curve_at(&c, pts->cost[p]) * pts->cost[p];
        if (out->theory)
            out->theory[p] = q != SIZE_MAX && fp[q].theories
                                 ? fp[q].theory_seconds / (double)fp[q].theories
                             : median_theory > 0 ? median_theory
                                                 : 0.0;
    }
    out->measured = matched;
    if (!rc)
        describe(path, u, reps, matched, planned, median_theory, out);
    for (size_t i = 0; keys && i < nkeys; i++)
        free(keys[i].key);
    free(keys);
    storq_plan_curve_free(&c);
    free(fp);
    return rc;
}

int storq_plan_calibrate_from(const storq_plan_points *pts, const char *path,
                              storq_plan_seconds *out, storq_error *err)
{
    const storq_model *m = pts->spec->model;
    double start = storq_now();
    storq_units_read u;
    STORQ_TRY(storq_h5_units_read(path, LABEL, &u, err));
    int rc = STORQ_OK;
    if (strcmp(u.model, m->name))
        rc = storq_fail(err, STORQ_ERR_USAGE, LABEL ": %s is a run of model '%s'; this run's "
                        "model is '%s'", path, u.model, m->name);
    if (!rc)
        rc = storq_plan_seconds_alloc(out, pts->spec->npoints, m->theory != NULL, err);
    if (!rc)
        rc = predict(pts, path, &u, out, err);
    out->took = storq_now() - start;
    storq_h5_units_read_free(&u);
    return rc;
}
