/* `supermarket`, engine `counts`: exponential service only. Servers are exchangeable, so the
 * vector N_i (queues with >= i tasks) is a Markov chain on its own; memory O(levels), any n.
 *
 * A sampled rank r names the server at position r when servers are sorted by decreasing queue
 * length, so its length is the number of i >= 1 with r < N_i (a branch-free binary search over
 * the levels: O(log levels)). Arrivals: L ranks (without replacement: the toolkit's distinct
 * sample; with: below(n)), the k shortest chosen as in the servers engine, each chosen server's
 * length + 1 (a server chosen twice under sampling with replacement gets +1 then +1); for k = 1
 * the shortest is the largest rank, so one search.
 *
 * Steady mode (run_steady): the chain uniformized at the constant rate n (lambda + mu) -- an
 * arrival with probability lambda / (lambda + mu), else a potential departure at a uniform rank --
 * with step j at time j / (n (lambda + mu)), the mean of its real time: every time integral the
 * engine reports is replaced by its conditional expectation given the steps (unbiased, and no
 * logarithm, no clock). Transient mode (run_clock) needs real times for its grid: the departure
 * clock of the servers engine with B = N_1 busy servers -- standard exponentials E (SERVICE
 * stream), one at the start and one at each departure; the next departure comes E / (mu B) after
 * a departure (or after the arrival that ends an idle period), and an arrival that changes B to B'
 * scales the residual time by B / B' (memorylessness) -- so there is no redraw per event; the
 * departing server is rank below(N_1) (EXTRA stream). Exponentials are drawn in batches (same
 * values, same order). O(L log levels) per arrival, O(log levels) per departure. */
#include "internal.h"
#include "stop.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define XBATCH 64 /* exponential variates drawn at a time */
#define ALWAYS_INLINE inline __attribute__((always_inline))
#define UNLIKELY(x) __builtin_expect(!!(x), 0)
#define LIKELY(x) __builtin_expect(!!(x), 1)

/* The length of the server at rank r: the largest i < depth with N_i > r (N_0 = n > r), i.e.
 * the number of i >= 1 with N_i > r, the levels being non-increasing. Up to 15 non-empty levels
 * (N has at least 16 entries, zero from depth on): that count, fifteen independent comparisons,
 * so the next event does not wait on a chain of dependent loads. Deeper: halving the range
 * without a branch finds it in log2(depth) steps whatever the data. */
static ALWAYS_INLINE uint64_t rank_length(const smk_occ *o, uint64_t r)
{
    const uint64_t *N = o->N;
    if (LIKELY(o->depth <= 16)) {
        uint64_t c0 = (uint64_t)(N[1] > r) + (N[2] > r) + (N[3] > r) + (N[4] > r);
        uint64_t c1 = (uint64_t)(N[5] > r) + (N[6] > r) + (N[7] > r) + (N[8] > r);
        uint64_t c2 = (uint64_t)(N[9] > r) + (N[10] > r) + (N[11] > r) + (N[12] > r);
        uint64_t c3 = (uint64_t)(N[13] > r) + (N[14] > r) + (N[15] > r);
        return (c0 + c1) + (c2 + c3);
    }
    size_t base = 0, len = o->depth;
    while (len > 1) {
        size_t half = len / 2;
        base = N[base + half] > r ? base + half : base;
        len -= half;
    }
    return base;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* A batch of XBATCH exponentials of the given rate, in stream order. */
static void exp_batch(storq_rng *rng, double rate, double *x)
{
    for (unsigned i = 0; i < XBATCH; i++)
        x[i] = storq_rng_exp(rng, rate);
}

typedef struct cstate {
    const smk_ctx *c;
    smk_occ o;
    storq_rng arr, rout, serv, pick;
    double xa[XBATCH], xs[XBATCH];
    unsigned xai, xsi;
    uint64_t *samp, *lens, *scratch, *dup;
    unsigned *chosen;
    storq_hist aql;
    /* arrivals by the queue length they joined, flushed into the histogram aql at the end of the
     * window (its values are integers: their sum is exact in any order) */
    uint64_t *joined;
    size_t joined_cap;
    storq_record *rec;
    uint64_t events;
    double T;
} cstate;

static ALWAYS_INLINE double next_arrival_gap(cstate *s, double arate)
{
    if (UNLIKELY(s->xai == XBATCH)) {
        exp_batch(&s->arr, arate, s->xa);
        s->xai = 0;
    }
    return s->xa[s->xai++];
}

static ALWAYS_INLINE double next_service_exp(cstate *s)
{
    if (UNLIKELY(s->xsi == XBATCH)) {
        exp_batch(&s->serv, 1.0, s->xs);
        s->xsi = 0;
    }
    return s->xs[s->xsi++];
}

static int grow_joined(cstate *s, size_t need)
{
    size_t cap = s->joined_cap ? s->joined_cap : 16;
    while (cap < need)
        cap *= 2;
    uint64_t *p = realloc(s->joined, sizeof *p * cap);
    if (!p)
        return -1;
    memset(p + s->joined_cap, 0, sizeof *p * (cap - s->joined_cap));
    s->joined = p;
    s->joined_cap = cap;
    return 0;
}

/* A task joins a queue of length l: counted in joined[l]. */
static ALWAYS_INLINE int count_joined(cstate *s, uint64_t l)
{
    if (UNLIKELY(l >= s->joined_cap) && grow_joined(s, (size_t)l + 1))
        return -1;
    s->joined[l]++;
    return 0;
}

/* The window's joined lengths into the arrival-queue-length histogram, as storq_hist_add would
 * have put them one by one. */
static void flush_joined(cstate *s)
{
    for (size_t l = 0; l < s->joined_cap; l++)
        if (s->joined[l] > 0)
            storq_hist_add_n(&s->aql, (double)l, s->joined[l]);
}

/* One arrival at time t: the L ranks, the k shortest, their lengths + 1 (each length counted in
 * joined). k1 and l2 (L = 2 without replacement) are constants in the specialised loops. */
static ALWAYS_INLINE int arrive(cstate *s, double t, const int k1, const int l2)
{
    const smk_ctx *c = s->c;
    smk_occ *o = &s->o;
    unsigned L = l2 ? 2 : c->L, k = k1 ? 1 : c->k;
    uint64_t *samp = s->samp, *lens = s->lens;
    if (l2)
        storq_rng_sample_distinct_fast(&s->rout, c->n, 2, samp);
    else if (c->with_replacement)
        for (unsigned j = 0; j < L; j++)
            samp[j] = storq_rng_below(&s->rout, c->n);
    else
        storq_rng_sample_distinct_fast(&s->rout, c->n, L, samp);
    if (k1) {
        /* the k = 1 case of storq_smk_select_k: the least length, that of the largest rank
         * (lengths do not increase with the rank), so one search instead of L */
        uint64_t rmax = samp[0];
        for (unsigned j = 1; j < L; j++)
            rmax = samp[j] > rmax ? samp[j] : rmax;
        uint64_t best = rank_length(o, rmax);
        if (count_joined(s, best))
            return -1;
        return smk_occ_up(o, (size_t)best + 1, t);
    }
    for (unsigned j = 0; j < L; j++)
        lens[j] = rank_length(o, samp[j]);
    storq_smk_select_k(lens, L, k, s->scratch, s->chosen);
    /* dup[e]: earlier chosen entries naming the same rank (with replacement only) */
    uint64_t *dup = s->dup, *scratch = s->scratch;
    memset(dup, 0, sizeof *dup * k);
    if (c->with_replacement) {
        for (unsigned e = 0; e < k; e++)
            scratch[e] = (samp[s->chosen[e]] << 11) | e;
        qsort(scratch, k, sizeof *scratch, cmp_u64);
        for (unsigned e = 1; e < k; e++)
            if ((scratch[e] >> 11) == (scratch[e - 1] >> 11))
                dup[scratch[e] & 0x7ff] = dup[scratch[e - 1] & 0x7ff] + 1;
    }
    for (unsigned e = 0; e < k; e++) {
        uint64_t l = lens[s->chosen[e]] + dup[e];
        if (count_joined(s, l) || smk_occ_up(o, (size_t)l + 1, t))
            return -1;
    }
    return 0;
}

/* Transient mode: the event loop with the departure clock (the grid needs real times). Returns
 * 0, 1 when a stop was asked, -1 out of memory. */
static int run_clock(cstate *s)
{
    const smk_ctx *c = s->c;
    smk_occ *o = &s->o;
    const double arate = (double)c->n * c->lambda, mu = c->mu;
    const int k1 = c->k == 1;
    uint64_t events = 0;
    size_t gj = 0;
    double t = 0.0;
    s->xai = s->xsi = XBATCH;
    double ta = t + next_arrival_gap(s, arate);
    double E = next_service_exp(s), td = INFINITY, Eidle = 0.0;
    if (o->N[1] > 0)
        td = t + E / (mu * (double)o->N[1]);
    else
        Eidle = E;

    for (;;) {
        if (storq_stop_due(events))
            return 1;
        int is_dep = td < ta;
        double te = is_dep ? td : ta;
        while (gj <= c->grid && smk_grid_time(c, gj) < te)
            storq_smk_record_grid(c, o, s->rec, gj++);
        if (gj > c->grid)
            break;
        t = te;
        uint64_t Bold = o->N[1];
        if (is_dep) {
            /* the next departure time for both outcomes (B unchanged, or one less when the rank
             * is that of a queue of one task, r >= N_2), off the path to the next event */
            E = next_service_exp(s);
            double td_same = t + E / (mu * (double)Bold);
            double td_less = t + E / (mu * (double)(Bold - 1)); /* unused if Bold = 1 */
            uint64_t r = storq_rng_below(&s->pick, Bold);
            int less = r >= o->N[2];
            smk_occ_down(o, rank_length(o, r), t);
            if (UNLIKELY(Bold == 1 && less)) {
                td = INFINITY;
                Eidle = E;
            } else {
                td = less ? td_less : td_same;
            }
        } else {
            if (arrive(s, t, k1, 0))
                return -1;
            ta = t + next_arrival_gap(s, arate);
            uint64_t B = o->N[1];
            if (UNLIKELY(Bold == 0))
                td = t + Eidle / (mu * (double)B);
            else if (B != Bold) /* the residual time scaled by Bold / B */
                td = t + (td - t) * (double)Bold / (double)B;
        }
        events++;
    }
    s->events = events;
    return 0;
}

/* The window's marks at arrival a (a == *mark), at time t: its start (also where the joined
 * lengths start counting), its middle, its end; then the next mark. */
static void window_marks(cstate *s, uint64_t a, double t, uint64_t *mark)
{
    const smk_ctx *c = s->c;
    smk_occ *o = &s->o;
    const uint64_t total = c->run.warmup + c->run.arrivals, warmup = c->run.warmup;
    const uint64_t half = smk_half_arrival(warmup, c->run.arrivals);
    if (a == warmup) {
        storq_smk_occ_begin(o, t);
        memset(s->joined, 0, sizeof *s->joined * s->joined_cap);
    }
    if (a == half)
        storq_smk_occ_half(o, t);
    if (a == total - 1) {
        storq_smk_occ_end(o, t);
        s->T = t - o->t0;
    }
    *mark = a < half && half < total - 1 ? half : a < total - 1 ? total - 1 : UINT64_MAX;
}

/* Steady mode: the chain uniformized. Steps come at the constant rate n (lambda + mu); a step is
 * an arrival with probability lambda / (lambda + mu) (a uniform of the ARRIVALS stream), else a
 * potential departure at the server of rank below(n) (ROUTING stream, like the arrivals' ranks),
 * a real one when that server is busy. The occupancy vector after each step is the same Markov chain as in the clock loop,
 * and step j is given the time j / (n (lambda + mu)): the mean of the real time of the j-th step,
 * so every time integral of the window (occupancy sums, window length, its halves) is its
 * conditional expectation given the steps -- no clock, no logarithm. Returns as run_clock. */
static ALWAYS_INLINE int run_steady(cstate *s, const int k1, const int l2, const int jsq2)
{
    const smk_ctx *c = s->c;
    smk_occ *o = &s->o;
    const uint64_t n = c->n;
    const double step_time = 1.0 / ((double)n * (c->lambda + c->mu));
    /* uniform(x) = (x >> 11) 2^-53 < p exactly when x >> 11 < ceil(p 2^53): the same test on
     * integers */
    const uint64_t arrival_below =
        (uint64_t)ceil(ldexp(c->lambda / (c->lambda + c->mu), 53));
    const uint64_t total = c->run.warmup + c->run.arrivals;
    uint64_t a = 0, events = 0, mark = c->run.warmup;
    double steps = 0.0; /* a whole number, exact below 2^53 */
    storq_rng arr = s->arr, rout = s->rout; /* locals: registers */

    for (;;) {
        if (storq_stop_due(events))
            return 1;
        steps += 1.0;
        const double t = steps * step_time;
        const int is_arrival = (storq_rng_next(&arr) >> 11) < arrival_below;
        if (jsq2) {
            /* The step without a branch on its kind: the first two ROUTING draws are made on a
             * copy of the stream, an arrival's two ranks or, from the first, a departure's rank;
             * the stream then moves on by two draws or by one, so the draws are those of the
             * plain step below. A draw Lemire's method would reject, or a repeated rank without
             * replacement (chance about 1/n), leaves the step to that plain code. */
            storq_rng rout1 = rout;
            storq_u128 m1 = (storq_u128)storq_rng_next(&rout1) * n;
            storq_rng rout2 = rout1;
            storq_u128 m2 = (storq_u128)storq_rng_next(&rout2) * n;
            uint64_t r1 = (uint64_t)(m1 >> 64), r2 = (uint64_t)(m2 >> 64);
            int plain = ((uint64_t)m1 < n) | ((uint64_t)m2 < n);
            if (jsq2 == 2)
                plain |= r1 == r2;
            if (LIKELY(!plain)) {
                const storq_u128 two = (storq_u128)0 - (storq_u128)is_arrival;
                rout.state = (rout2.state & two) | (rout1.state & ~two);
                /* an arrival joins the shortest, the largest rank; a departure leaves rank r1 */
                const uint64_t rmax = r2 > r1 ? r2 : r1;
                const uint64_t pick_max = (uint64_t)0 - (uint64_t)is_arrival; /* a mask, no branch */
                const uint64_t r = (rmax & pick_max) | (r1 & ~pick_max);
                const uint64_t l = rank_length(o, r);
                const size_t level = (size_t)l + (size_t)is_arrival;
                const uint64_t up = (uint64_t)is_arrival, down = (uint64_t)(!is_arrival & (l > 0));
                if (UNLIKELY(is_arrival & (a == mark)))
                    window_marks(s, a, t, &mark);
                if (UNLIKELY(level >= o->cap || l >= s->joined_cap) &&
                    (storq_smk_occ_grow(o, level + 1) || grow_joined(s, level + 1)))
                    return -1;
                /* an idle server's potential departure touches level 0, where N_0 - c_0 = 0 */
                if (o->measuring)
                    smk_occ_touch_(o, level, t);
                const uint64_t before = o->N[level], after = before + up - down;
                o->N[level] = after;
                o->Q += up - down;
                s->joined[l] += up;
                if (UNLIKELY(before == 0 || after == 0))
                    o->depth = after ? level + 1 : level + 1 == o->depth ? level : o->depth;
                events += up | down;
                a += up;
                if (UNLIKELY(a == total))
                    break;
                continue;
            }
        }
        if (is_arrival) {
            if (UNLIKELY(a == mark))
                window_marks(s, a, t, &mark);
            s->rout = rout;
            if (arrive(s, t, k1, l2))
                return -1;
            rout = s->rout;
            events++;
            if (++a == total)
                break;
        } else {
            uint64_t l = rank_length(o, storq_rng_below(&rout, n));
            if (l > 0) {
                smk_occ_down(o, l, t);
                events++;
            }
        }
    }
    flush_joined(s);
    s->events = events;
    return 0;
}

static int steady_jsq2_without(cstate *s)
{
    return run_steady(s, 1, 1, 2);
}

static int steady_jsq2_with(cstate *s)
{
    return run_steady(s, 1, 0, 1);
}

static int steady_k1(cstate *s)
{
    return run_steady(s, 1, 0, 0);
}

static int steady_generic(cstate *s)
{
    return run_steady(s, 0, 0, 0);
}

int storq_smk_run_counts(const smk_ctx *c, const storq_stream_key *key, storq_record *rec,
                         storq_error *err)
{
    unsigned L = c->L, k = c->k;
    cstate s;
    memset(&s, 0, sizeof s);
    s.c = c;
    s.rec = rec;
    uint64_t *buf = malloc(sizeof *buf * 4 * L);
    s.chosen = malloc(sizeof *s.chosen * k);
    if (!buf || !s.chosen || grow_joined(&s, c->levels + 1) ||
        storq_smk_occ_init(&s.o, c->n, c->levels + 1)) {
        free(buf);
        free(s.chosen);
        free(s.joined);
        return STORQ_RUNTIME_FAIL(err, "out of memory");
    }
    s.samp = buf, s.lens = buf + L, s.scratch = buf + 2 * L, s.dup = buf + 3 * L;
    s.arr = storq_rng_stream(key, STORQ_STREAM_ARRIVALS);
    s.rout = storq_rng_stream(key, STORQ_STREAM_ROUTING);
    s.serv = storq_rng_stream(key, STORQ_STREAM_SERVICE);
    s.pick = storq_rng_stream(key, STORQ_STREAM_EXTRA);
    const int steady = c->mode == SMK_MODE_STEADY;
    if (steady)
        s.aql = storq_record_hist(rec, c->id_aql);

    int rc = 0;
    if (c->start_depth > 0) { /* the start's tasks belong to no job */
        if (storq_smk_occ_grow(&s.o, c->start_depth + 1)) {
            rc = -1;
        } else {
            for (size_t j = 1; j <= c->start_depth; j++) {
                s.o.N[j] = c->start_N[j];
                s.o.Q += c->start_N[j];
            }
            s.o.depth = c->start_depth + 1;
        }
    }
    if (rc == 0) {
        if (!steady)
            rc = run_clock(&s);
        else if (k == 1 && L == 2 && !c->with_replacement && c->n >= 4)
            rc = steady_jsq2_without(&s);
        else if (k == 1 && L == 2 && c->with_replacement)
            rc = steady_jsq2_with(&s);
        else if (k == 1)
            rc = steady_k1(&s);
        else
            rc = steady_generic(&s);
    }
    if (rc == 0) {
        if (steady)
            storq_smk_record_steady(c, &s.o, s.T, rec);
        rec->events = s.events;
    }
    free(buf);
    free(s.chosen);
    free(s.joined);
    storq_smk_occ_free(&s.o);
    if (rc > 0)
        return storq_stopped(err);
    if (rc < 0)
        return STORQ_RUNTIME_FAIL(err, "out of memory");
    return STORQ_OK;
}
