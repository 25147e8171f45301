/* The parts every queueing model repeats, written once (docs/architecture.md, "Adding a model"):
 * the common parameter rows (warm-up, measured arrivals), the run length read from them, the
 * clock that is rebased every so many arrivals with its resolution check, the refusal of a load
 * beyond capacity (as data: storq theory shows the reason, storq run adds the advice), and the
 * defaults of the optional ops (steps, cost, headline) that the engine applies. A model states
 * only what is its own. Toolkit layer: no MPI, HDF5 or command line. */
#ifndef STORQ_MODEL_KIT_H
#define STORQ_MODEL_KIT_H

#include <math.h>
#include <stdint.h>

#include "error.h"
#include "model.h"
#include "params.h"

/* The rows of the warm-up and the measured arrivals, counted in UNIT ("jobs", "requests", ...);
 * NOTE ends their docs ("" or " (steady mode)"). */
#define STORQ_PARAM_WARMUP(DEF, UNIT, NOTE)                                                      \
    {.name = "warmup", .type = STORQ_PARAM_INT, .def = DEF, .min = 0, .max = HUGE_VAL,           \
     .unit = UNIT, .doc = UNIT " simulated before measuring" NOTE}
#define STORQ_PARAM_ARRIVALS(DEF, MIN, UNIT, NOTE)                                               \
    {.name = "arrivals", .type = STORQ_PARAM_INT, .def = DEF, .min = MIN, .max = HUGE_VAL,       \
     .unit = UNIT, .doc = "measured " UNIT " per replication" NOTE}

/* A replication's length: `warmup` arrivals, then `arrivals` measured ones. */
typedef struct storq_run_length {
    uint64_t warmup, arrivals;
} storq_run_length;

storq_run_length storq_run_length_of(const storq_params *p);

/* The simulated clock is shifted back to 0 once it passed `rebase_time` and `rebase_count`
 * arrivals came since the last shift, so that times stay small and precise over any run length.
 * What a shift moves (release times, busy-until times, event keys) is the model's own. */
typedef struct storq_clock {
    double rebase_time;
    uint64_t rebase_count;
} storq_clock;

/* Plan a clock rebased at REBASE_TIME and REBASE_COUNT arrivals (REBASE_COUNT at least the
 * O(state) cost of a shift divided by the O(1) work per arrival, so shifting stays O(1) per
 * arrival), arrivals coming at rate LAMBDA; and check that over its longest stretch between
 * shifts, at most the run's SPAN of simulated time, the clock resolves SHORTEST, the shortest
 * mean time of the model (usage error naming WHAT, e.g. "mmc: --lambda/--mu", when it would
 * not). A model whose clock never rebases checks its SPAN with storq_check_time_resolution. */
int storq_clock_plan(storq_clock *clk, const char *what, double rebase_time,
                     uint64_t rebase_count, double lambda, double span, double shortest,
                     storq_error *err);

static inline int storq_clock_due(const storq_clock *clk, double t, uint64_t since)
{
    return t > clk->rebase_time && since >= clk->rebase_count;
}

/* A load at or beyond the point's capacity. Without --allow-unstable: a usage error whose message
 * is REASON (printf-style) followed by ". Lower KNOB or pass --allow-unstable", with
 * err->unstable set and err->reason_len the length of REASON (storq theory shows REASON alone).
 * With it: a warning "MODEL: REASON; queues grow without bound ..." and STORQ_OK. */
int storq_refuse_unstable(const storq_params *p, const char *model, const char *knob,
                          storq_error *err, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* The optional ops with their defaults, as the engine calls them: steps (the events a
 * replication counts for progress) default to warmup + arrivals when the model has those
 * parameters, else 0 (unknown); cost to steps (1 when unknown); the headline to the model's
 * headline_name. */
double storq_model_steps(const storq_model *m, const void *ctx, const storq_params *p);
double storq_model_cost(const storq_model *m, const void *ctx, const storq_params *p);
const char *storq_model_headline(const storq_model *m, const void *ctx);

#endif
