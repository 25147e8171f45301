#include "workqueue.h"

#include <stdlib.h>

struct storq_workqueue {
    MPI_Win win;
    int64_t *base;
};

int storq_workqueue_create(MPI_Comm comm, size_t ncounters, storq_workqueue **out, storq_error *err)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    storq_workqueue *wq = calloc(1, sizeof *wq);
    if (!wq)
        return STORQ_RUNTIME_FAIL(err, "out of memory");
    MPI_Aint bytes = rank == 0 ? (MPI_Aint)(ncounters * sizeof(int64_t)) : 0;
    if (MPI_Win_allocate(bytes, sizeof(int64_t), MPI_INFO_NULL, comm, &wq->base, &wq->win) !=
        MPI_SUCCESS) {
        free(wq);
        return STORQ_RUNTIME_FAIL(err, "MPI_Win_allocate failed for the work counters");
    }
    if (rank == 0) {
        /* Initialise under an exclusive lock so the memory model is respected. */
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, wq->win);
        for (size_t i = 0; i < ncounters; i++)
            wq->base[i] = 0;
        MPI_Win_unlock(0, wq->win);
    }
    MPI_Barrier(comm);
    MPI_Win_lock_all(MPI_MODE_NOCHECK, wq->win);
    *out = wq;
    return STORQ_OK;
}

/* One atomic operation on counter c, its old value returned; threads take turns (SERIALIZED). */
static int64_t fetch_and_op(storq_workqueue *wq, size_t c, int64_t value, MPI_Op op)
{
    int64_t got = 0;
#pragma omp critical(storq_mpi)
    {
        MPI_Fetch_and_op(&value, &got, MPI_INT64_T, 0, (MPI_Aint)c, op, wq->win);
        MPI_Win_flush(0, wq->win);
    }
    return got;
}

int64_t storq_workqueue_next(storq_workqueue *wq, size_t c)
{
    return fetch_and_op(wq, c, 1, MPI_SUM);
}

void storq_workqueue_drain(storq_workqueue *wq, size_t c, int64_t n)
{
    fetch_and_op(wq, c, n, MPI_SUM);
}

int64_t storq_workqueue_read(storq_workqueue *wq, size_t c)
{
    return fetch_and_op(wq, c, 0, MPI_NO_OP);
}

void storq_workqueue_set(storq_workqueue *wq, size_t c, int64_t value)
{
    fetch_and_op(wq, c, value, MPI_REPLACE);
}

void storq_workqueue_destroy(storq_workqueue **wq)
{
    if (!wq || !*wq)
        return;
    MPI_Win_unlock_all((*wq)->win);
    MPI_Win_free(&(*wq)->win);
    free(*wq);
    *wq = NULL;
}
