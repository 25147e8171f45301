#include "plan_curve.h"

#include <math.h>
#include <stdlib.h>

typedef struct pair {
    double x, y;
} pair;

static int by_x(const void *a, const void *b)
{
    const pair *p = a, *q = b;
    return (p->x > q->x) - (p->x < q->x);
}

int storq_plan_curve_build(const double *cost, const double *y, size_t n, storq_plan_curve *c,
                           storq_error *err)
{
    *c = (storq_plan_curve){0};
    pair *v = malloc((n ? n : 1) * sizeof *v);
    c->x = malloc((n ? n : 1) * sizeof *c->x);
    c->y = malloc((n ? n : 1) * sizeof *c->y);
    if (!v || !c->x || !c->y) {
        free(v);
        storq_plan_curve_free(c);
        return STORQ_RUNTIME_FAIL(err, "out of memory");
    }
    for (size_t i = 0; i < n; i++)
        v[i] = (pair){log(cost[i]), y[i]};
    qsort(v, n, sizeof *v, by_x);
    for (size_t i = 0; i < n;) {
        size_t j = i;
        double sum = 0.0;
        for (; j < n && v[j].x == v[i].x; j++)
            sum += v[j].y;
        c->x[c->n] = v[i].x;
        c->y[c->n++] = sum / (double)(j - i);
        i = j;
    }
    free(v);
    return STORQ_OK;
}

double storq_plan_curve_at(const storq_plan_curve *c, double cost)
{
    if (c->n == 0)
        return 0.0;
    double x = log(cost);
    if (x <= c->x[0])
        return c->y[0];
    if (x >= c->x[c->n - 1])
        return c->y[c->n - 1];
    size_t lo = 0, hi = c->n - 1; /* x[lo] < x < x[hi]: bisect to neighbours */
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (c->x[mid] < x)
            lo = mid;
        else
            hi = mid;
    }
    double f = (x - c->x[lo]) / (c->x[hi] - c->x[lo]);
    return c->y[lo] + f * (c->y[hi] - c->y[lo]);
}

void storq_plan_curve_free(storq_plan_curve *c)
{
    free(c->x);
    free(c->y);
    *c = (storq_plan_curve){0};
}
