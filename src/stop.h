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

/* For a kernel's event loop: nonzero on every STORQ_STOP_EVERY-th event once a stop was asked. */
static inline int storq_stop_due(uint64_t events)
{
    return (events & (STORQ_STOP_EVERY - 1)) == 0 && storq_stop_signal() != 0;
}

/* The status a replication returns when it gives up: STORQ_STOPPED, with the signal named. */
int storq_stopped(storq_error *err);

#endif
