/* `proxy` internals shared by the folder's files: the point's context (params.c fills it), the
 * simulation (dynamics.c) and the paper's approximations (theory.c). docs/models/proxy.md states
 * the model; Liang, Kozat, "FAST CLOUD: Pushing the Envelope on Delay Performance of Cloud Storage
 * with Coding" is "the paper".
 *
 * The random-number contract (what a reference implementation must reproduce to get the same
 * numbers; docs/models/proxy.md repeats it). Per replication, request j = 0, 1, ... draws, in this
 * order:
 *   ARRIVALS  its inter-arrival time, storq_rng_exp(lambda) (lambda: all classes together);
 *   ROUTING   its class, only with more than one class: u = storq_rng_uniform, the first class c
 *             (in the order given) with u < share_0 + ... + share_c (the last class otherwise);
 *   SERVICE   the delays X_{j,1} .. X_{j,nmax_c} of its possible tasks, in task order, each one
 *             storq_dist_sample() of the class's law, drawn whether or not a policy uses them.
 * A policy that serves the request with n tasks uses X_{j,1} .. X_{j,n}: task i (in the order the
 * tasks enter the task queue and start) runs for X_{j,i}, so every coupled policy sees the same
 * arrivals, classes and task delays. Nothing else is random. */
#ifndef STORQ_PROXY_INTERNAL_H
#define STORQ_PROXY_INTERNAL_H

#include <stdint.h>

#include "distribution.h"
#include "model.h"
#include "model_kit.h"
#include "steady_state.h"

#define PX_MAX_CLASSES 16
#define PX_MAX_POLICIES 32
#define PX_MAX_N 4096            /* largest nmax: per-request arrays hold nmax numbers */
#define PX_BACKLOG_BINS 1024     /* backlog histogram: 0 .. 1023, then overflow */
#define PX_MAX_BACKLOG (1u << 22) /* requests present at once before a replication gives up */

enum { PX_FIXED, PX_GREEDY, PX_BAFEC };
enum { PX_NONBLOCKING, PX_BLOCKING };

/* One request class: its share of the arrivals, code range and task-delay law, with the paper's
 * Delta + Exp(mu) description of that law (exact for shexp and exp, fitted otherwise) and the
 * BAFEC thresholds computed from it. */
typedef struct px_class {
    char name[17];
    double share;
    uint64_t k, nmax;
    storq_dist law;
    int have_law;
    double delta, tau; /* the law as Delta + Exp(1/tau): shift and mean of the exponential part */
    int fit;           /* 0: exact (shexp, exp, det); 1: fitted as the paper does (mean, sd) */
    double *lam_cross; /* nmax + 1, index n: lambda_n for k <= n < nmax (NAN when none) */
    double *Q;         /* nmax + 1, index n: Q_n for k <= n < nmax (+inf when lambda_n is none) */
} px_class;

/* A code policy of the coupled list. */
typedef struct px_policy {
    int kind;
    uint64_t n[PX_MAX_CLASSES]; /* fixed: the code length of each class */
    char name[32];              /* observable prefix: fixed3, fixed3_5, greedy, bafec */
    char spec[64];              /* as given: fixed:3, greedy, bafec */
} px_policy;

typedef struct px_ids {
    int delay, qdelay, sdelay;           /* histograms, all classes */
    int mean, qmean, smean, p99, p999;   /* scalars */
    int share;                           /* vector over n = 1 .. nmax_all */
    int util, backlog, mean_backlog, throughput;
    int diff;                            /* diff_P_F_mean_delay; -1 for the first policy */
    int cdelay[PX_MAX_CLASSES];          /* per class (more than one class only): histogram */
    int cmean[PX_MAX_CLASSES], cqmean[PX_MAX_CLASSES], csmean[PX_MAX_CLASSES];
    int cp999[PX_MAX_CLASSES], cshare[PX_MAX_CLASSES];
} px_ids;

typedef struct px_ctx {
    uint64_t L;
    double lambda;
    int admission;
    int nclass;
    px_class cls[PX_MAX_CLASSES];
    uint64_t nmax_all;  /* the largest nmax of the classes */
    int npol;
    px_policy pol[PX_MAX_POLICIES];
    storq_run_length run;
    double mean_task;   /* the share-weighted mean task delay: histogram ranges */
    char headline[STORQ_NAME_MAX];
    px_ids id[PX_MAX_POLICIES];
    storq_steady_ids steady; /* the halves of the first policy's mean delay */
} px_ctx;

/* Usage u(n) = n Delta + k/mu, the paper's expected thread time one request takes. */
double storq_px_usage(const px_class *c, double n);
/* D_s(n) = Delta + sum_{j=n-k+1..n} 1/(j mu): mean service delay (all n tasks start together). */
double storq_px_service(const px_class *c, uint64_t n);
/* The capacity estimate of one class alone with code n: blocking, the mean of (L - n + 1)/u(n)
 * and L/u(n); non-blocking, L/u(n). */
double storq_px_capacity(const px_ctx *x, const px_class *c, uint64_t n);
/* D~_q(n, lambda) of one class alone: Pollaczek-Khinchine with Erlang(n) service of mean 1/C~
 * (INFINITY at or beyond C~). */
double storq_px_queueing(const px_ctx *x, const px_class *c, uint64_t n, double lambda);
/* Fill every class's crossover rates and thresholds (theory.c). */
void storq_px_thresholds(const px_ctx *x, px_class *c);
/* The code length BAFEC gives a request of class c with `backlog` requests waiting behind it. */
static inline uint64_t storq_px_bafec_n(const px_class *c, uint64_t backlog)
{
    uint64_t n = c->k;
    for (uint64_t j = c->k; j < c->nmax; j++)
        n += (double)backlog < c->Q[j];
    return n;
}

/* The paper's multi-class approximation, non-blocking (multiclass.c): eq. 5's objective and its
 * optimal code vectors. */
#define PX_MC_MAX_VECTORS 4096 /* code vectors enumerated at most (product of nmax_i - k_i + 1) */
typedef struct px_mc_layer {
    uint64_t n[PX_MAX_CLASSES]; /* the code vector, one n per class */
    double rate;                /* the total rate where it becomes optimal along the shares */
    double capacity;            /* L / sum_i share_i u_i(n_i) */
} px_mc_layer;
/* beta = E[X^2]/E[X]^2 of the multi-class M/G/1 queue: 1 + 1/(the smallest k). */
double storq_px_mc_beta(const px_ctx *x);
/* D_q(N, lambda) = lambda beta E^2 / (2 (1 - lambda E)), E = sum_i share_i u_i(n_i) / L
 * (INFINITY at or beyond the capacity 1/E). */
double storq_px_mc_queueing(const px_ctx *x, const uint64_t *n, double lambda, double beta);
/* Eq. 5's objective: sum_i share_i D_s,i(n_i) + D_q(N, lambda). */
double storq_px_mc_delay(const px_ctx *x, const uint64_t *n, double lambda, double beta);
/* The number of code vectors (0 when above PX_MC_MAX_VECTORS). */
size_t storq_px_mc_count(const px_ctx *x);
/* The vector minimising eq. 5 at lambda, by enumeration, into best; 0 when none is stable. */
int storq_px_mc_optimal(const px_ctx *x, double lambda, double beta, uint64_t *best);
/* The layers of the optimal vector along the point's shares, in order of rate (at most cap). */
size_t storq_px_mc_layers(const px_ctx *x, double beta, px_mc_layer *out, size_t cap);
int storq_px_mc_theory(const px_ctx *x, storq_theory *out, storq_error *err);

int storq_px_replicate(const void *ctx, const storq_stream_key *key, storq_record *rec,
                       storq_error *err);
int storq_px_theory(const void *ctx, storq_theory *out, storq_error *err);
int storq_px_compare(const void *ctx, const storq_summary *sim, const storq_theory *theory,
                     storq_theory *out, storq_error *err);

#endif
