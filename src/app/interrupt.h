/* Graceful stop: SIGTERM, SIGINT, SIGUSR1 (Slurm's warning before a time limit) ask the run to
 * stop: replications in flight give up within a fraction of a second (src/stop.h), the results
 * file keeps every finished point, and --resume completes the run. */
#ifndef STORQ_INTERRUPT_H
#define STORQ_INTERRUPT_H

void storq_interrupt_install(void);
/* The signal number that asked to stop, or 0. */
int storq_interrupted(void);

#endif
