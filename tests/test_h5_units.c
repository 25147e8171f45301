/* The run's record of its units (io/h5_units.h) on a test-only model: a first session's rows on a
 * fresh file, closed unfinished, a second session appended after --resume, read back through HDF5
 * directly: rows (with their CPU time), /run/ranks, session numbers, /run/sessions, /run's
 * attributes (the latest session's) and the efficiency arithmetic (busy is CPU time); the
 * format_version stays 1.0 and /run's header stays in one block; a session without units or
 * without ranks, bad input, `storq info`'s lines, and a table that `storq merge` copies from a
 * task's file (a resume of the merged partial starts the record over). A record written before
 * cpu_seconds is read (info's old line) and, on --resume, rewritten with the new columns (NaN in
 * its rows); rows an older storq appends to the new tables read NaN there. Leaves
 * test_h5_units_left.h5 (two sessions, exact values) for the Python checks. */
#include <hdf5.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "fake_run.h"
#include "h5_info.h"
#include "h5_merge.h"
#include "h5_units.h"
#include "h5_writer.h"
#include "schema.h"
#include "units_read.h"

#define NPOINTS 2
#define REPS 3

static storq_run_meta make_meta(size_t task_index, size_t task_count)
{
    return fake_meta(REPS, 5, task_index, task_count);
}

/* Point p complete (one scalar observable), as the driver writes it. */
static int write_complete(storq_h5_file *f, const storq_params *points, size_t p)
{
    storq_error err = {0};
    storq_observables obs = {0};
    storq_point_result res;
    storq_summary sum;
    storq_record rec;
    int id;
    int rc = storq_declare_scalar(&obs, &id, "delay_mean", "time", "mean delay", &err);
    if (!rc)
        rc = storq_point_result_init(&res, &obs, REPS, &err);
    if (!rc)
        rc = storq_record_init(&rec, &obs, &err);
    for (size_t r = 0; !rc && r < REPS; r++) {
        storq_record_reset(&rec);
        rec.values[0] = (double)(p + r);
        rec.events = 100;
        storq_point_result_add(&res, r, &rec);
    }
    if (!rc) {
        storq_record_free(&rec);
        rc = storq_summary_compute(&sum, &res, &err);
    }
    if (!rc) {
        rc = storq_h5_write_point(f, p, &points[p], &res, &sum, NULL, NULL, 0.25, NULL, &err);
        storq_summary_free(&sum);
    }
    if (rc)
        fprintf(stderr, "write_complete: %s\n", err.msg);
    storq_point_result_free(&res);
    storq_observables_free(&obs);
    return rc;
}

/* ---- the tests ---- */

/* Session 0: the theory of both points and 3 replications; durations 0.5, 1, 1.5, 0.5 and 0.75
 * (4.25 s in units), CPU time 0.5, 0.75, 1.25, 0.5, 0.5 (busy 3.5 s) on 2 workers in a wall time
 * of 2.5 s: efficiency 0.7 (0.85 by the time in units). */
static const storq_unit_row first[] = {
    {.point = 0, .rep = STORQ_UNIT_REP_THEORY, .rank = 0, .thread = 0, .start = 0, .end = 0.5,
     .cpu = 0.5},
    {.point = 1, .rep = STORQ_UNIT_REP_THEORY, .rank = 0, .thread = 1, .start = 0, .end = 1,
     .cpu = 0.75},
    {.point = 1, .rep = 0, .rank = 0, .thread = 0, .start = 0.5, .end = 2, .events = 900,
     .cost = 20, .cpu = 1.25},
    {.point = 1, .rep = 1, .rank = 0, .thread = 1, .start = 1, .end = 1.5, .events = 400,
     .cost = 20, .cpu = 0.5},
    {.point = 0, .rep = 0, .rank = 0, .thread = 1, .start = 1.5, .end = 2.25, .events = 300,
     .cost = 10, .cpu = 0.5},
};
/* Its one rank: 2 threads x 2.5 s = 4.25 in units + 0.25 waiting + 0.5 idle. */
static const storq_rank_time first_ranks[] = {
    {.rank = 0, .threads = 2, .simulating = 3.5, .in_units = 4.25, .waiting = 0.25, .idle = 0.5,
     .serving = 0.25}};
/* Session 1 (after --resume, on 2 ranks x 2 threads): the other replications, durations 1, 1,
 * 0.5 (2.5 s in units), CPU time 1, 0.75, 0.25 (busy 2 s) on 4 workers in 1.25 s: efficiency
 * 0.4. */
static const storq_unit_row second[] = {
    {.point = 1, .rep = 2, .rank = 1, .thread = 1, .start = 0, .end = 1, .events = 800,
     .cost = 20, .cpu = 1},
    {.point = 0, .rep = 1, .rank = 0, .thread = 1, .start = 0, .end = 1, .events = 700,
     .cost = 10, .cpu = 0.75},
    {.point = 0, .rep = 2, .rank = 1, .thread = 0, .start = 0.25, .end = 0.75, .events = 350,
     .cost = 10, .cpu = 0.25},
};
/* Each rank: 2 threads x 1.25 s; serving only on rank 0. */
static const storq_rank_time second_ranks[] = {
    {.rank = 0, .threads = 2, .simulating = 0.75, .in_units = 1, .waiting = 0.5, .idle = 1,
     .serving = 0.5},
    {.rank = 1, .threads = 2, .simulating = 1.25, .in_units = 1.5, .waiting = 0, .idle = 1}};
#define NFIRST (sizeof first / sizeof *first)
#define NSECOND (sizeof second / sizeof *second)

static int same_row(const stored_row *s, const storq_unit_row *r, uint32_t session)
{
    return s->session == session && s->point == r->point && s->rep == r->rep &&
           s->rank == r->rank && s->thread == r->thread && s->start == r->start &&
           s->end == r->end && s->events == r->events && s->cost == r->cost && s->cpu == r->cpu;
}

static int same_rank(const stored_rank *s, const storq_rank_time *r, uint32_t session)
{
    return s->session == session && s->rank == r->rank && s->threads == r->threads &&
           s->simulating == r->simulating && s->in_units == r->in_units &&
           s->waiting == r->waiting && s->idle == r->idle && s->serving == r->serving;
}

/* /run's attributes are those of the session given, and sessions says how many there are. */
static void check_run_attrs(const char *path, double workers, double wall, double busy,
                            double unit, double waiting, double idle, double serving,
                            double sessions)
{
    CHECK(attr_of(path, "/run", "workers") == workers);
    CHECK(attr_of(path, "/run", "wall_seconds") == wall);
    CHECK_NEAR(attr_of(path, "/run", "busy_seconds"), busy, 1e-12);
    CHECK_NEAR(attr_of(path, "/run", "parallel_efficiency"), busy / (workers * wall), 1e-12);
    CHECK_NEAR(attr_of(path, "/run", "unit_seconds"), unit, 1e-12);
    CHECK(attr_of(path, "/run", "waiting_seconds") == waiting);
    CHECK(attr_of(path, "/run", "idle_seconds") == idle);
    CHECK(attr_of(path, "/run", "serving_seconds") == serving);
    CHECK(attr_of(path, "/run", "sessions") == sessions);
}

static void test_sessions(const storq_params *points)
{
    const char *final = "test_h5_units_left.h5", *partial = "test_h5_units_left.h5.partial";
    remove(final);
    remove(partial);
    storq_run_meta meta = make_meta(0, 1);
    storq_error err = {0};
    storq_h5_file *f = NULL;
    CHECK(storq_h5_create(final, &meta, &fake_model, points, NPOINTS, &f, &err) == STORQ_OK);
    CHECK(write_complete(f, points, 1) == STORQ_OK);
    CHECK(storq_h5_write_units(f, first, NFIRST, first_ranks, 1, 2, 2.5, &err) == STORQ_OK);
    storq_h5_close(&f); /* a run stopped before point 0 finished */

    stored_row *rows;
    hsize_t chunk;
    int unlimited;
    CHECK(read_rows(partial, &rows, &chunk, &unlimited) == (long)NFIRST);
    for (size_t i = 0; i < NFIRST; i++)
        CHECK(same_row(&rows[i], &first[i], 0));
    CHECK(unlimited && chunk > 0);
    free(rows);
    check_run_attrs(partial, 2, 2.5, 3.5, 4.25, 0.25, 0.5, 0.25, 1);
    CHECK(attr_of(partial, "/run", "parallel_efficiency") == 0.7);
    CHECK(minor_version(partial) == 0);

    unsigned char done[NPOINTS];
    err = (storq_error){0};
    CHECK(storq_h5_resume(final, &meta, &fake_model, points, NPOINTS, done, &f, &err) == STORQ_OK);
    CHECK(done[0] == 0 && done[1] == 1);
    CHECK(write_complete(f, points, 0) == STORQ_OK);
    CHECK(storq_h5_write_units(f, second, NSECOND, second_ranks, 2, 4, 1.25, &err) == STORQ_OK);
    CHECK(storq_h5_finish(&f, &err) == STORQ_OK);
    if (err.code)
        fprintf(stderr, "%s\n", err.msg);

    CHECK(read_rows(final, &rows, &chunk, &unlimited) == (long)(NFIRST + NSECOND));
    for (size_t i = 0; i < NFIRST; i++)
        CHECK(same_row(&rows[i], &first[i], 0));
    for (size_t i = 0; i < NSECOND; i++)
        CHECK(same_row(&rows[NFIRST + i], &second[i], 1));
    free(rows);
    stored_rank *ranks;
    CHECK(read_ranks(final, &ranks) == 3);
    CHECK(same_rank(&ranks[0], &first_ranks[0], 0));
    CHECK(same_rank(&ranks[1], &second_ranks[0], 1) && same_rank(&ranks[2], &second_ranks[1], 1));
    free(ranks);
    stored_session s[4];
    CHECK(read_sessions(final, s, 4) == 2);
    CHECK(s[0].session == 0 && s[0].workers == 2 && s[0].units == NFIRST && s[0].wall == 2.5 &&
          s[0].busy == 3.5 && s[0].efficiency == 0.7 && s[0].unit == 4.25 &&
          s[0].waiting == 0.25 && s[0].idle == 0.5 && s[0].serving == 0.25);
    CHECK(s[1].session == 1 && s[1].workers == 4 && s[1].units == NSECOND && s[1].wall == 1.25 &&
          s[1].busy == 2 && s[1].efficiency == 0.4 && s[1].unit == 2.5 && s[1].waiting == 0.5 &&
          s[1].idle == 2 && s[1].serving == 0.5);
    check_run_attrs(final, 4, 1.25, 2, 2.5, 0.5, 2, 0.5, 2);
    CHECK(minor_version(final) == 0);
    CHECK(!run_header_chained(final));

    /* One line per session, busy as CPU time; the layout from the rows (session 1: ranks 0-1,
     * threads 0-1), or from the root's mpi_ranks x omp_threads when the rows do not show it
     * (session 0); below it one line per rank, serving where there is some. */
    CHECK(info_says(final, "run, session 0: 5 units on 2 workers (1 rank x 2 threads), wall "
                           "2.50 s, busy 3.50 CPU-s simulating (in units 4.25 worker-s), "
                           "parallel efficiency 0.70\n"
                           "  rank 0 (2 threads): simulating 3.50 s, in units 4.25 s, waiting "
                           "0.25 s, idle 0.50 s, serving 0.25 s CPU\n"
                           "run, session 1: 3 units on 4 workers (2 ranks x 2 threads), wall "
                           "1.25 s, busy 2.00 CPU-s simulating (in units 2.50 worker-s), "
                           "parallel efficiency 0.40\n"
                           "  rank 0 (2 threads): simulating 0.75 s, in units 1.00 s, waiting "
                           "0.50 s, idle 1.00 s, serving 0.50 s CPU\n"
                           "  rank 1 (2 threads): simulating 1.25 s, in units 1.50 s, waiting "
                           "0.00 s, idle 1.00 s\n"));
}

/* A session without units still counts (its number is taken); wall 0 has no efficiency; bad
 * input is refused and writes nothing. */
static void test_empty_and_refusals(const storq_params *points)
{
    const char *final = "test_h5_units_empty.h5", *partial = "test_h5_units_empty.h5.partial";
    storq_run_meta meta = make_meta(0, 1);
    storq_error err = {0};
    storq_h5_file *f = NULL;
    CHECK(storq_h5_create(final, &meta, &fake_model, points, NPOINTS, &f, &err) == STORQ_OK);
    CHECK(storq_h5_write_units(f, NULL, 0, NULL, 0, 1, 0, &err) == STORQ_OK);
    CHECK(storq_h5_write_units(f, second, 1, NULL, 0, 1, 1, &err) == STORQ_OK);
    stored_row *rows;
    hsize_t chunk;
    int unlimited;
    CHECK(read_rows(partial, &rows, &chunk, &unlimited) == 1);
    CHECK(same_row(&rows[0], &second[0], 1)); /* session 0 had no units: this is session 1 */
    free(rows);
    stored_rank *ranks;
    CHECK(read_ranks(partial, &ranks) == 0); /* the table is there, without rows */
    free(ranks);
    stored_session s[4];
    CHECK(read_sessions(partial, s, 4) == 2);
    CHECK(s[0].units == 0 && isnan(s[0].efficiency) && s[1].efficiency == 1.0);
    /* Without the ranks' figures, where the rest of the time went is not known. */
    CHECK(s[1].unit == 1 && isnan(s[1].waiting) && isnan(s[1].idle) && isnan(s[1].serving));
    CHECK(attr_of(partial, "/run", "sessions") == 2);
    CHECK(isnan(attr_of(partial, "/run", "waiting_seconds")));
    /* Neither the rows nor the root's 1 x 2 tell the layout of 1 worker: none is shown; no
     * ranks, no lines below the session's. */
    CHECK(info_says(partial, "run, session 0: 0 units on 1 worker, wall 0 s, busy 0 CPU-s "
                             "simulating (in units 0 worker-s), parallel efficiency n/a\nrun, "
                             "session 1: 1 unit on 1 worker, wall 1.00 s, busy 1.00 CPU-s "
                             "simulating (in units 1.00 worker-s), parallel efficiency 1.00\n\n"));

    storq_unit_row bad = second[0];
    bad.rep = -2;
    err = (storq_error){0};
    CHECK(storq_h5_write_units(f, &bad, 1, NULL, 0, 2, 1, &err) == STORQ_ERR_RUNTIME);
    CHECK(strstr(err.msg, "row 0 has rep -2") != NULL);
    bad = second[0];
    bad.cpu = -0.5;
    err = (storq_error){0};
    CHECK(storq_h5_write_units(f, &bad, 1, NULL, 0, 2, 1, &err) == STORQ_ERR_RUNTIME);
    CHECK(strstr(err.msg, "row 0 has cpu -0.5 s") != NULL);
    storq_rank_time bad_rank = second_ranks[1];
    bad_rank.idle = NAN;
    err = (storq_error){0};
    CHECK(storq_h5_write_units(f, second, 1, &bad_rank, 1, 2, 1, &err) == STORQ_ERR_RUNTIME);
    CHECK(strstr(err.msg, "entry 0 (rank 1, 2 threads) has a figure") != NULL);
    bad_rank = second_ranks[1];
    bad_rank.rank = -1;
    CHECK(storq_h5_write_units(f, second, 1, &bad_rank, 1, 2, 1, &err) == STORQ_ERR_RUNTIME);
    err = (storq_error){0};
    CHECK(storq_h5_write_units(f, second, 1, NULL, 2, 2, 1, &err) == STORQ_ERR_RUNTIME);
    CHECK(strstr(err.msg, "2 ranks but no rank array") != NULL);
    err = (storq_error){0};
    CHECK(storq_h5_write_units(f, second, 1, NULL, 0, 0, 1, &err) == STORQ_ERR_RUNTIME);
    CHECK(strstr(err.msg, "0 workers") != NULL);
    err = (storq_error){0};
    CHECK(storq_h5_write_units(f, second, 1, NULL, 0, 1, NAN, &err) == STORQ_ERR_RUNTIME);
    err = (storq_error){0};
    CHECK(storq_h5_write_units(NULL, second, 1, NULL, 0, 1, 1, &err) == STORQ_ERR_RUNTIME);
    CHECK(read_sessions(partial, s, 4) == 2);
    storq_h5_close(&f);
    remove(partial);
}

/* A task's table carries its task. storq merge copies /run from its first input, table and all:
 * info says whose units they are; a resume of the merged partial starts the record over. */
static void test_merge(const storq_params *points)
{
    const char *t0 = "test_h5_units_t0.h5", *t1 = "test_h5_units_t1.h5";
    const char *merged = "test_h5_units_merged.h5";
    /* a run never replaces a finished file without --force: leftovers of a failed run go first */
    remove(t0);
    remove(t1);
    remove(merged);
    remove("test_h5_units_merged.h5.partial");
    const char *merged_partial = "test_h5_units_merged.h5.partial";
    storq_error err = {0};
    for (size_t task = 0; task < 2; task++) {
        storq_run_meta meta = make_meta(task, 2);
        storq_h5_file *f = NULL;
        const storq_unit_row row = {.point = task, .rep = 0, .start = 0, .end = 1, .cost = 1,
                                    .cpu = 1};
        const storq_rank_time rank = {.threads = 1, .simulating = 1, .in_units = 1, .idle = 1};
        CHECK(storq_h5_create(task ? t1 : t0, &meta, &fake_model, points, NPOINTS, &f, &err) ==
              STORQ_OK);
        CHECK(write_complete(f, points, task) == STORQ_OK);
        CHECK(storq_h5_write_units(f, &row, 1, &rank, 1, 1, 2, &err) == STORQ_OK);
        CHECK(storq_h5_finish(&f, &err) == STORQ_OK);
    }
    CHECK(attr_of(t1, STORQ_SCHEMA_UNITS_PATH, "task_index") == 1);
    CHECK(attr_of(t1, STORQ_SCHEMA_UNITS_PATH, "task_count") == 2);
    CHECK(minor_version(t1) == STORQ_SCHEMA_MINOR_TASKS);

    /* Task 1's file first: its /run comes along. */
    char *both[] = {(char *)t1, (char *)t0};
    FILE *report = fopen("test_h5_units_merge.txt", "w");
    CHECK(report && storq_h5_merge(merged, both, 2, "storq merge", 1, report, &err) == STORQ_OK);
    if (report)
        fclose(report);
    remove("test_h5_units_merge.txt");
    CHECK(minor_version(merged) == 0);
    CHECK(info_says(merged, "run: the units of task 1/2 only (storq merge copied them from its "
                            "file)"));
    CHECK(info_says(merged, "run: 1 unit on 1 worker (1 rank x 1 thread), wall 2.00 s, busy "
                            "1.00 CPU-s simulating (in units 1.00 worker-s), parallel efficiency "
                            "0.50\n  rank 0 (1 thread): simulating 1.00 s, in units 1.00 s, "
                            "waiting 0.00 s, idle 1.00 s\n"));

    /* Task 1's file alone: a whole-run partial; its resume drops task 1's table. */
    char *one[] = {(char *)t1};
    report = fopen("test_h5_units_merge.txt", "w");
    CHECK(report && storq_h5_merge(merged, one, 1, "storq merge", 1, report, &err) ==
                        STORQ_ERR_RUNTIME);
    if (report)
        fclose(report);
    remove("test_h5_units_merge.txt");
    storq_run_meta meta = make_meta(0, 1);
    meta.force = 1; /* the merged file of both tasks is still there: --resume --force */
    storq_h5_file *f = NULL;
    unsigned char done[NPOINTS];
    err = (storq_error){0};
    CHECK(storq_h5_resume(merged, &meta, &fake_model, points, NPOINTS, done, &f, &err) == STORQ_OK);
    CHECK(done[0] == 0 && done[1] == 1);
    CHECK(write_complete(f, points, 0) == STORQ_OK);
    CHECK(storq_h5_write_units(f, second, NSECOND, second_ranks, 2, 4, 1.25, &err) == STORQ_OK);
    CHECK(storq_h5_finish(&f, &err) == STORQ_OK);
    stored_row *rows;
    hsize_t chunk;
    int unlimited;
    CHECK(read_rows(merged, &rows, &chunk, &unlimited) == (long)NSECOND);
    CHECK(same_row(&rows[0], &second[0], 0));
    free(rows);
    stored_rank *ranks; /* task 1's rank went with its table */
    CHECK(read_ranks(merged, &ranks) == 2 && same_rank(&ranks[0], &second_ranks[0], 0));
    free(ranks);
    CHECK(isnan(attr_of(merged, STORQ_SCHEMA_UNITS_PATH, "task_count")));
    CHECK(attr_of(merged, "/run", "sessions") == 1);
    CHECK(info_says(merged, "run: 3 units on 4 workers"));
    remove(t0);
    remove(t1);
    remove(merged);
    remove(merged_partial);
}

/* ---- a record written before cpu_seconds ---- */

/* Set (replacing) a scalar attribute of /run. */
static void old_attr(hid_t run, const char *name, hid_t type, const void *value)
{
    if (H5Aexists(run, name) > 0)
        H5Adelete(run, name);
    hid_t space = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(run, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(a, type, value);
    H5Aclose(a);
    H5Sclose(space);
}

/* Append rows (n of size bytes, memory type t) to run/name as a storq before cpu_seconds did:
 * creating a packed, chunked, unlimited table of its columns when there is none. */
static void old_append(hid_t run, const char *name, hid_t t, const void *rows, hsize_t n)
{
    hid_t d;
    if (H5Lexists(run, name, H5P_DEFAULT) > 0) {
        d = H5Dopen2(run, name, H5P_DEFAULT);
    } else {
        hsize_t zero = 0, unlimited = H5S_UNLIMITED, chunk = 16;
        hid_t ftype = H5Tcopy(t), space = H5Screate_simple(1, &zero, &unlimited);
        hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
        H5Tpack(ftype);
        H5Pset_chunk(dcpl, 1, &chunk);
        d = H5Dcreate2(run, name, ftype, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
        H5Pclose(dcpl);
        H5Sclose(space);
        H5Tclose(ftype);
    }
    hid_t space = H5Dget_space(d);
    hsize_t old = 0, total;
    H5Sget_simple_extent_dims(space, &old, NULL);
    H5Sclose(space);
    total = old + n;
    H5Dset_extent(d, &total);
    space = H5Dget_space(d);
    hid_t mspace = H5Screate_simple(1, &n, NULL);
    H5Sselect_hyperslab(space, H5S_SELECT_SET, &old, NULL, &n, NULL);
    CHECK(H5Dwrite(d, t, mspace, space, H5P_DEFAULT, rows) >= 0);
    H5Sclose(mspace);
    H5Sclose(space);
    H5Dclose(d);
    H5Tclose(t);
}

/* Session `session` of path's record as a storq before cpu_seconds wrote it: its rows and
 * summary without the new columns (busy: the time in units), /run's five attributes, no ranks. */
static void old_storq_writes(const char *path, uint32_t session, const storq_unit_row *rows,
                             size_t n, int64_t workers, double wall)
{
    stored_row rec[8] = {{0}};
    stored_session sum = {.session = session, .workers = workers, .units = n, .wall = wall};
    for (size_t i = 0; i < n && i < 8; i++) {
        rec[i] = (stored_row){.session = session, .point = rows[i].point, .rep = rows[i].rep,
                              .rank = rows[i].rank, .thread = rows[i].thread,
                              .start = rows[i].start, .end = rows[i].end,
                              .events = rows[i].events, .cost = rows[i].cost};
        sum.busy += rows[i].end - rows[i].start;
    }
    sum.efficiency = sum.busy / ((double)workers * wall);
    hid_t file = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    hid_t run = H5Gopen2(file, "/run", H5P_DEFAULT);
    old_append(run, "units", row_type(1), rec, n);
    old_append(run, "sessions", session_type(1), &sum, 1);
    hsize_t sessions = 0;
    hid_t d = H5Dopen2(run, "sessions", H5P_DEFAULT), space = H5Dget_space(d);
    H5Sget_simple_extent_dims(space, &sessions, NULL);
    H5Sclose(space);
    H5Dclose(d);
    uint64_t count = sessions;
    old_attr(run, "workers", H5T_NATIVE_INT64, &workers);
    old_attr(run, "wall_seconds", H5T_NATIVE_DOUBLE, &wall);
    old_attr(run, "busy_seconds", H5T_NATIVE_DOUBLE, &sum.busy);
    old_attr(run, "parallel_efficiency", H5T_NATIVE_DOUBLE, &sum.efficiency);
    old_attr(run, "sessions", H5T_NATIVE_UINT64, &count);
    H5Gclose(run);
    H5Fclose(file);
}

/* A file whose record a storq before cpu_seconds wrote: info prints its line as then; --resume
 * rewrites the tables with the new columns (NaN in the old rows, whose busy stays the time in
 * units) and adds /run/ranks; rows an older storq then appends read NaN in the new columns. */
static void test_old_record(const storq_params *points)
{
    const char *final = "test_h5_units_old.h5", *partial = "test_h5_units_old.h5.partial";
    remove(final);
    storq_run_meta meta = make_meta(0, 1);
    storq_error err = {0};
    storq_h5_file *f = NULL;
    CHECK(storq_h5_create(final, &meta, &fake_model, points, NPOINTS, &f, &err) == STORQ_OK);
    CHECK(write_complete(f, points, 1) == STORQ_OK);
    storq_h5_close(&f);
    old_storq_writes(partial, 0, first, NFIRST, 2, 2.5);
    const char *old_line = "run, session 0: 5 units on 2 workers (1 rank x 2 threads), wall "
                           "2.50 s, busy 4.25 worker-s, parallel efficiency 0.85\n";
    CHECK(info_says(partial, old_line + strlen("run, session 0")) &&
          info_says(partial, "\nrun: 5 units"));

    unsigned char done[NPOINTS];
    CHECK(storq_h5_resume(final, &meta, &fake_model, points, NPOINTS, done, &f, &err) == STORQ_OK);
    CHECK(write_complete(f, points, 0) == STORQ_OK);
    CHECK(storq_h5_write_units(f, second, NSECOND, second_ranks, 2, 4, 1.25, &err) == STORQ_OK);
    CHECK(storq_h5_finish(&f, &err) == STORQ_OK);
    stored_row *rows;
    hsize_t chunk;
    int unlimited;
    CHECK(read_rows(final, &rows, &chunk, &unlimited) == (long)(NFIRST + NSECOND));
    for (size_t i = 0; i < NFIRST; i++) {
        storq_unit_row want = first[i];
        CHECK(isnan(rows[i].cpu));
        rows[i].cpu = want.cpu = 0;
        CHECK(same_row(&rows[i], &want, 0));
    }
    for (size_t i = 0; i < NSECOND; i++)
        CHECK(same_row(&rows[NFIRST + i], &second[i], 1));
    CHECK(unlimited && chunk > 0);
    free(rows);
    stored_session s[4];
    CHECK(read_sessions(final, s, 4) == 2);
    CHECK(s[0].busy == 4.25 && s[0].efficiency == 0.85 && isnan(s[0].unit) &&
          isnan(s[0].waiting) && isnan(s[0].idle) && isnan(s[0].serving));
    CHECK(s[1].session == 1 && s[1].busy == 2 && s[1].unit == 2.5 && s[1].serving == 0.5);
    stored_rank *ranks;
    CHECK(read_ranks(final, &ranks) == 2 && same_rank(&ranks[1], &second_ranks[1], 1));
    free(ranks);
    check_run_attrs(final, 4, 1.25, 2, 2.5, 0.5, 2, 0.5, 2);
    CHECK(info_says(final, old_line));
    CHECK(info_says(final, "run, session 1: 3 units on 4 workers (2 ranks x 2 threads), wall "
                           "1.25 s, busy 2.00 CPU-s simulating (in units 2.50 worker-s), "
                           "parallel efficiency 0.40\n  rank 0 (2 threads)"));

    /* An older storq resuming this file again appends without the columns it does not know. */
    old_storq_writes(final, 2, second, 1, 1, 1);
    CHECK(read_rows(final, &rows, &chunk, &unlimited) == (long)(NFIRST + NSECOND + 1));
    CHECK(rows[NFIRST + NSECOND].session == 2 && isnan(rows[NFIRST + NSECOND].cpu));
    free(rows);
    CHECK(read_sessions(final, s, 4) == 3);
    CHECK(s[2].busy == 1 && isnan(s[2].unit) && isnan(s[2].waiting) && isnan(s[2].serving));
    CHECK(info_says(final, "idle 1.00 s\nrun, session 2: 1 unit on 1 worker, wall "
                           "1.00 s, busy 1.00 worker-s, parallel efficiency 1.00\n\n"));
    remove(final);
}

int main(int argc, char **argv)
{
    if (argc > 1 && chdir(argv[1]) != 0) {
        perror(argv[1]);
        return 1;
    }
    storq_params points[NPOINTS];
    fake_points(points, NPOINTS);
    test_sessions(points);
    test_empty_and_refusals(points);
    test_merge(points);
    test_old_record(points);
    fake_points_free(points, NPOINTS);
    return check_report("test_h5_units");
}
