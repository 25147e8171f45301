#include "driver.h"

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "h5_writer.h"
#include "interrupt.h"
#include "progress.h"
#include "reduce.h"
#include "report.h"
#include "workqueue.h"

typedef struct run_state {
    const storq_run_spec *spec;
    MPI_Comm comm;
    int rank, nranks;
    void **ctx;           /* prepared context per point */
    double *cost;         /* relative cost per point */
    size_t *order;        /* points, largest first */
    unsigned char *done;  /* not to run: complete already (--resume), or another task's */
    storq_workqueue *wq;
    storq_h5_file *file;  /* rank 0 only */
    storq_progress progress;
} run_state;

static double point_cost(const storq_model *m, const void *ctx, size_t reps)
{
    double c = m->cost ? m->cost(ctx) : 1.0;
    return (c > 0 ? c : 1.0) * (double)reps;
}

static int in_task(const storq_run_spec *spec, size_t p)
{
    return p % spec->task_count == spec->task_index;
}

/* Validate every point before anything runs, so a bad value deep in a sweep fails at once (in
 * every task of a job array alike). Another task's contexts are released at once. */
/* The point's observables against the memory budget, before anything runs: one record per
 * replication in flight, and the point's table of every replication's values. */
static int check_point_memory(const storq_run_spec *spec, size_t p, void *ctx, storq_error *err)
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
        snprintf(what, sizeof what, "point %zu: %zu replications (-r) of %zu values", p,
                 spec->replications, obs.nvalues);
        rc = storq_memory_check(storq_bytes_mul(spec->replications,
                                                storq_bytes_mul(obs.nvalues, sizeof(double))),
                                what, "for the point's table of replications", err);
    }
    storq_observables_free(&obs);
    return rc;
}

static int prepare_points(run_state *st, storq_error *err)
{
    const storq_run_spec *spec = st->spec;
    size_t n = spec->npoints;
    st->ctx = calloc(n, sizeof *st->ctx);
    st->cost = calloc(n, sizeof *st->cost);
    st->order = calloc(n, sizeof *st->order);
    st->done = calloc(n, 1);
    if (!st->ctx || !st->cost || !st->order || !st->done)
        return STORQ_RUNTIME_FAIL(err, "out of memory");
    for (size_t p = 0; p < n; p++) {
        /* Warnings (e.g. --allow-unstable) once per distinct point, from rank 0 only. */
        STORQ_TRY(spec->model->prepare(&spec->points[p], &st->ctx[p], err));
        if (in_task(spec, p))
            STORQ_TRY(check_point_memory(spec, p, st->ctx[p], err));
        st->cost[p] = point_cost(spec->model, st->ctx[p], spec->replications);
        st->order[p] = p;
        if (!in_task(spec, p)) {
            spec->model->release(st->ctx[p]);
            st->ctx[p] = NULL;
            st->cost[p] = 0;
        }
    }
    /* Largest first (stable), so the longest point does not start last. */
    for (size_t i = 1; i < n; i++) {
        size_t x = st->order[i], j = i;
        while (j > 0 && st->cost[st->order[j - 1]] < st->cost[x]) {
            st->order[j] = st->order[j - 1];
            j--;
        }
        st->order[j] = x;
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

/* Every thread of every rank takes replications of point p until none are left. */
static int run_replications(run_state *st, size_t p, storq_point_result *res, storq_error *err)
{
    const storq_run_spec *spec = st->spec;
    const storq_model *model = spec->model;
    size_t reps = spec->replications;
    int failed = 0;
#pragma omp parallel
    {
        storq_error terr = {0};
        storq_record rec;
        int rc = storq_record_init(&rec, res->schema, &terr);
        while (!rc) {
            int stop;
#pragma omp atomic read
            stop = failed;
            if (stop)
                break;
            if (storq_interrupted()) {
                rc = storq_fail(&terr, STORQ_ERR_RUNTIME, "stopped by signal %d before the run was "
                                "complete", storq_interrupted());
                break;
            }
            int64_t r = storq_workqueue_next(st->wq, p);
            if (r < 0 || (size_t)r >= reps)
                break;
            storq_record_reset(&rec);
            storq_stream_key key = {spec->seed, p, (uint64_t)r};
            rc = model->replicate(st->ctx[p], &key, &rec, &terr);
            if (rc)
                break;
#pragma omp critical(storq_point_result)
            storq_point_result_add(res, (size_t)r, &rec);
            if (st->rank == 0)
                storq_progress_replication(&st->progress, p, (size_t)r + 1, reps, st->cost[p],
                                           rec.events);
        }
        if (rc) {
#pragma omp critical(storq_driver_error)
            {
                if (!failed)
                    *err = terr;
                failed = 1;
            }
        }
        storq_record_free(&rec);
    }
    return failed ? (err->code ? err->code : STORQ_ERR_RUNTIME) : STORQ_OK;
}

/* Rank 0: summary, theory and comparison of a merged point; write it; print its table. */
static int finish_point(run_state *st, size_t p, const storq_point_result *res, double wall,
                        storq_error *err)
{
    const storq_run_spec *spec = st->spec;
    const storq_model *model = spec->model;
    storq_summary sum;
    storq_theory theory = {0}, cmp = {0};
    int rc = storq_summary_compute(&sum, res, err);
    if (!rc && model->theory)
        rc = model->theory(st->ctx[p], &theory, err);
    if (!rc && model->compare)
        rc = model->compare(st->ctx[p], &sum, &theory, &cmp, err);
    if (!rc)
        rc = storq_h5_write_point(st->file, p, &spec->points[p], res, &sum, &theory, &cmp, wall, err);
    if (!rc && !spec->quiet)
        storq_report_point(stdout, p, &spec->points[p], &sum, &theory, &cmp);
    storq_theory_free(&theory);
    storq_theory_free(&cmp);
    storq_summary_free(&sum);
    return rc;
}

static int run_point(run_state *st, size_t p, storq_error *err)
{
    const storq_model *model = st->spec->model;
    storq_observables obs = {0};
    storq_point_result res;
    memset(&res, 0, sizeof res);
    double t0 = storq_now();
    int rc = model->declare(st->ctx[p], &obs, err);
    if (!rc)
        rc = storq_point_result_init(&res, &obs, st->spec->replications, err);
    if (!rc)
        rc = run_replications(st, p, &res, err);
    rc = storq_reduce_status(rc, st->comm);
    if (!rc)
        rc = storq_reduce_point(&res, st->comm, err);
    if (!rc && st->rank == 0)
        rc = finish_point(st, p, &res, storq_now() - t0, err);
    rc = storq_reduce_status(rc, st->comm);
    storq_point_result_free(&res);
    storq_observables_free(&obs);
    return rc;
}

static void release(run_state *st)
{
    for (size_t p = 0; st->ctx && p < st->spec->npoints; p++)
        if (st->ctx[p])
            st->spec->model->release(st->ctx[p]);
    free(st->ctx);
    free(st->cost);
    free(st->order);
    free(st->done);
    storq_workqueue_destroy(&st->wq);
    MPI_Comm_free(&st->comm);
}

int storq_driver_run(const storq_run_spec *spec, MPI_Comm comm, storq_error *err)
{
    run_state st;
    memset(&st, 0, sizeof st);
    st.spec = spec;
    MPI_Comm_dup(comm, &st.comm);
    MPI_Comm_rank(st.comm, &st.rank);
    MPI_Comm_size(st.comm, &st.nranks);

    int rc = prepare_points(&st, err);
    rc = storq_reduce_status(rc, st.comm);
    if (!rc)
        rc = storq_reduce_status(open_output(&st, err), st.comm);
    if (!rc) {
        MPI_Bcast(st.done, (int)spec->npoints, MPI_UNSIGNED_CHAR, 0, st.comm);
        for (size_t p = 0; p < spec->npoints; p++)
            st.done[p] |= !in_task(spec, p);
        rc = storq_reduce_status(storq_workqueue_create(st.comm, spec->npoints, &st.wq, err), st.comm);
    }
    if (!rc) {
        double total = 0;
        size_t todo = 0;
        for (size_t p = 0; p < spec->npoints; p++) {
            total += st.done[p] ? 0 : st.cost[p];
            todo += !st.done[p];
        }
        storq_progress_start(&st.progress, st.rank == 0 && !spec->quiet, todo, total);
        for (size_t i = 0; i < spec->npoints && !rc; i++) {
            size_t p = st.order[i];
            if (st.done[p])
                continue;
            rc = run_point(&st, p, err);
            storq_progress_point_done(&st.progress, st.cost[p]);
        }
        storq_progress_finish(&st.progress);
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
