/* Least-loaded group in O(log g): a min tournament tree with tie counts, and an event heap. */
#include "lwl.h"

#include <math.h>
#include <stdlib.h>

static void fj_lwl_pull(fj_lwl *l, uint64_t i)
{
    const uint64_t a = 2 * i, b = a + 1;
    const double ka = l->key[a], kb = l->key[b];
    if (ka < kb) {
        l->key[i] = ka;
        l->cnt[i] = l->cnt[a];
    } else if (kb < ka) {
        l->key[i] = kb;
        l->cnt[i] = l->cnt[b];
    } else {
        l->key[i] = ka;
        l->cnt[i] = l->cnt[a] + l->cnt[b];
    }
}

static void fj_lwl_build(fj_lwl *l)
{
    for (uint64_t i = l->size; i-- > 1;)
        fj_lwl_pull(l, i);
}

int storq_fj_lwl_init(fj_lwl *l, uint64_t g, double key0)
{
    l->g = g;
    l->size = 1;
    while (l->size < g)
        l->size *= 2;
    l->key = malloc(2 * l->size * sizeof *l->key);
    l->cnt = malloc(2 * l->size * sizeof *l->cnt);
    l->hcap = 64;
    l->hn = 0;
    l->ht = malloc(l->hcap * sizeof *l->ht);
    l->hg = malloc(l->hcap * sizeof *l->hg);
    if (!l->key || !l->cnt || !l->ht || !l->hg)
        return -1;
    for (uint64_t G = 0; G < l->size; G++) {
        /* padding leaves never win: +inf with no group behind them */
        l->key[l->size + G] = G < g ? key0 : INFINITY;
        l->cnt[l->size + G] = G < g ? 1 : 0;
    }
    fj_lwl_build(l);
    return 0;
}

void storq_fj_lwl_free(fj_lwl *l)
{
    free(l->key);
    free(l->cnt);
    free(l->ht);
    free(l->hg);
}

void storq_fj_lwl_set(fj_lwl *l, uint64_t group, double key)
{
    uint64_t i = l->size + group;
    l->key[i] = key;
    for (i /= 2; i >= 1; i /= 2)
        fj_lwl_pull(l, i);
}

double storq_fj_lwl_min(const fj_lwl *l, uint64_t *ties)
{
    *ties = l->cnt[1];
    return l->key[1];
}

uint64_t storq_fj_lwl_rank(const fj_lwl *l, uint64_t r)
{
    const double m = l->key[1];
    uint64_t i = 1;
    while (i < l->size) {
        const uint64_t a = 2 * i;
        if (l->key[a] == m) {
            if (r < l->cnt[a]) {
                i = a;
                continue;
            }
            r -= l->cnt[a];
        }
        i = a + 1;
    }
    return i - l->size;
}

void storq_fj_lwl_shift(fj_lwl *l, double dt, int keys_are_times)
{
    if (keys_are_times) {
        for (uint64_t G = 0; G < l->g; G++)
            l->key[l->size + G] -= dt;
        fj_lwl_build(l);
    }
    for (size_t i = 0; i < l->hn; i++)
        l->ht[i] -= dt; /* a uniform shift keeps the heap order */
}

int storq_fj_lwl_push(fj_lwl *l, double time, uint64_t group)
{
    if (l->hn == l->hcap) {
        size_t cap = 2 * l->hcap;
        double *t = realloc(l->ht, cap * sizeof *t);
        if (!t)
            return -1;
        l->ht = t;
        uint64_t *g = realloc(l->hg, cap * sizeof *g);
        if (!g)
            return -1;
        l->hg = g;
        l->hcap = cap;
    }
    size_t i = l->hn++;
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (!(time < l->ht[p]))
            break;
        l->ht[i] = l->ht[p];
        l->hg[i] = l->hg[p];
        i = p;
    }
    l->ht[i] = time;
    l->hg[i] = group;
    return 0;
}

void storq_fj_lwl_pop(fj_lwl *l)
{
    const size_t n = --l->hn;
    const double t = l->ht[n];
    const uint64_t g = l->hg[n];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && l->ht[c + 1] < l->ht[c])
            c++;
        if (!(l->ht[c] < t))
            break;
        l->ht[i] = l->ht[c];
        l->hg[i] = l->hg[c];
        i = c;
    }
    l->ht[i] = t;
    l->hg[i] = g;
}
