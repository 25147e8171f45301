/* The replication driver: runs every point of a run spec across MPI ranks and OpenMP threads and
 * writes each finished point to the results file. */
#ifndef STORQ_DRIVER_H
#define STORQ_DRIVER_H

#include <mpi.h>

#include "error.h"
#include "run_spec.h"

/* Collective over comm. On failure every rank returns the same status; the message is on the
 * rank that saw the failure (rank 0 whenever it did). */
int storq_driver_run(const storq_run_spec *spec, MPI_Comm comm, storq_error *err);

#endif
