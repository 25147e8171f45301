/* `threads` dynamics: one replication of every listed policy, coupled on common random numbers
 * (docs/models/threads.md; the random-number contract is in internal.h).
 *
 * Each policy runs its own system of L threads over the requests present. Request j keeps alpha_j
 * (chunks still needed), delta_j (threads on it) and its n_j chunk records (fresh, running,
 * preempted with its remaining time, done); avail_j = n_j - (k_j - alpha_j) - delta_j chunks are
 * available. Events are exact: arrivals (shared) and chunk completions (per system, from a binary
 * heap over running chunks keyed by (end time, arrival number, chunk number), with indexed removal
 * for preemption and cancellation). A request is done at its k_j-th downloaded chunk; its other
 * downloads stop at once (their threads become idle).
 *
 * Scheduling (after every event) uses indexed binary heaps of requests keyed by the policy's
 * order -- FCFS: arrival number; SERPT: (alpha_j, arrival number); SEDPT: (alpha_j - delta_j,
 * arrival number) -- holding the requests eligible for a pass, and a request's entries are
 * re-sifted whenever its alpha_j or delta_j changes: O(log V) per change, V requests present.
 *   non-preemptive R / NR: each idle thread in turn takes the top request of the pass heap
 *     (eligible: avail_j > 0 for R; delta_j < alpha_j for NR);
 *   WCR: the NR pass, then a redundant pass (eligible: avail_j > 0) for the threads left;
 *     preemptive WCR in addition frees, at an arrival, up to alpha_new - idle redundant threads
 *     (from the request lowest in the order among those with delta_j > alpha_j, its running chunk
 *     with the most remaining time first) before the passes -- the paper's "redundant chunks are
 *     preempted to serve the new arrival"; nothing else is ever preempted;
 *   preemptive R (FCFS-R, SERPT-R, SEDPT-R): at every event the assignment is redone from
 *     scratch: requests in the order (SEDPT from scratch has delta_j = 0, so its order is SERPT's)
 *     take min(threads left, n_j - (k_j - alpha_j)) threads each; the targets are read off the
 *     heap's first requests (O(L log L)), and only the difference is applied: a request above its
 *     target has its running chunks with the most remaining time preempted, then requests below
 *     their target start chunks.
 * A thread that takes request j downloads its lowest-numbered available chunk (a preempted chunk
 * resumes with its remaining time; it is numbered lower than every chunk never started).
 *
 * Work: a completed chunk adds its whole download time X to the useful work, a cancelled chunk
 * (running or preempted when its request completes) the part of X already downloaded; both are
 * counted when the chunk ends. Finite mode: request 0 arrives at time 0, the run ends when the N-th
 * request is done, and the window is [0, that instant]. Steady mode: the measured requests are
 * warmup .. warmup + arrivals - 1; arrivals go on until all are done in every system; the window
 * runs from the first measured arrival to the last. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "stop.h"
#include "system.h"

/* ------------------------------------------------------------------ holders (preemptive R) */

static void hold_set(th_sys *s, uint32_t slot)
{
    const int in = s->hold_pos[slot] != 0, want = s->req[slot].delta > 0;
    if (want && !in) {
        s->hold[s->nhold++] = slot;
        s->hold_pos[slot] = (uint32_t)s->nhold;
    } else if (!want && in) {
        const size_t i = s->hold_pos[slot] - 1;
        const uint32_t last = s->hold[--s->nhold];
        s->hold[i] = last;
        s->hold_pos[last] = (uint32_t)(i + 1);
        s->hold_pos[slot] = 0;
    }
}

/* ------------------------------------------------------------------ system */

static void sys_free(th_sys *s)
{
    free(s->req);
    free(s->cx);
    free(s->cv);
    free(s->cst);
    free(s->epos);
    free(s->free_slots);
    free(s->ev);
    for (int i = 0; i < 3; i++) {
        free(s->hp[i].h);
        free(s->hp[i].pos);
    }
    free(s->hold);
    free(s->hold_pos);
    free(s->target);
    free(s->tlist);
    free(s->cand);
    free(s->present);
}

static int sys_init(th_sys *s, const th_ctx *x, const th_policy *P)
{
    memset(s, 0, sizeof *s);
    s->x = x;
    s->pol = P;
    s->stride = (size_t)x->nmax;
    s->idle = x->L;
    const int key = P->order == TH_FCFS ? KEY_SEQ : P->order == TH_SERPT ? KEY_ALPHA : KEY_DIFF;
    if (P->redund == TH_R && P->preempt) {
        s->nhp = 1;
        s->hp[0] = (th_heap){.key = P->order == TH_FCFS ? KEY_SEQ : KEY_ALPHA, .elig = EL_ALL};
    } else if (P->redund == TH_R) {
        s->nhp = 1;
        s->hp[0] = (th_heap){.key = key, .elig = EL_AVAIL};
    } else if (P->redund == TH_NR) {
        s->nhp = 1;
        s->hp[0] = (th_heap){.key = key, .elig = EL_ROOM};
    } else {
        s->nhp = P->preempt ? 3 : 2;
        s->hp[0] = (th_heap){.key = key, .elig = EL_ROOM};
        s->hp[1] = (th_heap){.key = key, .elig = EL_AVAIL};
        s->hp[2] = (th_heap){.key = key, .elig = EL_REDUNDANT, .max = 1};
    }
    const size_t L = (size_t)x->L;
    s->ev = malloc(L * sizeof *s->ev);
    s->tlist = malloc((L + 1) * sizeof *s->tlist);
    s->cand = malloc((2 * L + 4) * sizeof *s->cand);
    s->hold = malloc((L + 1) * sizeof *s->hold);
    s->present = calloc(TH_PRESENT_BINS, sizeof *s->present);
    return s->ev && s->tlist && s->cand && s->hold && s->present ? 0 : -1;
}

static void *grow(void *p, size_t n, size_t size)
{
    return realloc(p, n * size);
}

/* A free request slot (-1: out of memory or beyond the limit of requests present). */
static int64_t slot_alloc(th_sys *s)
{
    if (!s->nfree) {
        /* chunk ids slot * stride + i are 32-bit */
        if (s->cap >= TH_MAX_PRESENT || 2 * s->cap * s->stride >= UINT32_MAX)
            return -1;
        const size_t old = s->cap, cap = old ? 2 * old : 64, nc = cap * s->stride;
        void *p;
#define GROW(field, count)                                                                         \
    if (!(p = grow(s->field, (count), sizeof *s->field)))                                          \
        return -1;                                                                                 \
    s->field = p;
        GROW(req, cap);
        GROW(cx, nc);
        GROW(cv, nc);
        GROW(cst, nc);
        GROW(epos, nc);
        GROW(free_slots, cap);
        GROW(hold_pos, cap);
        GROW(target, cap);
        for (int i = 0; i < s->nhp; i++) {
            GROW(hp[i].h, cap);
            GROW(hp[i].pos, cap);
            memset(s->hp[i].pos + old, 0, (cap - old) * sizeof *s->hp[i].pos);
        }
#undef GROW
        memset(s->epos + old * s->stride, 0, (nc - old * s->stride) * sizeof *s->epos);
        memset(s->hold_pos + old, 0, (cap - old) * sizeof *s->hold_pos);
        memset(s->target + old, 0, (cap - old) * sizeof *s->target);
        for (size_t i = cap; i > old; i--)
            s->free_slots[s->nfree++] = (uint32_t)(i - 1);
        s->cap = cap;
    }
    s->used++;
    return s->free_slots[--s->nfree];
}

static inline void integrate(th_sys *s, double t)
{
    if (s->open) {
        const double dt = t - s->tlast;
        s->present_area += (double)s->used * dt;
        s->present[s->used < TH_PRESENT_BINS ? s->used : TH_PRESENT_BINS - 1] += dt;
    }
    s->tlast = t;
}

/* ------------------------------------------------------------------ starting and stopping */

/* A thread starts request slot's lowest-numbered available chunk at time t. */
static void start_chunk(th_sys *s, uint32_t slot, double t)
{
    th_req *r = &s->req[slot];
    const size_t base = (size_t)slot * s->stride;
    uint32_t i;
    if (r->npre) {
        for (i = 0; s->cst[base + i] != CH_PRE; i++)
            ;
        r->npre--;
    } else {
        i = r->next++;
    }
    const uint32_t g = (uint32_t)(base + i);
    s->cst[g] = CH_RUN;
    s->cv[g] = t + s->cv[g]; /* remaining time -> end time */
    s->ev[s->nev] = g;
    s->epos[g] = (uint32_t)(s->nev + 1);
    ev_up(s, s->nev++);
    r->delta++;
    s->idle--;
    /* non-preemptive SEDPT-NR: alpha_j - delta_j never grows, so it reaches 0 once, when the last
     * needed chunk starts: V_j of the NLU lower bound (docs/models/threads.md) */
    if (s->vtrack && r->delta == r->alpha && r->measured) {
        s->vsum += t - r->arrival;
        s->vpending--;
    }
}

/* Preempt request slot's running chunk with the most remaining time (ties: the highest number). */
static void preempt_one(th_sys *s, uint32_t slot, double t)
{
    th_req *r = &s->req[slot];
    const size_t base = (size_t)slot * s->stride;
    size_t best = SIZE_MAX;
    for (size_t i = 0; i < r->next; i++)
        if (s->cst[base + i] == CH_RUN && (best == SIZE_MAX || s->cv[base + i] >= s->cv[base + best]))
            best = i;
    const uint32_t g = (uint32_t)(base + best);
    ev_remove(s, g);
    s->cst[g] = CH_PRE;
    s->cv[g] -= t; /* end time -> remaining time */
    r->npre++;
    r->delta--;
    s->idle++;
}

/* ------------------------------------------------------------------ scheduling */

/* Non-preemptive passes: each idle thread in turn takes the top request of the first pass heap
 * that has one. */
static void assign_idle(th_sys *s, double t)
{
    const int passes = s->nhp >= 2 ? 2 : 1;
    while (s->idle) {
        int p = 0;
        while (p < passes && s->hp[p].n == 0)
            p++;
        if (p == passes)
            return;
        const uint32_t slot = s->hp[p].h[0];
        start_chunk(s, slot, t);
        rq_update(s, slot, 0);
    }
}

/* candidate order for the preemptive targets: heap positions compared by their requests */
static inline int cand_before(const th_sys *s, uint32_t a, uint32_t b)
{
    return rq_before(s, &s->hp[0], s->hp[0].h[a], s->hp[0].h[b]);
}

/* Preemptive R: redo the assignment from scratch, apply only the difference. */
static void reassign(th_sys *s, double t)
{
    th_heap *h = &s->hp[0];
    uint64_t left = s->x->L;
    size_t nt = 0, nc = 0;
    if (h->n)
        s->cand[nc++] = 0;
    while (left && nc) {
        /* pop the smallest candidate (a small binary heap of heap positions) */
        const uint32_t top = s->cand[0], last = s->cand[--nc];
        size_t i = 0;
        for (;;) {
            size_t c = 2 * i + 1;
            if (c >= nc)
                break;
            if (c + 1 < nc && cand_before(s, s->cand[c + 1], s->cand[c]))
                c++;
            if (!cand_before(s, s->cand[c], last))
                break;
            s->cand[i] = s->cand[c];
            i = c;
        }
        if (nc)
            s->cand[i] = last;
        const uint32_t slot = h->h[top];
        const th_req *r = &s->req[slot];
        const uint64_t room = r->n - (r->k - r->alpha);
        const uint64_t give = room < left ? room : left;
        s->target[slot] = (uint32_t)give;
        s->tlist[nt++] = slot;
        left -= give;
        for (size_t c = 2 * (size_t)top + 1; c <= 2 * (size_t)top + 2; c++) {
            if (c >= h->n)
                continue;
            size_t j = nc++;
            while (j > 0 && cand_before(s, (uint32_t)c, s->cand[(j - 1) / 2])) {
                s->cand[j] = s->cand[(j - 1) / 2];
                j = (j - 1) / 2;
            }
            s->cand[j] = (uint32_t)c;
        }
    }
    /* preempt what is above target (the holder list changes as we go: walk it backwards) */
    for (size_t i = s->nhold; i-- > 0;) {
        const uint32_t slot = s->hold[i];
        th_req *r = &s->req[slot];
        const uint32_t want = s->target[slot];
        if (r->delta > want) {
            while (r->delta > want)
                preempt_one(s, slot, t);
            hold_set(s, slot);
        }
    }
    for (size_t i = 0; i < nt; i++) {
        const uint32_t slot = s->tlist[i];
        th_req *r = &s->req[slot];
        if (r->delta < s->target[slot]) {
            while (r->delta < s->target[slot])
                start_chunk(s, slot, t);
            hold_set(s, slot);
        }
        s->target[slot] = 0;
    }
}

static void schedule(th_sys *s, double t)
{
    if (s->pol->redund == TH_R && s->pol->preempt)
        reassign(s, t);
    else
        assign_idle(s, t);
}

/* ------------------------------------------------------------------ events */

static void finish(th_sys *s, uint32_t slot, double t)
{
    const th_ctx *x = s->x;
    th_req *r = &s->req[slot];
    const size_t base = (size_t)slot * s->stride;
    for (size_t i = 0; i < r->next; i++) {
        const uint32_t g = (uint32_t)(base + i);
        if (s->cst[g] == CH_RUN) {
            ev_remove(s, g);
            if (s->open)
                s->cancelled += s->cx[g] - (s->cv[g] - t);
            s->idle++;
        } else if (s->cst[g] == CH_PRE && s->open) {
            s->cancelled += s->cx[g] - s->cv[g];
        }
    }
    r->delta = 0;
    rq_update(s, slot, 1);
    if (s->pol->redund == TH_R && s->pol->preempt)
        hold_set(s, slot);
    if (s->open)
        s->done_in_window++;
    if (r->measured && !s->companion) {
        const double d = t - r->arrival;
        storq_hist_add(&s->hf, d);
        s->sum += d;
        if (r->mi < s->half_at)
            s->half_sum += d;
        if (x->nclass > 1) {
            storq_hist_add(&s->hc[r->cls], d);
            s->csum[r->cls] += d;
        }
        s->ccount[r->cls]++;
        s->pending--;
    }
    s->free_slots[s->nfree++] = slot;
    s->used--;
}

/* The earliest chunk completion. */
static void complete(th_sys *s)
{
    const uint32_t g = s->ev[0];
    const double t = s->cv[g];
    integrate(s, t);
    ev_remove(s, g);
    const uint32_t slot = (uint32_t)(g / s->stride);
    th_req *r = &s->req[slot];
    s->cst[g] = CH_DONE;
    if (s->open)
        s->useful += s->cx[g];
    r->delta--;
    r->alpha--;
    s->idle++;
    s->events++;
    if (r->alpha == 0) {
        finish(s, slot, t);
    } else {
        rq_update(s, slot, 0);
        if (s->pol->redund == TH_R && s->pol->preempt)
            hold_set(s, slot);
    }
    schedule(s, t);
}

static void advance(th_sys *s, double t)
{
    while (s->nev && s->cv[s->ev[0]] <= t)
        complete(s);
}

static int arrive(th_sys *s, double t, uint64_t seq, uint32_t cls, const double *xs, int measured,
                  uint64_t mi)
{
    const th_ctx *x = s->x;
    integrate(s, t);
    const int64_t got = slot_alloc(s);
    if (got < 0)
        return -1;
    const uint32_t slot = (uint32_t)got;
    const th_class *c = &x->cls[cls];
    th_req *r = &s->req[slot];
    r->arrival = t;
    r->seq = seq;
    r->mi = mi;
    r->cls = cls;
    r->n = (uint32_t)c->n;
    r->k = (uint32_t)c->k;
    r->alpha = r->k;
    r->delta = r->next = r->npre = 0;
    r->measured = measured;
    const size_t base = (size_t)slot * s->stride;
    for (size_t i = 0; i < c->n; i++) {
        s->cx[base + i] = s->cv[base + i] = xs[i];
        s->cst[base + i] = CH_FRESH;
    }
    if (measured) {
        s->pending++;
        s->vpending += (uint64_t)s->vtrack;
    }
    s->events++;
    rq_update(s, slot, 0);
    if (s->pol->redund == TH_WCR && s->pol->preempt) {
        /* free redundant threads for the newcomer's alpha chunks */
        th_heap *red = &s->hp[2];
        while (s->idle < r->alpha && red->n) {
            const uint32_t v = red->h[0];
            preempt_one(s, v, t);
            rq_update(s, v, 0);
        }
    }
    schedule(s, t);
    return 0;
}

/* ------------------------------------------------------------------ recording */

static void record(const th_ctx *x, int pi, th_sys *s, storq_record *rec, double *edges)
{
    const th_ids *id = &x->id[pi];
    const double N = (double)(x->mode == TH_FINITE ? x->requests : x->run.arrivals);
    const double T = s->t_close - s->t_open;
    storq_record_scalar(rec, id->mean, s->sum / N);
    storq_record_scalar(rec, id->p50, storq_record_hist_quantile(rec, id->flow, 0.5, edges));
    storq_record_scalar(rec, id->p99, storq_record_hist_quantile(rec, id->flow, 0.99, edges));
    storq_record_scalar(rec, id->p999, storq_record_hist_quantile(rec, id->flow, 0.999, edges));
    storq_record_scalar(rec, id->throughput, (double)s->done_in_window / T);
    storq_record_scalar(rec, id->useful, s->useful / ((double)x->L * T));
    storq_record_scalar(rec, id->cancelled, s->cancelled / ((double)x->L * T));
    storq_record_scalar(rec, id->mean_present, s->present_area / T);
    double *pr = storq_record_vector(rec, id->present);
    for (size_t b = 0; b < TH_PRESENT_BINS; b++)
        pr[b] = s->present[b] / T;
    for (int c = 0; c < x->nclass && x->nclass > 1; c++)
        storq_record_scalar(rec, id->cmean[c],
                            s->ccount[c] ? s->csum[c] / (double)s->ccount[c] : NAN);
}

int storq_th_replicate(const void *vctx, const storq_stream_key *key, storq_record *rec,
                       storq_error *err)
{
    const th_ctx *x = vctx;
    storq_rng arr = storq_rng_stream(key, STORQ_STREAM_ARRIVALS);
    storq_rng rte = storq_rng_stream(key, STORQ_STREAM_ROUTING);
    storq_rng svc = storq_rng_stream(key, STORQ_STREAM_SERVICE);
    /* the systems: the listed policies, then SEDPT-NR's companion when the NLU bound needs one */
    const int nsys = th_systems(x);
    th_sys *sys = calloc((size_t)nsys, sizeof *sys);
    double *xs = malloc(sizeof *xs * (size_t)x->nmax);
    double *edges = NULL;
    int rc = STORQ_OK;
    if (!sys || !xs)
        goto oom;
    if (!(edges = malloc(sizeof *edges * (storq_observables_max_nbins(rec->schema) + 1))))
        goto oom;
    const int finite = x->mode == TH_FINITE;
    const uint64_t first = finite ? 0 : x->run.warmup;
    const uint64_t total = th_requests_simulated(x);
    const uint64_t half = finite ? 0 : storq_steady_half(x->run.arrivals);
    static const th_policy sedpt_nr = {.order = TH_SEDPT, .redund = TH_NR, .preempt = 0,
                                       .name = "sedpt_nr_np", .spec = "sedpt-nr:off"};
    for (int p = 0; p < nsys; p++) {
        th_sys *s = &sys[p];
        if (sys_init(s, x, p < x->npol ? &x->pol[p] : &sedpt_nr))
            goto oom;
        s->vtrack = x->last_start && p == x->vsys;
        if ((s->companion = p == x->npol))
            continue; /* it records only its last starts: no histograms */
        s->hf = storq_record_hist(rec, x->id[p].flow);
        for (int c = 0; c < x->nclass && x->nclass > 1; c++)
            s->hc[c] = storq_record_hist(rec, x->id[p].cflow[c]);
        s->half_at = half;
    }
    double t = 0.0;
    int from = 0; /* steady: the first system still fed (npol once the policies are done) */
    for (uint64_t j = 0;; j++) {
        if (j >= total) {
            if (finite)
                break;
            int busy = 0;
            for (int p = 0; p < x->npol; p++)
                busy |= sys[p].pending > 0;
            /* the policies stop where they would without the companion (their numbers do not
             * change); the companion goes on alone until its last measured start */
            if (!busy)
                from = x->npol;
            if (!busy && !(nsys > x->npol && sys[x->npol].vpending))
                break;
        }
        if (storq_stop_due(j)) {
            rc = storq_stopped(err);
            goto done;
        }
        if (!(finite && j == 0))
            t += storq_dist_sample(&x->ia, &arr) * x->ia_scale;
        const uint32_t cls = storq_th_draw_class(x, &rte);
        const th_class *c = &x->cls[cls];
        for (uint64_t i = 0; i < c->n; i++)
            xs[i] = storq_dist_sample(&x->dl, &svc);
        const int measured = j >= first && j < total;
        for (int p = from; p < nsys; p++) {
            th_sys *s = &sys[p];
            advance(s, t);
            if (j == first) {
                s->open = 1;
                s->tlast = s->t_open = t;
            }
            if (arrive(s, t, j, cls, xs, measured, j - first))
                goto oom;
            if (!finite && j + 1 == total) {
                integrate(s, t);
                s->open = 0;
                s->t_close = t;
            }
        }
    }
    for (int p = 0; p < x->npol; p++) {
        th_sys *s = &sys[p];
        if (finite) {
            while (s->nev)
                complete(s);
            integrate(s, s->tlast);
            s->t_close = s->tlast;
        }
        record(x, p, s, rec, edges);
        rec->events += s->events;
        if (p > 0) {
            const double N = (double)(finite ? x->requests : x->run.arrivals);
            storq_record_scalar(rec, x->id[p].diff, s->sum / N - sys[0].sum / N);
        }
    }
    if (x->last_start) {
        th_sys *s = &sys[x->vsys];
        if (x->vsys == x->npol) {
            while (s->nev)
                complete(s); /* finite: the companion's last requests */
            rec->events += s->events;
        }
        const double N = (double)(finite ? x->requests : x->run.arrivals);
        storq_record_scalar(rec, x->last_start_id, s->vsum / N);
    }
    if (!finite) {
        const uint64_t n1 = half, n2 = x->run.arrivals - half;
        storq_steady_record(rec, &x->steady, n1 ? sys[0].half_sum / (double)n1 : NAN,
                            n2 ? (sys[0].sum - sys[0].half_sum) / (double)n2 : NAN);
    }
    goto done;
oom:
    rc = STORQ_RUNTIME_FAIL(err, "out of memory, or more than %u requests present at once "
                            "(L = %llu, rho = %g): the point looks unstable",
                            (unsigned)TH_MAX_PRESENT, (unsigned long long)x->L, x->rho);
done:
    if (sys)
        for (int p = 0; p < nsys; p++)
            sys_free(&sys[p]);
    free(sys);
    free(xs);
    free(edges);
    return rc;
}
