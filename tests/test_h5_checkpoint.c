/* Replication-level checkpoints (io/h5_checkpoint.h) on a test-only model: a checkpoint survives
 * closing without finishing and reads back bit for bit after --resume, an overwrite replaces it,
 * a drop removes it, a wrong shape is refused, a torn or stale one is ignored and tidied, and the
 * stated format_version is 1.2 exactly while a checkpoint exists (1.0 again, or 1.1 for a task's
 * file, after). `storq info` lists it, `storq merge` leaves it out, and repeated overwrites do
 * not make the file grow. Leaves test_h5_checkpoint_left.h5.partial (a complete point and a
 * checkpoint) for the Python schema check. */
#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "fake_run.h"
#include "h5_checkpoint.h"
#include "h5_info.h"
#include "h5_merge.h"
#include "h5_writer.h"
#include "schema.h"

#define NPOINTS 2
#define REPS 5

/* A scalar, a matrix_rows x 3 matrix and an integer histogram: with 2 rows nvalues 8, ncounts 6,
 * nminmax 2; with 3 rows the shapes no longer match a checkpoint of the usual ones. */
static int declare(storq_observables *obs, size_t matrix_rows, storq_error *err)
{
    int id;
    STORQ_TRY(storq_declare_scalar(obs, &id, "delay_mean", "time", "mean delay", err));
    STORQ_TRY(storq_declare_matrix(obs, &id, "u_t", "", "u_i(t)", matrix_rows, 3, NULL, NULL,
                                   err));
    return storq_declare_hist_int(obs, &id, "queue", "tasks", "queue length", 4, err);
}

/* Replication r: values that differ in every bit pattern, a histogram of r + 3 samples. */
static void add_replication(storq_point_result *res, size_t r)
{
    storq_record rec;
    storq_error err = {0};
    CHECK(storq_record_init(&rec, res->schema, &err) == STORQ_OK);
    storq_record_reset(&rec);
    for (size_t i = 0; i < res->schema->nvalues; i++)
        rec.values[i] = 1.0 / 3.0 * (double)(r + 1) + (double)i * M_PI;
    storq_hist h = storq_record_hist(&rec, 2);
    for (size_t k = 0; k < r + 3; k++)
        storq_hist_add(&h, (double)((k * 7 + r) % 6));
    rec.events = 1000 + r;
    storq_point_result_add(res, r, &rec);
    storq_record_free(&rec);
}

typedef struct snapshot {
    storq_observables obs;
    storq_point_result res;
    unsigned char done[REPS];
} snapshot;

static void snapshot_init(snapshot *s, size_t matrix_rows, size_t reps)
{
    storq_error err = {0};
    memset(s, 0, sizeof *s);
    CHECK(declare(&s->obs, matrix_rows, &err) == STORQ_OK);
    CHECK(storq_point_result_init(&s->res, &s->obs, reps, &err) == STORQ_OK);
}

static void snapshot_free(snapshot *s)
{
    storq_point_result_free(&s->res);
    storq_observables_free(&s->obs);
}

static void snapshot_add(snapshot *s, size_t r)
{
    add_replication(&s->res, r);
    s->done[r] = 1;
}

/* Bit for bit: every value row, count, min/max, events and the done mask. */
static int same(const snapshot *a, const snapshot *b)
{
    const storq_observables *o = a->res.schema;
    return memcmp(a->done, b->done, REPS) == 0 &&
           memcmp(a->res.values, b->res.values, REPS * o->nvalues * sizeof(double)) == 0 &&
           memcmp(a->res.counts, b->res.counts, o->ncounts * sizeof(uint64_t)) == 0 &&
           memcmp(a->res.minmax, b->res.minmax, o->nminmax * sizeof(double)) == 0 &&
           a->res.events == b->res.events;
}

/* Read point p's checkpoint into a fresh snapshot; the return of storq_h5_read_checkpoint. */
static int read_back(storq_h5_file *f, size_t p, snapshot *s, double *seconds)
{
    storq_error err = {0};
    snapshot_init(s, 2, REPS);
    memset(s->done, 7, REPS);
    int got = storq_h5_read_checkpoint(f, p, &s->res, s->done, seconds, &err);
    if (got < 0)
        fprintf(stderr, "read_checkpoint: %s\n", err.msg);
    return got;
}

/* The stated format_version, read from another handle on the (open or closed) file. */
static int minor_version(const char *path)
{
    hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    int32_t v[2] = {-1, -1};
    if (file >= 0) {
        hid_t a = H5Aopen(file, STORQ_SCHEMA_ATTR_VERSION, H5P_DEFAULT);
        if (a >= 0) {
            H5Aread(a, H5T_NATIVE_INT32, v);
            H5Aclose(a);
        }
        H5Fclose(file);
    }
    return v[0] == STORQ_SCHEMA_MAJOR ? v[1] : -1;
}

/* The minor version a file states: base, or 1.3 once a histogram's edges went to /layouts. */
static int stated(const char *path, int base)
{
    hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (file < 0)
        return -1;
    int layouts = H5Lexists(file, STORQ_SCHEMA_LAYOUTS_PATH, H5P_DEFAULT) > 0;
    H5Fclose(file);
    return layouts ? STORQ_SCHEMA_MINOR_LAYOUTS : base;
}

static int has_link(const char *path, const char *link)
{
    hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (file < 0)
        return -1;
    int r = H5Lexists(file, "/" STORQ_SCHEMA_CHECKPOINTS, H5P_DEFAULT) > 0 &&
            (strcmp(link, "/" STORQ_SCHEMA_CHECKPOINTS) == 0 ||
             H5Lexists(file, link, H5P_DEFAULT) > 0);
    H5Fclose(file);
    return r;
}

static long file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long)st.st_size : -1;
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

static storq_run_meta make_meta(void)
{
    return fake_meta(REPS, 3, 0, 1);
}

/* The whole point p (every replication) written complete, as the driver does. */
static int write_complete(storq_h5_file *f, const storq_params *points, size_t p)
{
    storq_error err = {0};
    snapshot s;
    storq_summary sum;
    snapshot_init(&s, 2, REPS);
    for (size_t r = 0; r < REPS; r++)
        snapshot_add(&s, r);
    int rc = storq_summary_compute(&sum, &s.res, &err);
    if (!rc) {
        rc = storq_h5_write_point(f, p, &points[p], &s.res, &sum, NULL, NULL, 0.5, NULL, &err);
        storq_summary_free(&sum);
    }
    if (rc)
        fprintf(stderr, "write_point: %s\n", err.msg);
    snapshot_free(&s);
    return rc;
}

/* Write, close unfinished, resume, read back, overwrite, refuse wrong shapes, drop, finish. */
static void test_round_trip(const storq_params *points)
{
    const char *final = "test_h5_checkpoint.h5", *partial = "test_h5_checkpoint.h5.partial";
    remove(final);
    remove(partial);
    storq_run_meta meta = make_meta();
    storq_error err = {0};
    storq_h5_file *f = NULL;
    CHECK(storq_h5_create(final, &meta, &fake_model, points, NPOINTS, &f, &err) == STORQ_OK);
    CHECK(minor_version(partial) == stated(partial, 0));

    snapshot w;
    snapshot_init(&w, 2, REPS);
    snapshot_add(&w, 0);
    snapshot_add(&w, 2);
    snapshot_add(&w, 4);
    CHECK(storq_h5_write_checkpoint(f, 1, &w.res, w.done, 1.25, &err) == STORQ_OK);
    CHECK(minor_version(partial) == stated(partial, STORQ_SCHEMA_MINOR_CHECKPOINTS));
    storq_h5_close(&f);

    unsigned char done[NPOINTS] = {9, 9};
    CHECK(storq_h5_resume(final, &meta, &fake_model, points, NPOINTS, done, &f, &err) == STORQ_OK);
    CHECK(done[0] == 0 && done[1] == 0);
    snapshot r;
    double seconds = -1;
    CHECK(read_back(f, 1, &r, &seconds) == 1);
    CHECK(same(&w, &r) && seconds == 1.25);
    CHECK(isinf(r.res.minmax[0]) == 0 && r.res.counts[1] + r.res.counts[2] > 0);
    snapshot_free(&r);
    CHECK(read_back(f, 0, &r, &seconds) == 0 && seconds == 0);
    CHECK(r.done[0] == 0 && r.done[4] == 0);
    snapshot_free(&r);

    /* 4 of 5 replace 3 of 5; no temporary is left behind. */
    snapshot_add(&w, 1);
    CHECK(storq_h5_write_checkpoint(f, 1, &w.res, w.done, 2.5, &err) == STORQ_OK);
    CHECK(read_back(f, 1, &r, &seconds) == 1);
    CHECK(same(&w, &r) && seconds == 2.5);
    snapshot_free(&r);
    CHECK(has_link(partial, "/checkpoints/000001" STORQ_SCHEMA_CHECKPOINT_TMP) == 0);

    /* A value changed behind storq's back (a flipped bit on disk): --resume refuses the
     * checkpoint, naming it, instead of building on it; put back, it reads again. */
    {
        hid_t raw = H5Fopen(partial, H5F_ACC_RDWR, H5P_DEFAULT);
        hid_t d = H5Dopen2(raw, "/checkpoints/000001/" STORQ_SCHEMA_CHECKPOINT_VALUES, H5P_DEFAULT);
        double v[5 * 16];
        CHECK(raw >= 0 && d >= 0 && H5Sget_simple_extent_npoints(H5Dget_space(d)) <= 5 * 16);
        CHECK(H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0);
        uint64_t bits;
        memcpy(&bits, &v[0], sizeof bits);
        bits ^= 1; /* the last bit of the first value */
        memcpy(&v[0], &bits, sizeof bits);
        CHECK(H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0);
        H5Fflush(raw, H5F_SCOPE_GLOBAL);
        snapshot flipped;
        snapshot_init(&flipped, 2, REPS);
        err = (storq_error){0};
        int got = storq_h5_read_checkpoint(f, 1, &flipped.res, flipped.done, &seconds, &err);
        CHECK(got < 0 && -got == STORQ_ERR_USAGE && strstr(err.msg, "/checkpoints/000001/values"));
        printf("damaged checkpoint: %s\n", err.msg);
        snapshot_free(&flipped);
        bits ^= 1;
        memcpy(&v[0], &bits, sizeof bits);
        CHECK(H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0);
        H5Dclose(d);
        H5Fclose(raw);
        CHECK(read_back(f, 1, &r, &seconds) == 1 && same(&w, &r));
        snapshot_free(&r);
    }

    /* Other observables, or other replications, than the checkpoint's: refused, naming both. */
    snapshot bad;
    snapshot_init(&bad, 3, REPS);
    err = (storq_error){0};
    int got = storq_h5_read_checkpoint(f, 1, &bad.res, bad.done, &seconds, &err);
    CHECK(got < 0 && -got == STORQ_ERR_RUNTIME);
    CHECK(strstr(err.msg, partial) && strstr(err.msg, "/checkpoints/000001") &&
          strstr(err.msg, "point 1 does not fit") &&
          strstr(err.msg, "'values' is float64 5 x 8, the point's is float64 5 x 11"));
    CHECK(bad.done[0] == 0 && bad.done[1] == 0);
    printf("refusal: %s\n", err.msg);
    snapshot_free(&bad);
    snapshot_init(&bad, 2, REPS + 1);
    err = (storq_error){0};
    CHECK(storq_h5_read_checkpoint(f, 1, &bad.res, bad.done, &seconds, &err) < 0);
    CHECK(strstr(err.msg, "'done' is integer (5), the point's is integer (6)") != NULL);
    snapshot_free(&bad);

    /* A checkpoint without status "complete" (a write cut short) is not read. */
    hid_t again = H5Fopen(partial, H5F_ACC_RDWR, H5P_DEFAULT);
    CHECK(again >= 0 && H5Adelete_by_name(again, "/checkpoints/000001", STORQ_SCHEMA_ATTR_STATUS,
                                          H5P_DEFAULT) >= 0);
    H5Fclose(again);
    CHECK(read_back(f, 1, &r, &seconds) == 0);
    CHECK(r.done[1] == 0 && seconds == 0);
    snapshot_free(&r);

    /* Dropping the last checkpoint removes /checkpoints and restores 1.0; a second drop and a
     * drop of a point without one are no-ops. */
    err = (storq_error){0};
    CHECK(storq_h5_drop_checkpoint(f, 1, &err) == STORQ_OK);
    CHECK(read_back(f, 1, &r, &seconds) == 0);
    snapshot_free(&r);
    CHECK(storq_h5_drop_checkpoint(f, 1, &err) == STORQ_OK);
    CHECK(storq_h5_drop_checkpoint(f, 0, &err) == STORQ_OK);
    CHECK(has_link(partial, "/checkpoints") == 0);
    CHECK(minor_version(partial) == stated(partial, 0));

    /* As the driver finishes: each point complete, then its checkpoint dropped. */
    CHECK(storq_h5_write_checkpoint(f, 0, &w.res, w.done, 3.0, &err) == STORQ_OK);
    CHECK(storq_h5_write_checkpoint(f, 1, &w.res, w.done, 3.0, &err) == STORQ_OK);
    CHECK(minor_version(partial) == stated(partial, STORQ_SCHEMA_MINOR_CHECKPOINTS));
    for (size_t p = 0; p < NPOINTS; p++) {
        CHECK(write_complete(f, points, p) == STORQ_OK);
        CHECK(storq_h5_drop_checkpoint(f, p, &err) == STORQ_OK);
        CHECK(minor_version(partial) ==
              stated(partial, p + 1 < NPOINTS ? STORQ_SCHEMA_MINOR_CHECKPOINTS : 0));
    }
    CHECK(storq_h5_finish(&f, &err) == STORQ_OK);
    CHECK(minor_version(final) == STORQ_SCHEMA_MINOR_LAYOUTS && has_link(final, "/checkpoints") == 0);
    if (err.code)
        fprintf(stderr, "%s\n", err.msg);
    snapshot_free(&w);
    remove(final);
}

/* A task's file goes from 1.1 to 1.2 and back. */
static void test_task_version(const storq_params *points)
{
    const char *final = "test_h5_checkpoint_task.h5";
    const char *partial = "test_h5_checkpoint_task.h5.partial";
    storq_run_meta meta = make_meta();
    meta.task_index = 1;
    meta.task_count = 2;
    storq_error err = {0};
    storq_h5_file *f = NULL;
    CHECK(storq_h5_create(final, &meta, &fake_model, points, NPOINTS, &f, &err) == STORQ_OK);
    CHECK(minor_version(partial) == STORQ_SCHEMA_MINOR_TASKS);
    snapshot w;
    snapshot_init(&w, 2, REPS);
    snapshot_add(&w, 3);
    CHECK(storq_h5_write_checkpoint(f, 1, &w.res, w.done, 0.5, &err) == STORQ_OK);
    CHECK(minor_version(partial) == stated(partial, STORQ_SCHEMA_MINOR_CHECKPOINTS));
    CHECK(storq_h5_drop_checkpoint(f, 1, &err) == STORQ_OK);
    CHECK(minor_version(partial) == STORQ_SCHEMA_MINOR_TASKS);
    storq_h5_close(&f);
    snapshot_free(&w);
    remove(partial);
}

/* What a kill leaves: a torn checkpoint (no status), a stray temporary, the checkpoint of a
 * point written complete. --resume removes all three and states 1.0 again. */
static void test_resume_tidies(const storq_params *points)
{
    const char *final = "test_h5_checkpoint_tidy.h5";
    const char *partial = "test_h5_checkpoint_tidy.h5.partial";
    storq_run_meta meta = make_meta();
    storq_error err = {0};
    storq_h5_file *f = NULL;
    CHECK(storq_h5_create(final, &meta, &fake_model, points, NPOINTS, &f, &err) == STORQ_OK);
    snapshot w;
    snapshot_init(&w, 2, REPS);
    snapshot_add(&w, 0);
    CHECK(storq_h5_write_checkpoint(f, 0, &w.res, w.done, 1, &err) == STORQ_OK);
    CHECK(storq_h5_write_checkpoint(f, 1, &w.res, w.done, 1, &err) == STORQ_OK);
    CHECK(write_complete(f, points, 0) == STORQ_OK);
    storq_h5_close(&f);

    hid_t file = H5Fopen(partial, H5F_ACC_RDWR, H5P_DEFAULT);
    CHECK(file >= 0 && H5Adelete_by_name(file, "/checkpoints/000001", STORQ_SCHEMA_ATTR_STATUS,
                                         H5P_DEFAULT) >= 0);
    hid_t g = H5Gcreate2(file, "/checkpoints/000001" STORQ_SCHEMA_CHECKPOINT_TMP, H5P_DEFAULT,
                         H5P_DEFAULT, H5P_DEFAULT);
    CHECK(g >= 0);
    H5Gclose(g);
    H5Fclose(file);
    CHECK(minor_version(partial) == stated(partial, STORQ_SCHEMA_MINOR_CHECKPOINTS));

    unsigned char done[NPOINTS];
    CHECK(storq_h5_resume(final, &meta, &fake_model, points, NPOINTS, done, &f, &err) == STORQ_OK);
    CHECK(done[0] == 1 && done[1] == 0);
    snapshot r;
    double seconds;
    CHECK(read_back(f, 1, &r, &seconds) == 0);
    snapshot_free(&r);
    storq_h5_close(&f);
    CHECK(has_link(partial, "/checkpoints") == 0);
    CHECK(minor_version(partial) == stated(partial, 0));
    snapshot_free(&w);
    remove(partial);
}

/* Overwriting a checkpoint many times reuses the space of the ones it replaces. */
static void test_no_growth(const storq_params *points)
{
    const char *final = "test_h5_checkpoint_growth.h5";
    const char *partial = "test_h5_checkpoint_growth.h5.partial";
    storq_run_meta meta = make_meta();
    storq_error err = {0};
    storq_h5_file *f = NULL;
    CHECK(storq_h5_create(final, &meta, &fake_model, points, NPOINTS, &f, &err) == STORQ_OK);
    snapshot w;
    snapshot_init(&w, 2, REPS);
    snapshot_add(&w, 0);
    long after_first = 0;
    for (int i = 0; i < 200; i++) {
        CHECK(storq_h5_write_checkpoint(f, 1, &w.res, w.done, i, &err) == STORQ_OK);
        if (i == 1)
            after_first = file_size(partial);
    }
    long after_all = file_size(partial);
    printf("partial file: %ld bytes after 2 checkpoints, %ld after 200\n", after_first,
           after_all);
    CHECK(after_all < 2 * after_first);
    storq_h5_close(&f);
    snapshot_free(&w);
    remove(partial);
}

/* The file left behind: point 0 complete, point 1 with 3 of 5 replications in. info lists the
 * checkpoint; merge copies point 0 only, without /checkpoints, and says what it skipped. */
static void test_left_behind(const storq_params *points)
{
    const char *final = "test_h5_checkpoint_left.h5";
    const char *partial = "test_h5_checkpoint_left.h5.partial";
    storq_run_meta meta = make_meta();
    storq_error err = {0};
    storq_h5_file *f = NULL;
    CHECK(storq_h5_create(final, &meta, &fake_model, points, NPOINTS, &f, &err) == STORQ_OK);
    snapshot w;
    snapshot_init(&w, 2, REPS);
    snapshot_add(&w, 1);
    snapshot_add(&w, 2);
    snapshot_add(&w, 3);
    CHECK(write_complete(f, points, 0) == STORQ_OK);
    CHECK(storq_h5_write_checkpoint(f, 1, &w.res, w.done, 4.5, &err) == STORQ_OK);
    storq_h5_close(&f);
    snapshot_free(&w);

    FILE *out = fopen("test_h5_checkpoint_info.txt", "w");
    CHECK(out && storq_h5_info(partial, out, &err) == STORQ_OK);
    if (out)
        fclose(out);
    CHECK(contains("test_h5_checkpoint_info.txt", "format_version  1, 2") ||
          contains("test_h5_checkpoint_info.txt", "format_version  1, 3"));
    CHECK(contains("test_h5_checkpoint_info.txt", "point 1: 3 of 5 replications in (checkpoint)"));
    CHECK(contains("test_h5_checkpoint_info.txt", "points: 2 (1 complete)"));
    CHECK(!contains("test_h5_checkpoint_info.txt", "point 0: "));
    remove("test_h5_checkpoint_info.txt");

    const char *merged = "test_h5_checkpoint_merged.h5";
    char *inputs[] = {(char *)partial};
    FILE *report = fopen("test_h5_checkpoint_merge.txt", "w");
    err = (storq_error){0};
    CHECK(report && storq_h5_merge(merged, inputs, 1, "storq merge", 1, report, &err) ==
                        STORQ_ERR_RUNTIME); /* point 1 is in no input */
    if (report)
        fclose(report);
    CHECK(contains("test_h5_checkpoint_merge.txt",
                   "1 point, 1 unfinished with a checkpoint (skipped)"));
    CHECK(has_link("test_h5_checkpoint_merged.h5.partial", "/checkpoints") == 0);
    CHECK(minor_version("test_h5_checkpoint_merged.h5.partial") ==
          stated("test_h5_checkpoint_merged.h5.partial", 0));
    remove("test_h5_checkpoint_merge.txt");
    remove("test_h5_checkpoint_merged.h5.partial");
}

int main(int argc, char **argv)
{
    if (argc > 1 && chdir(argv[1]) != 0) {
        perror(argv[1]);
        return 1;
    }
    storq_params points[NPOINTS];
    fake_points(points, NPOINTS);
    test_round_trip(points);
    test_task_version(points);
    test_resume_tidies(points);
    test_no_growth(points);
    test_left_behind(points);
    fake_points_free(points, NPOINTS);
    return check_report("test_h5_checkpoint");
}
