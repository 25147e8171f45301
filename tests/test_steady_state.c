/* The steady-state check (src/toolkit/steady_state.c, docs/steady-state.md): the statistic on pairs given
 * by hand, its false-alarm rate under the null (many simulated points of independent halves with
 * equal means: about STORQ_STEADY_LEVEL's complement warn), its power against a drift, the 1%
 * floor, the untested cases; and the halves each model records: they split the headline's
 * measured jobs exactly (cluster, forkjoin: the headline is their job-weighted mean), the first
 * half is lower after a start from empty with too short a warm-up (every model, both supermarket
 * engines: the check warns), and a window too short for two halves records NaN. Fixed seeds. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "model_run.h"
#include "rng.h"
#include "stats.h"
#include "steady_state.h"

/* ------------------------------------------------------------------ the statistic */

static void check_by_hand(void)
{
    /* d = -0.5, -0.5, -0.1, -0.4: mean -0.375, sample variance 0.0358333... */
    const double f[4] = {1.0, 2.0, 3.0, 4.0}, s[4] = {1.5, 2.5, 3.1, 4.4};
    storq_steady_check c;
    storq_steady_check_pairs(f, s, 4, 1, &c);
    const double var = (0.125 * 0.125 * 2 + 0.275 * 0.275 + 0.025 * 0.025) / 3.0;
    CHECK(c.tested);
    CHECK_EQ_U64(c.replications, 4);
    CHECK_NEAR(c.first, 2.5, 1e-15);
    CHECK_NEAR(c.second, 2.875, 1e-15);
    CHECK_NEAR(c.drift, -0.375, 1e-15);
    CHECK_NEAR(c.stderr_, sqrt(var / 4.0), 1e-15);
    CHECK_NEAR(c.t, -0.375 / sqrt(var / 4.0), 1e-12);
    CHECK_NEAR(c.quantile, storq_t_quantile(STORQ_STEADY_LEVEL, 3), 1e-12);
    CHECK_NEAR(c.floor, 0.01 * 0.5 * (2.5 + 2.875), 1e-15);
    CHECK(!c.warn); /* |t| = 3.96 < 12.9 at 3 degrees of freedom */

    /* a stride: the pairs are columns of a row-major table */
    const double rows[8] = {1.0, 1.5, 2.0, 2.5, 3.0, 3.1, 4.0, 4.4};
    storq_steady_check r;
    storq_steady_check_pairs(rows, rows + 1, 4, 2, &r);
    CHECK(r.drift == c.drift && r.stderr_ == c.stderr_);

    /* untested: one replication; a NaN half */
    storq_steady_check_pairs(f, s, 1, 1, &c);
    CHECK(!c.tested && !c.warn && isnan(c.stderr_));
    CHECK_NEAR(c.drift, -0.5, 1e-15);
    const double g[3] = {1.0, NAN, 2.0}, h[3] = {1.0, 1.0, 2.0};
    storq_steady_check_pairs(g, h, 3, 1, &c);
    CHECK(!c.tested && !c.warn);

    /* equal halves: no drift, no warning (0 / 0 is t = 0) */
    storq_steady_check_pairs(f, f, 4, 1, &c);
    CHECK(c.tested && !c.warn && c.t == 0.0);
}

/* Any time scale: the halves scaled by 1e-300 or 1e300 give the same t, and drift and stderr
 * scaled (the squares of 1e-300 underflowed: stderr 0, |t| = inf, a false warning). */
static void check_time_scales(void)
{
    const double f[4] = {1.0, 2.0, 3.0, 4.0}, s[4] = {1.5, 2.5, 3.1, 4.4};
    storq_steady_check c;
    storq_steady_check_pairs(f, s, 4, 1, &c);
    const double scales[3] = {1e-300, 1e300, 0x1p-1000};
    for (int i = 0; i < 3; i++) {
        double fs[4], ss[4];
        for (int j = 0; j < 4; j++) {
            fs[j] = f[j] * scales[i];
            ss[j] = s[j] * scales[i];
        }
        storq_steady_check x;
        storq_steady_check_pairs(fs, ss, 4, 1, &x);
        CHECK(x.tested && x.warn == c.warn);
        CHECK_NEAR(x.t / c.t, 1.0, 1e-12);
        CHECK_NEAR(x.stderr_ / (c.stderr_ * scales[i]), 1.0, 1e-12);
        CHECK_NEAR(x.drift / (c.drift * scales[i]), 1.0, 1e-12);
    }
}

/* A standard normal from two uniforms (Box-Muller, one of the pair). */
static double normal(storq_rng *rng)
{
    const double u = storq_rng_uniform_pos(rng), v = storq_rng_uniform(rng);
    return sqrt(-2.0 * log(u)) * cos(2.0 * M_PI * v);
}

/* Of `points` simulated points of R replications whose halves are independent N(mean + shift,
 * 1) and N(mean, 1), how many warn. */
static size_t warnings(size_t points, size_t R, double mean, double shift, uint64_t seed)
{
    storq_stream_key key = {.seed = seed};
    storq_rng rng = storq_rng_stream(&key, STORQ_STREAM_EXTRA);
    double f[64], s[64];
    size_t warned = 0;
    for (size_t p = 0; p < points; p++) {
        for (size_t r = 0; r < R; r++) {
            f[r] = mean + shift + normal(&rng);
            s[r] = mean + normal(&rng);
        }
        storq_steady_check c;
        storq_steady_check_pairs(f, s, R, 1, &c);
        warned += (size_t)c.warn;
    }
    return warned;
}

static void check_rates(void)
{
    /* the null, with the floor out of the way (mean 0): 20000 points at 1e-3 each, about 20
     * warnings (binomial sd 4.5); a rule using the normal quantile at R = 10 would give ~190 */
    size_t w = warnings(20000, 10, 0.0, 0.0, 11);
    printf("null, R = 10: %zu of 20000 points warn (expect about 20)\n", w);
    CHECK(w >= 5 && w <= 40);
    w = warnings(20000, 3, 0.0, 0.0, 12);
    printf("null, R = 3: %zu of 20000 points warn (expect about 20)\n", w);
    CHECK(w >= 5 && w <= 40);
    /* power: a drift of 3 sd of one difference, R = 10 (t about 6.7 > 4.78): most points warn */
    w = warnings(1000, 10, 0.0, -3.0 * sqrt(2.0), 13);
    printf("drift of 3 sd, R = 10: %zu of 1000 points warn\n", w);
    CHECK(w >= 900);
    /* the floor: the same significant drift, below 1% of a mean of 1000, never warns */
    w = warnings(1000, 10, 1000.0, -3.0 * sqrt(2.0), 13);
    CHECK(w == 0);
    /* and above 1% of a mean of 100 (drift 4.2 > 1), it does as before */
    CHECK(warnings(1000, 10, 100.0, -3.0 * sqrt(2.0), 13) >= 900);
}

/* ------------------------------------------------------------------ the models' halves */

/* The check of a run's replications, read from its values table. */
static storq_steady_check run_check(const model_run *r)
{
    storq_steady_check c;
    storq_steady_check_pairs(r->values + model_run_offset(r, STORQ_STEADY_FIRST, 0),
                             r->values + model_run_offset(r, STORQ_STEADY_SECOND, 0), r->reps,
                             r->obs.nvalues, &c);
    return c;
}

/* Warm-up 0 (a start from empty) and too short a window at a high load: every replication's first
 * half lower, and the check warns. */
static void check_transient(const storq_model *model, const char *const *args, const char *what)
{
    model_run r;
    if (model_run_point(&r, model, 10, 3, args)) {
        CHECK(0);
        return;
    }
    storq_steady_check c = run_check(&r);
    printf("%s from empty: halves %.4g, %.4g, drift %.3g +- %.2g (t = %.3g): %s\n", what,
           c.first, c.second, c.drift, c.stderr_, c.t, c.warn ? "warns" : "passes");
    CHECK(c.tested && c.warn && c.drift < 0.0);
    model_run_free(&r);
}

/* cluster, forkjoin: n1 = arrivals / 2 jobs in the first half, the rest in the second, so the
 * headline is (n1 first + n2 second) / arrivals. */
static void check_split(const storq_model *model, const char *const *args, const char *headline,
                        double arrivals)
{
    model_run r;
    if (model_run_point(&r, model, 3, 4, args)) {
        CHECK(0);
        return;
    }
    const double n1 = floor(arrivals / 2), n2 = arrivals - n1;
    for (size_t rep = 0; rep < r.reps; rep++) {
        const double f = model_run_value(&r, rep, STORQ_STEADY_FIRST, 0);
        const double s = model_run_value(&r, rep, STORQ_STEADY_SECOND, 0);
        const double m = model_run_value(&r, rep, headline, 0);
        CHECK_NEAR((n1 * f + n2 * s) / arrivals, m, 1e-12 * m);
    }
    model_run_free(&r);
}

/* Too few measured arrivals for two halves: NaN (supermarket: 2 arrivals, a window of one
 * interval; cluster: 1 request). */
static void check_too_short(const storq_model *model, const char *const *args)
{
    model_run r;
    if (model_run_point(&r, model, 2, 5, args)) {
        CHECK(0);
        return;
    }
    CHECK(isnan(model_run_value(&r, 0, STORQ_STEADY_FIRST, 0)));
    storq_steady_check c = run_check(&r);
    CHECK(!c.tested && !c.warn);
    model_run_free(&r);
}

static void check_models(void)
{
    const char *sm_servers[] = {"n=100", "L=1", "lambda=0.9", "warmup=0", "arrivals=20000",
                                NULL};
    check_transient(&storq_model_supermarket, sm_servers, "supermarket servers");
    const char *sm_counts[] = {"n=100", "L=1", "lambda=0.9", "warmup=0", "arrivals=20000",
                               "engine=counts", NULL};
    check_transient(&storq_model_supermarket, sm_counts, "supermarket counts");
    const char *cl[] = {"m=50", "lambda=13", "size=uniform:1,6", "policy=BR+BS", "warmup=0",
                        "arrivals=4000", NULL};
    check_transient(&storq_model_cluster, cl, "cluster");
    const char *fj[] = {"n=4", "k=2", "groups=50", "lambda=180",
                        "mu=1", "warmup=0", "arrivals=20000", NULL};
    check_transient(&storq_model_forkjoin, fj, "forkjoin");

    const char *cl_odd[] = {"m=20", "lambda=3", "warmup=100", "arrivals=2001", NULL};
    check_split(&storq_model_cluster, cl_odd, "BR_mean_delay", 2001);
    const char *cl_bs[] = {"m=20", "lambda=3", "policy=BS+BR", "warmup=100", "arrivals=2000",
                           NULL};
    check_split(&storq_model_cluster, cl_bs, "BS_mean_delay", 2000);
    const char *fj_odd[] = {"n=4", "k=2", "lambda=1", "warmup=100", "arrivals=3001",
                            "correlation=0.5", NULL};
    check_split(&storq_model_forkjoin, fj_odd, "mean_response_time", 3001);

    const char *sm_short[] = {"n=10", "L=2", "lambda=0.5", "warmup=10", "arrivals=2", NULL};
    check_too_short(&storq_model_supermarket, sm_short);
    const char *sm_counts_short[] = {"n=10", "L=2", "lambda=0.5", "warmup=10", "arrivals=2",
                                     "engine=counts", NULL};
    check_too_short(&storq_model_supermarket, sm_counts_short);
    const char *cl_short[] = {"m=10", "lambda=1", "warmup=10", "arrivals=1", NULL};
    check_too_short(&storq_model_cluster, cl_short);

    /* three arrivals are enough for two halves of positive length */
    const char *sm_three[] = {"n=10", "L=2", "lambda=0.5", "warmup=10", "arrivals=3", NULL};
    model_run r;
    if (model_run_point(&r, &storq_model_supermarket, 2, 6, sm_three) == 0) {
        CHECK(isfinite(model_run_value(&r, 0, STORQ_STEADY_FIRST, 0)));
        CHECK(isfinite(model_run_value(&r, 0, STORQ_STEADY_SECOND, 0)));
        model_run_free(&r);
    } else {
        CHECK(0);
    }

    /* a transient supermarket point has no halves */
    const char *sm_tr[] = {"n=10", "L=2", "lambda=0.5", "mode=transient", NULL};
    model_run_init(&r, &storq_model_supermarket);
    model_set_args(&r.p, sm_tr);
    if (model_run_prepare(&r) == 0) {
        CHECK(storq_obs_find(&r.obs, STORQ_STEADY_FIRST) == NULL);
        model_run_free(&r);
    } else {
        CHECK(0);
    }
}

int main(void)
{
    check_by_hand();
    check_time_scales();
    check_rates();
    check_models();
    return check_report("test_steady_state");
}
