/* `cluster`: m servers, chunked and MDS-coded files, BR / BS / WF delivery (MODELS.md; seed 000).
 *
 * A request for a file of k chunks (coded into alpha_k >= k blocks placed afresh on the servers)
 * asks k of its blocks from the servers holding them; servers serve FCFS at mu bits per unit time.
 * The listed delivery policies run coupled on one stream of arrivals, sizes, chunk sizes and
 * placements; each keeps its own per-server "busy until" times V_i, so a request costs O(alpha_k)
 * (plus O(k log alpha_k) for water-filling when alpha_k >= m), never O(m) when alpha_k < m. The
 * BR theory (cavity queue, product-form figure) is in cluster_cavity.c. See
 * docs/models/cluster.md. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cavity.h"
#include "distribution.h"
#include "model.h"

#define CL_NPOL_MAX 3
#define CL_NGRID 50
#define CL_CLASS_MIN_MASS 1e-4
#define CL_CLASS_TAIL 1e-9   /* classes reach the largest k with P(size > k) >= this */
#define CL_MOMENT_TAIL 1e-13 /* moments and mixtures: the support truncated at this tail */
#define CL_QUAD_MAX 4096     /* k values in a mixture before bucketing */
#define CL_CLASS_TAB 256
#define CL_CCDF_TAB 4096 /* buckets: 128 octaves */

enum { CL_BR = 0, CL_BS = 1, CL_WF = 2 };
static const char *const cl_pol_name[] = {"BR", "BS", "WF"};
enum { CL_CODE_NONE, CL_CODE_PLUS, CL_CODE_RATE, CL_CODE_TIMES };

typedef struct cl_ids {
    int delay, mean, cmean, ccount, wfound, ccdf, util, diff;
    int chist0; /* the delay histogram of size class j has id chist0 + j */
} cl_ids;

typedef struct cl_ctx {
    uint64_t m;
    double lambda, mu, chunk;
    storq_ddist size;
    storq_dist cdist;
    int have_size, have_cdist;
    int coding;
    int64_t plus;
    double factor; /* R for rate:R, F for times:F */
    int npol;
    int pol[CL_NPOL_MAX];
    int need_keys; /* BS or WF listed: draw tie keys */
    uint64_t warmup, arrivals;
    double Ek, Ec, Ealpha, rho, EX, EX2, Eceil;
    int64_t kmax_class; /* largest k the classes reach (P(size > k) < CL_CLASS_TAIL beyond) */
    int64_t kmax_support; /* largest k with mass (INT64_MAX for geom) */
    size_t nclass;
    int64_t *class_lo; /* lowest k of each class; class j = [lo_j, lo_{j+1} - 1], last open */
    uint8_t class_tab[CL_CLASS_TAB]; /* the class of k < CL_CLASS_TAB (no search per request) */
    double xgrid[CL_NGRID];
    /* P(D > x) counters without a search: D's bucket (exponent and 5 leading mantissa bits, a
     * 1/32 octave, narrower than the grid's step) holds at most one grid point, so the number
     * of grid points below D is ccdf_tab[bucket] (those below the bucket) plus one compare */
    double ccdf_x[CL_NGRID + 1]; /* xgrid, then +inf */
    int64_t ccdf_b0, ccdf_nb;    /* first bucket (that of xgrid[0]) and number of buckets */
    uint8_t ccdf_tab[CL_CCDF_TAB];
    double rebase_time;
    uint64_t rebase_count;
    /* the size law as a finite mixture (exact, or bucketed for very wide supports) */
    size_t nq;
    int64_t *qk;
    double *qw;
    int q_exact;
    cl_ids id[CL_NPOL_MAX];
} cl_ctx;

static const storq_param_def cl_params[] = {
    {"m", STORQ_PARAM_INT, "100", 1, 2147483647.0, 0, "servers", NULL, "number of servers"},
    {"lambda", STORQ_PARAM_REAL, "70", 0, HUGE_VAL, 1, "1/time", NULL,
     "request rate (all servers together); the per-server load is "
     "rho = lambda E[k] E[c] / (m mu), capacity 1"},
    {"mu", STORQ_PARAM_REAL, "1", 0, HUGE_VAL, 1, "bits/time", NULL,
     "service rate of one server"},
    {"chunk", STORQ_PARAM_REAL, "1", 0, HUGE_VAL, 1, "bits", NULL,
     "chunk (and code block) size c; used by the default --chunk_dist det"},
    {"size", STORQ_PARAM_STRING, "fixed:1", 0, 0, 0, "chunks", NULL,
     "law pi of the number of chunks k >= 1 of a requested file: fixed:K, geom:P, binom:M,P, "
     "uniform:A,B, pmf:K1=P1,..."},
    {"coding", STORQ_PARAM_STRING, "none", 0, 0, 0, "", NULL,
     "code blocks alpha_k of a file of k chunks: none (k), plus:A (k + A), rate:R "
     "(ceil(k / R), R in (0,1]), times:F (ceil(F k), F >= 1)"},
    {"chunk_dist", STORQ_PARAM_STRING, "det", 0, 0, 0, "bits", NULL,
     "law psi of the block size c_n of request n (all its blocks): det = det:chunk, or any "
     "distribution spec"},
    {"policy", STORQ_PARAM_STRING, "BR+BS+WF", 0, 0, 0, "", NULL,
     "delivery policies BR, BS, WF joined by '+' run coupled (same arrivals, sizes, chunk sizes "
     "and placements); a comma list makes one point per entry"},
    {"warmup", STORQ_PARAM_INT, "100000", 0, HUGE_VAL, 0, "requests", NULL,
     "requests simulated before measuring"},
    {"arrivals", STORQ_PARAM_INT, "1000000", 1, HUGE_VAL, 0, "requests", NULL,
     "measured requests per replication"},
    {NULL, 0, NULL, 0, 0, 0, NULL, NULL, NULL},
};

/* ------------------------------------------------------------------ size law helpers */

static int64_t cl_alpha(const cl_ctx *c, int64_t k)
{
    switch (c->coding) {
    case CL_CODE_PLUS:
        return k + c->plus;
    case CL_CODE_RATE: /* smallest a with a R >= k, R taken as written (relative 1e-12) */
        return (int64_t)ceil((double)k / c->factor * (1.0 - 1e-12));
    case CL_CODE_TIMES:
        return (int64_t)ceil((double)k * c->factor * (1.0 - 1e-12));
    default:
        return k;
    }
}

/* P(lo <= size <= hi). */
static double cl_mass(const storq_ddist *d, int64_t lo, int64_t hi)
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

/* Smallest K with P(size > K) < tail (the support's maximum when that is finite). */
static int64_t cl_kmax(const storq_ddist *d, double tail)
{
    if (d->kind != STORQ_DDIST_GEOM)
        return d->max;
    double p = d->p[0];
    if (p >= 1.0)
        return 1;
    double K = ceil(log(tail) / log1p(-p));
    return K < 1 ? 1 : K > 9e15 ? (int64_t)9e15 : (int64_t)K;
}

/* The size law as a mixture (qk, qw): every k with mass when there are at most CL_QUAD_MAX of
 * them up to the CL_MOMENT_TAIL truncation, else CL_QUAD_MAX equal-width buckets, each
 * represented by its middle k and weighted by its mass. Weights sum to 1. */
static int cl_build_mixture(cl_ctx *c)
{
    const storq_ddist *d = &c->size;
    int64_t lo = d->min, hi = cl_kmax(d, CL_MOMENT_TAIL);
    size_t cap = CL_QUAD_MAX + 1;
    c->qk = malloc(cap * sizeof *c->qk);
    c->qw = malloc(cap * sizeof *c->qw);
    if (!c->qk || !c->qw)
        return -1;
    c->nq = 0;
    if (d->kind == STORQ_DDIST_BINOM || d->kind == STORQ_DDIST_PMF) {
        if (d->nvalues > cap) {
            free(c->qk);
            free(c->qw);
            c->qk = malloc(d->nvalues * sizeof *c->qk);
            c->qw = malloc(d->nvalues * sizeof *c->qw);
            if (!c->qk || !c->qw)
                return -1;
        }
        for (size_t i = 0; i < d->nvalues; i++) {
            double w = storq_ddist_pmf(d, d->values[i]);
            if (w > 0) {
                c->qk[c->nq] = d->values[i];
                c->qw[c->nq++] = w;
            }
        }
        c->q_exact = 1;
    } else if ((double)hi - (double)lo + 1.0 <= CL_QUAD_MAX) {
        for (int64_t k = lo; k <= hi; k++) {
            double w = cl_mass(d, k, k);
            if (w > 0) {
                c->qk[c->nq] = k;
                c->qw[c->nq++] = w;
            }
        }
        c->q_exact = d->kind != STORQ_DDIST_GEOM || hi == 1;
    } else {
        double width = ((double)hi - (double)lo + 1.0) / CL_QUAD_MAX;
        int64_t a = lo;
        for (size_t b = 0; b < CL_QUAD_MAX && a <= hi; b++) {
            int64_t e = b + 1 == CL_QUAD_MAX ? hi : lo + (int64_t)floor((double)(b + 1) * width) - 1;
            if (e < a)
                continue;
            double w = cl_mass(d, a, e);
            if (w > 0) {
                c->qk[c->nq] = a + (e - a) / 2;
                c->qw[c->nq++] = w;
            }
            a = e + 1;
        }
        c->q_exact = 0;
    }
    double s = 0.0;
    for (size_t i = 0; i < c->nq; i++)
        s += c->qw[i];
    if (!(s > 0))
        return 1;
    for (size_t i = 0; i < c->nq; i++)
        c->qw[i] /= s;
    return 0;
}

static int cl_build_classes(cl_ctx *c)
{
    const storq_ddist *d = &c->size;
    int64_t kmax = c->kmax_class;
    size_t cap = 64;
    c->class_lo = malloc(cap * sizeof *c->class_lo);
    if (!c->class_lo)
        return -1;
    c->nclass = 0;
    int64_t cur = -1;
    double cmass = 0.0;
    int64_t lo = 1;
    while (lo <= kmax) {
        int64_t hi = lo <= 16 ? lo : 2 * lo - 2; /* [17,32], [33,64], ... */
        int last = hi >= kmax || hi > INT64_MAX / 4;
        double mm = cl_mass(d, lo, last ? INT64_MAX : hi);
        if (mm > 0 || cur >= 0) {
            if (cur < 0)
                cur = lo;
            cmass += mm;
            if (cmass >= CL_CLASS_MIN_MASS) {
                if (c->nclass == cap) {
                    cap *= 2;
                    int64_t *t = realloc(c->class_lo, cap * sizeof *t);
                    if (!t)
                        return -1;
                    c->class_lo = t;
                }
                c->class_lo[c->nclass++] = cur;
                cur = -1;
                cmass = 0.0;
            }
        }
        if (last)
            break;
        lo = hi + 1;
    }
    if (cur >= 0 && c->nclass == 0)
        c->class_lo[c->nclass++] = cur; /* otherwise the remainder joins the last class */
    return c->nclass ? 0 : 1;
}

static size_t cl_class_of(const cl_ctx *c, int64_t k)
{
    size_t lo = 0, hi = c->nclass; /* largest j with class_lo[j] <= k */
    while (hi - lo > 1) {
        size_t mid = (lo + hi) / 2;
        if (c->class_lo[mid] <= k)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

static int64_t cl_bucket(double x)
{
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    return (int64_t)(bits >> 47);
}

/* Number of grid points below D (a lower bound on the sorted grid), without branches: the
 * binary search's compares are unpredictable. */
static inline size_t cl_grid_below(const double *x, double D)
{
    const double *b = x;
    size_t n = CL_NGRID;
    while (n > 1) {
        size_t half = n / 2;
        b += (size_t)(b[half - 1] < D) * half;
        n -= half;
    }
    return (size_t)(b - x) + (*b < D);
}

/* The bucket table of the P(D > x) counters (see cl_ctx). Grid points are at least 10^(1/49)
 * apart, more than a bucket's width (at most 2^(1/32)); checked, with ccdf_nb = 0 (every D then
 * takes the search) when a bucket would hold two, or the grid spans too many octaves. */
static void cl_ccdf_table(cl_ctx *c)
{
    for (int j = 0; j < CL_NGRID; j++)
        c->ccdf_x[j] = c->xgrid[j];
    c->ccdf_x[CL_NGRID] = HUGE_VAL;
    c->ccdf_nb = 0;
    c->ccdf_b0 = cl_bucket(c->xgrid[0]);
    const int64_t nb = cl_bucket(c->xgrid[CL_NGRID - 1]) - c->ccdf_b0 + 1;
    if (!(c->xgrid[0] > 0) || !isfinite(c->xgrid[CL_NGRID - 1]) || nb > CL_CCDF_TAB)
        return;
    for (int j = 0; j + 1 < CL_NGRID; j++)
        if (!(cl_bucket(c->xgrid[j + 1]) > cl_bucket(c->xgrid[j])))
            return;
    for (int64_t b = 0; b < nb; b++) {
        uint64_t bits = (uint64_t)(c->ccdf_b0 + b) << 47;
        double edge;
        memcpy(&edge, &bits, sizeof edge);
        c->ccdf_tab[b] = (uint8_t)cl_grid_below(c->xgrid, edge);
    }
    c->ccdf_nb = nb;
}

/* Number of grid points below D: the table for D in [bucket of xgrid[0], that of xgrid[49]],
 * 0 below (0 <= D < xgrid[0]), the search otherwise (large D, and any non-finite D). */
static inline size_t cl_ccdf_index(const cl_ctx *c, double D)
{
    const int64_t b = cl_bucket(D) - c->ccdf_b0;
    if (b < 0)
        return 0;
    if (b < c->ccdf_nb) {
        const size_t i = c->ccdf_tab[b];
        return i + (c->ccdf_x[i] < D);
    }
    return cl_grid_below(c->xgrid, D);
}

/* ------------------------------------------------------------------ prepare */

static void cl_release(void *vctx)
{
    cl_ctx *c = vctx;
    if (!c)
        return;
    if (c->have_size)
        storq_ddist_free(&c->size);
    if (c->have_cdist)
        storq_dist_free(&c->cdist);
    free(c->class_lo);
    free(c->qk);
    free(c->qw);
    free(c);
}

static int cl_parse_policy(cl_ctx *c, const char *spec, storq_error *err)
{
    const char *acc = "distinct policies among BR, BS, WF joined by '+', run coupled (e.g. BR+WF)";
    char buf[256];
    if (strlen(spec) >= sizeof buf)
        return storq_fail(err, STORQ_ERR_USAGE, "--policy: '%.40s...' is too long; accepted: %s",
                          spec, acc);
    snprintf(buf, sizeof buf, "%s", spec);
    c->npol = 0;
    char *save = NULL;
    int seen[3] = {0, 0, 0};
    int ntok = 0;
    for (char *tok = strtok_r(buf, "+", &save); tok; tok = strtok_r(NULL, "+", &save)) {
        while (*tok == ' ')
            tok++;
        size_t l = strlen(tok);
        while (l && tok[l - 1] == ' ')
            tok[--l] = 0;
        ntok++;
        int which = -1;
        for (int i = 0; i < 3; i++)
            if (strcmp(tok, cl_pol_name[i]) == 0)
                which = i;
        if (which < 0)
            return storq_fail(err, STORQ_ERR_USAGE,
                              "--policy: '%s' in '%s' is not a policy; accepted: %s", tok, spec,
                              acc);
        if (seen[which])
            return storq_fail(err, STORQ_ERR_USAGE,
                              "--policy: '%s' is listed twice in '%s'; accepted: %s", tok, spec,
                              acc);
        seen[which] = 1;
        c->pol[c->npol++] = which;
    }
    if (ntok == 0)
        return storq_fail(err, STORQ_ERR_USAGE, "--policy: '%s' names no policy; accepted: %s",
                          spec, acc);
    c->need_keys = seen[CL_BS] || seen[CL_WF];
    return STORQ_OK;
}

static int cl_parse_coding(cl_ctx *c, const char *spec, storq_error *err)
{
    const char *acc = "none, plus:A (A >= 0 whole), rate:R (0 < R <= 1), times:F (F >= 1)";
    char *end;
    if (strcmp(spec, "none") == 0) {
        c->coding = CL_CODE_NONE;
        return STORQ_OK;
    }
    if (strncmp(spec, "plus:", 5) == 0) {
        long long a = strtoll(spec + 5, &end, 10);
        if (end == spec + 5 || *end)
            return storq_fail(err, STORQ_ERR_USAGE,
                              "--coding: '%s': A must be a whole number; accepted: %s", spec, acc);
        if (a < 0)
            return storq_fail(err, STORQ_ERR_USAGE,
                              "--coding: '%s' gives alpha_k = k - %lld < k code blocks (a file of "
                              "k chunks needs k blocks); accepted: %s",
                              spec, -a, acc);
        if (a > (1LL << 40))
            return storq_fail(err, STORQ_ERR_USAGE,
                              "--coding: '%s': A must be at most 2^40 (the block counts would "
                              "overflow)", spec);
        c->coding = CL_CODE_PLUS;
        c->plus = a;
        return STORQ_OK;
    }
    int rate = strncmp(spec, "rate:", 5) == 0, times = strncmp(spec, "times:", 6) == 0;
    if (rate || times) {
        const char *num = spec + (rate ? 5 : 6);
        double v = strtod(num, &end);
        if (end == num || *end || !isfinite(v) || !(v > 0))
            return storq_fail(err, STORQ_ERR_USAGE,
                              "--coding: '%s': %s must be a positive number; accepted: %s", spec,
                              rate ? "R" : "F", acc);
        if ((rate && v > 1) || (times && v < 1))
            return storq_fail(err, STORQ_ERR_USAGE,
                              "--coding: '%s' gives alpha_k = ceil(%s) < k code blocks for some "
                              "k (alpha_1 = %.0f); a file of k chunks needs at least k blocks; "
                              "accepted: %s",
                              spec, rate ? "k / R" : "F k",
                              rate ? ceil(1.0 / v * (1 - 1e-12)) : ceil(v * (1 - 1e-12)), acc);
        if ((rate && v < 1e-9) || (times && v > 1e9))
            return storq_fail(err, STORQ_ERR_USAGE,
                              "--coding: '%s': the redundancy must be at most 1e9 (the block "
                              "counts would overflow)", spec);
        c->coding = rate ? CL_CODE_RATE : CL_CODE_TIMES;
        c->factor = v;
        return STORQ_OK;
    }
    return storq_fail(err, STORQ_ERR_USAGE, "--coding: '%s' is not a coding rule; accepted: %s",
                      spec, acc);
}

static int cl_prepare(const storq_params *p, void **out, storq_error *err)
{
    *out = NULL;
    cl_ctx *c = calloc(1, sizeof *c);
    if (!c)
        return STORQ_RUNTIME_FAIL(err, "out of memory");
    int rc;
    c->m = (uint64_t)storq_param_int(p, "m");
    c->lambda = storq_param_real(p, "lambda");
    c->mu = storq_param_real(p, "mu");
    c->chunk = storq_param_real(p, "chunk");
    c->warmup = (uint64_t)storq_param_int(p, "warmup");
    c->arrivals = (uint64_t)storq_param_int(p, "arrivals");

    if ((rc = cl_parse_policy(c, storq_param_string(p, "policy"), err)))
        goto fail;
    if ((rc = cl_parse_coding(c, storq_param_string(p, "coding"), err)))
        goto fail;
    if ((rc = storq_ddist_parse(storq_param_string(p, "size"), "--size", &c->size, err)))
        goto fail;
    c->have_size = 1;
    if (c->size.min < 1 || !(c->size.mean >= 1) || cl_mass(&c->size, 1, INT64_MAX) <= 0) {
        rc = storq_fail(err, STORQ_ERR_USAGE,
                        "--size: '%s' puts no mass on sizes k >= 1 chunks; give a law of a "
                        "positive integer (fixed:K, geom:P, binom:M,P, uniform:A,B, pmf:...)",
                        c->size.spec);
        goto fail;
    }
    const char *cd = storq_param_string(p, "chunk_dist");
    char spec[64];
    if (strcmp(cd, "det") == 0) {
        snprintf(spec, sizeof spec, "det:%.17g", c->chunk);
        cd = spec;
    }
    if ((rc = storq_dist_parse(cd, "--chunk_dist", &c->cdist, err)))
        goto fail;
    c->have_cdist = 1;
    c->Ec = c->cdist.mean;
    if (!(c->Ec > 0) || !isfinite(c->Ec)) {
        rc = storq_fail(err, STORQ_ERR_USAGE,
                        "--chunk_dist: '%s' has mean %g; the block size law must have a finite "
                        "positive mean",
                        c->cdist.spec, c->Ec);
        goto fail;
    }

    /* memory: per-server arrays of every policy */
    size_t bytes = storq_bytes_mul(c->m, 8 * (size_t)c->npol + 40);
    char what[128];
    snprintf(what, sizeof what, "--m: %llu servers with %d policies",
             (unsigned long long)c->m, c->npol);
    if ((rc = storq_memory_check(bytes, what, "for per-server arrays per replication (and thread)",
                                 err)))
        goto fail;
    c->kmax_support = c->size.max;
    c->kmax_class = cl_kmax(&c->size, CL_CLASS_TAIL);
    {
        int64_t kbig = cl_kmax(&c->size, CL_MOMENT_TAIL);
        double abig = (double)cl_alpha(c, kbig);
        if (!(abig < 1099511627776.0) || (double)kbig * (c->coding == CL_CODE_TIMES ? c->factor : 1) > 1e12) {
            rc = storq_fail(err, STORQ_ERR_USAGE,
                            "--size/--coding: files of up to %lld chunks coded by --coding %s "
                            "need about %.3g blocks each; at most 2^40 are supported (the block "
                            "counts and their arrays would overflow)",
                            (long long)kbig, storq_param_string(p, "coding"), abig);
            goto fail;
        }
    }
    if ((rc = cl_build_mixture(c))) {
        if (rc < 0)
            rc = STORQ_RUNTIME_FAIL(err, "out of memory");
        else
            rc = storq_fail(err, STORQ_ERR_USAGE, "--size: '%s' puts no mass on sizes k >= 1",
                            c->size.spec);
        goto fail;
    }
    if ((rc = cl_build_classes(c))) {
        rc = rc < 0 ? STORQ_RUNTIME_FAIL(err, "out of memory")
                    : storq_fail(err, STORQ_ERR_USAGE, "--size: '%s' puts no mass on sizes k >= 1",
                                 c->size.spec);
        goto fail;
    }
    /* (at most 16 exact classes and one per doubling of k < 2^63: fewer than 256) */
    for (int64_t k = 0; k < CL_CLASS_TAB; k++)
        c->class_tab[k] = (uint8_t)cl_class_of(c, k);
    /* moments over the mixture (E[k] exact from the law) */
    c->Ek = c->size.mean;
    double ea = 0, ex2 = 0, ecl = 0;
    for (size_t i = 0; i < c->nq; i++) {
        int64_t k = c->qk[i];
        double q = (double)(k / (int64_t)c->m), kp = (double)(k % (int64_t)c->m);
        ea += c->qw[i] * (double)cl_alpha(c, k);
        ex2 += c->qw[i] * (q * q + (2 * q + 1) * kp / (double)c->m);
        ecl += c->qw[i] * (q + (kp > 0));
    }
    c->Ealpha = ea;
    c->EX = c->Ek / (double)c->m;
    c->EX2 = ex2;
    c->Eceil = ecl;
    c->rho = c->lambda * c->Ek * c->Ec / ((double)c->m * c->mu);
    if (c->rho >= 1.0) {
        double cap = (double)c->m * c->mu / (c->Ek * c->Ec);
        if (!p->allow_unstable) {
            rc = storq_fail(err, STORQ_ERR_USAGE,
                            "--lambda: %g gives a per-server load rho = lambda E[k] E[c] / (m mu) "
                            "= %g, at or above the capacity 1 (lambda must be below %g with --m "
                            "%llu, --mu %g, E[k] = %g, E[c] = %g); there is no steady state. Lower "
                            "--lambda or pass --allow-unstable",
                            c->lambda, c->rho, cap, (unsigned long long)c->m, c->mu, c->Ek,
                            c->Ec);
            goto fail;
        }
        storq_warn("cluster: --lambda %g gives a per-server load %g >= capacity 1; workloads grow "
                   "without bound and the steady-state figures mean nothing (--allow-unstable)",
                   c->lambda, c->rho);
    }

    /* the P(D > x) grid: from E[c]/mu to 100 times a delay scale (the mean service of a
     * request's largest share plus the Pollaczek-Khinchine mean workload of the cavity queue) */
    double lo = c->Ec / c->mu, scale = lo * c->Eceil;
    double ec2 = c->cdist.var + c->Ec * c->Ec;
    if (c->rho < 1.0 && isfinite(ec2))
        scale += c->lambda * ec2 * c->EX2 / (2.0 * c->mu * c->mu * (1.0 - c->rho));
    else
        scale = 100.0 * lo;
    double hi = 100.0 * scale;
    if (!(hi > 10.0 * lo))
        hi = 10.0 * lo;
    for (int j = 0; j < CL_NGRID; j++)
        c->xgrid[j] = lo * pow(hi / lo, (double)j / (CL_NGRID - 1));
    cl_ccdf_table(c);

    c->rebase_time = 256.0 * c->Ec / c->mu;
    c->rebase_count = c->m / 16;
    *out = c;
    return STORQ_OK;

fail:
    cl_release(c);
    return rc;
}

/* ------------------------------------------------------------------ declare */

/* One policy's observables; axis: the size classes' lowest k. */
static int cl_declare_policy(cl_ctx *c, int pi, const double *axis, storq_observables *obs,
                             storq_error *err)
{
    const char *P = cl_pol_name[c->pol[pi]];
    cl_ids *id = &c->id[pi];
    char name[STORQ_NAME_MAX], desc[256];
#define NAME(suffix) (snprintf(name, sizeof name, "%s_%s", P, suffix), name)
    snprintf(desc, sizeof desc,
             "%s: delay of a measured request, arrival to the end of its last block "
             "(max over asked servers of (W(i) + c s(i)) / mu)", P);
    STORQ_TRY(storq_declare_hist_loglin(obs, &id->delay, NAME("delay"), "time", desc, 1e-6, 1e9, 7,
                                        err));
    snprintf(desc, sizeof desc, "%s: mean delay of the measured requests", P);
    STORQ_TRY(storq_declare_scalar(obs, &id->mean, NAME("mean_delay"), "time", desc, err));
    snprintf(desc, sizeof desc,
             "%s: mean delay of the measured requests of each size class (axis: the class's "
             "lowest k; NaN when the class had no request in the replication)", P);
    STORQ_TRY(storq_declare_vector(obs, &id->cmean, NAME("class_mean_delay"), "time", desc,
                                   c->nclass, "k", axis, err));
    snprintf(desc, sizeof desc, "%s: measured requests of each size class", P);
    STORQ_TRY(storq_declare_vector(obs, &id->ccount, NAME("class_count"), "requests", desc,
                                   c->nclass, "k", axis, err));
    for (size_t j = 0; j < c->nclass; j++) {
        char cname[STORQ_NAME_MAX];
        snprintf(cname, sizeof cname, "%s_delay_class_%lld", P, (long long)c->class_lo[j]);
        if (j + 1 < c->nclass)
            snprintf(desc, sizeof desc, "%s: delay of the measured requests of %lld to %lld "
                     "chunks", P, (long long)c->class_lo[j], (long long)c->class_lo[j + 1] - 1);
        else
            snprintf(desc, sizeof desc, "%s: delay of the measured requests of %lld chunks "
                     "or more", P, (long long)c->class_lo[j]);
        int hid;
        STORQ_TRY(storq_declare_hist_loglin(obs, &hid, cname, "time", desc, 1e-6, 1e9, 7, err));
        if (j == 0)
            id->chist0 = hid; /* the classes' histograms have consecutive ids */
    }
    snprintf(desc, sizeof desc,
             "%s: workload W(i)/mu a measured request finds at each server it asks blocks of", P);
    STORQ_TRY(storq_declare_hist_loglin(obs, &id->wfound, NAME("workload_found"), "time", desc,
                                        1e-6, 1e9, 7, err));
    snprintf(desc, sizeof desc, "%s: fraction of the measured requests with delay > x (axis x)",
             P);
    STORQ_TRY(storq_declare_vector(obs, &id->ccdf, NAME("delay_ccdf"), "1", desc, CL_NGRID, "x",
                                   c->xgrid, err));
    snprintf(desc, sizeof desc,
             "%s: work delivered / (m mu T) over the measurement window (expect rho = %.6g)", P,
             c->rho);
    STORQ_TRY(storq_declare_scalar(obs, &id->util, NAME("utilisation"), "1", desc, err));
    id->diff = -1;
    if (pi == 0)
        return STORQ_OK;
    const char *F = cl_pol_name[c->pol[0]];
    snprintf(name, sizeof name, "diff_%s_%s_mean_delay", P, F);
    snprintf(desc, sizeof desc,
             "%s_mean_delay - %s_mean_delay in the same replication (coupled: its CI is the CI "
             "of the paired difference)", P, F);
    return storq_declare_scalar(obs, &id->diff, name, "time", desc, err);
#undef NAME
}

static int cl_declare(void *vctx, storq_observables *obs, storq_error *err)
{
    cl_ctx *c = vctx;
    double *axis = malloc(sizeof *axis * (c->nclass + 1));
    if (!axis)
        return STORQ_RUNTIME_FAIL(err, "out of memory");
    for (size_t j = 0; j < c->nclass; j++)
        axis[j] = (double)c->class_lo[j];
    int rc = STORQ_OK;
    for (int pi = 0; pi < c->npol && !rc; pi++)
        rc = cl_declare_policy(c, pi, axis, obs, err);
    free(axis);
    return rc;
}

/* ------------------------------------------------------------------ replicate */

typedef struct cl_work {
    size_t cap;
    uint64_t *srv;  /* server of entry j */
    int64_t *a;     /* blocks of the request on it */
    int64_t *s;     /* blocks asked of it */
    uint64_t *key;  /* tie keys */
    double *u;      /* busy-until time counting blocks asked so far */
    uint32_t *cand; /* candidate entries */
    uint32_t *heap;
    uint64_t *pick; /* random subsets */
} cl_work;

static void cl_work_free(cl_work *w)
{
    free(w->srv);
    free(w->a);
    free(w->s);
    free(w->key);
    free(w->u);
    free(w->cand);
    free(w->heap);
    free(w->pick);
    memset(w, 0, sizeof *w);
}

static int cl_work_reserve(cl_work *w, size_t n)
{
    if (n <= w->cap)
        return 0;
    size_t cap = w->cap ? w->cap : 64;
    while (cap < n)
        cap *= 2;
#define GROW(f)                                              \
    do {                                                     \
        void *t_ = realloc(w->f, cap * sizeof *w->f);        \
        if (!t_)                                             \
            return -1;                                       \
        w->f = t_;                                           \
    } while (0)
    GROW(srv);
    GROW(a);
    GROW(s);
    GROW(key);
    GROW(u);
    GROW(cand);
    GROW(heap);
    GROW(pick);
#undef GROW
    w->cap = cap;
    return 0;
}

/* Strict total order of entries: workload (busy-until time), then tie key, then entry. */
static inline int cl_less(const cl_work *w, uint32_t x, uint32_t y)
{
    if (w->u[x] != w->u[y])
        return w->u[x] < w->u[y];
    if (w->key[x] != w->key[y])
        return w->key[x] < w->key[y];
    return x < y;
}

/* Rearrange v[0..n) so that its first r elements are the r least (in any order). */
static void cl_select(const cl_work *w, uint32_t *v, size_t n, size_t r)
{
    size_t lo = 0, hi = n; /* the boundary r lies in [lo, hi) */
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        /* median of three as pivot, moved to lo */
        uint32_t a = v[lo], b = v[mid], cc = v[hi - 1];
        uint32_t piv = cl_less(w, a, b) ? (cl_less(w, b, cc) ? b : (cl_less(w, a, cc) ? cc : a))
                                        : (cl_less(w, a, cc) ? a : (cl_less(w, b, cc) ? cc : b));
        /* three-way-free Lomuto partition: elements < piv first */
        size_t i = lo;
        for (size_t j = lo; j < hi; j++)
            if (cl_less(w, v[j], piv)) {
                uint32_t t = v[i];
                v[i] = v[j];
                v[j] = t;
                i++;
            }
        /* v[lo..i) < piv <= v[i..hi); place piv at i */
        size_t pj = i;
        while (v[pj] != piv)
            pj++;
        uint32_t t = v[i];
        v[i] = v[pj];
        v[pj] = t;
        if (i == r || i + 1 == r)
            return;
        if (r < i)
            hi = i;
        else
            lo = i + 1;
    }
}

static inline void cl_sift_down(const cl_work *w, uint32_t *h, size_t n, size_t i)
{
    uint32_t x = h[i];
    for (;;) {
        size_t l = 2 * i + 1;
        if (l >= n)
            break;
        size_t b = l;
        if (l + 1 < n && cl_less(w, h[l + 1], h[l]))
            b = l + 1;
        if (!cl_less(w, h[b], x))
            break;
        h[i] = h[b];
        i = b;
    }
    h[i] = x;
}

/* An unsigned integer ordered as the double u is (u not NaN; -0 and +0 equal). */
static inline uint64_t cl_ord(double u)
{
    uint64_t b;
    u += 0.0; /* -0 becomes +0 */
    memcpy(&b, &u, sizeof b);
    return b >> 63 ? ~b : b | (uint64_t)1 << 63;
}

/* The r least of the n <= 64 entries in the order of cl_less, as a bit mask. Few entries: ranks
 * by comparing every pair, without branches, as 128-bit integers (workload, tie key); for i < j,
 * equal ones put i first. More entries: quickselect. */
#define CL_RANK_MAX 16
static uint64_t cl_least_mask(cl_work *w, size_t n, size_t r)
{
    uint64_t mask = 0;
    if (n <= CL_RANK_MAX) {
        storq_u128 K[CL_RANK_MAX];
        unsigned rank[CL_RANK_MAX] = {0};
        for (size_t i = 0; i < n; i++)
            K[i] = (storq_u128)cl_ord(w->u[i]) << 64 | w->key[i];
        for (size_t i = 0; i < n; i++) {
            unsigned ri = 0;
            for (size_t j = i + 1; j < n; j++) {
                unsigned before = K[i] <= K[j];
                rank[j] += before;
                ri += 1 - before;
            }
            rank[i] += ri;
        }
        for (size_t j = 0; j < n; j++)
            mask |= (uint64_t)(rank[j] < r) << j;
        return mask;
    }
    for (size_t j = 0; j < n; j++)
        w->cand[j] = (uint32_t)j;
    cl_select(w, w->cand, n, r);
    for (size_t i = 0; i < r; i++)
        mask |= (uint64_t)1 << w->cand[i];
    return mask;
}

/* Serving one request under one policy: the largest delay numerator mu x + c s so far and, when
 * measuring, the workload-found histogram's sum, min and max, kept in registers for the request
 * (the same additions in the same order as storq_hist_add). */
typedef struct cl_serve {
    double t, d, mu, cn;
    int meas;
    storq_hist *hw;
    double num, hsum, hmin, hmax;
} cl_serve;

/* Ask s >= 1 blocks of the server whose busy-until time is *vi. */
static inline void cl_serve_one(cl_serve *S, double *vi, int64_t s)
{
    double v = *vi > S->t ? *vi : S->t;
    const double x = v - S->t; /* = max(V - t, 0), without a branch */
    const double num = S->mu * x + S->cn * (double)s;
    S->num = num > S->num ? num : S->num;
    if (S->meas) {
        S->hw->counts[storq_hist_bin(S->hw, x)]++;
        S->hsum += x;
        if (x < S->hmin)
            S->hmin = x;
        if (x > S->hmax)
            S->hmax = x;
    }
    for (int64_t r = 0; r < s; r++) /* one addition per block, so that workloads equal in */
        v += S->d;                  /* exact arithmetic stay equal in floating point */
    *vi = v;
}

typedef struct cl_acc {
    storq_hist delay, wfound;
    storq_hist *chist; /* per size class */
    double sum;
    double *csum;
    uint64_t *ccnt;
    uint64_t ccdf[CL_NGRID + 1];
} cl_acc;

static int cl_replicate(const void *vctx, const storq_stream_key *key, storq_record *rec,
                        storq_error *err)
{
    const cl_ctx *c = vctx;
    const uint64_t m = c->m;
    const int np = c->npol;
    const double mu = c->mu;
    storq_rng arr = storq_rng_stream(key, STORQ_STREAM_ARRIVALS);
    storq_rng siz = storq_rng_stream(key, STORQ_STREAM_SIZES);
    storq_rng svc = storq_rng_stream(key, STORQ_STREAM_SERVICE);
    storq_rng plc = storq_rng_stream(key, STORQ_STREAM_PLACEMENT);
    storq_rng rte = storq_rng_stream(key, STORQ_STREAM_ROUTING);
    storq_rng tie = storq_rng_stream(key, STORQ_STREAM_TIES);

    double *V = calloc((size_t)m * (size_t)np, sizeof *V);
    double *cbuf = calloc((size_t)np * c->nclass, sizeof *cbuf);
    uint64_t *cnbuf = calloc((size_t)np * c->nclass, sizeof *cnbuf);
    storq_hist *chbuf = calloc((size_t)np * c->nclass, sizeof *chbuf);
    cl_work w = {0};
    cl_acc acc[CL_NPOL_MAX];
    int rc = STORQ_OK;
    if (!V || !cbuf || !cnbuf || !chbuf) {
        rc = STORQ_RUNTIME_FAIL(err, "out of memory (%llu servers)", (unsigned long long)m);
        goto done;
    }
    memset(acc, 0, sizeof acc);
    for (int pi = 0; pi < np; pi++) {
        acc[pi].delay = storq_record_hist(rec, c->id[pi].delay);
        acc[pi].wfound = storq_record_hist(rec, c->id[pi].wfound);
        acc[pi].csum = cbuf + (size_t)pi * c->nclass;
        acc[pi].ccnt = cnbuf + (size_t)pi * c->nclass;
        acc[pi].chist = chbuf + (size_t)pi * c->nclass;
        for (size_t j = 0; j < c->nclass; j++)
            acc[pi].chist[j] = storq_record_hist(rec, c->id[pi].chist0 + (int)j);
    }

    const uint64_t total = c->warmup + c->arrivals;
    double t = 0.0;         /* time since the current epoch */
    uint64_t since = 0;     /* requests since the last rebase */
    double Tmeas = 0.0;     /* length of the measurement window */
    double work_in = 0.0;   /* bits arriving in it */
    double wstart[CL_NPOL_MAX] = {0};

    for (uint64_t n = 0; n < total; n++) {
        double tau = storq_rng_exp(&arr, c->lambda);
        t += tau;
        since++;
        const int meas = n >= c->warmup;
        if (meas && n > c->warmup)
            Tmeas += tau;
        if (t > c->rebase_time && since >= c->rebase_count) {
            /* new epoch at the current time: a deterministic map, so equal V stay equal */
            for (size_t i = 0; i < (size_t)m * (size_t)np; i++)
                V[i] = V[i] > t ? V[i] - t : 0.0;
            t = 0.0;
            since = 0;
        }
        const int64_t k = storq_ddist_sample(&c->size, &siz);
        const int64_t alpha = cl_alpha(c, k);
        const double cn = storq_dist_sample(&c->cdist, &svc);
        const double d = cn / mu;

        if (meas && n == c->warmup) {
            for (int pi = 0; pi < np; pi++) {
                const double *Vp = V + (size_t)pi * m;
                double s = 0.0;
                for (uint64_t i = 0; i < m; i++)
                    s += Vp[i] > t ? Vp[i] - t : 0.0;
                wstart[pi] = mu * s;
            }
        }
        if (meas)
            work_in += cn * (double)k;

        /* placement: entries j < nc with server srv[j] holding a[j] >= 1 blocks */
        size_t nc;
        /* alpha < m (one block per entry) and at most 64 entries: the bit-mask path below */
        const int small = (uint64_t)alpha < m && alpha <= 64;
        if ((uint64_t)alpha < m) {
            nc = (size_t)alpha;
            if (nc > w.cap && cl_work_reserve(&w, nc))
                goto oom;
            storq_rng_sample_distinct_fast(&plc, m, (unsigned)alpha, w.srv);
            if (!small)
                for (size_t j = 0; j < nc; j++)
                    w.a[j] = 1;
        } else {
            nc = (size_t)m;
            if (nc > w.cap && cl_work_reserve(&w, nc))
                goto oom;
            int64_t base = alpha / (int64_t)m, r = alpha - base * (int64_t)m;
            for (size_t j = 0; j < nc; j++) {
                w.srv[j] = j;
                w.a[j] = base;
            }
            if (r > 0) {
                storq_rng_sample_distinct_fast(&plc, m, (unsigned)r, w.pick);
                for (int64_t i = 0; i < r; i++)
                    w.a[w.pick[i]]++;
            }
        }
        if (c->need_keys)
            for (size_t j = 0; j < nc; j++)
                w.key[j] = storq_rng_next(&tie);
        const size_t ci = !meas ? 0 : k < CL_CLASS_TAB ? c->class_tab[k] : cl_class_of(c, k);

        for (int pi = 0; pi < np; pi++) {
            const int pol = c->pol[pi];
            double *Vp = V + (size_t)pi * m;
            cl_acc *A = &acc[pi];
            cl_serve S = {t, d, mu, cn, meas, &A->wfound, 0.0, 0.0, 0.0, 0.0};
            if (meas) {
                S.hsum = *S.hw->sum;
                S.hmin = *S.hw->min;
                S.hmax = *S.hw->max;
            }
            if (small) {
                /* one block per entry, q = 0 and k' = k: every policy asks k of the alpha
                 * entries one block each. WF too: a popped entry has no block left, so its k
                 * pops are the k least in the order, the set BS asks. Bit j of ask: entry j is
                 * asked; served in entry order. */
                uint64_t ask;
                if ((size_t)k == nc) {
                    ask = ~(uint64_t)0 >> (64 - nc);
                } else if (pol == CL_BR) {
                    storq_rng_sample_distinct_fast(&rte, nc, (unsigned)k, w.pick);
                    ask = 0;
                    for (int64_t i = 0; i < k; i++)
                        ask |= (uint64_t)1 << w.pick[i];
                } else {
                    for (size_t j = 0; j < nc; j++) {
                        double v = Vp[w.srv[j]];
                        w.u[j] = v > t ? v : t;
                    }
                    ask = cl_least_mask(&w, nc, (size_t)k);
                }
                for (; ask; ask &= ask - 1)
                    cl_serve_one(&S, Vp + w.srv[__builtin_ctzll(ask)], 1);
            } else {
                /* the general case (the linear regime, or more than 64 entries). WF with one
                 * block per entry asks what BS asks (see above): a heap only when alpha >= m */
                if (pol == CL_WF && (uint64_t)alpha >= m) {
                    size_t hn = 0;
                    for (size_t j = 0; j < nc; j++) {
                        w.s[j] = 0;
                        double v = Vp[w.srv[j]];
                        w.u[j] = v > t ? v : t;
                        w.heap[hn++] = (uint32_t)j;
                    }
                    for (size_t i = hn / 2; i-- > 0;)
                        cl_sift_down(&w, w.heap, hn, i);
                    for (int64_t r = 0; r < k; r++) {
                        uint32_t j = w.heap[0];
                        w.s[j]++;
                        w.u[j] += d;
                        if (w.s[j] >= w.a[j])
                            w.heap[0] = w.heap[--hn];
                        if (hn)
                            cl_sift_down(&w, w.heap, hn, 0);
                    }
                } else {
                    const int64_t q = k / (int64_t)m, kp = k - q * (int64_t)m;
                    size_t ncand = 0;
                    for (size_t j = 0; j < nc; j++) {
                        w.s[j] = q;
                        if (w.a[j] - q > 0)
                            w.cand[ncand++] = (uint32_t)j;
                    }
                    if ((size_t)kp == ncand) {
                        for (size_t i = 0; i < ncand; i++)
                            w.s[w.cand[i]]++;
                    } else if (kp > 0) {
                        if (pol == CL_BR) {
                            storq_rng_sample_distinct_fast(&rte, ncand, (unsigned)kp, w.pick);
                            for (int64_t i = 0; i < kp; i++)
                                w.s[w.cand[w.pick[i]]]++;
                        } else {
                            for (size_t i = 0; i < ncand; i++) {
                                uint32_t j = w.cand[i];
                                double v = Vp[w.srv[j]];
                                w.u[j] = v > t ? v : t;
                            }
                            cl_select(&w, w.cand, ncand, (size_t)kp);
                            for (int64_t i = 0; i < kp; i++)
                                w.s[w.cand[i]]++;
                        }
                    }
                }
                size_t na = 0; /* the asked entries, in entry order, listed without branches */
                for (size_t j = 0; j < nc; j++) {
                    w.cand[na] = (uint32_t)j;
                    na += w.s[j] > 0;
                }
                for (size_t i = 0; i < na; i++) {
                    const size_t j = w.cand[i];
                    cl_serve_one(&S, Vp + w.srv[j], w.s[j]);
                }
            }
            if (meas) {
                /* D is the largest (mu x + c s) / mu: division by mu > 0 is monotone in
                 * correctly rounded arithmetic, so dividing the largest numerator once gives
                 * the same double as the largest of the quotients */
                const double D = S.num / mu;
                *S.hw->sum = S.hsum;
                *S.hw->min = S.hmin;
                *S.hw->max = S.hmax;
                storq_hist_add(&A->delay, D);
                A->sum += D;
                A->csum[ci] += D;
                A->ccnt[ci]++;
                storq_hist_add(&A->chist[ci], D);
                A->ccdf[cl_ccdf_index(c, D)]++;
            }
        }
    }

    const double N = (double)c->arrivals;
    double first_mean = 0.0;
    for (int pi = 0; pi < np; pi++) {
        cl_acc *A = &acc[pi];
        const double *Vp = V + (size_t)pi * m;
        double mean = A->sum / N;
        storq_record_scalar(rec, c->id[pi].mean, mean);
        if (pi == 0)
            first_mean = mean;
        else
            storq_record_scalar(rec, c->id[pi].diff, mean - first_mean);
        double *cm = storq_record_vector(rec, c->id[pi].cmean);
        double *cc = storq_record_vector(rec, c->id[pi].ccount);
        for (size_t j = 0; j < c->nclass; j++) {
            cm[j] = A->ccnt[j] ? A->csum[j] / (double)A->ccnt[j] : NAN;
            cc[j] = (double)A->ccnt[j];
        }
        double *cd = storq_record_vector(rec, c->id[pi].ccdf);
        uint64_t above = 0;
        for (size_t j = CL_NGRID; j-- > 0;) {
            above += A->ccdf[j + 1];
            cd[j] = (double)above / N;
        }
        double s = 0.0;
        for (uint64_t i = 0; i < m; i++)
            s += Vp[i] > t ? Vp[i] - t : 0.0;
        double delivered = wstart[pi] + work_in - mu * s;
        storq_record_scalar(rec, c->id[pi].util, delivered / ((double)m * mu * Tmeas));
    }
    rec->events += total;
    goto done;

oom:
    rc = STORQ_RUNTIME_FAIL(err, "out of memory (request of %zu blocks)", w.cap);
done:
    cl_work_free(&w);
    free(V);
    free(cbuf);
    free(cnbuf);
    free(chbuf);
    return rc;
}

/* ------------------------------------------------------------------ theory */

static const char *cl_grid_name(const cl_ctx *c, const char *suffix, char *buf, size_t size)
{
    int pi = 0;
    for (int i = 0; i < c->npol; i++)
        if (c->pol[i] == CL_BR)
            pi = i;
    snprintf(buf, size, "%s_%s", cl_pol_name[c->pol[pi]], suffix);
    return buf;
}

#define CL_BOUND_NOTE                                                                          \
    " The paper proves the product-form figure bounds BR's delay (BR's delay is stochastically " \
    "smaller), and that WF and BS are better than BR in increasing convex order."

static int cl_theory(const void *vctx, storq_theory *out, storq_error *err)
{
    const cl_ctx *c = vctx;
    if (!(c->rho < 1.0))
        return STORQ_OK;
    if (c->m > 4294967295ULL)
        return STORQ_OK;
    int rc = STORQ_OK;
    size_t xmax = 0;
    double *px = cl_cavity_blocks_law(&c->size, (unsigned)c->m, &xmax);
    if (!px)
        return STORQ_RUNTIME_FAIL(err, "cavity queue: blocks law failed (out of memory)");
    cl_cavity cav;
    memset(&cav, 0, sizeof cav);
    if (cl_cavity_solve(c->lambda, c->mu, px, xmax, &c->cdist, 1e-6, &cav)) {
        /* A tail too heavy to capture: the simulation stands without its theory. */
        free(px);
        storq_warn("cluster: the cavity queue could not be solved (rho = %g, chunk_dist %s): "
                   "no theory arrays for this point", c->rho, c->cdist.spec);
        return STORQ_OK;
    }
    free(px);
    size_t np = cav.npoints;
    double *buf = malloc(sizeof *buf * (2 * np + 3 * CL_NGRID + 2 * c->nclass + c->nq + 4));
    if (!buf) {
        cl_cavity_free(&cav);
        return STORQ_RUNTIME_FAIL(err, "out of memory");
    }
    double *grid = buf, *mm1 = grid + np, *pf = mm1 + np, *cmean = pf + CL_NGRID,
           *cw = cmean + c->nclass, *kmean = cw + c->nclass;
    char gname[STORQ_NAME_MAX];
    for (size_t j = 0; j < np; j++)
        grid[j] = (double)j * cav.h;
    if ((rc = storq_theory_add(out, "cavity_grid", "time",
                               "workload levels w = j h of the cavity queue's grid", "", grid, np,
                               err)) ||
        (rc = storq_theory_add(out, "cavity_workload_cdf", "1",
                               "BR cavity queue (M/G/1 fed at rate lambda with work c X per "
                               "arrival): stationary P(V <= w) on cavity_grid (time units). It "
                               "bounds BR: WF and BS are better than BR in increasing convex "
                               "order",
                               "cavity_grid", cav.cdf, np, err)) ||
        (rc = storq_theory_add(out, "cavity_error", "1",
                               "estimated max absolute error of cavity_workload_cdf", "",
                               &cav.error, 1, err)))
        goto done;
    if (storq_dist_is_exp(&c->cdist) && c->kmax_support <= (int64_t)c->m) {
        double lam_eff = c->lambda * c->EX, srate = c->mu / c->Ec;
        for (size_t j = 0; j < np; j++)
            mm1[j] = cl_cavity_mm1_cdf(lam_eff, srate, grid[j]);
        if ((rc = storq_theory_add(out, "cavity_mm1_cdf", "1",
                                   "closed form of the cavity queue for exponential chunks and "
                                   "k <= m (M/M/1, arrival rate lambda E[k]/m, service rate "
                                   "mu/E[c]): P(V <= w) on cavity_grid; cross-checks "
                                   "cavity_workload_cdf",
                                   "cavity_grid", mm1, np, err)))
            goto done;
    }
    /* the product form per k of the mixture */
    double mean = 0.0;
    for (size_t i = 0; i < c->nq; i++) {
        kmean[i] = cl_product_form_mean(&cav, (unsigned)c->qk[i], (unsigned)c->m, &c->cdist);
        mean += c->qw[i] * kmean[i];
    }
    for (size_t j = 0; j < c->nclass; j++)
        cmean[j] = cw[j] = 0.0;
    for (size_t i = 0; i < c->nq; i++) {
        size_t ci = cl_class_of(c, c->qk[i]);
        cmean[ci] += c->qw[i] * kmean[i];
        cw[ci] += c->qw[i];
    }
    /* the mixture CCDF, and per size class (row j: P(D > x) given k in class j) */
    double *ccls = calloc(c->nclass * CL_NGRID, sizeof *ccls);
    if (!ccls) {
        rc = STORQ_RUNTIME_FAIL(err, "out of memory");
        goto done;
    }
    for (int j = 0; j < CL_NGRID; j++) {
        double s = 0.0;
        for (size_t i = 0; i < c->nq; i++) {
            double F = cl_product_form_cdf(&cav, (unsigned)c->qk[i], (unsigned)c->m, &c->cdist,
                                           c->xgrid[j]);
            s += c->qw[i] * F;
            ccls[cl_class_of(c, c->qk[i]) * CL_NGRID + (size_t)j] += c->qw[i] * F;
        }
        pf[j] = 1.0 - s;
    }
    for (size_t ci = 0; ci < c->nclass; ci++)
        for (int j = 0; j < CL_NGRID; j++)
            ccls[ci * CL_NGRID + (size_t)j] =
                cw[ci] > 0 ? 1.0 - ccls[ci * CL_NGRID + (size_t)j] / cw[ci] : NAN;
    rc = storq_theory_add(out, "product_form_class_ccdf", "1",
                          "product-form P(D > x) per size class: row j (a class, axis of "
                          "class_mean_delay) on the delay_ccdf x grid (columns); an upper bound "
                          "for BR's CCDF of that class",
                          cl_grid_name(c, "delay_ccdf", gname, sizeof gname), ccls,
                          c->nclass * CL_NGRID, err);
    free(ccls);
    if (rc)
        goto done;
    for (size_t j = 0; j < c->nclass; j++)
        cmean[j] = cw[j] > 0 ? cmean[j] / cw[j] : NAN;
    char desc[512];
    snprintf(desc, sizeof desc,
             "product-form P(D > x) = 1 - sum_k pi_k P(D_k <= x), the delay as if the servers a "
             "request asks had evolved independently (cavity queue); on the delay_ccdf grid%s.%s",
             c->q_exact ? "" : " (size law bucketed into 4096 k values)", CL_BOUND_NOTE);
    desc[255] = 0;
    if ((rc = storq_theory_add(out, "product_form_ccdf", "1", desc,
                               cl_grid_name(c, "delay_ccdf", gname, sizeof gname), pf, CL_NGRID,
                               err)))
        goto done;
    snprintf(desc, sizeof desc,
             "product-form mean delay of each size class (pi-weighted over its k); an upper "
             "bound for BR.%s", CL_BOUND_NOTE);
    desc[255] = 0;
    if ((rc = storq_theory_add(out, "product_form_class_mean", "time", desc,
                               cl_grid_name(c, "class_mean_delay", gname, sizeof gname), cmean,
                               c->nclass, err)))
        goto done;
    snprintf(desc, sizeof desc,
             "product-form mean delay over the size law; an upper bound for BR's mean delay.%s",
             CL_BOUND_NOTE);
    desc[255] = 0;
    rc = storq_theory_add(out, "product_form_mean", "time", desc,
                          cl_grid_name(c, "mean_delay", gname, sizeof gname), &mean, 1, err);
done:
    free(buf);
    cl_cavity_free(&cav);
    return rc;
}

static int cl_compare(const void *vctx, const storq_summary *sim, const storq_theory *theory,
                      storq_theory *out, storq_error *err)
{
    const cl_ctx *c = vctx;
    const storq_obs_def *dc = storq_obs_find(sim->schema, "BR_delay_ccdf");
    const storq_obs_def *dm = storq_obs_find(sim->schema, "BR_mean_delay");
    const storq_array *pf = storq_theory_find(theory, "product_form_ccdf");
    const storq_array *pm = storq_theory_find(theory, "product_form_mean");
    (void)c;
    if (dc && pf && pf->len == CL_NGRID) {
        double ex = -HUGE_VAL, ci = 0.0;
        for (int j = 0; j < CL_NGRID; j++) {
            double e = sim->mean[dc->value_offset + j] - pf->data[j];
            if (e > ex) {
                ex = e;
                ci = sim->ci95[dc->value_offset + j];
            }
        }
        STORQ_TRY(storq_theory_add(out, "BR_ccdf_excess_max", "1",
                                   "max over the x grid of (simulated BR P(D > x) - product-form "
                                   "P(D > x)); <= 0 within noise when the bound holds",
                                   "", &ex, 1, err));
        STORQ_TRY(storq_theory_add(out, "BR_ccdf_excess_ci95", "1",
                                   "95% CI half-width of the simulated BR P(D > x) where the "
                                   "excess is largest (the noise in BR_ccdf_excess_max)",
                                   "", &ci, 1, err));
    }
    if (dm && pm && pm->len == 1) {
        double r = sim->mean[dm->value_offset] / pm->data[0];
        STORQ_TRY(storq_theory_add(out, "BR_mean_delay_over_product_form", "1",
                                   "simulated BR mean delay / product-form mean delay (<= 1 "
                                   "within noise when the bound holds)",
                                   "", &r, 1, err));
    }
    return STORQ_OK;
}

static double cl_cost(const void *vctx)
{
    const cl_ctx *c = vctx;
    return (double)(c->warmup + c->arrivals) * (c->Ealpha + 1.0) * (double)c->npol;
}

const storq_model storq_model_cluster = {
    .name = "cluster",
    .summary = "m servers holding chunked, MDS-coded files; requests delivered by balanced random "
               "(BR), batch sampling (BS) or water-filling (WF), coupled, with the cavity-queue "
               "product-form bound",
    .params = cl_params,
    .prepare = cl_prepare,
    .release = cl_release,
    .declare = cl_declare,
    .replicate = cl_replicate,
    .theory = cl_theory,
    .compare = cl_compare,
    .cost = cl_cost,
};
