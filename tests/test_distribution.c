/* Distribution tests: parsing (good and bad specs), exact moments, sampling.
 *
 * Sampling checks draw N = 10^6 values from fixed streams, so they are deterministic. Their
 * thresholds are set so that a correct implementation fails a given check with small probability
 * over the choice of seed:
 *   - means and variances within 5 standard errors (CLT; two-sided false alarm 5.7e-7 per check;
 *     the variance's standard error uses the sample's fourth central moment);
 *   - Kolmogorov-Smirnov: sup |F_N - F| <= sqrt(ln(2/ALPHA) / (2N)), which by the
 *     Dvoretzky-Kiefer-Wolfowitz-Massart inequality has false alarm <= ALPHA = 1e-6 for any N;
 *   - chi-square: p-value > ALPHA = 1e-6 (cells with expected count < 5 merged). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "stats.h"
#include "distribution.h"

#define N 1000000
#define ALPHA 1e-6
#define PARAM "--service"

static double *xs; /* N samples */

/* ---------------------------------------------------------------- statistics helpers */

static double chi2_pvalue(const double *obs, const double *expct, int cells)
{
    double x = 0;
    for (int i = 0; i < cells; i++)
        x += (obs[i] - expct[i]) * (obs[i] - expct[i]) / expct[i];
    return storq_chi2_sf(x, cells - 1);
}

static storq_rng stream(uint64_t point)
{
    storq_stream_key k = {.seed = 424242, .point = point};
    return storq_rng_stream(&k, STORQ_STREAM_SERVICE);
}

/* Mean and variance of xs[0..n) against exact values, 5 standard errors. */
static void check_moments(const char *what, const double *x, int n, double mean, double var)
{
    double s = 0;
    for (int i = 0; i < n; i++)
        s += x[i];
    double m = s / n, m2 = 0, m4 = 0;
    for (int i = 0; i < n; i++) {
        double dd = (x[i] - m) * (x[i] - m);
        m2 += dd;
        m4 += dd * dd;
    }
    m2 /= n;
    m4 /= n;
    double tol_mean = 5 * sqrt(var / n);
    double tol_var = 5 * sqrt(fmax(m4 - m2 * m2, 0) / n);
    if (!(fabs(m - mean) <= tol_mean) || (isfinite(var) && !(fabs(m2 - var) <= tol_var)))
        fprintf(stderr, "%s: sample mean %.8g (exact %.8g), sample var %.8g (exact %.8g)\n", what,
                m, mean, m2, var);
    CHECK_NEAR(m, mean, tol_mean);
    if (isfinite(var))
        CHECK_NEAR(m2, var, tol_var);
}

/* ---------------------------------------------------------------- continuous laws */

static double erlang_cdf(double x, int k, double rate)
{
    double y = rate * x, term = exp(-y), sum = term;
    for (int j = 1; j < k; j++) {
        term *= y / j;
        sum += term;
    }
    return 1 - sum;
}

/* The exact CDF, from the parameters as the user wrote them. */
static double cdf(const storq_dist *d, double x)
{
    const double *p = d->p;
    switch (d->kind) {
    case STORQ_DIST_EXP:
        return x <= 0 ? 0 : -expm1(-p[0] * x);
    case STORQ_DIST_SHEXP:
        return x <= p[0] ? 0 : -expm1(-p[1] * (x - p[0]));
    case STORQ_DIST_PARETO: {
        double xm = p[1] * (p[0] - 1) / p[0];
        return x <= xm ? 0 : 1 - pow(xm / x, p[0]);
    }
    case STORQ_DIST_ERLANG:
        return x <= 0 ? 0 : erlang_cdf(x, (int)p[0], p[1]);
    case STORQ_DIST_HYPEREXP: {
        double s = 0;
        for (int i = 0; i < d->nparams; i += 2)
            s += p[i] * exp(-p[i + 1] * x);
        return x <= 0 ? 0 : 1 - s;
    }
    case STORQ_DIST_UNIFORM:
        return x <= p[0] ? 0 : x >= p[1] ? 1 : (x - p[0]) / (p[1] - p[0]);
    default:
        return NAN;
    }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void check_ks(const char *spec, const storq_dist *d, double *x, int n)
{
    qsort(x, (size_t)n, sizeof *x, cmp_double);
    double D = 0;
    for (int i = 0; i < n; i++) {
        double F = cdf(d, x[i]);
        D = fmax(D, fmax(F - (double)i / n, (double)(i + 1) / n - F));
    }
    double crit = sqrt(log(2 / ALPHA) / (2.0 * n));
    if (!(D <= crit))
        fprintf(stderr, "%s: KS distance %.3g > %.3g\n", spec, D, crit);
    CHECK(D <= crit);
}

/* Parse, check the exact moments, sample N values: moments and (optionally) KS. */
static void check_law(const char *spec, double mean, double var, int moments, int ks,
                      uint64_t point)
{
    storq_dist d;
    storq_error err = {0};
    int rc = storq_dist_parse(spec, PARAM, &d, &err);
    if (rc != STORQ_OK)
        fprintf(stderr, "%s: %s\n", spec, err.msg);
    CHECK(rc == STORQ_OK);
    if (rc != STORQ_OK)
        return;
    CHECK(strcmp(d.spec, spec) == 0);
    CHECK_NEAR(d.mean, mean, 1e-12 * mean);
    if (isfinite(var))
        CHECK_NEAR(d.var, var, 1e-12 * var);
    else
        CHECK(isinf(d.var));
    storq_rng r = stream(point);
    int ok = 1;
    for (int i = 0; i < N; i++) {
        xs[i] = storq_dist_sample(&d, &r);
        ok &= isfinite(xs[i]) && xs[i] >= 0;
    }
    CHECK(ok);
    if (moments)
        check_moments(spec, xs, N, mean, var);
    if (ks)
        check_ks(spec, &d, xs, N);
    storq_dist_free(&d);
}

static void test_continuous_sampling(void)
{
    check_law("exp:2", 0.5, 0.25, 1, 1, 1);
    check_law("exp:0.01", 100, 1e4, 1, 1, 2);
    check_law("shexp:0.1,5", 0.3, 0.04, 1, 1, 3);
    check_law("shexp:0,1", 1, 1, 1, 1, 4);
    /* Pareto: xm = MEAN (ALPHA - 1) / ALPHA, var = xm^2 ALPHA / ((ALPHA-1)^2 (ALPHA-2)). The
     * moment checks need finite fourth (and, for the tolerance, eighth) moments: ALPHA = 9.
     * Heavier tails are checked by KS only. */
    {
        double a = 9, m = 2, xm = m * (a - 1) / a;
        check_law("pareto:9,2", m, xm * xm * a / ((a - 1) * (a - 1) * (a - 2)), 1, 1, 5);
    }
    {
        double a = 2.5, xm = 1 * (a - 1) / a;
        check_law("pareto:2.5,1", 1, xm * xm * a / ((a - 1) * (a - 1) * (a - 2)), 0, 1, 6);
    }
    check_law("pareto:1.5,1", 1, INFINITY, 0, 1, 7);
    check_law("erlang:3,2", 1.5, 0.75, 1, 1, 8);
    check_law("erlang:1,4", 0.25, 0.0625, 1, 1, 9);
    check_law("erlang:40,10", 4, 0.4, 1, 1, 10); /* several 16-factor blocks */
    {
        /* E[X] = sum p/r, E[X^2] = sum 2 p / r^2. */
        double m = 0.3 / 0.5 + 0.7 / 4, m2 = 2 * 0.3 / 0.25 + 2 * 0.7 / 16;
        check_law("hyperexp:0.3,0.5,0.7,4", m, m2 - m * m, 1, 1, 11);
        m = 0.2 / 1 + 0.5 / 3 + 0.3 / 10;
        m2 = 2 * 0.2 / 1 + 2 * 0.5 / 9 + 2 * 0.3 / 100;
        check_law("hyperexp:0.2,1,0.5,3,0.3,10", m, m2 - m * m, 1, 1, 12);
    }
    check_law("uniform:1,3", 2, 4.0 / 12, 1, 1, 13);
    check_law("uniform:0,0.5", 0.25, 0.25 / 12, 1, 1, 14);

    /* det: every draw is the value. */
    storq_dist d;
    storq_error err = {0};
    CHECK(storq_dist_parse("det:0.25", PARAM, &d, &err) == STORQ_OK);
    CHECK(d.mean == 0.25 && d.var == 0);
    storq_rng r = stream(15);
    int ok = 1;
    for (int i = 0; i < 1000; i++)
        ok &= storq_dist_sample(&d, &r) == 0.25;
    CHECK(ok);
    CHECK(storq_dist_parse("det:0", PARAM, &d, &err) == STORQ_OK && d.mean == 0);
}

static void test_continuous_parse(void)
{
    storq_dist d;
    storq_error err = {0};
    CHECK(storq_dist_parse("exp:2", PARAM, &d, &err) == STORQ_OK);
    CHECK(d.kind == STORQ_DIST_EXP && d.nparams == 1 && d.p[0] == 2 && storq_dist_is_exp(&d));
    CHECK(storq_dist_parse("exp:1e-3", PARAM, &d, &err) == STORQ_OK && d.p[0] == 1e-3);
    CHECK(storq_dist_parse("shexp:0.5,2", PARAM, &d, &err) == STORQ_OK);
    CHECK(d.kind == STORQ_DIST_SHEXP && d.nparams == 2 && !storq_dist_is_exp(&d));
    CHECK(storq_dist_parse("hyperexp:0.5,1,0.5,2", PARAM, &d, &err) == STORQ_OK);
    CHECK(d.kind == STORQ_DIST_HYPEREXP && d.nparams == 4 && !storq_dist_is_exp(&d));
    /* Probabilities within 1e-9 of summing to 1 are accepted. */
    CHECK(storq_dist_parse("hyperexp:0.3333333333,1,0.6666666667,2", PARAM, &d, &err) ==
          STORQ_OK);
    CHECK(storq_dist_parse("erlang:2,3", PARAM, &d, &err) == STORQ_OK && d.p[0] == 2);
    CHECK(storq_dist_parse("pareto:3,1", PARAM, &d, &err) == STORQ_OK);
    CHECK(storq_dist_parse("uniform:0,1", PARAM, &d, &err) == STORQ_OK);
    CHECK(err.code == STORQ_OK);

    static const char *bad[] = {
        "", "exp", "exp:", "exp:-1", "exp:0", "exp:1,2", "exp:abc", "exp:1x", "exp: 1", "exp:1 ",
        "exp:nan", "exp:inf", "exp:1e999", "exp:1,", "exp:,1", "EXP:1", "expo:1", "foo:1",
        "exp:1e-320", "det:-1", "det:", "det:1,2", "shexp:1", "shexp:-1,2", "shexp:1,0",
        "shexp:1,2,3", "pareto:1,1", "pareto:0.5,1", "pareto:2,0", "pareto:2,-1", "pareto:2",
        "erlang:2.5,1", "erlang:0,1", "erlang:-2,1", "erlang:3,-1", "erlang:3", "erlang:2000000,1",
        "hyperexp:0.5,1,0.4,2", "hyperexp:0.5,1,0.5", "hyperexp:1,1", "hyperexp:1.5,1,-0.5,2",
        "hyperexp:0.5,1,0.5,0", "hyperexp:0.5,1,0.5,2,0", "uniform:2,1", "uniform:-1,1",
        "uniform:1,1", "uniform:1", "trace", "trace:", "trace:/nonexistent/storq/trace.txt",
        "fixed:3", "pmf:1=1"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        storq_error e = {0};
        int rc = storq_dist_parse(bad[i], PARAM, &d, &e);
        int good = rc == STORQ_ERR_USAGE && e.code == STORQ_ERR_USAGE &&
                   strstr(e.msg, PARAM) && strstr(e.msg, "accepted: exp:RATE") && !d.trace;
        if (!good)
            fprintf(stderr, "spec '%s': rc %d, message '%s'\n", bad[i], rc, e.msg);
        CHECK(good);
        storq_dist_free(&d);
    }
    /* Messages name the parameter and what is wrong. */
    storq_error e = {0};
    storq_dist_parse("exp:-1", PARAM, &d, &e);
    printf("example message: %s\n", e.msg);
    CHECK(strstr(e.msg, "--service: 'exp:-1': RATE must be > 0") == e.msg);
    e = (storq_error){0};
    storq_dist_parse("hyperexp:0.5,1,0.4,2", PARAM, &d, &e);
    CHECK(strstr(e.msg, "sum to 0.9") != NULL);
    e = (storq_error){0};
    storq_dist_parse("erlang:2.5,1", "--chunk_dist", &d, &e);
    CHECK(strstr(e.msg, "--chunk_dist: 'erlang:2.5,1': K must be a whole number") == e.msg);

    /* Specs longer than the stored copy are refused, not truncated. */
    char longspec[400];
    memset(longspec, '1', sizeof longspec - 1);
    longspec[sizeof longspec - 1] = '\0';
    memcpy(longspec, "exp:", 4);
    e = (storq_error){0};
    CHECK(storq_dist_parse(longspec, PARAM, &d, &e) == STORQ_ERR_USAGE);

    /* Freeing zeroed and already-freed structs is harmless. */
    storq_dist z = {0};
    storq_dist_free(&z);
    storq_dist_free(&z);
    storq_dist_free(NULL);
}

/* ---------------------------------------------------------------- trace */

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static void test_trace(void)
{
    char path[] = "/tmp/storq_test_trace_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd < 0)
        return;
    close(fd);
    char spec[64];
    snprintf(spec, sizeof spec, "trace:%s", path);

    /* Comments, blank lines, CRLF and surrounding blanks are fine; one number per line. */
    write_file(path, "# service times\n0.5\r\n  1.5 \n\n2\n4\n");
    storq_dist d;
    storq_error err = {0};
    int rc = storq_dist_parse(spec, PARAM, &d, &err);
    if (rc)
        fprintf(stderr, "%s\n", err.msg);
    CHECK(rc == STORQ_OK);
    if (rc == STORQ_OK) {
        CHECK(d.kind == STORQ_DIST_TRACE && d.ntrace == 4);
        CHECK_NEAR(d.mean, 2, 1e-15);
        CHECK_NEAR(d.var, (1.5 * 1.5 + 0.5 * 0.5 + 0 + 2 * 2) / 4, 1e-15);
        storq_rng r = stream(20);
        double obs[4] = {0}, expct[4] = {N / 4.0, N / 4.0, N / 4.0, N / 4.0};
        int ok = 1;
        for (int i = 0; i < N; i++) {
            xs[i] = storq_dist_sample(&d, &r);
            int j = xs[i] == 0.5 ? 0 : xs[i] == 1.5 ? 1 : xs[i] == 2 ? 2 : xs[i] == 4 ? 3 : -1;
            ok &= j >= 0;
            if (j >= 0)
                obs[j]++;
        }
        CHECK(ok);
        check_moments("trace", xs, N, d.mean, d.var);
        CHECK(chi2_pvalue(obs, expct, 4) > ALPHA);
        /* Read once: a second law naming the file shares the first's numbers; an edited file
         * (another size or time) is read again. */
        storq_dist again;
        CHECK(storq_dist_parse(spec, PARAM, &again, &err) == STORQ_OK && again.trace == d.trace);
        storq_dist_free(&again);
        write_file(path, "3\n5\n");
        CHECK(storq_dist_parse(spec, PARAM, &again, &err) == STORQ_OK && again.trace != d.trace &&
              again.ntrace == 2 && again.mean == 4 && d.ntrace == 4 && d.trace[3] == 4);
        storq_dist_free(&again);
        storq_dist_free(&d);
        CHECK(d.trace == NULL);
    }

    static const char *bad[] = {"", "# only a comment\n\n", "1\nabc\n", "1\n-2\n", "1 2\n",
                                "1\nnan\n", "1,5\n"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        write_file(path, bad[i]);
        storq_error e = {0};
        rc = storq_dist_parse(spec, PARAM, &d, &e);
        int good = rc == STORQ_ERR_USAGE && strstr(e.msg, PARAM) && strstr(e.msg, path) &&
                   !d.trace;
        if (!good)
            fprintf(stderr, "trace contents '%s': rc %d, message '%s'\n", bad[i], rc, e.msg);
        CHECK(good);
    }
    unlink(path);

    /* Only regular files: a device, a directory and a FIFO are refused before any read (a FIFO
     * without a writer would block, /dev/zero would never end). */
    char fifo[] = "/tmp/storq_test_fifo_XXXXXX";
    fd = mkstemp(fifo);
    CHECK(fd >= 0 && close(fd) == 0 && unlink(fifo) == 0 && mkfifo(fifo, 0600) == 0);
    const char *special[] = {"/dev/zero", "/tmp", fifo};
    for (size_t i = 0; i < sizeof special / sizeof special[0]; i++) {
        storq_error e = {0};
        snprintf(spec, sizeof spec, "trace:%s", special[i]);
        rc = storq_dist_parse(spec, PARAM, &d, &e);
        CHECK(rc == STORQ_ERR_USAGE && strstr(e.msg, "is not a regular file"));
    }
    unlink(fifo);
}

/* ---------------------------------------------------------------- discrete laws */

/* Chi-square of N draws against storq_ddist_pmf, cells k = 1..KCAP plus a tail, cells with
 * expected count < 5 merged with their neighbours. */
static void check_ddist_counts(const char *spec, const storq_ddist *d, const int64_t *x)
{
    enum { KCAP = 400 };
    static double counts[KCAP + 1];
    memset(counts, 0, sizeof counts);
    double beyond = 0;
    int in_support = 1;
    for (int i = 0; i < N; i++) {
        in_support &= x[i] >= d->min && x[i] <= d->max && storq_ddist_pmf(d, x[i]) > 0;
        if (x[i] >= 1 && x[i] <= KCAP)
            counts[x[i]]++;
        else
            beyond++;
    }
    CHECK(in_support);

    static double obs[KCAP + 2], expct[KCAP + 2];
    int cells = 0;
    double pend_o = 0, pend_e = 0, covered = 0;
    for (int k = 1; k <= KCAP; k++) {
        double p = storq_ddist_pmf(d, k);
        if (p == 0)
            continue;
        covered += p;
        pend_o += counts[k];
        pend_e += N * p;
        if (pend_e >= 5) {
            obs[cells] = pend_o;
            expct[cells++] = pend_e;
            pend_o = pend_e = 0;
        }
    }
    pend_o += beyond;
    pend_e += N * fmax(1 - covered, 0);
    if (pend_e >= 5 || cells == 0) {
        obs[cells] = pend_o;
        expct[cells++] = pend_e;
    } else {
        obs[cells - 1] += pend_o;
        expct[cells - 1] += pend_e;
    }
    if (cells == 1) {
        CHECK(obs[0] == N);
        return;
    }
    double p = chi2_pvalue(obs, expct, cells);
    if (!(p > ALPHA))
        fprintf(stderr, "%s: chi-square p = %g over %d cells\n", spec, p, cells);
    CHECK(p > ALPHA);
}

static void check_dlaw(const char *spec, double mean, double var, int64_t min, int64_t max,
                       uint64_t point)
{
    static int64_t ks[N];
    storq_ddist d;
    storq_error err = {0};
    int rc = storq_ddist_parse(spec, "--size", &d, &err);
    if (rc != STORQ_OK)
        fprintf(stderr, "%s: %s\n", spec, err.msg);
    CHECK(rc == STORQ_OK);
    if (rc != STORQ_OK)
        return;
    CHECK(strcmp(d.spec, spec) == 0);
    CHECK_NEAR(d.mean, mean, 1e-10 * mean);
    CHECK_NEAR(d.var, var, 1e-9 * fmax(var, 1e-300));
    CHECK(d.min == min && d.max == max);

    /* The pmf sums to 1 and has the stated mean (sums over the support, or far into geom's). */
    int64_t top = d.max < 100000 ? d.max : 100000;
    double sp = 0, sk = 0;
    for (int64_t k = d.min; k <= top; k++) {
        double p = storq_ddist_pmf(&d, k);
        sp += p;
        sk += p * (double)k;
    }
    CHECK_NEAR(sp, 1, 1e-12);
    CHECK_NEAR(sk, mean, 1e-9 * mean);
    CHECK(storq_ddist_pmf(&d, 0) == 0 && storq_ddist_pmf(&d, -5) == 0);

    storq_rng r = stream(100 + point);
    for (int i = 0; i < N; i++) {
        ks[i] = storq_ddist_sample(&d, &r);
        xs[i] = (double)ks[i];
    }
    check_moments(spec, xs, N, mean, var);
    check_ddist_counts(spec, &d, ks);
    storq_ddist_free(&d);
    CHECK(d.values == NULL && d.cdf == NULL);
}

/* Binomial(M, P) conditioned on k >= 1. */
static void binom_moments(double M, double P, double *mean, double *var)
{
    double z = 1 - pow(1 - P, M);
    *mean = M * P / z;
    *var = (M * P * (1 - P) + M * M * P * P) / z - *mean * *mean;
}

static void test_discrete_sampling(void)
{
    check_dlaw("fixed:4", 4, 0, 4, 4, 1);
    check_dlaw("fixed:1", 1, 0, 1, 1, 2);
    check_dlaw("geom:0.3", 1 / 0.3, 0.7 / 0.09, 1, INT64_MAX, 3);
    check_dlaw("geom:1", 1, 0, 1, INT64_MAX, 4);
    check_dlaw("geom:0.01", 100, 0.99 / 1e-4, 1, INT64_MAX, 5);
    double m, v;
    binom_moments(10, 0.3, &m, &v);
    check_dlaw("binom:10,0.3", m, v, 1, 10, 6);
    binom_moments(1000, 0.002, &m, &v);
    check_dlaw("binom:1000,0.002", m, v, 1, 1000, 7);
    check_dlaw("binom:5,1", 5, 0, 5, 5, 8);
    binom_moments(1, 0.5, &m, &v);
    check_dlaw("binom:1,0.5", 1, 0, 1, 1, 9);
    check_dlaw("uniform:3,9", 6, (49.0 - 1) / 12, 3, 9, 10);
    check_dlaw("uniform:1,1", 1, 0, 1, 1, 11);
    check_dlaw("pmf:1=0.5,4=0.3,9=0.2", 0.5 + 1.2 + 1.8, 0.5 + 4.8 + 16.2 - 3.5 * 3.5, 1, 9, 12);
    /* Order does not matter; zero-probability values are not in the support. */
    check_dlaw("pmf:5=0.75,3=0,2=0.25", 0.5 + 3.75, 0.25 * 4 + 0.75 * 25 - 4.25 * 4.25, 2, 5, 13);

    /* Large values: uniform over a wide range and geom with a tiny P stay in range. */
    storq_ddist d;
    storq_error err = {0};
    CHECK(storq_ddist_parse("uniform:1,9223372036854775807", "--size", &d, &err) == STORQ_OK);
    storq_rng r = stream(200);
    int ok = 1;
    for (int i = 0; i < 1000; i++)
        ok &= storq_ddist_sample(&d, &r) >= 1;
    CHECK(ok);
    CHECK(storq_ddist_parse("geom:1e-12", "--size", &d, &err) == STORQ_OK);
    ok = 1;
    for (int i = 0; i < 1000; i++)
        ok &= storq_ddist_sample(&d, &r) >= 1;
    CHECK(ok);
}

static void test_discrete_parse(void)
{
    storq_ddist d;
    storq_error err = {0};
    CHECK(storq_ddist_parse("pmf:4=0.5,1=0.5", "--size", &d, &err) == STORQ_OK);
    CHECK(d.kind == STORQ_DDIST_PMF && d.nvalues == 2 && d.values[0] == 1 && d.values[1] == 4);
    CHECK(d.cdf[1] == 1 && storq_ddist_pmf(&d, 4) == 0.5 && storq_ddist_pmf(&d, 2) == 0);
    storq_ddist_free(&d);
    CHECK(storq_ddist_parse("geom:0.5", "--size", &d, &err) == STORQ_OK);
    CHECK(d.kind == STORQ_DDIST_GEOM && storq_ddist_pmf(&d, 3) == 0.125);
    CHECK(storq_ddist_parse("fixed:12", "--size", &d, &err) == STORQ_OK && d.min == 12);
    CHECK(storq_ddist_parse("binom:20,0.5", "--size", &d, &err) == STORQ_OK);
    CHECK(d.kind == STORQ_DDIST_BINOM && d.nvalues == 20);
    storq_ddist_free(&d);
    CHECK(err.code == STORQ_OK);

    static const char *bad[] = {
        "", "fixed", "fixed:", "fixed:0", "fixed:-3", "fixed:2.5", "fixed:1,2", "fixed:1x",
        "fixed: 1", "fixed:99999999999999999999", "geom:0", "geom:1.5", "geom:-0.1", "geom:",
        "geom:0.5,1", "geom:nan", "binom:0,0.5", "binom:5,0", "binom:5,1.1", "binom:5",
        "binom:2.5,0.5", "binom:2000000,0.5", "uniform:0,3", "uniform:5,3", "uniform:1.5,3",
        "uniform:1", "pmf:1=0.5,2=0.4", "pmf:1=0.5,1=0.5", "pmf:0=1", "pmf:1=1.5,2=-0.5", "pmf:1",
        "pmf:a=1", "pmf:", "pmf:1=0.5,,2=0.5", "pmf:1=0.5,2=0.5,", "pmf:1.5=1", "exp:1",
        "Fixed:1"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        storq_error e = {0};
        int rc = storq_ddist_parse(bad[i], "--size", &d, &e);
        int good = rc == STORQ_ERR_USAGE && e.code == STORQ_ERR_USAGE && strstr(e.msg, "--size") &&
                   strstr(e.msg, "accepted: fixed:K") && !d.values && !d.cdf;
        if (!good)
            fprintf(stderr, "spec '%s': rc %d, message '%s'\n", bad[i], rc, e.msg);
        CHECK(good);
    }
    storq_error e = {0};
    storq_ddist_parse("pmf:1=0.5,2=0.4", "--size", &d, &e);
    printf("example message: %s\n", e.msg);

    storq_ddist z = {0};
    storq_ddist_free(&z);
    storq_ddist_free(&z);
    storq_ddist_free(NULL);
}

/* A plain sum of storq_ddist_pmf over the support's k in [lo, hi]; geom's unbounded support is
 * summed up to 20000, where what remains of the laws below is under 1e-80 of any window's mass. */
static double pmf_sum(const storq_ddist *d, int64_t lo, int64_t hi)
{
    int64_t a = lo > d->min ? lo : d->min, b = hi < d->max ? hi : d->max;
    if (b > 20000)
        b = 20000;
    double s = 0;
    for (int64_t k = a; k <= b; k++)
        s += storq_ddist_pmf(d, k);
    return s;
}

/* storq_ddist_mass against pmf_sum, for every law kind and windows below, across, inside and
 * beyond the support (and empty ones). */
static void test_discrete_mass(void)
{
    static const char *specs[] = {"fixed:4", "geom:0.3", "geom:0.01", "geom:1", "binom:10,0.3",
                                  "uniform:3,9", "pmf:1=0.5,4=0.3,9=0.2"};
    static const int64_t win[][2] = {{-5, 0}, {-5, 3}, {1, 1}, {2, 5}, {3, 9}, {4, 4},
                                     {7, 100}, {10, INT64_MAX}, {1, INT64_MAX}, {5, 2},
                                     {100, 200}, {INT64_MIN, INT64_MAX}};
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        storq_ddist d;
        storq_error err = {0};
        CHECK(storq_ddist_parse(specs[i], "--size", &d, &err) == STORQ_OK);
        for (size_t w = 0; w < sizeof win / sizeof win[0]; w++) {
            double got = storq_ddist_mass(&d, win[w][0], win[w][1]);
            double want = pmf_sum(&d, win[w][0], win[w][1]);
            if (!(fabs(got - want) <= 1e-12 * want))
                fprintf(stderr, "%s: mass [%lld, %lld] = %.17g, pmf sum %.17g\n", specs[i],
                        (long long)win[w][0], (long long)win[w][1], got, want);
            CHECK(fabs(got - want) <= 1e-12 * want);
        }
        storq_ddist_free(&d);
    }
}

/* storq_ddist_tail_cut: geom's cut K is the first with the summed tail P(X > K) below the bound;
 * finite supports are not cut (K is the maximum, nothing lies beyond). */
static void test_discrete_tail_cut(void)
{
    static const struct {
        const char *spec;
        double tail;
    } cases[] = {{"geom:0.3", 1e-6}, {"geom:0.3", 1e-9}, {"geom:0.01", 1e-4}, {"geom:0.01", 1e-13},
                 {"geom:1", 1e-9},   {"fixed:4", 1e-9},  {"binom:10,0.3", 1e-3},
                 {"binom:1000,0.002", 1e-13}, {"uniform:3,9", 0.5}, {"pmf:1=0.5,4=0.3,9=0.2", 0.1}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        storq_ddist d;
        storq_error err = {0};
        CHECK(storq_ddist_parse(cases[i].spec, "--size", &d, &err) == STORQ_OK);
        int64_t K = storq_ddist_tail_cut(&d, cases[i].tail);
        double beyond = pmf_sum(&d, K + 1, INT64_MAX);
        CHECK(K >= d.min && beyond < cases[i].tail);
        if (d.kind == STORQ_DDIST_GEOM && K > 1)
            CHECK(pmf_sum(&d, K, INT64_MAX) >= cases[i].tail);
        if (d.kind != STORQ_DDIST_GEOM)
            CHECK(K == d.max && beyond == 0);
        storq_ddist_free(&d);
    }
    storq_ddist d;
    storq_error err = {0};
    CHECK(storq_ddist_parse("geom:1e-15", "--size", &d, &err) == STORQ_OK);
    CHECK(storq_ddist_tail_cut(&d, 1e-13) == (int64_t)9e15); /* 3e16 by the formula: capped */
    storq_ddist_free(&d);
}

int main(void)
{
    xs = malloc(N * sizeof *xs);
    if (!xs)
        return 1;
    test_continuous_parse();
    test_continuous_sampling();
    test_trace();
    test_discrete_parse();
    test_discrete_sampling();
    test_discrete_mass();
    test_discrete_tail_cut();
    free(xs);
    return check_report("test_distribution");
}
