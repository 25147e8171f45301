/* `threads`: the paper's lower bound on the optimal mean flow time (--policy ...+bound), as its
 * Theorems 1-2 construct it for exponential downloads (docs/models/threads.md, "The lower bound").
 *
 * Give every request enough coded chunks that all L threads can always serve it (n raised to
 * k + L - 1, so d >= L): no policy of the real system, preemptive or not, does better than the
 * best policy of this relaxed one (it has every option the real one has, and more), and there
 * preemptive SERPT-R is optimal (Theorem 1). With exponential downloads, SERPT-R in the relaxed
 * system puts all L threads on the request needing the fewest chunks: chunks complete at rate
 * L mu whenever a request is present, each for that request. So the bound is a single server of
 * rate L mu running preemptive shortest-remaining-chunks-first; which request gets a chunk does
 * not change how many are present, so only the count per "chunks still needed" is kept, and the
 * flow times' sum is the integral of the number present.
 *
 * Random numbers: the arrival times and classes are those of the policies (the ARRIVALS and
 * ROUTING streams, drawn as dynamics.c draws them, so the bound is coupled to them); the chunk
 * completions come from the EXTRA stream (no policy uses it), one Exp(L mu) = Exp(mu) / L per
 * completion, drawn when the previous one fires (memoryless: the server's rate never changes). */
#include <math.h>
#include <stdlib.h>

#include "internal.h"
#include "stop.h"

typedef struct bd_sys {
    uint64_t *cnt;     /* cnt[r]: requests present that still need r chunks, r = 1 .. kmax */
    uint64_t present;
    double tlast, area; /* area: integral of the number present over the measured window */
    int open;
    double tc;          /* next chunk completion (INFINITY when empty) */
} bd_sys;

static void bd_integrate(bd_sys *s, double t)
{
    if (s->open)
        s->area += (double)s->present * (t - s->tlast);
    s->tlast = t;
}

/* One chunk completes for the request needing the fewest. */
static void bd_complete(const th_ctx *x, bd_sys *s, storq_rng *ext, uint64_t kmax)
{
    bd_integrate(s, s->tc);
    for (uint64_t r = 1; r <= kmax; r++) {
        if (!s->cnt[r])
            continue;
        s->cnt[r]--;
        if (r > 1)
            s->cnt[r - 1]++;
        else
            s->present--;
        break;
    }
    s->tc = s->present ? s->tc + storq_dist_sample(&x->dl, ext) / (double)x->L : INFINITY;
}

int storq_th_bound_replicate(const th_ctx *x, const storq_stream_key *key, storq_record *rec,
                             storq_error *err)
{
    storq_rng arr = storq_rng_stream(key, STORQ_STREAM_ARRIVALS);
    storq_rng rte = storq_rng_stream(key, STORQ_STREAM_ROUTING);
    storq_rng ext = storq_rng_stream(key, STORQ_STREAM_EXTRA);
    uint64_t kmax = 1;
    for (int c = 0; c < x->nclass; c++)
        kmax = x->cls[c].k > kmax ? x->cls[c].k : kmax;
    bd_sys s = {.cnt = calloc(kmax + 1, sizeof(uint64_t)), .tc = INFINITY};
    if (!s.cnt)
        return STORQ_RUNTIME_FAIL(err, "out of memory");
    const int finite = x->mode == TH_FINITE;
    const uint64_t first = finite ? 0 : x->run.warmup, total = th_requests_simulated(x);
    double t = 0.0;
    for (uint64_t j = 0; j < total; j++) {
        if (storq_stop_due(j)) {
            free(s.cnt);
            return storq_stopped(err);
        }
        if (!(finite && j == 0))
            t += storq_dist_sample(&x->ia, &arr) * x->ia_scale;
        const uint32_t cls = storq_th_draw_class(x, &rte);
        while (s.tc <= t)
            bd_complete(x, &s, &ext, kmax);
        if (j == first) {
            s.open = 1;
            s.tlast = t;
        }
        bd_integrate(&s, t);
        s.cnt[x->cls[cls].k]++;
        if (s.present++ == 0)
            s.tc = t + storq_dist_sample(&x->dl, &ext) / (double)x->L;
    }
    /* finite: every request's whole flow time (drain to empty); steady: the number present over
     * the window of the measured arrivals, divided by their count (Little's law) */
    if (finite)
        while (s.present)
            bd_complete(x, &s, &ext, kmax);
    else
        bd_integrate(&s, t);
    const double N = (double)(finite ? x->requests : x->run.arrivals);
    storq_record_scalar(rec, x->bound_id, s.area / N);
    free(s.cnt);
    return STORQ_OK;
}

/* The model's replication: the policies (dynamics.c; with them SEDPT-NR's last starts, the NLU
 * bound), then Theorem 1's relaxation for exponential downloads. */
int storq_th_replicate_all(const void *vctx, const storq_stream_key *key, storq_record *rec,
                           storq_error *err)
{
    const th_ctx *x = vctx;
    STORQ_TRY(storq_th_replicate(vctx, key, rec, err));
    return x->relax_bound ? storq_th_bound_replicate(x, key, rec, err) : STORQ_OK;
}
