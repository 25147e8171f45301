/* `proxy` dynamics: one replication of every listed code policy, coupled on common random numbers
 * (docs/models/proxy.md; the random-number contract is in internal.h).
 *
 * Each policy runs its own system: a FIFO request queue, a FIFO task queue and L threads. Events
 * are exact: arrivals (shared by the systems) and task completions (per system, from a binary heap
 * over the running threads keyed by (end time, thread id), with indexed removal for cancelled
 * tasks). An idle thread that takes a task is the idle one with the lowest id (a min-heap of idle
 * ids): the choice does not change any delay, but it fixes the order of simultaneous completions
 * (possible with det or trace delays) so that a reference implementation can reproduce it. Every
 * event costs O(log L) plus O(n) per request (its tasks and their cancellation), whatever lambda
 * and the backlog: the task queue holds blocks (request, next task) and a finished request's
 * waiting tasks are always the head block (a request whose tasks have started has every earlier
 * block fully started), so removing them is O(1).
 *
 * After every event at time t: idle threads take tasks from the task queue, then the head request
 * is admitted while the admission rule allows (blocking: n idle threads; non-blocking: one), its n
 * tasks joining the task queue and starting at once on idle threads. Completions at or before an
 * arrival's instant are processed before it. Greedy fixes n at the request's arrival from the idle
 * threads then; fixed codes and BAFEC fix it at admission (BAFEC from the requests waiting behind
 * the head at that instant). Measured requests are those arriving in positions warmup ..
 * warmup + arrivals - 1; arrivals continue (unmeasured) until every measured request is done, in
 * every system, so that BAFEC's last measured requests see the backlog of a running system.
 * Time averages (utilisation, backlog) run from the first measured arrival to the last. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "stop.h"

typedef struct px_req {
    double arrival, admit;
    uint32_t cls, n, started, done;
    int measured; /* 0: no; 1: in the first half of the window (by arrival); 2: in the second */
} px_req;

typedef struct px_ring {
    uint32_t *v;
    size_t head, len, cap; /* cap a power of two */
} px_ring;

typedef struct px_sys {
    const px_policy *pol;
    size_t stride;     /* nmax_all: numbers per request slot */
    px_req *req;       /* request slots */
    double *x;         /* stride task delays per slot */
    int32_t *thr;      /* stride: the thread running each task, -1 when none */
    uint32_t *free_slots;
    size_t cap, nfree, used;
    px_ring rq, tq;    /* request queue; task queue of blocks (slot ids) */
    int32_t *th_req;   /* L: slot of the request a thread serves, -1 when idle */
    uint32_t *th_task; /* L: task index it runs */
    double *end;       /* L: end time of its task */
    uint32_t *heap, *pos; /* completion heap of busy threads; pos[th] its index */
    size_t hn;
    uint32_t *idle;    /* min-heap of idle thread ids */
    size_t nidle;
    uint64_t nbusy;
    /* measurement */
    int open;
    double tlast, t_open, busy_area, backlog_area;
    uint64_t pending, done_in_window, events;
    storq_hist hd, hq, hs, hb, hc[PX_MAX_CLASSES];
    double sum, qsum, ssum;
    double half_sum; /* delays of the measured requests of the window's first half */
    double csum[PX_MAX_CLASSES], cqsum[PX_MAX_CLASSES], cssum[PX_MAX_CLASSES];
    uint64_t ccount[PX_MAX_CLASSES];
    uint64_t *code_count; /* nclass x stride: measured requests served with n = index + 1 */
} px_sys;

/* ------------------------------------------------------------------ small structures */

static int px_ring_push(px_ring *r, uint32_t v)
{
    if (r->len == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 64;
        uint32_t *nv = malloc(cap * sizeof *nv);
        if (!nv)
            return -1;
        for (size_t i = 0; i < r->len; i++)
            nv[i] = r->v[(r->head + i) & (r->cap - 1)];
        free(r->v);
        r->v = nv;
        r->head = 0;
        r->cap = cap;
    }
    r->v[(r->head + r->len) & (r->cap - 1)] = v;
    r->len++;
    return 0;
}

static inline uint32_t px_ring_front(const px_ring *r)
{
    return r->v[r->head];
}

static inline void px_ring_pop(px_ring *r)
{
    r->head = (r->head + 1) & (r->cap - 1);
    r->len--;
}

/* completion heap: order (end time, thread id) */
static inline int px_before(const px_sys *s, uint32_t a, uint32_t b)
{
    return s->end[a] < s->end[b] || (s->end[a] == s->end[b] && a < b);
}

static inline void px_heap_place(px_sys *s, size_t i, uint32_t th)
{
    s->heap[i] = th;
    s->pos[th] = (uint32_t)i;
}

static void px_heap_up(px_sys *s, size_t i)
{
    uint32_t th = s->heap[i];
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (!px_before(s, th, s->heap[p]))
            break;
        px_heap_place(s, i, s->heap[p]);
        i = p;
    }
    px_heap_place(s, i, th);
}

static void px_heap_down(px_sys *s, size_t i)
{
    uint32_t th = s->heap[i];
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= s->hn)
            break;
        if (c + 1 < s->hn && px_before(s, s->heap[c + 1], s->heap[c]))
            c++;
        if (!px_before(s, s->heap[c], th))
            break;
        px_heap_place(s, i, s->heap[c]);
        i = c;
    }
    px_heap_place(s, i, th);
}

static void px_heap_push(px_sys *s, uint32_t th)
{
    s->heap[s->hn] = th;
    s->pos[th] = (uint32_t)s->hn;
    px_heap_up(s, s->hn++);
}

static void px_heap_remove(px_sys *s, uint32_t th)
{
    size_t i = s->pos[th];
    uint32_t last = s->heap[--s->hn];
    if (i == s->hn)
        return;
    px_heap_place(s, i, last);
    if (i > 0 && px_before(s, last, s->heap[(i - 1) / 2]))
        px_heap_up(s, i);
    else
        px_heap_down(s, i);
}

static void px_idle_push(px_sys *s, uint32_t th)
{
    size_t i = s->nidle++;
    while (i > 0 && s->idle[(i - 1) / 2] > th) {
        s->idle[i] = s->idle[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    s->idle[i] = th;
}

static uint32_t px_idle_pop(px_sys *s)
{
    uint32_t top = s->idle[0], th = s->idle[--s->nidle];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= s->nidle)
            break;
        if (c + 1 < s->nidle && s->idle[c + 1] < s->idle[c])
            c++;
        if (s->idle[c] >= th)
            break;
        s->idle[i] = s->idle[c];
        i = c;
    }
    if (s->nidle)
        s->idle[i] = th;
    return top;
}

/* ------------------------------------------------------------------ the system */

static void px_sys_free(px_sys *s)
{
    free(s->req);
    free(s->x);
    free(s->thr);
    free(s->free_slots);
    free(s->rq.v);
    free(s->tq.v);
    free(s->th_req);
    free(s->th_task);
    free(s->end);
    free(s->heap);
    free(s->pos);
    free(s->idle);
    free(s->code_count);
}

static int px_sys_init(px_sys *s, const px_ctx *x, const px_policy *pol)
{
    memset(s, 0, sizeof *s);
    s->pol = pol;
    s->stride = (size_t)x->nmax_all;
    const size_t L = (size_t)x->L;
    s->th_req = malloc(L * sizeof *s->th_req);
    s->th_task = calloc(L, sizeof *s->th_task);
    s->end = calloc(L, sizeof *s->end);
    s->heap = malloc(L * sizeof *s->heap);
    s->pos = calloc(L, sizeof *s->pos);
    s->idle = malloc(L * sizeof *s->idle);
    s->code_count = calloc((size_t)x->nclass * s->stride, sizeof *s->code_count);
    if (!s->th_req || !s->th_task || !s->end || !s->heap || !s->pos || !s->idle ||
        !s->code_count)
        return -1;
    for (size_t th = 0; th < L; th++) {
        s->th_req[th] = -1;
        s->idle[th] = (uint32_t)th; /* sorted: a valid min-heap */
    }
    s->nidle = L;
    return 0;
}

/* A free request slot (-1: out of memory or beyond the backlog limit). */
static int64_t px_slot_alloc(px_sys *s)
{
    if (!s->nfree) {
        if (s->cap >= PX_MAX_BACKLOG)
            return -1;
        size_t cap = s->cap ? 2 * s->cap : 64;
        px_req *nr = realloc(s->req, cap * sizeof *nr);
        if (!nr)
            return -1;
        s->req = nr;
        double *nx = realloc(s->x, cap * s->stride * sizeof *nx);
        if (!nx)
            return -1;
        s->x = nx;
        int32_t *nt = realloc(s->thr, cap * s->stride * sizeof *nt);
        if (!nt)
            return -1;
        s->thr = nt;
        uint32_t *nf = realloc(s->free_slots, cap * sizeof *nf);
        if (!nf)
            return -1;
        s->free_slots = nf;
        for (size_t i = cap; i > s->cap; i--)
            s->free_slots[s->nfree++] = (uint32_t)(i - 1);
        s->cap = cap;
    }
    s->used++;
    return s->free_slots[--s->nfree];
}

static inline void px_integrate(px_sys *s, double t)
{
    if (s->open) {
        const double dt = t - s->tlast;
        s->busy_area += (double)s->nbusy * dt;
        s->backlog_area += (double)s->rq.len * dt;
    }
    s->tlast = t;
}

/* Idle threads take tasks from the head of the task queue. */
static void px_start_tasks(px_sys *s, double t)
{
    while (s->nidle && s->tq.len) {
        const uint32_t slot = px_ring_front(&s->tq);
        px_req *r = &s->req[slot];
        const uint32_t i = r->started++;
        const uint32_t th = px_idle_pop(s);
        s->th_req[th] = (int32_t)slot;
        s->th_task[th] = i;
        s->end[th] = t + s->x[slot * s->stride + i];
        s->thr[slot * s->stride + i] = (int32_t)th;
        px_heap_push(s, th);
        s->nbusy++;
        if (r->started == r->n)
            px_ring_pop(&s->tq);
    }
}

/* Admit head requests while the rule allows. */
static int px_admit(const px_ctx *x, px_sys *s, double t)
{
    while (s->rq.len) {
        const uint32_t slot = px_ring_front(&s->rq);
        px_req *r = &s->req[slot];
        const px_class *c = &x->cls[r->cls];
        uint32_t n;
        switch (s->pol->kind) {
        case PX_FIXED:
            n = (uint32_t)s->pol->n[r->cls];
            break;
        case PX_GREEDY:
            n = r->n;
            break;
        default:
            n = (uint32_t)storq_px_bafec_n(c, s->rq.len - 1);
        }
        const size_t need = x->admission == PX_BLOCKING ? n : 1;
        if (s->nidle < need)
            break;
        px_ring_pop(&s->rq);
        r->n = n;
        r->admit = t;
        if (px_ring_push(&s->tq, slot))
            return -1;
        px_start_tasks(s, t);
    }
    return 0;
}

static void px_finish(const px_ctx *x, px_sys *s, uint32_t slot, double t)
{
    px_req *r = &s->req[slot];
    int32_t *thr = s->thr + slot * s->stride;
    for (uint32_t i = 0; i < r->started; i++) {
        const int32_t th = thr[i];
        if (th < 0)
            continue;
        px_heap_remove(s, (uint32_t)th);
        s->th_req[th] = -1;
        px_idle_push(s, (uint32_t)th);
        s->nbusy--;
    }
    if (r->started < r->n) /* its waiting tasks: the head block of the task queue */
        px_ring_pop(&s->tq);
    if (s->open)
        s->done_in_window++;
    if (r->measured) {
        const double q = r->admit - r->arrival, sv = t - r->admit, d = t - r->arrival;
        storq_hist_add(&s->hd, d);
        storq_hist_add(&s->hq, q);
        storq_hist_add(&s->hs, sv);
        s->sum += d;
        if (r->measured == 1)
            s->half_sum += d;
        s->qsum += q;
        s->ssum += sv;
        if (x->nclass > 1) {
            storq_hist_add(&s->hc[r->cls], d);
            s->csum[r->cls] += d;
            s->cqsum[r->cls] += q;
            s->cssum[r->cls] += sv;
        }
        s->ccount[r->cls]++;
        s->code_count[r->cls * s->stride + r->n - 1]++;
        s->pending--;
    }
    s->free_slots[s->nfree++] = slot;
    s->used--;
}

/* The earliest task completion. */
static int px_complete(const px_ctx *x, px_sys *s)
{
    const uint32_t th = s->heap[0];
    const double t = s->end[th];
    px_integrate(s, t);
    s->hn--;
    if (s->hn) {
        px_heap_place(s, 0, s->heap[s->hn]);
        px_heap_down(s, 0);
    }
    const uint32_t slot = (uint32_t)s->th_req[th];
    px_req *r = &s->req[slot];
    s->thr[slot * s->stride + s->th_task[th]] = -1;
    s->th_req[th] = -1;
    px_idle_push(s, th);
    s->nbusy--;
    s->events++;
    if (++r->done == x->cls[r->cls].k)
        px_finish(x, s, slot, t);
    px_start_tasks(s, t);
    return px_admit(x, s, t);
}

static int px_advance(const px_ctx *x, px_sys *s, double t)
{
    while (s->hn && s->end[s->heap[0]] <= t)
        if (px_complete(x, s))
            return -1;
    return 0;
}

static int px_arrive(const px_ctx *x, px_sys *s, double t, uint32_t cls, const double *xs,
                     int measured)
{
    px_integrate(s, t);
    const int64_t got = px_slot_alloc(s);
    if (got < 0)
        return -1;
    const uint32_t slot = (uint32_t)got;
    const px_class *c = &x->cls[cls];
    px_req *r = &s->req[slot];
    r->arrival = t;
    r->admit = 0.0;
    r->cls = cls;
    r->started = r->done = 0;
    r->measured = measured;
    r->n = 0;
    memcpy(s->x + slot * s->stride, xs, (size_t)c->nmax * sizeof *xs);
    if (s->pol->kind == PX_GREEDY) {
        const uint64_t l = s->nidle;
        r->n = (uint32_t)(l >= c->k ? (l < c->nmax ? l : c->nmax) : c->k);
    }
    if (measured) {
        storq_hist_add(&s->hb, (double)s->rq.len);
        s->pending++;
    }
    s->events++;
    if (px_ring_push(&s->rq, slot))
        return -1;
    return px_admit(x, s, t);
}

static void px_record(const px_ctx *x, int pi, px_sys *s, storq_record *rec, double T,
                      double *edges)
{
    const px_ids *id = &x->id[pi];
    const double N = (double)x->run.arrivals;
    storq_record_scalar(rec, id->mean, s->sum / N);
    storq_record_scalar(rec, id->qmean, s->qsum / N);
    storq_record_scalar(rec, id->smean, s->ssum / N);
    storq_record_scalar(rec, id->p99, storq_record_hist_quantile(rec, id->delay, 0.99, edges));
    storq_record_scalar(rec, id->p999, storq_record_hist_quantile(rec, id->delay, 0.999, edges));
    double *share = storq_record_vector(rec, id->share);
    for (size_t n = 0; n < s->stride; n++) {
        uint64_t cnt = 0;
        for (int c = 0; c < x->nclass; c++)
            cnt += s->code_count[(size_t)c * s->stride + n];
        share[n] = (double)cnt / N;
    }
    storq_record_scalar(rec, id->util, s->busy_area / ((double)x->L * T));
    storq_record_scalar(rec, id->mean_backlog, s->backlog_area / T);
    storq_record_scalar(rec, id->throughput, (double)s->done_in_window / T);
    for (int c = 0; c < x->nclass && x->nclass > 1; c++) {
        const double Nc = (double)s->ccount[c];
        storq_record_scalar(rec, id->cmean[c], s->csum[c] / Nc);
        storq_record_scalar(rec, id->cqmean[c], s->cqsum[c] / Nc);
        storq_record_scalar(rec, id->csmean[c], s->cssum[c] / Nc);
        storq_record_scalar(rec, id->cp999[c],
                            storq_record_hist_quantile(rec, id->cdelay[c], 0.999, edges));
        double *cs = storq_record_vector(rec, id->cshare[c]);
        for (size_t n = 0; n < s->stride; n++)
            cs[n] = (double)s->code_count[(size_t)c * s->stride + n] / Nc;
    }
}

int storq_px_replicate(const void *vctx, const storq_stream_key *key, storq_record *rec,
                       storq_error *err)
{
    const px_ctx *x = vctx;
    storq_rng arr = storq_rng_stream(key, STORQ_STREAM_ARRIVALS);
    storq_rng rte = storq_rng_stream(key, STORQ_STREAM_ROUTING);
    storq_rng svc = storq_rng_stream(key, STORQ_STREAM_SERVICE);
    px_sys *sys = calloc((size_t)x->npol, sizeof *sys);
    double *xs = malloc(sizeof *xs * (size_t)x->nmax_all);
    double *edges = NULL;
    int rc = STORQ_OK;
    if (!sys || !xs)
        goto oom;
    if (!(edges = malloc(sizeof *edges * (storq_observables_max_nbins(rec->schema) + 1))))
        goto oom;
    for (int p = 0; p < x->npol; p++) {
        px_sys *s = &sys[p];
        if (px_sys_init(s, x, &x->pol[p]))
            goto oom;
        const px_ids *id = &x->id[p];
        s->hd = storq_record_hist(rec, id->delay);
        s->hq = storq_record_hist(rec, id->qdelay);
        s->hs = storq_record_hist(rec, id->sdelay);
        s->hb = storq_record_hist(rec, id->backlog);
        for (int c = 0; c < x->nclass && x->nclass > 1; c++)
            s->hc[c] = storq_record_hist(rec, id->cdelay[c]);
    }

    const uint64_t total = x->run.warmup + x->run.arrivals;
    const uint64_t half = x->run.warmup + storq_steady_half(x->run.arrivals);
    double t = 0.0, T = 0.0;
    for (uint64_t j = 0;; j++) {
        if (j >= total) {
            int busy = 0;
            for (int p = 0; p < x->npol; p++)
                busy |= sys[p].pending > 0;
            if (!busy)
                break;
        }
        if (storq_stop_due(j)) {
            rc = storq_stopped(err);
            goto done;
        }
        t += storq_rng_exp(&arr, x->lambda);
        uint32_t cls = 0;
        if (x->nclass > 1) {
            const double u = storq_rng_uniform(&rte);
            double cum = 0.0;
            cls = (uint32_t)(x->nclass - 1);
            for (int c = 0; c + 1 < x->nclass; c++) {
                cum += x->cls[c].share;
                if (u < cum) {
                    cls = (uint32_t)c;
                    break;
                }
            }
        }
        const px_class *c = &x->cls[cls];
        for (uint64_t i = 0; i < c->nmax; i++)
            xs[i] = storq_dist_sample(&c->law, &svc);
        const int measured = j < x->run.warmup || j >= total ? 0 : j < half ? 1 : 2;
        for (int p = 0; p < x->npol; p++) {
            px_sys *s = &sys[p];
            if (px_advance(x, s, t))
                goto oom;
            if (j == x->run.warmup) {
                s->open = 1;
                s->tlast = s->t_open = t;
            }
            if (px_arrive(x, s, t, cls, xs, measured))
                goto oom;
            if (j + 1 == total) {
                px_integrate(s, t);
                s->open = 0;
                T = t - s->t_open;
            }
        }
    }
    for (int p = 0; p < x->npol; p++) {
        px_record(x, p, &sys[p], rec, T, edges);
        rec->events += sys[p].events;
        if (p > 0)
            storq_record_scalar(rec, x->id[p].diff, sys[p].sum / (double)x->run.arrivals -
                                                        sys[0].sum / (double)x->run.arrivals);
    }
    {
        /* the steady-state check: the first policy's mean delay over the requests arriving in
         * each half of the window (split by arrival, as for cluster and forkjoin) */
        const uint64_t n1 = storq_steady_half(x->run.arrivals), n2 = x->run.arrivals - n1;
        storq_steady_record(rec, &x->steady, n1 ? sys[0].half_sum / (double)n1 : NAN,
                            (sys[0].sum - sys[0].half_sum) / (double)n2);
    }
    goto done;
oom:
    rc = STORQ_RUNTIME_FAIL(err, "out of memory, or more than %u requests present at once "
                            "(L = %llu, lambda = %g): the point looks unstable",
                            (unsigned)PX_MAX_BACKLOG, (unsigned long long)x->L, x->lambda);
done:
    if (sys)
        for (int p = 0; p < x->npol; p++)
            px_sys_free(&sys[p]);
    free(sys);
    free(xs);
    free(edges);
    return rc;
}
