/* `mmc`: the M/M/c queue (docs/models/mmc.md): Poisson arrivals at rate lambda, c servers of rate
 * mu each, one FCFS queue; with its exact Erlang C theory. The smallest complete model, and the
 * template that docs/architecture.md's checklist copies: parameters, the checks of a point, the
 * observables, the theory and the ops table here; the replication in dynamics.c. */
#include <math.h>
#include <stdlib.h>

#include "erlang.h"
#include "internal.h"
#include "memory.h"

static const storq_param_def mmc_params[] = {
    {.name = "c", .type = STORQ_PARAM_INT, .def = "4", .min = 1, .max = 2147483647.0,
     .unit = "servers", .doc = "number of servers, sharing one FCFS queue"},
    {.name = "lambda", .type = STORQ_PARAM_REAL, .def = "3", .min = 0, .max = HUGE_VAL,
     .min_open = 1, .unit = "1/time", .doc = "arrival rate of jobs (all servers together)"},
    {.name = "mu", .type = STORQ_PARAM_REAL, .def = "1", .min = 0, .max = HUGE_VAL,
     .min_open = 1, .unit = "1/time", .doc = "service rate of one server"},
    STORQ_PARAM_WARMUP("10000", "jobs", ""),
    STORQ_PARAM_ARRIVALS("100000", 2, "jobs", ""),
    {.name = NULL},
};

static int mmc_setup(mmc_ctx *x, const storq_params *p, storq_error *err)
{
    x->c = (uint64_t)storq_param_int(p, "c");
    x->lambda = storq_param_real(p, "lambda");
    x->mu = storq_param_real(p, "mu");
    x->run = storq_run_length_of(p);
    const double capacity = (double)x->c * x->mu;
    x->dt = 0.25 / (capacity - x->lambda);
    if (x->lambda >= capacity) {
        STORQ_TRY(storq_refuse_unstable(p, "mmc", "--lambda", err,
                                        "--lambda: %g is at or beyond the capacity c mu = %g of "
                                        "%llu servers of rate %g; there is no steady state",
                                        x->lambda, capacity, (unsigned long long)x->c, x->mu));
        x->dt = 0.25 / x->mu; /* no wait scale beyond capacity: the grid in service times */
    }
    STORQ_TRY(storq_memory_check((size_t)x->c * sizeof(double), "--c: the servers' release times",
                                 "per replication (and thread)", err));
    /* a rebase shifts c release times: every max(4096, c) arrivals keeps it O(1) a job */
    const uint64_t every = x->c > 4096 ? x->c : 4096;
    return storq_clock_plan(&x->clock, "mmc: --lambda/--mu", (double)every / x->lambda, every,
                            x->lambda, ((double)x->run.warmup + (double)x->run.arrivals) / x->lambda,
                            fmin(1 / x->mu, 1 / x->lambda), err);
}

static int mmc_prepare(const storq_params *p, void **out, storq_error *err)
{
    mmc_ctx *x = calloc(1, sizeof *x);
    int rc = x ? mmc_setup(x, p, err) : STORQ_RUNTIME_FAIL(err, "out of memory");
    if (rc) {
        free(x);
        x = NULL;
    }
    *out = x;
    return rc;
}

static int mmc_declare(void *vctx, storq_observables *obs, storq_error *err)
{
    mmc_ctx *x = vctx;
    double axis[MMC_CCDF_POINTS];
    for (int j = 0; j < MMC_CCDF_POINTS; j++)
        axis[j] = j * x->dt;
    STORQ_TRY(storq_declare_hist_loglin(obs, &x->wait_hist, "waiting_time", "time",
                                        "time from a measured job's arrival to its service start "
                                        "(0 in the underflow bin)", 1e-6 / x->mu, 1e9 / x->mu, 7,
                                        err));
    STORQ_TRY(storq_declare_scalar(obs, &x->mean_wait, "mean_waiting_time", "time",
                                   "mean waiting time of the measured jobs", err));
    STORQ_TRY(storq_declare_scalar(obs, &x->mean_sojourn, "mean_sojourn_time", "time",
                                   "mean waiting plus service time of the measured jobs", err));
    STORQ_TRY(storq_declare_scalar(obs, &x->wait_prob, "wait_probability", "1",
                                   "fraction of the measured jobs that waited", err));
    STORQ_TRY(storq_declare_scalar(obs, &x->mean_number, "mean_number_in_system", "jobs",
                                   "measured jobs' sojourn times / the measured window's length "
                                   "(Little's law)", err));
    STORQ_TRY(storq_declare_vector(obs, &x->wait_ccdf, "waiting_time_ccdf", "1",
                                   "fraction of the measured jobs that waited longer than t",
                                   MMC_CCDF_POINTS, "t", axis, err));
    return storq_steady_declare(obs, &x->steady, "mean_sojourn_time", "time", err);
}

static int mmc_theory(const void *vctx, storq_theory *out, storq_error *err)
{
    const mmc_ctx *x = vctx;
    const double gap = (double)x->c * x->mu - x->lambda;
    if (!(gap > 0))
        return STORQ_OK; /* beyond capacity: no steady state to state */
    const double C = storq_erlang_c(x->c, x->lambda / x->mu), wait = C / gap;
    double ccdf[MMC_CCDF_POINTS];
    for (int j = 0; j < MMC_CCDF_POINTS; j++)
        ccdf[j] = C * exp(-gap * j * x->dt);
    STORQ_TRY(storq_theory_scalar(out, "wait_probability", "1", "Erlang C: C(c, lambda/mu)", C,
                                  err));
    STORQ_TRY(storq_theory_scalar(out, "mean_waiting_time", "time", "C / (c mu - lambda)", wait,
                                  err));
    STORQ_TRY(storq_theory_scalar(out, "mean_sojourn_time", "time", "C / (c mu - lambda) + 1/mu",
                                  wait + 1 / x->mu, err));
    STORQ_TRY(storq_theory_scalar(out, "mean_number_in_system", "jobs",
                                  "lambda times the mean sojourn time (Little)",
                                  x->lambda * (wait + 1 / x->mu), err));
    return storq_theory_add(out, "waiting_time_ccdf", "1", "C exp(-(c mu - lambda) t)",
                            "waiting_time_ccdf", ccdf, MMC_CCDF_POINTS, err);
}

const storq_model storq_model_mmc = {
    .name = "mmc",
    .summary = "M/M/c queue: Poisson arrivals, c exponential servers, one FCFS queue, with "
               "Erlang C theory (the pooled queue load balancing is compared with)",
    .params = mmc_params,
    .prepare = mmc_prepare,
    .release = free,
    .declare = mmc_declare,
    .replicate = storq_mmc_replicate,
    .theory = mmc_theory,
    .headline_name = "mean_sojourn_time",
};
