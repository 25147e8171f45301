#include "reduce.h"

#include <stdlib.h>

#include "wait.h"

/* MPI_Reduce in place on rank 0, in chunks small enough for an int count. */
static int reduce_chunks(void *buf, size_t n, MPI_Datatype type, size_t size, MPI_Op op,
                         MPI_Comm comm)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    const size_t chunk = (size_t)1 << 28;
    for (size_t off = 0; off < n; off += chunk) {
        int count = (int)(n - off < chunk ? n - off : chunk);
        char *p = (char *)buf + off * size;
        int rc = rank == 0 ? MPI_Reduce(MPI_IN_PLACE, p, count, type, op, 0, comm)
                           : MPI_Reduce(p, NULL, count, type, op, 0, comm);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

int storq_reduce_point(storq_point_result *res, MPI_Comm comm, storq_error *err)
{
    const storq_observables *s = res->schema;
    size_t nmin = s->nminmax / 2;
    double *mins = malloc((nmin + 1) * sizeof *mins);
    double *maxs = malloc((nmin + 1) * sizeof *maxs);
    if (!mins || !maxs) {
        free(mins);
        free(maxs);
        return STORQ_RUNTIME_FAIL(err, "out of memory");
    }
    for (size_t i = 0; i < nmin; i++) {
        mins[i] = res->minmax[2 * i];
        maxs[i] = res->minmax[2 * i + 1];
    }
    int rc = reduce_chunks(res->values, res->replications * s->nvalues, MPI_DOUBLE, sizeof(double),
                           MPI_SUM, comm);
    if (rc == MPI_SUCCESS)
        rc = reduce_chunks(res->counts, s->ncounts, MPI_UINT64_T, sizeof(uint64_t), MPI_SUM, comm);
    if (rc == MPI_SUCCESS)
        rc = reduce_chunks(mins, nmin, MPI_DOUBLE, sizeof(double), MPI_MIN, comm);
    if (rc == MPI_SUCCESS)
        rc = reduce_chunks(maxs, nmin, MPI_DOUBLE, sizeof(double), MPI_MAX, comm);
    if (rc == MPI_SUCCESS)
        rc = reduce_chunks(&res->events, 1, MPI_UINT64_T, sizeof(uint64_t), MPI_SUM, comm);
    for (size_t i = 0; i < nmin; i++) {
        res->minmax[2 * i] = mins[i];
        res->minmax[2 * i + 1] = maxs[i];
    }
    free(mins);
    free(maxs);
    if (rc != MPI_SUCCESS)
        return STORQ_RUNTIME_FAIL(err, "MPI_Reduce of a point's results failed");
    return STORQ_OK;
}

int storq_reduce_status(int code, MPI_Comm comm)
{
    /* non-blocking, and waited for with naps: the ranks that finished their units wait here for
     * rank 0's last one (storq_mpi_wait) */
    int worst = code;
    MPI_Request req;
    MPI_Iallreduce(MPI_IN_PLACE, &worst, 1, MPI_INT, MPI_MAX, comm, &req);
    storq_mpi_wait(&req, MPI_STATUS_IGNORE);
    return worst;
}
