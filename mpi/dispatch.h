/* Handing out work units across ranks with messages, so that no worker ever waits on rank 0's
 * simulation (docs/architecture.md, "Handing out work").
 *
 * Rank 0 holds the queue: a cursor over the run's units in hand-out order. Its own threads take
 * units straight from it; a thread of rank 0 of its own (the serving thread, started by the
 * program with storq_dispatch_serve) answers the other ranks' requests, and takes in their
 * results through a callback, whatever rank 0's worker threads are doing. Two-sided messages
 * only: a passive-target window on rank 0 advances over a network transport only when rank 0
 * enters MPI, and Open MPI's one-sided components fail on some transports.
 *
 * Other ranks keep a small buffer of units for their threads. A rank asks for a chunk when its
 * buffer runs dry: while plenty of work is left it asks ahead, as its last buffered unit starts,
 * so the answer arrives while it simulates; near the end it asks only when a thread is idle, so
 * no rank holds a unit another could run sooner. Chunks shrink with the work left (guided
 * self-scheduling by cost): about the rank's share of half the remaining cost, at least one unit.
 *
 * Units are named by their index in the list every rank builds alike, so which rank runs a unit
 * changes nothing in the results. A unit may belong to a group (a point's later batches under
 * --precision); once rank 0 closes the group its units are no longer handed out.
 *
 * Threads: storq_dispatch_next and storq_dispatch_stop may be called by any thread of a rank;
 * MPI calls are made under the critical section storq_mpi (MPI_THREAD_SERIALIZED). On rank 0 the
 * serving thread is the only caller of MPI while it runs. */
#ifndef STORQ_DISPATCH_H
#define STORQ_DISPATCH_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

#define STORQ_NO_GROUP ((size_t)-1)

typedef struct storq_dispatch storq_dispatch;

/* The most units one answer hands a rank: a rank holds at most one chunk and one answer in flight
 * besides its threads' units (what rank 0's memory budget counts of the points in progress). */
#define STORQ_DISPATCH_MAX_CHUNK 64

/* Collective over comm. nunits units, each with a cost > 0 (relative; sizes chunks) and a group
 * (or STORQ_NO_GROUP) among ngroups; threads: this rank's worker threads. cost and group are
 * copied. */
int storq_dispatch_create(MPI_Comm comm, size_t nunits, const double *cost, const size_t *group,
                          size_t ngroups, int threads, storq_dispatch **out, storq_error *err);

#define STORQ_DISPATCH_FAILED (-2) /* storq_dispatch_next: MPI failed asking rank 0 */

/* The next unit for the calling thread, or -1 when there is none left (or after a stop), or
 * STORQ_DISPATCH_FAILED.
 * *waited (may be NULL) gets the seconds the thread waited for rank 0's answer. */
int64_t storq_dispatch_next(storq_dispatch *d, double *waited);

/* This rank takes no more units; on rank 0 no rank gets any more, elsewhere rank 0 is told so
 * that it hands out no more to anyone. */
void storq_dispatch_stop(storq_dispatch *d);

/* Rank 0: the units of group g not handed out yet are skipped. */
void storq_dispatch_close_group(storq_dispatch *d, size_t g);

/* Rank 0's serving loop, run on a thread of its own while the rank's workers simulate: it
 * answers requests for units at once and, between them, calls take_results(arg), which takes in
 * other ranks' results without blocking and returns how many it handled (>= 0), or < 0 to end the
 * loop (every rank has sent its last message, or a failure). Naps between empty polls grow from
 * 20 us to 1 ms: no core is kept busy, and a request waits at most about a millisecond.
 * Returns the serving thread's CPU seconds. */
double storq_dispatch_serve(storq_dispatch *d, int (*take_results)(void *arg), void *arg);

/* Other ranks: make MPI progress on an outstanding request (from long replications, so a chunk
 * asked for ahead is in by the time the buffer is empty). */
void storq_dispatch_progress(storq_dispatch *d);

/* Completes what is in flight and frees. Other ranks call it before their last message to rank 0
 * (rank 0 answers every request until it has that message); rank 0 after its serving thread
 * ended. Accepts NULL and *d == NULL. */
void storq_dispatch_destroy(storq_dispatch **d);

#endif
