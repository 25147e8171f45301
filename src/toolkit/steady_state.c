#include "steady_state.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "stats.h"

int storq_steady_declare(storq_observables *obs, storq_steady_ids *ids, const char *headline,
                         const char *unit, storq_error *err)
{
    char first[256], second[256];
    snprintf(first, sizeof first,
             "%s over the first half of the measured window (its measured arrivals before the "
             "middle one): the steady-state check",
             headline);
    snprintf(second, sizeof second,
             "%s over the second half of the measured window (from its middle measured arrival "
             "on): the steady-state check",
             headline);
    ids->first = ids->second = -1;
    STORQ_TRY(storq_declare_scalar(obs, &ids->first, STORQ_STEADY_FIRST, unit, first, err));
    return storq_declare_scalar(obs, &ids->second, STORQ_STEADY_SECOND, unit, second, err);
}

void storq_steady_check_pairs(const double *first, const double *second, size_t n,
                              size_t stride, storq_steady_check *out)
{
    memset(out, 0, sizeof *out);
    out->replications = n;
    out->first = out->second = out->drift = out->stderr_ = out->t = NAN;
    out->quantile = out->floor = NAN;
    if (n == 0)
        return;
    /* sums in replication order: the same bits whatever ran where; in units of 2^k near the
     * largest half (exact), so that neither the squares underflow at time scales like 1e-300
     * (a stderr of 0 and |t| = inf) nor the sums overflow */
    const int k1 = storq_scale_exponent(first, n, stride);
    const int k2 = storq_scale_exponent(second, n, stride), K = k1 > k2 ? k1 : k2;
    double s1 = 0.0, s2 = 0.0, sd = 0.0;
    int finite = 1;
    for (size_t i = 0; i < n; i++) {
        const double a = ldexp(first[i * stride], -K), b = ldexp(second[i * stride], -K);
        finite &= isfinite(a) && isfinite(b);
        s1 += a;
        s2 += b;
        sd += a - b;
    }
    const double N = (double)n, drift = sd / N;
    out->first = ldexp(s1 / N, K);
    out->second = ldexp(s2 / N, K);
    out->drift = ldexp(drift, K);
    out->floor = STORQ_STEADY_FLOOR * fabs(0.5 * out->first + 0.5 * out->second);
    if (n < 2 || !finite)
        return;
    double ss = 0.0;
    for (size_t i = 0; i < n; i++) {
        const double e = ldexp(first[i * stride], -K) - ldexp(second[i * stride], -K) - drift;
        ss += e * e;
    }
    const double se = sqrt(ss / (N - 1.0) / N); /* t is the same in these units */
    out->stderr_ = ldexp(se, K);
    out->t = se > 0.0 ? drift / se : drift == 0.0 ? 0.0 : copysign(INFINITY, drift);
    out->quantile = storq_t_quantile(STORQ_STEADY_LEVEL, n - 1);
    out->tested = 1;
    out->warn = fabs(out->t) > out->quantile && fabs(out->drift) > out->floor;
}

int storq_steady_check_summary(const storq_summary *sim, storq_steady_check *out)
{
    const storq_obs_def *f = storq_obs_find(sim->schema, STORQ_STEADY_FIRST);
    const storq_obs_def *s = storq_obs_find(sim->schema, STORQ_STEADY_SECOND);
    if (!f || !s || !sim->result)
        return 0;
    const storq_point_result *res = sim->result;
    const size_t stride = sim->schema->nvalues;
    storq_steady_check_pairs(res->values + f->value_offset, res->values + s->value_offset,
                             sim->replications, stride, out);
    return 1;
}

int storq_steady_compare(const storq_summary *sim, const char *headline, storq_theory *cmp,
                         storq_error *err)
{
    storq_steady_check c;
    if (!storq_steady_check_summary(sim, &c))
        return STORQ_OK;
    const char *unit = storq_obs_find(sim->schema, STORQ_STEADY_FIRST)->unit;
    const double warn = c.tested ? (double)c.warn : NAN;
    char desc[256];
    snprintf(desc, sizeof desc,
             "%s over the first half of the measured window minus over the second, mean over "
             "replications",
             headline ? headline : "the headline");
    STORQ_TRY(storq_theory_add(cmp, "steady_state_drift", unit, desc, "", &c.drift, 1, err));
    STORQ_TRY(storq_theory_add(cmp, "steady_state_drift_stderr", unit,
                               "standard error of steady_state_drift", "", &c.stderr_, 1, err));
    return storq_theory_add(cmp, "steady_state_warning", "1",
                            "1: not in steady state (the drift is significant and over 1% of "
                            "the mean); 0: passed; nan: untested",
                            "", &warn, 1, err);
}

int storq_steady_is_half(const char *name)
{
    return strcmp(name, STORQ_STEADY_FIRST) == 0 || strcmp(name, STORQ_STEADY_SECOND) == 0;
}
