/* Probability laws given as strings ("exp:2", "shexp:0.1,5", "pmf:1=0.5,4=0.5", ...): one
 * grammar for every model, listed with means and variances in docs/distributions.md. Parsed once
 * per parameter point, sampled in hot loops. */
#ifndef STORQ_DISTRIBUTION_H
#define STORQ_DISTRIBUTION_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "rng.h"

#define STORQ_DIST_MAX_PARAMS 32

/* Continuous laws of a non-negative time or size. */
typedef enum storq_dist_kind {
    STORQ_DIST_EXP,      /* exp:RATE */
    STORQ_DIST_DET,      /* det:VALUE */
    STORQ_DIST_SHEXP,    /* shexp:DELTA,RATE  = DELTA + Exp(RATE) */
    STORQ_DIST_PARETO,   /* pareto:ALPHA,MEAN (ALPHA > 1; scale xm = MEAN (ALPHA-1)/ALPHA) */
    STORQ_DIST_ERLANG,   /* erlang:K,RATE     = sum of K Exp(RATE) */
    STORQ_DIST_HYPEREXP, /* hyperexp:P1,RATE1,P2,RATE2[,...] (P sum to 1) */
    STORQ_DIST_UNIFORM,  /* uniform:A,B (0 <= A < B) */
    STORQ_DIST_TRACE     /* trace:PATH (i.i.d. resampling of the file's numbers) */
} storq_dist_kind;

/* The largest trace file read (1 GiB, about 100 million numbers): a trace is held in memory. */
#define STORQ_TRACE_MAX_BYTES (1ull << 30)

typedef struct storq_dist {
    storq_dist_kind kind;
    int nparams;
    double p[STORQ_DIST_MAX_PARAMS];
    const double *trace; /* STORQ_DIST_TRACE only: the file's numbers, shared (read once) */
    size_t ntrace;
    double mean, var; /* exact (trace: of the empirical law); var is INFINITY when infinite */
    char spec[256];   /* the string it was parsed from */
} storq_dist;

/* Parse spec; on error return STORQ_ERR_USAGE with a message naming param and what is accepted. */
int storq_dist_parse(const char *spec, const char *param, storq_dist *d, storq_error *err);
/* The same, listing accepted (the forms a parameter takes) in its messages. */
int storq_dist_parse_as(const char *spec, const char *param, const char *accepted, storq_dist *d,
                        storq_error *err);
double storq_dist_sample(const storq_dist *d, storq_rng *rng);
void storq_dist_free(storq_dist *d);
/* True when the law is exponential (the case the mean-field theories assume). */
int storq_dist_is_exp(const storq_dist *d);

/* Discrete laws of a positive integer (file sizes in chunks). */
typedef enum storq_ddist_kind {
    STORQ_DDIST_FIXED,   /* fixed:K */
    STORQ_DDIST_GEOM,    /* geom:P, P(k) = (1-P)^(k-1) P, k >= 1 */
    STORQ_DDIST_BINOM,   /* binom:M,P conditioned on k >= 1 */
    STORQ_DDIST_UNIFORM, /* uniform:A,B, integers A..B, 1 <= A <= B */
    STORQ_DDIST_PMF      /* pmf:K1=P1,K2=P2,... (P sum to 1 within 1e-9) */
} storq_ddist_kind;

typedef struct storq_ddist {
    storq_ddist_kind kind;
    double p[2];
    int64_t *values; /* owned; support for binom and pmf (alias-free: inverse CDF table) */
    double *cdf;     /* owned; cumulative probabilities matching values */
    size_t nvalues;
    int64_t min, max; /* support bounds (max = INT64_MAX for geom) */
    double mean, var;
    char spec[256];
} storq_ddist;

int storq_ddist_parse(const char *spec, const char *param, storq_ddist *d, storq_error *err);
int64_t storq_ddist_sample(const storq_ddist *d, storq_rng *rng);
double storq_ddist_pmf(const storq_ddist *d, int64_t k);
/* P(lo <= X <= hi); 0 when hi < lo. Closed forms for fixed, geom and uniform; binom and pmf sum
 * their table. */
double storq_ddist_mass(const storq_ddist *d, int64_t lo, int64_t hi);
/* Where to cut the support so that less than `tail` lies beyond it: the support's maximum when that
 * is finite (nothing is cut), else (geom) the smallest K >= 1 with P(X > K) < tail, at most 9e15
 * (so that K and the sizes up to it stay exact as doubles). */
int64_t storq_ddist_tail_cut(const storq_ddist *d, double tail);
void storq_ddist_free(storq_ddist *d);

/* The three ways a model takes a law, each a set of forms of the one grammar:
 *   STORQ_LAWS_TIME     a time or size law in full: exp:RATE, shexp:DELTA,RATE, ...
 *   STORQ_LAWS_AT_MEAN  a law's shape only, scaled to a mean the model sets (forkjoin's task
 *                       times, mean 1/(k mu)): exp, det, pareto:ALPHA, shexp:F, trace:PATH
 *   STORQ_LAWS_COUNT    a law of a positive integer: fixed:K, geom:P, ... */
typedef enum storq_law_set {
    STORQ_LAWS_NONE = 0,
    STORQ_LAWS_TIME,
    STORQ_LAWS_AT_MEAN,
    STORQ_LAWS_COUNT
} storq_law_set;

/* The accepted forms, as `storq models` and error messages print them. */
const char *storq_law_forms(storq_law_set set);

/* A law given by its shape at a mean the model sets. shape: pareto's ALPHA, shexp's F (the
 * shift's share of the mean, 0 <= F < 1), else 0; scale: what a trace's samples are multiplied by
 * to have the mean (1 for the others, whose parameters already give it). d is the full law
 * (exp:1/mean, det:mean, pareto:ALPHA,mean, shexp:F mean,1/((1-F) mean), or the trace as read).
 * A full form (exp:RATE) is refused with a message saying the model sets the mean. */
int storq_dist_parse_at_mean(const char *spec, double mean, const char *param, storq_dist *d,
                             double *shape, double *scale, storq_error *err);

#endif
