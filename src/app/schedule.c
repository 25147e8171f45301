#include "schedule.h"

#include <stdlib.h>

typedef struct keyed {
    storq_unit u;
    size_t batch;
    double cost;
} keyed;

static int by_order(const void *a, const void *b)
{
    const keyed *x = a, *y = b;
    int xt = x->u.rep == STORQ_UNIT_THEORY, yt = y->u.rep == STORQ_UNIT_THEORY;
    if (xt != yt)
        return yt - xt; /* theory units first */
    if (x->batch != y->batch)
        return x->batch < y->batch ? -1 : 1;
    if (x->cost != y->cost)
        return x->cost < y->cost ? 1 : -1;
    if (x->u.point != y->u.point)
        return x->u.point < y->u.point ? -1 : 1;
    return (x->u.rep > y->u.rep) - (x->u.rep < y->u.rep);
}

static int rep_wanted(const unsigned char *const *rep_done, size_t p, size_t r)
{
    return !rep_done || !rep_done[p] || !rep_done[p][r];
}

int storq_schedule_build(size_t npoints, const unsigned char *skip,
                         const unsigned char *const *rep_done, const double *rep_cost,
                         size_t replications, size_t batch_size, int with_theory,
                         storq_unit **units, size_t *nunits, storq_error *err)
{
    size_t n = 0;
    for (size_t p = 0; p < npoints; p++) {
        if (skip[p])
            continue;
        n += with_theory ? 1 : 0;
        for (size_t r = 0; r < replications; r++)
            n += (size_t)rep_wanted(rep_done, p, r);
    }
    keyed *k = malloc((n ? n : 1) * sizeof *k);
    storq_unit *out = malloc((n ? n : 1) * sizeof *out);
    if (!k || !out) {
        free(k);
        free(out);
        return STORQ_RUNTIME_FAIL(err, "out of memory for %zu work units", n);
    }
    size_t i = 0;
    for (size_t p = 0; p < npoints; p++) {
        if (skip[p])
            continue;
        if (with_theory)
            k[i++] = (keyed){{p, STORQ_UNIT_THEORY}, 0, 0.0};
        for (size_t r = 0; r < replications; r++)
            if (rep_wanted(rep_done, p, r))
                k[i++] = (keyed){{p, (int64_t)r}, r / batch_size, rep_cost[p]};
    }
    qsort(k, n, sizeof *k, by_order);
    for (i = 0; i < n; i++)
        out[i] = k[i].u;
    free(k);
    *units = out;
    *nunits = n;
    return STORQ_OK;
}
