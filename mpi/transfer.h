/* Moving a work unit's result to rank 0 without a collective, so no rank waits for another: a
 * replication's record or a point's theory arrays are packed into 64-bit words and sent with
 * MPI_Issend (the worker goes on at once, unless too many of its results are not yet taken in:
 * flow control, transfer.c); rank 0's serving thread takes them in with
 * non-blocking receives (MPI_Improbe, MPI_Imrecv), so a large result whose sender is busy
 * simulating never holds it up, and hands them over in each sender's order. Each rank ends with
 * one DONE message carrying its status, sent after all its results, and MPI's non-overtaking
 * order per sender (one tag) guarantees rank 0 has everything once it has it.
 *
 * Threads: under MPI_THREAD_SERIALIZED every call here takes the critical section storq_mpi (the
 * one the work queue takes too). */
#ifndef STORQ_TRANSFER_H
#define STORQ_TRANSFER_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "observables.h"
#include "theory.h"

typedef enum storq_msg_kind {
    STORQ_MSG_RECORD = 1, /* one replication of one point */
    STORQ_MSG_THEORY = 2, /* a point's theory arrays */
    STORQ_MSG_DONE = 3,   /* the sender has no more results; its status and message */
    STORQ_MSG_PROGRESS = 4 /* the sender's steps and work so far, for rank 0's progress line */
} storq_msg_kind;

/* Where and when a unit ran: the thread, its start and end in seconds on the rank's clock since
 * the run's work began, and the CPU seconds its thread spent on it. */
typedef struct storq_unit_time {
    int thread;
    double start, end, cpu;
} storq_unit_time;

/* A rank's sends in flight. */
typedef struct storq_outbox storq_outbox;

int storq_outbox_create(MPI_Comm comm, storq_outbox **out, storq_error *err);
int storq_send_record(storq_outbox *o, size_t point, size_t rep, const storq_record *rec,
                      const storq_unit_time *time, storq_error *err);
int storq_send_theory(storq_outbox *o, size_t point, const storq_theory *t,
                      const storq_unit_time *time, storq_error *err);
/* The sender's progress: steps simulated and work done (cost units) so far. */
int storq_send_progress(storq_outbox *o, uint64_t steps, double work, storq_error *err);
/* Let MPI move the sends in flight along (a large result over tcp moves only while its sender is
 * in MPI), and free those that are done: from inside long replications. */
void storq_outbox_progress(storq_outbox *o);
/* The last message of a rank: its status code and, when it failed, the message. */
int storq_send_done(storq_outbox *o, const storq_error *status, storq_error *err);
/* Wait for every send to complete, then free the box. Accepts NULL and *o == NULL. */
int storq_outbox_destroy(storq_outbox **o, storq_error *err);

/* One message received by rank 0. */
typedef struct storq_message {
    storq_msg_kind kind;
    int source;
    size_t point, rep;
    storq_unit_time time; /* RECORD, THEORY: where and when the unit ran */
    uint64_t events;      /* RECORD: the replication's events; PROGRESS: the steps */
    double work;          /* PROGRESS: the work done, cost units */
    uint64_t *words; /* owned; the packed body */
    size_t nwords;
    storq_error status; /* DONE: the sender's status */
} storq_message;

/* Rank 0's receives in flight. */
typedef struct storq_inbox storq_inbox;
int storq_inbox_create(MPI_Comm comm, storq_inbox **out, storq_error *err);
/* Cancels what is still in flight (after a failure) and frees. Accepts NULL and *in == NULL. */
void storq_inbox_destroy(storq_inbox **in);

/* Start receiving every message that has arrived, and hand over one that is complete and the
 * oldest of its sender's: 1 with *m filled, 0 when none, < 0 on failure (err). Never blocks. */
int storq_receive(storq_inbox *in, storq_message *m, storq_error *err);
/* Unpack a RECORD into rec (initialised with the point's schema; sizes are checked). */
int storq_message_record(const storq_message *m, storq_record *rec, storq_error *err);
/* Unpack a THEORY into t (empty on entry). */
int storq_message_theory(const storq_message *m, storq_theory *t, storq_error *err);
void storq_message_free(storq_message *m);

#endif
