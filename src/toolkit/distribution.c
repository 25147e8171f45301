#include "distribution.h"
#include "file_kind.h"
#include "law_parse.h"

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

#define CONT_ACCEPTED                                                                              \
    "exp:RATE, det:VALUE, shexp:DELTA,RATE, pareto:ALPHA,MEAN, erlang:K,RATE, "                    \
    "hyperexp:P1,RATE1,P2,RATE2[,...], uniform:A,B, trace:PATH"

#define ERLANG_MAX_K 1000000
#define PROB_SUM_TOL 1e-9

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
            rc = storq_law_bad(err, param, spec, acc,
                               "trace file '%s' line %zu holds a NUL byte (a "
                               "binary file?); give one number per line",
                               path, lineno);
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
        if (!storq_law_real(s, &x) || x < 0) {
            rc = storq_law_bad(err, param, spec, acc,
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
        rc = storq_law_bad(err, param, spec, acc, "error reading trace file '%s'", path);
    if (rc == STORQ_OK && t->n == 0)
        rc = storq_law_bad(err, param, spec, acc, "trace file '%s' holds no numbers", path);
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
        return storq_law_bad(err, param, spec, acc,
                             "trace file '%s' has a non-finite mean or "
                             "variance",
                             path);
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
        return storq_law_bad(err, param, spec, acc,
                             "trace file '%s' is not a regular file but %s; a "
                             "trace must be a regular file",
                             path, storq_file_kind(st.st_mode));
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
        return storq_law_bad(err, param, spec, acc, "cannot read trace file '%s': %s", path,
                             strerror(errno));
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return storq_law_bad(err, param, spec, acc,
                             "trace file '%s' is not a regular file but %s; a "
                             "trace must be a regular file",
                             path, storq_file_kind(st.st_mode));
    }
    if ((unsigned long long)st.st_size > STORQ_TRACE_MAX_BYTES) {
        close(fd);
        return storq_law_bad(err, param, spec, acc,
                             "trace file '%s' holds %llu bytes; traces are read "
                             "into memory and may hold at most %llu bytes (1 GiB)",
                             path, (unsigned long long)st.st_size, STORQ_TRACE_MAX_BYTES);
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
        return storq_law_bad(err, param, d->spec, acc, "trace needs a file name after 'trace:'");
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
            return storq_law_bad(err, param, spec, acc, "RATE must be > 0");
        d->mean = 1 / p[0];
        d->var = 1 / (p[0] * p[0]);
        break;
    case STORQ_DIST_DET:
        if (!(p[0] >= 0))
            return storq_law_bad(err, param, spec, acc, "VALUE must be >= 0");
        d->mean = p[0];
        d->var = 0;
        break;
    case STORQ_DIST_SHEXP:
        if (!(p[0] >= 0))
            return storq_law_bad(err, param, spec, acc, "DELTA must be >= 0");
        if (!(p[1] > 0))
            return storq_law_bad(err, param, spec, acc, "RATE must be > 0");
        d->mean = p[0] + 1 / p[1];
        d->var = 1 / (p[1] * p[1]);
        break;
    case STORQ_DIST_PARETO: {
        double a = p[0], m = p[1];
        if (!(a > 1))
            return storq_law_bad(err, param, spec, acc, "ALPHA must be > 1 (finite mean)");
        if (!(m > 0))
            return storq_law_bad(err, param, spec, acc, "MEAN must be > 0");
        double xm = m * (a - 1) / a;
        p[2] = xm;
        p[3] = -1 / a; /* sampled as xm U^(-1/ALPHA) */
        d->mean = m;
        d->var = a > 2 ? xm * xm * a / ((a - 1) * (a - 1) * (a - 2)) : INFINITY;
        break;
    }
    case STORQ_DIST_ERLANG:
        if (!(p[0] >= 1 && p[0] <= ERLANG_MAX_K && p[0] == floor(p[0])))
            return storq_law_bad(err, param, spec, acc, "K must be a whole number in [1, %d]",
                                 ERLANG_MAX_K);
        if (!(p[1] > 0))
            return storq_law_bad(err, param, spec, acc, "RATE must be > 0");
        d->mean = p[0] / p[1];
        d->var = p[0] / (p[1] * p[1]);
        break;
    case STORQ_DIST_HYPEREXP: {
        double sum = 0, m1 = 0, m2 = 0;
        for (int i = 0; i < d->nparams; i += 2) {
            if (!(p[i] >= 0 && p[i] <= 1))
                return storq_law_bad(err, param, spec, acc, "P%d must be in [0, 1]", i / 2 + 1);
            if (!(p[i + 1] > 0))
                return storq_law_bad(err, param, spec, acc, "RATE%d must be > 0", i / 2 + 1);
            sum += p[i];
        }
        if (fabs(sum - 1) > PROB_SUM_TOL)
            return storq_law_bad(err, param, spec, acc,
                                 "probabilities P1, P2, ... sum to %.12g, not 1 (tolerance %g)",
                                 sum, PROB_SUM_TOL);
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
            return storq_law_bad(err, param, spec, acc, "need 0 <= A < B");
        d->mean = (p[0] + p[1]) / 2;
        d->var = (p[1] - p[0]) * (p[1] - p[0]) / 12;
        break;
    case STORQ_DIST_TRACE:
        break;
    }
    if (!isfinite(d->mean) || (!isfinite(d->var) && d->kind != STORQ_DIST_PARETO))
        return storq_law_bad(err, param, spec, acc,
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
        return storq_law_bad(err, param, spec, acc, "no distribution given");
    if (strlen(spec) >= sizeof d->spec)
        return storq_law_bad(err, param, spec, acc, "longer than %zu characters",
                             sizeof d->spec - 1);
    strcpy(d->spec, spec);

    const char *colon = strchr(spec, ':');
    size_t namelen = colon ? (size_t)(colon - spec) : strlen(spec);
    if (namelen == 5 && strncmp(spec, "trace", 5) == 0) {
        if (!colon)
            return storq_law_bad(err, param, spec, acc, "missing ':' and file name");
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
        return storq_law_bad(err, param, spec, acc,
                             law < 0 ? "unknown distribution" : "missing ':' and parameters");
    d->kind = cont_laws[law].kind;

    char buf[sizeof d->spec];
    strcpy(buf, colon + 1);
    char *tok[STORQ_DIST_MAX_PARAMS];
    int n = storq_law_split(buf, tok, STORQ_DIST_MAX_PARAMS);
    if (n > STORQ_DIST_MAX_PARAMS)
        return storq_law_bad(err, param, spec, acc, "more than %d parameters",
                             STORQ_DIST_MAX_PARAMS);
    int want = cont_laws[law].nparams;
    if (want > 0 && n != want)
        return storq_law_bad(err, param, spec, acc, "%s takes %d parameter%s (%s), got %d",
                             cont_laws[law].name, want, want > 1 ? "s" : "", cont_laws[law].form,
                             n);
    if (want < 0 && (n < 4 || n % 2 != 0))
        return storq_law_bad(err, param, spec, acc,
                             "hyperexp takes pairs P,RATE for at least two phases, got %d number%s",
                             n, n == 1 ? "" : "s");
    for (int i = 0; i < n; i++)
        if (!storq_law_real(tok[i], &d->p[i]))
            return storq_law_bad(err, param, spec, acc,
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
