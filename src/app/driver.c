#include "driver.h"

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "h5_checkpoint.h"
#include "h5_units.h"
#include "h5_writer.h"
#include "interrupt.h"
#include "progress.h"
#include "reduce.h"
#include "report.h"
#include "schedule.h"
#include "stop.h"
#include "transfer.h"
#include "workqueue.h"

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
    size_t *target;           /* --precision: per point, the offset of the targeted scalar */
    double *cost;             /* relative cost of one replication, per point */
    unsigned char *done;      /* not to run: complete already (--resume), or another task's */
    storq_unit *units;        /* the run's work, in hand-out order */
    size_t nunits;
    storq_workqueue *wq;
    storq_outbox *outbox;     /* ranks other than 0: results on their way to rank 0 */
    storq_h5_file *file;      /* rank 0 only */
    point_state *points;      /* rank 0 only */
    storq_progress progress;
    size_t ranks_done;        /* rank 0: DONE messages received */
    double checkpoint_every;  /* rank 0: seconds between checkpoints of unfinished points */
    double last_checkpoint;
    size_t reps_resumed;      /* replications taken from checkpoints by --resume */
    double t0;                /* when the work began (every rank, just after a collective) */
    int workers;              /* ranks x threads, all ranks together */
    storq_unit_row *rows;     /* rank 0: every unit that ran, for /run/units */
    size_t nrows, caprows;
    int stop;                 /* set when this rank stops taking units (failure or signal) */
    storq_error status;       /* this rank's first failure (rank 0: the run's) */
} run_state;

static double rep_cost(const storq_model *m, const void *ctx)
{
    double c = m->cost ? m->cost(ctx) : 1.0;
    return c > 0 ? c : 1.0;
}

static int in_task(const storq_run_spec *spec, size_t p)
{
    return p % spec->task_count == spec->task_index;
}

/* Validate every point before anything runs, so a bad value deep in a sweep fails at once (in
 * every task of a job array alike). Another task's contexts are released at once. */
/* The point's observables against the memory budget, before anything runs: one record per
 * replication in flight, and the point's table of every replication's values. */
static int declare_point(const storq_run_spec *spec, size_t p, void *ctx,
                         storq_observables *out, storq_error *err)
{
    storq_observables obs = {0};
    int rc = spec->model->declare(ctx, &obs, err);
    if (rc) {
        storq_observables_free(&obs);
        return rc;
    }
    const storq_obs_def *big = NULL;
    for (size_t i = 0; i < obs.ndefs; i++)
        if (!big || obs.defs[i].length > big->length)
            big = &obs.defs[i];
    char what[256];
    snprintf(what, sizeof what, "point %zu: its observables (the largest, '%s', has %zu values)",
             p, big ? big->name : "", big ? big->length : 0);
    rc = storq_memory_check(obs.bytes, what, "per replication in flight", err);
    if (!rc) {
        size_t reps = spec->precision ? spec->max_replications : spec->replications;
        snprintf(what, sizeof what, "point %zu: %zu replications (%s) of %zu values", p, reps,
                 spec->precision ? "--max-replications" : "-r", obs.nvalues);
        rc = storq_memory_check(storq_bytes_mul(reps,
                                                storq_bytes_mul(obs.nvalues, sizeof(double))),
                                what, "for the point's table of replications", err);
    }
    if (rc)
        storq_observables_free(&obs);
    else
        *out = obs;
    return rc;
}

/* --precision: the scalar it targets at point p (named, or the model's headline). */
static int find_target(run_state *st, size_t p, storq_error *err)
{
    const storq_run_spec *spec = st->spec;
    const char *name = spec->precision_obs;
    if (!name && spec->model->headline)
        name = spec->model->headline(st->ctx[p]);
    if (!name)
        return storq_fail(err, STORQ_ERR_USAGE, "--precision: point %zu of model '%s' has no "
                          "headline observable; name a scalar one: --precision %g:NAME", p,
                          spec->model->name, spec->precision);
    const storq_obs_def *d = storq_obs_find(&st->obs[p], name);
    if (!d || d->kind != STORQ_OBS_SCALAR)
        return storq_fail(err, STORQ_ERR_USAGE, "--precision: '%s' is not a scalar observable "
                          "of point %zu (see its observables with `storq info` on a short run)",
                          name, p);
    st->target[p] = d->value_offset;
    return STORQ_OK;
}

static int prepare_points(run_state *st, storq_error *err)
{
    const storq_run_spec *spec = st->spec;
    size_t n = spec->npoints;
    st->ctx = calloc(n, sizeof *st->ctx);
    st->obs = calloc(n, sizeof *st->obs);
    st->cost = calloc(n, sizeof *st->cost);
    st->done = calloc(n, 1);
    st->target = calloc(n ? n : 1, sizeof *st->target);
    if (!st->ctx || !st->obs || !st->cost || !st->done || !st->target)
        return STORQ_RUNTIME_FAIL(err, "out of memory");
    for (size_t p = 0; p < n; p++) {
        /* Warnings (e.g. --allow-unstable) once per distinct point, from rank 0 only. */
        STORQ_TRY(spec->model->prepare(&spec->points[p], &st->ctx[p], err));
        if (!in_task(spec, p)) {
            spec->model->release(st->ctx[p]);
            st->ctx[p] = NULL;
            continue;
        }
        STORQ_TRY(declare_point(spec, p, st->ctx[p], &st->obs[p], err));
        st->cost[p] = rep_cost(spec->model, st->ctx[p]);
        if (spec->precision)
            STORQ_TRY(find_target(st, p, err));
    }
    return STORQ_OK;
}

static int open_output(run_state *st, storq_error *err)
{
    const storq_run_spec *spec = st->spec;
    storq_run_meta meta = {spec->command_line, spec->config_text, spec->seed, spec->replications,
                           st->nranks, omp_get_max_threads(), spec->task_index, spec->task_count};
    if (st->rank != 0)
        return STORQ_OK;
    if (spec->task_index >= spec->npoints)
        storq_warn("--task %zu/%zu: the run has %zu points, so this task has none; it writes a "
                   "file without points, for `storq merge`", spec->task_index, spec->task_count,
                   spec->npoints);
    if (spec->resume)
        return storq_h5_resume(spec->output, &meta, spec->model, spec->npoints, st->done, &st->file,
                               err);
    return storq_h5_create(spec->output, &meta, spec->model, spec->points, spec->npoints, &st->file,
                           err);
}

/* Rank 0: summary, theory and comparison of a complete point; write it; print its table. */
static void free_pending(point_state *ps)
{
    for (size_t i = 0; i < ps->npending; i++)
        storq_record_free(&ps->pending[i].rec);
    free(ps->pending);
    ps->pending = NULL;
    ps->npending = ps->cappending = 0;
}

static int finish_point(run_state *st, size_t p, storq_error *err)
{
    const storq_run_spec *spec = st->spec;
    const storq_model *model = spec->model;
    point_state *ps = &st->points[p];
    ps->res.replications = ps->window; /* the replications the point took */
    ps->finished = 1;
    storq_summary sum;
    storq_theory cmp = {0};
    int rc = storq_summary_compute(&sum, &ps->res, err);
    if (!rc && model->compare)
        rc = model->compare(st->ctx[p], &sum, &ps->theory, &cmp, err);
    storq_point_precision prec = {
        .target = spec->precision, .max_replications = spec->max_replications, .met = ps->met,
        .achieved = ps->achieved,
        .observable = ""};
    for (size_t i = 0; spec->precision && i < st->obs[p].ndefs; i++)
        if (st->obs[p].defs[i].kind == STORQ_OBS_SCALAR &&
            st->obs[p].defs[i].value_offset == st->target[p])
            prec.observable = st->obs[p].defs[i].name;
    if (!rc)
        rc = storq_h5_write_point(st->file, p, &spec->points[p], &ps->res, &sum, &ps->theory, &cmp,
                                  ps->seconds, spec->precision ? &prec : NULL, err);
    if (!rc && ps->checkpointed)
        rc = storq_h5_drop_checkpoint(st->file, p, err);
    ps->checkpointed = ps->dirty = 0;
    if (!rc && !spec->quiet)
        storq_report_point(stdout, p, &spec->points[p], &sum, &ps->theory, &cmp);
    storq_progress_point_done(&st->progress, st->cost[p] * (double)spec->replications);
    storq_theory_free(&cmp);
    storq_summary_free(&sum);
    storq_point_result_free(&ps->res);
    free(ps->rep_in);
    ps->rep_in = NULL;
    ps->have_res = 0;
    free_pending(ps);
    storq_theory_free(&ps->theory);
    return rc;
}

static int point_state_init(run_state *st, size_t p, storq_error *err)
{
    point_state *ps = &st->points[p];
    STORQ_TRY(storq_point_result_init(&ps->res, &st->obs[p], st->max_reps, err));
    ps->rep_in = calloc(st->max_reps, 1);
    ps->window = st->spec->replications;
    if (!ps->rep_in) {
        storq_point_result_free(&ps->res);
        return STORQ_RUNTIME_FAIL(err, "out of memory");
    }
    ps->have_res = 1;
    return STORQ_OK;
}

/* Rank 0, holding storq_collect: checkpoint every unfinished point that took in replications
 * since its last checkpoint, when the interval has passed (or always, at the end of a run). */
static int write_checkpoints(run_state *st, int now_anyway, storq_error *err)
{
    double now = storq_now();
    if (!now_anyway && now - st->last_checkpoint < st->checkpoint_every)
        return STORQ_OK;
    st->last_checkpoint = now;
    for (size_t p = 0; p < st->spec->npoints; p++) {
        point_state *ps = &st->points[p];
        if (!ps->dirty || !ps->have_res)
            continue;
        STORQ_TRY(storq_h5_write_checkpoint(st->file, p, &ps->res, ps->rep_in, ps->seconds, err));
        ps->dirty = 0;
        ps->checkpointed = 1;
    }
    return STORQ_OK;
}

static int point_complete(const run_state *st, size_t p)
{
    const point_state *ps = &st->points[p];
    return ps->theory_in && ps->closed;
}

static void merge(run_state *st, size_t p, size_t r, const storq_record *rec, double seconds)
{
    point_state *ps = &st->points[p];
    storq_point_result_add(&ps->res, r, rec);
    ps->rep_in[r] = 1;
    ps->reps_in++;
    ps->dirty = 1;
    ps->seconds += seconds;
}

/* Keep a copy of a replication of a batch not decided yet. */
static int hold(point_state *ps, size_t r, const storq_record *rec, double seconds,
                storq_error *err)
{
    if (ps->npending == ps->cappending) {
        size_t cap = ps->cappending ? 2 * ps->cappending : 8;
        pending *grown = realloc(ps->pending, cap * sizeof *grown);
        if (!grown)
            return STORQ_RUNTIME_FAIL(err, "out of memory");
        ps->pending = grown;
        ps->cappending = cap;
    }
    pending *h = &ps->pending[ps->npending];
    STORQ_TRY(storq_record_init(&h->rec, rec->schema, err));
    const storq_observables *s = rec->schema;
    memcpy(h->rec.values, rec->values, s->nvalues * sizeof *rec->values);
    memcpy(h->rec.counts, rec->counts, s->ncounts * sizeof *rec->counts);
    memcpy(h->rec.minmax, rec->minmax, s->nminmax * sizeof *rec->minmax);
    h->rec.events = rec->events;
    h->rep = r;
    h->seconds = seconds;
    ps->npending++;
    return STORQ_OK;
}

/* The precision decision, in replication order at batch boundaries: once replications
 * 0 .. window-1 are all in, the point closes when it needs no more (no target; the target met;
 * --max-replications reached) or takes the next batch (held replications of it merge). Every
 * input is a replication's values, so the decision, hence the file, is the same whatever ran
 * where and when. A closed point's flag in the work queue tells every worker to skip its
 * remaining units. */
static int decide(run_state *st, size_t p, storq_error *err)
{
    const storq_run_spec *spec = st->spec;
    point_state *ps = &st->points[p];
    while (!ps->closed) {
        for (size_t r = 0; r < ps->window; r++)
            if (!ps->rep_in[r])
                return STORQ_OK;
        if (spec->precision) {
            size_t full = ps->res.replications;
            ps->res.replications = ps->window;
            storq_summary sum;
            int rc = storq_summary_compute(&sum, &ps->res, err);
            ps->res.replications = full;
            STORQ_TRY(rc);
            double mean = sum.mean[st->target[p]], half = sum.ci95[st->target[p]];
            storq_summary_free(&sum);
            ps->achieved = half / fabs(mean);
            ps->met = ps->achieved <= spec->precision;
        }
        if (!spec->precision || ps->met || ps->window >= st->max_reps) {
            ps->closed = 1;
            if (st->wq)
                storq_workqueue_drain(st->wq, 1 + p, 1);
            break;
        }
        ps->window = ps->window + spec->replications < st->max_reps
                         ? ps->window + spec->replications
                         : st->max_reps;
        for (size_t i = 0; i < ps->npending;) {
            pending *h = &ps->pending[i];
            if (h->rep >= ps->window) {
                i++;
                continue;
            }
            merge(st, p, h->rep, &h->rec, h->seconds);
            storq_record_free(&h->rec);
            *h = ps->pending[--ps->npending];
        }
    }
    return STORQ_OK;
}

/* Rank 0, holding storq_collect: remember where and when a unit ran. */
static int add_row(run_state *st, size_t p, int64_t rep, int rank, const storq_unit_time *time,
                   uint64_t events, storq_error *err)
{
    if (st->nrows == st->caprows) {
        size_t cap = st->caprows ? 2 * st->caprows : 256;
        storq_unit_row *grown = realloc(st->rows, cap * sizeof *grown);
        if (!grown)
            return STORQ_RUNTIME_FAIL(err, "out of memory");
        st->rows = grown;
        st->caprows = cap;
    }
    st->rows[st->nrows++] = (storq_unit_row){
        .point = p, .rep = rep, .rank = rank, .thread = time->thread, .start = time->start,
        .end = time->end, .events = events, .cost = rep < 0 ? 0.0 : st->cost[p]};
    return STORQ_OK;
}

/* Rank 0 takes in one replication's record (its own or a received one). */
static int deliver_record(run_state *st, size_t p, size_t r, const storq_record *rec, int rank,
                          const storq_unit_time *time, storq_error *err)
{
    int rc = STORQ_OK;
#pragma omp critical(storq_collect)
    {
        point_state *ps = &st->points[p];
        if (!ps->have_res && !ps->finished)
            rc = point_state_init(st, p, err);
        if (!rc)
            rc = add_row(st, p, (int64_t)r, rank, time, rec->events, err);
        double seconds = time->end - time->start;
        if (rc || ps->finished || ps->closed) {
            /* a spare: its point needed no more */
        } else if (ps->rep_in[r]) {
            rc = STORQ_RUNTIME_FAIL(err, "replication %zu of point %zu came in twice", r, p);
        } else if (r >= ps->window) {
            rc = hold(ps, r, rec, seconds, err);
        } else {
            merge(st, p, r, rec, seconds);
            storq_progress_replication(&st->progress, p, ps->reps_in, st->spec->replications,
                                       st->cost[p] * (double)st->spec->replications,
                                       rec->events);
            rc = decide(st, p, err);
            if (!rc && point_complete(st, p))
                rc = finish_point(st, p, err);
            if (!rc)
                rc = write_checkpoints(st, 0, err);
        }
    }
    return rc;
}

/* Rank 0 takes in a point's theory (ownership of its arrays passes). */
static int deliver_theory(run_state *st, size_t p, storq_theory *t, int rank,
                          const storq_unit_time *time, storq_error *err)
{
    int rc = STORQ_OK;
#pragma omp critical(storq_collect)
    {
        point_state *ps = &st->points[p];
        ps->theory = *t;
        memset(t, 0, sizeof *t);
        ps->theory_in = 1;
        ps->seconds += time->end - time->start;
        rc = add_row(st, p, STORQ_UNIT_REP_THEORY, rank, time, 0, err);
        if (!rc && point_complete(st, p))
            rc = finish_point(st, p, err);
    }
    return rc;
}

/* Rank 0: take in whatever other ranks have sent. st->ranks_done counts their DONE messages; the
 * first failure any of them reports becomes the run's status. Returns the number handled. */
static int collect(run_state *st, storq_error *err)
{
    int handled = 0;
    for (;;) {
        storq_message m;
        int got = storq_receive(st->comm, &m, err);
        if (got <= 0)
            return got < 0 ? got : handled;
        int rc = STORQ_OK;
        if (m.kind == STORQ_MSG_RECORD && m.point < st->spec->npoints && st->ctx[m.point] &&
            m.rep < st->max_reps) {
            storq_record rec;
            rc = storq_record_init(&rec, &st->obs[m.point], err);
            if (!rc)
                rc = storq_message_record(&m, &rec, err);
            if (!rc)
                rc = deliver_record(st, m.point, m.rep, &rec, m.source, &m.time, err);
            storq_record_free(&rec);
        } else if (m.kind == STORQ_MSG_THEORY && m.point < st->spec->npoints) {
            storq_theory t = {0};
            rc = storq_message_theory(&m, &t, err);
            if (!rc)
                rc = deliver_theory(st, m.point, &t, m.source, &m.time, err);
            storq_theory_free(&t);
        } else if (m.kind == STORQ_MSG_DONE) {
#pragma omp critical(storq_collect)
            {
                st->ranks_done++;
                if (m.status.code && !st->status.code)
                    st->status = m.status;
            }
        } else {
            rc = STORQ_RUNTIME_FAIL(err, "an unexpected message from rank %d", m.source);
        }
        storq_message_free(&m);
        if (rc)
            return -rc;
        handled++;
    }
}

/* One unit: a replication (its record) or a point's theory, delivered to rank 0. */
static int run_unit(run_state *st, const storq_unit *u, storq_error *err)
{
    const storq_run_spec *spec = st->spec;
    const storq_model *model = spec->model;
    size_t p = u->point;
    storq_unit_time time = {.thread = omp_get_thread_num(), .start = storq_now() - st->t0};
    int rc;
    if (u->rep == STORQ_UNIT_THEORY) {
        storq_theory t = {0};
        rc = model->theory(st->ctx[p], &t, err);
        time.end = storq_now() - st->t0;
        if (!rc)
            rc = st->rank == 0 ? deliver_theory(st, p, &t, 0, &time, err)
                               : storq_send_theory(st->outbox, p, &t, &time, err);
        storq_theory_free(&t);
        return rc;
    }
    storq_record rec;
    rc = storq_record_init(&rec, &st->obs[p], err);
    if (rc)
        return rc;
    storq_stream_key key = {spec->seed, p, (uint64_t)u->rep};
    rc = model->replicate(st->ctx[p], &key, &rec, err);
    time.end = storq_now() - st->t0;
    if (!rc)
        rc = st->rank == 0 ? deliver_record(st, p, (size_t)u->rep, &rec, 0, &time, err)
                           : storq_send_record(st->outbox, p, (size_t)u->rep, &rec, &time, err);
    storq_record_free(&rec);
    return rc;
}

/* This rank stops taking units and, through the shared counter, so does every other. */
static void fail(run_state *st, const storq_error *e)
{
#pragma omp critical(storq_collect)
    {
        if (!st->status.code)
            st->status = *e;
        st->stop = 1;
    }
    storq_workqueue_drain(st->wq, 0, (int64_t)st->nunits + 1);
}

/* Rank 0, from inside its own long replications (src/stop.h): take in the other ranks' results. */
static void poll_results(void *arg)
{
    run_state *st = arg;
    storq_error e = {0};
    if (collect(st, &e) < 0)
        fail(st, &e);
}

/* Every thread of every rank takes units from the one queue until it is empty; rank 0's threads
 * also take in the other ranks' results between their own units, and every second from inside
 * them. */
static void work(run_state *st)
{
#pragma omp parallel
    {
        storq_error terr = {0};
        for (;;) {
            int stop;
#pragma omp atomic read
            stop = st->stop;
            if (stop)
                break;
            if (st->rank == 0 && collect(st, &terr) < 0) {
                fail(st, &terr);
                break;
            }
            if (storq_interrupted()) {
                storq_stopped(&terr);
                fail(st, &terr);
                break;
            }
            int64_t u = storq_workqueue_next(st->wq, 0);
            if (u < 0 || (size_t)u >= st->nunits)
                break;
            const storq_unit *unit = &st->units[u];
            /* a later batch: skip it when rank 0 has closed the point */
            if (unit->rep >= (int64_t)st->spec->replications &&
                storq_workqueue_read(st->wq, 1 + unit->point))
                continue;
            if (run_unit(st, unit, &terr)) {
                fail(st, &terr);
                break;
            }
        }
    }
}

/* After this rank's units: rank 0 waits (without spinning) for every other rank's results and
 * DONE; the others send DONE and wait for their sends to complete. */
static void finish_work(run_state *st)
{
    storq_error e = {0};
    if (st->rank != 0) {
        int rc = storq_send_done(st->outbox, &st->status, &e);
        if (!rc)
            rc = storq_outbox_destroy(&st->outbox, &e);
        if (rc && !st->status.code)
            st->status = e;
        return;
    }
    const struct timespec nap = {0, 1000000};
    while (st->ranks_done + 1 < (size_t)st->nranks) {
        int got = collect(st, &e);
        if (got < 0) {
            /* a broken message: the other ranks' DONE may never be read; stop here */
            if (!st->status.code)
                st->status = e;
            return;
        }
        if (got == 0)
            nanosleep(&nap, NULL);
    }
    /* what came in of unfinished points stays in the file: --resume reruns only the rest */
    int rc;
#pragma omp critical(storq_collect)
    rc = write_checkpoints(st, 1, &e);
    if (!rc && st->file)
        rc = storq_h5_write_units(st->file, st->rows, st->nrows, st->workers,
                                  storq_now() - st->t0, &e);
    if (rc && !st->status.code)
        st->status = e;
}

static void release(run_state *st)
{
    for (size_t p = 0; st->ctx && p < st->spec->npoints; p++) {
        if (st->ctx[p])
            st->spec->model->release(st->ctx[p]);
        storq_observables_free(&st->obs[p]);
        if (st->points && st->points[p].have_res) {
            storq_point_result_free(&st->points[p].res);
            free(st->points[p].rep_in);
        }
        if (st->points)
            storq_theory_free(&st->points[p].theory);
    }
    free(st->ctx);
    free(st->obs);
    free(st->cost);
    free(st->done);
    free(st->units);
    free(st->target);
    if (st->points)
        for (size_t p = 0; p < st->spec->npoints; p++)
            free_pending(&st->points[p]);
    free(st->points);
    free(st->rows);
    storq_error ignore = {0};
    storq_outbox_destroy(&st->outbox, &ignore);
    storq_workqueue_destroy(&st->wq);
    MPI_Comm_free(&st->comm);
}

/* Rank 0, --resume: the replications of unfinished points that their checkpoints hold. */
static int read_checkpoints(run_state *st, storq_error *err)
{
    const storq_run_spec *spec = st->spec;
    size_t points = 0;
    for (size_t p = 0; p < spec->npoints; p++) {
        if (st->done[p] || !in_task(spec, p))
            continue;
        point_state *ps = &st->points[p];
        STORQ_TRY(point_state_init(st, p, err));
        double seconds = 0;
        int got = storq_h5_read_checkpoint(st->file, p, &ps->res, ps->rep_in, &seconds, err);
        if (got < 0)
            return -got;
        if (got == 0) {
            storq_point_result_free(&ps->res);
            free(ps->rep_in);
            ps->rep_in = NULL;
            ps->have_res = 0;
            continue;
        }
        ps->checkpointed = 1;
        ps->seconds = seconds;
        for (size_t r = 0; r < st->max_reps; r++)
            ps->reps_in += ps->rep_in[r];
        STORQ_TRY(decide(st, p, err)); /* the batches the checkpoint already settles */
        st->reps_resumed += ps->reps_in;
        points++;
    }
    if (st->reps_resumed)
        fprintf(stderr, "storq: --resume: %zu replications of %zu unfinished points taken from "
                "checkpoints\n", st->reps_resumed, points);
    return STORQ_OK;
}

/* Every rank learns which replications rank 0 has from checkpoints (per point NULL or a mask). */
static int share_replications_in(run_state *st, const unsigned char ***out, storq_error *err)
{
    const storq_run_spec *spec = st->spec;
    unsigned long long n = 0;
    for (size_t p = 0; st->rank == 0 && p < spec->npoints; p++)
        n += st->points[p].reps_in > 0;
    MPI_Bcast(&n, 1, MPI_UNSIGNED_LONG_LONG, 0, st->comm);
    *out = NULL;
    if (n == 0)
        return STORQ_OK;
    unsigned char **masks = calloc(spec->npoints, sizeof *masks);
    if (!masks)
        return STORQ_RUNTIME_FAIL(err, "out of memory");
    for (size_t p = 0; p < spec->npoints; p++) {
        int has = st->rank == 0 && st->points[p].reps_in > 0;
        MPI_Bcast(&has, 1, MPI_INT, 0, st->comm);
        if (!has)
            continue;
        masks[p] = st->rank == 0 ? st->points[p].rep_in : malloc(st->max_reps);
        if (!masks[p])
            return STORQ_RUNTIME_FAIL(err, "out of memory");
        MPI_Bcast(masks[p], (int)st->max_reps, MPI_UNSIGNED_CHAR, 0, st->comm);
    }
    *out = (const unsigned char **)masks;
    return STORQ_OK;
}

static void free_replications_in(run_state *st, const unsigned char **masks)
{
    for (size_t p = 0; masks && st->rank != 0 && p < st->spec->npoints; p++)
        free((void *)masks[p]);
    free((void *)masks);
}

/* The units to run, rank 0's per-point state, the queue and the outbox (collective). */
static int start_work(run_state *st, storq_error *err)
{
    const storq_run_spec *spec = st->spec;
    MPI_Bcast(st->done, (int)spec->npoints, MPI_UNSIGNED_CHAR, 0, st->comm);
    for (size_t p = 0; p < spec->npoints; p++)
        st->done[p] |= !in_task(spec, p);
    int rc = STORQ_OK;
    if (st->rank == 0) {
        st->points = calloc(spec->npoints ? spec->npoints : 1, sizeof *st->points);
        if (!st->points)
            rc = STORQ_RUNTIME_FAIL(err, "out of memory");
        for (size_t p = 0; !rc && p < spec->npoints; p++)
            st->points[p].theory_in = spec->model->theory == NULL;
        if (!rc && spec->resume)
            rc = read_checkpoints(st, err);
    }
    rc = storq_reduce_status(rc, st->comm);
    const unsigned char **rep_done = NULL;
    if (!rc)
        rc = share_replications_in(st, &rep_done, err);
    if (!rc)
        rc = storq_schedule_build(spec->npoints, st->done, rep_done, st->cost, st->max_reps,
                                  spec->replications, spec->model->theory != NULL, &st->units,
                                  &st->nunits, err);
    free_replications_in(st, rep_done);
    if (!rc && st->rank != 0)
        rc = storq_outbox_create(st->comm, &st->outbox, err);
    rc = storq_reduce_status(rc, st->comm);
    /* counter 0 hands out units; counter 1 + p is point p's "closed" flag (--precision) */
    if (!rc)
        rc = storq_reduce_status(storq_workqueue_create(st->comm, 1 + spec->npoints, &st->wq, err),
                                 st->comm);
    for (size_t p = 0; !rc && st->rank == 0 && p < spec->npoints; p++)
        if (st->points[p].closed) /* decided from a checkpoint */
            storq_workqueue_drain(st->wq, 1 + p, 1);
    st->workers = omp_get_max_threads();
    MPI_Allreduce(MPI_IN_PLACE, &st->workers, 1, MPI_INT, MPI_SUM, st->comm);
    st->t0 = storq_now(); /* just after a collective: the ranks' clocks start within a moment */
    return rc;
}

int storq_driver_run(const storq_run_spec *spec, MPI_Comm comm, storq_error *err)
{
    run_state st;
    memset(&st, 0, sizeof st);
    st.spec = spec;
    const char *every = getenv("STORQ_CHECKPOINT_INTERVAL");
    st.checkpoint_every = every && atof(every) >= 0 ? atof(every) : 5.0;
    st.last_checkpoint = storq_now();
    st.max_reps = spec->precision ? spec->max_replications : spec->replications;
    MPI_Comm_dup(comm, &st.comm);
    MPI_Comm_rank(st.comm, &st.rank);
    MPI_Comm_size(st.comm, &st.nranks);

    int rc = prepare_points(&st, err);
    rc = storq_reduce_status(rc, st.comm);
    if (!rc)
        rc = storq_reduce_status(open_output(&st, err), st.comm);
    if (!rc)
        rc = start_work(&st, err);
    if (!rc) {
        double total = 0;
        size_t todo = 0;
        for (size_t p = 0; p < spec->npoints; p++) {
            total += st.done[p] ? 0 : st.cost[p] * (double)spec->replications;
            todo += !st.done[p];
        }
        storq_progress_start(&st.progress, st.rank == 0 && !spec->quiet, todo, total);
        if (st.rank == 0 && st.nranks > 1)
            storq_poll_install(poll_results, &st, 1.0);
        work(&st);
        storq_poll_install(NULL, NULL, 0);
        finish_work(&st);
        storq_progress_finish(&st.progress);
        if (st.status.code) {
            *err = st.status;
            rc = st.status.code;
        }
        /* Every rank learns the run's status; a rank's own failure stays its message. */
        rc = storq_reduce_status(rc, st.comm);
    }
    if (st.rank == 0 && st.file) {
        if (!rc) {
            rc = storq_h5_finish(&st.file, err);
        } else {
            storq_h5_close(&st.file);
            fprintf(stderr, "storq: finished points are kept in %s.partial; run again with "
                    "--resume to complete it\n", spec->output);
        }
    }
    rc = storq_reduce_status(rc, st.comm);
    release(&st);
    return rc;
}
