/* `supermarket`, engine `servers`: every server's queue, any service law
 * (docs/models/supermarket.md). The server records, the task and job pools and the heap of busy
 * servers are in servers_state.h; this file holds the events and the event loop.
 *
 * Departures:
 *  - exponential service (rate mu), B busy servers. The departure clock runs on standard
 *    exponentials E (SERVICE stream: one at the start, one at each departure): the next departure
 *    comes E / (mu B) after a departure, or after the arrival that ends an idle period (B = 0).
 *    An arrival that changes B to B' rescales the residual time R to R B / B' (still exactly
 *    Exp(mu B'), by memorylessness and scaling); one that leaves B unchanged keeps it. So one
 *    logarithm per event.
 *    Which server departs (EXTRA stream), uniform over the busy ones: while 2B < n ("list mode")
 *    busy[below(B)], the busy servers kept in an array (appended when a server becomes busy,
 *    swap-removed when it becomes idle); once 2B >= n ("rejection mode", until 4B < n, when the
 *    list is rebuilt in increasing server id) the first busy server in a sequence of uniform
 *    candidates below(n), drawn SMK_CANDIDATES ahead so that their records are prefetched long
 *    before their departure (n/B <= 4 draws per departure on average in this mode, 1.1 at a load of
 *    0.9). O(1) per event (a rebuild, O(n), comes at least n/4 departures after the switch to
 *    rejection mode: amortised O(1)).
 *  - other laws: a service time is drawn (SERVICE stream) when a task enters service, and the busy
 *    servers sit in the heap of servers_state.h. O(log n) per departure and per start of service.
 * An arrival costs O(L) (plus O(log n) per task that starts service, other laws only), never O(n).
 * The L servers of an arrival are drawn (ROUTING stream, same draws in the same order) AHEAD
 * arrivals early and their lengths prefetched, then GUESS arrivals early the record of the one it
 * would join; departure candidates are drawn SMK_CANDIDATES early, their lengths and records
 * prefetched. This hides most of the memory latency of random servers.
 * Exponential variates (inter-arrival times, the E above) are drawn in batches of XBATCH, away
 * from the event loop (same values, same order). */
#include "servers_state.h"
#include "meanfield.h"
#include "memory.h"
#include "stop.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define AHEAD 8 /* arrivals whose servers are drawn (and their lengths prefetched) ahead */
#define GUESS 4 /* arrivals ahead whose likely chosen server's record is prefetched */
enum { SMK_L2_WITHOUT = 1, SMK_L2_WITH = 2 }; /* the L = 2 instances of the event loop */

_Static_assert(GUESS < AHEAD && AHEAD < RING && (RING & (RING - 1)) == 0, "the sample ring");

/* ---- events ---- */

/* A task joins server s, which held l tasks, at time t: if l = 0 the server becomes busy (enters
 * the busy list, or draws its service time). Exponential service counts B without a branch on l
 * (whether the queue was empty is a coin toss the branch predictor cannot learn). */
static ALWAYS_INLINE void maybe_busy(sim *m, uint32_t s, uint32_t l, double t, const int ex)
{
    if (ex) {
        if (!m->rmode && l == 0)
            m->busy[m->B] = s;
        m->B += l == 0;
    } else if (l == 0) {
        heap_push(m, s, t + storq_dist_sample(&m->c->service, &m->serv));
    }
}

/* c ? a : b without a branch (c is unpredictable) */
static ALWAYS_INLINE double select_double(int c, double a, double b)
{
    uint64_t x, y, mask = -(uint64_t)(c != 0);
    memcpy(&x, &a, sizeof x);
    memcpy(&y, &b, sizeof y);
    x = (x & mask) | (y & ~mask);
    memcpy(&a, &x, sizeof a);
    return a;
}

/* The histograms as the event loop fills them: handles whose sum, min and max point to the loop's
 * own variables (which can stay in registers; written back to the record at the end) instead of
 * the record's; the bins are the record's. Same values in the same order: the same results. */
typedef struct hists {
    storq_hist aql, soj, dly;
} hists;

/* Task x joins server s at time t (measured: it arrived in the window). */
static ALWAYS_INLINE int enqueue(sim *m, hists *H, uint32_t s, double t, int measured, task x,
                                 const int ex, const int tr)
{
    uint32_t l = len_of(m, s, tr); /* a server chosen twice (with replacement) sees its first task */
    if (measured)
        storq_hist_add(&H->aql, (double)l);
    if (tr) {
        srv *p = srv_of(m, s);
        task *f = &p->q[SMK_INLINE - 1];
        if (l < SMK_INLINE) {
            p->q[l] = x;
        } else if (l == SMK_INLINE) { /* the queue becomes long: its last task and x to a block */
            uint32_t b;
            if (block_alloc(m, 1, &b))
                return -1;
            m->arena[b] = *f;
            m->arena[b + 1] = x;
            f->far.blk = b;
            f->far.lc = (SMK_INLINE + 1) | 1u << LEN_BITS;
        } else {
            uint32_t j = l - (SMK_INLINE - 1); /* tasks in the block */
            if (j == 1u << (f->far.lc >> LEN_BITS) && block_grow(m, p, j))
                return -1;
            m->arena[f->far.blk + j] = x;
            f->far.lc++; /* the length, in the low bits */
        }
        set_len(m, s, l + 1);
    } else {
        ((uint32_t *)m->base)[s] = l + 1;
    }
    if (smk_occ_up(&m->occ, (size_t)l + 1, t))
        return -1;
    maybe_busy(m, s, l, t, ex);
    return 0;
}

static ALWAYS_INLINE int arrive(sim *m, hists *H, double t, int measured, const uint64_t *samp,
                                uint64_t *lens, uint64_t *scratch, unsigned *chosen,
                                const int ex, const int tr, const int k1, const int l2)
{
    const smk_ctx *c = m->c;
    unsigned L = l2 ? 2 : c->L, k = k1 ? 1 : c->k;
    if (k1) {
        /* the k = 1 case of storq_smk_select_k: the first entry of least length */
        uint32_t best = (uint32_t)samp[0];
        uint32_t lbest = len_of(m, best, tr);
        for (unsigned j = 1; j < L; j++) {
            uint32_t s = (uint32_t)samp[j];
            uint32_t l = len_of(m, s, tr);
            if (l < lbest) {
                best = s;
                lbest = l;
            }
        }
        return enqueue(m, H, best, t, measured, (task){.t = measured ? t : -1.0}, ex, tr);
    }
    for (unsigned j = 0; j < L; j++)
        lens[j] = len_of(m, (uint32_t)samp[j], tr);
    storq_smk_select_k(lens, L, k, scratch, chosen);

    uint32_t jb = NONE;
    if (measured) {
        if (job_alloc(m, &jb))
            return -1;
        m->jobs[jb].t = t;
        m->jobs[jb].remaining = k;
    }
    for (unsigned e = 0; e < k; e++)
        if (enqueue(m, H, (uint32_t)samp[chosen[e]], t, measured, (task){.job = jb}, ex, tr))
            return -1;
    return 0;
}

/* Exponential service, rejection mode: a new candidate (a uniform server) in slot i of the FIFO,
 * its record prefetched so that it is at hand when its turn comes. */
static ALWAYS_INLINE void draw_cand(sim *m, unsigned i, const int tr)
{
    m->cand[i] = (uint32_t)storq_rng_below(&m->pick, m->n);
    prefetch_server(m, m->cand[i], tr);
}

/* Exponential service, after the initial state and after an arrival: enter rejection mode once
 * 2B >= n, drawing the first SMK_CANDIDATES candidates (the busy list is no longer kept). */
static ALWAYS_INLINE void mode_after_arrival(sim *m, const int tr)
{
    if (!m->rmode && UNLIKELY(2 * (uint64_t)m->B >= m->n)) {
        m->rmode = 1;
        m->ch = 0;
        for (unsigned i = 0; i < SMK_CANDIDATES; i++)
            draw_cand(m, i, tr);
    }
}

/* Exponential service, after a departure: leave rejection mode once 4B < n, rebuilding the busy
 * list in increasing server id (the candidates drawn ahead are dropped). */
static ALWAYS_INLINE void mode_after_departure(sim *m, const int tr)
{
    if (m->rmode && UNLIKELY(4 * (uint64_t)m->B < m->n)) {
        uint32_t j = 0;
        for (uint32_t s = 0; s < m->n; s++)
            if (len_of(m, s, tr) > 0)
                m->busy[j++] = s;
        m->rmode = 0;
    }
}

/* A measured task, arrived at ta (of job slot jb, or NONE if k = 1), ends its service at t. */
static ALWAYS_INLINE void task_done(sim *m, hists *H, double t, double ta, uint32_t jb)
{
    double soj = t - ta;
    storq_hist_add(&H->soj, soj);
    m->soj_sum += soj;
    m->soj_count++;
    if (jb == NONE) {
        if (!m->dly_is_soj) {
            storq_hist_add(&H->dly, soj);
            m->dly_sum += soj;
            m->dly_count++;
        }
        m->measured_left--;
    } else if (--m->jobs[jb].remaining == 0) {
        job *J = &m->jobs[jb];
        storq_hist_add(&H->dly, soj); /* its last task: the job's delay is this sojourn */
        m->dly_sum += soj;
        m->dly_count++;
        m->measured_left--;
        J->remaining = m->jfree;
        m->jfree = jb;
    }
}

/* The task in service at server s, which holds l >= 1 tasks, leaves; the others move up one
 * slot. */
static ALWAYS_INLINE task dequeue(sim *m, uint32_t s, uint32_t l)
{
    srv *p = srv_of(m, s);
    task x = p->q[0];
    task q1 = p->q[1], q2 = p->q[2]; /* loads first: no memmove call, no branch on l */
    p->q[0] = q1;
    if (LIKELY(l <= SMK_INLINE)) {
        p->q[1] = q2;
    } else { /* long: the block's first task moves into the record */
        uint32_t j = l - (SMK_INLINE - 1); /* tasks in the block, >= 2 */
        task *b = &m->arena[q2.far.blk];
        p->q[1] = b[0];
        if (j == 2) { /* short again: the block's last task too, and the block is given back */
            p->q[2] = b[1];
            block_free(m, q2.far.blk, q2.far.lc >> LEN_BITS);
        } else {
            for (uint32_t i = 1; i < j; i++)
                b[i - 1] = b[i];
            p->q[2].far.lc = q2.far.lc - 1;
        }
    }
    set_len(m, s, l - 1);
    return x;
}

static ALWAYS_INLINE void depart(sim *m, hists *H, double t, const int ex, const int tr,
                                 const int k1)
{
    const smk_ctx *c = m->c;
    uint32_t s, l, idx = 0;
    if (!ex) {
        s = m->heap[0].s;
        l = len_of(m, s, tr);
    } else if (m->rmode) {
        /* uniform servers, rejected while idle: uniform over the busy ones. Each candidate
         * taken from the head of the FIFO is replaced at its tail by a new draw. The candidates
         * are independent of everything else, so drawing them early changes nothing. */
        do {
            unsigned i = m->ch;
            s = m->cand[i];
            draw_cand(m, i, tr);
            m->ch = (i + 1) % SMK_CANDIDATES;
            l = len_of(m, s, tr);
        } while (l == 0);
    } else {
        idx = (uint32_t)storq_rng_below(&m->pick, m->B);
        s = m->busy[idx];
        l = len_of(m, s, tr);
    }

    if (tr) {
        task x = dequeue(m, s, l);
        if (k1) {
            if (x.t >= 0.0) /* measured */
                task_done(m, H, t, x.t, NONE);
        } else if (x.job != NONE) {
            task_done(m, H, t, m->jobs[x.job].t, (uint32_t)x.job);
        }
    } else {
        ((uint32_t *)m->base)[s] = l - 1;
    }

    smk_occ_down(&m->occ, l, t);
    if (ex) {
        m->B -= l == 1;
        if (!m->rmode && l == 1)
            m->busy[idx] = m->busy[m->B];
    } else if (l == 1) {
        hitem last = m->heap[--m->H];
        if (m->H > 0) {
            m->heap[0] = last;
            heap_down(m, 0);
        }
    } else {
        m->heap[0].t = t + storq_dist_sample(&c->service, &m->serv);
        heap_down(m, 0);
    }
}

/* The L servers of an arrival AHEAD arrivals ahead (ROUTING stream), their lengths prefetched. */
static ALWAYS_INLINE void draw_sample(const sim *m, storq_rng *rout, uint64_t *samp, const int tr,
                                      const int l2)
{
    const smk_ctx *c = m->c;
    unsigned L = l2 ? 2 : c->L;
    if (l2 == SMK_L2_WITH) {
        samp[0] = storq_rng_below(rout, m->n);
        samp[1] = storq_rng_below(rout, m->n);
    } else if (l2) {
        storq_rng_sample_distinct_fast(rout, m->n, 2, samp);
    } else if (c->with_replacement) {
        for (unsigned j = 0; j < L; j++)
            samp[j] = storq_rng_below(rout, m->n);
    } else {
        storq_rng_sample_distinct_fast(rout, m->n, L, samp);
    }
    for (unsigned j = 0; j < L; j++)
        prefetch_length(m, (uint32_t)samp[j], tr);
}

/* Steady mode, GUESS arrivals ahead, when the sample's lengths have come: prefetch the record of
 * the server the arrival would join now (k = 1; queues seldom change in between at large n, and a
 * wrong guess costs only a miss), or of all L servers (k >= 2). */
static ALWAYS_INLINE void guess_chosen(const sim *m, const uint64_t *samp, const int tr,
                                       const int k1, const int l2)
{
    if (!tr)
        return;
    unsigned L = l2 ? 2 : m->c->L;
    if (!k1) {
        for (unsigned j = 0; j < L; j++)
            prefetch_record(m, (uint32_t)samp[j]);
        return;
    }
    uint32_t best = (uint32_t)samp[0], lbest = m->len8[best];
    for (unsigned j = 1; j < L; j++) {
        uint32_t s = (uint32_t)samp[j], l = m->len8[s];
        best = l < lbest ? s : best;
        lbest = l < lbest ? l : lbest;
    }
    prefetch_record(m, best);
}

/* ---- the event loop ---- */


/* The next inter-arrival time. They are drawn in batches, away from the event loop, where the
 * logarithms pipeline well; the values and their order are those of one draw at a time. */
static ALWAYS_INLINE double next_interarrival(loopio *io, double arate)
{
    if (UNLIKELY(io->xi == XBATCH)) {
        for (unsigned i = 0; i < XBATCH; i++)
            io->xa[i] = storq_rng_exp(&io->arr, arate);
        io->xi = 0;
    }
    return io->xa[io->xi++];
}

/* Exponential service: the next standard exponential of the departure clock, batched likewise. */
static ALWAYS_INLINE double next_service_exp(sim *m)
{
    if (UNLIKELY(m->xsi == XBATCH)) {
        for (unsigned i = 0; i < XBATCH; i++)
            m->xs[i] = storq_rng_exp(&m->serv, 1.0);
        m->xsi = 0;
    }
    return m->xs[m->xsi++];
}

/* ex: exponential service; tr: steady mode (FIFOs tracked); k1: k = 1; l2: L = 2 sampled without
 * replacement with n >= 4 (SMK_L2_WITHOUT), or with replacement (SMK_L2_WITH), else 0. Constants
 * in the specialised instances below, the actual values in the generic one. */
static ALWAYS_INLINE int run_loop(sim *m, loopio *io, const int ex, const int tr, const int k1,
                                  const int l2)
{
    const smk_ctx *c = m->c;
    const double arate = (double)c->n * c->lambda;
    const uint64_t total = c->run.warmup + c->run.arrivals, warmup = c->run.warmup;
    const double mu = c->mu;
    uint64_t a = 0, events = 0;
    size_t gj = 0;
    double t = 0.0;
    io->xi = XBATCH;
    double ta = t + next_interarrival(io, arate);
    double td = INFINITY;
    if (ex) {
        mode_after_arrival(m, tr);
        m->xsi = XBATCH;
        double E = next_service_exp(m);
        if (m->B > 0)
            td = t + E / (mu * (double)m->B);
        else
            m->Eidle = E;
    }
    const unsigned L = l2 ? 2 : c->L;
    unsigned r = 0; /* the next arrival's servers are in ring slot r % RING */
    for (unsigned j = 0; j < AHEAD; j++)
        draw_sample(m, &io->rout, io->ring + (size_t)j * L, tr, l2);
    for (unsigned j = 0; j < GUESS; j++)
        guess_chosen(m, io->ring + (size_t)j * L, tr, k1, l2);
    hists H = {m->aql, m->soj, m->dly};
    double aql_sum = 0, aql_min = 0, aql_max = 0, soj_sum = 0, soj_min = 0, soj_max = 0;
    double dly_sum = 0, dly_min = 0, dly_max = 0;
    if (tr) {
        aql_sum = *H.aql.sum, aql_min = *H.aql.min, aql_max = *H.aql.max;
        soj_sum = *H.soj.sum, soj_min = *H.soj.min, soj_max = *H.soj.max;
        dly_sum = *H.dly.sum, dly_min = *H.dly.min, dly_max = *H.dly.max;
        H.aql.sum = &aql_sum, H.aql.min = &aql_min, H.aql.max = &aql_max;
        H.soj.sum = &soj_sum, H.soj.min = &soj_min, H.soj.max = &soj_max;
        H.dly.sum = &dly_sum, H.dly.min = &dly_min, H.dly.max = &dly_max;
    }
    /* steady mode: the next arrival that begins, halves or ends the window (a = warmup, half,
     * total - 1) */
    const uint64_t half = smk_half_arrival(warmup, c->run.arrivals);
    uint64_t mark = warmup;
    int measured = 0, last = 0;

    for (;;) {
        if (storq_stop_due(events))
            return 1; /* the caller says why */
        double tdep = ex ? td : (m->H > 0 ? m->heap[0].t : INFINITY);
        int is_dep = tdep < ta;
        double te = is_dep ? tdep : ta;
        if (tr) {
            if (a == total && m->measured_left == 0)
                break;
        } else {
            while (gj <= c->grid && smk_grid_time(c, gj) < te)
                storq_smk_record_grid(c, &m->occ, io->rec, gj++);
            if (gj > c->grid)
                break;
        }
        t = te;
        uint32_t Bold = m->B;
        if (is_dep) {
            /* exponential service: the next departure time for both outcomes (B unchanged or one
             * less) is computed before this departure's server is known, so that the division is
             * off the path to the next event's choice */
            double E = 0.0, td_same = 0.0, td_less = 0.0;
            if (ex) {
                E = next_service_exp(m);
                td_same = t + E / (mu * (double)Bold);
                td_less = t + E / (mu * (double)(Bold - 1)); /* unused if Bold = 1 */
            }
            depart(m, &H, t, ex, tr, k1);
            if (ex) {
                mode_after_departure(m, tr);
                if (UNLIKELY(m->B == 0)) {
                    td = INFINITY;
                    m->Eidle = E;
                } else {
                    td = select_double(m->B == Bold, td_same, td_less);
                }
            }
        } else {
            if (tr && UNLIKELY(a == mark)) {
                if (a == warmup) {
                    storq_smk_occ_begin(&m->occ, t);
                    measured = 1;
                }
                if (a == half)
                    storq_smk_occ_half(&m->occ, t);
                if (a == total - 1) {
                    storq_smk_occ_end(&m->occ, t);
                    io->T = t - m->occ.t0;
                    last = 1;
                }
                mark = a < half && half < total - 1 ? half
                       : a < total - 1             ? total - 1
                                                   : UINT64_MAX;
            }
            double ta_next = last ? INFINITY : t + next_interarrival(io, arate);
            const uint64_t *samp = io->ring + (size_t)(r % RING) * L;
            draw_sample(m, &io->rout, io->ring + (size_t)((r + AHEAD) % RING) * L, tr, l2);
            guess_chosen(m, io->ring + (size_t)((r + GUESS) % RING) * L, tr, k1, l2);
            r++;
            /* k = 1: B can only grow by one; the rescaled residual computed ahead likewise */
            double td_more = ex && k1 ? t + (td - t) * (double)Bold / (double)(Bold + 1) : 0.0;
            if (arrive(m, &H, t, measured, samp, io->lens, io->scratch, io->chosen, ex, tr, k1, l2))
                return -1;
            a++;
            ta = ta_next;
            if (ex) {
                uint32_t B = m->B;
                mode_after_arrival(m, tr); /* acts only when B has grown */
                if (UNLIKELY(Bold == 0))
                    td = t + m->Eidle / (mu * (double)B);
                else if (k1) /* B changed: the residual time scaled by Bold / B */
                    td = select_double(B != Bold, td_more, td);
                else
                    td = select_double(B != Bold, t + (td - t) * (double)Bold / (double)B, td);
            }
        }
        events++;
    }
    if (tr) {
        *m->aql.sum = aql_sum, *m->aql.min = aql_min, *m->aql.max = aql_max;
        *m->soj.sum = soj_sum, *m->soj.min = soj_min, *m->soj.max = soj_max;
        *m->dly.sum = dly_sum, *m->dly.min = dly_min, *m->dly.max = dly_max;
    }
    io->events = events;
    return 0;
}

static int loop_exp_steady_k1_l2(sim *m, loopio *io)
{
    return run_loop(m, io, 1, 1, 1, SMK_L2_WITHOUT);
}

static int loop_exp_steady_k1_l2_with(sim *m, loopio *io)
{
    return run_loop(m, io, 1, 1, 1, SMK_L2_WITH);
}

static int loop_exp_steady_k1(sim *m, loopio *io)
{
    return run_loop(m, io, 1, 1, 1, 0);
}

static int loop_exp_steady(sim *m, loopio *io)
{
    return run_loop(m, io, 1, 1, 0, 0);
}

static int loop_generic(sim *m, loopio *io)
{
    return run_loop(m, io, m->c->service_exp, m->track, m->c->k == 1, 0);
}

/* The event loop for this replication's case: an instance specialised at compile time where one
 * applies (exponential service, k = 1, L = 2), else the generic one. 0, 1 stopped, -1 out of
 * memory. */
int storq_smk_servers_loop(sim *m, loopio *io)
{
    const smk_ctx *c = m->c;
    const size_t n = m->n;
    if (c->service_exp && m->track && c->k == 1 && c->L == 2 && !c->with_replacement && n >= 4)
        return loop_exp_steady_k1_l2(m, io);
    else if (c->service_exp && m->track && c->k == 1 && c->L == 2 && c->with_replacement)
        return loop_exp_steady_k1_l2_with(m, io);
    else if (c->service_exp && m->track && c->k == 1)
        return loop_exp_steady_k1(m, io);
    else if (c->service_exp && m->track)
        return loop_exp_steady(m, io);
    else
        return loop_generic(m, io);
}
