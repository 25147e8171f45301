#include "plan_replay.h"

#include <math.h>
#include <stdlib.h>

/* Units replayed while scanning W downwards, all evaluations together, before the search turns
 * to bisection: about a second of replays. */
#define SCAN_BUDGET 40000000.0
/* Efficiencies within rounding of the target count as reaching it (9 units on 10 workers: 0.9). */
#define TARGET_SLACK 1e-12

int storq_plan_units_build(size_t npoints, const unsigned char *skip, const double *cost,
                           const double *rep_seconds, const double *theory_seconds,
                           size_t replications, double dispatch, storq_plan_units *out,
                           storq_error *err)
{
    *out = (storq_plan_units){0};
    /* batch_size = replications: with --precision only the first batch is planned */
    STORQ_TRY(storq_schedule_build(npoints, skip, NULL, cost, replications,
                                   replications ? replications : 1, theory_seconds != NULL,
                                   &out->units, &out->n, err));
    out->seconds = malloc((out->n ? out->n : 1) * sizeof *out->seconds);
    if (!out->seconds) {
        storq_plan_units_free(out);
        return STORQ_RUNTIME_FAIL(err, "out of memory for %zu units", out->n);
    }
    for (size_t i = 0; i < out->n; i++) {
        const storq_unit *u = &out->units[i];
        double s = u->rep == STORQ_UNIT_THEORY ? theory_seconds[u->point]
                                                : rep_seconds[u->point];
        out->seconds[i] = s + dispatch;
        out->total += out->seconds[i];
        if (out->seconds[i] > out->seconds[out->longest])
            out->longest = i;
    }
    return STORQ_OK;
}

void storq_plan_units_free(storq_plan_units *u)
{
    free(u->units);
    free(u->seconds);
    *u = (storq_plan_units){0};
}

/* The heap's top (the earliest free worker) now free at t: sift it down. */
static void replace_top(double *heap, size_t n, double t)
{
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && heap[c + 1] < heap[c])
            c++;
        if (heap[c] >= t)
            break;
        heap[i] = heap[c];
        i = c;
    }
    heap[i] = t;
}

double storq_plan_wall(const double *seconds, size_t n, uint64_t workers)
{
    double wall = 0.0;
    if (workers >= n) {
        for (size_t i = 0; i < n; i++)
            wall = seconds[i] > wall ? seconds[i] : wall;
        return wall;
    }
    /* fewer workers than units: a min-heap of the times the workers are free, all 0 at first */
    double *free_at = calloc((size_t)workers, sizeof *free_at);
    if (!free_at)
        return -1.0;
    for (size_t i = 0; i < n; i++) {
        double t = free_at[0] + seconds[i];
        replace_top(free_at, (size_t)workers, t);
        wall = t > wall ? t : wall;
    }
    free(free_at);
    return wall;
}

double storq_plan_efficiency(double total, uint64_t workers, double wall)
{
    return wall > 0 ? total / ((double)workers * wall) : 1.0;
}

/* efficiency(W) >= target; -1 when out of memory */
static int reaches(const double *seconds, size_t n, double total, uint64_t w, double target,
                   double *wall)
{
    *wall = storq_plan_wall(seconds, n, w);
    if (*wall < 0)
        return -1;
    return storq_plan_efficiency(total, w, *wall) >= target - TARGET_SLACK;
}

int storq_plan_largest_workers(const double *seconds, size_t n, double target,
                               storq_plan_largest *out, storq_error *err)
{
    *out = (storq_plan_largest){0};
    double total = 0.0, longest = 0.0;
    for (size_t i = 0; i < n; i++) {
        total += seconds[i];
        longest = seconds[i] > longest ? seconds[i] : longest;
    }
    if (!(total > 0) || !(target > 0))
        return STORQ_OK;
    /* the wall time is at least the longest unit, so efficiency(W) <= total / (W longest) */
    double b = floor(total / (target * longest) * (1 + TARGET_SLACK));
    out->bound = b < 1 ? 1 : b > 1e18 ? (uint64_t)1e18 : (uint64_t)b;
    double wall;
    if (out->bound >= n) {
        /* from n workers on the wall time is the longest unit's, and the bound reaches it */
        out->workers = out->bound;
        out->wall = longest;
        out->exact = 1;
        return STORQ_OK;
    }
    double spent = 0.0;
    uint64_t w = out->bound;
    for (; w >= 1 && spent < SCAN_BUDGET; w--, spent += (double)n) {
        int r = reaches(seconds, n, total, w, target, &wall);
        if (r < 0)
            return STORQ_RUNTIME_FAIL(err, "out of memory replaying %zu units", n);
        if (r) {
            *out = (storq_plan_largest){w, wall, 1, out->bound};
            return STORQ_OK;
        }
    }
    /* every W above w failed; 1 worker always reaches it (its wall time is the total) */
    uint64_t lo = 1, hi = w + 1;
    while (hi - lo > 1) {
        uint64_t mid = lo + (hi - lo) / 2;
        int r = reaches(seconds, n, total, mid, target, &wall);
        if (r < 0)
            return STORQ_RUNTIME_FAIL(err, "out of memory replaying %zu units", n);
        if (r)
            lo = mid;
        else
            hi = mid;
    }
    out->workers = lo;
    out->wall = storq_plan_wall(seconds, n, lo);
    out->exact = 0;
    return STORQ_OK;
}
