/* `forkjoin` internals shared by the folder's files: the point's context (params.c fills it), the
 * simulation (dynamics.c) and the theory (theory.c).
 *
 * The random-number contract (what a reference implementation must reproduce to get the same
 * numbers; docs/models/forkjoin.md repeats it). Per replication, streams from the stream key:
 *   ARRIVALS   inter-arrival times, storq_rng_exp(rate lambda), one per job;
 *   ROUTING    group choice: uniform -> storq_rng_below(g); pod:D -> storq_rng_sample_distinct_fast
 *              (g, D) (the first candidate in drawn order with the least load wins: the drawn order
 *              is uniformly random, so that breaks ties uniformly); lwl -> nothing; g = 1 ->
 * nothing; TIES       lwl only: when c > 1 groups share the least load, storq_rng_below(c) picks
 * among them in group-index order (the companion system below uses EXTRA instead); SIZES      the
 * shared part X_d of a job (only when delta > 0), one family draw per job; SERVICE    the node
 * parts X_i, i = 0 .. n-1 in node order (only when delta < 1), n family draws per job, drawn for
 * every node whether or not its task is later cancelled. Per job the draws happen in this order:
 * arrival, group, X_d, X_1 .. X_n. A family draw is storq_dist_sample() of the family's law at mean
 * 1/(k mu) (trace: the file's law times `scale`). A task's time is x_i = delta X_d + (1 - delta)
 * X_i computed as written (delta = 0: X_i exactly; delta = 1: X_d exactly).
 *
 * Loads for pod/lwl, seen by a job arriving at time t: `jobs` = the group's jobs not yet departed
 * (departure time > t); `work` = the time until the group would be empty with no more arrivals,
 * max(0, D_last - t), D_last the departure time of the last job sent to the group (a job's
 * departure time is known at its arrival, as for an oracle LWL dispatcher); busy groups compare by
 * D_last, empty ones all have load 0.
 *
 * When 0 < delta < 1 a companion system with delta = 0 runs on the same arrivals, group draws and
 * node parts X_i (its own state and loads, ties from EXTRA): it measures the T(n,k) of the paper's
 * eq. (15) on the same random numbers. */
#ifndef STORQ_FORKJOIN_INTERNAL_H
#define STORQ_FORKJOIN_INTERNAL_H

#include <stdint.h>

#include "distribution.h"
#include "model.h"
#include "model_kit.h"
#include "steady_state.h"

enum { FJ_FAM_EXP, FJ_FAM_PARETO, FJ_FAM_SHEXP, FJ_FAM_DET, FJ_FAM_TRACE };
enum { FJ_ASSIGN_UNIFORM, FJ_ASSIGN_POD, FJ_ASSIGN_LWL };
enum { FJ_LOAD_JOBS, FJ_LOAD_WORK };

typedef struct fj_ids {
    int resp, mean, share, gutil, util;
    int resp0, mean0; /* companion (delta = 0) system; -1 when absent */
    /* the per-group summary (group_vectors): histograms across groups, largest value and spread;
     * -1 when absent, as share and gutil are when the full vectors are not kept */
    int share_hist, share_max, share_sd, gutil_hist, gutil_max, gutil_sd;
} fj_ids;

/* Up to this many groups `group_vectors = auto` keeps the full per-group vectors; beyond, their
 * summary (docs/models/forkjoin.md, "Per-group results"). */
#define FJ_GROUP_VECTORS_AUTO_MAX 1000

typedef struct fj_ctx {
    uint64_t n, k, g;
    double lambda, mu, delta;
    int family;
    double alpha;    /* pareto shape */
    double fraction; /* shexp: the shift as a fraction of the mean */
    double scale;    /* trace: factor taking the file's mean to 1/(k mu); 1 otherwise */
    double mean;     /* 1/(k mu): every family's task mean */
    storq_dist law;  /* the family at that mean (trace: the file's law, times scale) */
    int have_law;
    int assign;
    uint64_t pod_d;
    int load;
    int companion;   /* 0 < delta < 1 */
    int group_full, group_summary; /* group_vectors: keep the per-group vectors, their summary */
    storq_run_length run;
    double lambda_group;  /* lambda / g: what each group sees under uniform assignment */
    double capacity;      /* per-group arrival rate below which the point is known stable */
    int capacity_exact;   /* 0: only the paper's necessary bound is known, and it is not proven */
    const char *capacity_why; /* where the capacity comes from, for messages and the theory */
    storq_clock clock;
    char service_spec[300];
    fj_ids id;
    storq_steady_ids steady; /* the halves of mean_response_time */
} fj_ctx;

/* Moments of one task time x = delta X_d + (1 - delta) X_i and of S, the k-th smallest of a job's
 * n task times (the split-merge service time). Infinite where the law's moments are. */
typedef struct fj_moments {
    double ex, vx;       /* E[x], V[x] */
    double es, vs;       /* E[S], V[S] */
} fj_moments;

void storq_fj_moments_compute(const fj_ctx *c, fj_moments *m);
/* Bytes one replication allocates before its first job (dynamics.c). */
size_t storq_fj_state_bytes(const fj_ctx *c);
/* One replication of the point (dynamics.c). */
int storq_fj_replicate(const void *ctx, const storq_stream_key *key, storq_record *rec,
                 storq_error *err);
/* The theory and comparison hooks of the model (theory.c). */
int storq_fj_theory(const void *ctx, storq_theory *out, storq_error *err);
int storq_fj_compare(const void *ctx, const storq_summary *sim, const storq_theory *theory,
               storq_theory *out, storq_error *err);

#endif
