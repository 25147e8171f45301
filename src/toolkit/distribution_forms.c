/* The forms each kind of law parameter accepts, and laws given by their shape at a mean the model
 * sets (docs/distributions.md). */
#include "distribution.h"
#include "number.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define AT_MEAN_FORMS                                                                      \
    "exp, det, pareto:ALPHA (ALPHA > 1), shexp:F (0 <= F < 1, the shift's share of the "    \
    "mean), trace:PATH (rescaled), all at the mean the model sets"

const char *storq_law_forms(storq_law_set set)
{
    switch (set) {
    case STORQ_LAWS_TIME:
        return "exp:RATE, det:VALUE, shexp:DELTA,RATE, pareto:ALPHA,MEAN, erlang:K,RATE, "
               "hyperexp:P1,RATE1,P2,RATE2[,...], uniform:A,B, trace:PATH";
    case STORQ_LAWS_AT_MEAN:
        return AT_MEAN_FORMS;
    case STORQ_LAWS_COUNT:
        return "fixed:K, geom:P, binom:M,P, uniform:A,B, pmf:K1=P1,K2=P2,...";
    case STORQ_LAWS_NONE:
        break;
    }
    return "";
}

/* The one number grammar (number.h). */
static int parse_number(const char *s, double *x)
{
    return storq_number_real(s, x) == 0;
}

int storq_dist_parse_at_mean(const char *spec, double mean, const char *param, storq_dist *d,
                             double *shape, double *scale, storq_error *err)
{
    char law[300];
    double x = 0;
    *shape = 0;
    *scale = 1;
    memset(d, 0, sizeof *d);
    if (!strcmp(spec, "exp")) {
        snprintf(law, sizeof law, "exp:%.17g", 1.0 / mean);
    } else if (!strcmp(spec, "det")) {
        snprintf(law, sizeof law, "det:%.17g", mean);
    } else if (!strcmp(spec, "pareto") || !strcmp(spec, "shexp")) {
        return storq_fail(err, STORQ_ERR_USAGE,
                          "%s: '%s' needs its parameter: pareto:ALPHA (shape ALPHA > 1) or "
                          "shexp:F (the shift's share F of the mean, 0 <= F < 1)", param, spec);
    } else if (!strncmp(spec, "pareto:", 7)) {
        if (!parse_number(spec + 7, &x))
            return storq_fail(err, STORQ_ERR_USAGE,
                              "%s: '%s': give the Pareto shape as pareto:ALPHA with a number "
                              "ALPHA > 1 (the model sets the mean)", param, spec);
        if (!(x > 1.0))
            return storq_fail(err, STORQ_ERR_USAGE,
                              "%s: Pareto shape %g is not > 1: the mean is infinite for "
                              "ALPHA <= 1; give pareto:ALPHA with ALPHA > 1", param, x);
        snprintf(law, sizeof law, "pareto:%.17g,%.17g", x, mean);
    } else if (!strncmp(spec, "shexp:", 6)) {
        if (!parse_number(spec + 6, &x) || !(x >= 0.0 && x < 1.0))
            return storq_fail(err, STORQ_ERR_USAGE,
                              "%s: '%s': give the shifted exponential as shexp:F with the "
                              "shift's share F of the mean, 0 <= F < 1 (det is F = 1)", param,
                              spec);
        snprintf(law, sizeof law, "shexp:%.17g,%.17g", x * mean, 1.0 / ((1.0 - x) * mean));
    } else if (!strncmp(spec, "trace:", 6)) {
        snprintf(law, sizeof law, "%s", spec);
    } else if (!strncmp(spec, "exp:", 4) || !strncmp(spec, "det:", 4)) {
        return storq_fail(err, STORQ_ERR_USAGE,
                          "%s: '%s' gives the law's scale, but the model sets the mean: give its "
                          "shape only; accepted: %s", param, spec, AT_MEAN_FORMS);
    } else {
        return storq_fail(err, STORQ_ERR_USAGE, "%s: '%s' is not a law of this parameter; "
                          "accepted: %s", param, spec, AT_MEAN_FORMS);
    }
    *shape = x;
    STORQ_TRY(storq_dist_parse_as(law, param, AT_MEAN_FORMS, d, err));
    if (d->kind == STORQ_DIST_TRACE) {
        if (!(d->mean > 0) || !isfinite(d->mean)) {
            storq_dist_free(d);
            return storq_fail(err, STORQ_ERR_USAGE,
                              "%s: the trace '%s' has mean %g; it needs a finite positive mean "
                              "to be rescaled to the model's mean", param, spec + 6, d->mean);
        }
        *scale = mean / d->mean;
    }
    return STORQ_OK;
}
