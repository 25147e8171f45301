/* The hand-out and the result transfer (mpi/dispatch.c, mpi/transfer.c), run under mpirun on
 * several ranks the way the driver uses them: rank 0 serves from a thread of its own while its
 * main thread takes units too.
 *  1. Every unit is handed out exactly once, to some rank; the units of a group closed before the
 *     start never are; chunks are at most 64 units.
 *  2. Records cross with their histogram counts encoded (zero runs skipped): every pattern comes
 *     back equal (all zeros, all nonzero, isolated and long zero runs, zeros at both ends, random
 *     sparse), in each sender's order, with a progress message and DONE last.
 *  3. A stop on one rank (a failure) ends the hand-out for every rank: far fewer units run. */
#include <mpi.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "dispatch.h"
#include "observables.h"
#include "transfer.h"

#define NUNITS 3000
#define NGROUPS 10
#define CLOSED 3
#define RECORDS 40 /* per sending rank */

typedef struct server {
    storq_dispatch *d;
    storq_inbox *in;
    int nranks, done;
    int next_rec[64]; /* per sender: the record expected next */
    const storq_observables *obs;
    int bad;
} server;

/* The counts of pattern i from rank r: deterministic, so rank 0 can rebuild them. */
static void pattern(int r, int i, uint64_t *c, size_t n)
{
    uint64_t x = 0x9E3779B97F4A7C15ull * (uint64_t)(r * 1000 + i + 1);
    for (size_t k = 0; k < n; k++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        switch (i % 6) {
        case 0: c[k] = 0; break;                                        /* all zeros */
        case 1: c[k] = 1 + k; break;                                    /* none zero */
        case 2: c[k] = k % 2 ? 0 : x % 5 + 1; break;                    /* isolated zeros */
        case 3: c[k] = k < 10 || k >= n - 10 ? 0 : x % 3; break;        /* zero ends, runs */
        case 4: c[k] = x % 97 == 0 ? x % 1000 + 1 : 0; break;           /* sparse */
        default: c[k] = k > n / 3 && k < n / 2 ? x % 1000000 : 0; break; /* one block */
        }
    }
}

static int take_results(void *arg)
{
    server *s = arg;
    int handled = 0;
    storq_message m;
    storq_error err = {0};
    int got;
    while ((got = storq_receive(s->in, &m, &err)) == 1) {
        handled++;
        if (m.kind == STORQ_MSG_DONE) {
            s->done++;
        } else if (m.kind == STORQ_MSG_RECORD) {
            storq_record rec, want;
            storq_record_init(&rec, s->obs, &err);
            storq_record_init(&want, s->obs, &err);
            int i = (int)m.rep;
            pattern(m.source, i, want.counts, s->obs->ncounts);
            if (storq_message_record(&m, &rec, &err) != STORQ_OK ||
                memcmp(rec.counts, want.counts, s->obs->ncounts * sizeof *rec.counts) != 0 ||
                rec.values[0] != (double)i || i != s->next_rec[m.source] ||
                m.time.cpu != 0.25 * i)
                s->bad++;
            s->next_rec[m.source] = i + 1;
            storq_record_free(&rec);
            storq_record_free(&want);
        } else if (m.kind == STORQ_MSG_PROGRESS) {
            if (m.events != 7 || m.work != 1.5 || s->next_rec[m.source] != RECORDS)
                s->bad++;
        }
        storq_message_free(&m);
    }
    if (got < 0)
        s->bad++;
    return got < 0 || s->done == s->nranks - 1 ? -1 : handled;
}

static void *serve(void *arg)
{
    server *s = arg;
    storq_dispatch_serve(s->d, take_results, s);
    return NULL;
}

/* One phase: every rank takes units until none are left (rank 0 while serving); with stop_after
 * > 0, rank 1 stops after that many. Returns the units this rank ran, marked in got[]. */
static int phase(MPI_Comm comm, int rank, int nranks, int stop_after, unsigned char *got,
                 const storq_observables *obs)
{
    double cost[NUNITS];
    size_t group[NUNITS];
    for (size_t u = 0; u < NUNITS; u++) {
        cost[u] = 1.0 + (double)(u % 7); /* unequal costs size unequal chunks */
        group[u] = u >= NUNITS / 2 ? u % NGROUPS : STORQ_NO_GROUP;
    }
    storq_dispatch *d = NULL;
    storq_error err = {0};
    CHECK(storq_dispatch_create(comm, NUNITS, cost, group, NGROUPS, 1, &d, &err) == STORQ_OK);
    server s = {.d = d, .nranks = nranks, .obs = obs};
    pthread_t thread;
    storq_outbox *out = NULL;
    if (rank == 0) {
        storq_dispatch_close_group(d, CLOSED);
        CHECK(storq_inbox_create(comm, &s.in, &err) == STORQ_OK);
        CHECK(pthread_create(&thread, NULL, serve, &s) == 0);
    } else {
        CHECK(storq_outbox_create(comm, &out, &err) == STORQ_OK);
    }
    int mine = 0;
    int64_t u;
    while ((u = storq_dispatch_next(d, NULL)) >= 0) {
        CHECK(u < NUNITS);
        if (u < NUNITS)
            got[u]++;
        struct timespec work = {0, stop_after ? 200000 : 20000}; /* a unit takes a moment */
        nanosleep(&work, NULL);
        if (++mine == stop_after && rank == 1)
            storq_dispatch_stop(d);
    }
    if (rank != 0) {
        storq_dispatch_destroy(&d);
        storq_record rec;
        storq_record_init(&rec, obs, &err);
        for (int i = 0; i < RECORDS && !stop_after; i++) {
            pattern(rank, i, rec.counts, obs->ncounts);
            rec.values[0] = i;
            storq_unit_time t = {0, 0.0, 1.0, 0.25 * i};
            CHECK(storq_send_record(out, 0, (size_t)i, &rec, &t, &err) == STORQ_OK);
        }
        storq_record_free(&rec);
        if (!stop_after)
            CHECK(storq_send_progress(out, 7, 1.5, &err) == STORQ_OK);
        storq_error ok = {0};
        CHECK(storq_send_done(out, &ok, &err) == STORQ_OK);
        CHECK(storq_outbox_destroy(&out, &err) == STORQ_OK);
    } else {
        pthread_join(thread, NULL);
        CHECK(s.bad == 0);
        for (int r = 1; r < nranks && !stop_after; r++)
            CHECK(s.next_rec[r] == RECORDS);
        storq_inbox_destroy(&s.in);
        storq_dispatch_destroy(&d);
    }
    return mine;
}

int main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    int provided, rank, nranks;
    MPI_Init_thread(NULL, NULL, MPI_THREAD_SERIALIZED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    CHECK(nranks >= 2 && nranks <= 64);
    storq_observables obs = {0};
    storq_error err = {0};
    int id;
    CHECK(storq_declare_scalar(&obs, &id, "x", "", "", &err) == STORQ_OK);
    CHECK(storq_declare_hist_loglin(&obs, &id, "h", "", "", 1e-3, 1e3, 5, &err) == STORQ_OK);

    /* 1 and 2 */
    unsigned char got[NUNITS] = {0}, all[NUNITS];
    int mine = phase(MPI_COMM_WORLD, rank, nranks, 0, got, &obs);
    MPI_Reduce(got, all, NUNITS, MPI_UNSIGNED_CHAR, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        size_t once = 0, closed_run = 0, twice = 0;
        for (size_t u = 0; u < NUNITS; u++) {
            int closed = u >= NUNITS / 2 && u % NGROUPS == CLOSED;
            closed_run += closed && all[u];
            once += !closed && all[u] == 1;
            twice += all[u] > 1;
        }
        CHECK_EQ_U64(once, NUNITS - NUNITS / 2 / NGROUPS);
        CHECK_EQ_U64(closed_run, 0);
        CHECK_EQ_U64(twice, 0);
    }
    printf("rank %d ran %d units\n", rank, mine);

    /* 3: rank 1 stops after 5 units */
    memset(got, 0, sizeof got);
    mine = phase(MPI_COMM_WORLD, rank, nranks, 5, got, &obs);
    int total = 0;
    MPI_Reduce(&mine, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("after a stop on rank 1: %d units ran in all\n", total);
        CHECK(total < NUNITS / 2);
    }
    storq_observables_free(&obs);
    int failures = check_failures_, any = 0;
    MPI_Allreduce(&failures, &any, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    return any ? 1 : 0;
}
