/* Graceful stop: SIGTERM, SIGINT, SIGUSR1 (Slurm's warning before a time limit) ask the run to
 * stop: replications in flight give up within a fraction of a second (src/toolkit/stop.h), the results
 * file keeps every finished point, and --resume completes the run. SIGPIPE is ignored: a run or
 * merge whose standard output's reader went away finishes its file all the same. */
#ifndef STORQ_INTERRUPT_H
#define STORQ_INTERRUPT_H

void storq_interrupt_install(void);
/* The signal number that asked to stop, or 0. */
int storq_interrupted(void);

/* For work that cannot look at the stop flag often (a merge verifying a large input inside
 * io/h5_check.c): a thread waits for a stop request, gives the work `grace` seconds to return on
 * its own, then calls cleanup(arg) (which removes what is not to be kept and says so; only
 * unlink and write: the main thread is still inside HDF5) and ends the process with status 3.
 * 0, or -1 when no thread could be started (the stop is then only as quick as the work). */
int storq_interrupt_watchdog(double grace, void (*cleanup)(void *), void *arg);
/* The work returned: the watchdog ends without doing anything. */
void storq_interrupt_watchdog_end(void);

#endif
