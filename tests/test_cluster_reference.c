/* Differential test of the `cluster` kernel: a plain implementation of the same dynamics, written
 * independently here from docs/models/cluster.md and fed the same random numbers (same streams,
 * same draws in the same order), must give the same observables -- floating values to a relative
 * 1e-12, histogram counts identically.
 *
 * The reference keeps the workload W(i) in bits of every one of the m servers and decrements all of
 * them at every arrival (O(m) per request), keeps a_n(i) and s_n(i) as full m-vectors, chooses BS's
 * k' least-loaded candidates by a full insertion sort and WF's next server by a linear scan. Tie
 * rule (the kernel's documented one): every entry of the request's placement list (the alpha
 * distinct servers in the order storq_rng_sample_distinct drew them when alpha < m; servers 0..m-1
 * otherwise) gets a 64-bit key from the TIES stream, and equal workloads are ordered by key. The
 * reference's workloads are decremented in a different order of floating operations than the
 * kernel's busy-until times, so workloads that are equal in exact arithmetic (common with det
 * chunks: two servers that started busy at the same request and received the same number of
 * blocks since) may differ here by rounding: the reference treats workloads within 1e-9 E[c] bits
 * as equal. The kernel's "busy until" representation is also checked by running each policy alone:
 * it must reproduce the coupled run's values for that policy bit for bit. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "distribution.h"
#include "model_run.h"
#include "rng.h"
#include "steady_state.h"


typedef struct config {
    long m;
    double lambda, mu, chunk;
    const char *size, *coding, *chunk_dist, *policy;
    long warmup, arrivals;
} config;

/* ------------------------------------------------------------------ the kernel */

#define POINT 3 /* the stream keys' point, here and in the reference */

static int kernel_setup(model_run *r, const config *cf)
{
    model_run_init(r, &storq_model_cluster);
    model_setl(&r->p, "m", cf->m);
    model_setd(&r->p, "lambda", cf->lambda);
    model_setd(&r->p, "mu", cf->mu);
    model_setd(&r->p, "chunk", cf->chunk);
    model_set(&r->p, "size", cf->size);
    model_set(&r->p, "coding", cf->coding);
    model_set(&r->p, "chunk_dist", cf->chunk_dist);
    model_set(&r->p, "policy", cf->policy);
    model_setl(&r->p, "warmup", cf->warmup);
    model_setl(&r->p, "arrivals", cf->arrivals);
    return model_run_prepare(r);
}

/* ------------------------------------------------------------------ the reference */

enum { BR, BS, WF };

static int64_t ref_alpha(const char *coding, int64_t k)
{
    if (strncmp(coding, "plus:", 5) == 0)
        return k + atoll(coding + 5);
    if (strncmp(coding, "rate:", 5) == 0)
        return (int64_t)ceil((double)k / atof(coding + 5) * (1.0 - 1e-12));
    if (strncmp(coding, "times:", 6) == 0)
        return (int64_t)ceil((double)k * atof(coding + 6) * (1.0 - 1e-12));
    return k;
}

/* a before b: workload (with tolerance), then key */
static int ref_before(double wa, uint64_t ka, double wb, uint64_t kb, double tol)
{
    if (wa < wb - tol)
        return 1;
    if (wa > wb + tol)
        return 0;
    return ka < kb;
}

/* Simulate into rec (a record with the kernel's schema). */
static void reference(const config *cf, const storq_observables *obs, uint64_t seed,
                      uint64_t rep, storq_record *rec)
{
    storq_stream_key key = {.seed = seed, .point = POINT, .replication = rep};
    storq_rng arr = storq_rng_stream(&key, STORQ_STREAM_ARRIVALS);
    storq_rng siz = storq_rng_stream(&key, STORQ_STREAM_SIZES);
    storq_rng svc = storq_rng_stream(&key, STORQ_STREAM_SERVICE);
    storq_rng plc = storq_rng_stream(&key, STORQ_STREAM_PLACEMENT);
    storq_rng rte = storq_rng_stream(&key, STORQ_STREAM_ROUTING);
    storq_rng tie = storq_rng_stream(&key, STORQ_STREAM_TIES);
    storq_error err = {0};
    storq_ddist size;
    storq_dist cd;
    char spec[64];
    if (storq_ddist_parse(cf->size, "size", &size, &err))
        abort();
    const char *cds = cf->chunk_dist;
    if (strcmp(cds, "det") == 0) {
        snprintf(spec, sizeof spec, "det:%.17g", cf->chunk);
        cds = spec;
    }
    if (storq_dist_parse(cds, "chunk_dist", &cd, &err))
        abort();
    int pol[3], np = 0, need_keys = 0;
    char pbuf[64];
    snprintf(pbuf, sizeof pbuf, "%s", cf->policy);
    for (char *s = strtok(pbuf, "+"); s; s = strtok(NULL, "+")) {
        pol[np] = !strcmp(s, "BR") ? BR : !strcmp(s, "BS") ? BS : WF;
        if (pol[np] != BR)
            need_keys = 1;
        np++;
    }
    const long m = cf->m;
    const double mu = cf->mu, tol = 1e-9 * cd.mean;

    /* observables by name */
    char nm[64];
    const storq_obs_def *dd[3] = {0}, *dwf[3] = {0}, *dcm[3] = {0}, *dcc[3] = {0}, *dccdf[3] = {0};
    storq_hist hd[3], hw[3];
    int id_mean[3], id_util[3], id_diff[3];
    for (int p = 0; p < np; p++) {
        const char *P = pol[p] == BR ? "BR" : pol[p] == BS ? "BS" : "WF";
#define FIND(var, suffix)                                                   \
    do {                                                                    \
        snprintf(nm, sizeof nm, "%s_%s", P, suffix);                        \
        var = storq_obs_find(obs, nm);                                      \
        if (!var) {                                                         \
            fprintf(stderr, "no observable %s\n", nm);                      \
            abort();                                                        \
        }                                                                   \
    } while (0)
        const storq_obs_def *tmp;
        FIND(dd[p], "delay");
        FIND(dwf[p], "workload_found");
        FIND(dcm[p], "class_mean_delay");
        FIND(dcc[p], "class_count");
        FIND(dccdf[p], "delay_ccdf");
        FIND(tmp, "mean_delay");
        id_mean[p] = (int)(tmp - obs->defs);
        FIND(tmp, "utilisation");
        id_util[p] = (int)(tmp - obs->defs);
        id_diff[p] = -1;
        if (p > 0) {
            snprintf(nm, sizeof nm, "diff_%s_%s_mean_delay", P,
                     pol[0] == BR ? "BR" : pol[0] == BS ? "BS" : "WF");
            tmp = storq_obs_find(obs, nm);
            if (!tmp) {
                fprintf(stderr, "no observable %s\n", nm);
                abort();
            }
            id_diff[p] = (int)(tmp - obs->defs);
        }
        hd[p] = storq_record_hist(rec, (int)(dd[p] - obs->defs));
        hw[p] = storq_record_hist(rec, (int)(dwf[p] - obs->defs));
    }
    const size_t ncl = dcm[0]->length;
    /* the per-class delay histograms, found by name from the class axis */
    storq_hist *hcl = malloc((size_t)np * ncl * sizeof *hcl);
    for (int p = 0; p < np; p++) {
        const char *P = pol[p] == BR ? "BR" : pol[p] == BS ? "BS" : "WF";
        for (size_t j = 0; j < ncl; j++) {
            snprintf(nm, sizeof nm, "%s_delay_class_%lld", P, (long long)dcm[0]->axis[j]);
            const storq_obs_def *h = storq_obs_find(obs, nm);
            if (!h) {
                fprintf(stderr, "no observable %s\n", nm);
                abort();
            }
            hcl[p * ncl + j] = storq_record_hist(rec, (int)(h - obs->defs));
        }
    }
    const double *clo = dcm[0]->axis, *xg = dccdf[0]->axis;
    const size_t ng = dccdf[0]->length;

    double *W = calloc((size_t)np * m, sizeof *W);
    int64_t *a = calloc(m, sizeof *a), *s = calloc(m, sizeof *s);
    uint64_t *ent = malloc(m * sizeof *ent), *kent = malloc(m * sizeof *kent);
    uint64_t *keyof = calloc(m, sizeof *keyof), *pick = malloc(m * sizeof *pick);
    uint64_t *cand = malloc(m * sizeof *cand);
    double *sum = calloc(np, sizeof *sum), *csum = calloc(np * ncl, sizeof *csum);
    double *ccnt = calloc(np * ncl, sizeof *ccnt), *above = calloc(np * ng, sizeof *above);
    double wstart[3] = {0}, work_in = 0, T = 0;
    double half_sum[2] = {0, 0}; /* the first policy's delays in each half of the window */
    const long total = cf->warmup + cf->arrivals, half = cf->warmup + cf->arrivals / 2;
    for (long n = 0; n < total; n++) {
        double tau = storq_rng_exp(&arr, cf->lambda);
        for (long i = 0; i < (long)np * m; i++)
            W[i] = W[i] - tau * mu > 0 ? W[i] - tau * mu : 0.0;
        int meas = n >= cf->warmup;
        if (meas && n > cf->warmup)
            T += tau;
        int64_t k = storq_ddist_sample(&size, &siz);
        int64_t alpha = ref_alpha(cf->coding, k);
        double c = storq_dist_sample(&cd, &svc);
        if (meas && n == cf->warmup)
            for (int p = 0; p < np; p++)
                for (long i = 0; i < m; i++)
                    wstart[p] += W[(size_t)p * m + i];
        if (meas)
            work_in += c * (double)k;
        /* placement */
        long ne;
        memset(a, 0, m * sizeof *a);
        if (alpha < m) {
            storq_rng_sample_distinct(&plc, m, (unsigned)alpha, ent);
            ne = alpha;
            for (long j = 0; j < ne; j++)
                a[ent[j]] = 1;
        } else {
            ne = m;
            for (long i = 0; i < m; i++) {
                ent[i] = i;
                a[i] = alpha / m;
            }
            long r = alpha - (alpha / m) * m;
            if (r > 0) {
                storq_rng_sample_distinct(&plc, m, (unsigned)r, pick);
                for (long i = 0; i < r; i++)
                    a[pick[i]]++;
            }
        }
        if (need_keys)
            for (long j = 0; j < ne; j++)
                keyof[ent[j]] = kent[j] = storq_rng_next(&tie);
        int64_t q = k / m, kp = k - q * m;
        for (int p = 0; p < np; p++) {
            double *Wp = W + (size_t)p * m;
            memset(s, 0, m * sizeof *s);
            if (pol[p] == WF) {
                for (int64_t r = 0; r < k; r++) {
                    long best = -1;
                    for (long i = 0; i < m; i++) {
                        if (a[i] - s[i] <= 0)
                            continue;
                        if (best < 0 || ref_before(Wp[i] + c * (double)s[i], keyof[i],
                                                   Wp[best] + c * (double)s[best], keyof[best],
                                                   tol))
                            best = i;
                    }
                    s[best]++;
                }
            } else {
                long nc = 0;
                for (long j = 0; j < ne; j++) {
                    long i = (long)ent[j];
                    s[i] = q;
                    if (a[i] - q > 0)
                        cand[nc++] = i;
                }
                if (kp == nc) {
                    for (long j = 0; j < nc; j++)
                        s[cand[j]]++;
                } else if (kp > 0 && pol[p] == BR) {
                    storq_rng_sample_distinct(&rte, nc, (unsigned)kp, pick);
                    for (long j = 0; j < kp; j++)
                        s[cand[pick[j]]]++;
                } else if (kp > 0) {
                    /* full insertion sort by (workload, key) */
                    for (long j = 1; j < nc; j++) {
                        uint64_t x = cand[j];
                        long l = j;
                        while (l > 0 && ref_before(Wp[x], keyof[x], Wp[cand[l - 1]],
                                                   keyof[cand[l - 1]], tol)) {
                            cand[l] = cand[l - 1];
                            l--;
                        }
                        cand[l] = x;
                    }
                    for (long j = 0; j < kp; j++)
                        s[cand[j]]++;
                }
            }
            double D = 0;
            int64_t tot = 0;
            for (long i = 0; i < m; i++) {
                if (s[i] <= 0)
                    continue;
                tot += s[i];
                if (s[i] > a[i])
                    abort(); /* s <= a */
                double Di = (Wp[i] + c * (double)s[i]) / mu;
                if (Di > D)
                    D = Di;
                if (meas)
                    storq_hist_add(&hw[p], Wp[i] / mu);
                Wp[i] += c * (double)s[i];
            }
            if (tot != k)
                abort(); /* |s| = k */
            if (meas) {
                storq_hist_add(&hd[p], D);
                sum[p] += D;
                if (p == 0)
                    half_sum[n >= half] += D;
                size_t ci = 0;
                for (size_t j = 0; j < ncl; j++)
                    if (clo[j] <= (double)k)
                        ci = j;
                csum[p * ncl + ci] += D;
                ccnt[p * ncl + ci] += 1;
                storq_hist_add(&hcl[p * ncl + ci], D);
                for (size_t j = 0; j < ng; j++)
                    if (D > xg[j])
                        above[p * ng + j] += 1;
            }
        }
    }
    (void)kent;
    const double N = (double)cf->arrivals;
    const double n1 = (double)(cf->arrivals / 2), n2 = N - n1;
    storq_record_scalar(rec, (int)(storq_obs_find(obs, "warmup_first_half_mean") - obs->defs),
                        n1 > 0 ? half_sum[0] / n1 : NAN);
    storq_record_scalar(rec, (int)(storq_obs_find(obs, "warmup_second_half_mean") - obs->defs),
                        half_sum[1] / n2);
    for (int p = 0; p < np; p++) {
        storq_record_scalar(rec, id_mean[p], sum[p] / N);
        if (p > 0)
            storq_record_scalar(rec, id_diff[p], sum[p] / N - sum[0] / N);
        double *cm = storq_record_vector(rec, (int)(dcm[p] - obs->defs));
        double *cc = storq_record_vector(rec, (int)(dcc[p] - obs->defs));
        double *cx = storq_record_vector(rec, (int)(dccdf[p] - obs->defs));
        for (size_t j = 0; j < ncl; j++) {
            cm[j] = ccnt[p * ncl + j] > 0 ? csum[p * ncl + j] / ccnt[p * ncl + j] : NAN;
            cc[j] = ccnt[p * ncl + j];
        }
        for (size_t j = 0; j < ng; j++)
            cx[j] = above[p * ng + j] / N;
        double wend = 0;
        for (long i = 0; i < m; i++)
            wend += W[(size_t)p * m + i];
        storq_record_scalar(rec, id_util[p], (wstart[p] + work_in - wend) / (m * mu * T));
    }
    free(W);
    free(a);
    free(s);
    free(ent);
    free(kent);
    free(keyof);
    free(pick);
    free(cand);
    free(sum);
    free(csum);
    free(ccnt);
    free(hcl);
    free(above);
    storq_ddist_free(&size);
    storq_dist_free(&cd);
}

/* ------------------------------------------------------------------ comparison */

static int close_rel(double a, double b, double tol)
{
    if (isnan(a) || isnan(b))
        return isnan(a) && isnan(b);
    return fabs(a - b) <= tol * fmax(fabs(a), fabs(b)) || fabs(a - b) <= 1e-300;
}

static void compare_records(const char *label, const storq_observables *obs,
                            const storq_record *kr, const storq_record *rr)
{
    int bad = 0;
    for (size_t d = 0; d < obs->ndefs; d++) {
        const storq_obs_def *def = &obs->defs[d];
        for (size_t i = 0; i < def->length; i++) {
            double x = kr->values[def->value_offset + i], y = rr->values[def->value_offset + i];
            int ok = close_rel(x, y, 1e-12);
            if (!ok && strncmp(def->name, "diff_", 5) == 0) {
                /* a paired difference of two close means: relative to the means, not to it */
                const storq_obs_def *first = NULL;
                for (size_t e = 0; e < obs->ndefs && !first; e++)
                    if (strstr(obs->defs[e].name, "_mean_delay") == obs->defs[e].name + 2)
                        first = &obs->defs[e];
                ok = first && fabs(x - y) <= 1e-12 * fabs(kr->values[first->value_offset]);
            }
            if (!ok && bad++ < 5)
                fprintf(stderr, "%s: %s[%zu]: kernel %.17g, reference %.17g\n", label, def->name,
                        i, x, y);
        }
        if (def->kind == STORQ_OBS_HIST) {
            for (size_t b = 0; b < def->nbins + 2; b++)
                if (kr->counts[def->count_offset + b] != rr->counts[def->count_offset + b] &&
                    bad++ < 5)
                    fprintf(stderr, "%s: %s bin %zu: kernel %llu, reference %llu\n", label,
                            def->name, b,
                            (unsigned long long)kr->counts[def->count_offset + b],
                            (unsigned long long)rr->counts[def->count_offset + b]);
            for (int e = 0; e < 2; e++)
                if (!close_rel(kr->minmax[def->minmax_offset + e],
                               rr->minmax[def->minmax_offset + e], 1e-12) &&
                    bad++ < 5)
                    fprintf(stderr, "%s: %s %s differs\n", label, def->name, e ? "max" : "min");
        }
    }
    CHECK(bad == 0);
    if (!bad)
        printf("ok: %s\n", label);
}

static void run_case(const char *label, const config *cf, int reps)
{
    model_run kr;
    if (kernel_setup(&kr, cf)) {
        CHECK(0);
        return;
    }
    storq_record rr;
    storq_error err = {0};
    if (storq_record_init(&rr, &kr.obs, &err))
        abort();
    for (int r = 0; r < reps; r++) {
        if (model_run_replicate(&kr, 20240611, POINT, r)) {
            CHECK(0);
            break;
        }
        CHECK_EQ_U64(kr.rec.events, (unsigned long long)(cf->warmup + cf->arrivals));
        storq_record_reset(&rr);
        reference(cf, &kr.obs, 20240611, r, &rr);
        char l[256];
        snprintf(l, sizeof l, "%s [policy %s, rep %d]", label, cf->policy, r);
        compare_records(l, &kr.obs, &kr.rec, &rr);
    }
    storq_record_free(&rr);
    model_run_free(&kr);
}

/* Each policy alone must reproduce its values in the coupled run exactly. */
static void check_coupling(const char *label, const config *cf)
{
    model_run all;
    if (kernel_setup(&all, cf) || model_run_replicate(&all, 77, POINT, 1)) {
        CHECK(0);
        return;
    }
    const char *names[3] = {"BR", "BS", "WF"};
    int bad = 0;
    for (int p = 0; p < 3; p++) {
        config one = *cf;
        one.policy = names[p];
        model_run k1;
        if (kernel_setup(&k1, &one) || model_run_replicate(&k1, 77, POINT, 1)) {
            CHECK(0);
            return;
        }
        for (size_t d = 0; d < k1.obs.ndefs; d++) {
            const storq_obs_def *d1 = &k1.obs.defs[d];
            const storq_obs_def *da = storq_obs_find(&all.obs, d1->name);
            /* the steady-state halves follow the first listed policy: only that one's match */
            if (storq_steady_is_half(d1->name) && strncmp(cf->policy, names[p], 2) != 0)
                continue;
            if (!da) {
                bad++;
                continue;
            }
            if (memcmp(k1.rec.values + d1->value_offset, all.rec.values + da->value_offset,
                       d1->length * sizeof(double)) != 0) {
                /* NaN class means compare unequal bitwise only if payloads differ; treat equal */
                for (size_t i = 0; i < d1->length; i++) {
                    double x = k1.rec.values[d1->value_offset + i];
                    double y = all.rec.values[da->value_offset + i];
                    if (!(x == y || (isnan(x) && isnan(y)))) {
                        fprintf(stderr, "%s: %s alone: %s[%zu] %.17g vs coupled %.17g\n", label,
                                names[p], d1->name, i, x, y);
                        bad++;
                        break;
                    }
                }
            }
            if (d1->kind == STORQ_OBS_HIST &&
                memcmp(k1.rec.counts + d1->count_offset, all.rec.counts + da->count_offset,
                       (d1->nbins + 2) * sizeof(uint64_t)) != 0) {
                fprintf(stderr, "%s: %s alone: %s counts differ\n", label, names[p], d1->name);
                bad++;
            }
        }
        model_run_free(&k1);
    }
    CHECK(bad == 0);
    if (!bad)
        printf("ok: %s: each policy alone equals the coupled run\n", label);
    model_run_free(&all);
}

int main(void)
{
    /* logarithmic regime: alpha < m (plus:2 on k <= 8, m = 20), rho = 0.8 */
    config lg = {20, 0.8 * 20 / 4.5, 1.0, 1.0, "uniform:1,8", "plus:2", "det", "BR+BS+WF",
                 2000, 40000};
    run_case("log regime, det chunks", &lg, 2);
    config lge = lg;
    lge.chunk_dist = "exp:1";
    run_case("log regime, exp chunks", &lge, 2);
    /* linear regime: m = 5, k up to 17, times:1.5 (alpha from 2 to 26; alpha = m at k = 3) */
    config ln = {5, 0.8 * 5 / 9.0, 1.0, 1.0, "uniform:1,17", "times:1.5", "det", "BR+BS+WF",
                 2000, 40000};
    run_case("linear regime, det chunks", &ln, 2);
    config lne = ln;
    lne.chunk_dist = "exp:2";
    lne.mu = 1.5;
    lne.lambda = 0.85 * 5 * 1.5 / (9.0 * 0.5);
    run_case("linear regime, exp chunks, mu 1.5", &lne, 2);
    /* other orders of the list, each policy alone, and other laws */
    const char *orders[] = {"WF+BR", "BS", "WF", "BR"};
    for (int i = 0; i < 4; i++) {
        config o = ln;
        o.policy = orders[i];
        o.arrivals = 8000;
        run_case("linear regime, det chunks", &o, 1);
        o = lg;
        o.policy = orders[i];
        o.arrivals = 8000;
        run_case("log regime, det chunks", &o, 1);
    }
    config geo = {30, 0.7 * 30 * 2.0 / (1 / 0.3 * 1.5), 2.0, 1.5, "geom:0.3", "rate:0.5",
                  "shexp:0.5,1", "BS+WF+BR", 2000, 40000};
    run_case("geom sizes, rate:0.5, shexp chunks", &geo, 1);
    config pmf = {8, 0.75 * 8 / 9.0, 1.0, 1.0, "pmf:1=0.7,40=0.2,3=0.1", "plus:3", "det",
                  "BR+BS+WF", 1000, 10000};
    run_case("pmf sizes spanning both regimes", &pmf, 1);

    check_coupling("log regime", &lg);
    check_coupling("linear regime", &ln);
    check_coupling("linear regime, exp chunks", &lne);
    return check_report("test_cluster_reference");
}
