/* Erlang's formulas: see erlang.h. */
#include "erlang.h"

#include <math.h>

double storq_erlang_c(uint64_t c, double a)
{
    double b = 1;
    for (uint64_t k = 1; k <= c; k++)
        b = a * b / ((double)k + a * b);
    return b / (1 - a / (double)c * (1 - b));
}

double storq_mmc_mean_sojourn(uint64_t c, double lambda, double mu)
{
    const double gap = (double)c * mu - lambda;
    if (!(gap > 0))
        return NAN;
    return storq_erlang_c(c, lambda / mu) / gap + 1 / mu;
}
