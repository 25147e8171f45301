#include "driver.h"

#include <omp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "env_settings.h"
#include "interrupt.h"
#include "point_list.h"
#include "point_memory.h"
#include "reduce.h"
#include "run_state.h"
#include "model_kit.h"
#include "stop.h"
#include "wait.h"

static double rep_cost(const storq_model *m, const void *ctx, const storq_params *p)
{
    double c = storq_model_cost(m, ctx, p);
    return c > 0 ? c : 1.0;
}

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
        rc = storq_memory_check_rank(storq_bytes_mul(reps,
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
    if (!name)
        name = storq_model_headline(spec->model, st->ctx[p]);
    if (!name)
        return storq_fail(err, STORQ_ERR_USAGE, "--precision: point %zu of model '%s' has no "
                          "headline observable; name a scalar one: --precision %g:NAME", p,
                          spec->model->name, spec->precision);
    const storq_obs_def *d = storq_obs_find(&st->obs[p], name);
    if (!d || d->kind != STORQ_OBS_SCALAR) {
        char names[512] = ""; /* what it may name instead */
        for (size_t i = 0; i < st->obs[p].ndefs; i++)
            if (st->obs[p].defs[i].kind == STORQ_OBS_SCALAR)
                snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s",
                         *names ? ", " : "", st->obs[p].defs[i].name);
        return storq_fail(err, STORQ_ERR_USAGE, "--precision: '%s' is not a scalar observable "
                          "of point %zu; its scalars: %s", name, p, *names ? names : "none");
    }
    st->target[p] = d;
    return STORQ_OK;
}

/* Validate every point before anything runs, so a bad value deep in a sweep fails at once (in
 * every task of a job array alike). Another task's contexts are released at once. */
/* A stop asked for before the results file exists: nothing to keep, nothing written. */
static int stopped_early(storq_error *err)
{
    return storq_fail(err, STORQ_STOPPED, "stopped by signal %d while preparing the run; "
                      "nothing was written", storq_interrupted());
}

static int prepare_points(run_state *st, storq_error *err)
{
    const storq_run_spec *spec = st->spec;
    size_t n = spec->npoints;
    st->ctx = calloc(n, sizeof *st->ctx);
    st->obs = calloc(n, sizeof *st->obs);
    st->cost = calloc(n, sizeof *st->cost);
    st->steps = calloc(n ? n : 1, sizeof *st->steps);
    st->done = calloc(n, 1);
    st->target = calloc(n ? n : 1, sizeof *st->target);
    if (!st->ctx || !st->obs || !st->cost || !st->steps || !st->done || !st->target)
        return STORQ_RUNTIME_FAIL(err, "out of memory");
    size_t table = 0; /* the largest point's table of replications, with its marks */
    storq_point_memory mem;
    storq_point_memory_start(&mem, storq_point_list_bytes(spec, st->rank == 0));
    const size_t N = spec->task_count, I = spec->task_index, mine = n > I ? (n - I - 1) / N + 1 : 0;
    for (size_t p = 0; p < n; p++) {
        if (storq_interrupted()) /* a huge sweep's setup stops within a moment too */
            return stopped_early(err);
        /* Warnings (e.g. --allow-unstable) once per distinct point, from rank 0 only. */
        storq_point_memory_before(&mem);
        STORQ_TRY(spec->model->prepare(&spec->points[p], &st->ctx[p], err));
        if (!storq_in_task(spec, p)) {
            spec->model->release(st->ctx[p]);
            st->ctx[p] = NULL;
            continue;
        }
        STORQ_TRY(declare_point(spec, p, st->ctx[p], &st->obs[p], err));
        st->cost[p] = rep_cost(spec->model, st->ctx[p], &spec->points[p]);
        st->steps[p] = storq_model_steps(spec->model, st->ctx[p], &spec->points[p]);
        if (spec->precision)
            STORQ_TRY(find_target(st, p, err));
        STORQ_TRY(storq_point_memory_after(&mem, mine - (p - I) / N - 1, mine, err));
        size_t t = storq_point_table_bytes(&st->obs[p], st->max_reps);
        table = t > table ? t : table;
    }
    /* rank 0 holds the tables of the points in progress: at most those of the units each rank
     * has in hand (its threads', its chunk and the answer in flight, mpi/dispatch.h) */
    size_t open = (size_t)st->nranks * (2 * STORQ_DISPATCH_MAX_CHUNK + (size_t)omp_get_max_threads()) + 1;
    return st->rank ? STORQ_OK
                    : storq_point_memory_open_tables(&mem, open < mine ? open : mine, table, err);
}

static int open_output(run_state *st, storq_error *err)
{
    const storq_run_spec *spec = st->spec;
    storq_run_meta meta = {spec->command_line, spec->config_text, spec->seed, spec->replications,
                           st->nranks, omp_get_max_threads(), spec->task_index, spec->task_count,
                           spec->force, spec->schema ? spec->schema : 1};
    if (st->rank != 0)
        return STORQ_OK;
    if (spec->task_index >= spec->npoints)
        storq_warn("--task %zu/%zu: the run has %zu points, so this task has none; it writes a "
                   "file without points, for `storq merge`", spec->task_index, spec->task_count,
                   spec->npoints);
    if (spec->resume)
        return storq_h5_resume(spec->output, &meta, spec->model, spec->points, spec->npoints,
                               st->done, &st->file, err);
    return storq_h5_create(spec->output, &meta, spec->model, spec->points, spec->npoints, &st->file,
                           err);
}

/* ---- progress: every rank counts its work done in cost units, a replication in flight by its
 * share of the model's steps (credited from the poll function, on the replication's own thread)
 * and the rest when it ends; ranks other than 0 send it to rank 0 in a small message, at most
 * every poll interval. Nothing here touches a replication's values. ---- */

static _Thread_local struct {
    int active;
    size_t point;
    double credited; /* of cost[point] */
} inflight;

static void add_work(run_state *st, double w)
{
#pragma omp atomic update
    st->work += w;
}

static void credit_inflight(run_state *st)
{
    size_t p = inflight.point;
    if (!inflight.active || st->steps[p] <= 0)
        return;
    double share = (double)storq_steps_current() / st->steps[p];
    double c = (share < 0.99 ? share : 0.99) * st->cost[p]; /* the rest when it ends */
    if (c > inflight.credited) {
        add_work(st, c - inflight.credited);
        inflight.credited = c;
    }
}

/* Ranks other than 0: this rank's steps and work to rank 0, at most every poll_every seconds
 * unless forced (the last time, before DONE, so rank 0's final count is exact). */
static void publish(run_state *st, int force)
{
    int go;
    double now = storq_now();
#pragma omp critical(storq_progress_publish)
    {
        go = force || now - st->last_publish >= st->poll_every;
        if (go)
            st->last_publish = now;
    }
    if (!go || !st->outbox)
        return;
    double work;
#pragma omp atomic read
    work = st->work;
    storq_error ignore = {0}; /* progress only: a lost message costs a line's accuracy */
    storq_send_progress(st->outbox, storq_steps_total(), work, &ignore);
}

/* Rank 0: the work done and the steps simulated, every rank together. */
static void gather(run_state *st, double *work, uint64_t *events)
{
#pragma omp atomic read
    *work = st->work;
    *events = storq_steps_total();
    pthread_mutex_lock(&st->collect_lock);
    for (int r = 1; r < st->nranks && st->rank_work; r++) {
        *work += st->rank_work[r];
        *events += st->rank_steps[r];
    }
    pthread_mutex_unlock(&st->collect_lock);
}

static void show_progress(run_state *st)
{
    if (!storq_progress_due(&st->progress))
        return;
    double work;
    uint64_t events;
    gather(st, &work, &events);
    storq_progress_show(&st->progress, work, events);
}

/* A unit ends: its end and CPU time, and the rank's counts of time in units (docs/architecture.md,
 * "Measuring itself": only the CPU time counts as work). */
static void end_unit(run_state *st, storq_unit_time *time, double cpu0)
{
    time->end = storq_now() - st->t0;
    time->cpu = storq_thread_cpu() - cpu0;
    double wall = time->end - time->start, cpu = time->cpu;
#pragma omp atomic update
    st->in_units += wall;
#pragma omp atomic update
    st->simulating += cpu;
}

/* One unit: a replication (its record) or a point's theory, delivered to rank 0. */
static int run_unit(run_state *st, const storq_unit *u, storq_error *err)
{
    const storq_run_spec *spec = st->spec;
    const storq_model *model = spec->model;
    size_t p = u->point;
    storq_unit_time time = {.thread = omp_get_thread_num(), .start = storq_now() - st->t0};
    double cpu0 = storq_thread_cpu();
    int rc;
    if (u->rep == STORQ_UNIT_THEORY) {
        storq_theory t = {0};
        rc = model->theory(st->ctx[p], &t, err);
        end_unit(st, &time, cpu0);
        if (!rc)
            rc = st->rank == 0 ? storq_collect_theory(st, p, &t, 0, &time, err)
                               : storq_send_theory(st->outbox, p, &t, &time, err);
        storq_theory_free(&t);
        return rc;
    }
    storq_record rec;
    rc = storq_record_init(&rec, &st->obs[p], err);
    if (rc)
        return rc;
    storq_stream_key key = {spec->seed, p, (uint64_t)u->rep};
    inflight.active = 1;
    inflight.point = p;
    inflight.credited = 0.0;
    storq_steps_begin();
    rc = model->replicate(st->ctx[p], &key, &rec, err);
    inflight.active = 0;
    end_unit(st, &time, cpu0);
    if (!rc)
        add_work(st, st->cost[p] - inflight.credited);
    if (!rc)
        rc = st->rank == 0 ? storq_collect_record(st, p, (size_t)u->rep, &rec, 0, &time, err)
                           : storq_send_record(st->outbox, p, (size_t)u->rep, &rec, &time, err);
    storq_record_free(&rec);
    if (st->progress_on && st->rank != 0)
        publish(st, 0);
    return rc;
}

/* From inside long replications (src/toolkit/stop.h), every poll_every seconds per thread: every rank
 * counts the replication's share; rank 0 shows progress; the others send theirs and let MPI move
 * their results and their request for the next units along (over tcp a large message moves only
 * while its sender is in MPI). Rank 0's serving thread needs none of this. */
static void poll(void *arg)
{
    run_state *st = arg;
    if (st->progress_on)
        credit_inflight(st);
    if (st->rank == 0) {
        if (st->progress_on)
            show_progress(st);
        return;
    }
    if (st->progress_on)
        publish(st, 0);
    storq_outbox_progress(st->outbox);
    storq_dispatch_progress(st->dispatch);
}

/* Rank 0's serving thread takes in other ranks' results between answering requests; the loop
 * ends once every other rank has sent its DONE. */
static int serve_results(void *arg)
{
    run_state *st = arg;
    storq_error e = {0};
    int got = storq_collect_messages(st, 8, &e); /* a few, then the requests again */
    if (got < 0) {
        storq_run_fail(st, &e); /* receiving itself failed: nothing more can come in */
        return -1;
    }
    pthread_mutex_lock(&st->collect_lock);
    int all_done = st->ranks_done + 1 >= (size_t)st->nranks;
    pthread_mutex_unlock(&st->collect_lock);
    return all_done ? -1 : got;
}

static void *serving_thread(void *arg)
{
    run_state *st = arg;
    st->serving_cpu = storq_dispatch_serve(st->dispatch, serve_results, st);
    return NULL;
}

/* Rank 0 of several ranks: the serving thread, so that no other rank waits on rank 0's own
 * replications (docs/architecture.md, "Handing out work"). */
static void start_serving(run_state *st)
{
    if (st->rank != 0 || st->nranks < 2)
        return;
    int level = MPI_THREAD_SINGLE;
    MPI_Query_thread(&level);
    if (level < MPI_THREAD_SERIALIZED) { /* only the main thread may call MPI */
        st->serve_inline = 1;
    } else if (pthread_create(&st->server, NULL, serving_thread, st) != 0) {
        storq_warn("could not start rank 0's serving thread: rank 0 only hands out work and "
                   "takes in results");
        st->serve_inline = 1;
    } else {
        st->serving = 1;
    }
}

/* Every thread of every rank takes units until none are left; rank 0's threads show progress
 * between their units. */
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
            if (st->rank == 0)
                show_progress(st);
            if (storq_interrupted()) {
                storq_stopped(&terr);
                storq_run_fail(st, &terr);
                break;
            }
            double waited = 0;
            int64_t u = storq_dispatch_next(st->dispatch, &waited);
#pragma omp atomic update
            st->waiting += waited;
            if (u == STORQ_DISPATCH_FAILED) {
                STORQ_RUNTIME_FAIL(&terr, "rank %d: MPI failed while asking rank 0 for work "
                                   "units", st->rank);
                storq_run_fail(st, &terr);
                break;
            }
            if (u < 0 || (size_t)u >= st->nunits)
                break;
            if (run_unit(st, &st->units[u], &terr)) {
                storq_run_fail(st, &terr);
                break;
            }
        }
    }
}

/* Where each rank's time went (docs/architecture.md, "Measuring itself"), gathered on rank 0. */
enum { T_THREADS, T_SIMULATING, T_IN_UNITS, T_WAITING, T_FIELDS };

static int gather_rank_times(run_state *st, double wall, storq_rank_time **out, storq_error *err)
{
    double mine[T_FIELDS] = {omp_get_max_threads(), st->simulating, st->in_units, st->waiting};
    double *all = st->rank == 0 ? malloc((size_t)st->nranks * sizeof mine) : NULL;
    int failed = st->rank == 0 && !all;
    MPI_Request req;
    int rc = MPI_Igather(mine, T_FIELDS, MPI_DOUBLE, all, T_FIELDS, MPI_DOUBLE, 0, st->comm, &req);
    if (rc == MPI_SUCCESS)
        rc = storq_mpi_wait(&req, MPI_STATUS_IGNORE); /* no spinning while rank 0 writes */
    if (st->rank != 0)
        return rc == MPI_SUCCESS ? STORQ_OK
                                 : STORQ_RUNTIME_FAIL(err, "MPI_Igather of the ranks' times failed");
    storq_rank_time *t = failed ? NULL : calloc((size_t)st->nranks, sizeof *t);
    if (!t || rc != MPI_SUCCESS) {
        free(all);
        free(t);
        return rc != MPI_SUCCESS ? STORQ_RUNTIME_FAIL(err, "MPI_Igather of the ranks' times failed")
                                 : STORQ_RUNTIME_FAIL(err, "out of memory");
    }
    for (int r = 0; r < st->nranks; r++) {
        const double *a = all + (size_t)r * T_FIELDS;
        t[r] = (storq_rank_time){.rank = r, .threads = (int32_t)a[T_THREADS],
                                 .simulating = a[T_SIMULATING], .in_units = a[T_IN_UNITS],
                                 .waiting = a[T_WAITING],
                                 .idle = a[T_THREADS] * wall - a[T_IN_UNITS] - a[T_WAITING],
                                 .serving = r == 0 ? st->serving_cpu : 0.0};
        if (t[r].idle < 0)
            t[r].idle = 0; /* clocks read a moment apart */
    }
    free(all);
    *out = t;
    return STORQ_OK;
}

/* After this rank's units: rank 0 waits for its serving thread, which ends once every other rank
 * has sent everything; the others finish their request in flight, send DONE and wait for their
 * sends to complete. Then the ranks' times come to rank 0, which writes the run's record. */
static void finish_work(run_state *st)
{
    storq_error e = {0};
    int rc = STORQ_OK;
    if (st->rank != 0) {
        storq_dispatch_destroy(&st->dispatch); /* rank 0 answers until it has our DONE */
        if (st->progress_on)
            publish(st, 1); /* before DONE: rank 0 reads it after every DONE */
        rc = storq_send_done(st->outbox, &st->status, &e);
        if (!rc)
            rc = storq_outbox_destroy(&st->outbox, &e);
        if (rc && !st->status.code)
            st->status = e;
    } else if (st->serving) {
        pthread_join(st->server, NULL);
        st->serving = 0;
    }
    double wall = storq_now() - st->t0;
    storq_rank_time *times = NULL;
    rc = gather_rank_times(st, wall, &times, &e);
    if (st->rank != 0) {
        if (rc && !st->status.code)
            st->status = e;
        return;
    }
    /* what came in of unfinished points stays in the file: --resume reruns only the rest */
    pthread_mutex_lock(&st->collect_lock);
    if (!rc)
        rc = storq_collect_checkpoints(st, 1, &e);
    pthread_mutex_unlock(&st->collect_lock);
    if (!rc && st->record)
        rc = storq_h5_reserve(st->file, (1u << 20) + 2 * 128 * ((uint64_t)STORQ_UNITS_BLOCK +
                                                               (uint64_t)st->nranks),
                              "the record of the run's units", &e);
    if (!rc && st->record)
        rc = storq_h5_units_end(st->record, times, (size_t)st->nranks, st->workers, wall, &e);
    free(times);
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
    free(st->steps);
    free(st->done);
    free(st->units);
    free(st->target);
    if (st->points)
        for (size_t p = 0; p < st->spec->npoints; p++)
            storq_collect_free_pending(&st->points[p]);
    free(st->points);
    storq_h5_units_free(&st->record);
    storq_error ignore = {0};
    storq_outbox_destroy(&st->outbox, &ignore);
    storq_dispatch_destroy(&st->dispatch);
    storq_inbox_destroy(&st->inbox);
    free(st->rank_steps);
    free(st->rank_work);
    pthread_mutex_destroy(&st->collect_lock);
    MPI_Comm_free(&st->comm);
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

/* The hand-out (collective): each unit's cost sizes the chunks; a later batch's units (--precision)
 * belong to their point's group, which rank 0 closes once the point needs no more. Rank 0 of
 * several ranks also gets its inbox and the others' progress figures. */
static int create_dispatch(run_state *st, storq_error *err)
{
    double *cost = malloc((st->nunits ? st->nunits : 1) * sizeof *cost);
    size_t *group = malloc((st->nunits ? st->nunits : 1) * sizeof *group);
    int rc = cost && group ? STORQ_OK : STORQ_RUNTIME_FAIL(err, "out of memory");
    for (size_t i = 0; !rc && i < st->nunits; i++) {
        const storq_unit *u = &st->units[i];
        cost[i] = st->cost[u->point];
        group[i] = u->rep >= (int64_t)st->spec->replications ? u->point : STORQ_NO_GROUP;
    }
    if (!rc && st->rank == 0 && st->nranks > 1) {
        st->rank_steps = calloc((size_t)st->nranks, sizeof *st->rank_steps);
        st->rank_work = calloc((size_t)st->nranks, sizeof *st->rank_work);
        rc = st->rank_steps && st->rank_work ? storq_inbox_create(st->comm, &st->inbox, err)
                                             : STORQ_RUNTIME_FAIL(err, "out of memory");
    }
    /* every rank takes part: the create is collective */
    int drc = storq_dispatch_create(st->comm, rc ? 0 : st->nunits, cost ? cost : &(double){1},
                                    group ? group : &(size_t){0}, st->spec->npoints,
                                    omp_get_max_threads(), &st->dispatch, rc ? &(storq_error){0} : err);
    free(cost);
    free(group);
    return rc ? rc : drc;
}

/* The units to run, rank 0's per-point state, the hand-out and the outbox (collective). */
static int start_work(run_state *st, storq_error *err)
{
    const storq_run_spec *spec = st->spec;
    MPI_Bcast(st->done, (int)spec->npoints, MPI_UNSIGNED_CHAR, 0, st->comm);
    for (size_t p = 0; p < spec->npoints; p++)
        st->done[p] |= !storq_in_task(spec, p);
    int rc = STORQ_OK;
    if (st->rank == 0) {
        st->points = calloc(spec->npoints ? spec->npoints : 1, sizeof *st->points);
        if (!st->points)
            rc = STORQ_RUNTIME_FAIL(err, "out of memory");
        for (size_t p = 0; !rc && p < spec->npoints; p++)
            st->points[p].theory_in = spec->model->theory == NULL;
        if (!rc && spec->resume)
            rc = storq_collect_resume(st, err);
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
    if (!rc && st->rank == 0 && st->file) /* the record of the units goes to the file as they run */
        rc = storq_h5_units_begin(st->file, st->nunits, &st->record, err);
    if (!rc && st->rank != 0)
        rc = storq_outbox_create(st->comm, &st->outbox, err);
    rc = storq_reduce_status(rc, st->comm);
    if (!rc)
        rc = storq_reduce_status(create_dispatch(st, err), st->comm);
    for (size_t p = 0; !rc && st->rank == 0 && p < spec->npoints; p++)
        if (st->points[p].closed) /* decided from a checkpoint */
            storq_dispatch_close_group(st->dispatch, p);
    st->workers = omp_get_max_threads();
    MPI_Allreduce(MPI_IN_PLACE, &st->workers, 1, MPI_INT, MPI_SUM, st->comm);
    st->t0 = storq_now(); /* just after a collective: the ranks' clocks start within a moment */
    return rc;
}

/* The run's work as planned: the points to finish and their first batches of replications. */
static void start_progress(run_state *st)
{
    const storq_run_spec *spec = st->spec;
    double total = 0;
    size_t reps = 0, todo = 0;
    for (size_t i = 0; i < st->nunits; i++) {
        const storq_unit *u = &st->units[i];
        if (u->rep != STORQ_UNIT_THEORY && u->rep < (int64_t)spec->replications) {
            total += st->cost[u->point];
            reps++;
        }
    }
    for (size_t p = 0; p < spec->npoints; p++)
        todo += !st->done[p];
    st->progress_on = !spec->quiet;
    double interval = storq_progress_interval();
    /* rank 0 takes in results at least every second; progress is counted twice per interval */
    st->poll_every = !st->progress_on || interval / 2 >= 1.0 ? 1.0
                     : interval / 2 > 0.05                ? interval / 2
                                                          : 0.05;
    st->last_publish = storq_now();
    storq_progress_start(&st->progress, st->rank == 0 && st->progress_on, todo, reps, total,
                         spec->precision > 0);
}

int storq_driver_run(const storq_run_spec *spec, MPI_Comm comm, storq_error *err)
{
    run_state st;
    memset(&st, 0, sizeof st);
    st.spec = spec;
    st.checkpoint_every = storq_env_seconds("STORQ_CHECKPOINT_INTERVAL", 5.0);
    st.checkpoint_gap = st.checkpoint_every;
    st.last_checkpoint = storq_now();
    st.max_reps = spec->precision ? spec->max_replications : spec->replications;
    MPI_Comm_dup(comm, &st.comm);
    /* an MPI failure goes through storq's error path (a message, a partial file to resume),
     * not Open MPI's abort */
    MPI_Comm_set_errhandler(st.comm, MPI_ERRORS_RETURN);
    MPI_Comm_rank(st.comm, &st.rank);
    MPI_Comm_size(st.comm, &st.nranks);
    pthread_mutex_init(&st.collect_lock, NULL);

    int rc = prepare_points(&st, err);
    if (!rc && storq_interrupted())
        rc = stopped_early(err);
    rc = storq_reduce_status(rc, st.comm);
    if (!rc)
        rc = storq_reduce_status(open_output(&st, err), st.comm);
    if (!rc)
        rc = start_work(&st, err);
    if (!rc) {
        start_progress(&st);
        if (st.progress_on || st.nranks > 1)
            storq_poll_install(poll, &st, st.poll_every);
        start_serving(&st);
        if (st.serve_inline)
            serving_thread(&st);
        else
            work(&st);
        storq_poll_install(NULL, NULL, 0);
        finish_work(&st);
        if (st.progress.enabled) {
            double w;
            uint64_t events;
            gather(&st, &w, &events);
            storq_progress_finish(&st.progress, events);
        }
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
