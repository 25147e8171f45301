#include "plan.h"

#include <stdlib.h>
#include <string.h>

#include "memory_budget.h"
#include "model_kit.h"
#include "number.h"
#include "plan_replay.h"
#include "plan_seconds.h"
#include "table.h"

/* ---- options ---- */

static int by_count(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static int bad_count(const char *item, storq_error *err)
{
    return storq_fail(err, STORQ_ERR_USAGE, "--workers: '%.40s' is not a number of workers; give "
                      "integers in [1, %llu] separated by commas, e.g. --workers 1,2,8,64", item,
                      STORQ_PLAN_WORKERS_MAX);
}

/* The worker counts of --workers (commas or blanks between them, as in every list), ascending,
 * each once. */
static int parse_workers(const char *text, uint64_t **out, size_t *n, storq_error *err)
{
    uint64_t *ws = malloc((strlen(text) / 2 + 2) * sizeof *ws);
    if (!ws)
        return STORQ_RUNTIME_FAIL(err, "out of memory");
    size_t k = 0;
    for (const char *p = text;;) {
        p += strspn(p, " \t");
        size_t len = strcspn(p, ", \t");
        char item[64];
        snprintf(item, sizeof item, "%.*s", (int)(len < 63 ? len : 63), p);
        int negative;
        uint64_t v;
        if (!len || len > 63 || storq_number_integer(item, &negative, &v) || negative || v < 1 ||
            v > STORQ_PLAN_WORKERS_MAX) {
            free(ws);
            return len ? bad_count(item, err)
                       : storq_fail(err, STORQ_ERR_USAGE, "--workers: an empty item in '%.60s'; "
                                    "e.g. --workers 1,2,8,64", text);
        }
        ws[k++] = v;
        p += len + strspn(p + len, " \t");
        if (!*p)
            break;
        p += *p == ','; /* else blanks alone separated it from the next */
    }
    qsort(ws, k, sizeof *ws, by_count);
    size_t u = 0;
    for (size_t i = 0; i < k; i++)
        if (u == 0 || ws[i] != ws[u - 1])
            ws[u++] = ws[i];
    *out = ws;
    *n = u;
    return STORQ_OK;
}

int storq_plan_check(const storq_run_spec *spec, storq_error *err)
{
    if (spec->workers && !spec->dry_run)
        return storq_fail(err, STORQ_ERR_USAGE, "--workers predicts a run without running it: "
                          "add --dry-run (a run's own workers are its ranks x threads: mpirun "
                          "-np N, OMP_NUM_THREADS)");
    if (spec->calibrate_from && !spec->workers)
        return storq_fail(err, STORQ_ERR_USAGE, "--calibrate-from is for a prediction: add "
                          "--dry-run --workers W (e.g. --workers 1,8,64)");
    if (!spec->workers)
        return STORQ_OK;
    uint64_t *ws;
    size_t n;
    STORQ_TRY(parse_workers(spec->workers, &ws, &n, err));
    free(ws);
    return STORQ_OK;
}

/* ---- the run's points, prepared as the driver prepares them ---- */

typedef struct prepared {
    size_t n;
    unsigned char *skip;
    void **ctx;
    storq_observables *obs;
    double *cost, *steps;
} prepared;

static void release(const storq_model *m, prepared *pr)
{
    for (size_t p = 0; pr->ctx && p < pr->n; p++) {
        if (pr->ctx[p])
            m->release(pr->ctx[p]);
        storq_observables_free(&pr->obs[p]);
    }
    free(pr->skip);
    free(pr->ctx);
    free(pr->obs);
    free(pr->cost);
    free(pr->steps);
}

static int prepare(const storq_run_spec *spec, prepared *pr, storq_error *err)
{
    const storq_model *m = spec->model;
    size_t n = spec->npoints, alloc = n ? n : 1;
    pr->n = n;
    pr->skip = calloc(alloc, 1);
    pr->ctx = calloc(alloc, sizeof *pr->ctx);
    pr->obs = calloc(alloc, sizeof *pr->obs);
    pr->cost = calloc(alloc, sizeof *pr->cost);
    pr->steps = calloc(alloc, sizeof *pr->steps);
    if (!pr->skip || !pr->ctx || !pr->obs || !pr->cost || !pr->steps)
        return STORQ_RUNTIME_FAIL(err, "out of memory");
    /* the calibration runs one replication at a time in this process */
    STORQ_TRY(storq_memory_budget_local(spec->memory_limit, err));
    for (size_t p = 0; p < n; p++) {
        pr->skip[p] = p % spec->task_count != spec->task_index;
        pr->cost[p] = 1.0;
        if (pr->skip[p])
            continue;
        STORQ_TRY(m->prepare(&spec->points[p], &pr->ctx[p], err));
        STORQ_TRY(m->declare(pr->ctx[p], &pr->obs[p], err));
        double c = storq_model_cost(m, pr->ctx[p], &spec->points[p]);
        pr->cost[p] = c > 0 ? c : 1.0; /* as the driver orders them */
        pr->steps[p] = storq_model_steps(m, pr->ctx[p], &spec->points[p]);
    }
    return STORQ_OK;
}

/* ---- printing ---- */

static size_t task_points(const prepared *pr)
{
    size_t m = 0;
    for (size_t p = 0; p < pr->n; p++)
        m += !pr->skip[p];
    return m;
}

static const double *total_key;
static int by_total_desc(const void *a, const void *b)
{
    size_t p = *(const size_t *)a, q = *(const size_t *)b;
    if (total_key[p] != total_key[q])
        return total_key[p] < total_key[q] ? 1 : -1;
    return (p > q) - (p < q);
}
static int by_index(const void *a, const void *b)
{
    size_t p = *(const size_t *)a, q = *(const size_t *)b;
    return (p > q) - (p < q);
}

/* The points listed: all, or the STORQ_PLAN_LISTED with the largest total, in point order. */
static size_t *listed_points(const prepared *pr, const double *total, size_t *k)
{
    size_t *idx = malloc((pr->n ? pr->n : 1) * sizeof *idx), m = 0;
    if (!idx)
        return NULL;
    for (size_t p = 0; p < pr->n; p++)
        if (!pr->skip[p])
            idx[m++] = p;
    if (m > STORQ_PLAN_LISTED) {
        total_key = total;
        qsort(idx, m, sizeof *idx, by_total_desc);
        m = STORQ_PLAN_LISTED;
        qsort(idx, m, sizeof *idx, by_index);
    }
    *k = m;
    return idx;
}

/* The parameters that vary over the run, as name=value. */
static void varying(const storq_run_spec *spec, size_t p, char *buf, size_t size)
{
    buf[0] = '\0';
    size_t np = storq_param_count(spec->model->params);
    for (size_t i = 0; i < np; i++) {
        if (spec->assign[i].nvalues < 2)
            continue;
        size_t used = strlen(buf);
        snprintf(buf + used, size - used, "%s%s=%s", used ? " " : "",
                 spec->model->params[i].name, spec->points[p].v[i].s);
    }
}

static int print_points(const storq_run_spec *spec, const prepared *pr,
                        const storq_plan_seconds *sec, FILE *out, storq_error *err)
{
    size_t reps = spec->replications, k, m = task_points(pr);
    double *total = calloc(pr->n ? pr->n : 1, sizeof *total);
    if (!total)
        return STORQ_RUNTIME_FAIL(err, "out of memory");
    size_t units = reps + (sec->theory != NULL); /* of each point */
    for (size_t p = 0; p < pr->n; p++)
        total[p] = (double)reps * sec->rep[p] + (sec->theory ? sec->theory[p] : 0.0) +
                   (double)units * STORQ_PLAN_DISPATCH_SECONDS;
    size_t *list = listed_points(pr, total, &k);
    if (!list) {
        free(total);
        return STORQ_RUNTIME_FAIL(err, "out of memory");
    }
    char params[1024], layout[32] = "r  r  r  r  r";
    int with_params = 0;
    for (size_t i = 0; i < storq_param_count(spec->model->params); i++)
        with_params |= spec->assign[i].nvalues > 1;
    size_t ncols = 5 + (size_t)(sec->theory != NULL) + (size_t)with_params;
    if (sec->theory)
        strcat(layout, "  r");
    if (with_params)
        strcat(layout, "  l");
    storq_table t;
    storq_table_init(&t, ncols, layout, "  ");
    const char *head[] = {"point", "replications", "cost", "s/replication", "total s",
                          "theory s", "parameters"};
    for (size_t c = 0; c < 7; c++)
        if ((c != 5 || sec->theory) && (c != 6 || with_params))
            storq_table_add(&t, "%s", head[c]);
    storq_table_end_header(&t);
    for (size_t i = 0; i < k; i++) {
        size_t p = list[i];
        storq_table_add(&t, "%zu%s", p, sec->own[p] ? "" : "*");
        storq_table_add(&t, "%zu", reps);
        storq_table_add(&t, "%.3g", pr->cost[p]);
        storq_table_add(&t, "%.3g", sec->rep[p]);
        storq_table_add(&t, "%.3g", total[p]);
        if (sec->theory)
            storq_table_add(&t, "%.3g", sec->theory[p]);
        if (with_params) {
            varying(spec, p, params, sizeof params);
            storq_table_add(&t, "%s", params);
        }
    }
    storq_table_print(&t, out);
    storq_table_free(&t);
    if (sec->measured < m)
        fprintf(out, "  (* a point's seconds per replication carried over from the points "
                "measured, by its cost)\n");
    if (k < m)
        fprintf(out, "  (%zu more points not listed: the %zu with the largest total are shown; "
                "every point is replayed)\n", m - k, k);
    free(list);
    free(total);
    return STORQ_OK;
}

static void print_assumptions(const storq_run_spec *spec, const storq_plan_seconds *sec,
                              FILE *out)
{
    fprintf(out, "seconds per unit: %s\n", sec->how);
    if (sec->theory)
        fprintf(out, "theory units: %s\n", sec->theory_how);
    else
        fprintf(out, "theory units: none (model '%s' has no theory)\n", spec->model->name);
    fprintf(out, "assumptions: one worker = one core (ranks x threads, each with a core of its "
            "own, as fast as this one); a unit's dispatch costs %g s "
            "(STORQ_PLAN_DISPATCH_SECONDS); left out: MPI's start-up, the points' preparation "
            "and rank 0's summaries and writing of points\n", STORQ_PLAN_DISPATCH_SECONDS);
    if (spec->precision)
        fprintf(out, "--precision: the first batch only (%zu replications of each point); later "
                "batches, up to --max-replications %zu, depend on the CIs reached and are not "
                "predicted\n", spec->replications, spec->max_replications);
}

static int print_replay(const storq_plan_units *u, const uint64_t *ws, size_t nw, FILE *out,
                        storq_error *err)
{
    size_t ntheory = 0;
    for (size_t i = 0; i < u->n; i++)
        ntheory += u->units[i].rep == STORQ_UNIT_THEORY;
    fprintf(out, "units: %zu (%zu theory, %zu replications), work %.4g worker-s", u->n, ntheory,
            u->n - ntheory, u->total);
    if (u->n) {
        const storq_unit *l = &u->units[u->longest];
        fprintf(out, "; the longest %.4g s (point %zu, ", u->seconds[u->longest], l->point);
        if (l->rep == STORQ_UNIT_THEORY)
            fprintf(out, "theory)");
        else
            fprintf(out, "replication %lld)", (long long)l->rep);
    }
    fprintf(out, "\nreplayed in storq's hand-out order (theory units first, then replications by "
            "cost, largest first, ties by point, then replication), each unit to the first free "
            "worker:\n");
    storq_table t;
    storq_table_init(&t, 4, "r  r  r  r", "  ");
    storq_table_header(&t, "workers", "wall [s]", "efficiency", "speed-up", (char *)NULL);
    int beyond = 0;
    for (size_t i = 0; i < nw; i++) {
        double wall = storq_plan_wall(u->seconds, u->n, ws[i]);
        if (wall < 0) {
            storq_table_free(&t);
            return STORQ_RUNTIME_FAIL(err, "out of memory replaying %zu units", u->n);
        }
        storq_table_add(&t, "%llu", (unsigned long long)ws[i]);
        storq_table_add(&t, "%.4g", wall);
        storq_table_add(&t, "%.3f", storq_plan_efficiency(u->total, ws[i], wall));
        storq_table_add(&t, "%.2f", wall > 0 ? u->total / wall : 1.0);
        beyond |= ws[i] > u->n;
    }
    storq_table_print(&t, out);
    storq_table_free(&t);
    if (beyond)
        fprintf(out, "  (more workers than the %zu units: some never get one, and the wall time "
                "is the longest unit's)\n", u->n);
    storq_plan_largest best;
    STORQ_TRY(storq_plan_largest_workers(u->seconds, u->n, STORQ_PLAN_TARGET, &best, err));
    if (!best.workers) {
        fprintf(out, "largest W with efficiency >= %g: none (no work to share)\n",
                STORQ_PLAN_TARGET);
        return STORQ_OK;
    }
    char why[200];
    if (best.exact && best.workers == best.bound)
        snprintf(why, sizeof why, "above it the longest unit alone keeps the efficiency below %g",
                 STORQ_PLAN_TARGET);
    else if (best.exact)
        snprintf(why, sizeof why, "every W up to %llu = work / (%g x the longest unit) replayed",
                 (unsigned long long)best.bound, STORQ_PLAN_TARGET);
    else
        snprintf(why, sizeof why, "found by bisection below %llu = work / (%g x the longest "
                 "unit): W + 1 falls below", (unsigned long long)best.bound, STORQ_PLAN_TARGET);
    fprintf(out, "largest W with efficiency >= %g: %llu (wall %.4g s, efficiency %.3f; %s)\n",
            STORQ_PLAN_TARGET, (unsigned long long)best.workers, best.wall,
            storq_plan_efficiency(u->total, best.workers, best.wall), why);
    return STORQ_OK;
}

int storq_plan_print(const storq_run_spec *spec, FILE *out, storq_error *err)
{
    uint64_t *ws = NULL;
    size_t nw = 0;
    STORQ_TRY(parse_workers(spec->workers, &ws, &nw, err));
    prepared pr = {0};
    storq_plan_seconds sec = {0};
    storq_plan_units units = {0};
    int rc = prepare(spec, &pr, err);
    storq_plan_points pts = {spec, pr.skip, pr.ctx, pr.obs, pr.cost, pr.steps};
    if (!rc && task_points(&pr) == 0)
        rc = storq_fail(err, STORQ_ERR_USAGE, "--workers: this task (--task %zu/%zu) has none of "
                        "the run's %zu points: nothing to predict", spec->task_index,
                        spec->task_count, spec->npoints);
    if (!rc)
        rc = spec->calibrate_from ? storq_plan_calibrate_from(&pts, spec->calibrate_from, &sec, err)
                                  : storq_plan_calibrate_here(&pts, &sec, err);
    if (!rc)
        rc = storq_plan_units_build(pr.n, pr.skip, pr.cost, sec.rep, sec.theory,
                                    spec->replications, STORQ_PLAN_DISPATCH_SECONDS, &units, err);
    if (!rc) {
        storq_run_spec_print_run(spec, out);
        print_assumptions(spec, &sec, out);
        rc = print_points(spec, &pr, &sec, out, err);
    }
    if (!rc)
        rc = print_replay(&units, ws, nw, out, err);
    storq_plan_units_free(&units);
    storq_plan_seconds_free(&sec);
    release(spec->model, &pr);
    free(ws);
    return rc;
}
