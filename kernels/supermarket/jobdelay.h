/* Mean-field job delay of batch sampling (docs/models/supermarket-theory.md, "Job delay"): a job
 * samples L queues, whose lengths in the limit are i.i.d. with P(Q >= i) = u_i, and sends a task to
 * each of the k shortest; each task waits behind the tasks before it (FIFO, exponential service of
 * rate mu), and the job is done when its slowest task is. Pure numerics. */
#ifndef STORQ_SUPERMARKET_JOBDELAY_H
#define STORQ_SUPERMARKET_JOBDELAY_H

#include <stddef.h>

/* P(job delay <= t) given the fixed point u[0..levels-1] (u[0] = 1, u beyond levels taken as 0). */
double storq_sm_job_delay_cdf(int L, int k, double mu, const double *u, size_t levels, double t);
/* Its mean, the integral of 1 - cdf (Gauss-Legendre panels until the tail is below 1e-15). */
double storq_sm_job_delay_mean(int L, int k, double mu, const double *u, size_t levels);

#endif
