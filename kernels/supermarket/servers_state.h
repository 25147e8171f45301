/* `supermarket`, engine `servers`: the engine's state and the structures it is built from.
 * Included by servers.c only: the functions are static so that the event loop there inlines them.
 *
 * State per server, steady mode: its queue length in a byte array (255: 255 or more, the length
 * then in the record), which is all an arrival's choice and a departure's candidate read, and a
 * 24-byte record for its FIFO (the first task in service). A short queue (at most SMK_INLINE = 3
 * tasks) is all in the record; a long one keeps its first SMK_INLINE - 1 tasks there and, in the
 * last slot, its exact length and where the rest are: a block of 2^c task slots of the arena, c
 * the block's class (>= 1). The block is taken when the fourth task joins (the third moves into
 * it), moved to the next class when full, and given back when the queue is short again. At the
 * loads of interest most queues are short (at JSQ(2), lambda = 0.9, a fifth of the servers hold
 * more than SMK_INLINE tasks), so an event touches one record and the arena stays small. Three
 * records of eight straddle two cache lines; the lengths are dense (64 servers per line).
 * A task is 8 bytes: with k = 1 its arrival time, negative for a task of the warm-up (not
 * measured; arrival times are >= 0); with k >= 2 its job's slot in the job pool (arrival time,
 * tasks left), NONE for the warm-up's. Transient mode measures no sojourns: 4-byte records (the
 * length). With non-exponential service the busy servers sit in a binary min-heap keyed by
 * (completion time, server id), the id breaking exact ties so the order is total; only its root
 * is ever removed, so no server records its position.
 * Memory: 25 bytes per server in steady mode, 4 in transient mode, + 4 per entry of the busy list
 * (n/2 + k entries: it is only kept while fewer than half the servers are busy) or 16 per server
 * for the heap; 8 per slot of the arena and 16 per measured job in system (both grow by
 * doubling). */
#ifndef STORQ_SUPERMARKET_SERVERS_STATE_H
#define STORQ_SUPERMARKET_SERVERS_STATE_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "big_array.h"
#include "internal.h"

#define NONE UINT32_MAX
#define XBATCH 64 /* exponential variates drawn at a time */
#define LEN_BITS 27 /* a long record's length field; the class is in the bits above */
#define LEN_MASK ((1u << LEN_BITS) - 1)
#define LEN_SAT 255 /* in the byte array: a length of 255 or more */
#define SMK_INLINE 3 /* tasks a short queue holds in its record; a long one holds one less */
#define MAX_CLASS 26 /* blocks of at most 2^26 slots: a queue is shorter than 2^27 */

#define ALWAYS_INLINE inline __attribute__((always_inline))
#define UNLIKELY(x) __builtin_expect(!!(x), 0)
#define LIKELY(x) __builtin_expect(!!(x), 1)

/* A task: its arrival time (k = 1; negative: not measured) or its job's slot (k >= 2; NONE: not
 * measured). Free arena blocks link through the first slot's job field. The last slot of a long
 * record holds `far` instead. */
typedef union task {
    double t;
    uint64_t job;
    struct {
        uint32_t blk; /* the block's first slot */
        uint32_t lc;  /* the length (low LEN_BITS bits) and the block's class (the bits above) */
    } far;
} task;

typedef struct job {
    double t;           /* arrival time */
    uint32_t remaining; /* tasks not yet done; next free slot while free */
    uint32_t pad_;
} job;

/* A server's FIFO in steady mode (q[0] in service): q[0 .. len - 1] while len <= SMK_INLINE, else
 * q[0], q[1], then arena[far.blk .. far.blk + len - 3], with far = q[2].far. */
typedef struct srv {
    task q[SMK_INLINE];
} srv;

_Static_assert(sizeof(srv) == 24, "a 24-byte record");

typedef struct hitem {
    double t;
    uint32_t s;
} hitem;

typedef struct sim {
    const smk_ctx *c;
    uint32_t n;
    unsigned char *base; /* records: srv (steady) or the lengths (transient); storq_big_array */
    uint8_t *len8;       /* steady: the lengths, saturated at LEN_SAT; storq_big_array */
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
    task *arena;                /* blocks of waiting tasks (steady mode) */
    uint64_t acap, aused; /* slots: allocated, ever handed out */
    uint32_t afree[MAX_CLASS + 1]; /* free blocks of each class (linked), or NONE */
    job *jobs;
    uint32_t jcap, jused, jfree;
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

static ALWAYS_INLINE srv *srv_of(const sim *m, uint32_t s)
{
    return &((srv *)m->base)[s];
}

/* The queue length of server s; tr = m->track (a constant in the specialised loops). */
static ALWAYS_INLINE uint32_t len_of(const sim *m, uint32_t s, const int tr)
{
    if (!tr)
        return ((const uint32_t *)m->base)[s];
    uint32_t l = m->len8[s];
    return UNLIKELY(l == LEN_SAT) ? srv_of(m, s)->q[SMK_INLINE - 1].far.lc & LEN_MASK : l;
}

/* Steady mode: server s now holds l tasks (its record already says so if l >= SMK_INLINE + 1). */
static ALWAYS_INLINE void set_len(sim *m, uint32_t s, uint32_t l)
{
    m->len8[s] = (uint8_t)(l < LEN_SAT ? l : LEN_SAT);
}

/* Prefetch server s's length. */
static ALWAYS_INLINE void prefetch_length(const sim *m, uint32_t s, const int tr)
{
    if (tr)
        __builtin_prefetch(m->len8 + s, 1);
    else
        __builtin_prefetch((const uint32_t *)m->base + s, 1);
}

/* Steady mode: prefetch server s's record (both of the cache lines a straddling one spans). */
static ALWAYS_INLINE void prefetch_record(const sim *m, uint32_t s)
{
    __builtin_prefetch(srv_of(m, s), 1);
    __builtin_prefetch((const char *)srv_of(m, s) + sizeof(srv) - 1, 1);
}

/* Prefetch what an event at server s reads and writes: its length, and its record. */
static ALWAYS_INLINE void prefetch_server(const sim *m, uint32_t s, const int tr)
{
    prefetch_length(m, s, tr);
    if (tr)
        prefetch_record(m, s);
}

/* ---- heap of busy servers (non-exponential service) ---- */

static inline int hless(const hitem *a, const hitem *b)
{
    return a->t < b->t || (a->t == b->t && a->s < b->s);
}

static void heap_up(sim *m, uint32_t i)
{
    hitem x = m->heap[i];
    while (i > 0) {
        uint32_t p = (i - 1) / 2;
        if (!hless(&x, &m->heap[p]))
            break;
        m->heap[i] = m->heap[p];
        i = p;
    }
    m->heap[i] = x;
}

/* (unused: the engine's two files each use a part of this header's static functions) */
__attribute__((unused)) static void heap_down(sim *m, uint32_t i)
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
        m->heap[i] = m->heap[ch];
        i = ch;
    }
    m->heap[i] = x;
}

static void heap_push(sim *m, uint32_t s, double t)
{
    uint32_t i = m->H++;
    m->heap[i] = (hitem){t, s};
    heap_up(m, i);
}

/* ---- pools ---- */

__attribute__((unused)) static int job_alloc(sim *m, uint32_t *out)
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
    *out = i;
    return 0;
}

/* Room for `size` more slots at the end of the arena, which grows by doubling (rare: out of
 * line). */
static __attribute__((noinline)) int arena_grow(sim *m, uint64_t size)
{
    uint64_t cap = m->acap ? 2 * m->acap : 4096;
    while (cap < m->aused + size)
        cap *= 2;
    if (cap > NONE) /* slot numbers are 32-bit */
        return -1;
    task *p = realloc(m->arena, sizeof *p * cap);
    if (!p)
        return -1;
    m->arena = p;
    m->acap = cap;
    return 0;
}

/* A block of 2^c slots: the last one freed of its class (likely still in cache), else fresh
 * slots at the end of the arena. */
static inline int block_alloc(sim *m, unsigned c, uint32_t *out)
{
    uint32_t b = m->afree[c];
    if (b != NONE) {
        m->afree[c] = (uint32_t)m->arena[b].job;
    } else {
        uint64_t size = (uint64_t)1 << c;
        if (m->aused + size > m->acap && arena_grow(m, size))
            return -1;
        b = (uint32_t)m->aused;
        m->aused += size;
    }
    *out = b;
    return 0;
}

static inline void block_free(sim *m, uint32_t b, unsigned c)
{
    m->arena[b].job = m->afree[c];
    m->afree[c] = b;
}

/* A long record's block is full with its j = 2^c tasks: they move to a block of the next class
 * (rare: out of line). The class is capped, which caps a queue at SMK_INLINE - 1 + 2^MAX_CLASS <
 * 2^LEN_BITS tasks. */
static __attribute__((noinline, unused)) int block_grow(sim *m, srv *p, uint32_t j)
{
    task *f = &p->q[SMK_INLINE - 1];
    unsigned c = f->far.lc >> LEN_BITS;
    uint32_t b;
    if (c == MAX_CLASS || block_alloc(m, c + 1, &b))
        return -1;
    memcpy(&m->arena[b], &m->arena[f->far.blk], sizeof(task) * j);
    block_free(m, f->far.blk, c);
    f->far.blk = b;
    f->far.lc = (f->far.lc & LEN_MASK) | (uint32_t)(c + 1) << LEN_BITS;
    return 0;
}

__attribute__((unused)) static void sim_free(sim *m)
{
    free(m->base);
    free(m->len8);
    free(m->busy);
    free(m->heap);
    free(m->arena);
    free(m->jobs);
    storq_smk_occ_free(&m->occ);
}

#define RING 16 /* samples of L servers kept ahead: a power of two above servers.c's AHEAD */

/* What the event loop reads and writes besides the state: the arrival and routing streams, the
 * batch of inter-arrival times, the ring of sampled servers, the record, the event count. */
typedef struct loopio {
    storq_rng arr, rout;
    double xa[XBATCH]; /* the next inter-arrival times (ARRIVALS stream, in order) */
    unsigned xi;
    uint64_t *ring; /* RING samples of L servers */
    uint64_t *lens, *scratch;
    unsigned *chosen;
    storq_record *rec;
    uint64_t events;
    double T; /* window length (steady) */
} loopio;

/* The event loop for this replication's case (servers.c): 0, 1 stopped, -1 out of memory. */
int storq_smk_servers_loop(sim *m, loopio *io);

#endif
