/* `supermarket`, engine `counts`: exponential service only. Servers are exchangeable, so the
 * vector N_i (queues with >= i tasks) is a Markov chain on its own; memory O(levels), any n.
 *
 * A sampled rank r names the server at position r when servers are sorted by decreasing queue
 * length, so its length is the number of i >= 1 with r < N_i (a binary search over the levels).
 * Arrivals: L ranks (without replacement: storq_rng_sample_distinct; with: below(n)), the k
 * shortest chosen as in the servers engine, each chosen server's length + 1 (a server chosen twice
 * under sampling with replacement gets +1 then +1). Departures: after every event the next
 * departure time is drawn as t + Exp(mu N_1), and the departing server is rank below(N_1) (SERVICE
 * stream). */
#include "internal.h"
#include "stop.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The length of the server at rank r: the largest i with N_i > r (N_0 = n > r). */
static inline uint64_t rank_length(const smk_occ *o, uint64_t r)
{
    size_t lo = 0, hi = o->depth;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (o->N[mid] > r)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

int storq_smk_run_counts(const smk_ctx *c, const storq_stream_key *key, storq_record *rec,
                   smk_mem_stats *mem, storq_error *err)
{
    unsigned L = c->L, k = c->k;
    smk_occ o;
    uint64_t *buf = malloc(sizeof *buf * 4 * L);
    unsigned *chosen = malloc(sizeof *chosen * k);
    if (!buf || !chosen || storq_smk_occ_init(&o, c->n, c->levels + 1)) {
        free(buf);
        free(chosen);
        return STORQ_RUNTIME_FAIL(err, "out of memory");
    }
    uint64_t *samp = buf, *lens = buf + L, *scratch = buf + 2 * L, *dup = buf + 3 * L;

    storq_rng arr = storq_rng_stream(key, STORQ_STREAM_ARRIVALS);
    storq_rng rout = storq_rng_stream(key, STORQ_STREAM_ROUTING);
    storq_rng serv = storq_rng_stream(key, STORQ_STREAM_SERVICE);
    const int steady = c->mode == SMK_MODE_STEADY;
    storq_hist aql = {0};
    if (steady)
        aql = storq_record_hist(rec, c->id_aql);

    if (!steady && c->start_depth > 0) {
        if (storq_smk_occ_grow(&o, c->start_depth + 1))
            goto oom;
        for (size_t j = 1; j <= c->start_depth; j++) {
            o.N[j] = c->start_N[j];
            o.Q += c->start_N[j];
        }
        o.depth = c->start_depth + 1;
    }

    const double arate = (double)c->n * c->lambda;
    const uint64_t total = c->warmup + c->arrivals;
    const uint64_t half = smk_half_arrival(c->warmup, c->arrivals);
    uint64_t a = 0, events = 0;
    size_t gj = 0;
    double t = 0.0, T = 0.0;
    double ta = t + storq_rng_exp(&arr, arate);
    double td = o.depth > 1 ? t + storq_rng_exp(&serv, c->mu * (double)o.N[1]) : INFINITY;

    for (;;) {
        if (storq_stop_due(events))
            goto stopped;
        int is_dep = td < ta;
        double te = is_dep ? td : ta;
        if (steady) {
            if (a == total)
                break;
        } else {
            while (gj <= c->grid && smk_grid_time(c, gj) < te)
                storq_smk_record_grid(c, &o, rec, gj++);
            if (gj > c->grid)
                break;
        }
        t = te;
        if (is_dep) {
            uint64_t r = storq_rng_below(&serv, o.N[1]);
            smk_occ_down(&o, rank_length(&o, r), t);
        } else {
            int measured = 0;
            if (steady) {
                if (a == c->warmup)
                    storq_smk_occ_begin(&o, t);
                if (a == half)
                    storq_smk_occ_half(&o, t);
                if (a == total - 1) {
                    storq_smk_occ_end(&o, t);
                    T = t - o.t0;
                }
                measured = a >= c->warmup;
            }
            if (c->with_replacement) {
                for (unsigned j = 0; j < L; j++)
                    samp[j] = storq_rng_below(&rout, c->n);
            } else {
                storq_rng_sample_distinct(&rout, c->n, L, samp);
            }
            for (unsigned j = 0; j < L; j++)
                lens[j] = rank_length(&o, samp[j]);
            storq_smk_select_k(lens, L, k, scratch, chosen);
            /* dup[e]: earlier chosen entries naming the same rank (with replacement only) */
            memset(dup, 0, sizeof *dup * k);
            if (c->with_replacement && k > 1) {
                for (unsigned e = 0; e < k; e++)
                    scratch[e] = (samp[chosen[e]] << 11) | e;
                qsort(scratch, k, sizeof *scratch, cmp_u64);
                for (unsigned e = 1; e < k; e++)
                    if ((scratch[e] >> 11) == (scratch[e - 1] >> 11))
                        dup[scratch[e] & 0x7ff] = dup[scratch[e - 1] & 0x7ff] + 1;
            }
            for (unsigned e = 0; e < k; e++) {
                uint64_t l = lens[chosen[e]] + dup[e];
                if (measured)
                    storq_hist_add(&aql, (double)l);
                if (smk_occ_up(&o, (size_t)l + 1, t))
                    goto oom;
            }
            a++;
            ta = (!steady || a < total) ? t + storq_rng_exp(&arr, arate) : INFINITY;
        }
        events++;
        td = o.depth > 1 ? t + storq_rng_exp(&serv, c->mu * (double)o.N[1]) : INFINITY;
    }

    if (steady)
        storq_smk_record_steady(c, &o, T, rec);
    rec->events = events;
    if (mem) {
        memset(mem, 0, sizeof *mem);
        mem->bytes_levels = o.cap * (sizeof *o.N + 4 * sizeof(double));
    }
    free(buf);
    free(chosen);
    storq_smk_occ_free(&o);
    return STORQ_OK;

stopped:
    free(buf);
    free(chosen);
    storq_smk_occ_free(&o);
    return storq_stopped(err);

oom:
    free(buf);
    free(chosen);
    storq_smk_occ_free(&o);
    return STORQ_RUNTIME_FAIL(err, "out of memory");
}
