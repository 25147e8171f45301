/* The memory budget of a run, set before any point is prepared: --memory-limit, else
 * STORQ_MEMORY_LIMIT, else the memory this node has available (the smaller of MemAvailable and the
 * cgroup's room, which is what Slurm's --mem grants); the node's budget is shared by its ranks and
 * a rank's by its threads, each running one replication at a time. */
#ifndef STORQ_MEMORY_BUDGET_H
#define STORQ_MEMORY_BUDGET_H

#include <mpi.h>

#include "error.h"

/* Every rank of comm calls it; they agree on the smallest rank budget. limit_text is
 * --memory-limit's value or NULL. A malformed limit is a usage error. */
int storq_memory_budget_setup(MPI_Comm comm, const char *limit_text, storq_error *err);

/* The same for one process with one replication in flight (`storq theory`). */
int storq_memory_budget_local(const char *limit_text, storq_error *err);

#endif
