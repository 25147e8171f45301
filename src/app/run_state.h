/* The driver's state, shared by its two halves: src/app/driver.c (preparing, handing out and
 * running units on every rank) and src/app/collect.c (rank 0 taking results in, deciding and
 * finishing points, checkpoints). */
#ifndef STORQ_RUN_STATE_H
#define STORQ_RUN_STATE_H

#include <mpi.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "dispatch.h"
#include "h5_units.h"
#include "h5_writer.h"
#include "observables.h"
#include "progress.h"
#include "run_spec.h"
#include "schedule.h"
#include "stats.h"
#include "theory.h"
#include "transfer.h"

/* A replication that came in before rank 0 decided its point needs its batch. */
typedef struct pending {
    size_t rep;
    storq_record rec;
    double seconds;
} pending;

/* What rank 0 gathers of a point until it is complete. */
typedef struct point_state {
    storq_point_result res; /* allocated with the point's first replication */
    int have_res;
    unsigned char *rep_in;  /* per replication: in (allocated with res) */
    size_t reps_in;
    size_t prefix;          /* replications 0 .. prefix-1 are all in (rep_in[prefix] is not) */
    storq_running target_run; /* --precision: the target over replications 0 .. prefix-1 */
    int dirty;              /* replications in since the last checkpoint */
    size_t window;          /* replications 0 .. window-1 count (the batches decided so far) */
    int closed;             /* no more replications needed: the point's count is window */
    int finished;           /* written: anything more that comes in is a spare, dropped */
    int met;                /* --precision: the target was met */
    double achieved;        /* --precision: CI half-width / |mean| at the last decision */
    struct pending *pending; /* replications of later batches, in before their batch was decided */
    size_t npending, cappending;
    int checkpointed;       /* a checkpoint of the point is in the file */
    storq_theory theory;
    int theory_in;
    double seconds; /* worker-seconds spent on the point's units */
} point_state;

typedef struct run_state {
    const storq_run_spec *spec;
    MPI_Comm comm;
    int rank, nranks;
    void **ctx;               /* prepared context per point */
    storq_observables *obs;   /* the observables of every point of the task */
    size_t max_reps;          /* replications a point may take: -r, or --max-replications */
    const storq_obs_def **target; /* --precision: per point, the targeted scalar (in obs[p]) */
    double *cost;             /* relative cost of one replication, per point */
    unsigned char *done;      /* not to run: complete already (--resume), or another task's */
    storq_unit *units;        /* the run's work, in hand-out order */
    size_t nunits;
    storq_dispatch *dispatch; /* the hand-out of units (mpi/dispatch.h) */
    storq_outbox *outbox;     /* ranks other than 0: results on their way to rank 0 */
    storq_inbox *inbox;       /* rank 0 of a run of several ranks: results coming in */
    pthread_mutex_t collect_lock; /* rank 0: taking results in (the storq_collect_* below) */
    pthread_t server;         /* rank 0 of several ranks: the serving thread */
    int serving;              /* it runs */
    int serve_inline;         /* it could not start: rank 0 serves instead of simulating */
    double serving_cpu;       /* its CPU seconds, once it has ended */
    storq_h5_file *file;      /* rank 0 only */
    point_state *points;      /* rank 0 only */
    storq_progress progress;  /* rank 0's line */
    int progress_on;          /* every rank: count and publish work for rank 0's line */
    double *steps;            /* per point: the steps a replication takes (model->steps), or 0 */
    double work;              /* this rank's work done, cost units (replications in flight too) */
    uint64_t *rank_steps;     /* rank 0: each other rank's latest progress message */
    double *rank_work;
    double simulating;        /* this rank's threads: CPU seconds inside units */
    double in_units;          /* wall seconds inside units */
    double waiting;           /* seconds waiting for a unit to be handed out */
    double poll_every;        /* seconds between two calls of the poll function per thread */
    double last_publish;      /* ranks other than 0: when they last set their slots */
    size_t ranks_done;        /* rank 0: DONE messages received */
    double checkpoint_every;  /* rank 0: seconds between checkpoints of unfinished points */
    double checkpoint_gap;    /* rank 0: the interval, or 20 times the last checkpoint's time */
    double last_checkpoint;
    size_t reps_resumed;      /* replications taken from checkpoints by --resume */
    double t0;                /* when the work began (every rank, just after a collective) */
    int workers;              /* ranks x threads, all ranks together */
    storq_units_record *record; /* rank 0: /run/units, written as units come in */
    size_t nrows;             /* rank 0: units recorded */
    int stop;                 /* set when this rank stops taking units (failure or signal) */
    storq_error status;       /* this rank's first failure (rank 0: the run's) */
} run_state;

static inline int storq_in_task(const storq_run_spec *spec, size_t p)
{
    return p % spec->task_count == spec->task_index;
}

/* Rank 0 (src/app/collect.c). The storq_collect_* functions that take results in hold
 * collect_lock: any thread may call them, rank 0's workers for their own units and its serving
 * thread for the others'. */
int storq_collect_record(run_state *st, size_t p, size_t r, const storq_record *rec, int rank,
                         const storq_unit_time *time, storq_error *err);
/* Ownership of t's arrays passes. */
int storq_collect_theory(run_state *st, size_t p, storq_theory *t, int rank,
                         const storq_unit_time *time, storq_error *err);
/* Take in up to max messages that other ranks have sent, without blocking: the number handled,
 * or minus a status when receiving failed. A message that cannot be used fails the run
 * (storq_run_fail) and the rest are still taken in, so that every rank can finish. */
int storq_collect_messages(run_state *st, int max, storq_error *err);
/* This rank stops taking units and, through rank 0, so does every other; the first failure is
 * the rank's status. */
void storq_run_fail(run_state *st, const storq_error *e);
/* Caller holds collect_lock: checkpoint the unfinished points that took in replications since
 * their last checkpoint, when the interval has passed (or now_anyway). */
int storq_collect_checkpoints(run_state *st, int now_anyway, storq_error *err);
/* --resume: take in the replications the checkpoints hold (before the units are planned). */
int storq_collect_resume(run_state *st, storq_error *err);
void storq_collect_free_pending(point_state *ps);

#endif
