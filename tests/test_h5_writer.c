/* The results writer and `storq info` on a test-only model: the file appears under its final name
 * only when finished, --resume keeps complete points and drops an interrupted one, refuses a
 * different run, bad paths or foreign files give usage errors, and the schema check refuses a
 * newer minor version only to a merge. Leaves test_h5_writer.h5 in the working directory (or
 * argv[1]) for the Python schema and package tests. */
#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "h5_info.h"
#include "h5_writer.h"
#include "point_record.h"
#include "schema.h"

#define NPOINTS 3
#define REPS 4
#define NSAMPLES 20000 /* histogram samples per point, spread over the replications */

static const storq_param_def fake_params[] = {
    {.name = "n", .type = STORQ_PARAM_INT, .def = "10", .min = 1, .max = 1e9, .unit = "servers",
     .doc = "number of servers"},
    {.name = "lambda", .type = STORQ_PARAM_REAL, .def = "0.5", .min = 0, .max = 1, .min_open = 1,
     .unit = "1/time", .doc = "arrival rate per server"},
    {.name = "policy", .type = STORQ_PARAM_STRING, .def = "BR", .unit = "", .doc = "routing"},
    {.name = NULL}}; /* end */

static const storq_model fake_model = {.name = "fake", .summary = "test-only model",
                                       .params = fake_params};

static const char *const config_text = "[run]\nmodel = fake\nreplications = 4\nseed = 7\n\n"
                                       "[fake]\nn = 10 20 40\nlambda = 0.5 0.8\n";

/* Point p: n = 10 * 2^p, lambda alternating, policy strings of different lengths. */
static void make_points(storq_params *points)
{
    static const char *const policy[NPOINTS] = {"BR", "BS", "WF-long"};
    for (size_t p = 0; p < NPOINTS; p++) {
        storq_params *pt = &points[p];
        pt->model = &fake_model;
        pt->n = 3;
        pt->v = calloc(3, sizeof *pt->v);
        pt->v[0].i = 10 << p;
        pt->v[1].r = p == 2 ? 0.8 : 0.5;
        pt->v[2].s = strdup(policy[p]);
        char buf[32];
        snprintf(buf, sizeof buf, "%lld", (long long)pt->v[0].i);
        pt->v[0].s = strdup(buf);
        snprintf(buf, sizeof buf, "%g", pt->v[1].r);
        pt->v[1].s = strdup(buf);
    }
}

static void free_points(storq_params *points)
{
    for (size_t p = 0; p < NPOINTS; p++) {
        for (size_t i = 0; i < points[p].n; i++)
            free(points[p].v[i].s);
        free(points[p].v);
    }
}

typedef struct ids {
    int delay_mean, u, u_t, delay, queue;
} ids;

static int declare(storq_observables *obs, ids *id, storq_error *err)
{
    const double level[5] = {0, 1, 2, 3, 4}, t[3] = {0, 0.5, 1};
    STORQ_TRY(storq_declare_scalar(obs, &id->delay_mean, "delay_mean", "time", "mean delay", err));
    STORQ_TRY(storq_declare_vector(obs, &id->u, "u", "", "occupancy u_i", 5, "level", level, err));
    STORQ_TRY(storq_declare_matrix(obs, &id->u_t, "u_t", "", "u_i(t)", 3, 2, "t", t, err));
    STORQ_TRY(storq_declare_hist_loglin(obs, &id->delay, "delay", "time", "delay histogram", 0.01,
                                        100, 4, err));
    return storq_declare_hist_int(obs, &id->queue, "queue", "tasks", "queue length", 8, err);
}

/* Replication r of point p. The delay histogram gets the exact Exp(1) quantiles
 * -ln(1 - (k + 0.5) / NSAMPLES) for k = r, r + REPS, ..., so its median is ln 2 to ~1e-4. */
static void fill_record(storq_record *rec, const ids *id, size_t p, size_t r)
{
    storq_record_scalar(rec, id->delay_mean, 1.0 + (double)p + 0.1 * (double)r);
    double *u = storq_record_vector(rec, id->u);
    for (int i = 0; i < 5; i++)
        u[i] = pow(0.5, i) + (i ? 1e-3 * (double)r : 0);
    double *ut = storq_record_vector(rec, id->u_t);
    for (int j = 0; j < 6; j++)
        ut[j] = (double)j + (double)r;
    storq_hist h = storq_record_hist(rec, id->delay);
    for (size_t k = r; k < NSAMPLES; k += REPS)
        storq_hist_add(&h, -log(1.0 - ((double)k + 0.5) / NSAMPLES));
    storq_hist q = storq_record_hist(rec, id->queue);
    for (int k = 0; k < 10; k++)
        storq_hist_add(&q, (double)((k + (int)r) % 10));
    rec->events = 1000;
}

typedef struct point_data {
    storq_observables obs;
    storq_point_result res;
    storq_summary sum;
    storq_theory theory, cmp;
} point_data;

static int make_point(point_data *d, size_t p, storq_error *err)
{
    ids id;
    memset(d, 0, sizeof *d);
    STORQ_TRY(declare(&d->obs, &id, err));
    STORQ_TRY(storq_point_result_init(&d->res, &d->obs, REPS, err));
    storq_record rec;
    STORQ_TRY(storq_record_init(&rec, &d->obs, err));
    for (size_t r = 0; r < REPS; r++) {
        storq_record_reset(&rec);
        fill_record(&rec, &id, p, r);
        storq_point_result_add(&d->res, r, &rec);
    }
    storq_record_free(&rec);
    STORQ_TRY(storq_summary_compute(&d->sum, &d->res, err));

    const double u[5] = {1, 0.5, 0.25, 0.125, 0.0625};
    const double lo[5] = {1, 0.5, 0.2, 0.1, 0.05}, hi[5] = {1, 0.5, 0.3, 0.2, 0.1};
    STORQ_TRY(storq_theory_add(&d->theory, "u", "", "fixed point", "u", u, 5, err));
    STORQ_TRY(storq_theory_add(&d->theory, "u_lower", "", "lower bound", "u", lo, 5, err));
    STORQ_TRY(storq_theory_add(&d->theory, "u_upper", "", "upper bound", "u", hi, 5, err));
    double n = (double)(10 << p);
    double l1 = 0.5 / n, noise = 0.002, lmax = 0.2 / n;
    STORQ_TRY(storq_theory_add(&d->cmp, "u_l1", "", "||u^n - u||_1", "", &l1, 1, err));
    STORQ_TRY(storq_theory_add(&d->cmp, "u_l1_noise", "", "noise floor", "", &noise, 1, err));
    STORQ_TRY(storq_theory_add(&d->cmp, "u_max", "", "max_i |u^n_i - u_i|", "", &lmax, 1, err));
    return STORQ_OK;
}

static void free_point(point_data *d)
{
    storq_theory_free(&d->theory);
    storq_theory_free(&d->cmp);
    storq_summary_free(&d->sum);
    storq_point_result_free(&d->res);
    storq_observables_free(&d->obs);
}

static int write_point(storq_h5_file *f, const storq_params *points, size_t p, storq_error *err)
{
    point_data d;
    int rc = make_point(&d, p, err);
    if (!rc)
        rc = storq_h5_write_point(f, p, &points[p], &d.res, &d.sum, &d.theory, &d.cmp,
                                  0.25 * (double)(p + 1), NULL, err);
    free_point(&d);
    return rc;
}

static int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* What a killed writer leaves: a point group without status "complete". */
static void add_interrupted_group(const char *partial, const char *group)
{
    hid_t file = H5Fopen(partial, H5F_ACC_RDWR, H5P_DEFAULT);
    CHECK(file >= 0);
    hid_t g = H5Gcreate2(file, group, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(g >= 0);
    H5Gclose(g);
    H5Fclose(file);
}

static int has_group(const char *path, const char *group)
{
    hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (file < 0)
        return -1;
    htri_t r = H5Lexists(file, group, H5P_DEFAULT);
    H5Fclose(file);
    return r > 0;
}

/* A file with a root attribute format (none when NULL) and the given format version. */
static void make_foreign_file(const char *path, const char *format, int major, int minor)
{
    hid_t file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(file >= 0);
    if (format) {
        hid_t t = H5Tcopy(H5T_C_S1);
        H5Tset_size(t, strlen(format) + 1);
        hid_t s = H5Screate(H5S_SCALAR);
        hid_t a = H5Acreate2(file, "format", t, s, H5P_DEFAULT, H5P_DEFAULT);
        H5Awrite(a, t, format);
        H5Aclose(a);
        H5Sclose(s);
        H5Tclose(t);
        hsize_t two = 2;
        int32_t v[2] = {major, minor};
        s = H5Screate_simple(1, &two, NULL);
        a = H5Acreate2(file, "format_version", H5T_STD_I32LE, s, H5P_DEFAULT, H5P_DEFAULT);
        H5Awrite(a, H5T_NATIVE_INT32, v);
        H5Aclose(a);
        H5Sclose(s);
    }
    H5Fclose(file);
}

static void test_info_refusals(void)
{
    storq_error err = {0};
    make_foreign_file("not_storq.h5", NULL, 0, 0);
    CHECK(storq_h5_info("not_storq.h5", stdout, &err) == STORQ_ERR_USAGE);
    CHECK(strstr(err.msg, "not_storq.h5 is not a storq results file") != NULL);

    err = (storq_error){0};
    make_foreign_file("other_format.h5", "openmc", 1, 0);
    CHECK(storq_h5_info("other_format.h5", stdout, &err) == STORQ_ERR_USAGE);
    CHECK(strstr(err.msg, "is not a storq results file") != NULL);

    err = (storq_error){0};
    make_foreign_file("future.h5", "storq", 3, 0);
    CHECK(storq_h5_info("future.h5", stdout, &err) == STORQ_ERR_USAGE);
    CHECK(strstr(err.msg, "future.h5 has format version 3.0; this storq reads 1.x and 2.0") !=
          NULL);
    printf("refusal: %s\n", err.msg);

    err = (storq_error){0};
    FILE *text = fopen("plain.txt", "w");
    fputs("not hdf5\n", text);
    fclose(text);
    CHECK(storq_h5_info("plain.txt", stdout, &err) == STORQ_ERR_USAGE);
    CHECK(strstr(err.msg, "is not a storq results file") != NULL);

    err = (storq_error){0};
    CHECK(storq_h5_info("no_such_file.h5", stdout, &err) == STORQ_ERR_USAGE);
    remove("not_storq.h5");
    remove("other_format.h5");
    remove("future.h5");
    remove("plain.txt");
}

/* The one schema check: a newer minor version is read but not merged; point names both ways. */
static void test_schema(void)
{
    storq_error err = {0};
    storq_schema_info info = {0};
    hid_t file = -1;
    make_foreign_file("newer.h5", "storq", 1, 7);
    CHECK(storq_schema_open("newer.h5", NULL, STORQ_SCHEMA_READ, "busy", &file, &info, &err) ==
          STORQ_OK);
    CHECK(file >= 0 && info.major == 1 && info.minor == 7);
    if (file >= 0)
        H5Fclose(file);
    CHECK(storq_schema_open("newer.h5", "merge", STORQ_SCHEMA_MERGE, "busy", &file, &info,
                            &err) == STORQ_ERR_USAGE);
    CHECK(file < 0);
    CHECK(strstr(err.msg, "merge: newer.h5 has format version 1.7; this storq merges files up to "
                          "1.3") != NULL);
    err = (storq_error){0};
    CHECK(storq_schema_open("no_such_file.h5", "merge", STORQ_SCHEMA_READ, "busy", &file, NULL,
                            &err) == STORQ_ERR_USAGE);
    CHECK(strstr(err.msg, "merge: cannot read no_such_file.h5: ") != NULL);
    remove("newer.h5");

    int32_t v[2];
    storq_schema_version(1, v);
    CHECK(v[0] == STORQ_SCHEMA_MAJOR && v[1] == 0);
    storq_schema_version(3, v);
    CHECK(v[0] == STORQ_SCHEMA_MAJOR && v[1] == STORQ_SCHEMA_MINOR_TASKS);
    char path[STORQ_SCHEMA_POINT_PATH_MAX];
    storq_schema_point_path(42, path, sizeof path);
    CHECK(strcmp(path, "/points/000042") == 0);
    size_t id = 0;
    CHECK(storq_schema_point_id("000042", &id) == 1 && id == 42);
    CHECK(storq_schema_point_id("1234567", &id) == 1 && id == 1234567);
    CHECK(storq_schema_point_id("index", &id) == 0);
    CHECK(storq_schema_point_id("", &id) == 0);
}

static void test_bad_output(const storq_run_meta *meta, const storq_params *points)
{
    storq_error err = {0};
    storq_h5_file *f = NULL;
    CHECK(storq_h5_create("/nonexistent_dir_storq/out.h5", meta, &fake_model, points, NPOINTS, &f,
                          &err) == STORQ_ERR_USAGE);
    CHECK(f == NULL);
    /* the output as given and why, not storq's lock file beside it */
    CHECK(strstr(err.msg, "--output: cannot create '/nonexistent_dir_storq/out.h5': its "
                          "directory does not exist") != NULL);
    printf("refusal: %s\n", err.msg);

    err = (storq_error){0};
    CHECK(storq_h5_create(".", meta, &fake_model, points, NPOINTS, &f, &err) == STORQ_ERR_USAGE);
    CHECK(strstr(err.msg, "is a directory") != NULL);
}

static void test_resume_refusals(const char *final, const storq_run_meta *meta,
                                 const storq_params *points)
{
    storq_error err = {0};
    storq_h5_file *f = NULL;
    unsigned char done[NPOINTS];

    storq_run_meta other = *meta;
    other.seed = 8;
    CHECK(storq_h5_resume(final, &other, &fake_model, points, NPOINTS, done, &f, &err) ==
          STORQ_ERR_USAGE);
    CHECK(f == NULL);
    CHECK(strstr(err.msg, "written by a different run (seed 7 there, 8 here)") != NULL);
    printf("refusal: %s\n", err.msg);

    err = (storq_error){0};
    other = *meta;
    other.config_text = "[run]\nmodel = fake\nreplications = 4\nseed = 7\n\n[fake]\nn = 10 20\n";
    CHECK(storq_h5_resume(final, &other, &fake_model, points, NPOINTS, done, &f, &err) ==
          STORQ_ERR_USAGE);
    CHECK(strstr(err.msg, "config line 7: 'n = 10 20 40' there, 'n = 10 20' here") != NULL);
    printf("refusal: %s\n", err.msg);

    err = (storq_error){0};
    other = *meta;
    other.replications = 5;
    CHECK(storq_h5_resume(final, &other, &fake_model, points, NPOINTS, done, &f, &err) ==
          STORQ_ERR_USAGE);
    CHECK(strstr(err.msg, "replications 4 there, 5 here") != NULL);

    err = (storq_error){0};
    CHECK(storq_h5_resume("never_written.h5", meta, &fake_model, points, NPOINTS, done, &f, &err) ==
          STORQ_ERR_USAGE);
    CHECK(strstr(err.msg, "--resume: no never_written.h5.partial to resume; run without --resume") !=
          NULL);
}

static int contains(const char *path, const char *needle)
{
    FILE *fp = fopen(path, "r");
    if (!fp)
        return 0;
    char line[4096];
    int found = 0;
    while (!found && fgets(line, sizeof line, fp))
        found = strstr(line, needle) != NULL;
    fclose(fp);
    return found;
}

/* info on a partial file shows which points are complete and which were interrupted. */
static void test_info_partial(const char *partial)
{
    storq_error err = {0};
    FILE *out = fopen("test_h5_writer_partial.txt", "w");
    CHECK(out != NULL);
    CHECK(storq_h5_info(partial, out, &err) == STORQ_OK);
    fclose(out);
    CHECK(contains("test_h5_writer_partial.txt", "points: 3 (2 complete)"));
    CHECK(contains("test_h5_writer_partial.txt", "interrupted"));
    CHECK(contains("test_h5_writer_partial.txt", "point 000001:"));
    CHECK(!contains("test_h5_writer_partial.txt", "point 000002:"));
    remove("test_h5_writer_partial.txt");
}

static void test_info(const char *final)
{
    storq_error err = {0};
    FILE *out = fopen("test_h5_writer_info.txt", "w");
    CHECK(out != NULL);
    CHECK(storq_h5_info(final, out, &err) == STORQ_OK);
    fclose(out);
    if (err.code)
        fprintf(stderr, "info: %s\n", err.msg);
    const char *expect[] = {"format_version  1, 3", "points: 3 (3 complete)", "lambda [1/time]",
                            "WF-long", "delay_mean", "+- ", "1 0.5015 0.2515 0.1265 ...", "1 0.5 0.25 0.125 ...",
                            "u_l1", "u_l1_noise", "histograms:", "20000",
                            /* the Exp(1) quantiles ln 2, 2.303, 4.605, 6.908 within 2^-4 */
                            "p50     p90    p99    p99.9", "0.6932  2.304  4.612  6.9", NULL};
    for (const char **e = expect; *e; e++)
        if (!contains("test_h5_writer_info.txt", *e)) {
            fprintf(stderr, "info output lacks '%s'\n", *e);
            CHECK(0);
        }
}

/* Each point's record (io/point_record.c), built from the same results, is the tree of the 1.x
 * group storq_h5_write_point wrote, checksums aside; with a value changed it is not. */
static void test_records(const char *path, const storq_params *points)
{
    static const char *const skip[] = {STORQ_SCHEMA_ATTR_CRC32, NULL};
    hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    CHECK(file >= 0);
    for (size_t p = 0; file >= 0 && p < NPOINTS; p++) {
        storq_error err = {0};
        char group[STORQ_SCHEMA_POINT_PATH_MAX];
        storq_schema_point_path(p, group, sizeof group);
        storq_pt_node *read = NULL, *built = NULL;
        point_data d;
        CHECK(storq_pt_read_h5(file, group, skip, &read, &err) == STORQ_OK);
        CHECK(make_point(&d, p, &err) == STORQ_OK);
        CHECK(storq_point_record_build(&fake_model, &points[p], &d.res, &d.sum, &d.theory, &d.cmp,
                                       0.25 * (double)(p + 1), NULL, &built, &err) == STORQ_OK);
        CHECK(read && built && storq_pt_equal(read, built));
        if (err.code)
            fprintf(stderr, "%s\n", err.msg);
        d.sum.mean[0] += 1e-12;
        storq_pt_node *other = NULL;
        CHECK(storq_point_record_build(&fake_model, &points[p], &d.res, &d.sum, &d.theory,
                                       &d.cmp, 0.25 * (double)(p + 1), NULL, &other, &err) ==
              STORQ_OK);
        CHECK(other && read && !storq_pt_equal(read, other));
        storq_pt_free(other);
        storq_pt_free(read);
        storq_pt_free(built);
        free_point(&d);
    }
    if (file >= 0)
        H5Fclose(file);
}

int main(int argc, char **argv)
{
    if (argc > 1 && chdir(argv[1]) != 0) {
        perror(argv[1]);
        return 1;
    }
    const char *final = "test_h5_writer.h5", *partial = "test_h5_writer.h5.partial";
    remove(final);
    remove(partial);
    storq_params points[NPOINTS];
    make_points(points);
    storq_run_meta meta = {.command_line = "storq run fake.ini -o test_h5_writer.h5",
                           .config_text = config_text, .seed = 7, .replications = REPS,
                           .mpi_ranks = 1, .omp_threads = 2};
    storq_error err = {0};
    storq_h5_file *f = NULL;

    /* A run interrupted after two points. */
    CHECK(storq_h5_create(final, &meta, &fake_model, points, NPOINTS, &f, &err) == STORQ_OK);
    CHECK(exists(partial) && !exists(final));
    CHECK(write_point(f, points, 0, &err) == STORQ_OK);
    CHECK(write_point(f, points, 1, &err) == STORQ_OK);
    CHECK(exists(partial) && !exists(final));
    storq_h5_close(&f);
    CHECK(f == NULL);
    storq_h5_close(&f); /* accepts NULL */
    CHECK(exists(partial) && !exists(final));
    add_interrupted_group(partial, "/points/000002");
    test_info_partial(partial);
    if (err.code)
        fprintf(stderr, "%s\n", err.msg);

    test_resume_refusals(final, &meta, points);
    CHECK(exists(partial));

    /* Resume: points 0 and 1 are done, the interrupted group 2 is dropped. */
    unsigned char done[NPOINTS] = {9, 9, 9};
    err = (storq_error){0};
    CHECK(storq_h5_resume(final, &meta, &fake_model, points, NPOINTS, done, &f, &err) == STORQ_OK);
    CHECK(done[0] == 1 && done[1] == 1 && done[2] == 0);
    storq_h5_close(&f);
    CHECK(has_group(partial, "/points/000002") == 0);
    CHECK(has_group(partial, "/points/000001") == 1);

    CHECK(storq_h5_resume(final, &meta, &fake_model, points, NPOINTS, done, &f, &err) == STORQ_OK);
    CHECK(done[0] == 1 && done[1] == 1 && done[2] == 0);
    CHECK(write_point(f, points, 2, &err) == STORQ_OK);
    storq_error dup = {0};
    CHECK(write_point(f, points, 2, &dup) == STORQ_ERR_RUNTIME);
    CHECK(strstr(dup.msg, "test_h5_writer.h5.partial") && strstr(dup.msg, "already written"));
    printf("refusal: %s\n", dup.msg);
    CHECK(storq_h5_finish(&f, &err) == STORQ_OK);
    CHECK(f == NULL);
    CHECK(exists(final) && !exists(partial));
    if (err.code)
        fprintf(stderr, "%s\n", err.msg);

    test_records(final, points);
    test_info(final);
    test_info_refusals();
    test_schema();
    test_bad_output(&meta, points);
    free_points(points);
    return check_report("test_h5_writer");
}
