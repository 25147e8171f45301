/* The cluster kernel's per-request working set (dynamics.c, its only includer): one request's
 * entries (the blocks it may ask, with their servers' workloads) and the order on them -- partial
 * selection, the heap, the least-r bit mask of the small-request path. Plain static functions in a
 * header of one includer: the code the compiler sees is what it was in dynamics.c. */
#ifndef STORQ_CLUSTER_ENTRIES_H
#define STORQ_CLUSTER_ENTRIES_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* ------------------------------------------------------------------ one request's entries */

/* Scratch arrays of one request's entries (servers of its placement), grown on demand. */
typedef struct cl_work {
    size_t cap;
    uint64_t *srv;  /* offset in V of entry j's server record (server x stride) */
    int64_t *a;     /* blocks of the request on it */
    int64_t *s;     /* blocks asked of it */
    uint64_t *key;  /* tie keys */
    double *u;      /* busy-until time counting blocks asked so far */
    uint32_t *cand; /* candidate entries */
    uint32_t *heap;
    uint64_t *pick; /* random subsets */
} cl_work;

static void cl_work_free(cl_work *w)
{
    free(w->srv);
    free(w->a);
    free(w->s);
    free(w->key);
    free(w->u);
    free(w->cand);
    free(w->heap);
    free(w->pick);
    memset(w, 0, sizeof *w);
}

static int cl_work_reserve(cl_work *w, size_t n)
{
    if (n <= w->cap)
        return 0;
    size_t cap = w->cap ? w->cap : 64;
    while (cap < n)
        cap *= 2;
#define GROW(f)                                              \
    do {                                                     \
        void *t_ = realloc(w->f, cap * sizeof *w->f);        \
        if (!t_)                                             \
            return -1;                                       \
        w->f = t_;                                           \
    } while (0)
    GROW(srv);
    GROW(a);
    GROW(s);
    GROW(key);
    GROW(u);
    GROW(cand);
    GROW(heap);
    GROW(pick);
#undef GROW
    w->cap = cap;
    return 0;
}

/* ------------------------------------------------------------------ the order of entries */

/* Strict total order of entries: workload (busy-until time), then tie key, then entry. */
static inline int cl_less(const cl_work *w, uint32_t x, uint32_t y)
{
    if (w->u[x] != w->u[y])
        return w->u[x] < w->u[y];
    if (w->key[x] != w->key[y])
        return w->key[x] < w->key[y];
    return x < y;
}

/* Rearrange v[0..n) so that its first r elements are the r least (in any order). */
static void cl_select(const cl_work *w, uint32_t *v, size_t n, size_t r)
{
    size_t lo = 0, hi = n; /* the boundary r lies in [lo, hi) */
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        /* median of three as pivot, moved to lo */
        uint32_t a = v[lo], b = v[mid], cc = v[hi - 1];
        uint32_t piv = cl_less(w, a, b) ? (cl_less(w, b, cc) ? b : (cl_less(w, a, cc) ? cc : a))
                                        : (cl_less(w, a, cc) ? a : (cl_less(w, b, cc) ? cc : b));
        /* three-way-free Lomuto partition: elements < piv first */
        size_t i = lo;
        for (size_t j = lo; j < hi; j++)
            if (cl_less(w, v[j], piv)) {
                uint32_t t = v[i];
                v[i] = v[j];
                v[j] = t;
                i++;
            }
        /* v[lo..i) < piv <= v[i..hi); place piv at i */
        size_t pj = i;
        while (v[pj] != piv)
            pj++;
        uint32_t t = v[i];
        v[i] = v[pj];
        v[pj] = t;
        if (i == r || i + 1 == r)
            return;
        if (r < i)
            hi = i;
        else
            lo = i + 1;
    }
}

static inline void cl_sift_down(const cl_work *w, uint32_t *h, size_t n, size_t i)
{
    uint32_t x = h[i];
    for (;;) {
        size_t l = 2 * i + 1;
        if (l >= n)
            break;
        size_t b = l;
        if (l + 1 < n && cl_less(w, h[l + 1], h[l]))
            b = l + 1;
        if (!cl_less(w, h[b], x))
            break;
        h[i] = h[b];
        i = b;
    }
    h[i] = x;
}

/* An unsigned integer ordered as the double u is (u not NaN; -0 and +0 equal). */
static inline uint64_t cl_ord(double u)
{
    uint64_t b;
    u += 0.0; /* -0 becomes +0 */
    memcpy(&b, &u, sizeof b);
    return b >> 63 ? ~b : b | (uint64_t)1 << 63;
}

/* The r least of the n <= 64 entries in the order of cl_less, as a bit mask. Few entries: ranks
 * by comparing every pair, without branches, as 128-bit integers (workload, tie key); for i < j,
 * equal ones put i first. More entries: quickselect. */
#define CL_RANK_MAX 16
static uint64_t cl_least_mask(cl_work *w, size_t n, size_t r)
{
    uint64_t mask = 0;
    if (n <= CL_RANK_MAX) {
        storq_u128 K[CL_RANK_MAX];
        unsigned rank[CL_RANK_MAX] = {0};
        for (size_t i = 0; i < n; i++)
            K[i] = (storq_u128)cl_ord(w->u[i]) << 64 | w->key[i];
        for (size_t i = 0; i < n; i++) {
            unsigned ri = 0;
            for (size_t j = i + 1; j < n; j++) {
                unsigned before = K[i] <= K[j];
                rank[j] += before;
                ri += 1 - before;
            }
            rank[i] += ri;
        }
        for (size_t j = 0; j < n; j++)
            mask |= (uint64_t)(rank[j] < r) << j;
        return mask;
    }
    for (size_t j = 0; j < n; j++)
        w->cand[j] = (uint32_t)j;
    cl_select(w, w->cand, n, r);
    for (size_t i = 0; i < r; i++)
        mask |= (uint64_t)1 << w->cand[i];
    return mask;
}

#endif
