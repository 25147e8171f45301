/* Combine a point's results from every rank onto rank 0: counts and per-replication rows add
 * (each row was filled by exactly one rank, the others hold zeros), min and max combine. Integer
 * sums and single-contributor rows make the result independent of the rank count. */
#ifndef STORQ_REDUCE_H
#define STORQ_REDUCE_H

#include <mpi.h>

#include "error.h"
#include "observables.h"

int storq_reduce_point(storq_point_result *res, MPI_Comm comm, storq_error *err);

/* The largest status code over all ranks (collective). */
int storq_reduce_status(int code, MPI_Comm comm);

#endif
