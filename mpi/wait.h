/* Waiting for an MPI request without burning a core. Open MPI's MPI_Wait and blocking collectives
 * poll in a loop until the request completes, so a rank that has run out of units and waits for
 * rank 0 (the run's last collective, a send rank 0 has not received yet) keeps a core at 100%:
 * on a node shared with other ranks or jobs that core is taken from real work. */
#ifndef STORQ_WAIT_H
#define STORQ_WAIT_H

#include <mpi.h>

/* MPI_Wait, but after a short spin (a request about to complete costs no sleep) it tests the
 * request between naps that double from 50 us up to 10 ms: an idle rank takes a fraction of a
 * percent of a core, and learns of completion at most 10 ms late. Returns MPI_Test's code. */
int storq_mpi_wait(MPI_Request *req, MPI_Status *status);

#endif
