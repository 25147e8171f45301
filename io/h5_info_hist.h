/* A stored histogram (docs/hdf5-schema.md, "histogram") read back for `storq info`, and its
 * quantiles read off the bins. */
#ifndef STORQ_H5_INFO_HIST_H
#define STORQ_H5_INFO_HIST_H

#include <hdf5.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

#define STORQ_INFO_NQUANTILES 4
/* p50, p90, p99, p99.9 */
extern const double storq_info_quantile_levels[STORQ_INFO_NQUANTILES];
extern const char *const storq_info_quantile_names[STORQ_INFO_NQUANTILES];

typedef enum storq_quantile_where {
    STORQ_Q_BINS,      /* value holds it, within the histogram's resolution */
    STORQ_Q_UNDERFLOW, /* below the first edge: value is that edge, an upper bound */
    STORQ_Q_OVERFLOW,  /* at or above the last edge: value is that edge, a lower bound */
    STORQ_Q_EMPTY      /* no samples */
} storq_quantile_where;

typedef struct storq_info_hist {
    uint64_t count;
    double mean, min, max;
    int integer;       /* integer bins (the quantile is the bin, exact for integer samples) */
    double resolution; /* log-linear: the relative resolution 2^-s */
    double q[STORQ_INFO_NQUANTILES];
    storq_quantile_where where[STORQ_INFO_NQUANTILES];
} storq_info_hist;

/* Read the histogram group g (its counts, bin_edges, underflow, overflow, min, max, mean) and
 * compute its quantiles. */
int storq_info_hist_read(hid_t g, storq_info_hist *h, storq_error *err);

/* The quantiles of h (its count, min, max and integer set) from its nbins counts (as doubles:
 * exact below 2^53), its nbins + 1 edges, and the samples below and above them. */
void storq_info_hist_quantiles(storq_info_hist *h, const double *counts, const double *edges,
                               size_t nbins, uint64_t under, uint64_t over);

/* Quantile i as table text: "0.0123", "<1e-06", ">=1e+09", "-". */
void storq_info_quantile_text(const storq_info_hist *h, int i, char *buf, size_t size);

/* The resolution as table text: "+-0.78%" or "exact" (integer bins). */
void storq_info_resolution_text(const storq_info_hist *h, char *buf, size_t size);

#endif
