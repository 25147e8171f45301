/* `mmc` dynamics: one replication of the M/M/c FCFS queue (internal.h has the draws' contract).
 * The servers' release times are a binary min-heap: a job takes the root, so O(log c) a job. */
#include <math.h>
#include <stdlib.h>

#include "internal.h"
#include "stop.h"

/* Replace the heap's root (the earliest release) by v and restore the heap order. */
static void replace_root(double *h, uint64_t n, double v)
{
    uint64_t i = 0;
    for (;;) {
        uint64_t l = 2 * i + 1, m = i;
        double least = v;
        if (l < n && h[l] < least)
            m = l, least = h[l];
        if (l + 1 < n && h[l + 1] < least)
            m = l + 1;
        if (m == i)
            break;
        h[i] = h[m];
        i = m;
    }
    h[i] = v;
}

int storq_mmc_replicate(const void *vctx, const storq_stream_key *key, storq_record *rec,
                        storq_error *err)
{
    const mmc_ctx *x = vctx;
    storq_rng arr = storq_rng_stream(key, STORQ_STREAM_ARRIVALS);
    storq_rng svc = storq_rng_stream(key, STORQ_STREAM_SERVICE);
    double *free_at = calloc(x->c, sizeof *free_at); /* all idle at time 0 */
    if (!free_at)
        return STORQ_RUNTIME_FAIL(err, "out of memory (%llu servers)", (unsigned long long)x->c);
    storq_hist wait_hist = storq_record_hist(rec, x->wait_hist);
    uint64_t beyond[MMC_CCDF_POINTS + 1] = {0}; /* jobs whose wait exceeds exactly j grid points */
    const uint64_t total = x->run.warmup + x->run.arrivals;
    const uint64_t half = x->run.warmup + storq_steady_half(x->run.arrivals);
    double t = 0, window = 0, wait_sum = 0, sojourn_sum = 0, half_sum = 0;
    uint64_t since = 0, waited = 0;
    for (uint64_t j = 0; j < total; j++) {
        if (storq_stop_due(j)) {
            free(free_at);
            return storq_stopped(err);
        }
        if (j == half)
            half_sum = sojourn_sum;
        const double tau = storq_rng_exp(&arr, x->lambda), s = storq_rng_exp(&svc, x->mu);
        t += tau;
        since++;
        if (storq_clock_due(&x->clock, t, since)) {
            /* a monotone shift keeps the heap order; a release in the past is "free now" */
            for (uint64_t i = 0; i < x->c; i++)
                free_at[i] = fmax(free_at[i] - t, 0.0);
            t = 0;
            since = 0;
        }
        const double start = fmax(t, free_at[0]), w = start - t;
        replace_root(free_at, x->c, start + s);
        if (j < x->run.warmup)
            continue;
        if (j > x->run.warmup)
            window += tau;
        storq_hist_add(&wait_hist, w);
        wait_sum += w;
        sojourn_sum += w + s;
        waited += w > 0;
        double above = ceil(w / x->dt); /* grid points t_j = j dt below w */
        beyond[above < MMC_CCDF_POINTS ? (size_t)above : MMC_CCDF_POINTS]++;
    }
    const double n = (double)x->run.arrivals;
    storq_record_scalar(rec, x->mean_wait, wait_sum / n);
    storq_record_scalar(rec, x->mean_sojourn, sojourn_sum / n);
    storq_record_scalar(rec, x->wait_prob, (double)waited / n);
    storq_record_scalar(rec, x->mean_number, sojourn_sum / window);
    double *ccdf = storq_record_vector(rec, x->wait_ccdf);
    uint64_t above_j = x->run.arrivals - beyond[0];
    for (int k = 0; k < MMC_CCDF_POINTS; k++) {
        ccdf[k] = (double)above_j / n;
        above_j -= beyond[k + 1];
    }
    const uint64_t n1 = storq_steady_half(x->run.arrivals);
    storq_steady_record(rec, &x->steady, n1 ? half_sum / (double)n1 : NAN,
                        (sojourn_sum - half_sum) / (n - (double)n1));
    rec->events += total;
    free(free_at);
    return STORQ_OK;
}
