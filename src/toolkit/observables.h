/* Observables a model declares once per point and fills once per replication.
 *
 * Three kinds, all recorded per replication:
 *   scalar     one double per replication (e.g. a mean delay); the engine derives mean, standard
 *              error and a Student-t 95% CI across replications;
 *   vector     a fixed-length array per replication (e.g. the occupancy u_i), or a row-major matrix
 *              (e.g. u_i(t): one row per grid time, one column per level), summarised element by
 *              element like scalars, with an optional axis along its rows (level, time);
 *   histogram  uint64 counts merged by plain addition (exact and order-free), plus min and max
 *              (order-free) and a per-replication sum (reduced in replication order).
 *
 * Log-linear histograms: bin edges 2^e (1 + j / 2^s) for e in [emin, emax), j in [0, 2^s), where
 * 2^emin <= lo and 2^emax >= hi; every bin's width is at most 2^-s of its lower edge, so a quantile
 * read off the bins (linear interpolation inside a bin) is within a relative 2^-s of the truth.
 * Values below 2^emin (including 0) go to the underflow bin, values >= 2^emax to overflow.
 * Integer histograms: bins [j, j+1) for j = 0 .. nbins-1, overflow for values >= nbins.
 * counts[0] is the underflow, counts[nbins+1] the overflow. */
#ifndef STORQ_OBSERVABLES_H
#define STORQ_OBSERVABLES_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "error.h"
#include "memory.h"

typedef enum storq_obs_kind { STORQ_OBS_SCALAR, STORQ_OBS_VECTOR, STORQ_OBS_HIST } storq_obs_kind;
typedef enum storq_hist_kind { STORQ_HIST_LOGLIN, STORQ_HIST_INT } storq_hist_kind;

#define STORQ_NAME_MAX 64

typedef struct storq_obs_def {
    char name[STORQ_NAME_MAX];
    char unit[32];
    char desc[256];
    storq_obs_kind kind;
    size_t length;       /* scalar: 1; vector: rows * cols; histogram: 1 (its sum) */
    size_t cols;         /* vectors: 1, or the columns of a row-major matrix such as u(t)_i */
    size_t value_offset; /* into a record's values */
    /* vectors: optional axis (e.g. "level" 0..I, or "t" on a time grid) */
    char axis_name[32];
    double *axis;        /* owned, one value per row, or NULL */
    /* histograms */
    storq_hist_kind hist_kind;
    int emin, emax, sub_bits;
    size_t nbins;        /* not counting underflow and overflow */
    size_t count_offset; /* into a record's counts (nbins + 2 of them) */
    size_t minmax_offset;/* into a record's minmax (2 of them) */
} storq_obs_def;

/* The schema of a point's observables (what declare() asked for). */
typedef struct storq_observables {
    storq_obs_def *defs;
    size_t ndefs, cap;
    size_t nvalues; /* doubles per replication */
    size_t ncounts; /* histogram counts */
    size_t nminmax; /* 2 per histogram */
    size_t bytes;   /* one record's values, counts and min/max, plus the axes (saturating) */
} storq_observables;

/* Each declare writes the observable's id (>= 0) to *id and returns STORQ_OK, or returns an error
 * code with err set (*id is then -1). Names are unique, made of letters, digits and '_' (they
 * become HDF5 group names). Sizes are overflow-checked; what a point's observables need in memory
 * is obs->bytes (see storq_memory_check). */
int storq_declare_scalar(storq_observables *obs, int *id, const char *name, const char *unit,
                         const char *desc, storq_error *err);
int storq_declare_vector(storq_observables *obs, int *id, const char *name, const char *unit,
                         const char *desc, size_t length, const char *axis_name,
                         const double *axis, storq_error *err);
/* A rows x cols matrix (row-major); the axis, if any, labels the rows. */
int storq_declare_matrix(storq_observables *obs, int *id, const char *name, const char *unit,
                         const char *desc, size_t rows, size_t cols, const char *axis_name,
                         const double *axis, storq_error *err);
int storq_declare_hist_loglin(storq_observables *obs, int *id, const char *name,
                              const char *unit, const char *desc, double lo, double hi,
                              int sub_bits, storq_error *err);
int storq_declare_hist_int(storq_observables *obs, int *id, const char *name, const char *unit,
                           const char *desc, size_t nbins, storq_error *err);
void storq_observables_free(storq_observables *obs);
const storq_obs_def *storq_obs_find(const storq_observables *obs, const char *name);
/* The nbins + 1 bin edges of a histogram (edge[0] is the underflow/first-bin boundary). */
void storq_hist_edges(const storq_obs_def *def, double *edges);
/* The most bins of any histogram declared (0 if none): edges of any of them fit in that + 1. */
size_t storq_observables_max_nbins(const storq_observables *obs);

/* One replication's results. The engine zeroes it before each replication. */
typedef struct storq_record {
    const storq_observables *schema;
    double *values;
    uint64_t *counts;
    double *minmax; /* min, max per histogram; +inf, -inf when empty */
    uint64_t events; /* events simulated (for progress and performance figures) */
} storq_record;

int storq_record_init(storq_record *rec, const storq_observables *schema, storq_error *err);
void storq_record_reset(storq_record *rec);
void storq_record_free(storq_record *rec);

/* The q-quantile of histogram id in one replication's record, read off its bins (linear inside a
 * bin): NAN when it is empty, the first edge when the underflow holds it, +inf when only the
 * overflow does. edges: room for the histogram's nbins + 1 edges (overwritten). */
double storq_record_hist_quantile(const storq_record *rec, int id, double q, double *edges);

static inline void storq_record_scalar(storq_record *rec, int id, double v)
{
    rec->values[rec->schema->defs[id].value_offset] = v;
}

static inline double *storq_record_vector(storq_record *rec, int id)
{
    return rec->values + rec->schema->defs[id].value_offset;
}

/* A handle for the hot loop: add values without looking the histogram up each time. */
typedef struct storq_hist {
    uint64_t *counts; /* underflow, bins, overflow */
    double *sum, *min, *max;
    double lo, hi;    /* 2^emin, 2^emax (loglin); 0, nbins (int) */
    int emin, sub_bits;
    storq_hist_kind kind;
    size_t nbins;
} storq_hist;

storq_hist storq_record_hist(storq_record *rec, int id);

/* The bin of x: 0 for underflow (x < lo, NaN included), nbins + 1 for overflow (x >= hi). The
 * range selection is branch-free (an idle server's x = 0 is common and unpredictable); the kind
 * test is the same for every value of a histogram, so it predicts perfectly. */
static inline size_t storq_hist_bin(const storq_hist *h, double x)
{
    size_t bin;
    if (h->kind == STORQ_HIST_INT) {
        bin = (size_t)(x >= h->lo && x < h->hi ? x : 0.0) + 1;
    } else {
        /* for x > 0, bits >> (52 - sub_bits) is (biased exponent << sub_bits) | the leading
         * sub_bits mantissa bits: bin = ((exponent - emin) << sub_bits) + those bits + 1 (for
         * other x the value is discarded below; unsigned arithmetic wraps harmlessly) */
        uint64_t bits;
        memcpy(&bits, &x, sizeof bits);
        bin = (size_t)(bits >> (52 - h->sub_bits)) - ((size_t)(1023 + h->emin) << h->sub_bits) + 1;
    }
    bin = x >= h->hi ? h->nbins + 1 : bin;
    return bin & -(size_t)(x >= h->lo); /* a mask: GCC makes a branch of "?:" here */
}

/* x added m >= 1 times at once (a kernel that counts integer values first): the sum grows by
 * x m, the same double as m single adds while the sums stay integers below 2^53. */
static inline void storq_hist_add_n(storq_hist *h, double x, uint64_t m)
{
    h->counts[storq_hist_bin(h, x)] += m;
    *h->sum += x * (double)m;
    if (x < *h->min)
        *h->min = x;
    if (x > *h->max)
        *h->max = x;
}

static inline void storq_hist_add(storq_hist *h, double x)
{
    storq_hist_add_n(h, x, 1); /* x * 1.0 is x: the same sum as adding x */
}

/* Everything a point's replications produced, merged. values is replications x nvalues, indexed by
 * replication number, so summaries reduce floating sums in replication order. */
typedef struct storq_point_result {
    const storq_observables *schema;
    size_t replications;
    double *values;
    uint64_t *counts;
    double *minmax;
    uint64_t events;
} storq_point_result;

int storq_point_result_init(storq_point_result *res, const storq_observables *schema,
                            size_t replications, storq_error *err);
/* Merge one finished replication (counts add, min/max combine, values go to row rep). */
void storq_point_result_add(storq_point_result *res, size_t rep, const storq_record *rec);
void storq_point_result_free(storq_point_result *res);

/* Across-replication statistics of every value element. */
typedef struct storq_summary {
    const storq_observables *schema;
    size_t replications;
    double *mean, *stderr_, *ci95; /* nvalues each; ci95 is the half-width */
    const storq_point_result *result;
} storq_summary;

int storq_summary_compute(storq_summary *s, const storq_point_result *res, storq_error *err);
/* The summary of value element j over replications 0 .. R-1 of res: the same bits as
 * storq_summary_compute's element j with res->replications = R, at the cost of one column. */
void storq_summary_column(const storq_point_result *res, size_t R, size_t j, double *mean,
                          double *stderr_, double *ci95);
void storq_summary_free(storq_summary *s);

#endif
