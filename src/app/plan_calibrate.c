/* The calibration here (plan_seconds.h): the first fraction of a second of a real replication of
 * a few points spread over the run's cost range, and the time of their theory. A replication is
 * timed by its step rate (model->steps says how many steps a whole one takes), so a replication
 * of an hour is predicted from 0.3 s of it. */
#include "plan_seconds.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "plan_curve.h"
#include "progress.h"
#include "stop.h"

/* The calling thread's CPU time: a worker of the run has a core of its own, so the calibration
 * counts only the time this thread ran, not the time other work on the machine took its core. */
static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The kernel's step count against the clock at its first and last look (every STORQ_STOP_EVERY
 * steps), so the rate leaves out the set-up before the event loop; the time limit starts at the
 * first look, so a long set-up (the state of 10^8 servers) still leaves the loop its time. */
typedef struct tick_log {
    double limit;
    size_t looks;
    double first_t, last_t;
    uint64_t first_steps, last_steps;
} tick_log;

static void on_look(void *arg)
{
    tick_log *log = arg;
    double t = cpu_now();
    uint64_t s = storq_steps_current();
    if (log->looks++ == 0) {
        log->first_t = t;
        log->first_steps = s;
        storq_stop_deadline(log->limit); /* on the replication's own thread */
    }
    log->last_t = t;
    log->last_steps = s;
}

/* Replication rep of point p for at most limit seconds of its event loop: *seconds gets its
 * measured or predicted length in CPU seconds, *whole whether it ran to its end. */
static int time_replication(const storq_plan_points *pts, size_t p, uint64_t rep, double limit,
                            double *seconds, int *whole, storq_error *err)
{
    const storq_model *m = pts->spec->model;
    storq_record rec;
    STORQ_TRY(storq_record_init(&rec, &pts->obs[p], err));
    storq_stream_key key = {pts->spec->seed, p, rep};
    tick_log log = {.limit = limit};
    storq_error stopped = {0};
    storq_poll_install(on_look, &log, 0.0);
    storq_steps_begin();
    double t0 = cpu_now();
    int rc = m->replicate(pts->ctx[p], &key, &rec, &stopped);
    double t1 = cpu_now();
    storq_stop_deadline(0);
    storq_poll_install(NULL, NULL, 0);
    storq_record_free(&rec);
    *whole = rc == STORQ_OK;
    if (rc == STORQ_OK) {
        *seconds = t1 - t0;
        return STORQ_OK;
    }
    if (rc != STORQ_STOPPED || storq_stop_signal() != 0) {
        *err = stopped;
        return rc;
    }
    /* stopped by the limit: the set-up, then the rest of the steps at the rate measured */
    double total = pts->steps[p];
    if (log.looks >= 2 && log.last_steps > log.first_steps && log.last_t > log.first_t) {
        double per_step = (log.last_t - log.first_t) / (double)(log.last_steps - log.first_steps);
        double rest = total > (double)log.first_steps ? total - (double)log.first_steps : 0.0;
        *seconds = (log.first_t - t0) + rest * per_step;
    } else {
        double done = (double)storq_steps_current();
        *seconds = (t1 - t0) * (total > done && done > 0 ? total / done : 1.0);
    }
    return STORQ_OK;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Point p's sample: replication 0 for at most limit seconds; a replication shorter than that is
 * timed again (replications 1, 2, ...) while the limit lasts, and the median taken: one short
 * replication's time is mostly noise, and the first of a process pays for its warm-up (page
 * faults, the clock speed rising), which a real run pays once per worker, not per unit. */
static int time_sample(const storq_plan_points *pts, size_t p, double limit, double *seconds,
                       int *whole, storq_error *err)
{
    double s[STORQ_PLAN_REPEATS], used = 0.0;
    size_t runs = 0;
    do {
        STORQ_TRY(time_replication(pts, p, runs, limit, &s[runs], whole, err));
        used += s[runs++];
    } while (*whole && runs < STORQ_PLAN_REPEATS && used + s[runs - 1] < limit);
    qsort(s, runs, sizeof *s, by_value);
    *seconds = runs % 2 ? s[runs / 2] : (s[runs / 2 - 1] + s[runs / 2]) / 2;
    return STORQ_OK;
}

static const double *sort_key;
static int by_cost(const void *a, const void *b)
{
    size_t p = *(const size_t *)a, q = *(const size_t *)b;
    if (sort_key[p] != sort_key[q])
        return sort_key[p] < sort_key[q] ? -1 : 1;
    return (p > q) - (p < q);
}

/* The task's points by cost, cheapest first; then the samples moved to the front in the order
 * they run: the cheapest, the dearest, then the ones between (spread by rank over the range). */
static size_t *order_points(const storq_plan_points *pts, size_t *m, size_t *k)
{
    size_t n = pts->spec->npoints;
    size_t *idx = malloc((n ? n : 1) * sizeof *idx);
    if (!idx)
        return NULL;
    *m = 0;
    for (size_t p = 0; p < n; p++)
        if (!pts->skip[p])
            idx[(*m)++] = p;
    sort_key = pts->cost;
    qsort(idx, *m, sizeof *idx, by_cost);
    *k = *m < STORQ_PLAN_SAMPLES ? *m : STORQ_PLAN_SAMPLES;
    if (*k < 2 || *m == *k)
        return idx;
    size_t *picked = malloc(*m * sizeof *picked), j = 0;
    unsigned char *taken = calloc(*m, 1);
    if (!picked || !taken) {
        free(picked);
        free(taken);
        free(idx);
        return NULL;
    }
    for (size_t i = 0; i < *k; i++) {
        size_t r = (size_t)llround((double)i * (double)(*m - 1) / (double)(*k - 1));
        taken[r] = 1;
    }
    picked[j++] = idx[0];
    picked[j++] = idx[*m - 1];
    for (size_t r = 1; r + 1 < *m; r++)
        if (taken[r])
            picked[j++] = idx[r];
    *k = j;
    for (size_t r = 0; r < *m; r++)
        if (!taken[r])
            picked[j++] = idx[r];
    free(taken);
    free(idx);
    return picked;
}

/* Replications: the samples, then every point from the curve through them. */
static int calibrate_replications(const storq_plan_points *pts, const size_t *order, size_t k,
                                  size_t npoints, storq_plan_seconds *out, storq_error *err)
{
    int by_steps = 1; /* every point has a step count (the model's, or warmup + arrivals) */
    for (size_t i = 0; by_steps && i < pts->spec->npoints; i++)
        by_steps = pts->skip[i] || pts->steps[i] > 0;
    /* without a step count a replication cannot be stopped part way and scaled: the cheapest,
     * whole, within the whole calibration's time */
    if (!by_steps)
        k = 1;
    double limit = by_steps ? STORQ_PLAN_SAMPLE_SECONDS : STORQ_PLAN_CALIBRATION_SECONDS;
    double *cost = malloc((k ? k : 1) * sizeof *cost), *y = malloc((k ? k : 1) * sizeof *y);
    if (!cost || !y) {
        free(cost);
        free(y);
        return STORQ_RUNTIME_FAIL(err, "out of memory");
    }
    size_t done = 0, whole_count = 0;
    double start = storq_now();
    int rc = STORQ_OK;
    for (size_t i = 0; i < k && !rc; i++) {
        if (i > 0 && storq_now() - start + limit > STORQ_PLAN_CALIBRATION_SECONDS)
            break;
        size_t p = order[i];
        double s;
        int whole;
        rc = time_sample(pts, p, limit, &s, &whole, err);
        if (rc)
            break;
        if (!by_steps && !whole)
            rc = storq_fail(err, STORQ_ERR_USAGE, "--workers: cannot predict this run: model '%s' "
                            "counts no steps, so a replication can only be timed whole, and its "
                            "cheapest (point %zu) takes over %g s; --calibrate-from FILE.h5 "
                            "predicts from an earlier run's units", pts->spec->model->name, p,
                            STORQ_PLAN_CALIBRATION_SECONDS);
        whole_count += (size_t)whole;
        out->rep[p] = s;
        out->own[p] = 1;
        cost[done] = pts->cost[p];
        y[done++] = s / (by_steps ? pts->steps[p] : pts->cost[p]);
    }
    out->took += storq_now() - start;
    storq_plan_curve c;
    if (!rc)
        rc = storq_plan_curve_build(cost, y, done, &c, err);
    for (size_t p = 0; !rc && p < pts->spec->npoints; p++)
        if (!pts->skip[p] && !out->own[p])
            out->rep[p] = storq_plan_curve_at(&c, pts->cost[p]) *
                          (by_steps ? pts->steps[p] : pts->cost[p]);
    if (!rc) {
        storq_plan_curve_free(&c);
        out->measured = done;
        char each[320], which[160];
        size_t stopped = done - whole_count;
        if (!by_steps)
            snprintf(each, sizeof each, "run whole (the model counts no steps)");
        else if (!whole_count)
            snprintf(each, sizeof each, "each stopped after %g s of its event loop and scaled by "
                     "its step rate to the model's step count", limit);
        else if (!stopped)
            snprintf(each, sizeof each, "each run whole, again while they fit in %g s, and the "
                     "median taken", limit);
        else
            snprintf(each, sizeof each, "%g s of event loop each: %zu stopped then and scaled by "
                     "its step rate to the model's step count, %zu shorter run whole, again while "
                     "they fit, and the median taken", limit, stopped, whole_count);
        if (done == npoints)
            snprintf(which, sizeof which, "%s", done == 1 ? "the point" : "each point");
        else
            snprintf(which, sizeof which, "%zu of the %zu points, sampled across the cost range",
                     done, npoints);
        snprintf(out->how, sizeof out->how, "calibrated here in %.2f s: real replications of %s, "
                 "%s, timed by this thread's CPU time", out->took, which, each);
        if (done < npoints) {
            size_t used = strlen(out->how);
            snprintf(out->how + used, sizeof out->how - used, "; the other points by seconds per "
                     "%s, interpolated in log(cost)", by_steps ? "step" : "cost unit");
        }
    }
    free(cost);
    free(y);
    return rc;
}

/* Theories: the samples' first, then the others cheapest first, while time is left; the rest
 * from the curve through the ones timed. */
static int calibrate_theory(const storq_plan_points *pts, const size_t *order, size_t m,
                            storq_plan_seconds *out, storq_error *err)
{
    const storq_model *model = pts->spec->model;
    double *cost = malloc((m ? m : 1) * sizeof *cost), *y = malloc((m ? m : 1) * sizeof *y);
    unsigned char *timed = calloc(pts->spec->npoints + 1, 1);
    int rc = cost && y && timed ? STORQ_OK : STORQ_RUNTIME_FAIL(err, "out of memory");
    size_t done = 0;
    double start = storq_now();
    for (size_t i = 0; i < m && !rc; i++) {
        if (i > 0 && storq_now() - start > STORQ_PLAN_THEORY_SECONDS)
            break;
        size_t p = order[i];
        storq_theory t = {0};
        double t0 = cpu_now();
        rc = model->theory(pts->ctx[p], &t, err);
        out->theory[p] = cpu_now() - t0;
        storq_theory_free(&t);
        timed[p] = 1;
        cost[done] = pts->cost[p];
        y[done++] = out->theory[p];
    }
    double took = storq_now() - start;
    out->took += took;
    storq_plan_curve c;
    if (!rc)
        rc = storq_plan_curve_build(cost, y, done, &c, err);
    for (size_t p = 0; !rc && p < pts->spec->npoints; p++)
        if (!pts->skip[p] && !timed[p])
            out->theory[p] = storq_plan_curve_at(&c, pts->cost[p]);
    if (!rc) {
        storq_plan_curve_free(&c);
        if (done == m)
            snprintf(out->theory_how, sizeof out->theory_how, "every point's theory timed here "
                     "(%.2f s)", took);
        else
            snprintf(out->theory_how, sizeof out->theory_how, "timed here at %zu of %zu points "
                     "(%.2f s), the others interpolated in log(cost)", done, m, took);
    }
    free(cost);
    free(y);
    free(timed);
    return rc;
}

int storq_plan_calibrate_here(const storq_plan_points *pts, storq_plan_seconds *out,
                              storq_error *err)
{
    const storq_model *m = pts->spec->model;
    STORQ_TRY(storq_plan_seconds_alloc(out, pts->spec->npoints, m->theory != NULL, err));
    size_t npts, k;
    size_t *order = order_points(pts, &npts, &k);
    if (!order)
        return STORQ_RUNTIME_FAIL(err, "out of memory");
    int rc = calibrate_replications(pts, order, k, npts, out, err);
    if (!rc && m->theory)
        rc = calibrate_theory(pts, order, npts, out, err);
    free(order);
    return rc;
}

int storq_plan_seconds_alloc(storq_plan_seconds *out, size_t npoints, int theory,
                             storq_error *err)
{
    memset(out, 0, sizeof *out);
    size_t n = npoints ? npoints : 1;
    out->rep = calloc(n, sizeof *out->rep);
    out->own = calloc(n, 1);
    out->theory = theory ? calloc(n, sizeof *out->theory) : NULL;
    if (!out->rep || !out->own || (theory && !out->theory)) {
        storq_plan_seconds_free(out);
        return STORQ_RUNTIME_FAIL(err, "out of memory");
    }
    return STORQ_OK;
}

void storq_plan_seconds_free(storq_plan_seconds *s)
{
    free(s->rep);
    free(s->theory);
    free(s->own);
    memset(s, 0, sizeof *s);
}
