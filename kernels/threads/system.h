/* `threads` dynamics' state (dynamics.c): one policy's system of L threads over the requests
 * present (requests, their chunk records, the measurement), and the indexed binary heaps it
 * schedules with: the event heap of running chunks (end time, arrival number, chunk number) and
 * the request heaps in the policy's order. Plain static functions in a header of one includer:
 * the code the compiler sees is what it was in dynamics.c. */
#ifndef STORQ_THREADS_SYSTEM_H
#define STORQ_THREADS_SYSTEM_H

#include <stddef.h>
#include <stdint.h>

#include "internal.h"

enum { CH_FRESH, CH_RUN, CH_PRE, CH_DONE };
enum { KEY_SEQ, KEY_ALPHA, KEY_DIFF };
enum { EL_ALL, EL_AVAIL, EL_ROOM, EL_REDUNDANT };

typedef struct th_req {
    double arrival;
    uint64_t seq, mi;  /* arrival number; measured index (steady halves) */
    uint32_t cls, n, k, alpha, delta, next, npre;
    int measured;
} th_req;

/* An indexed heap of request slots; pos[slot] = index + 1, 0 when absent. */
typedef struct th_heap {
    uint32_t *h, *pos;
    size_t n;
    int key, max, elig;
} th_heap;

typedef struct th_sys {
    const th_ctx *x;
    const th_policy *pol;
    size_t stride;       /* nmax: chunk records per slot */
    th_req *req;
    double *cx, *cv;     /* per chunk: download time X; remaining time (fresh, preempted) or end */
    uint8_t *cst;        /* per chunk: state */
    uint32_t *epos;      /* per chunk: index + 1 in the event heap */
    uint32_t *free_slots;
    size_t cap, nfree, used;
    uint32_t *ev;        /* event heap of running chunks (global chunk ids) */
    size_t nev;
    th_heap hp[3];
    int nhp;             /* heaps in use: 0 pass 1, 1 pass 2 (WCR), 2 redundant holders (WCR p) */
    /* preemptive R: holders (delta > 0), targets */
    uint32_t *hold, *hold_pos, *target, *tlist, *cand;
    size_t nhold;
    uint64_t idle;
    /* measurement */
    int open;
    double tlast, t_open, t_close, useful, cancelled, present_area;
    double *present;     /* time in each count of requests present */
    uint64_t pending, done_in_window, events;
    storq_hist hf, hc[TH_MAX_CLASSES];
    double sum, half_sum, csum[TH_MAX_CLASSES];
    uint64_t ccount[TH_MAX_CLASSES], half_at;
    /* SEDPT-NR's last starts (the NLU lower bound): sum of V_j - a_j over measured requests,
     * and the measured requests whose last start is still to come */
    int vtrack, companion; /* companion: SEDPT-NR run only for them (no other measurement) */
    double vsum;
    uint64_t vpending;
} th_sys;

/* ------------------------------------------------------------------ event heap */

static inline int ev_before(const th_sys *s, uint32_t a, uint32_t b)
{
    if (s->cv[a] != s->cv[b])
        return s->cv[a] < s->cv[b];
    const uint64_t sa = s->req[a / s->stride].seq, sb = s->req[b / s->stride].seq;
    if (sa != sb)
        return sa < sb;
    return a % s->stride < b % s->stride;
}

static inline void ev_place(th_sys *s, size_t i, uint32_t g)
{
    s->ev[i] = g;
    s->epos[g] = (uint32_t)(i + 1);
}

static void ev_up(th_sys *s, size_t i)
{
    const uint32_t g = s->ev[i];
    while (i > 0 && ev_before(s, g, s->ev[(i - 1) / 2])) {
        ev_place(s, i, s->ev[(i - 1) / 2]);
        i = (i - 1) / 2;
    }
    ev_place(s, i, g);
}

static void ev_down(th_sys *s, size_t i)
{
    const uint32_t g = s->ev[i];
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= s->nev)
            break;
        if (c + 1 < s->nev && ev_before(s, s->ev[c + 1], s->ev[c]))
            c++;
        if (!ev_before(s, s->ev[c], g))
            break;
        ev_place(s, i, s->ev[c]);
        i = c;
    }
    ev_place(s, i, g);
}

static void ev_remove(th_sys *s, uint32_t g)
{
    const size_t i = s->epos[g] - 1;
    s->epos[g] = 0;
    const uint32_t last = s->ev[--s->nev];
    if (i == s->nev)
        return;
    ev_place(s, i, last);
    if (i > 0 && ev_before(s, last, s->ev[(i - 1) / 2]))
        ev_up(s, i);
    else
        ev_down(s, i);
}

/* ------------------------------------------------------------------ request heaps */

static inline int64_t rq_key(const th_req *r, int key)
{
    switch (key) {
    case KEY_ALPHA:
        return (int64_t)r->alpha;
    case KEY_DIFF:
        return (int64_t)r->alpha - (int64_t)r->delta;
    default:
        return 0;
    }
}

/* a before b in heap h (the top is the smallest key, or the largest for a max-heap) */
static inline int rq_before(const th_sys *s, const th_heap *h, uint32_t a, uint32_t b)
{
    const th_req *ra = &s->req[a], *rb = &s->req[b];
    const int64_t ka = rq_key(ra, h->key), kb = rq_key(rb, h->key);
    int less = ka != kb ? ka < kb : ra->seq < rb->seq;
    return h->max ? !less : less;
}

static inline void hp_place(th_heap *h, size_t i, uint32_t slot)
{
    h->h[i] = slot;
    h->pos[slot] = (uint32_t)(i + 1);
}

static void hp_up(const th_sys *s, th_heap *h, size_t i)
{
    const uint32_t v = h->h[i];
    while (i > 0 && rq_before(s, h, v, h->h[(i - 1) / 2])) {
        hp_place(h, i, h->h[(i - 1) / 2]);
        i = (i - 1) / 2;
    }
    hp_place(h, i, v);
}

static void hp_down(const th_sys *s, th_heap *h, size_t i)
{
    const uint32_t v = h->h[i];
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= h->n)
            break;
        if (c + 1 < h->n && rq_before(s, h, h->h[c + 1], h->h[c]))
            c++;
        if (!rq_before(s, h, h->h[c], v))
            break;
        hp_place(h, i, h->h[c]);
        i = c;
    }
    hp_place(h, i, v);
}

static void hp_remove(const th_sys *s, th_heap *h, uint32_t slot)
{
    const size_t i = h->pos[slot] - 1;
    h->pos[slot] = 0;
    const uint32_t last = h->h[--h->n];
    if (i == h->n)
        return;
    hp_place(h, i, last);
    hp_up(s, h, i);
    hp_down(s, h, h->pos[last] - 1);
}

static inline uint32_t rq_avail(const th_req *r)
{
    return r->n - (r->k - r->alpha) - r->delta;
}

static inline int rq_eligible(const th_req *r, int elig)
{
    switch (elig) {
    case EL_AVAIL:
        return rq_avail(r) > 0;
    case EL_ROOM:
        return r->delta < r->alpha;
    case EL_REDUNDANT:
        return r->delta > r->alpha;
    default:
        return 1;
    }
}

/* Re-file request slot in every heap after its alpha or delta changed (gone: remove it). */
static void rq_update(th_sys *s, uint32_t slot, int gone)
{
    const th_req *r = &s->req[slot];
    for (int i = 0; i < s->nhp; i++) {
        th_heap *h = &s->hp[i];
        const int in = h->pos[slot] != 0, want = !gone && rq_eligible(r, h->elig);
        if (in && !want) {
            hp_remove(s, h, slot);
        } else if (!in && want) {
            h->h[h->n] = slot;
            h->pos[slot] = (uint32_t)(h->n + 1);
            hp_up(s, h, h->n++);
        } else if (in) {
            const size_t at = h->pos[slot] - 1;
            hp_up(s, h, at);
            hp_down(s, h, h->pos[slot] - 1);
        }
    }
}

#endif
