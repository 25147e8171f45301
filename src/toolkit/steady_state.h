/* The steady-state check of a point (docs/steady-state.md): is the measured window past the
 * initial transient?
 *
 * Every replication of a steady-state point records its headline observable twice more: its mean
 * over the first half of the measured window and over the second half (split at the middle
 * measured arrival). The replications are independent and identically distributed, so the
 * differences d_r = first_r - second_r are too; with the window in steady state their mean is 0,
 * and after a warm-up too short it is not (from an empty start the first half is lower). The check
 * is a paired Student-t test on the d_r, at a small per-point false-alarm rate, plus a floor on
 * the size of the drift relative to the mean, so that a drift too small to matter does not warn
 * however many replications resolve it.
 *
 * The kernels fill the halves from what they already keep (a sum's value at the middle arrival, or
 * a time integral evaluated there once): no cost per event. The check reads only the replications'
 * values in replication order, so it is the same for any number of ranks and threads. */
#ifndef STORQ_STEADY_STATE_H
#define STORQ_STEADY_STATE_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "observables.h"
#include "theory.h"

#define STORQ_STEADY_FIRST "warmup_first_half_mean"
#define STORQ_STEADY_SECOND "warmup_second_half_mean"

/* The decision rule: warn when |mean drift| exceeds the two-sided Student-t quantile at this
 * level (R - 1 degrees of freedom) times its standard error, and this fraction of |mean|. */
#define STORQ_STEADY_LEVEL 0.999
#define STORQ_STEADY_FLOOR 0.01

/* The observable ids of a point's two halves (-1 when the point has none). */
typedef struct storq_steady_ids {
    int first, second;
} storq_steady_ids;

/* Declare the two per-replication halves of the headline observable `headline` (its unit). */
int storq_steady_declare(storq_observables *obs, storq_steady_ids *ids, const char *headline,
                         const char *unit, storq_error *err);

/* One replication's halves: NaN for a half with no measured arrival (too short a window). */
static inline void storq_steady_record(storq_record *rec, const storq_steady_ids *ids,
                                       double first, double second)
{
    storq_record_scalar(rec, ids->first, first);
    storq_record_scalar(rec, ids->second, second);
}

/* The measured arrivals of the first half of a window of `arrivals`: the second half begins at
 * measured arrival number storq_steady_half(arrivals) (counting from 0). */
static inline uint64_t storq_steady_half(uint64_t arrivals)
{
    return arrivals / 2;
}

typedef struct storq_steady_check {
    size_t replications; /* pairs */
    int tested;          /* at least 2 replications, every half finite */
    int warn;            /* tested, and the drift is both significant and large enough */
    double first, second; /* means over replications of each half */
    double drift;        /* mean of first - second */
    double stderr_;      /* its standard error */
    double t;            /* drift / stderr_ (+-inf when stderr_ = 0 and drift != 0; 0 when both) */
    double quantile;     /* the Student-t quantile |t| must exceed */
    double floor;        /* STORQ_STEADY_FLOOR times |mean of the two halves| */
} storq_steady_check;

/* The check of n paired values first[i * stride], second[i * stride], in that order. */
void storq_steady_check_pairs(const double *first, const double *second, size_t n,
                              size_t stride, storq_steady_check *out);

/* The check of a point from its summary (its replications' values). Returns 0 when the point has
 * no halves (no steady-state window), 1 with *out filled otherwise. */
int storq_steady_check_summary(const storq_summary *sim, storq_steady_check *out);

/* Add the check to a point's comparison arrays (steady_state_drift, steady_state_drift_stderr,
 * steady_state_warning: 1 warn, 0 pass, NaN untested); nothing when the point has no halves.
 * headline names the observable in the descriptions (NULL: unnamed). */
int storq_steady_compare(const storq_summary *sim, const char *headline, storq_theory *cmp,
                         storq_error *err);

/* Whether a name is one of the two halves (reports list them apart from the observables). */
int storq_steady_is_half(const char *name);

#endif
