/* Dynamic hand-out of work units across ranks: one shared counter per task list, advanced with
 * MPI_Fetch_and_op, so a rank that finishes early simply takes the next unit. Thread-safe: threads
 * of a rank take units through a critical section. */
#ifndef STORQ_WORKQUEUE_H
#define STORQ_WORKQUEUE_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

typedef struct storq_workqueue storq_workqueue;

/* Collective over comm: ncounters counters, all at 0, held by rank 0. */
int storq_workqueue_create(MPI_Comm comm, size_t ncounters, storq_workqueue **out, storq_error *err);
/* The next unit of counter c (0, 1, 2, ... across all ranks and threads). */
int64_t storq_workqueue_next(storq_workqueue *wq, size_t c);
/* Advance counter c by n at once: after a failure, so that every worker anywhere finds the
 * queue empty after its current unit. */
void storq_workqueue_drain(storq_workqueue *wq, size_t c, int64_t n);
/* The current value of counter c (a flag some other process may have set). */
int64_t storq_workqueue_read(storq_workqueue *wq, size_t c);
/* Set counter c to value (a rank's latest figure that rank 0 reads, e.g. its progress). */
void storq_workqueue_set(storq_workqueue *wq, size_t c, int64_t value);
/* Collective. Accepts NULL and *wq == NULL. */
void storq_workqueue_destroy(storq_workqueue **wq);

#endif
