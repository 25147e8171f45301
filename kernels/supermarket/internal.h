/* Internals of the `supermarket` kernel (docs/models/supermarket.md), shared by the folder's files:
 * the point's context (params.c), the occupancy accumulator (occupancy.c), the k-shortest selection
 * and the start specs, the two exact engines (servers.c, counts.c) and the model's replicate,
 * theory and compare hooks. Not part of the engine interface: only kernels/supermarket/ and the
 * kernel's tests include it. */
#ifndef STORQ_SUPERMARKET_INTERNAL_H
#define STORQ_SUPERMARKET_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "distribution.h"
#include "error.h"
#include "model.h"
#include "model_kit.h"
#include "observables.h"
#include "rng.h"
#include "steady_state.h"

enum { SMK_ENGINE_SERVERS = 0, SMK_ENGINE_COUNTS = 1 };
enum { SMK_MODE_STEADY = 0, SMK_MODE_TRANSIENT = 1 };

/* One parameter point, parsed and checked by prepare(). Read-only during replications. */
typedef struct smk_ctx {
    uint64_t n;        /* servers */
    unsigned L, k;     /* sampled per job, tasks per job */
    double lambda;     /* per-server job rate: jobs arrive at rate n lambda */
    int with_replacement;
    int engine, mode;
    storq_dist service;
    int service_exp;   /* storq_dist_is_exp(&service) */
    double mu;         /* exponential service rate (service_exp), else 1 / mean */
    double load;       /* lambda k E[service]: per-server load, capacity 1 */
    storq_run_length run;
    double horizon;
    size_t grid;       /* intervals: grid + 1 recording times */
    size_t levels;     /* occupancy levels 0..levels-1 reported */
    /* initial state (either mode): start_N[i] = servers with >= i tasks, i = 0..start_depth
     * (start_N[0] = n, start_N[start_depth] > 0 unless start_depth = 0) */
    uint64_t *start_N;
    size_t start_depth;
    char start_spec[256];
    /* observable ids (set by declare) */
    int id_u, id_nvar, id_mql, id_aql, id_sojourn, id_delay, id_msojourn, id_mdelay;
    int id_ut, id_mqlt;
    storq_steady_ids steady; /* the halves of mean_queue_length (steady mode) */
} smk_ctx;

/* ---- occupancy N_i = number of queues with >= i tasks, and its time integrals ----
 * Integrals are kept lazily: each level remembers when it last changed and adds (N_i - c_i) dt and
 * (N_i - c_i)^2 dt only when N_i changes, so an event costs O(1), not O(levels). The shift c_i is
 * N_i at the window start: it keeps the variance free of cancellation when N_i is large. Times
 * inside the window are measured from its start. */
typedef struct smk_occ {
    uint64_t n;
    uint64_t *N;     /* N[0] = n; N[i] = 0 for i >= depth */
    size_t depth;    /* 1 + the deepest level with N_i > 0 (1 when empty) */
    size_t cap;      /* allocated levels */
    uint64_t Q;      /* tasks in system = sum_{i>=1} N_i */
    int measuring;
    double t0;       /* window start */
    double *last, *c, *s1, *s2;
    /* the steady-state check: the window's first half, [t0, t0 + half_T], and the integral of
     * the tasks in system over it (storq_smk_occ_half; half_T < 0 until then) */
    double half_T, half_I;
} smk_occ;

int storq_smk_occ_init(smk_occ *o, uint64_t n, size_t cap);
void storq_smk_occ_free(smk_occ *o);
int storq_smk_occ_grow(smk_occ *o, size_t need);
/* Begin the measurement window at absolute time t (O(depth), once). */
void storq_smk_occ_begin(smk_occ *o, double t);
/* End it at absolute time t: flush every level (O(depth), once). */
void storq_smk_occ_end(smk_occ *o, double t);
/* The middle of the window, at absolute time t (O(depth), once): the integral of the tasks in
 * system so far, read without flushing the levels (their sums stay those of a window without
 * a middle). */
void storq_smk_occ_half(smk_occ *o, double t);
/* The arrival, counted from 0, that begins the second half of the window (UINT64_MAX when the
 * window is too short for two halves of positive length: fewer than 3 measured arrivals). */
static inline uint64_t smk_half_arrival(uint64_t warmup, uint64_t arrivals)
{
    return arrivals >= 3 ? warmup + storq_steady_half(arrivals) : UINT64_MAX;
}

static inline void smk_occ_touch_(smk_occ *o, size_t i, double t)
{
    double tt = t - o->t0;
    double x = (double)(int64_t)o->N[i] - o->c[i]; /* N_i <= n < 2^63: a signed conversion */
    double dt = tt - o->last[i];
    o->s1[i] += x * dt;
    o->s2[i] += x * x * dt;
    o->last[i] = tt;
}

/* A queue grows to length j >= 1 at time t: N_j++. */
static inline int smk_occ_up(smk_occ *o, size_t j, double t)
{
    if (j >= o->cap && storq_smk_occ_grow(o, j + 1))
        return -1;
    if (o->measuring)
        smk_occ_touch_(o, j, t);
    if (o->N[j]++ == 0)
        o->depth = j + 1;
    o->Q++;
    return 0;
}

/* A queue shrinks from length j >= 1 at time t: N_j--. */
static inline void smk_occ_down(smk_occ *o, size_t j, double t)
{
    if (o->measuring)
        smk_occ_touch_(o, j, t);
    if (--o->N[j] == 0 && j + 1 == o->depth)
        o->depth = j;
    o->Q--;
}

/* Time averages over the window [t0, t1] of u_i = N_i / n and n Var(u_i), i < levels, and of
 * sum_{i>=1} u_i. A zero-length window (arrivals = 1) reports the state at its start. */
void storq_smk_occ_results(const smk_occ *o, double T, size_t levels, double *u, double *nvar,
                     double *mql);

/* ---- the k shortest of L sampled queues ----
 * Entries sorted by (length, position in the sample); the first k are chosen, in that order. The
 * sample order is uniformly random, so this breaks ties uniformly at random. Expected O(L + k log
 * k): quickselect on distinct keys (length << 11 | position), then the k chosen are sorted. scratch
 * holds L values. Writes the chosen positions to chosen[0..k-1]. */
void storq_smk_select_k(const uint64_t *len, unsigned L, unsigned k, uint64_t *scratch,
                  unsigned *chosen);

/* ---- start specs: "empty", "fill:J", "u:U1,U2,...", "fixed" ----
 * Fills N[i] (servers with >= i tasks, i = 0..*depth) and *depth; usage error naming --start.
 * "fixed" is the mean-field fixed point of (L, k, load), which needs load < 1. */
int storq_smk_parse_start(const char *spec, uint64_t n, unsigned L, unsigned k, double load,
                          uint64_t **N, size_t *depth, storq_error *err);

/* ---- engines ---- */

/* Servers engine, exponential service, rejection mode (from 2B >= n until 4B < n): the departing
 * server is the first busy one in a sequence of uniform candidate servers (EXTRA stream), drawn
 * SMK_CANDIDATES ahead so that their records can be prefetched (see servers.c); the
 * candidates drawn ahead are dropped when the mode ends. Part of the draw order of the EXTRA
 * stream, hence here: the differential test replays it. */
#define SMK_CANDIDATES 4

int storq_smk_run_servers(const smk_ctx *c, const storq_stream_key *key, storq_record *rec,
                          storq_error *err);
/* Bytes the servers engine allocates per server before a replication starts (records, busy list
 * or heap), for prepare()'s memory check; the task and job pools grow with what is in system. */
size_t storq_smk_servers_bytes(const smk_ctx *c);
int storq_smk_run_counts(const smk_ctx *c, const storq_stream_key *key, storq_record *rec,
                         storq_error *err);

/* Grid time t_j = j horizon / grid (the same expression everywhere). */
static inline double smk_grid_time(const smk_ctx *c, size_t j)
{
    return (double)j * c->horizon / (double)c->grid;
}

/* Write the state at grid time j of a transient run (u_t row j, mean_queue_length_t[j]). */
void storq_smk_record_grid(const smk_ctx *c, const smk_occ *o, storq_record *rec, size_t j);
/* Write the steady-mode occupancy observables from a finished window. */
void storq_smk_record_steady(const smk_ctx *c, const smk_occ *o, double T, storq_record *rec);

/* ---- the model's hooks ---- */

/* One replication, by the point's engine (dynamics.c). */
int storq_smk_replicate(const void *ctx, const storq_stream_key *key, storq_record *rec,
                  storq_error *err);
/* The mean-field arrays of the point, and the simulation against them (theory.c). */
int storq_smk_theory(const void *ctx, storq_theory *out, storq_error *err);
/* The bytes the theory holds at its peak (steady: the refined solve's dense matrices, sized by
 * the levels the fixed point needs; transient: the ODE over the time grid), for the memory check
 * in prepare; 0 when it allocates little. */
size_t storq_smk_theory_bytes(const smk_ctx *c);
int storq_smk_compare(const void *ctx, const storq_summary *sim, const storq_theory *theory,
                storq_theory *out, storq_error *err);

#endif
