#include "distribution.h"
#include "number.h"
#include "file_kind.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CONT_ACCEPTED                                                                      \
    "exp:RATE, det:VALUE, shexp:DELTA,RATE, pareto:ALPHA,MEAN, erlang:K,RATE, "            \
    "hyperexp:P1,RATE1,P2,RATE2[,...], uniform:A,B, trace:PATH"
#define DISC_ACCEPTED "fixed:K, geom:P, binom:M,P, uniform:A,B, pmf:K1=P1,K2=P2,..."

#define ERLANG_MAX_K 1000000
#define BINOM_MAX_M 1000000
#define PROB_SUM_TOL 1e-9

/* Every parse error: "PARAM: 'SPEC': what is wrong; accepted: the forms". */
static int bad(storq_error *err, const char *param, const char *spec, const char *accepted,
               const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static int bad(storq_error *err, const char *param, const char *spec, const char *accepted,
               const char *fmt, ...)
{
    char why[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    return storq_fail(err, STORQ_ERR_USAGE, "%s: '%s': %s; accepted: %s",
                      param ? param : "distribution", spec ? spec : "(null)", why, accepted);
}

/* A whole token as a finite real, in the one number grammar (number.h). */
static int parse_real(const char *s, double *x)
{
    return storq_number_real(s, x) == 0;
}

/* A whole token as an integer, in the one number grammar (1e3 yes, 1.5 no). */
static int parse_int(const char *s, int64_t *k)
{
    int negative;
    uint64_t m;
    if (storq_number_integer(s, &negative, &m) != 0 || m > (uint64_t)INT64_MAX)
        return 0;
    *k = negative ? -(int64_t)m : (int64_t)m;
    return 1;
}

/* Split s (modified in place) at commas; empty tokens are kept so "1,,2" is caught. */
static int split(char *s, char **tok, int max)
{
    int n = 0;
    for (;;) {
        if (n == max)
            return max + 1;
        tok[n++] = s;
        char *c = strchr(s, ',');
        if (!c)
            return n;
        *c = '\0';
        s = c + 1;
    }
}

/* ---------------------------------------------------------------- continuous laws */

static const struct {
    const char *name;
    storq_dist_kind kind;
    int nparams; /* -1: variable (hyperexp) */
    const char *form;
} cont_laws[] = {
    {"exp", STORQ_DIST_EXP, 1, "exp:RATE"},
    {"det", STORQ_DIST_DET, 1, "det:VALUE"},
    {"shexp", STORQ_DIST_SHEXP, 2, "shexp:DELTA,RATE"},
    {"pareto", STORQ_DIST_PARETO, 2, "pareto:ALPHA,MEAN"},
    {"erlang", STORQ_DIST_ERLANG, 2, "erlang:K,RATE"},
    {"hyperexp", STORQ_DIST_HYPEREXP, -1, "hyperexp:P1,RATE1,P2,RATE2[,...]"},
    {"uniform", STORQ_DIST_UNIFORM, 2, "uniform:A,B"},
};

/* Trace files: read once per process and shared by every point and law that names them (a sweep
 * of 100 points over one 5M-line trace reads it once). A file is known by its device, inode, size
 * and modification time, so an edited file is read again. The cache lives until exit; laws only
 * point into it. Points are prepared one at a time, but the mutex keeps the cache safe anyway. */
typedef struct trace_file {
    dev_t dev;
    ino_t ino;
    off_t size;
    struct timespec mtime;
    double *values;
    size_t n;
    double mean, var;
    struct trace_file *next;
} trace_file;

static trace_file *trace_cache;
static pthread_mutex_t trace_lock = PTHREAD_MUTEX_INITIALIZER;

static void trace_cache_free(void)
{
    while (trace_cache) {
        trace_file *t = trace_cache;
        trace_cache = t->next;
        free(t->values);
        free(t);
    }
}

/* Read the numbers of an open regular file into t; a usage error names the file and line. */
static int read_trace(FILE *f, const char *path, const char *param, const char *spec,
                      const char *acc, trace_file *t, storq_error *err)
{
    char *line = NULL;
    size_t linecap = 0, cap = 0, lineno = 0;
    ssize_t len;
    int rc = STORQ_OK;
    while ((len = getline(&line, &linecap, f)) >= 0) {
        lineno++;
        if ((size_t)len != strlen(line)) {
            rc = bad(err, param, spec, acc, "trace file '%s' line %zu holds a NUL byte (a "
                     "binary file?); give one number per line", path, lineno);
            break;
        }
        while (len > 0 && isspace((unsigned char)line[len - 1]))
            line[--len] = '\0';
        char *s = line;
        while (isspace((unsigned char)*s))
            s++;
        if (!*s || *s == '#') /* blank lines and comments */
            continue;
        double x;
        if (!parse_real(s, &x) || x < 0) {
            rc = bad(err, param, spec, acc,
                     "trace file '%s' line %zu: '%.40s' is not a finite number >= 0 "
                     "(one number per line; blank lines and # comments are skipped)",
                     path, lineno, s);
            break;
        }
        if (t->n == cap) {
            cap = cap ? 2 * cap : 1024;
            double *grown = realloc(t->values, cap * sizeof *grown);
            if (!grown) {
                rc = STORQ_RUNTIME_FAIL(err, "out of memory reading trace file '%s'", path);
                break;
            }
            t->values = grown;
        }
        t->values[t->n++] = x;
    }
    if (rc == STORQ_OK && ferror(f))
        rc = bad(err, param, spec, acc, "error reading trace file '%s'", path);
    if (rc == STORQ_OK && t->n == 0)
        rc = bad(err, param, spec, acc, "trace file '%s' holds no numbers", path);
    free(line);
    if (rc != STORQ_OK)
        return rc;

    /* Moments of the empirical law (the one sampled), two passes for accuracy. */
    double sum = 0;
    for (size_t i = 0; i < t->n; i++)
        sum += t->values[i];
    t->mean = sum / (double)t->n;
    double ss = 0;
    for (size_t i = 0; i < t->n; i++)
        ss += (t->values[i] - t->mean) * (t->values[i] - t->mean);
    t->var = ss / (double)t->n;
    if (!isfinite(t->mean) || !isfinite(t->var))
        return bad(err, param, spec, acc, "trace file '%s' has a non-finite mean or "
                   "variance", path);
    return STORQ_OK;
}

/* The cached trace of path, read now if it is not cached yet. Only a regular file up to
 * STORQ_TRACE_MAX_BYTES is read: a device, a FIFO or a directory is refused before any read. */
static int load_trace(const char *path, const char *param, const char *spec, const char *acc,
                      const trace_file **out, storq_error *err)
{
    /* stat first (a device is never opened), then O_NONBLOCK and fstat: a FIFO swapped in
     * meanwhile must not wait for a writer before it can be refused */
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
        return bad(err, param, spec, acc, "trace file '%s' is not a regular file but %s; a "
                   "trace must be a regular file", path, storq_file_kind(st.st_mode));
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
        return bad(err, param, spec, acc, "cannot read trace file '%s': %s", path,
                   strerror(errno));
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return bad(err, param, spec, acc, "trace file '%s' is not a regular file but %s; a "
                   "trace must be a regular file", path, storq_file_kind(st.st_mode));
    }
    if ((unsigned long long)st.st_size > STORQ_TRACE_MAX_BYTES) {
        close(fd);
        return bad(err, param, spec, acc, "trace file '%s' holds %llu bytes; traces are read "
                   "into memory and may hold at most %llu bytes (1 GiB)", path,
                   (unsigned long long)st.st_size, STORQ_TRACE_MAX_BYTES);
    }
    pthread_mutex_lock(&trace_lock);
    trace_file *t = trace_cache;
    while (t && !(t->dev == st.st_dev && t->ino == st.st_ino && t->size == st.st_size &&
                  t->mtime.tv_sec == st.st_mtim.tv_sec && t->mtime.tv_nsec == st.st_mtim.tv_nsec))
        t = t->next;
    int rc = STORQ_OK;
    if (!t) {
        FILE *f = fdopen(fd, "r");
        t = calloc(1, sizeof *t);
        if (!f || !t) {
            rc = STORQ_RUNTIME_FAIL(err, "out of memory reading trace file '%s'", path);
        } else {
            fd = -1; /* the FILE owns it */
            *t = (trace_file){st.st_dev, st.st_ino, st.st_size, st.st_mtim, NULL, 0, 0, 0, NULL};
            rc = read_trace(f, path, param, spec, acc, t, err);
        }
        if (f)
            fclose(f);
        if (rc) {
            if (t)
                free(t->values);
            free(t);
            t = NULL;
        } else {
            if (!trace_cache)
                atexit(trace_cache_free);
            t->next = trace_cache;
            trace_cache = t;
        }
    }
    if (fd >= 0)
        close(fd);
    pthread_mutex_unlock(&trace_lock);
    *out = t;
    return rc;
}

static int parse_trace(const char *path, const char *param, const char *acc, storq_dist *d,
                       storq_error *err)
{
    if (!*path)
        return bad(err, param, d->spec, acc, "trace needs a file name after 'trace:'");
    const trace_file *t = NULL;
    STORQ_TRY(load_trace(path, param, d->spec, acc, &t, err));
    d->trace = t->values;
    d->ntrace = t->n;
    d->mean = t->mean;
    d->var = t->var;
    return STORQ_OK;
}

/* Check ranges and fill in the exact moments. */
static int finish_cont(const char *param, const char *acc, storq_dist *d, storq_error *err)
{
    const char *spec = d->spec;
    double *p = d->p;
    switch (d->kind) {
    case STORQ_DIST_EXP:
        if (!(p[0] > 0))
            return bad(err, param, spec, acc, "RATE must be > 0");
        d->mean = 1 / p[0];
        d->var = 1 / (p[0] * p[0]);
        break;
    case STORQ_DIST_DET:
        if (!(p[0] >= 0))
            return bad(err, param, spec, acc, "VALUE must be >= 0");
        d->mean = p[0];
        d->var = 0;
        break;
    case STORQ_DIST_SHEXP:
        if (!(p[0] >= 0))
            return bad(err, param, spec, acc, "DELTA must be >= 0");
        if (!(p[1] > 0))
            return bad(err, param, spec, acc, "RATE must be > 0");
        d->mean = p[0] + 1 / p[1];
        d->var = 1 / (p[1] * p[1]);
        break;
    case STORQ_DIST_PARETO: {
        double a = p[0], m = p[1];
        if (!(a > 1))
            return bad(err, param, spec, acc, "ALPHA must be > 1 (finite mean)");
        if (!(m > 0))
            return bad(err, param, spec, acc, "MEAN must be > 0");
        double xm = m * (a - 1) / a;
        p[2] = xm;
        p[3] = -1 / a; /* sampled as xm U^(-1/ALPHA) */
        d->mean = m;
        d->var = a > 2 ? xm * xm * a / ((a - 1) * (a - 1) * (a - 2)) : INFINITY;
        break;
    }
    case STORQ_DIST_ERLANG:
        if (!(p[0] >= 1 && p[0] <= ERLANG_MAX_K && p[0] == floor(p[0])))
            return bad(err, param, spec, acc, "K must be a whole number in [1, %d]",
                       ERLANG_MAX_K);
        if (!(p[1] > 0))
            return bad(err, param, spec, acc, "RATE must be > 0");
        d->mean = p[0] / p[1];
        d->var = p[0] / (p[1] * p[1]);
        break;
    case STORQ_DIST_HYPEREXP: {
        double sum = 0, m1 = 0, m2 = 0;
        for (int i = 0; i < d->nparams; i += 2) {
            if (!(p[i] >= 0 && p[i] <= 1))
                return bad(err, param, spec, acc, "P%d must be in [0, 1]", i / 2 + 1);
            if (!(p[i + 1] > 0))
                return bad(err, param, spec, acc, "RATE%d must be > 0", i / 2 + 1);
            sum += p[i];
        }
        if (fabs(sum - 1) > PROB_SUM_TOL)
            return bad(err, param, spec, acc,
                       "probabilities P1, P2, ... sum to %.12g, not 1 (tolerance %g)", sum,
                       PROB_SUM_TOL);
        for (int i = 0; i < d->nparams; i += 2) {
            p[i] /= sum; /* sample exactly the law whose moments are reported */
            m1 += p[i] / p[i + 1];
            m2 += 2 * p[i] / (p[i + 1] * p[i + 1]);
        }
        d->mean = m1;
        d->var = m2 - m1 * m1;
        break;
    }
    case STORQ_DIST_UNIFORM:
        if (!(p[0] >= 0 && p[0] < p[1]))
            return bad(err, param, spec, acc, "need 0 <= A < B");
        d->mean = (p[0] + p[1]) / 2;
        d->var = (p[1] - p[0]) * (p[1] - p[0]) / 12;
        break;
    case STORQ_DIST_TRACE:
        break;
    }
    if (!isfinite(d->mean) || (!isfinite(d->var) && d->kind != STORQ_DIST_PARETO))
        return bad(err, param, spec, acc,
                   "the mean or variance overflows (parameters too extreme)");
    return STORQ_OK;
}

int storq_dist_parse(const char *spec, const char *param, storq_dist *d, storq_error *err)
{
    return storq_dist_parse_as(spec, param, CONT_ACCEPTED, d, err);
}

int storq_dist_parse_as(const char *spec, const char *param, const char *acc, storq_dist *d,
                        storq_error *err)
{
    memset(d, 0, sizeof *d);
    if (!spec)
        return bad(err, param, spec, acc, "no distribution given");
    if (strlen(spec) >= sizeof d->spec)
        return bad(err, param, spec, acc, "longer than %zu characters",
                   sizeof d->spec - 1);
    strcpy(d->spec, spec);

    const char *colon = strchr(spec, ':');
    size_t namelen = colon ? (size_t)(colon - spec) : strlen(spec);
    if (namelen == 5 && strncmp(spec, "trace", 5) == 0) {
        if (!colon)
            return bad(err, param, spec, acc, "missing ':' and file name");
        d->kind = STORQ_DIST_TRACE;
        int rc = parse_trace(colon + 1, param, acc, d, err);
        if (rc != STORQ_OK)
            storq_dist_free(d);
        return rc;
    }
    int law = -1;
    for (size_t i = 0; i < sizeof cont_laws / sizeof cont_laws[0]; i++)
        if (strlen(cont_laws[i].name) == namelen && strncmp(spec, cont_laws[i].name, namelen) == 0)
            law = (int)i;
    if (law < 0 || !colon)
        return bad(err, param, spec, acc,
                   law < 0 ? "unknown distribution" : "missing ':' and parameters");
    d->kind = cont_laws[law].kind;

    char buf[sizeof d->spec];
    strcpy(buf, colon + 1);
    char *tok[STORQ_DIST_MAX_PARAMS];
    int n = split(buf, tok, STORQ_DIST_MAX_PARAMS);
    if (n > STORQ_DIST_MAX_PARAMS)
        return bad(err, param, spec, acc, "more than %d parameters",
                   STORQ_DIST_MAX_PARAMS);
    int want = cont_laws[law].nparams;
    if (want > 0 && n != want)
        return bad(err, param, spec, acc, "%s takes %d parameter%s (%s), got %d",
                   cont_laws[law].name, want, want > 1 ? "s" : "", cont_laws[law].form, n);
    if (want < 0 && (n < 4 || n % 2 != 0))
        return bad(err, param, spec, acc,
                   "hyperexp takes pairs P,RATE for at least two phases, got %d number%s", n,
                   n == 1 ? "" : "s");
    for (int i = 0; i < n; i++)
        if (!parse_real(tok[i], &d->p[i]))
            return bad(err, param, spec, acc,
                       "'%s' is not a finite number (in double range)", tok[i]);
    d->nparams = n;
    return finish_cont(param, acc, d, err);
}

double storq_dist_sample(const storq_dist *d, storq_rng *rng)
{
    const double *p = d->p;
    switch (d->kind) {
    case STORQ_DIST_EXP:
        return storq_rng_exp(rng, p[0]);
    case STORQ_DIST_DET:
        return p[0];
    case STORQ_DIST_SHEXP:
        return p[0] + storq_rng_exp(rng, p[1]);
    case STORQ_DIST_PARETO:
        return p[2] * pow(storq_rng_uniform_pos(rng), p[3]);
    case STORQ_DIST_ERLANG: {
        /* -log of a product of uniforms, logged every 16 factors: each factor is >= 2^-53, so a
         * block's product stays above 2^-848 and never underflows. */
        int k = (int)p[0];
        double s = 0;
        while (k > 0) {
            double prod = 1;
            for (int j = 0; j < 16 && k > 0; j++, k--)
                prod *= storq_rng_uniform_pos(rng);
            s -= log(prod);
        }
        return s / p[1];
    }
    case STORQ_DIST_HYPEREXP: {
        double u = storq_rng_uniform(rng);
        int i = 0;
        while (i + 2 < d->nparams && u >= p[i]) {
            u -= p[i];
            i += 2;
        }
        return storq_rng_exp(rng, p[i + 1]);
    }
    case STORQ_DIST_UNIFORM:
        return p[0] + (p[1] - p[0]) * storq_rng_uniform(rng);
    case STORQ_DIST_TRACE:
        return d->trace[storq_rng_below(rng, d->ntrace)];
    }
    return NAN;
}

void storq_dist_free(storq_dist *d)
{
    if (!d)
        return;
    d->trace = NULL; /* the values belong to the process's trace cache */
    d->ntrace = 0;
}

int storq_dist_is_exp(const storq_dist *d)
{
    return d->kind == STORQ_DIST_EXP;
}

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
            rc = bad(err, param, spec, DISC_ACCEPTED, "'%s' is not of the form K=P", tok[i]);
            break;
        }
        *eq = '\0';
        if (!parse_int(tok[i], &e[i].k) || e[i].k < 1)
            rc = bad(err, param, spec, DISC_ACCEPTED, "K%d = '%s' must be a whole number >= 1",
                     i + 1, tok[i]);
        else if (!parse_real(eq + 1, &e[i].p) || e[i].p < 0 || e[i].p > 1)
            rc = bad(err, param, spec, DISC_ACCEPTED, "P%d = '%s' must be a number in [0, 1]",
                     i + 1, eq + 1);
        else
            sum += e[i].p;
    }
    if (rc == STORQ_OK && fabs(sum - 1) > PROB_SUM_TOL)
        rc = bad(err, param, spec, DISC_ACCEPTED,
                 "probabilities sum to %.12g, not 1 (tolerance %g)", sum, PROB_SUM_TOL);
    if (rc == STORQ_OK) {
        qsort(e, (size_t)n, sizeof *e, cmp_entry);
        for (int i = 1; i < n && rc == STORQ_OK; i++)
            if (e[i].k == e[i - 1].k)
                rc = bad(err, param, spec, DISC_ACCEPTED, "value %lld is given twice",
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
        e[k - 1].p = lgamma(mm + 1) - lgamma(kk + 1) - lgamma(mm - kk + 1) + kk * lp +
                     (mm - kk) * lq;
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
        return bad(err, param, spec, DISC_ACCEPTED, "no distribution given");
    if (strlen(spec) >= sizeof d->spec)
        return bad(err, param, spec, DISC_ACCEPTED, "longer than %zu characters",
                   sizeof d->spec - 1);
    strcpy(d->spec, spec);

    const char *colon = strchr(spec, ':');
    size_t namelen = colon ? (size_t)(colon - spec) : strlen(spec);
    int law = -1;
    for (size_t i = 0; i < sizeof disc_laws / sizeof disc_laws[0]; i++)
        if (strlen(disc_laws[i].name) == namelen && strncmp(spec, disc_laws[i].name, namelen) == 0)
            law = (int)i;
    if (law < 0 || !colon)
        return bad(err, param, spec, DISC_ACCEPTED,
                   law < 0 ? "unknown distribution" : "missing ':' and parameters");
    d->kind = disc_laws[law].kind;

    char buf[sizeof d->spec];
    strcpy(buf, colon + 1);
    char *tok[sizeof d->spec / 2 + 1]; /* a spec this long has at most this many commas */
    int n = split(buf, tok, (int)(sizeof tok / sizeof tok[0]));
    int want = disc_laws[law].nparams;
    if (want > 0 && n != want)
        return bad(err, param, spec, DISC_ACCEPTED, "%s takes %d parameter%s (%s), got %d",
                   disc_laws[law].name, want, want > 1 ? "s" : "", disc_laws[law].form, n);

    int rc = STORQ_OK;
    int64_t a = 0, b = 0;
    double P = 0;
    switch (d->kind) {
    case STORQ_DDIST_FIXED:
        if (!parse_int(tok[0], &a) || a < 1)
            return bad(err, param, spec, DISC_ACCEPTED, "K must be a whole number >= 1");
        d->min = d->max = a;
        d->mean = (double)a;
        d->var = 0;
        break;
    case STORQ_DDIST_GEOM:
        if (!parse_real(tok[0], &P) || !(P > 0 && P <= 1))
            return bad(err, param, spec, DISC_ACCEPTED, "P must be a number in (0, 1]");
        d->p[0] = P;
        d->p[1] = log1p(-P); /* -inf when P = 1, handled in sampling */
        d->min = 1;
        d->max = INT64_MAX;
        d->mean = 1 / P;
        d->var = (1 - P) / (P * P);
        break;
    case STORQ_DDIST_BINOM: {
        if (!parse_int(tok[0], &a) || a < 1 || a > BINOM_MAX_M)
            return bad(err, param, spec, DISC_ACCEPTED, "M must be a whole number in [1, %d]",
                       BINOM_MAX_M);
        if (!parse_real(tok[1], &P) || !(P > 0 && P <= 1))
            return bad(err, param, spec, DISC_ACCEPTED, "P must be a number in (0, 1]");
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
        if (!parse_int(tok[0], &a) || !parse_int(tok[1], &b) || !(1 <= a && a <= b))
            return bad(err, param, spec, DISC_ACCEPTED, "need whole numbers 1 <= A <= B");
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
        rc = bad(err, param, spec, DISC_ACCEPTED,
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
