/* Rank 0's side of a run: taking every unit's result in (its own or another rank's), the
 * precision decision at batch boundaries, finishing each point the moment it is complete
 * (summary, comparison, write, table), checkpoints of unfinished points, and --resume's reading
 * of them. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "h5_checkpoint.h"
#include "model_kit.h"
#include "report.h"
#include "run_state.h"
#include "steady_state.h"

/* Rank 0: summary, theory and comparison of a complete point; write it; print its table. */
void storq_collect_free_pending(point_state *ps)
{
    for (size_t i = 0; i < ps->npending; i++)
        storq_record_free(&ps->pending[i].rec);
    free(ps->pending);
    ps->pending = NULL;
    ps->npending = ps->cappending = 0;
}

/* A generous bound on what writing point p adds to the file (its checkpoint: no theory): the
 * table of replications, summaries, histograms, theory and comparison arrays, twice over, and
 * the metadata of every dataset. */
static uint64_t point_bytes(const run_state *st, size_t p, const storq_theory *theory,
                            const storq_theory *cmp)
{
    const storq_observables *o = &st->obs[p];
    uint64_t values = (uint64_t)st->max_reps * o->nvalues + 8 * (uint64_t)o->nvalues +
                      2 * (uint64_t)o->ncounts + o->nminmax; /* a histogram: counts, edges */
    for (size_t i = 0; theory && i < theory->n; i++)
        values += theory->items[i].len;
    for (size_t i = 0; cmp && i < cmp->n; i++)
        values += cmp->items[i].len;
    return 2 * sizeof(double) * values + (uint64_t)(o->ndefs + 8) * 16384 + (1u << 16);
}

static int write_point(run_state *st, size_t p, const storq_summary *sum,
                       const storq_theory *cmp, storq_error *err)
{
    const storq_run_spec *spec = st->spec;
    point_state *ps = &st->points[p];
    storq_point_precision prec = {
        .target = spec->precision, .max_replications = spec->max_replications, .met = ps->met,
        .achieved = ps->achieved, .observable = spec->precision ? st->target[p]->name : ""};
    char what[64];
    snprintf(what, sizeof what, "point %zu", p);
    STORQ_TRY(storq_h5_reserve(st->file, point_bytes(st, p, &ps->theory, cmp), what, err));
    return storq_h5_write_point(st->file, p, &spec->points[p], &ps->res, sum, &ps->theory, cmp,
                                ps->seconds, spec->precision ? &prec : NULL, err);
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
    const char *headline = storq_model_headline(model, st->ctx[p]);
    if (!rc)
        rc = storq_steady_compare(&sum, headline, &cmp, err);
    if (!rc)
        rc = write_point(st, p, &sum, &cmp, err);
    if (!rc && ps->checkpointed)
        rc = storq_h5_drop_checkpoint(st->file, p, err);
    ps->checkpointed = ps->dirty = 0;
    storq_progress_clear(&st->progress); /* the table below, not over the live line */
    if (!rc && !spec->quiet) {
        storq_report_point(stdout, p, &spec->points[p], &sum, &ps->theory, &cmp);
        fflush(stdout);
    }
    if (!rc)
        storq_report_steady_state(stderr, p, &spec->points[p], headline, &sum);
    storq_progress_point_done(&st->progress);
    storq_theory_free(&cmp);
    storq_summary_free(&sum);
    storq_point_result_free(&ps->res);
    free(ps->rep_in);
    ps->rep_in = NULL;
    ps->have_res = 0;
    storq_collect_free_pending(ps);
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

/* Checkpoint every unfinished point that took in replications since its last checkpoint. */
static int checkpoint_dirty(run_state *st, storq_error *err)
{
    for (size_t p = 0; p < st->spec->npoints; p++) {
        point_state *ps = &st->points[p];
        if (!ps->dirty || !ps->have_res)
            continue;
        char what[64];
        snprintf(what, sizeof what, "the checkpoint of point %zu", p);
        STORQ_TRY(storq_h5_reserve(st->file, point_bytes(st, p, NULL, NULL), what, err));
        STORQ_TRY(storq_h5_write_checkpoint(st->file, p, &ps->res, ps->rep_in, ps->seconds, err));
        ps->dirty = 0;
        ps->checkpointed = 1;
    }
    return STORQ_OK;
}

/* Rank 0, holding collect_lock: checkpoint every unfinished point that took in replications
 * since its last checkpoint, when the interval has passed (or always, at the end of a run). */
int storq_collect_checkpoints(run_state *st, int now_anyway, storq_error *err)
{
    double now = storq_now();
    if (!now_anyway && now - st->last_checkpoint < st->checkpoint_gap)
        return STORQ_OK;
    st->last_checkpoint = now;
    int rc = checkpoint_dirty(st, err);
    /* A checkpoint rewrites its points' arrays whole, so its cost grows with their replications:
     * the next one waits at least 20 times as long as this one took, which keeps checkpoints
     * under 5% of rank 0's time at any size (never sooner than the interval asked for). */
    double took = storq_now() - now;
    st->checkpoint_gap = took * 20 > st->checkpoint_every ? took * 20 : st->checkpoint_every;
    return rc;
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

/* Advance the prefix of replications in (amortised O(1) a replication: each is passed once),
 * feeding the target's running estimate in replication order. */
static void advance_prefix(run_state *st, size_t p)
{
    point_state *ps = &st->points[p];
    const size_t nv = st->obs[p].nvalues;
    while (ps->prefix < ps->window && ps->rep_in[ps->prefix]) {
        if (st->spec->precision)
            storq_running_add(&ps->target_run,
                              ps->res.values[ps->prefix * nv + st->target[p]->value_offset]);
        ps->prefix++;
    }
}

/* The precision decision, in replication order at batch boundaries: once replications
 * 0 .. window-1 are all in, the point closes when it needs no more (no target; the target met;
 * --max-replications reached) or takes the next batch (held replications of it merge). Every
 * input is a replication's values, so the decision, hence the file, is the same whatever ran
 * where and when. The exact half-width (two passes over the window) is computed only where it
 * can decide: at the last batch, and where the running estimate is not clearly above the
 * target; so a point's decisions cost O(1) a replication. A closed point's flag in the work
 * queue tells every worker to skip its remaining units. */
static int decide(run_state *st, size_t p, storq_error *err)
{
    const storq_run_spec *spec = st->spec;
    point_state *ps = &st->points[p];
    while (!ps->closed) {
        advance_prefix(st, p);
        if (ps->prefix < ps->window)
            return STORQ_OK;
        if (spec->precision) {
            int last = ps->window >= st->max_reps;
            if (!last && storq_running_clearly_above(&ps->target_run, spec->precision)) {
                ps->met = 0;
            } else {
                double mean, se, half;
                storq_summary_column(&ps->res, ps->window, st->target[p]->value_offset, &mean,
                                     &se, &half);
                ps->achieved = half / fabs(mean);
                ps->met = ps->achieved <= spec->precision;
            }
        }
        if (!spec->precision || ps->met || ps->window >= st->max_reps) {
            ps->closed = 1;
            storq_dispatch_close_group(st->dispatch, p);
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

/* After a failure (a write that did not go, say) nothing more is written. */
static int run_failed(const run_state *st)
{
    return st->status.code && st->status.code != STORQ_STOPPED;
}

/* Rank 0, holding collect_lock: record where and when a unit ran (/run/units, a block of rows
 * at a time: room for each block is reserved before it is written). */
static int add_row(run_state *st, size_t p, int64_t rep, int rank, const storq_unit_time *time,
                   uint64_t events, storq_error *err)
{
    if (!st->record || run_failed(st))
        return STORQ_OK;
    if (st->nrows % STORQ_UNITS_BLOCK == 0 && st->nrows > 0)
        STORQ_TRY(storq_h5_reserve(st->file, (1u << 20) + 2 * 128 * (uint64_t)STORQ_UNITS_BLOCK,
                                   "the record of the run's units", err));
    storq_unit_row row = {
        .point = p, .rep = rep, .rank = rank, .thread = time->thread, .start = time->start,
        .end = time->end, .events = events, .cost = rep < 0 ? 0.0 : st->cost[p],
        .cpu = time->cpu};
    STORQ_TRY(storq_h5_units_add(st->record, &row, err));
    st->nrows++;
    return STORQ_OK;
}

/* Rank 0 takes in one replication's record (its own or a received one). */
int storq_collect_record(run_state *st, size_t p, size_t r, const storq_record *rec, int rank,
                          const storq_unit_time *time, storq_error *err)
{
    int rc = STORQ_OK;
    pthread_mutex_lock(&st->collect_lock);
    {
        point_state *ps = &st->points[p];
        if (!ps->have_res && !ps->finished)
            rc = point_state_init(st, p, err);
        if (!rc)
            rc = add_row(st, p, (int64_t)r, rank, time, rec->events, err);
        double seconds = time->end - time->start;
        /* after a failure what the other ranks still send is only taken in, so that they can
         * finish sending and end */
        int failed = run_failed(st);
        if (rc || failed || ps->finished || ps->closed) {
            /* a spare: its point needed no more */
        } else if (ps->rep_in[r]) {
            rc = STORQ_RUNTIME_FAIL(err, "replication %zu of point %zu came in twice", r, p);
        } else if (r >= ps->window) {
            rc = hold(ps, r, rec, seconds, err);
        } else {
            merge(st, p, r, rec, seconds);
            storq_progress_replication(&st->progress);
            rc = decide(st, p, err);
            if (!rc && point_complete(st, p))
                rc = finish_point(st, p, err);
            if (!rc)
                rc = storq_collect_checkpoints(st, 0, err);
        }
    }
    pthread_mutex_unlock(&st->collect_lock);
    return rc;
}

/* Rank 0 takes in a point's theory (ownership of its arrays passes). */
int storq_collect_theory(run_state *st, size_t p, storq_theory *t, int rank,
                          const storq_unit_time *time, storq_error *err)
{
    int rc = STORQ_OK;
    pthread_mutex_lock(&st->collect_lock);
    {
        point_state *ps = &st->points[p];
        ps->theory = *t;
        memset(t, 0, sizeof *t);
        ps->theory_in = 1;
        ps->seconds += time->end - time->start;
        rc = add_row(st, p, STORQ_UNIT_REP_THEORY, rank, time, 0, err);
        int failed = run_failed(st); /* see above */
        if (!rc && !failed && point_complete(st, p))
            rc = finish_point(st, p, err);
    }
    pthread_mutex_unlock(&st->collect_lock);
    return rc;
}

void storq_run_fail(run_state *st, const storq_error *e)
{
    pthread_mutex_lock(&st->collect_lock);
    if (!st->status.code)
        st->status = *e;
    pthread_mutex_unlock(&st->collect_lock);
#pragma omp atomic write
    st->stop = 1;
    storq_dispatch_stop(st->dispatch);
}

/* Rank 0: use one message of another rank. */
static int take_message(run_state *st, storq_message *m, storq_error *err)
{
    int rc = STORQ_OK;
    if (m->kind == STORQ_MSG_RECORD && m->point < st->spec->npoints && st->ctx[m->point] &&
        m->rep < st->max_reps) {
        storq_record rec;
        rc = storq_record_init(&rec, &st->obs[m->point], err);
        if (!rc)
            rc = storq_message_record(m, &rec, err);
        if (!rc)
            rc = storq_collect_record(st, m->point, m->rep, &rec, m->source, &m->time, err);
        storq_record_free(&rec);
    } else if (m->kind == STORQ_MSG_THEORY && m->point < st->spec->npoints) {
        storq_theory t = {0};
        rc = storq_message_theory(m, &t, err);
        if (!rc)
            rc = storq_collect_theory(st, m->point, &t, m->source, &m->time, err);
        storq_theory_free(&t);
    } else if (m->kind == STORQ_MSG_PROGRESS && m->source > 0 && m->source < st->nranks) {
        pthread_mutex_lock(&st->collect_lock);
        st->rank_steps[m->source] = m->events;
        st->rank_work[m->source] = m->work;
        pthread_mutex_unlock(&st->collect_lock);
    } else if (m->kind == STORQ_MSG_DONE) {
        pthread_mutex_lock(&st->collect_lock);
        st->ranks_done++;
        pthread_mutex_unlock(&st->collect_lock);
        if (m->status.code)
            storq_run_fail(st, &m->status); /* the run's status if first; nobody takes more */
    } else {
        rc = STORQ_RUNTIME_FAIL(err, "an unexpected message from rank %d", m->source);
    }
    return rc;
}

int storq_collect_messages(run_state *st, int max, storq_error *err)
{
    int handled = 0;
    while (handled < max) {
        storq_message m;
        int got = storq_receive(st->inbox, &m, err);
        if (got <= 0)
            return got < 0 ? got : handled;
        storq_error e = {0};
        if (take_message(st, &m, &e))
            storq_run_fail(st, &e);
        storq_message_free(&m);
        handled++;
    }
    return handled;
}

/* Rank 0, --resume: the replications of unfinished points that their checkpoints hold. */
int storq_collect_resume(run_state *st, storq_error *err)
{
    const storq_run_spec *spec = st->spec;
    size_t points = 0;
    for (size_t p = 0; p < spec->npoints; p++) {
        if (st->done[p] || !storq_in_task(spec, p))
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
        fprintf(stderr, "storq: --resume: %zu replication%s of %zu unfinished point%s taken from "
                "checkpoints\n", st->reps_resumed, st->reps_resumed == 1 ? "" : "s", points,
                points == 1 ? "" : "s");
    return STORQ_OK;
}

