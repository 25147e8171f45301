/* The `cluster` simulation: one replication of the listed delivery policies, run coupled on one
 * stream of arrivals, sizes, block sizes and placements (docs/models/cluster.md, "Dynamics and
 * conventions").
 *
 * A request for a file of k chunks (coded into alpha_k >= k blocks placed afresh on the servers)
 * asks k of its blocks from the servers holding them; servers serve FCFS at mu bits per unit time.
 * Each policy keeps its own per-server "busy until" times V_i, so a request costs O(alpha_k) (plus
 * O(k log alpha_k) for water-filling when alpha_k >= m), never O(m) when alpha_k < m. The times
 * are stored server-major (internal.h, cl_vstride) in huge pages when large (src/toolkit/big_array.h), and
 * the sizes and placements of the next requests are drawn up to CL_AHEAD ahead (in batches when the
 * records outgrow the cache) and their servers' records prefetched, so that at large m the memory
 * latency of a request overlaps the work of the ones before it.
 *
 * The draws per request, in this order: ARRIVALS (the inter-arrival time), SIZES (k), SERVICE (the
 * block size c), PLACEMENT (alpha_k distinct servers when alpha_k < m; else the servers holding one
 * block more than the others), TIES (a key per entry, when BS or WF is listed), then ROUTING when
 * BR has a choice to make (the policies are served in their listed order). Each stream is used by
 * nothing else and its draws for request n depend only on request n's own earlier draws (k for the
 * placement), so drawing SIZES and PLACEMENT a few requests ahead consumes the same numbers in the
 * same order per stream: the results are those of drawing them request by request. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "big_array.h"
#include "distribution.h"
#include "entries.h"
#include "internal.h"
#include "stop.h"
#include "model.h"

/* ------------------------------------------------------------------ the replication's state */

/* A request drawn ahead: its size and, on the bit-mask path (alpha < m, alpha <= CL_SMALL_MAX), its
 * placement as record offsets; a request off that path is drawn last (its placement, of up to m
 * entries, is drawn when it is served, in order). */
/* (building with -DCL_RING=.. -DCL_AHEAD=.. -DCL_BATCH=.. tries other depths, kernel and bench) */
#ifndef CL_AHEAD
#define CL_RING 16 /* slots (a power of two) */
#define CL_AHEAD 8 /* requests drawn ahead of the one served: < CL_RING */
#define CL_BATCH 4 /* requests drawn at a time when the records are not cached: 1..CL_AHEAD */
#endif
/* Records of at most this many bytes stay in the cache: prefetching gains nothing there, and
 * drawing ahead one request at a time costs less than in batches. */
#define CL_CACHED_BYTES ((size_t)1 << 20)
typedef struct cl_next {
    int64_t k;
    int placed;
    unsigned n; /* entries (alpha) when placed */
    uint64_t off[CL_SMALL_MAX];
} cl_next;

/* What one policy measures. */
typedef struct cl_acc {
    storq_hist delay, wfound;
    storq_hist *chist; /* per size class */
    double sum;
    double *csum;
    uint64_t *ccnt;
    uint64_t ccdf[CL_NGRID + 1]; /* requests with delay above exactly j grid points */
} cl_acc;

/* One replication's state. */
typedef struct cl_rep {
    const cl_ctx *c;
    storq_rng arr, siz, svc, plc, rte, tie;
    double *V; /* busy-until times: server i under the pi-th policy at V[(i << vshift) + pi] */
    unsigned vshift; /* log2 of the record's stride */
    cl_next ring[CL_RING]; /* request n in slot n % CL_RING */
    uint64_t batch;        /* requests drawn at a time: CL_BATCH, or 1 if the records are cached */
    uint64_t drawn;        /* requests drawn ahead so far */
    int deferred;          /* the last one drawn is off the bit-mask path: draw no further */
    double *csum;
    uint64_t *ccnt;
    storq_hist *chist; /* the per-class arrays behind acc, policy after policy */
    cl_work w;
    cl_acc acc[CL_NPOL_MAX];
    double t;        /* time since the current epoch */
    uint64_t since;  /* requests since the last rebase */
    double Tmeas;    /* length of the measurement window */
    double work_in;  /* bits arriving in it */
    double wstart[CL_NPOL_MAX]; /* work (bits) in each policy's system when it opens */
} cl_rep;

/* One request as drawn: the same for every policy. */
typedef struct cl_req {
    int64_t k, alpha;
    double cn, d; /* block size (bits) and a block's service time cn / mu */
    int meas;
    size_t ci; /* size class (when measuring) */
    size_t nc; /* entries: alpha distinct servers with one block each (alpha < m), or all m */
    int small; /* alpha < m and at most CL_SMALL_MAX entries: the bit-mask path */
    const uint64_t *off; /* the entries' record offsets in V */
} cl_req;

static int cl_rep_init(cl_rep *R, const cl_ctx *c, const storq_stream_key *key,
                       storq_record *rec)
{
    memset(R, 0, sizeof *R);
    R->c = c;
    R->arr = storq_rng_stream(key, STORQ_STREAM_ARRIVALS);
    R->siz = storq_rng_stream(key, STORQ_STREAM_SIZES);
    R->svc = storq_rng_stream(key, STORQ_STREAM_SERVICE);
    R->plc = storq_rng_stream(key, STORQ_STREAM_PLACEMENT);
    R->rte = storq_rng_stream(key, STORQ_STREAM_ROUTING);
    R->tie = storq_rng_stream(key, STORQ_STREAM_TIES);
    const size_t np = (size_t)c->npol, ncl = c->nclass;
    const size_t stride = cl_vstride(c->npol);
    R->vshift = stride == 1 ? 0 : stride == 2 ? 1 : 2;
    /* aligned to a cache line, so that no record straddles two, and in huge pages when large
     * (fewer TLB misses on the random accesses; the estimate of params.c counts the rounding) */
    R->V = storq_big_array_zeroed((size_t)c->m * stride * sizeof *R->V);
    R->batch = (size_t)c->m * stride * sizeof *R->V > CL_CACHED_BYTES ? CL_BATCH : 1;
    R->csum = calloc(np * ncl, sizeof *R->csum);
    R->ccnt = calloc(np * ncl, sizeof *R->ccnt);
    R->chist = calloc(np * ncl, sizeof *R->chist);
    if (!R->V || !R->csum || !R->ccnt || !R->chist)
        return -1;
    for (size_t pi = 0; pi < np; pi++) {
        cl_acc *A = &R->acc[pi];
        A->delay = storq_record_hist(rec, c->id[pi].delay);
        A->wfound = storq_record_hist(rec, c->id[pi].wfound);
        A->csum = R->csum + pi * ncl;
        A->ccnt = R->ccnt + pi * ncl;
        A->chist = R->chist + pi * ncl;
        for (size_t j = 0; j < ncl; j++)
            A->chist[j] = storq_record_hist(rec, c->id[pi].chist0 + (int)j);
    }
    return 0;
}

static void cl_rep_free(cl_rep *R)
{
    cl_work_free(&R->w);
    free(R->V);
    free(R->csum);
    free(R->ccnt);
    free(R->chist);
}

/* Work (in time units) at m servers with busy-until times Vp[i << sh], at time t. */
static double cl_workload(const double *Vp, uint64_t m, unsigned sh, double t)
{
    double s = 0.0;
    for (uint64_t i = 0; i < m; i++) {
        const double v = Vp[i << sh];
        s += v > t ? v - t : 0.0;
    }
    return s;
}

/* A new epoch at the current time: a deterministic map, so equal V stay equal. */
static void cl_rebase(cl_rep *R)
{
    double *V = R->V;
    const double t = R->t;
    const size_t n = (size_t)R->c->m << R->vshift; /* (the padding stays 0) */
    for (size_t i = 0; i < n; i++)
        V[i] = V[i] > t ? V[i] - t : 0.0;
    R->t = 0.0;
    R->since = 0;
}

/* The measurement window opens: the work each policy's system holds. */
static void cl_open_window(cl_rep *R)
{
    const cl_ctx *c = R->c;
    for (int pi = 0; pi < c->npol; pi++)
        R->wstart[pi] = c->mu * cl_workload(R->V + pi, c->m, R->vshift, R->t);
}

/* ------------------------------------------------------------------ arrival and placement */

/* Draw requests ahead of request n, R->batch or more at a time once fewer than CL_AHEAD - R->batch
 * + 1 are left (so request n is always drawn), up to n + CL_AHEAD: their sizes and, on the
 * bit-mask path, their placements; then the batch's servers' records are prefetched for writing,
 * back to back. A request off that path stops the drawing until it is served (cl_place draws its
 * placement then). */
static inline void cl_draw_ahead(cl_rep *R, uint64_t n, uint64_t total)
{
    const cl_ctx *c = R->c;
    if (R->drawn > n + CL_AHEAD - R->batch || R->deferred)
        return;
    const uint64_t first = R->drawn, upto = total - n > CL_AHEAD ? n + CL_AHEAD + 1 : total;
    while (R->drawn < upto && !R->deferred) {
        cl_next *x = &R->ring[R->drawn % CL_RING];
        x->k = storq_ddist_sample(&c->size, &R->siz);
        const int64_t alpha = cl_alpha(c, x->k);
        x->placed = (uint64_t)alpha < c->m && alpha <= CL_SMALL_MAX;
        if (x->placed) {
            x->n = (unsigned)alpha;
            storq_rng_sample_distinct_fast(&R->plc, c->m, x->n, x->off);
            for (unsigned j = 0; j < x->n; j++)
                x->off[j] <<= R->vshift;
        } else {
            R->deferred = 1;
        }
        R->drawn++;
    }
    for (uint64_t r = first; r < R->drawn; r++) {
        const cl_next *x = &R->ring[r % CL_RING];
        if (x->placed)
            for (unsigned j = 0; j < x->n; j++)
                __builtin_prefetch(R->V + x->off[j], 1, 3);
    }
}

/* The n-th request's arrival, size k (drawn ahead) and block size (the clock, the epoch and the
 * window kept). */
static inline void cl_arrive(cl_rep *R, uint64_t n, int64_t k, cl_req *q)
{
    const cl_ctx *c = R->c;
    const double tau = storq_rng_exp(&R->arr, c->lambda);
    R->t += tau;
    R->since++;
    q->meas = n >= c->run.warmup;
    if (q->meas && n > c->run.warmup)
        R->Tmeas += tau;
    if (storq_clock_due(&c->clock, R->t, R->since))
        cl_rebase(R);
    q->k = k;
    q->alpha = cl_alpha(c, q->k);
    q->cn = storq_dist_sample(&c->cdist, &R->svc);
    q->d = q->cn / c->mu;
    if (q->meas && n == c->run.warmup)
        cl_open_window(R);
    if (q->meas)
        R->work_in += q->cn * (double)q->k;
    q->ci = !q->meas ? 0 : q->k < CL_CLASS_TAB ? c->class_tab[q->k] : cl_class_of(c, q->k);
}

/* alpha >= m: every server holds floor(alpha / m) blocks, and the remainder's servers (drawn)
 * one more. */
static void cl_place_everywhere(cl_work *w, storq_rng *plc, uint64_t m, unsigned sh,
                                int64_t alpha)
{
    const int64_t base = alpha / (int64_t)m, r = alpha - base * (int64_t)m;
    for (size_t j = 0; j < (size_t)m; j++) {
        w->srv[j] = (uint64_t)j << sh;
        w->a[j] = base;
    }
    if (r > 0) {
        storq_rng_sample_distinct_fast(plc, m, (unsigned)r, w->pick);
        for (int64_t i = 0; i < r; i++)
            w->a[w->pick[i]]++;
    }
}

/* The request's entries: the records off[j] of the servers holding a[j] >= 1 blocks for j < nc
 * (a unset on the bit-mask path, where every entry holds one and the placement was drawn ahead
 * into the ring slot x), with their tie keys. -1: out of memory. */
static inline int cl_place(cl_rep *R, cl_req *q, const cl_next *x)
{
    const uint64_t m = R->c->m;
    cl_work *w = &R->w;
    const int below = (uint64_t)q->alpha < m;
    q->nc = below ? (size_t)q->alpha : (size_t)m;
    q->small = x->placed;
    if (q->nc > w->cap && cl_work_reserve(w, q->nc))
        return -1;
    if (q->small) {
        q->off = x->off;
    } else {
        if (!below) {
            cl_place_everywhere(w, &R->plc, m, R->vshift, q->alpha);
        } else {
            storq_rng_sample_distinct_fast(&R->plc, m, (unsigned)q->alpha, w->srv);
            for (size_t j = 0; j < q->nc; j++) {
                w->srv[j] <<= R->vshift;
                w->a[j] = 1;
            }
        }
        q->off = w->srv;
        R->deferred = 0; /* drawing ahead goes on after this request */
    }
    if (R->c->need_keys)
        for (size_t j = 0; j < q->nc; j++)
            w->key[j] = storq_rng_next(&R->tie);
    return 0;
}

/* ------------------------------------------------------------------ which blocks to ask */

/* The bit-mask path (one block per entry, so q = 0 and k' = k): every policy asks k of the nc
 * entries one block each. WF too: a popped entry has no block left, so its k pops are the k least
 * in the order, the set BS asks. Bit j of the result: entry j is asked. */
static inline uint64_t cl_ask_small(int pol, const cl_req *q, const double *Vp, double t,
                                    cl_work *w, storq_rng *rte)
{
    const size_t nc = q->nc;
    if ((size_t)q->k == nc)
        return ~(uint64_t)0 >> (64 - nc);
    if (pol == CL_BR) {
        storq_rng_sample_distinct_fast(rte, nc, (unsigned)q->k, w->pick);
        uint64_t ask = 0;
        for (int64_t i = 0; i < q->k; i++)
            ask |= (uint64_t)1 << w->pick[i];
        return ask;
    }
    for (size_t j = 0; j < nc; j++) {
        double v = Vp[q->off[j]];
        w->u[j] = v > t ? v : t;
    }
    return cl_least_mask(w, nc, (size_t)q->k);
}

/* WF when alpha >= m: k blocks, each from the entry whose busy-until time (counting the blocks
 * asked so far) is least among those with a block left; s[j] = blocks asked of entry j. */
static void cl_ask_water_filling(cl_work *w, const double *Vp, double t, const cl_req *q)
{
    const double d = q->d; /* in a register: the stores to u below could alias q's fields */
    const int64_t k = q->k;
    size_t hn = 0;
    for (size_t j = 0; j < q->nc; j++) {
        w->s[j] = 0;
        double v = Vp[w->srv[j]];
        w->u[j] = v > t ? v : t;
        w->heap[hn++] = (uint32_t)j;
    }
    for (size_t i = hn / 2; i-- > 0;)
        cl_sift_down(w, w->heap, hn, i);
    for (int64_t r = 0; r < k; r++) {
        uint32_t j = w->heap[0];
        w->s[j]++;
        w->u[j] += d;
        if (w->s[j] >= w->a[j])
            w->heap[0] = w->heap[--hn];
        if (hn)
            cl_sift_down(w, w->heap, hn, 0);
    }
}

/* Every entry is asked `quota` blocks; the candidates for one more are those holding more.
 * Returns their number (listed in cand). */
static inline size_t cl_ask_quota(cl_work *w, size_t nc, int64_t quota)
{
    size_t ncand = 0;
    for (size_t j = 0; j < nc; j++) {
        w->s[j] = quota;
        if (w->a[j] - quota > 0)
            w->cand[ncand++] = (uint32_t)j;
    }
    return ncand;
}

/* BS (and WF with one block per entry): one more block from each of the kp least candidates. */
static void cl_ask_least(cl_work *w, const double *Vp, double t, size_t ncand, int64_t kp)
{
    for (size_t i = 0; i < ncand; i++) {
        uint32_t j = w->cand[i];
        double v = Vp[w->srv[j]];
        w->u[j] = v > t ? v : t;
    }
    cl_select(w, w->cand, ncand, (size_t)kp);
    for (int64_t i = 0; i < kp; i++)
        w->s[w->cand[i]]++;
}

/* The general path (alpha >= m, or more than 64 entries): s[j] = blocks asked of entry j. A
 * request of k = q m + k' blocks asks q of every entry and one more of k' candidates: at random
 * (BR) or the least loaded (BS; WF too when every entry holds one block, see cl_ask_small). */
static inline void cl_ask_general(int pol, const cl_req *q, const double *Vp, double t,
                                  uint64_t m, cl_work *w, storq_rng *rte)
{
    if (pol == CL_WF && (uint64_t)q->alpha >= m) {
        cl_ask_water_filling(w, Vp, t, q);
        return;
    }
    const int64_t quota = q->k / (int64_t)m, kp = q->k - quota * (int64_t)m;
    const size_t ncand = cl_ask_quota(w, q->nc, quota);
    if ((size_t)kp == ncand) {
        for (size_t i = 0; i < ncand; i++)
            w->s[w->cand[i]]++;
    } else if (kp > 0 && pol == CL_BR) {
        storq_rng_sample_distinct_fast(rte, ncand, (unsigned)kp, w->pick);
        for (int64_t i = 0; i < kp; i++)
            w->s[w->cand[w->pick[i]]]++;
    } else if (kp > 0) {
        cl_ask_least(w, Vp, t, ncand, kp);
    }
}

/* ------------------------------------------------------------------ serving and measuring */

/* Serving one request under one policy: the largest delay numerator mu x + c s so far and, when
 * measuring, the workload-found histogram's sum, min and max, kept in registers for the request
 * (the same additions in the same order as storq_hist_add). */
typedef struct cl_serve {
    double t, d, mu, cn;
    int meas;
    storq_hist *hw;
    double num, hsum, hmin, hmax;
} cl_serve;

static inline cl_serve cl_serve_begin(double t, const cl_req *q, double mu, storq_hist *hw)
{
    cl_serve S = {t, q->d, mu, q->cn, q->meas, hw, 0.0, 0.0, 0.0, 0.0};
    if (q->meas) {
        S.hsum = *hw->sum;
        S.hmin = *hw->min;
        S.hmax = *hw->max;
    }
    return S;
}

/* Ask s >= 1 blocks of the server whose busy-until time is *vi. */
static inline void cl_serve_one(cl_serve *S, double *vi, int64_t s)
{
    double v = *vi > S->t ? *vi : S->t;
    const double x = v - S->t; /* = max(V - t, 0), without a branch */
    const double num = S->mu * x + S->cn * (double)s;
    S->num = num > S->num ? num : S->num;
    if (S->meas) {
        S->hw->counts[storq_hist_bin(S->hw, x)]++;
        S->hsum += x;
        if (x < S->hmin)
            S->hmin = x;
        if (x > S->hmax)
            S->hmax = x;
    }
    for (int64_t r = 0; r < s; r++) /* one addition per block, so that workloads equal in */
        v += S->d;                  /* exact arithmetic stay equal in floating point */
    *vi = v;
}

/* One block from each entry of the mask, in entry order. */
static inline void cl_serve_mask(cl_serve *S, double *Vp, const uint64_t *off, uint64_t ask)
{
    for (; ask; ask &= ask - 1)
        cl_serve_one(S, Vp + off[__builtin_ctzll(ask)], 1);
}

/* s[j] blocks from each asked entry, in entry order (the asked ones listed without branches). */
static inline void cl_serve_asked(cl_serve *S, double *Vp, cl_work *w, size_t nc)
{
    size_t na = 0;
    for (size_t j = 0; j < nc; j++) {
        w->cand[na] = (uint32_t)j;
        na += w->s[j] > 0;
    }
    for (size_t i = 0; i < na; i++) {
        const size_t j = w->cand[i];
        cl_serve_one(S, Vp + w->srv[j], w->s[j]);
    }
}

/* Number of grid points below D: the table for D in [bucket of xgrid[0], that of xgrid[49]],
 * 0 below (0 <= D < xgrid[0]), the search otherwise (large D, and any non-finite D). */
static inline size_t cl_ccdf_index(const cl_ctx *c, double D)
{
    const int64_t b = cl_bucket(D) - c->ccdf_b0;
    if (b < 0)
        return 0;
    if (b < c->ccdf_nb) {
        const size_t i = c->ccdf_tab[b];
        return i + (c->ccdf_x[i] < D);
    }
    return cl_grid_below(c->xgrid, D);
}

/* A measured request's delay into the policy's observables. D is the largest (mu x + c s) / mu:
 * division by mu > 0 is monotone in correctly rounded arithmetic, so dividing the largest
 * numerator once gives the same double as the largest of the quotients. */
static inline void cl_measure(const cl_ctx *c, cl_acc *A, const cl_serve *S, size_t ci)
{
    const double D = S->num / S->mu;
    *S->hw->sum = S->hsum;
    *S->hw->min = S->hmin;
    *S->hw->max = S->hmax;
    storq_hist_add(&A->delay, D);
    A->sum += D;
    A->csum[ci] += D;
    A->ccnt[ci]++;
    storq_hist_add(&A->chist[ci], D);
    A->ccdf[cl_ccdf_index(c, D)]++;
}

/* Request q under the pi-th listed policy: choose the blocks, serve them, measure. */
static inline void cl_serve_policy(cl_rep *R, int pi, const cl_req *q)
{
    const cl_ctx *c = R->c;
    const int pol = c->pol[pi];
    const double t = R->t;
    double *Vp = R->V + pi; /* the policy's times, at the entries' offsets */
    cl_acc *A = &R->acc[pi];
    cl_serve S = cl_serve_begin(t, q, c->mu, &A->wfound);
    if (q->small) {
        cl_serve_mask(&S, Vp, q->off, cl_ask_small(pol, q, Vp, t, &R->w, &R->rte));
    } else {
        cl_ask_general(pol, q, Vp, t, c->m, &R->w, &R->rte);
        cl_serve_asked(&S, Vp, &R->w, q->nc);
    }
    if (q->meas)
        cl_measure(c, A, &S, q->ci);
}

/* ------------------------------------------------------------------ the replication */

/* The observables of each policy from its accumulators. */
static void cl_record(const cl_rep *R, double half_sum, storq_record *rec)
{
    const cl_ctx *c = R->c;
    const double N = (double)c->run.arrivals;
    double first_mean = 0.0;
    for (int pi = 0; pi < c->npol; pi++) {
        const cl_acc *A = &R->acc[pi];
        const cl_ids *id = &c->id[pi];
        double mean = A->sum / N;
        storq_record_scalar(rec, id->mean, mean);
        if (pi == 0)
            first_mean = mean;
        else
            storq_record_scalar(rec, id->diff, mean - first_mean);
        double *cm = storq_record_vector(rec, id->cmean);
        double *cc = storq_record_vector(rec, id->ccount);
        for (size_t j = 0; j < c->nclass; j++) {
            cm[j] = A->ccnt[j] ? A->csum[j] / (double)A->ccnt[j] : NAN;
            cc[j] = (double)A->ccnt[j];
        }
        double *cd = storq_record_vector(rec, id->ccdf);
        uint64_t above = 0;
        for (size_t j = CL_NGRID; j-- > 0;) {
            above += A->ccdf[j + 1];
            cd[j] = (double)above / N;
        }
        const double s = cl_workload(R->V + pi, c->m, R->vshift, R->t);
        double delivered = R->wstart[pi] + R->work_in - c->mu * s;
        storq_record_scalar(rec, id->util, delivered / ((double)c->m * c->mu * R->Tmeas));
    }
    /* the steady-state check: the first policy's mean delay over each half of the requests */
    const uint64_t n1 = storq_steady_half(c->run.arrivals), n2 = c->run.arrivals - n1;
    storq_steady_record(rec, &c->steady, n1 ? half_sum / (double)n1 : NAN,
                        (R->acc[0].sum - half_sum) / (double)n2);
}

int storq_cl_replicate(const void *vctx, const storq_stream_key *key, storq_record *rec,
                 storq_error *err)
{
    const cl_ctx *c = vctx;
    cl_rep R;
    int rc = STORQ_OK;
    if (cl_rep_init(&R, c, key, rec)) {
        rc = STORQ_RUNTIME_FAIL(err, "out of memory (%llu servers)", (unsigned long long)c->m);
        goto done;
    }
    const uint64_t total = c->run.warmup + c->run.arrivals;
    const uint64_t half = c->run.warmup + storq_steady_half(c->run.arrivals);
    double half_sum = 0.0; /* the first policy's delays of the requests before `half` */
    for (uint64_t n = 0; n < total; n++) {
        if (storq_stop_due(n)) {
            rc = storq_stopped(err);
            goto done;
        }
        if (n == half)
            half_sum = R.acc[0].sum;
        cl_draw_ahead(&R, n, total);
        const cl_next *x = &R.ring[n % CL_RING];
        cl_req q;
        cl_arrive(&R, n, x->k, &q);
        if (cl_place(&R, &q, x)) {
            rc = STORQ_RUNTIME_FAIL(err, "out of memory (request of %zu blocks)", R.w.cap);
            goto done;
        }
        for (int pi = 0; pi < c->npol; pi++)
            cl_serve_policy(&R, pi, &q);
    }
    cl_record(&R, half_sum, rec);
    rec->events += total;
done:
    cl_rep_free(&R);
    return rc;
}
