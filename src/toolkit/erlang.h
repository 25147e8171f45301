/* Erlang's formulas for c exponential servers fed by a Poisson stream: the probability that an
 * arrival waits in the M/M/c queue (Erlang C), for the mmc model's theory and for the pooled
 * queue that load-balancing models report beside their own theory. */
#ifndef STORQ_ERLANG_H
#define STORQ_ERLANG_H

#include <stdint.h>

/* Erlang C(c, a) at offered load a = lambda/mu < c erlangs, by Erlang B's recursion B(0) = 1,
 * B(k) = a B(k-1) / (k + a B(k-1)) and C = B / (1 - (a/c)(1 - B)): stable for any c, O(c). */
double storq_erlang_c(uint64_t c, double a);

/* The M/M/c mean sojourn time C(c, lambda/mu) / (c mu - lambda) + 1/mu (NaN at or beyond
 * capacity). */
double storq_mmc_mean_sojourn(uint64_t c, double lambda, double mu);

#endif
