/* Graceful stop: SIGTERM, SIGINT, SIGUSR1 (Slurm's warning before a time limit) ask the run to stop
 * at the next replication boundary, so the results file is closed cleanly and --resume works. */
#ifndef STORQ_INTERRUPT_H
#define STORQ_INTERRUPT_H

void storq_interrupt_install(void);
/* The signal number that asked to stop, or 0. */
int storq_interrupted(void);

#endif
