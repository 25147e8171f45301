/* Discrete laws (file sizes, chunk counts): parsing, exact pmf tables, sampling by table
 * search. The continuous laws are in distribution.c; both share law_parse.h's grammar. */
#include "distribution.h"
#include "law_parse.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DISC_ACCEPTED "fixed:K, geom:P, binom:M,P, uniform:A,B, pmf:K1=P1,K2=P2,..."

#define BINOM_MAX_M 1000000
#define PROB_SUM_TOL 1e-9

/* ---------------------------------------------------------------- discrete laws */

static const struct {
    const char *name;
    storq_ddist_kind kind;
    int nparams; /* -1: variable (pmf) */
    const char *form;
} disc_laws[] = {
    {"fixed", STORQ_DDIST_FIXED, 1, "fixed:K"},
    {"geom", STORQ_DDIST_GEOM, 1, "geom:P"},
    {"binom", STORQ_DDIST_BINOM, 2, "binom:M,P"},
    {"uniform", STORQ_DDIST_UNIFORM, 2, "uniform:A,B"},
    {"pmf", STORQ_DDIST_PMF, -1, "pmf:K1=P1,K2=P2,..."},
};

typedef struct {
    int64_t k;
    double p;
} pmf_entry;

static int cmp_entry(const void *a, const void *b)
{
    int64_t x = ((const pmf_entry *)a)->k, y = ((const pmf_entry *)b)->k;
    return (x > y) - (x < y);
}

/* Take a sorted support with probabilities as the law's inverse-CDF table (zeros dropped). */
static int set_table(storq_ddist *d, const pmf_entry *e, size_t n, storq_error *err)
{
    d->values = malloc(n * sizeof *d->values);
    d->cdf = malloc(n * sizeof *d->cdf);
    if (!d->values || !d->cdf)
        return STORQ_RUNTIME_FAIL(err, "out of memory for a table of %zu values", n);
    double total = 0;
    for (size_t i = 0; i < n; i++)
        total += e[i].p;
    double c = 0;
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (e[i].p <= 0)
            continue;
        c += e[i].p;
        d->values[m] = e[i].k;
        d->cdf[m] = c / total;
        m++;
    }
    d->cdf[m - 1] = 1; /* so a uniform in [0, 1) always finds a value */
    d->nvalues = m;
    d->min = d->values[0];
    d->max = d->values[m - 1];
    return STORQ_OK;
}

static int parse_pmf(char **tok, int n, const char *param, storq_ddist *d, storq_error *err)
{
    const char *spec = d->spec;
    pmf_entry *e = malloc((size_t)n * sizeof *e);
    if (!e)
        return STORQ_RUNTIME_FAIL(err, "out of memory");
    int rc = STORQ_OK;
    double sum = 0;
    for (int i = 0; i < n && rc == STORQ_OK; i++) {
        char *eq = strchr(tok[i], '=');
        if (!eq) {
            rc = storq_law_bad(err, param, spec, DISC_ACCEPTED, "'%s' is not of the form K=P",
                               tok[i]);
            break;
        }
        *eq = '\0';
        if (!storq_law_int(tok[i], &e[i].k) || e[i].k < 1)
            rc = storq_law_bad(err, param, spec, DISC_ACCEPTED,
                               "K%d = '%s' must be a whole number >= 1", i + 1, tok[i]);
        else if (!storq_law_real(eq + 1, &e[i].p) || e[i].p < 0 || e[i].p > 1)
            rc = storq_law_bad(err, param, spec, DISC_ACCEPTED,
                               "P%d = '%s' must be a number in [0, 1]", i + 1, eq + 1);
        else
            sum += e[i].p;
    }
    if (rc == STORQ_OK && fabs(sum - 1) > PROB_SUM_TOL)
        rc = storq_law_bad(err, param, spec, DISC_ACCEPTED,
                           "probabilities sum to %.12g, not 1 (tolerance %g)", sum, PROB_SUM_TOL);
    if (rc == STORQ_OK) {
        qsort(e, (size_t)n, sizeof *e, cmp_entry);
        for (int i = 1; i < n && rc == STORQ_OK; i++)
            if (e[i].k == e[i - 1].k)
                rc = storq_law_bad(err, param, spec, DISC_ACCEPTED, "value %lld is given twice",
                                   (long long)e[i].k);
    }
    if (rc == STORQ_OK)
        rc = set_table(d, e, (size_t)n, err);
    if (rc == STORQ_OK) {
        double m1 = 0, m2 = 0;
        for (int i = 0; i < n; i++) {
            double k = (double)e[i].k, p = e[i].p / sum;
            m1 += p * k;
            m2 += p * k * k;
        }
        d->mean = m1;
        d->var = fmax(m2 - m1 * m1, 0);
    }
    free(e);
    return rc;
}

/* Binomial(M, P) given k >= 1: weights from log C(M,k) + k log P + (M-k) log(1-P), scaled by the
 * largest before exponentiating and normalised by their sum. */
static int binom_table(storq_ddist *d, int64_t M, double P, storq_error *err)
{
    pmf_entry *e = malloc((size_t)M * sizeof *e);
    if (!e)
        return STORQ_RUNTIME_FAIL(err, "out of memory");
    if (P >= 1) {
        e[0].k = M;
        e[0].p = 1;
        int rc = set_table(d, e, 1, err);
        free(e);
        return rc;
    }
    double lp = log(P), lq = log1p(-P), lmax = -INFINITY;
    for (int64_t k = 1; k <= M; k++) {
        double kk = (double)k, mm = (double)M;
        e[k - 1].k = k;
        e[k - 1].p =
            lgamma(mm + 1) - lgamma(kk + 1) - lgamma(mm - kk + 1) + kk * lp + (mm - kk) * lq;
        lmax = fmax(lmax, e[k - 1].p);
    }
    for (int64_t k = 0; k < M; k++)
        e[k].p = exp(e[k].p - lmax);
    int rc = set_table(d, e, (size_t)M, err);
    free(e);
    return rc;
}

int storq_ddist_parse(const char *spec, const char *param, storq_ddist *d, storq_error *err)
{
    memset(d, 0, sizeof *d);
    if (!spec)
        return storq_law_bad(err, param, spec, DISC_ACCEPTED, "no distribution given");
    if (strlen(spec) >= sizeof d->spec)
        return storq_law_bad(err, param, spec, DISC_ACCEPTED, "longer than %zu characters",
                             sizeof d->spec - 1);
    strcpy(d->spec, spec);

    const char *colon = strchr(spec, ':');
    size_t namelen = colon ? (size_t)(colon - spec) : strlen(spec);
    int law = -1;
    for (size_t i = 0; i < sizeof disc_laws / sizeof disc_laws[0]; i++)
        if (strlen(disc_laws[i].name) == namelen && strncmp(spec, disc_laws[i].name, namelen) == 0)
            law = (int)i;
    if (law < 0 || !colon)
        return storq_law_bad(err, param, spec, DISC_ACCEPTED,
                             law < 0 ? "unknown distribution" : "missing ':' and parameters");
    d->kind = disc_laws[law].kind;

    char buf[sizeof d->spec];
    strcpy(buf, colon + 1);
    char *tok[sizeof d->spec / 2 + 1]; /* a spec this long has at most this many commas */
    int n = storq_law_split(buf, tok, (int)(sizeof tok / sizeof tok[0]));
    int want = disc_laws[law].nparams;
    if (want > 0 && n != want)
        return storq_law_bad(err, param, spec, DISC_ACCEPTED,
                             "%s takes %d parameter%s (%s), got %d", disc_laws[law].name, want,
                             want > 1 ? "s" : "", disc_laws[law].form, n);

    int rc = STORQ_OK;
    int64_t a = 0, b = 0;
    double P = 0;
    switch (d->kind) {
    case STORQ_DDIST_FIXED:
        if (!storq_law_int(tok[0], &a) || a < 1)
            return storq_law_bad(err, param, spec, DISC_ACCEPTED, "K must be a whole number >= 1");
        d->min = d->max = a;
        d->mean = (double)a;
        d->var = 0;
        break;
    case STORQ_DDIST_GEOM:
        if (!storq_law_real(tok[0], &P) || !(P > 0 && P <= 1))
            return storq_law_bad(err, param, spec, DISC_ACCEPTED, "P must be a number in (0, 1]");
        d->p[0] = P;
        d->p[1] = log1p(-P); /* -inf when P = 1, handled in sampling */
        d->min = 1;
        d->max = INT64_MAX;
        d->mean = 1 / P;
        d->var = (1 - P) / (P * P);
        break;
    case STORQ_DDIST_BINOM: {
        if (!storq_law_int(tok[0], &a) || a < 1 || a > BINOM_MAX_M)
            return storq_law_bad(err, param, spec, DISC_ACCEPTED,
                                 "M must be a whole number in [1, %d]", BINOM_MAX_M);
        if (!storq_law_real(tok[1], &P) || !(P > 0 && P <= 1))
            return storq_law_bad(err, param, spec, DISC_ACCEPTED, "P must be a number in (0, 1]");
        d->p[0] = (double)a;
        d->p[1] = P;
        double m = (double)a;
        double z = -expm1(m * log1p(-P)); /* P(k >= 1) */
        d->mean = m * P / z;
        d->var = fmax((m * P * (1 - P) + m * m * P * P) / z - d->mean * d->mean, 0);
        rc = binom_table(d, a, P, err);
        /* The table drops values whose probability underflows; the support is 1..M (M if P = 1). */
        d->min = P >= 1 ? a : 1;
        d->max = a;
        break;
    }
    case STORQ_DDIST_UNIFORM: {
        if (!storq_law_int(tok[0], &a) || !storq_law_int(tok[1], &b) || !(1 <= a && a <= b))
            return storq_law_bad(err, param, spec, DISC_ACCEPTED, "need whole numbers 1 <= A <= B");
        d->min = a;
        d->max = b;
        double w = (double)(uint64_t)(b - a) + 1;
        d->mean = ((double)a + (double)b) / 2;
        d->var = (w * w - 1) / 12;
        break;
    }
    case STORQ_DDIST_PMF:
        rc = parse_pmf(tok, n, param, d, err);
        break;
    }
    if (rc == STORQ_OK && (!isfinite(d->mean) || !isfinite(d->var)))
        rc = storq_law_bad(err, param, spec, DISC_ACCEPTED,
                           "the mean or variance overflows (parameters too extreme)");
    if (rc != STORQ_OK)
        storq_ddist_free(d);
    return rc;
}

/* First table index whose cumulative probability exceeds u. */
static size_t table_search(const storq_ddist *d, double u)
{
    size_t lo = 0, hi = d->nvalues - 1;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (d->cdf[mid] > u)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

int64_t storq_ddist_sample(const storq_ddist *d, storq_rng *rng)
{
    switch (d->kind) {
    case STORQ_DDIST_FIXED:
        return d->min;
    case STORQ_DDIST_GEOM: {
        if (d->p[0] >= 1)
            return 1;
        /* P(X > k) = P(U <= (1-P)^k) = (1-P)^k for U uniform on (0, 1]. */
        double k = floor(log(storq_rng_uniform_pos(rng)) / d->p[1]);
        return k >= 9.2e18 ? INT64_MAX : 1 + (int64_t)k;
    }
    case STORQ_DDIST_UNIFORM:
        return d->min + (int64_t)storq_rng_below(rng, (uint64_t)(d->max - d->min) + 1);
    case STORQ_DDIST_BINOM:
    case STORQ_DDIST_PMF:
        return d->values[table_search(d, storq_rng_uniform(rng))];
    }
    return 0;
}

double storq_ddist_pmf(const storq_ddist *d, int64_t k)
{
    if (k < d->min || k > d->max)
        return 0;
    switch (d->kind) {
    case STORQ_DDIST_FIXED:
        return 1;
    case STORQ_DDIST_GEOM:
        return d->p[0] >= 1 ? (k == 1) : d->p[0] * exp((double)(k - 1) * d->p[1]);
    case STORQ_DDIST_UNIFORM:
        return 1 / ((double)(uint64_t)(d->max - d->min) + 1);
    case STORQ_DDIST_BINOM:
    case STORQ_DDIST_PMF: {
        size_t lo = 0, hi = d->nvalues - 1;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (d->values[mid] < k)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (d->values[lo] != k)
            return 0;
        return d->cdf[lo] - (lo ? d->cdf[lo - 1] : 0);
    }
    }
    return 0;
}

double storq_ddist_mass(const storq_ddist *d, int64_t lo, int64_t hi)
{
    if (hi < lo)
        return 0.0;
    switch (d->kind) {
    case STORQ_DDIST_FIXED:
        return lo <= d->min && d->min <= hi ? 1.0 : 0.0;
    case STORQ_DDIST_GEOM: {
        double p = d->p[0];
        if (p >= 1.0)
            return lo <= 1 && 1 <= hi ? 1.0 : 0.0;
        if (lo < 1)
            lo = 1;
        /* P(X >= lo) - P(X > hi) = (1-p)^(lo-1) - (1-p)^hi */
        double l = log1p(-p);
        double a = exp((double)(lo - 1) * l);
        double b = hi == INT64_MAX ? 0.0 : exp((double)hi * l);
        return a - b > 0 ? a - b : 0.0;
    }
    case STORQ_DDIST_UNIFORM: {
        int64_t a = lo > d->min ? lo : d->min, b = hi < d->max ? hi : d->max;
        if (b < a)
            return 0.0;
        return ((double)(b - a) + 1.0) / ((double)(d->max - d->min) + 1.0);
    }
    case STORQ_DDIST_BINOM:
    case STORQ_DDIST_PMF: {
        double s = 0.0;
        for (size_t i = 0; i < d->nvalues; i++)
            if (d->values[i] >= lo && d->values[i] <= hi)
                s += storq_ddist_pmf(d, d->values[i]);
        return s;
    }
    }
    return 0.0;
}

int64_t storq_ddist_tail_cut(const storq_ddist *d, double tail)
{
    if (d->kind != STORQ_DDIST_GEOM)
        return d->max;
    double p = d->p[0];
    if (p >= 1.0)
        return 1;
    double K = ceil(log(tail) / log1p(-p)); /* P(X > K) = (1-p)^K */
    return K < 1 ? 1 : K > 9e15 ? (int64_t)9e15 : (int64_t)K;
}

void storq_ddist_free(storq_ddist *d)
{
    if (!d)
        return;
    free(d->values);
    free(d->cdf);
    d->values = NULL;
    d->cdf = NULL;
    d->nvalues = 0;
}
