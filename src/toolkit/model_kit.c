/* The parts every model repeats: see model_kit.h. */
#include "model_kit.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

storq_run_length storq_run_length_of(const storq_params *p)
{
    storq_run_length r = {(uint64_t)storq_param_int(p, "warmup"),
                          (uint64_t)storq_param_int(p, "arrivals")};
    return r;
}

int storq_clock_plan(storq_clock *clk, const char *what, double rebase_time,
                     uint64_t rebase_count, double lambda, double span, double shortest,
                     storq_error *err)
{
    clk->rebase_time = rebase_time;
    clk->rebase_count = rebase_count;
    /* between shifts the clock runs over rebase_time, or rebase_count arrivals when they take
     * longer; over the whole run when it is shorter */
    double stretch = fmax(rebase_time, fmax((double)rebase_count, 1.0) / lambda);
    return storq_check_time_resolution(what, fmin(stretch, span), shortest, err);
}

int storq_refuse_unstable(const storq_params *p, const char *model, const char *knob,
                          storq_error *err, const char *fmt, ...)
{
    char reason[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reason, sizeof reason, fmt, ap);
    va_end(ap);
    if (p->allow_unstable) {
        storq_warn("%s: %s; queues grow without bound and the steady-state figures mean nothing "
                   "(--allow-unstable)", model, reason);
        return STORQ_OK;
    }
    const int first = err->code == STORQ_OK;
    int rc = storq_fail(err, STORQ_ERR_USAGE, "%s. Lower %s or pass --allow-unstable", reason,
                        knob);
    if (first) {
        err->unstable = 1;
        size_t len = strlen(reason);
        err->reason_len = len < sizeof err->msg ? len : sizeof err->msg - 1;
    }
    return rc;
}

static int has_run_length(const storq_model *m)
{
    return storq_param_find(m->params, "warmup", NULL) &&
           storq_param_find(m->params, "arrivals", NULL);
}

double storq_model_steps(const storq_model *m, const void *ctx, const storq_params *p)
{
    if (m->steps)
        return m->steps(ctx);
    if (!p || !has_run_length(m))
        return 0.0;
    storq_run_length r = storq_run_length_of(p);
    return (double)r.warmup + (double)r.arrivals;
}

double storq_model_cost(const storq_model *m, const void *ctx, const storq_params *p)
{
    if (m->cost)
        return m->cost(ctx);
    double s = storq_model_steps(m, ctx, p);
    return s > 0 ? s : 1.0;
}

const char *storq_model_headline(const storq_model *m, const void *ctx)
{
    return m->headline ? m->headline(ctx) : m->headline_name;
}
