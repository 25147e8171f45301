#include "point_list.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "h5_units.h"
#include "memory.h"
#include "run_state.h"
#include "stop.h"

/* What HDF5 keeps in rank 0's memory for every point written (object headers on its free lists):
 * a supermarket sweep's writer grew by 19 KB a point from 250 to 1000 points, of which the
 * model's own state (measured, src/app/point_memory.c) was 8.4 KB. */
#define HDF5_PER_POINT ((size_t)16 << 10)

/* What glibc's malloc takes for a request of n bytes: 8 bytes of header, rounded up to 16, at
 * least 32. Each point's values are many small blocks, so the headers are a good part of them. */
static size_t block(size_t n)
{
    size_t b = (n + 8 + 15) & ~(size_t)15;
    return b < 32 ? 32 : b;
}

/* The longest text among parameter i's values. */
static size_t longest(const storq_assignment *a)
{
    size_t most = 0;
    for (size_t j = 0; j < a->nvalues; j++) {
        size_t len = strlen(a->values[j]);
        most = len > most ? len : most;
    }
    return most;
}

/* The estimate and its parts: bytes a point, the units and bytes a unit. */
static size_t list_bytes(const storq_run_spec *spec, int root, size_t *point_bytes, size_t *units,
                         size_t *unit_bytes)
{
    const size_t np = storq_param_count(spec->model->params), n = spec->npoints;
    /* one point: its record in the list, its values, and each value's text (every parameter
     * keeps its text); rank 0's index row is the same texts at their longest, or 8 bytes */
    size_t values = sizeof(storq_params) + block(np * sizeof(storq_param_value));
    size_t index_row = sizeof(uint64_t);
    for (size_t i = 0; i < np; i++) {
        size_t len = longest(&spec->assign[i]);
        values += block(len + 1);
        index_row += spec->model->params[i].type == STORQ_PARAM_STRING ? len + 1 : 8;
    }
    /* the driver's arrays per point (src/app/driver.c, prepare_points) */
    size_t per_point = values + sizeof(void *) + sizeof(storq_observables) + 2 * sizeof(double) +
                       1 + sizeof(void *);
    /* rank 0: its state of each point (src/app/collect.c) and the file's index, built in memory
     * and handed to HDF5 (twice: a conversion buffer of the same size at most) */
    if (root)
        per_point += sizeof(point_state) + 2 * index_row;
    /* the units of this task's points: a theory unit each (all five models have theory) and
     * every replication it may take; each rank builds the list (unit and its sort key while
     * sorting) and the hand-out copies the costs and groups; rank 0 records the units that ran
     * in the file as they run, holding a block of rows at a time (a constant) */
    const size_t reps = spec->precision ? spec->max_replications : spec->replications;
    const size_t mine = n > spec->task_index ? (n - spec->task_index - 1) / spec->task_count + 1
                                             : 0;
    *units = storq_bytes_mul(mine, storq_bytes_add(reps, 1));
    /* rank 0 writes this task's points only: what HDF5 keeps of each is counted for those */
    size_t written = root ? storq_bytes_mul(mine, HDF5_PER_POINT) : 0;
    size_t per_unit = sizeof(storq_unit) + 32 + 2 * (sizeof(double) + sizeof(size_t));
    size_t record = root ? STORQ_UNITS_BLOCK * (sizeof(storq_unit_row) + 8) : 0;
    *point_bytes = per_point + (root && mine ? HDF5_PER_POINT : 0);
    *unit_bytes = per_unit;
    return storq_bytes_add(storq_bytes_add(storq_bytes_mul(n, per_point), written + record),
                           storq_bytes_mul(*units, per_unit));
}

size_t storq_point_list_bytes(const storq_run_spec *spec, int root)
{
    size_t point, units, unit;
    return list_bytes(spec, root, &point, &units, &unit);
}

/* Point p: each parameter's value picked by p's digits in the lists' mixed radix. */
static int build_point(storq_run_spec *spec, size_t p, size_t zip_first, size_t zip_len,
                       storq_error *err)
{
    const size_t np = storq_param_count(spec->model->params);
    storq_params *pt = &spec->points[p];
    pt->model = spec->model;
    pt->n = np;
    pt->allow_unstable = spec->allow_unstable;
    pt->v = calloc(np ? np : 1, sizeof *pt->v);
    if (!pt->v)
        return STORQ_RUNTIME_FAIL(err, "out of memory");
    size_t rest = p, zip_pick = 0;
    for (size_t i = np; i-- > 0;) {
        if (spec->zipped[i] && i != zip_first)
            continue;
        size_t len = spec->zipped[i] ? zip_len : spec->assign[i].nvalues;
        size_t pick = rest % len;
        rest /= len;
        if (spec->zipped[i])
            zip_pick = pick;
        else
            STORQ_TRY(storq_param_parse(&spec->model->params[i], spec->assign[i].values[pick],
                                        &pt->v[i], err));
    }
    for (size_t i = 0; i < np; i++)
        if (spec->zipped[i])
            STORQ_TRY(storq_param_parse(&spec->model->params[i], spec->assign[i].values[zip_pick],
                                        &pt->v[i], err));
    return STORQ_OK;
}

int storq_run_spec_expand(storq_run_spec *spec, int root, storq_error *err)
{
    size_t point, units, unit;
    const size_t n = spec->npoints, need = list_bytes(spec, root, &point, &units, &unit);
    char what[96], for_what[256];
    snprintf(what, sizeof what, "the run's %zu point%s and %zu work units", n, n == 1 ? "" : "s",
             units);
    snprintf(for_what, sizeof for_what, "for their parameters, the hand-out and %s (%zu bytes a "
             "point, %zu a unit, before the model's own state); fewer points or replications a "
             "run need less", root ? "rank 0's state of each point" : "the units' list", point,
             unit);
    STORQ_TRY(storq_memory_check_rank(need, what, for_what, err));
    const size_t np = storq_param_count(spec->model->params);
    size_t zip_first = np, zip_len = 0;
    for (size_t i = 0; i < np && zip_first == np; i++)
        if (spec->zipped[i]) {
            zip_first = i;
            zip_len = spec->assign[i].nvalues;
        }
    spec->points = calloc(n ? n : 1, sizeof *spec->points);
    if (!spec->points)
        return STORQ_RUNTIME_FAIL(err, "out of memory");
    for (size_t p = 0; p < n; p++) {
        /* a huge sweep takes seconds here: a stop asked for now is honoured now (exit 3) */
        if (p % 1024 == 0 && storq_stop_signal())
            return storq_fail(err, STORQ_STOPPED, "stopped by signal %d while reading the run; "
                              "nothing was written", storq_stop_signal());
        STORQ_TRY(build_point(spec, p, zip_first, zip_len, err));
    }
    return STORQ_OK;
}
