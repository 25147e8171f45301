/* The run's record of its units (io/h5_units.h) on a test-only model: a first session's rows on a
 * fresh file, closed unfinished, a second session appended after --resume, read back through HDF5
 * directly: rows, session numbers, /run/sessions, /run's attributes (the latest session's) and
 * the efficiency arithmetic; the format_version stays 1.0; a session without units, bad input,
 * `storq info`'s lines, and a table that `storq merge` copies from a task's file (a resume of the
 * merged partial starts the record over). Leaves test_h5_units_left.h5 (two sessions, exact
 * values) for the Python checks. */
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

/* ---- reading back, through HDF5 directly ---- */

typedef struct stored_row {
    uint32_t session;
    uint64_t point;
    int64_t rep;
    int32_t rank, thread;
    double start, end;
    uint64_t events;
    double cost;
} stored_row;

typedef struct stored_session {
    uint32_t session;
    int64_t workers;
    uint64_t units;
    double wall, busy, efficiency;
} stored_session;

static hid_t insert(hid_t t, const char *name, size_t offset, hid_t type)
{
    H5Tinsert(t, name, offset, type);
    return t;
}

/* Every row of /run/units (malloc'd, free()); -1 when the table is not there. */
static long read_rows(const char *path, stored_row **rows, hsize_t *chunk, int *unlimited)
{
    hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    hid_t d = file >= 0 ? H5Dopen2(file, STORQ_SCHEMA_UNITS_PATH, H5P_DEFAULT) : -1;
    long n = -1;
    *rows = NULL;
    if (d >= 0) {
        hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(stored_row));
        insert(t, "session", offsetof(stored_row, session), H5T_NATIVE_UINT32);
        insert(t, "point", offsetof(stored_row, point), H5T_NATIVE_UINT64);
        insert(t, "rep", offsetof(stored_row, rep), H5T_NATIVE_INT64);
        insert(t, "rank", offsetof(stored_row, rank), H5T_NATIVE_INT32);
        insert(t, "thread", offsetof(stored_row, thread), H5T_NATIVE_INT32);
        insert(t, "start", offsetof(stored_row, start), H5T_NATIVE_DOUBLE);
        insert(t, "end", offsetof(stored_row, end), H5T_NATIVE_DOUBLE);
        insert(t, "events", offsetof(stored_row, events), H5T_NATIVE_UINT64);
        insert(t, "cost", offsetof(stored_row, cost), H5T_NATIVE_DOUBLE);
        hid_t space = H5Dget_space(d), dcpl = H5Dget_create_plist(d);
        hsize_t dims = 0, maxdims = 0;
        H5Sget_simple_extent_dims(space, &dims, &maxdims);
        *unlimited = maxdims == H5S_UNLIMITED;
        *chunk = 0;
        if (H5Pget_layout(dcpl) == H5D_CHUNKED)
            H5Pget_chunk(dcpl, 1, chunk);
        *rows = calloc(dims + 1, sizeof **rows);
        if (dims == 0 || H5Dread(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, *rows) >= 0)
            n = (long)dims;
        H5Pclose(dcpl);
        H5Sclose(space);
        H5Tclose(t);
        H5Dclose(d);
    }
    if (file >= 0)
        H5Fclose(file);
    return n;
}

static long read_sessions(const char *path, stored_session *out, size_t max)
{
    hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    hid_t d = file >= 0 ? H5Dopen2(file, STORQ_SCHEMA_SESSIONS_PATH, H5P_DEFAULT) : -1;
    long n = -1;
    if (d >= 0) {
        hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(stored_session));
        insert(t, "session", offsetof(stored_session, session), H5T_NATIVE_UINT32);
        insert(t, "workers", offsetof(stored_session, workers), H5T_NATIVE_INT64);
        insert(t, "units", offsetof(stored_session, units), H5T_NATIVE_UINT64);
        insert(t, "wall_seconds", offsetof(stored_session, wall), H5T_NATIVE_DOUBLE);
        insert(t, "busy_seconds", offsetof(stored_session, busy), H5T_NATIVE_DOUBLE);
        insert(t, "parallel_efficiency", offsetof(stored_session, efficiency),
               H5T_NATIVE_DOUBLE);
        hid_t space = H5Dget_space(d);
        hssize_t count = H5Sget_simple_extent_npoints(space);
        stored_session *all = calloc((size_t)count + 1, sizeof *all);
        if (count == 0 || H5Dread(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, all) >= 0) {
            n = (long)count;
            memcpy(out, all, ((size_t)count < max ? (size_t)count : max) * sizeof *all);
        }
        free(all);
        H5Sclose(space);
        H5Tclose(t);
        H5Dclose(d);
    }
    if (file >= 0)
        H5Fclose(file);
    return n;
}

/* A numeric attribute of /run (or of /run/units) as a double; NAN when absent. */
static double attr_of(const char *path, const char *object, const char *name)
{
    hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    double v = NAN;
    if (file >= 0 && H5Aexists_by_name(file, object, name, H5P_DEFAULT) > 0) {
        hid_t a = H5Aopen_by_name(file, object, name, H5P_DEFAULT, H5P_DEFAULT);
        H5Aread(a, H5T_NATIVE_DOUBLE, &v);
        H5Aclose(a);
    }
    if (file >= 0)
        H5Fclose(file);
    H5Eclear2(H5E_DEFAULT);
    return v;
}

static int minor_version(const char *path)
{
    hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    int32_t v[2] = {-1, -1};
    if (file >= 0) {
        hid_t a = H5Aopen(file, STORQ_SCHEMA_ATTR_VERSION, H5P_DEFAULT);
        H5Aread(a, H5T_NATIVE_INT32, v);
        H5Aclose(a);
        H5Fclose(file);
    }
    return v[0] == STORQ_SCHEMA_MAJOR ? v[1] : -1;
}

static int contains(const char *path, const char *needle)
{
    FILE *fp = fopen(path, "r");
    char line[4096];
    int found = 0;
    while (fp && !found && fgets(line, sizeof line, fp))
        found = strstr(line, needle) != NULL;
    if (fp)
        fclose(fp);
    return found;
}

/* storq info's text of path into a file, and whether it holds needle. */
static int info_says(const char *path, const char *needle)
{
    storq_error err = {0};
    FILE *out = fopen("test_h5_units_info.txt", "w");
    int rc = out ? storq_h5_info(path, out, &err) : -1;
    if (out)
        fclose(out);
    int found = rc == STORQ_OK && contains("test_h5_units_info.txt", needle);
    if (!found) {
        fprintf(stderr, "storq info %s lacks '%s'%s%s\n", path, needle, rc ? ": " : "",
                rc ? err.msg : "");
        if (!rc)
            system("cat test_h5_units_info.txt >&2");
    }
    remove("test_h5_units_info.txt");
    return found;
}

/* ---- the tests ---- */

/* Session 0: the theory of both points and 3 replications; durations 0.5, 1, 1.5, 0.5 and 0.75
 * (busy 4.25 s) on 2 workers in a wall time of 2.5 s: efficiency 0.85. */
static const storq_unit_row first[] = {
    {.point = 0, .rep = STORQ_UNIT_REP_THEORY, .rank = 0, .thread = 0, .start = 0, .end = 0.5},
    {.point = 1, .rep = STORQ_UNIT_REP_THEORY, .rank = 0, .thread = 1, .start = 0, .end = 1},
    {.point = 1, .rep = 0, .rank = 0, .thread = 0, .start = 0.5, .end = 2, .events = 900,
     .cost = 20},
    {.point = 1, .rep = 1, .rank = 0, .thread = 1, .start = 1, .end = 1.5, .events = 400,
     .cost = 20},
    {.point = 0, .rep = 0, .rank = 0, .thread = 1, .start = 1.5, .end = 2.25, .events = 300,
     .cost = 10},
};
/* Session 1 (after --resume, on 2 ranks x 2 threads): the other replications, durations 1, 1,
 * 0.5 (busy 2.5 s) on 4 workers in 1.25 s: efficiency 0.5. */
static const storq_unit_row second[] = {
    {.point = 1, .rep = 2, .rank = 1, .thread = 1, .start = 0, .end = 1, .events = 800,
     .cost = 20},
    {.point = 0, .rep = 1, .rank = 0, .thread = 1, .start = 0, .end = 1, .events = 700,
     .cost = 10},
    {.point = 0, .rep = 2, .rank = 1, .thread = 0, .start = 0.25, .end = 0.75, .events = 350,
     .cost = 10},
};
#define NFIRST (sizeof first / sizeof *first)
#define NSECOND (sizeof second / sizeof *second)

static int same_row(const stored_row *s, const storq_unit_row *r, uint32_t session)
{
    return s->session == session && s->point == r->point && s->rep == r->rep &&
           s->rank == r->rank && s->thread == r->thread && s->start == r->start &&
           s->end == r->end && s->events == r->events && s->cost == r->cost;
}

/* /run's attributes are those of the session given, and sessions says how many there are. */
static void check_run_attrs(const char *path, double workers, double wall, double busy,
                            double sessions)
{
    CHECK(attr_of(path, "/run", "workers") == workers);
    CHECK(attr_of(path, "/run", "wall_seconds") == wall);
    CHECK_NEAR(attr_of(path, "/run", "busy_seconds"), busy, 1e-12);
    CHECK_NEAR(attr_of(path, "/run", "parallel_efficiency"), busy / (workers * wall), 1e-12);
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
    CHECK(storq_h5_write_units(f, first, NFIRST, 2, 2.5, &err) == STORQ_OK);
    storq_h5_close(&f); /* a run stopped before point 0 finished */

    stored_row *rows;
    hsize_t chunk;
    int unlimited;
    CHECK(read_rows(partial, &rows, &chunk, &unlimited) == (long)NFIRST);
    for (size_t i = 0; i < NFIRST; i++)
        CHECK(same_row(&rows[i], &first[i], 0));
    CHECK(unlimited && chunk > 0);
    free(rows);
    check_run_attrs(partial, 2, 2.5, 4.25, 1);
    CHECK(attr_of(partial, "/run", "parallel_efficiency") == 0.85);
    CHECK(minor_version(partial) == 0);

    unsigned char done[NPOINTS];
    err = (storq_error){0};
    CHECK(storq_h5_resume(final, &meta, &fake_model, points, NPOINTS, done, &f, &err) == STORQ_OK);
    CHECK(done[0] == 0 && done[1] == 1);
    CHECK(write_complete(f, points, 0) == STORQ_OK);
    CHECK(storq_h5_write_units(f, second, NSECOND, 4, 1.25, &err) == STORQ_OK);
    CHECK(storq_h5_finish(&f, &err) == STORQ_OK);
    if (err.code)
        fprintf(stderr, "%s\n", err.msg);

    CHECK(read_rows(final, &rows, &chunk, &unlimited) == (long)(NFIRST + NSECOND));
    for (size_t i = 0; i < NFIRST; i++)
        CHECK(same_row(&rows[i], &first[i], 0));
    for (size_t i = 0; i < NSECOND; i++)
        CHECK(same_row(&rows[NFIRST + i], &second[i], 1));
    free(rows);
    stored_session s[4];
    CHECK(read_sessions(final, s, 4) == 2);
    CHECK(s[0].session == 0 && s[0].workers == 2 && s[0].units == NFIRST && s[0].wall == 2.5 &&
          s[0].busy == 4.25 && s[0].efficiency == 0.85);
    CHECK(s[1].session == 1 && s[1].workers == 4 && s[1].units == NSECOND && s[1].wall == 1.25 &&
          s[1].busy == 2.5 && s[1].efficiency == 0.5);
    check_run_attrs(final, 4, 1.25, 2.5, 2);
    CHECK(minor_version(final) == 0);

    /* One line per session; the layout from the rows (session 1: ranks 0-1, threads 0-1), or
     * from the root's mpi_ranks x omp_threads when the rows do not show it (session 0). */
    CHECK(info_says(final, "run, session 0: 5 units on 2 workers (1 rank x 2 threads), wall "
                           "2.50 s, busy 4.25 worker-s, parallel efficiency 0.85"));
    CHECK(info_says(final, "run, session 1: 3 units on 4 workers (2 ranks x 2 threads), wall "
                           "1.25 s, busy 2.50 worker-s, parallel efficiency 0.50"));
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
    CHECK(storq_h5_write_units(f, NULL, 0, 1, 0, &err) == STORQ_OK);
    CHECK(storq_h5_write_units(f, second, 1, 1, 1, &err) == STORQ_OK);
    stored_row *rows;
    hsize_t chunk;
    int unlimited;
    CHECK(read_rows(partial, &rows, &chunk, &unlimited) == 1);
    CHECK(same_row(&rows[0], &second[0], 1)); /* session 0 had no units: this is session 1 */
    free(rows);
    stored_session s[4];
    CHECK(read_sessions(partial, s, 4) == 2);
    CHECK(s[0].units == 0 && isnan(s[0].efficiency) && s[1].efficiency == 1.0);
    CHECK(attr_of(partial, "/run", "sessions") == 2);
    /* Neither the rows nor the root's 1 x 2 tell the layout of 1 worker: none is shown. */
    CHECK(info_says(partial, "run, session 0: 0 units on 1 worker, wall 0 s, busy 0 worker-s, "
                             "parallel efficiency n/a"));

    storq_unit_row bad = second[0];
    bad.rep = -2;
    err = (storq_error){0};
    CHECK(storq_h5_write_units(f, &bad, 1, 2, 1, &err) == STORQ_ERR_RUNTIME);
    CHECK(strstr(err.msg, "row 0 has rep -2") != NULL);
    err = (storq_error){0};
    CHECK(storq_h5_write_units(f, second, 1, 0, 1, &err) == STORQ_ERR_RUNTIME);
    CHECK(strstr(err.msg, "0 workers") != NULL);
    err = (storq_error){0};
    CHECK(storq_h5_write_units(f, second, 1, 1, NAN, &err) == STORQ_ERR_RUNTIME);
    err = (storq_error){0};
    CHECK(storq_h5_write_units(NULL, second, 1, 1, 1, &err) == STORQ_ERR_RUNTIME);
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
    const char *merged_partial = "test_h5_units_merged.h5.partial";
    storq_error err = {0};
    for (size_t task = 0; task < 2; task++) {
        storq_run_meta meta = make_meta(task, 2);
        storq_h5_file *f = NULL;
        const storq_unit_row row = {.point = task, .rep = 0, .start = 0, .end = 1, .cost = 1};
        CHECK(storq_h5_create(task ? t1 : t0, &meta, &fake_model, points, NPOINTS, &f, &err) ==
              STORQ_OK);
        CHECK(write_complete(f, points, task) == STORQ_OK);
        CHECK(storq_h5_write_units(f, &row, 1, 1, 2, &err) == STORQ_OK);
        CHECK(storq_h5_finish(&f, &err) == STORQ_OK);
    }
    CHECK(attr_of(t1, STORQ_SCHEMA_UNITS_PATH, "task_index") == 1);
    CHECK(attr_of(t1, STORQ_SCHEMA_UNITS_PATH, "task_count") == 2);
    CHECK(minor_version(t1) == STORQ_SCHEMA_MINOR_TASKS);

    /* Task 1's file first: its /run comes along. */
    char *both[] = {(char *)t1, (char *)t0};
    FILE *report = fopen("test_h5_units_merge.txt", "w");
    CHECK(report && storq_h5_merge(merged, both, 2, "storq merge", report, &err) == STORQ_OK);
    if (report)
        fclose(report);
    remove("test_h5_units_merge.txt");
    CHECK(minor_version(merged) == 0);
    CHECK(info_says(merged, "run: the units of task 1/2 only (storq merge copied them from its "
                            "file)"));
    CHECK(info_says(merged, "run: 1 unit on 1 worker"));

    /* Task 1's file alone: a whole-run partial; its resume drops task 1's table. */
    char *one[] = {(char *)t1};
    report = fopen("test_h5_units_merge.txt", "w");
    CHECK(report && storq_h5_merge(merged, one, 1, "storq merge", report, &err) ==
                        STORQ_ERR_RUNTIME);
    if (report)
        fclose(report);
    remove("test_h5_units_merge.txt");
    storq_run_meta meta = make_meta(0, 1);
    storq_h5_file *f = NULL;
    unsigned char done[NPOINTS];
    err = (storq_error){0};
    CHECK(storq_h5_resume(merged, &meta, &fake_model, points, NPOINTS, done, &f, &err) == STORQ_OK);
    CHECK(done[0] == 0 && done[1] == 1);
    CHECK(write_complete(f, points, 0) == STORQ_OK);
    CHECK(storq_h5_write_units(f, second, NSECOND, 4, 1.25, &err) == STORQ_OK);
    CHECK(storq_h5_finish(&f, &err) == STORQ_OK);
    stored_row *rows;
    hsize_t chunk;
    int unlimited;
    CHECK(read_rows(merged, &rows, &chunk, &unlimited) == (long)NSECOND);
    CHECK(same_row(&rows[0], &second[0], 0));
    free(rows);
    CHECK(isnan(attr_of(merged, STORQ_SCHEMA_UNITS_PATH, "task_count")));
    CHECK(attr_of(merged, "/run", "sessions") == 1);
    CHECK(info_says(merged, "run: 3 units on 4 workers"));
    remove(t0);
    remove(t1);
    remove(merged);
    remove(merged_partial);
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
    fake_points_free(points, NPOINTS);
    return check_report("test_h5_units");
}
