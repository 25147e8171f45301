/* `threads` internals shared by the folder's files: the point's context (params.c fills it), the
 * simulation (dynamics.c) and the paper's load, capacity and gap terms (theory.c).
 * docs/models/threads.md states the model; Sun, Zheng, Koksal, Kim, Shroff, "Provably Delay
 * Efficient Data Retrieving in Storage Clouds" is "the paper".
 *
 * The random-number contract (what a reference implementation must reproduce to get the same
 * numbers; docs/models/threads.md repeats it). Per replication, request j = 0, 1, ... draws, in
 * this order:
 *   ARRIVALS  its inter-arrival time: storq_dist_sample() of --interarrival, times
 *             1 / (lambda E[interarrival]) so that the rate is lambda. In finite mode request 0
 *             arrives at time 0 and draws nothing; in steady mode every request draws.
 *   ROUTING   its class, only with more than one class: u = storq_rng_uniform, the first class c
 *             (in the order given) with u < share_0 + ... + share_c (the last class otherwise);
 *   SERVICE   the download times X_{j,0} .. X_{j,n-1} of its n coded chunks, in chunk order, each
 *             storq_dist_sample() of --download, drawn whether or not a policy uses them.
 * Chunk i of request j takes X_{j,i} of thread time to download under every policy: a thread that
 * takes a request takes its lowest-numbered available chunk (a preempted, partly downloaded one
 * has a lower number than any chunk never started), and a preempted chunk keeps its remaining
 * time. So every coupled policy sees the same arrivals, classes and chunk sizes. Nothing else is
 * random (the last-start bound's companion SEDPT-NR system, when one runs, uses these same chunk
 * times and draws nothing; bound.c's relaxation has the EXTRA stream); simultaneous events are
 * ordered (end time, request arrival number, chunk number), with completions at an arrival's
 * instant processed before it. */
#ifndef STORQ_THREADS_INTERNAL_H
#define STORQ_THREADS_INTERNAL_H

#include <stdint.h>

#include "distribution.h"
#include "model.h"
#include "model_kit.h"
#include "steady_state.h"

#define TH_MAX_CLASSES 16
#define TH_MAX_POLICIES 16
#define TH_MAX_N 1024            /* largest n of a class: a request keeps n chunk records */
#define TH_MAX_L 65536           /* threads */
#define TH_PRESENT_BINS 256      /* requests-present distribution: 0 .. 255, the rest in the last */
#define TH_MAX_PRESENT (1u << 22) /* requests present at once before a replication gives up */

/* Priority orders and passes. */
enum { TH_FCFS, TH_SERPT, TH_SEDPT };
enum { TH_R, TH_NR, TH_WCR }; /* redundant; no redundancy; NR then work-conserving redundancy */
enum { TH_FINITE, TH_STEADY };

typedef struct th_class {
    char name[17];
    double share;
    uint64_t n, k;
} th_class;

typedef struct th_policy {
    int order;      /* TH_FCFS, TH_SERPT, TH_SEDPT */
    int redund;     /* TH_R, TH_NR, TH_WCR */
    int preempt;    /* 0 / 1 */
    char name[32];  /* observable prefix: serpt_r_p, sedpt_r_np, ... */
    char spec[40];  /* as shown to the user: serpt-r:on */
} th_policy;

typedef struct th_ids {
    int flow, mean, p50, p99, p999;
    int cflow[TH_MAX_CLASSES], cmean[TH_MAX_CLASSES];
    int throughput, useful, cancelled, present, mean_present;
    int diff; /* diff_P_F_mean_flow_time (-1 for the first policy) */
} th_ids;

typedef struct th_ctx {
    uint64_t L;
    int nclass;
    th_class cls[TH_MAX_CLASSES];
    uint64_t nmax, dmin; /* largest n; min over classes of n - k + 1 */
    double Ek;           /* share-weighted mean k */
    storq_dist ia, dl;   /* inter-arrival shape and download law */
    int have_ia, have_dl;
    double ia_scale;     /* multiplies an inter-arrival sample: 1 / (lambda E[ia]) */
    double rho, lambda;
    int load_min;        /* rho defined with E[min of L downloads] (1) or E[X] / L (0) */
    double emin_L;       /* E[min of L i.i.d. downloads] (NAN when not computed) */
    int law_class;       /* 0 exp, 1 NLU, 2 NSU, 3 other */
    int npol;
    th_policy pol[TH_MAX_POLICIES];
    int bound;           /* --policy lists `bound` */
    int relax_bound;     /* exponential downloads: Theorem 1's relaxation is simulated (bound.c) */
    int bound_id;        /* its observable, bound_mean_flow_time */
    int last_start;      /* exp or NLU downloads, d_min >= L: SEDPT-NR's last starts are recorded */
    int vsys;            /* the system recording them: a listed sedpt-nr:off, or npol (companion) */
    int last_start_id;   /* bound_last_start_mean_flow_time */
    int mode;
    uint64_t requests;
    storq_run_length run; /* steady mode */
    char headline[STORQ_NAME_MAX];
    th_ids id[TH_MAX_POLICIES];
    storq_steady_ids steady;
} th_ctx;

/* Requests the event loop simulates: the finite run's, or the warm-up and the measured ones. */
static inline uint64_t th_requests_simulated(const th_ctx *x)
{
    return x->mode == TH_FINITE ? x->requests : x->run.warmup + x->run.arrivals;
}

/* Systems a replication runs: the listed policies, and SEDPT-NR's companion when the last-start
 * bound needs one (no sedpt-nr:off listed). */
static inline int th_systems(const th_ctx *x)
{
    return x->npol + (x->last_start && x->vsys == x->npol);
}

/* E[min of m i.i.d. downloads] (theory.c; NAN when the law has no closed form here). */
double storq_th_emin(const storq_dist *d, uint64_t m);
/* The chunk throughput (chunks per unit time) a policy sustains under full load, and whether it is
 * exact (1) or an estimate (0); INFINITY/NaN when unknown. */
double storq_th_capacity(const th_ctx *x, const th_policy *P, int *exact);
/* The paper's gap term for policy P (time), or NAN when no theorem's conditions hold; *label gets
 * which theorem. */
double storq_th_gap(const th_ctx *x, const th_policy *P, const char **label);

int storq_th_replicate(const void *ctx, const storq_stream_key *key, storq_record *rec,
                       storq_error *err);
/* bound.c: the paper's lower bound on the optimal mean flow time (exponential downloads), and the
 * model's replication (the policies, then the bound when listed). */
int storq_th_bound_replicate(const th_ctx *x, const storq_stream_key *key, storq_record *rec,
                             storq_error *err);
int storq_th_replicate_all(const void *ctx, const storq_stream_key *key, storq_record *rec,
                           storq_error *err);
int storq_th_theory(const void *ctx, storq_theory *out, storq_error *err);
int storq_th_compare(const void *ctx, const storq_summary *sim, const storq_theory *theory,
                     storq_theory *out, storq_error *err);

/* A request's class, one uniform from ROUTING by the classes' shares in order (no draw with one
 * class): the draw the policies' systems (dynamics.c) and the bound (bound.c) share. */
static inline uint32_t storq_th_draw_class(const th_ctx *x, storq_rng *rte)
{
    if (x->nclass == 1)
        return 0;
    const double u = storq_rng_uniform(rte);
    double cum = 0.0;
    for (int c = 0; c + 1 < x->nclass; c++) {
        cum += x->cls[c].share;
        if (u < cum)
            return (uint32_t)c;
    }
    return (uint32_t)(x->nclass - 1);
}

#endif
