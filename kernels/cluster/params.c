/* `cluster`: m servers, chunked and MDS-coded files, BR / BS / WF delivery (docs/models/cluster.md;
 * the paper "Delay Comparison of Delivery and Coding Policies in Data Clusters").
 *
 * The parameter point: the parameter table, parsing of the policy list and the coding rule, the
 * checks and the derived constants (size classes, the size law as a mixture, moments, the delay
 * grid), the observables, and the model's ops table. The simulation is in dynamics.c, the theory
 * in theory.c (with the cavity queue in cavity.c and product_form.c). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "big_array.h"
#include "model_kit.h"
#include "number.h"
#include "distribution.h"
#include "internal.h"
#include "memory.h"
#include "model.h"

#define CL_CLASS_MIN_MASS 1e-4
#define CL_CLASS_TAIL 1e-9   /* classes reach the largest k with P(size > k) >= this */
#define CL_MOMENT_TAIL 1e-13 /* moments and mixtures: the support truncated at this tail */
#define CL_QUAD_MAX 4096     /* k values in a mixture before bucketing */

const char *const storq_cl_pol_name[3] = {"BR", "BS", "WF"};

static const storq_param_def cl_params[] = {
    {.name = "m", .type = STORQ_PARAM_INT, .def = "100", .min = 1, .max = 2147483647.0,
     .unit = "servers", .doc = "number of servers"},
    {.name = "lambda", .type = STORQ_PARAM_REAL, .def = "70", .min = 0, .max = HUGE_VAL,
     .min_open = 1, .unit = "1/time",
     .doc = "request rate (all servers together); the per-server load is "
            "rho = lambda E[k] E[c] / (m mu), capacity 1"},
    {.name = "mu", .type = STORQ_PARAM_REAL, .def = "1", .min = 0, .max = HUGE_VAL, .min_open = 1,
     .unit = "bits/time", .doc = "service rate of one server"},
    {.name = "chunk", .type = STORQ_PARAM_REAL, .def = "1", .min = 0, .max = HUGE_VAL,
     .min_open = 1, .unit = "bits",
     .doc = "chunk (and code block) size c; used by the default --chunk_dist det"},
    {.name = "size", .type = STORQ_PARAM_STRING, .def = "fixed:1", .unit = "chunks",
     .laws = STORQ_LAWS_COUNT, .doc = "law pi of the number of chunks k >= 1 of a requested file"},
    {.name = "coding", .type = STORQ_PARAM_STRING, .def = "none", .unit = "",
     .doc = "code blocks alpha_k of a file of k chunks: none (k), plus:A (k + A), rate:R "
            "(ceil(k / R), R in (0,1]), times:F (ceil(F k), F >= 1)"},
    {.name = "chunk_dist", .type = STORQ_PARAM_STRING, .def = "det", .unit = "bits",
     .laws = STORQ_LAWS_TIME,
     .doc = "law psi of the block size c_n of request n (all its blocks), or det = det:chunk"},
    {.name = "policy", .type = STORQ_PARAM_STRING, .def = "BR+BS+WF", .unit = "",
     .doc = "delivery policies BR, BS, WF joined by '+' run coupled (same arrivals, sizes, chunk "
            "sizes and placements); a comma list makes one point per entry"},
    STORQ_PARAM_WARMUP("100000", "requests", ""),
    STORQ_PARAM_ARRIVALS("1000000", 1, "requests", ""),
    {.name = NULL},
};

/* ------------------------------------------------------------------ the size law */

/* The size law as a mixture (qk, qw): every k with mass when there are at most CL_QUAD_MAX of
 * them up to the CL_MOMENT_TAIL truncation, else CL_QUAD_MAX equal-width buckets, each
 * represented by its middle k and weighted by its mass. Weights sum to 1. */
static int cl_build_mixture(cl_ctx *c)
{
    const storq_ddist *d = &c->size;
    int64_t lo = d->min, hi = storq_ddist_tail_cut(d, CL_MOMENT_TAIL);
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
            double w = storq_ddist_mass(d, k, k);
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
            int64_t e =
                b + 1 == CL_QUAD_MAX ? hi : lo + (int64_t)floor((double)(b + 1) * width) - 1;
            if (e < a)
                continue;
            double w = storq_ddist_mass(d, a, e);
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

/* The size classes of the per-class observables: k = 1..16 each alone, then [17,32], [33,64], ...
 * up to kmax_class; a class with less than CL_CLASS_MIN_MASS joins the next. */
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
        double mm = storq_ddist_mass(d, lo, last ? INT64_MAX : hi);
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

/* ------------------------------------------------------------------ the delay grid */

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

/* The P(D > x) grid: from E[c]/mu to 100 times a delay scale (the mean service of a request's
 * largest share plus the Pollaczek-Khinchine mean workload of the cavity queue). */
static void cl_delay_grid(cl_ctx *c)
{
    double lo = c->Ec / c->mu, scale = lo * c->Eceil;
    double ec2 = c->cdist.var + c->Ec * c->Ec;
    if (c->rho < 1.0 && isfinite(ec2)) {
        /* rates in units of 2^k near mu (exact): mu^2 overflows at time scales like 1e-200 */
        int k = 0;
        frexp(c->mu, &k);
        const double l = ldexp(c->lambda, -k), m = ldexp(c->mu, -k);
        scale += ldexp(l * ec2 * c->EX2 / (2.0 * m * m * (1.0 - c->rho)), -k);
    } else
        scale = 100.0 * lo;
    double hi = 100.0 * scale;
    if (!(hi > 10.0 * lo))
        hi = 10.0 * lo;
    for (int j = 0; j < CL_NGRID; j++)
        c->xgrid[j] = lo * pow(hi / lo, (double)j / (CL_NGRID - 1));
    cl_ccdf_table(c);
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

/* --policy: a comma list of distinct policy names. */
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
            if (strcmp(tok, storq_cl_pol_name[i]) == 0)
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

/* --coding rate:R or times:F (which is given by rate). */
static int cl_parse_redundancy(cl_ctx *c, const char *spec, int rate, const char *acc,
                               storq_error *err)
{
    const char *num = spec + (rate ? 5 : 6);
    double v;
    if (storq_number_real(num, &v) || !(v > 0))
        return storq_fail(err, STORQ_ERR_USAGE,
                          "--coding: '%s': %s must be a positive number; accepted: %s", spec,
                          rate ? "R" : "F", acc);
    if ((rate && v > 1) || (!rate && v < 1))
        return storq_fail(err, STORQ_ERR_USAGE,
                          "--coding: '%s' gives alpha_k = ceil(%s) < k code blocks for some "
                          "k (alpha_1 = %.0f); a file of k chunks needs at least k blocks; "
                          "accepted: %s",
                          spec, rate ? "k / R" : "F k",
                          rate ? ceil(1.0 / v * (1 - 1e-12)) : ceil(v * (1 - 1e-12)), acc);
    if ((rate && v < 1e-9) || (!rate && v > 1e9))
        return storq_fail(err, STORQ_ERR_USAGE,
                          "--coding: '%s': the redundancy must be at most 1e9 (the block "
                          "counts would overflow)", spec);
    c->coding = rate ? CL_CODE_RATE : CL_CODE_TIMES;
    c->factor = v;
    return STORQ_OK;
}

/* --coding: none, plus:A, rate:R or times:F. */
static int cl_parse_coding(cl_ctx *c, const char *spec, storq_error *err)
{
    const char *acc = "none, plus:A (A >= 0 whole), rate:R (0 < R <= 1), times:F (F >= 1)";
    if (strcmp(spec, "none") == 0) {
        c->coding = CL_CODE_NONE;
        return STORQ_OK;
    }
    if (strncmp(spec, "rate:", 5) == 0 || strncmp(spec, "times:", 6) == 0)
        return cl_parse_redundancy(c, spec, strncmp(spec, "rate:", 5) == 0, acc, err);
    if (strncmp(spec, "plus:", 5) != 0)
        return storq_fail(err, STORQ_ERR_USAGE,
                          "--coding: '%s' is not a coding rule; accepted: %s", spec, acc);
    int negative;
    uint64_t magnitude;
    if (storq_number_integer(spec + 5, &negative, &magnitude))
        return storq_fail(err, STORQ_ERR_USAGE,
                          "--coding: '%s': A must be a whole number; accepted: %s", spec, acc);
    /* beyond 2^40 either way is refused below; clamping keeps the sign and the message */
    long long a = magnitude > (1ull << 41) ? (1LL << 41) : (long long)magnitude;
    a = negative ? -a : a;
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

/* --size and --chunk_dist: parsed, with the checks the laws' own parsers do not make. */
static int cl_parse_laws(cl_ctx *c, const storq_params *p, storq_error *err)
{
    STORQ_TRY(storq_ddist_parse(storq_param_string(p, "size"), "--size", &c->size, err));
    c->have_size = 1;
    if (c->size.min < 1 || !(c->size.mean >= 1) || storq_ddist_mass(&c->size, 1, INT64_MAX) <= 0)
        return storq_fail(err, STORQ_ERR_USAGE,
                          "--size: '%s' puts no mass on sizes k >= 1 chunks; give a law of a "
                          "positive integer (fixed:K, geom:P, binom:M,P, uniform:A,B, pmf:...)",
                          c->size.spec);
    const char *cd = storq_param_string(p, "chunk_dist");
    char spec[64];
    if (strcmp(cd, "det") == 0) {
        snprintf(spec, sizeof spec, "det:%.17g", c->chunk);
        cd = spec;
    }
    STORQ_TRY(storq_dist_parse(cd, "--chunk_dist", &c->cdist, err));
    c->have_cdist = 1;
    c->Ec = c->cdist.mean;
    if (!(c->Ec > 0) || !isfinite(c->Ec))
        return storq_fail(err, STORQ_ERR_USAGE,
                          "--chunk_dist: '%s' has mean %g; the block size law must have a finite "
                          "positive mean",
                          c->cdist.spec, c->Ec);
    return STORQ_OK;
}

/* Bytes of a request's scratch arrays per entry (dynamics.c, cl_work: server offset, blocks held,
 * blocks asked, tie key, busy-until time, candidate, heap slot, random pick). */
#define CL_SCRATCH_BYTES (8 + 8 + 8 + 8 + 8 + 4 + 4 + 8)

/* The size of the block counts, and the memory of the per-server arrays: one record of
 * cl_vstride(npol) doubles per server (8, 16 or 32 bytes; the array rounded up to whole 2 MiB huge
 * pages from 2 MiB on, src/toolkit/big_array.h), and the scratch arrays of a request's
 * entries, min(alpha, m) of them for the largest alpha drawn (P(k > kbig) < 1e-13). */
static int cl_check_sizes(cl_ctx *c, const storq_params *p, storq_error *err)
{
    int64_t kbig = storq_ddist_tail_cut(&c->size, CL_MOMENT_TAIL);
    double abig = (double)cl_alpha(c, kbig);
    double factor = c->coding == CL_CODE_TIMES ? c->factor : 1;
    if (!(abig < 1099511627776.0) || (double)kbig * factor > 1e12)
        return storq_fail(err, STORQ_ERR_USAGE,
                          "--size/--coding: files of up to %lld chunks coded by --coding %s "
                          "need about %.3g blocks each; at most 2^40 are supported (the block "
                          "counts and their arrays would overflow)",
                          (long long)kbig, storq_param_string(p, "coding"), abig);
    const size_t entries = abig < (double)c->m ? (size_t)abig : (size_t)c->m;
    const size_t records = storq_big_array_bytes(storq_bytes_mul(c->m, 8 * cl_vstride(c->npol)));
    size_t bytes = storq_bytes_add(records, storq_bytes_mul(entries, CL_SCRATCH_BYTES));
    char what[128];
    snprintf(what, sizeof what, "--m: %llu servers with %d policies", (unsigned long long)c->m,
             c->npol);
    return storq_memory_check(bytes, what, "for per-server arrays per replication (and thread)",
                              err);
}

/* The size classes and the size law as a mixture; -1 out of memory, 1 no mass. */
static int cl_build_size_tables(cl_ctx *c)
{
    int rc = cl_build_mixture(c);
    if (rc)
        return rc;
    if ((rc = cl_build_classes(c)))
        return rc;
    /* (at most 16 exact classes and one per doubling of k < 2^63: fewer than 256) */
    for (int64_t k = 0; k < CL_CLASS_TAB; k++)
        c->class_tab[k] = (uint8_t)cl_class_of(c, k);
    return 0;
}

/* Moments over the mixture (E[k] exact from the law) and the per-server load. */
static void cl_moments(cl_ctx *c)
{
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
}

/* A load at or above capacity: refused, or a warning with --allow-unstable. */
static int cl_check_load(const cl_ctx *c, const storq_params *p, storq_error *err)
{
    if (c->rho < 1.0)
        return STORQ_OK;
    double cap = (double)c->m * c->mu / (c->Ek * c->Ec);
    return storq_refuse_unstable(p, "cluster", "--lambda", err,
                                 "--lambda: %g gives a per-server load rho = lambda E[k] E[c] / "
                                 "(m mu) = %g, at or above the capacity 1 (lambda must be below "
                                 "%g with --m %llu, --mu %g, E[k] = %g, E[c] = %g); there is no "
                                 "steady state",
                                 c->lambda, c->rho, cap, (unsigned long long)c->m, c->mu, c->Ek,
                                 c->Ec);
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
    c->run = storq_run_length_of(p);

    if ((rc = cl_parse_policy(c, storq_param_string(p, "policy"), err)) ||
        (rc = cl_parse_coding(c, storq_param_string(p, "coding"), err)) ||
        (rc = cl_parse_laws(c, p, err)) || (rc = cl_check_sizes(c, p, err)))
        goto fail;
    c->kmax_support = c->size.max;
    c->kmax_class = storq_ddist_tail_cut(&c->size, CL_CLASS_TAIL);
    if ((rc = cl_build_size_tables(c))) {
        rc = rc < 0 ? STORQ_RUNTIME_FAIL(err, "out of memory")
                    : storq_fail(err, STORQ_ERR_USAGE, "--size: '%s' puts no mass on sizes k >= 1",
                                 c->size.spec);
        goto fail;
    }
    cl_moments(c);
    if ((rc = cl_check_load(c, p, err)) || (rc = storq_cl_theory_check(c, err)))
        goto fail;
    cl_delay_grid(c);
    /* a new epoch for the busy-until times once 256 mean block services and m/16 requests have
     * passed: the times stay small, and the O(m) rebase costs O(1) per request; the shortest
     * times are a block's service (mean Ec/mu) and the interarrival gaps */
    if ((rc = storq_clock_plan(&c->clock, "cluster: --lambda/--mu", 256.0 * c->Ec / c->mu,
                               c->m / 16, c->lambda,
                               ((double)c->run.warmup + (double)c->run.arrivals) / c->lambda,
                               fmin(c->Ec / c->mu, 1.0 / c->lambda), err)))
        goto fail;
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
    const char *P = storq_cl_pol_name[c->pol[pi]];
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
    const char *F = storq_cl_pol_name[c->pol[0]];
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
    /* the steady-state check of the headline (docs/steady-state.md), declared last: the other
     * observables keep the layout of a point without it */
    char headline[STORQ_NAME_MAX];
    snprintf(headline, sizeof headline, "%s_mean_delay", storq_cl_pol_name[c->pol[0]]);
    return rc ? rc : storq_steady_declare(obs, &c->steady, headline, "time", err);
}

/* ------------------------------------------------------------------ cost and ops */

/* The first listed policy's mean delay (BR_mean_delay by default). */
static const char *cl_headline(const void *vctx)
{
    static const char *const names[3] = {"BR_mean_delay", "BS_mean_delay", "WF_mean_delay"};
    const cl_ctx *c = vctx;
    return names[c->pol[0]];
}

static double cl_cost(const void *vctx)
{
    const cl_ctx *c = vctx;
    return (double)(c->run.warmup + c->run.arrivals) * (c->Ealpha + 1.0) * (double)c->npol;
}

/* The event loop counts requests. */
const storq_model storq_model_cluster = {
    .name = "cluster",
    .summary = "m servers holding chunked, MDS-coded files; requests delivered by balanced random "
               "(BR), batch sampling (BS) or water-filling (WF), coupled, with the cavity-queue "
               "product-form bound",
    .params = cl_params,
    .prepare = cl_prepare,
    .release = cl_release,
    .declare = cl_declare,
    .replicate = storq_cl_replicate,
    .theory = storq_cl_theory,
    .compare = storq_cl_compare,
    .cost = cl_cost,
    .headline = cl_headline,
};
