#include "dispatch.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "wait.h"

#define TAG_REQUEST 7102 /* another rank to rank 0: {kind, threads} */
#define TAG_REPLY 7103   /* rank 0 to a rank: {answer, count, units...} */
#define MAX_CHUNK STORQ_DISPATCH_MAX_CHUNK
#define FIRST_NAP_NS 20000L
#define LONGEST_NAP_NS 1000000L

enum ask_kind { ASK_IDLE = 1, ASK_AHEAD = 2, ASK_STOP = 3 };
enum answer_kind { GOT_UNITS = 1, GOT_LATER = 2, GOT_NONE = 3 };

struct storq_dispatch {
    MPI_Comm comm;
    int rank, nranks;
    size_t nunits, ngroups;
    double *cost;
    size_t *group;
    pthread_mutex_t lock; /* everything below */
    int stopped;
    /* rank 0: the queue */
    size_t cursor;          /* the next unit not handed out */
    double remaining;       /* the cost of the units from the cursor on */
    unsigned char *closed;  /* per group */
    int workers;            /* threads of every rank */
    int64_t *replies;       /* per rank, 2 + MAX_CHUNK words: the answer in flight */
    MPI_Request *reply_req; /* per rank */
    /* other ranks: the buffer and the request in flight */
    int threads;
    int64_t buf[MAX_CHUNK];
    size_t head, count;
    int asked, exhausted;
    int failed; /* an MPI call failed: this rank gets no more units */
    int64_t ask[2], stop_msg[2], answer[2 + MAX_CHUNK];
    MPI_Request ask_req, answer_req, stop_req;
};

static void nap(long *ns)
{
    *ns = *ns == 0 ? FIRST_NAP_NS : *ns * 2 < LONGEST_NAP_NS ? *ns * 2 : LONGEST_NAP_NS;
    struct timespec t = {0, *ns};
    nanosleep(&t, NULL);
}

static double seconds(clockid_t clock)
{
    struct timespec t;
    clock_gettime(clock, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int storq_dispatch_create(MPI_Comm comm, size_t nunits, const double *cost, const size_t *group,
                          size_t ngroups, int threads, storq_dispatch **out, storq_error *err)
{
    storq_dispatch *d = calloc(1, sizeof *d);
    int ok = d != NULL;
    if (d) {
        d->comm = comm;
        MPI_Comm_rank(comm, &d->rank);
        MPI_Comm_size(comm, &d->nranks);
        d->nunits = nunits;
        d->ngroups = ngroups;
        d->threads = threads;
        d->cost = malloc((nunits ? nunits : 1) * sizeof *d->cost);
        d->group = malloc((nunits ? nunits : 1) * sizeof *d->group);
        d->closed = calloc(ngroups ? ngroups : 1, 1);
        ok = d->cost && d->group && d->closed;
        if (ok && d->rank == 0) {
            d->replies = calloc((size_t)d->nranks * (2 + MAX_CHUNK), sizeof *d->replies);
            d->reply_req = malloc((size_t)d->nranks * sizeof *d->reply_req);
            ok = d->replies && d->reply_req;
            for (int r = 0; ok && r < d->nranks; r++)
                d->reply_req[r] = MPI_REQUEST_NULL;
        }
        d->ask_req = d->answer_req = d->stop_req = MPI_REQUEST_NULL;
        pthread_mutex_init(&d->lock, NULL);
    }
    if (ok) {
        memcpy(d->cost, cost, nunits * sizeof *cost);
        memcpy(d->group, group, nunits * sizeof *group);
        for (size_t u = 0; u < nunits; u++)
            d->remaining += cost[u];
    }
    /* every rank takes part in the sum whatever its own state, so none is left waiting */
    int local[2] = {ok ? threads : 0, ok ? 0 : 1}, sum[2];
    int mpi_rc = MPI_Allreduce(local, sum, 2, MPI_INT, MPI_SUM, comm);
    if (ok && mpi_rc == MPI_SUCCESS && sum[1] == 0) {
        d->workers = sum[0];
        *out = d;
        return STORQ_OK;
    }
    storq_dispatch_destroy(&d);
    if (mpi_rc != MPI_SUCCESS)
        return STORQ_RUNTIME_FAIL(err, "MPI_Allreduce failed while setting up the work hand-out");
    return STORQ_RUNTIME_FAIL(err, "out of memory for the hand-out of %zu work units", nunits);
}

/* Rank 0, holding the lock: up to max units whose cost adds up to about target (at least one),
 * skipping those of closed groups. */
static size_t take(storq_dispatch *d, double target, size_t max, int64_t *out)
{
    size_t n = 0;
    double sum = 0;
    while (!d->stopped && d->cursor < d->nunits && n < max) {
        size_t u = d->cursor;
        if (d->group[u] != STORQ_NO_GROUP && d->closed[d->group[u]]) {
            d->remaining -= d->cost[u];
            d->cursor++;
            continue;
        }
        if (n > 0 && sum + d->cost[u] > target)
            break;
        sum += d->cost[u];
        d->remaining -= d->cost[u];
        out[n++] = (int64_t)u;
        d->cursor++;
    }
    if (d->remaining < 0 || d->cursor == d->nunits)
        d->remaining = 0;
    return n;
}

/* Rank 0, serving thread: answer one request of rank r. */
static void answer(storq_dispatch *d, int r, const int64_t *ask)
{
    pthread_mutex_lock(&d->lock);
    if (ask[0] == ASK_STOP) {
        d->stopped = 1;
        pthread_mutex_unlock(&d->lock);
        return;
    }
    int64_t *reply = d->replies + (size_t)r * (2 + MAX_CHUNK);
    /* the previous answer to r: r has it, since it asked again */
#pragma omp critical(storq_mpi)
    storq_mpi_wait(&d->reply_req[r], MPI_STATUS_IGNORE);
    size_t left = d->nunits - d->cursor, n = 0;
    if (ask[0] == ASK_AHEAD && !d->stopped && left > 0 && left < (size_t)d->workers) {
        reply[0] = GOT_LATER; /* near the end a unit goes to a thread that is free now */
    } else {
        double share = ask[1] > 0 ? (double)ask[1] / (2.0 * d->workers) : 0.5;
        n = take(d, d->remaining * share, MAX_CHUNK, reply + 2);
        reply[0] = n ? GOT_UNITS : GOT_NONE;
    }
    reply[1] = (int64_t)n;
    pthread_mutex_unlock(&d->lock);
#pragma omp critical(storq_mpi)
    MPI_Isend(reply, (int)(2 + n), MPI_INT64_T, r, TAG_REPLY, d->comm, &d->reply_req[r]);
}

/* Rank 0: receive and answer every request waiting; how many. */
static int answer_requests(storq_dispatch *d)
{
    int handled = 0;
    for (;;) {
        int flag = 0;
        MPI_Status s;
        int64_t ask[2] = {0, 0};
#pragma omp critical(storq_mpi)
        {
            MPI_Iprobe(MPI_ANY_SOURCE, TAG_REQUEST, d->comm, &flag, &s);
            if (flag)
                MPI_Recv(ask, 2, MPI_INT64_T, s.MPI_SOURCE, TAG_REQUEST, d->comm,
                         MPI_STATUS_IGNORE);
        }
        if (!flag)
            return handled;
        answer(d, s.MPI_SOURCE, ask);
        handled++;
    }
}

double storq_dispatch_serve(storq_dispatch *d, int (*take_results)(void *arg), void *arg)
{
    long ns = 0;
    for (;;) {
        int busy = answer_requests(d);
        int got = take_results(arg);
        if (got < 0)
            break;
        if (busy || got) {
            ns = 0;
            continue;
        }
        nap(&ns);
    }
    /* a rank that stopped may have said so after its last result: nothing is left unread */
    answer_requests(d);
    return seconds(CLOCK_THREAD_CPUTIME_ID);
}

/* Other ranks, holding the lock: ask rank 0 for units. */
static void post(storq_dispatch *d, int kind)
{
    d->ask[0] = kind;
    d->ask[1] = d->threads;
    int ok;
#pragma omp critical(storq_mpi)
    {
        ok = storq_mpi_wait(&d->ask_req, MPI_STATUS_IGNORE) == MPI_SUCCESS && /* long gone */
             MPI_Irecv(d->answer, 2 + MAX_CHUNK, MPI_INT64_T, 0, TAG_REPLY, d->comm,
                       &d->answer_req) == MPI_SUCCESS &&
             MPI_Isend(d->ask, 2, MPI_INT64_T, 0, TAG_REQUEST, d->comm, &d->ask_req) ==
                 MPI_SUCCESS;
    }
    d->asked = ok;
    d->failed |= !ok;
    d->exhausted |= !ok;
}

/* Other ranks, holding the lock: 1 when the answer to the request in flight is in (and used). */
static int answered(storq_dispatch *d)
{
    int done = 0;
#pragma omp critical(storq_mpi)
    if (MPI_Test(&d->answer_req, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS)
        done = -1;
    if (!done)
        return 0;
    d->asked = 0;
    if (done < 0 || d->answer[0] == GOT_NONE) {
        d->exhausted = 1;
        d->failed |= done < 0;
    } else if (d->answer[0] == GOT_UNITS && !d->stopped) {
        size_t n = (size_t)d->answer[1] <= MAX_CHUNK ? (size_t)d->answer[1] : MAX_CHUNK;
        memcpy(d->buf, d->answer + 2, n * sizeof *d->buf);
        d->head = 0;
        d->count = n;
    }
    return 1;
}

static int64_t next_local(storq_dispatch *d)
{
    int64_t u = -1;
    pthread_mutex_lock(&d->lock);
    size_t n = take(d, 0.0, 1, &u);
    pthread_mutex_unlock(&d->lock);
    return n ? u : -1;
}

int64_t storq_dispatch_next(storq_dispatch *d, double *waited)
{
    if (waited)
        *waited = 0;
    if (d->rank == 0)
        return next_local(d);
    double since = -1;
    long ns = 0;
    int64_t u = -1;
    pthread_mutex_lock(&d->lock);
    for (;;) {
        if (d->stopped)
            break;
        if (d->count) {
            u = d->buf[d->head++];
            d->count--;
            if (d->count == 0 && !d->asked && !d->exhausted)
                post(d, ASK_AHEAD); /* the answer comes while this unit runs */
            break;
        }
        if (d->exhausted)
            break;
        if (!d->asked)
            post(d, ASK_IDLE);
        if (answered(d))
            continue;
        if (since < 0)
            since = seconds(CLOCK_MONOTONIC);
        pthread_mutex_unlock(&d->lock);
        nap(&ns);
        pthread_mutex_lock(&d->lock);
    }
    if (u < 0 && d->failed)
        u = STORQ_DISPATCH_FAILED;
    pthread_mutex_unlock(&d->lock);
    if (waited && since >= 0)
        *waited = seconds(CLOCK_MONOTONIC) - since;
    return u;
}

void storq_dispatch_progress(storq_dispatch *d)
{
    if (!d || d->rank == 0 || pthread_mutex_trylock(&d->lock) != 0)
        return; /* a thread that holds the lock is making progress itself */
    if (d->asked)
        answered(d);
    pthread_mutex_unlock(&d->lock);
}

void storq_dispatch_stop(storq_dispatch *d)
{
    if (!d)
        return;
    pthread_mutex_lock(&d->lock);
    int tell = d->rank != 0 && !d->stopped;
    d->stopped = 1;
    d->count = 0;
    if (tell) {
        d->stop_msg[0] = ASK_STOP;
        d->stop_msg[1] = d->threads;
#pragma omp critical(storq_mpi)
        MPI_Isend(d->stop_msg, 2, MPI_INT64_T, 0, TAG_REQUEST, d->comm, &d->stop_req);
    }
    pthread_mutex_unlock(&d->lock);
}

void storq_dispatch_close_group(storq_dispatch *d, size_t g)
{
    if (!d || g >= d->ngroups)
        return;
    pthread_mutex_lock(&d->lock);
    d->closed[g] = 1;
    pthread_mutex_unlock(&d->lock);
}

void storq_dispatch_destroy(storq_dispatch **dp)
{
    if (!dp || !*dp)
        return;
    storq_dispatch *d = *dp;
    pthread_mutex_lock(&d->lock);
    /* rank 0 answers every request before it stops serving: wait for the answer in flight */
    long ns = 0;
    while (d->asked && !answered(d))
        nap(&ns);
#pragma omp critical(storq_mpi)
    {
        storq_mpi_wait(&d->ask_req, MPI_STATUS_IGNORE);
        storq_mpi_wait(&d->stop_req, MPI_STATUS_IGNORE);
        for (int r = 0; d->reply_req && r < d->nranks; r++)
            storq_mpi_wait(&d->reply_req[r], MPI_STATUS_IGNORE);
    }
    pthread_mutex_unlock(&d->lock);
    pthread_mutex_destroy(&d->lock);
    free(d->cost);
    free(d->group);
    free(d->closed);
    free(d->replies);
    free(d->reply_req);
    free(d);
    *dp = NULL;
}
