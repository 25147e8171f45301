#include "transfer.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "wait.h"

#define TAG_RESULT 7101
#define HEADER_WORDS 11 /* kind, point, rep, four words per kind, thread, start, end, cpu */
#define TEXT_WORDS ((STORQ_NAME_MAX + 32 + 256 + STORQ_NAME_MAX) / 8) /* an array's strings */
#define DONE_WORDS (sizeof(((storq_error *)0)->msg) / 8)
/* Flow control: results are sent synchronously (MPI_Issend: complete once rank 0 has taken the
 * message in) and a rank has at most SENDS_UNTAKEN of them not yet taken, so when rank 0 falls
 * behind (many tiny units) its workers wait for it instead of piling results up in its memory
 * (Open MPI's unexpected-message queue); rank 0 takes in at most INBOX_MAX results ahead of those
 * it has handed over. Rank 0's backlog is then at most SENDS_UNTAKEN messages per rank plus
 * INBOX_MAX. Below rank 0's rate nothing waits: a result is taken within milliseconds. */
#define SENDS_UNTAKEN 8
#define INBOX_MAX 64

typedef struct pending {
    MPI_Request req;
    uint64_t *buf;
} pending;

struct storq_outbox {
    MPI_Comm comm;
    pending *p;
    size_t n, cap;
};

int storq_outbox_create(MPI_Comm comm, storq_outbox **out, storq_error *err)
{
    storq_outbox *o = calloc(1, sizeof *o);
    if (!o)
        return STORQ_RUNTIME_FAIL(err, "out of memory");
    o->comm = comm;
    *out = o;
    return STORQ_OK;
}

/* Free the buffers of completed sends (caller holds storq_mpi). */
static void reap(storq_outbox *o)
{
    size_t keep = 0;
    for (size_t i = 0; i < o->n; i++) {
        int done = 0;
        MPI_Test(&o->p[i].req, &done, MPI_STATUS_IGNORE);
        if (done)
            free(o->p[i].buf);
        else
            o->p[keep++] = o->p[i];
    }
    o->n = keep;
}

/* Flow control (caller holds storq_mpi): wait until the oldest send is taken in, and free it.
 * The oldest, since rank 0 takes a rank's messages in the order they were sent. */
static int wait_oldest(storq_outbox *o, storq_error *err)
{
    int rc = storq_mpi_wait(&o->p[0].req, MPI_STATUS_IGNORE) == MPI_SUCCESS
                 ? STORQ_OK
                 : STORQ_RUNTIME_FAIL(err, "MPI_Wait on a result send failed");
    free(o->p[0].buf);
    memmove(o->p, o->p + 1, (o->n - 1) * sizeof *o->p);
    o->n--;
    return rc;
}

/* Send buf (owned from now on) to rank 0. */
static int post(storq_outbox *o, uint64_t *buf, size_t nwords, storq_error *err)
{
    if (nwords > INT_MAX) {
        free(buf);
        return STORQ_RUNTIME_FAIL(err, "a result of %zu words is too large for one message",
                                  nwords);
    }
    int rc = STORQ_OK;
#pragma omp critical(storq_mpi)
    {
        reap(o);
        while (!rc && o->n >= SENDS_UNTAKEN)
            rc = wait_oldest(o, err);
        if (!rc && o->n == o->cap) {
            size_t cap = o->cap ? 2 * o->cap : 16;
            pending *grown = realloc(o->p, cap * sizeof *grown);
            if (grown) {
                o->p = grown;
                o->cap = cap;
            }
        }
        if (rc) {
            /* wait_oldest said why */
        } else if (o->n == o->cap) {
            rc = STORQ_RUNTIME_FAIL(err, "out of memory");
        } else if (MPI_Issend(buf, (int)nwords, MPI_UINT64_T, 0, TAG_RESULT, o->comm,
                              &o->p[o->n].req) != MPI_SUCCESS) {
            rc = STORQ_RUNTIME_FAIL(err, "MPI_Issend of a result failed");
        } else {
            o->p[o->n++].buf = buf;
            buf = NULL;
        }
    }
    free(buf);
    return rc;
}

static uint64_t *alloc_words(size_t n, storq_error *err)
{
    uint64_t *w = calloc(n ? n : 1, sizeof *w);
    if (!w)
        STORQ_RUNTIME_FAIL(err, "out of memory for a message of %zu words", n);
    return w;
}

static uint64_t bits(double x)
{
    uint64_t b;
    memcpy(&b, &x, sizeof b);
    return b;
}

/* A record's histogram counts are mostly zeros (a 5120-bin log-linear histogram of which a run
 * fills a few hundred bins), so they travel as segments {zeros before, length, counts...}: a
 * run of nonzero counts goes on through fewer than SPLIT_ZEROS zeros. At most ncounts + 2 words;
 * a supermarket record shrinks from 82 kB to a few kB, which also keeps it under the tcp
 * transport's eager limit, so its send completes without the sender's help. */
#define SPLIT_ZEROS 3

static size_t encode_counts(const uint64_t *c, size_t n, uint64_t *out)
{
    size_t i = 0, k = 0;
    for (;;) {
        size_t gap = 0;
        while (i + gap < n && c[i + gap] == 0)
            gap++;
        if (i + gap == n)
            return k;
        i += gap;
        size_t len = 0, zeros = 0;
        while (i + len + zeros < n && zeros < SPLIT_ZEROS) {
            if (c[i + len + zeros] == 0) {
                zeros++;
            } else {
                len += zeros + 1;
                zeros = 0;
            }
        }
        out[k++] = gap;
        out[k++] = len;
        memcpy(out + k, c + i, len * sizeof *c);
        k += len;
        i += len;
    }
}

static int decode_counts(const uint64_t *w, size_t nw, uint64_t *c, size_t n)
{
    size_t i = 0, k = 0;
    memset(c, 0, n * sizeof *c);
    while (k < nw) {
        if (nw - k < 2 || w[k] > n - i || w[k + 1] > n - i - w[k] || w[k + 1] > nw - k - 2)
            return -1;
        i += (size_t)w[k];
        size_t len = (size_t)w[k + 1];
        memcpy(c + i, w + k + 2, len * sizeof *c);
        i += len;
        k += 2 + len;
    }
    return 0;
}

int storq_send_record(storq_outbox *o, size_t point, size_t rep, const storq_record *rec,
                      const storq_unit_time *time, storq_error *err)
{
    const storq_observables *s = rec->schema;
    size_t most = HEADER_WORDS + s->nvalues + s->nminmax + s->ncounts + 2;
    uint64_t *w = alloc_words(most, err);
    if (!w)
        return STORQ_ERR_RUNTIME;
    uint64_t head[HEADER_WORDS] = {STORQ_MSG_RECORD, point, rep, rec->events, s->nvalues,
                                   s->ncounts, s->nminmax, (uint64_t)time->thread,
                                   bits(time->start), bits(time->end), bits(time->cpu)};
    memcpy(w, head, sizeof head);
    uint64_t *q = w + HEADER_WORDS;
    memcpy(q, rec->values, s->nvalues * sizeof *q);
    memcpy(q + s->nvalues, rec->minmax, s->nminmax * sizeof *q);
    size_t n = HEADER_WORDS + s->nvalues + s->nminmax +
               encode_counts(rec->counts, s->ncounts, q + s->nvalues + s->nminmax);
    return post(o, w, n, err);
}

int storq_send_theory(storq_outbox *o, size_t point, const storq_theory *t,
                      const storq_unit_time *time, storq_error *err)
{
    size_t n = HEADER_WORDS;
    for (size_t i = 0; i < t->n; i++)
        n += TEXT_WORDS + 1 + t->items[i].len;
    uint64_t *w = alloc_words(n, err);
    if (!w)
        return STORQ_ERR_RUNTIME;
    uint64_t head[HEADER_WORDS] = {STORQ_MSG_THEORY, point,           0,
                                   t->n,             0,               0,
                                   0,                (uint64_t)time->thread,
                                   bits(time->start), bits(time->end), bits(time->cpu)};
    memcpy(w, head, sizeof head);
    char *q = (char *)(w + HEADER_WORDS);
    for (size_t i = 0; i < t->n; i++) {
        const storq_array *a = &t->items[i];
        memcpy(q, a->name, sizeof a->name);
        memcpy(q + STORQ_NAME_MAX, a->unit, sizeof a->unit);
        memcpy(q + STORQ_NAME_MAX + 32, a->desc, sizeof a->desc);
        memcpy(q + STORQ_NAME_MAX + 32 + 256, a->grid, sizeof a->grid);
        q += TEXT_WORDS * 8;
        uint64_t len = a->len;
        memcpy(q, &len, 8);
        memcpy(q + 8, a->data, a->len * sizeof(double));
        q += 8 * (1 + a->len);
    }
    return post(o, w, n, err);
}

int storq_send_progress(storq_outbox *o, uint64_t steps, double work, storq_error *err)
{
    uint64_t *w = alloc_words(HEADER_WORDS, err);
    if (!w)
        return STORQ_ERR_RUNTIME;
    uint64_t head[HEADER_WORDS] = {STORQ_MSG_PROGRESS, 0, 0, steps, bits(work), 0, 0, 0, 0, 0, 0};
    memcpy(w, head, sizeof head);
    return post(o, w, HEADER_WORDS, err);
}

void storq_outbox_progress(storq_outbox *o)
{
    if (!o)
        return;
#pragma omp critical(storq_mpi)
    reap(o);
}

int storq_send_done(storq_outbox *o, const storq_error *status, storq_error *err)
{
    size_t n = HEADER_WORDS + DONE_WORDS;
    uint64_t *w = alloc_words(n, err);
    if (!w)
        return STORQ_ERR_RUNTIME;
    uint64_t head[HEADER_WORDS] = {STORQ_MSG_DONE, 0, 0, (uint64_t)status->code, 0, 0, 0, 0, 0, 0, 0};
    memcpy(w, head, sizeof head);
    memcpy(w + HEADER_WORDS, status->msg, sizeof status->msg);
    return post(o, w, n, err);
}

int storq_outbox_destroy(storq_outbox **o, storq_error *err)
{
    if (!o || !*o)
        return STORQ_OK;
    int rc = STORQ_OK;
    for (size_t i = 0; i < (*o)->n; i++) {
        int mpi_rc;
#pragma omp critical(storq_mpi)
        mpi_rc = storq_mpi_wait(&(*o)->p[i].req, MPI_STATUS_IGNORE); /* rank 0 may be busy */
        if (mpi_rc != MPI_SUCCESS && !rc)
            rc = STORQ_RUNTIME_FAIL(err, "MPI_Wait on a result send failed");
        free((*o)->p[i].buf);
    }
    free((*o)->p);
    free(*o);
    *o = NULL;
    return rc;
}

/* A receive started: its request, buffer and sender. */
typedef struct incoming {
    MPI_Request req;
    uint64_t *words;
    size_t nwords;
    int source;
} incoming;

struct storq_inbox {
    MPI_Comm comm;
    incoming *in; /* in the order the messages were matched: each sender's own order */
    size_t n, cap;
    unsigned char *seen; /* per rank, while complete_one scans: an older receive of it is ahead */
};

int storq_inbox_create(MPI_Comm comm, storq_inbox **out, storq_error *err)
{
    storq_inbox *in = calloc(1, sizeof *in);
    int size = 1;
    MPI_Comm_size(comm, &size);
    if (in)
        in->seen = calloc((size_t)size, 1);
    if (!in || !in->seen) {
        free(in);
        return STORQ_RUNTIME_FAIL(err, "out of memory");
    }
    in->comm = comm;
    *out = in;
    return STORQ_OK;
}

void storq_inbox_destroy(storq_inbox **in)
{
    if (!in || !*in)
        return;
    for (size_t i = 0; i < (*in)->n; i++) {
        /* a receive already matched cannot be cancelled: it completes once its sender moves */
        storq_mpi_wait(&(*in)->in[i].req, MPI_STATUS_IGNORE);
        free((*in)->in[i].words);
    }
    free((*in)->in);
    free((*in)->seen);
    free(*in);
    *in = NULL;
}

/* Caller holds storq_mpi: start a receive of every message that has arrived. */
static int start_receives(storq_inbox *in, storq_error *err)
{
    while (in->n < INBOX_MAX) {
        int flag = 0, count = 0;
        MPI_Message msg;
        MPI_Status st;
        if (MPI_Improbe(MPI_ANY_SOURCE, TAG_RESULT, in->comm, &flag, &msg, &st) != MPI_SUCCESS)
            return STORQ_RUNTIME_FAIL(err, "MPI_Improbe for results failed");
        if (!flag)
            return STORQ_OK;
        MPI_Get_count(&st, MPI_UINT64_T, &count);
        if (in->n == in->cap) {
            size_t cap = in->cap ? 2 * in->cap : 16;
            incoming *grown = realloc(in->in, cap * sizeof *grown);
            if (!grown)
                return STORQ_RUNTIME_FAIL(err, "out of memory");
            in->in = grown;
            in->cap = cap;
        }
        incoming *c = &in->in[in->n];
        c->words = alloc_words((size_t)count, err);
        if (!c->words)
            return STORQ_ERR_RUNTIME;
        c->nwords = (size_t)count;
        c->source = st.MPI_SOURCE;
        if (MPI_Imrecv(c->words, count, MPI_UINT64_T, &msg, &c->req) != MPI_SUCCESS) {
            free(c->words);
            return STORQ_RUNTIME_FAIL(err, "MPI_Imrecv of a result from rank %d failed",
                                      st.MPI_SOURCE);
        }
        in->n++;
    }
    return STORQ_OK;
}

/* Caller holds storq_mpi: the index of a complete receive that is its sender's oldest, or n.
 * One pass: a sender's first receive in the list is its oldest (with a thousand senders the
 * list can be long, so no pass over the list per entry). */
static size_t complete_one(storq_inbox *in)
{
    size_t found = in->n, i;
    for (i = 0; i < in->n && found == in->n; i++) {
        int src = in->in[i].source, done = 0;
        if (in->seen[src])
            continue;
        in->seen[src] = 1;
        if (MPI_Test(&in->in[i].req, &done, MPI_STATUS_IGNORE) == MPI_SUCCESS && done)
            found = i;
    }
    for (size_t j = 0; j < i; j++)
        in->seen[in->in[j].source] = 0;
    return found;
}

int storq_receive(storq_inbox *in, storq_message *m, storq_error *err)
{
    memset(m, 0, sizeof *m);
    int rc;
    size_t i = 0;
#pragma omp critical(storq_mpi)
    {
        rc = start_receives(in, err);
        if (!rc) {
            i = complete_one(in);
            if (i < in->n) {
                m->words = in->in[i].words;
                m->nwords = in->in[i].nwords;
                m->source = in->in[i].source;
                memmove(in->in + i, in->in + i + 1, (in->n - i - 1) * sizeof *in->in);
                in->n--;
            }
        }
    }
    if (rc)
        return -rc;
    if (!m->words)
        return 0;
    if (m->nwords < HEADER_WORDS)
        return -STORQ_RUNTIME_FAIL(err, "a result message from rank %d is truncated", m->source);
    m->kind = (storq_msg_kind)m->words[0];
    m->point = (size_t)m->words[1];
    m->rep = (size_t)m->words[2];
    m->time.thread = (int)m->words[7];
    memcpy(&m->time.start, &m->words[8], sizeof m->time.start);
    memcpy(&m->time.end, &m->words[9], sizeof m->time.end);
    memcpy(&m->time.cpu, &m->words[10], sizeof m->time.cpu);
    m->events = m->words[3];
    memcpy(&m->work, &m->words[4], sizeof m->work);
    if (m->kind == STORQ_MSG_DONE) {
        if (m->nwords != HEADER_WORDS + DONE_WORDS)
            return -STORQ_RUNTIME_FAIL(err, "a DONE message from rank %d is malformed", m->source);
        m->status.code = (int)m->words[3];
        memcpy(m->status.msg, m->words + HEADER_WORDS, sizeof m->status.msg);
        m->status.msg[sizeof m->status.msg - 1] = '\0';
    }
    return 1;
}

int storq_message_record(const storq_message *m, storq_record *rec, storq_error *err)
{
    const storq_observables *s = rec->schema;
    const uint64_t *w = m->words;
    size_t fixed = HEADER_WORDS + s->nvalues + s->nminmax;
    const uint64_t *q = w + HEADER_WORDS;
    if (m->kind != STORQ_MSG_RECORD || w[4] != s->nvalues || w[5] != s->ncounts ||
        w[6] != s->nminmax || m->nwords < fixed ||
        decode_counts(q + s->nvalues + s->nminmax, m->nwords - fixed, rec->counts, s->ncounts))
        return STORQ_RUNTIME_FAIL(err, "a record of point %zu from rank %d does not match the "
                                  "point's observables", m->point, m->source);
    rec->events = w[3];
    memcpy(rec->values, q, s->nvalues * sizeof *q);
    memcpy(rec->minmax, q + s->nvalues, s->nminmax * sizeof *q);
    return STORQ_OK;
}

int storq_message_theory(const storq_message *m, storq_theory *t, storq_error *err)
{
    size_t n = (size_t)m->words[3], at = HEADER_WORDS;
    for (size_t i = 0; i < n; i++) {
        if (at + TEXT_WORDS + 1 > m->nwords)
            return STORQ_RUNTIME_FAIL(err, "a theory message of point %zu is truncated", m->point);
        const char *q = (const char *)(m->words + at);
        char name[STORQ_NAME_MAX], unit[32], desc[256], grid[STORQ_NAME_MAX];
        memcpy(name, q, sizeof name);
        memcpy(unit, q + STORQ_NAME_MAX, sizeof unit);
        memcpy(desc, q + STORQ_NAME_MAX + 32, sizeof desc);
        memcpy(grid, q + STORQ_NAME_MAX + 32 + 256, sizeof grid);
        name[sizeof name - 1] = unit[sizeof unit - 1] = desc[sizeof desc - 1] =
            grid[sizeof grid - 1] = '\0';
        size_t len = (size_t)m->words[at + TEXT_WORDS];
        at += TEXT_WORDS + 1;
        if (len > m->nwords - at)
            return STORQ_RUNTIME_FAIL(err, "a theory message of point %zu is truncated", m->point);
        double *data = malloc((len ? len : 1) * sizeof *data);
        if (!data)
            return STORQ_RUNTIME_FAIL(err, "out of memory");
        memcpy(data, m->words + at, len * sizeof *data);
        int rc = storq_theory_add(t, name, unit, desc, grid, data, len, err);
        free(data);
        STORQ_TRY(rc);
        at += len;
    }
    return STORQ_OK;
}

void storq_message_free(storq_message *m)
{
    free(m->words);
    m->words = NULL;
}
