/* The `mmc` kernel against a plain reference fed the same random numbers: the contract of
 * kernels/mmc/internal.h (per job an exp(lambda) gap from ARRIVALS, then an exp(mu) service from
 * SERVICE; FCFS: a job starts at max(its arrival, the earliest release)) written the obvious way,
 * an O(c) scan for the earliest server instead of the kernel's heap, and the same clock rebase.
 * Every value and histogram count must agree exactly. Mutation check: a reference that serves in
 * random-server order (a different system) must disagree. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "model_run.h"
#include "mmc/internal.h"

/* The reference replication into rec; scan = 1: the earliest server (FCFS), 0: server j % c. */
static void reference(const mmc_ctx *x, const storq_observables *obs, uint64_t rep, int scan,
                      storq_record *rec)
{
    storq_stream_key key = {.seed = 11, .point = 0, .replication = rep};
    storq_rng arr = storq_rng_stream(&key, STORQ_STREAM_ARRIVALS);
    storq_rng svc = storq_rng_stream(&key, STORQ_STREAM_SERVICE);
    double *f = calloc(x->c, sizeof *f);
    storq_hist h = storq_record_hist(rec, x->wait_hist);
    const uint64_t every = x->c > 4096 ? x->c : 4096, total = x->run.warmup + x->run.arrivals;
    const uint64_t half = x->run.warmup + x->run.arrivals / 2;
    double t = 0, window = 0, wsum = 0, tsum = 0, hsum = 0;
    double *ccdf = calloc(MMC_CCDF_POINTS, sizeof *ccdf);
    uint64_t since = 0, waited = 0;
    for (uint64_t j = 0; j < total; j++) {
        if (j == half)
            hsum = tsum;
        double tau = storq_rng_exp(&arr, x->lambda), s = storq_rng_exp(&svc, x->mu);
        t += tau;
        if (++since >= every && t > (double)every / x->lambda) {
            for (uint64_t i = 0; i < x->c; i++)
                f[i] = fmax(f[i] - t, 0.0);
            t = 0;
            since = 0;
        }
        uint64_t best = j % x->c;
        for (uint64_t i = 0; scan && i < x->c; i++)
            if (f[i] < f[best])
                best = i;
        double start = fmax(t, f[best]), w = start - t;
        f[best] = start + s;
        if (j < x->run.warmup)
            continue;
        if (j > x->run.warmup)
            window += tau;
        storq_hist_add(&h, w);
        wsum += w;
        tsum += w + s;
        waited += w > 0;
        for (int k = 0; k < MMC_CCDF_POINTS; k++)
            ccdf[k] += ceil(w / x->dt) > k; /* w above the grid point t_k = k dt */
    }
    double n = (double)x->run.arrivals, n1 = (double)(x->run.arrivals / 2);
    storq_record_scalar(rec, x->mean_wait, wsum / n);
    storq_record_scalar(rec, x->mean_sojourn, tsum / n);
    storq_record_scalar(rec, x->wait_prob, (double)waited / n);
    storq_record_scalar(rec, x->mean_number, tsum / window);
    double *v = storq_record_vector(rec, x->wait_ccdf);
    for (int k = 0; k < MMC_CCDF_POINTS; k++)
        v[k] = ccdf[k] / n;
    storq_steady_record(rec, &x->steady, hsum / n1, (tsum - hsum) / (n - n1));
    (void)obs;
    free(f);
    free(ccdf);
}

/* Kernel and reference on reps replications: the number of values or counts that differ. */
static int run_case(const char *label, const char *const *args, int reps, int scan)
{
    model_run r;
    model_run_init(&r, &storq_model_mmc);
    model_set_args(&r.p, args);
    if (model_run_prepare(&r)) {
        CHECK(0);
        return -1;
    }
    storq_record ref;
    storq_error err = {0};
    if (storq_record_init(&ref, &r.obs, &err))
        abort();
    int differ = 0;
    for (int rep = 0; rep < reps; rep++) {
        storq_record_reset(&r.rec);
        storq_record_reset(&ref);
        storq_stream_key key = {.seed = 11, .point = 0, .replication = (uint64_t)rep};
        CHECK(r.model->replicate(r.ctx, &key, &r.rec, &err) == STORQ_OK);
        reference(r.ctx, &r.obs, (uint64_t)rep, scan, &ref);
        for (size_t i = 0; i < r.obs.nvalues; i++)
            differ += memcmp(&r.rec.values[i], &ref.values[i], sizeof(double)) != 0;
        for (size_t i = 0; i < r.obs.ncounts; i++)
            differ += r.rec.counts[i] != ref.counts[i];
    }
    printf("%s %s: %d of %zu values and counts differ over %d replications (mean sojourn %.6g)\n",
           differ == 0 ? "same" : "DIFFERENT", label, differ,
           r.obs.nvalues + r.obs.ncounts, reps,
           r.rec.values[storq_obs_find(&r.obs, "mean_sojourn_time")->value_offset]);
    storq_record_free(&ref);
    model_run_free(&r);
    return differ;
}

int main(void)
{
    /* M/M/1; a small pool; a deep heap near capacity; c above the 4096 rebase period */
    const char *mm1[] = {"c=1", "lambda=0.7", "warmup=1000", "arrivals=30000", NULL};
    const char *mm4[] = {"c=4", "lambda=3", "warmup=1000", "arrivals=30000", NULL};
    const char *mm64[] = {"c=64", "lambda=60", "mu=1", "warmup=0", "arrivals=30000", NULL};
    const char *big[] = {"c=5000", "lambda=4900", "warmup=20000", "arrivals=30000", NULL};
    CHECK(run_case("M/M/1", mm1, 3, 1) == 0);
    CHECK(run_case("M/M/4 rho 0.75", mm4, 3, 1) == 0);
    CHECK(run_case("M/M/64 rho 0.94", mm64, 2, 1) == 0);
    CHECK(run_case("M/M/5000 rho 0.98", big, 1, 1) == 0);
    /* the comparison can fail: round-robin servers are another system */
    CHECK(run_case("M/M/4 against round-robin servers", mm4, 1, 0) > 0);
    return check_report("test_mmc_reference");
}
