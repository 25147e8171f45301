/* `supermarket`, engine `servers`: every server's queue, any service law.
 *
 * State per server: one 16-byte record (queue length; head and tail of its FIFO of tasks, kept in a
 * pooled singly linked list in steady mode, where sojourns are measured; its position in the busy
 * list or heap), so touching a server costs one cache line. Measured jobs of k >= 2 tasks live in a
 * pool of their own (arrival time, tasks left); a measured task of a k = 1 job carries a marker
 * instead (its delay is its sojourn); warm-up tasks carry no job.
 *
 * Departures:
 *  - exponential service (rate mu): the busy servers sit in an array, appended when a server becomes
 *    busy and swap-removed when it becomes idle. After every event the next departure time is drawn
 *    afresh as t + Exp(mu B), B busy servers (exact: memoryless), and the departing server is
 *    busy[below(B)]. Both draws from the SERVICE stream. O(1) per event.
 *  - other laws: a service time is drawn (SERVICE stream) when a task enters service, and the busy
 *    servers sit in an indexed binary min-heap keyed by (completion time, server id), the id breaking
 *    exact ties so the order is total. O(log n) per departure and per start of service.
 * An arrival costs O(L) (plus O(log n) per task that starts service, other laws only), never O(n).
 * Memory: 16 bytes per server (+ 4 for the busy list or 16 for the heap), 16 per task in system and
 * 16 per measured job in system (pools grow by doubling). */
#include "supermarket_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX
#define SINGLE (UINT32_MAX - 1) /* a measured task of a job of k = 1 task: no job record needed */

typedef struct node {
    double t;      /* arrival time of the task */
    uint32_t job;  /* measured job's slot, or NONE */
    uint32_t next; /* next task in the same FIFO, or the free list */
} node;

typedef struct job {
    double t;           /* arrival time */
    uint32_t remaining; /* tasks not yet done; next free slot while free */
    uint32_t pad_;
} job;

/* One server's state in one 16-byte record, so that touching a server costs one cache line. */
typedef struct server {
    uint32_t len;        /* queue length, the task in service included */
    uint32_t head, tail; /* its FIFO of tasks (steady mode only) */
    uint32_t pos;        /* position in the busy list (exponential) or in the heap (others) */
} server;

typedef struct hitem {
    double t;
    uint32_t s;
} hitem;

typedef struct sim {
    const smk_ctx *c;
    uint32_t n;
    server *sv;
    uint32_t *busy;
    uint32_t B;
    hitem *heap;
    uint32_t H;
    node *nodes;
    uint32_t ncap, nused, nfree, nlive, npeak;
    job *jobs;
    uint32_t jcap, jused, jfree, jlive, jpeak;
    smk_occ occ;
    storq_rng serv;
    /* measurement (steady mode) */
    int track;
    storq_hist aql, soj, dly;
    double soj_sum, dly_sum;
    uint64_t soj_count, dly_count, measured_left;
} sim;

/* ---- heap of busy servers (non-exponential service) ---- */

static inline int hless(const hitem *a, const hitem *b)
{
    return a->t < b->t || (a->t == b->t && a->s < b->s);
}

static inline void hset(sim *m, uint32_t i, hitem x)
{
    m->heap[i] = x;
    m->sv[x.s].pos = i;
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
    m->sv[s].pos = i;
    heap_up(m, i);
}

/* ---- the server becomes busy (its first task enters service at time t) ---- */

static inline void becomes_busy(sim *m, uint32_t s, double t)
{
    if (m->c->service_exp) {
        m->sv[s].pos = m->B;
        m->busy[m->B++] = s;
    } else {
        heap_push(m, s, t + storq_dist_sample(&m->c->service, &m->serv));
    }
}

/* ---- pools ---- */

static int node_alloc(sim *m, uint32_t *out)
{
    uint32_t i;
    if (m->nfree != NONE) {
        i = m->nfree;
        m->nfree = m->nodes[i].next;
    } else {
        if (m->nused == m->ncap) {
            if (m->ncap >= NONE / 2)
                return -1;
            uint32_t cap = m->ncap ? 2 * m->ncap : 1024;
            node *p = realloc(m->nodes, sizeof *p * cap);
            if (!p)
                return -1;
            m->nodes = p;
            m->ncap = cap;
        }
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

/* ---- events ---- */

static int arrive(sim *m, double t, int measured, storq_rng *rout, uint64_t *samp,
                  uint64_t *lens, uint64_t *scratch, unsigned *chosen)
{
    const smk_ctx *c = m->c;
    unsigned L = c->L, k = c->k;
    if (c->with_replacement) {
        for (unsigned j = 0; j < L; j++)
            samp[j] = storq_rng_below(rout, m->n);
    } else {
        storq_rng_sample_distinct(rout, m->n, L, samp);
    }
    for (unsigned j = 0; j < L; j++)
        lens[j] = m->sv[samp[j]].len;
    smk_select_k(lens, L, k, scratch, chosen);

    uint32_t jb = NONE;
    if (measured && k == 1) {
        jb = SINGLE;
    } else if (measured) {
        if (job_alloc(m, &jb))
            return -1;
        m->jobs[jb].t = t;
        m->jobs[jb].remaining = k;
    }
    for (unsigned e = 0; e < k; e++) {
        uint32_t s = (uint32_t)samp[chosen[e]];
        uint32_t l = m->sv[s].len; /* a server chosen twice (with replacement) sees its first task */
        if (measured)
            storq_hist_add(&m->aql, (double)l);
        if (m->track) {
            uint32_t x;
            if (node_alloc(m, &x))
                return -1;
            m->nodes[x].t = t;
            m->nodes[x].job = jb;
            m->nodes[x].next = NONE;
            if (l == 0)
                m->sv[s].head = x;
            else
                m->nodes[m->sv[s].tail].next = x;
            m->sv[s].tail = x;
        }
        m->sv[s].len = l + 1;
        if (smk_occ_up(&m->occ, (size_t)l + 1, t))
            return -1;
        if (l == 0)
            becomes_busy(m, s, t);
    }
    return 0;
}

static void depart(sim *m, double t)
{
    const smk_ctx *c = m->c;
    uint32_t s;
    if (c->service_exp)
        s = m->busy[storq_rng_below(&m->serv, m->B)];
    else
        s = m->heap[0].s;

    if (m->track) {
        uint32_t x = m->sv[s].head;
        node *nd = &m->nodes[x];
        uint32_t jb = nd->job;
        if (jb != NONE) {
            double soj = t - nd->t;
            storq_hist_add(&m->soj, soj);
            m->soj_sum += soj;
            m->soj_count++;
            if (jb == SINGLE) {
                storq_hist_add(&m->dly, soj);
                m->dly_sum += soj;
                m->dly_count++;
                m->measured_left--;
            } else if (--m->jobs[jb].remaining == 0) {
                job *J = &m->jobs[jb];
                double d = t - J->t;
                storq_hist_add(&m->dly, d);
                m->dly_sum += d;
                m->dly_count++;
                m->measured_left--;
                J->remaining = m->jfree;
                m->jfree = jb;
                m->jlive--;
            }
        }
        m->sv[s].head = nd->next;
        nd->next = m->nfree;
        m->nfree = x;
        m->nlive--;
    }

    uint32_t l = m->sv[s].len;
    smk_occ_down(&m->occ, l, t);
    m->sv[s].len = l - 1;
    if (c->service_exp) {
        if (l == 1) {
            uint32_t p = m->sv[s].pos, last = m->busy[--m->B];
            m->busy[p] = last;
            m->sv[last].pos = p;
        }
    } else if (l == 1) {
        hitem last = m->heap[--m->H];
        if (m->H > 0) {
            hset(m, 0, last);
            heap_down(m, 0);
        }
    } else {
        m->heap[0].t = t + storq_dist_sample(&c->service, &m->serv);
        heap_down(m, 0);
    }
}

static void sim_free(sim *m)
{
    free(m->sv);
    free(m->busy);
    free(m->heap);
    free(m->nodes);
    free(m->jobs);
    smk_occ_free(&m->occ);
}

int smk_run_servers(const smk_ctx *c, const storq_stream_key *key, storq_record *rec,
                    smk_mem_stats *mem, storq_error *err)
{
    sim m;
    memset(&m, 0, sizeof m);
    m.c = c;
    m.n = (uint32_t)c->n;
    m.nfree = m.jfree = NONE;
    m.track = c->mode == SMK_MODE_STEADY;
    size_t n = m.n;
    unsigned L = c->L;

    uint64_t *buf = malloc(sizeof *buf * 3 * L);
    unsigned *chosen = malloc(sizeof *chosen * c->k);
    m.sv = calloc(n, sizeof *m.sv);
    if (c->service_exp)
        m.busy = malloc(n * sizeof *m.busy);
    else
        m.heap = malloc(n * sizeof *m.heap);
    int bad = !buf || !chosen || !m.sv ||
              (c->service_exp ? !m.busy : !m.heap);
    if (bad || smk_occ_init(&m.occ, c->n, c->levels + 1)) {
        free(buf);
        free(chosen);
        sim_free(&m);
        return STORQ_RUNTIME_FAIL(err, "out of memory for %zu servers; --engine counts needs "
                                  "memory independent of n (exponential service)", n);
    }
    uint64_t *samp = buf, *lens = buf + L, *scratch = buf + 2 * L;

    storq_rng arr = storq_rng_stream(key, STORQ_STREAM_ARRIVALS);
    storq_rng rout = storq_rng_stream(key, STORQ_STREAM_ROUTING);
    m.serv = storq_rng_stream(key, STORQ_STREAM_SERVICE);
    if (m.track) {
        m.aql = storq_record_hist(rec, c->id_aql);
        m.soj = storq_record_hist(rec, c->id_sojourn);
        m.dly = storq_record_hist(rec, c->id_delay);
    }

    /* initial state (transient; steady runs start empty): server s holds #{i >= 1 : s < N_i}
     * tasks; busy servers enter the busy list (or draw their service) in server order */
    double t = 0.0;
    if (c->mode == SMK_MODE_TRANSIENT && c->start_depth > 0) {
        size_t i = c->start_depth;
        if (smk_occ_grow(&m.occ, i + 1))
            goto oom;
        for (size_t s = 0; s < n; s++) {
            while (i > 0 && c->start_N[i] <= s)
                i--;
            m.sv[s].len = (uint32_t)i;
        }
        for (size_t j = 1; j <= c->start_depth; j++) {
            m.occ.N[j] = c->start_N[j];
            m.occ.Q += c->start_N[j];
        }
        m.occ.depth = c->start_depth + 1;
        for (size_t s = 0; s < n; s++)
            if (m.sv[s].len > 0)
                becomes_busy(&m, (uint32_t)s, 0.0);
    }

    const double arate = (double)c->n * c->lambda;
    const int steady = c->mode == SMK_MODE_STEADY;
    const uint64_t total = c->warmup + c->arrivals;
    uint64_t a = 0, events = 0;
    size_t gj = 0;
    double T = 0.0;
    m.measured_left = c->arrivals;
    double ta = t + storq_rng_exp(&arr, arate);
    double td = INFINITY;
    if (c->service_exp && m.B > 0)
        td = t + storq_rng_exp(&m.serv, c->mu * (double)m.B);

    for (;;) {
        double tdep = c->service_exp ? td : (m.H > 0 ? m.heap[0].t : INFINITY);
        int is_dep = tdep < ta;
        double te = is_dep ? tdep : ta;
        if (steady) {
            if (a == total && m.measured_left == 0)
                break;
        } else {
            while (gj <= c->grid && smk_grid_time(c, gj) < te)
                smk_record_grid(c, &m.occ, rec, gj++);
            if (gj > c->grid)
                break;
        }
        t = te;
        if (is_dep) {
            depart(&m, t);
        } else {
            int measured = 0;
            if (steady) {
                if (a == c->warmup)
                    smk_occ_begin(&m.occ, t);
                if (a == total - 1) {
                    smk_occ_end(&m.occ, t);
                    T = t - m.occ.t0;
                }
                measured = a >= c->warmup;
            }
            if (arrive(&m, t, measured, &rout, samp, lens, scratch, chosen))
                goto oom;
            a++;
            ta = (!steady || a < total) ? t + storq_rng_exp(&arr, arate) : INFINITY;
        }
        events++;
        if (c->service_exp)
            td = m.B > 0 ? t + storq_rng_exp(&m.serv, c->mu * (double)m.B) : INFINITY;
    }

    if (steady) {
        smk_record_steady(c, &m.occ, T, rec);
        storq_record_scalar(rec, c->id_msojourn, m.soj_sum / (double)m.soj_count);
        storq_record_scalar(rec, c->id_mdelay, m.dly_sum / (double)m.dly_count);
    }
    rec->events = events;
    if (mem) {
        mem->bytes_servers = n * sizeof *m.sv +
                             (c->service_exp ? n * sizeof *m.busy : n * sizeof *m.heap);
        mem->bytes_tasks = (size_t)m.ncap * sizeof(node);
        mem->bytes_jobs = (size_t)m.jcap * sizeof(job);
        mem->bytes_levels = m.occ.cap * (sizeof *m.occ.N + 4 * sizeof(double));
        mem->peak_tasks = m.npeak;
        mem->peak_jobs = m.jpeak;
    }
    free(buf);
    free(chosen);
    sim_free(&m);
    return STORQ_OK;

oom:
    free(buf);
    free(chosen);
    sim_free(&m);
    return STORQ_RUNTIME_FAIL(err, "out of memory (or more than 2^31 tasks in system) "
                              "simulating %zu servers; --engine counts needs memory independent "
                              "of n (exponential service)", n);
}
