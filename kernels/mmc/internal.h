/* `mmc` internals: the point's context (model.c fills it) and the replication (dynamics.c).
 *
 * The random-number contract (a reference implementation must reproduce it; docs/models/mmc.md):
 * per replication, job j draws its inter-arrival time storq_rng_exp(lambda) from ARRIVALS and
 * then its service time storq_rng_exp(mu) from SERVICE, in arrival order. FCFS with one queue:
 * job j starts at max(its arrival, the earliest time a server frees) and holds that server. */
#ifndef STORQ_MMC_INTERNAL_H
#define STORQ_MMC_INTERNAL_H

#include <stdint.h>

#include "model_kit.h"
#include "steady_state.h"

#define MMC_CCDF_POINTS 16 /* the waiting-time CCDF at t_j = j dt, dt = 1 / (4 (c mu - lambda)) */

typedef struct mmc_ctx {
    uint64_t c;
    double lambda, mu, dt;
    storq_run_length run;
    storq_clock clock;
    int wait_hist, mean_wait, mean_sojourn, wait_prob, mean_number, wait_ccdf;
    storq_steady_ids steady;
} mmc_ctx;

int storq_mmc_replicate(const void *ctx, const storq_stream_key *key, storq_record *rec,
                        storq_error *err);

#endif
