/* Internals of the `cluster` kernel shared by its files: the point's context (built by params.c,
 * read by dynamics.c and theory.c), the coding rule, the size classes and the delay grid. The model
 * is described in docs/models/cluster.md. Not part of the engine interface: only the files of
 * kernels/cluster/ include it. */
#ifndef STORQ_CLUSTER_INTERNAL_H
#define STORQ_CLUSTER_INTERNAL_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "distribution.h"
#include "model.h"
#include "model_kit.h"
#include "steady_state.h"

#define CL_NPOL_MAX 3
#define CL_NGRID 50      /* points x of the P(D > x) grid */
#define CL_CLASS_TAB 256 /* sizes k below this find their class in a table */
#define CL_CCDF_TAB 4096 /* buckets of the P(D > x) counters: 128 octaves */
#define CL_SMALL_MAX 64  /* entries of the bit-mask path (one block each, drawn ahead) */

/* The busy-until times are stored server-major, policy-minor: server i's record holds the listed
 * policies' times, padded to a power of two (8, 16 or 32 bytes), so that in an array aligned to a
 * 64-byte line a record never straddles two lines and a request touches one line per server for
 * every coupled policy. */
static inline size_t cl_vstride(int npol)
{
    return npol <= 1 ? 1 : npol == 2 ? 2 : 4;
}

/* Delivery policies, in the order of their names. */
enum { CL_BR = 0, CL_BS = 1, CL_WF = 2 };
extern const char *const storq_cl_pol_name[3];
/* Coding rules: alpha_k = k, k + A, ceil(k / R), ceil(F k). */
enum { CL_CODE_NONE, CL_CODE_PLUS, CL_CODE_RATE, CL_CODE_TIMES };

/* One policy's observable ids. */
typedef struct cl_ids {
    int delay, mean, cmean, ccount, wfound, ccdf, util, diff;
    int chist0; /* the delay histogram of size class j has id chist0 + j */
} cl_ids;

/* One parameter point, built by prepare (ids by declare). Read-only during replications. */
typedef struct cl_ctx {
    uint64_t m;
    double lambda, mu, chunk;
    storq_ddist size;
    storq_dist cdist;
    int have_size, have_cdist;
    int coding;
    int64_t plus;
    double factor; /* R for rate:R, F for times:F */
    int npol;
    int pol[CL_NPOL_MAX];
    int need_keys; /* BS or WF listed: draw tie keys */
    storq_run_length run;
    double Ek, Ec, Ealpha, rho, EX, EX2, Eceil;
    int64_t kmax_class;   /* largest k the classes reach (P(size > k) < CL_CLASS_TAIL beyond) */
    int64_t kmax_support; /* largest k with mass (INT64_MAX for geom) */
    size_t nclass;
    int64_t *class_lo; /* lowest k of each class; class j = [lo_j, lo_{j+1} - 1], last open */
    uint8_t class_tab[CL_CLASS_TAB]; /* the class of k < CL_CLASS_TAB (no search per request) */
    double xgrid[CL_NGRID];
    /* P(D > x) counters without a search: D's bucket (exponent and 5 leading mantissa bits, a
     * 1/32 octave, narrower than the grid's step) holds at most one grid point, so the number
     * of grid points below D is ccdf_tab[bucket] (those below the bucket) plus one compare */
    double ccdf_x[CL_NGRID + 1]; /* xgrid, then +inf */
    int64_t ccdf_b0, ccdf_nb;    /* first bucket (that of xgrid[0]) and number of buckets */
    uint8_t ccdf_tab[CL_CCDF_TAB];
    storq_clock clock;
    /* the size law as a finite mixture (exact, or bucketed for very wide supports) */
    size_t nq;
    int64_t *qk;
    double *qw;
    int q_exact;
    cl_ids id[CL_NPOL_MAX];
    storq_steady_ids steady; /* the halves of the first policy's mean delay */
} cl_ctx;

/* Code blocks alpha_k of a file of k chunks. */
static inline int64_t cl_alpha(const cl_ctx *c, int64_t k)
{
    switch (c->coding) {
    case CL_CODE_PLUS:
        return k + c->plus;
    case CL_CODE_RATE: /* smallest a with a R >= k, R taken as written (relative 1e-12) */
        return (int64_t)ceil((double)k / c->factor * (1.0 - 1e-12));
    case CL_CODE_TIMES:
        return (int64_t)ceil((double)k * c->factor * (1.0 - 1e-12));
    default:
        return k;
    }
}

/* The size class of k: the largest j with class_lo[j] <= k. */
static inline size_t cl_class_of(const cl_ctx *c, int64_t k)
{
    size_t lo = 0, hi = c->nclass;
    while (hi - lo > 1) {
        size_t mid = (lo + hi) / 2;
        if (c->class_lo[mid] <= k)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* The bucket of x >= 0 in the P(D > x) counters: its exponent and 5 leading mantissa bits. */
static inline int64_t cl_bucket(double x)
{
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    return (int64_t)(bits >> 47);
}

/* Number of grid points below D (a lower bound on the sorted grid x of CL_NGRID points), without
 * branches: the binary search's compares are unpredictable. */
static inline size_t cl_grid_below(const double *x, double D)
{
    const double *b = x;
    size_t n = CL_NGRID;
    while (n > 1) {
        size_t half = n / 2;
        b += (size_t)(b[half - 1] < D) * half;
        n -= half;
    }
    return (size_t)(b - x) + (*b < D);
}

/* dynamics.c: one replication of the coupled policies. */
int storq_cl_replicate(const void *vctx, const storq_stream_key *key, storq_record *rec,
                 storq_error *err);

/* theory.c: the cavity-queue and product-form arrays, and the simulation against them. */
int storq_cl_theory(const void *vctx, storq_theory *out, storq_error *err);
/* In prepare: the theory's memory (storq_cl_cavity_bytes) against the rank's budget. */
int storq_cl_theory_check(const cl_ctx *c, storq_error *err);
int storq_cl_compare(const void *vctx, const storq_summary *sim, const storq_theory *theory,
               storq_theory *out, storq_error *err);

#endif
