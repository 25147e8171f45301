/* Quantiles of a stored histogram. The q-quantile is the value below which a fraction q of the
 * samples lie: the bin holding the sample of rank q count is found by adding the counts
 * (underflow first), and inside a log-linear bin the value is interpolated linearly, which puts
 * it within the bin's relative width 2^-s of the samples' quantile (src/toolkit/observables.h); it is
 * then kept within [min, max]. Integer bins [j, j+1) give j, exact for integer samples. A rank
 * in the underflow or overflow is reported as the bound the edge gives. */
#include "h5_info_hist.h"

#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "h5_util.h"

const double storq_info_quantile_levels[STORQ_INFO_NQUANTILES] = {0.5, 0.9, 0.99, 0.999};
const char *const storq_info_quantile_names[STORQ_INFO_NQUANTILES] = {"p50", "p90", "p99",
                                                                      "p99.9"};

static double scalar_f64(hid_t g, const char *name, storq_error *err)
{
    double *v = NULL, x = NAN;
    size_t n = 0;
    if (storq_h5u_read_f64(g, name, &v, &n, err) == STORQ_OK && n == 1)
        x = v[0];
    free(v);
    return x;
}

/* Every quantile in one walk over the bins: the ranks grow with the levels, so each bin settles
 * the quantiles whose rank it reaches, in order (a 20,000-point file's info walks 200 million
 * bins; four walks cost as much as decompressing them). */
void storq_info_hist_quantiles(storq_info_hist *h, const double *counts, const double *edges,
                               size_t nbins, uint64_t under, uint64_t over)
{
    (void)over;
    double rank[STORQ_INFO_NQUANTILES];
    int i = 0;
    for (int k = 0; k < STORQ_INFO_NQUANTILES; k++) {
        /* the rank (1-based) of the sample at the quantile: ceil(q count), at least 1 */
        rank[k] = ceil(storq_info_quantile_levels[k] * (double)h->count);
        if (rank[k] < 1)
            rank[k] = 1;
    }
    if (h->count == 0) {
        for (; i < STORQ_INFO_NQUANTILES; i++) {
            h->where[i] = STORQ_Q_EMPTY;
            h->q[i] = NAN;
        }
        return;
    }
    double cum = (double)under;
    for (; i < STORQ_INFO_NQUANTILES && rank[i] <= cum; i++) {
        h->where[i] = STORQ_Q_UNDERFLOW;
        h->q[i] = edges[0];
    }
    for (size_t j = 0; j < nbins && i < STORQ_INFO_NQUANTILES; j++) {
        double c = counts[j];
        for (; c > 0 && i < STORQ_INFO_NQUANTILES && rank[i] <= cum + c; i++) {
            double v = h->integer ? edges[j]
                                  : edges[j] + (rank[i] - cum) / c * (edges[j + 1] - edges[j]);
            h->where[i] = STORQ_Q_BINS;
            h->q[i] = fmax(h->min, fmin(h->max, v));
        }
        cum += c;
    }
    for (; i < STORQ_INFO_NQUANTILES; i++) {
        h->where[i] = STORQ_Q_OVERFLOW;
        h->q[i] = edges[nbins];
    }
}

int storq_info_hist_read(hid_t g, storq_info_hist *h, storq_error *err)
{
    memset(h, 0, sizeof *h);
    uint64_t under = 0, over = 0;
    double *edges = NULL, *counts = NULL; /* counts as doubles: exact below 2^53 */
    size_t nb = 0, ne = 0;
    char *kind = NULL;
    int rc = storq_h5u_read_u64_scalar(g, "count", &h->count, err);
    if (!rc)
        rc = storq_h5u_read_u64_scalar(g, "underflow", &under, err);
    if (!rc)
        rc = storq_h5u_read_u64_scalar(g, "overflow", &over, err);
    if (!rc)
        rc = storq_h5u_read_f64(g, "counts", &counts, &nb, err);
    if (!rc)
        rc = storq_h5u_read_f64(g, "bin_edges", &edges, &ne, err);
    if (!rc && ne != nb + 1)
        rc = storq_h5u_fail(err, g, "a histogram's bin_edges are not one longer than its counts");
    if (!rc && storq_h5u_has_attr(g, "histogram_kind"))
        rc = storq_h5u_read_attr_string(g, "histogram_kind", &kind, err);
    if (!rc) {
        h->mean = scalar_f64(g, "mean", err);
        h->min = scalar_f64(g, "min", err);
        h->max = scalar_f64(g, "max", err);
        rc = err->code;
    }
    if (!rc) {
        h->integer = kind && !strcmp(kind, "integer");
        h->resolution = NAN;
        if (!h->integer && storq_h5u_has_attr(g, "relative_resolution"))
            rc = storq_h5u_read_attr_f64(g, "relative_resolution", &h->resolution, err);
    }
    if (!rc)
        storq_info_hist_quantiles(h, counts, edges, nb, under, over);
    free(counts);
    free(edges);
    free(kind);
    return rc;
}

void storq_info_quantile_text(const storq_info_hist *h, int i, char *buf, size_t size)
{
    switch (h->where[i]) {
    case STORQ_Q_BINS:
        snprintf(buf, size, "%.4g", h->q[i]);
        break;
    case STORQ_Q_UNDERFLOW:
        snprintf(buf, size, "<%.3g", h->q[i]);
        break;
    case STORQ_Q_OVERFLOW:
        snprintf(buf, size, ">=%.3g", h->q[i]);
        break;
    default:
        snprintf(buf, size, "-");
    }
}

void storq_info_resolution_text(const storq_info_hist *h, char *buf, size_t size)
{
    if (h->integer)
        snprintf(buf, size, "exact");
    else if (isnan(h->resolution))
        snprintf(buf, size, "?");
    else
        snprintf(buf, size, "+-%.2g%%", 100 * h->resolution);
}
