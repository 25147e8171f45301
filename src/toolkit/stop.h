/* A request to stop the run (SIGTERM, SIGINT, SIGUSR1), visible to the kernels: a replication
 * looks at it every STORQ_STOP_EVERY events and gives up with STORQ_STOPPED, so a stop takes
 * effect within a fraction of a second whatever the length of a replication. The replications
 * given up are rerun by --resume. */
#ifndef STORQ_STOP_H
#define STORQ_STOP_H

#include <stdint.h>

#include "error.h"

#define STORQ_STOP_EVERY 4096 /* events between two looks; a power of 2 */

/* Async-signal-safe: called from a signal handler. */
void storq_stop_request(int signal);
/* The signal that asked to stop, or 0. */
int storq_stop_signal(void);

/* A function the program wants called every so often from inside long replications (rank 0 of a
 * multi-rank run takes in the other ranks' results with it, so they reach the partial file
 * within seconds even while rank 0's own replications are long). Called at most every
 * interval_seconds per thread; it must be thread-safe. NULL removes it. */
typedef void (*storq_poll_fn)(void *arg);
void storq_poll_install(storq_poll_fn fn, void *arg, double interval_seconds);

/* Called by storq_stop_due every STORQ_STOP_EVERY steps with the kernel's count: it adds the
 * steps to the counts below, runs the poll function if it is due and returns the stop signal, or
 * STORQ_STOP_DEADLINE past the thread's time limit (0: go on). */
int storq_tick(uint64_t events);

/* For a kernel's event loop (events: its step count, 0 at the replication's start): nonzero on
 * every STORQ_STOP_EVERY-th event once a stop was asked (and, on those events, the steps are
 * counted for progress and the poll function runs when due). */
static inline int storq_stop_due(uint64_t events)
{
    return (events & (STORQ_STOP_EVERY - 1)) == 0 && storq_tick(events) != 0;
}

/* Progress within replications, as the kernels' steps reach storq_tick (so up to
 * STORQ_STOP_EVERY - 1 steps behind per replication). storq_steps_begin: the calling thread
 * starts a replication. storq_steps_current: the steps of the calling thread's replication so
 * far. storq_steps_total: the steps of every thread of the process so far. */
void storq_steps_begin(void);
uint64_t storq_steps_current(void);
uint64_t storq_steps_total(void);

/* A time limit for the calling thread's replications, for a calibration that runs only the start
 * of one (`storq run --dry-run --workers`, src/app/plan_calibrate.c): from seconds from now on,
 * storq_tick returns STORQ_STOP_DEADLINE, so the replication gives up as on a stop request while
 * storq_stop_signal() stays 0. seconds <= 0 removes the limit. */
#define STORQ_STOP_DEADLINE (-1)
void storq_stop_deadline(double seconds);

/* The status a replication returns when it gives up: STORQ_STOPPED, with the signal named. */
int storq_stopped(storq_error *err);

#endif
