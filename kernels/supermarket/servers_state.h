/* `supermarket`, engine `servers`: the engine's state and the structures it is built from.
 * Included by servers.c only: the functions are static so that the event loop there inlines them.
 *
 * State per server, steady mode: one 64-byte record aligned to a cache line, so that touching a
 * server costs one cache line: queue length, heap position (non-exponential service), and its FIFO
 * of tasks -- the arrival times and job slots of the first SMK_INLINE tasks inline, the rest (rare
 * at the loads of interest) in a pooled singly linked overflow list whose head and tail the record
 * holds. Transient mode measures no sojourns and keeps no FIFO: 8-byte records (length, heap
 * position). Measured jobs of k >= 2 tasks live in a pool of their own (arrival time, tasks left);
 * a measured task of a k = 1 job carries a marker instead (its delay is its sojourn); warm-up tasks
 * carry no job. With non-exponential service the busy servers sit in an indexed binary min-heap
 * keyed by (completion time, server id), the id breaking exact ties so the order is total.
 * Memory: 64 bytes per server in steady mode, 8 in transient mode (+ 4 for the busy list or 16 for
 * the heap), 16 per overflow task in system and 16 per measured job in system (pools grow by
 * doubling). */
#ifndef STORQ_SUPERMARKET_SERVERS_STATE_H
#define STORQ_SUPERMARKET_SERVERS_STATE_H

#include <stdint.h>
#include <stdlib.h>

#include "internal.h"

#define NONE UINT32_MAX
#define SINGLE (UINT32_MAX - 1) /* a measured task of a job of k = 1 task: no job record needed */
#define SMK_INLINE 4            /* tasks held in a server's own record */
#define XBATCH 64               /* exponential variates drawn at a time */

#define ALWAYS_INLINE inline __attribute__((always_inline))
#define UNLIKELY(x) __builtin_expect(!!(x), 0)

typedef struct node {
    double t;      /* arrival time of the task */
    uint32_t job;  /* measured job's slot, or NONE */
    uint32_t next; /* next task in the same overflow FIFO, or the free list */
} node;

typedef struct job {
    double t;           /* arrival time */
    uint32_t remaining; /* tasks not yet done; next free slot while free */
    uint32_t pad_;
} job;

/* Queue length and position in the heap (non-exponential service; unused otherwise): the whole
 * record in transient mode, the start of one in steady mode. */
typedef struct hdr {
    uint32_t len; /* the task in service included */
    uint32_t pos;
} hdr;

/* A server in steady mode: one cache line. Its FIFO: tasks 0..min(len, SMK_INLINE)-1 (the first is
 * in service) in t[] and job[]; tasks SMK_INLINE..len-1 in the overflow list ovh -> .. -> ovt. */
typedef struct srv {
    hdr h;
    uint32_t ovh, ovt;
    double t[SMK_INLINE];
    uint32_t job[SMK_INLINE];
} srv;

_Static_assert(sizeof(srv) == 64, "a server record is one cache line");

typedef struct hitem {
    double t;
    uint32_t s;
} hitem;

typedef struct sim {
    const smk_ctx *c;
    uint32_t n;
    void *raw;           /* allocation of the records */
    unsigned char *base; /* records: srv (steady, 64-byte aligned) or hdr (transient) */
    uint32_t *busy;
    uint32_t B;
    /* exponential service: busy[0..B) is kept in list mode (rmode = 0); in rejection mode the
     * next candidates are cand[(ch + i) % SMK_CANDIDATES], i = 0..SMK_CANDIDATES-1, in order */
    int rmode;
    unsigned ch;
    uint32_t cand[SMK_CANDIDATES];
    double Eidle; /* the standard exponential waiting for the end of an idle period (B = 0) */
    hitem *heap;
    uint32_t H;
    node *nodes;
    uint32_t ncap, nused, nfree, nlive, npeak;
    job *jobs;
    uint32_t jcap, jused, jfree, jlive, jpeak;
    smk_occ occ;
    storq_rng serv;
    storq_rng pick; /* exponential service: which server departs (EXTRA stream) */
    double xs[XBATCH]; /* exponential service: the next standard exponentials (SERVICE stream) */
    unsigned xsi;
    /* measurement (steady mode) */
    int track;
    storq_hist aql, soj, dly;
    int dly_is_soj; /* k = 1: job delays are the task sojourns, added to dly only at the end */
    double soj_sum, dly_sum;
    uint64_t soj_count, dly_count, measured_left;
} sim;

/* The header of server s; tr = m->track (a constant in the specialised loops). */
static ALWAYS_INLINE hdr *hdr_of(const sim *m, uint32_t s, const int tr)
{
    return tr ? &((srv *)m->base)[s].h : &((hdr *)m->base)[s];
}

static ALWAYS_INLINE srv *srv_of(const sim *m, uint32_t s)
{
    return &((srv *)m->base)[s];
}

/* ---- heap of busy servers (non-exponential service) ---- */

static inline int hless(const hitem *a, const hitem *b)
{
    return a->t < b->t || (a->t == b->t && a->s < b->s);
}

static inline void hset(sim *m, uint32_t i, hitem x)
{
    m->heap[i] = x;
    hdr_of(m, x.s, m->track)->pos = i;
}

static void heap_up(sim *m, uint32_t i)
{
    hitem x = m->heap[i];
    while (i > 0) {
        uint32_t p = (i - 1) / 2;
        if (!hless(&x, &m->heap[p]))
            break;
        hset(m, i, m->heap[p]);
        i = p;
    }
    hset(m, i, x);
}

static void heap_down(sim *m, uint32_t i)
{
    hitem x = m->heap[i];
    uint32_t H = m->H;
    for (;;) {
        uint32_t l = 2 * i + 1;
        if (l >= H)
            break;
        uint32_t ch = l;
        if (l + 1 < H && hless(&m->heap[l + 1], &m->heap[l]))
            ch = l + 1;
        if (!hless(&m->heap[ch], &x))
            break;
        hset(m, i, m->heap[ch]);
        i = ch;
    }
    hset(m, i, x);
}

static void heap_push(sim *m, uint32_t s, double t)
{
    uint32_t i = m->H++;
    m->heap[i] = (hitem){t, s};
    hdr_of(m, s, m->track)->pos = i;
    heap_up(m, i);
}

/* ---- pools ---- */

static int node_grow(sim *m)
{
    if (m->ncap >= NONE / 2)
        return -1;
    uint32_t cap = m->ncap ? 2 * m->ncap : 1024;
    node *p = realloc(m->nodes, sizeof *p * cap);
    if (!p)
        return -1;
    m->nodes = p;
    m->ncap = cap;
    return 0;
}

static inline int node_alloc(sim *m, uint32_t *out)
{
    uint32_t i;
    if (m->nfree != NONE) {
        i = m->nfree;
        m->nfree = m->nodes[i].next;
    } else {
        if (m->nused == m->ncap && node_grow(m))
            return -1;
        i = m->nused++;
    }
    if (++m->nlive > m->npeak)
        m->npeak = m->nlive;
    *out = i;
    return 0;
}

static int job_alloc(sim *m, uint32_t *out)
{
    uint32_t i;
    if (m->jfree != NONE) {
        i = m->jfree;
        m->jfree = m->jobs[i].remaining;
    } else {
        if (m->jused == m->jcap) {
            if (m->jcap >= NONE / 2)
                return -1;
            uint32_t cap = m->jcap ? 2 * m->jcap : 256;
            job *p = realloc(m->jobs, sizeof *p * cap);
            if (!p)
                return -1;
            m->jobs = p;
            m->jcap = cap;
        }
        i = m->jused++;
    }
    if (++m->jlive > m->jpeak)
        m->jpeak = m->jlive;
    *out = i;
    return 0;
}

/* Append a task to the overflow FIFO of a server already holding l >= SMK_INLINE tasks. */
static __attribute__((noinline)) int overflow_push(sim *m, srv *p, uint32_t l, double t,
                                                   uint32_t jb)
{
    uint32_t x;
    if (node_alloc(m, &x))
        return -1;
    m->nodes[x].t = t;
    m->nodes[x].job = jb;
    m->nodes[x].next = NONE;
    if (l == SMK_INLINE)
        p->ovh = x;
    else
        m->nodes[p->ovt].next = x;
    p->ovt = x;
    return 0;
}

/* Move the head of the overflow FIFO into the last inline slot (the server held l > SMK_INLINE
 * tasks and its inline tasks have just moved up one slot). */
static __attribute__((noinline)) void overflow_pop(sim *m, srv *p)
{
    uint32_t x = p->ovh;
    node *nd = &m->nodes[x];
    p->t[SMK_INLINE - 1] = nd->t;
    p->job[SMK_INLINE - 1] = nd->job;
    p->ovh = nd->next;
    nd->next = m->nfree;
    m->nfree = x;
    m->nlive--;
}

/* The server records, zeroed, aligned to a cache line. */
static void *records_alloc(sim *m, size_t bytes)
{
    m->raw = calloc(1, bytes + 64);
    return m->raw ? (void *)(((uintptr_t)m->raw + 63) & ~(uintptr_t)63) : NULL;
}

static void sim_free(sim *m)
{
    free(m->raw);
    free(m->busy);
    free(m->heap);
    free(m->nodes);
    free(m->jobs);
    storq_smk_occ_free(&m->occ);
}

#endif
