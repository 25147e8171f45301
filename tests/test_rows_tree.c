/* Rows of a 2.0 file as the trees of their 1.x points (io/h5_rows_tree.h). Every file of the
 * corpus (tests/corpus/run.sh: every model and mode), a run with a precision target (its
 * replications differ between points; the precision attributes) and a task's file (point ids
 * that are not the rows' numbers) are converted by `storq convert`; every row's tree must equal
 * storq_pt_read_h5 of its 1.x group (skip crc32), read in increasing order, in decreasing order
 * and two rows a block; so must those of a 1.x file given what runs do not make together (the
 * precision attributes at some points only, point attributes of a later version, quantity
 * attributes that differ between points, one of them ""). Then 2.0 files made odd (an n_<dim>
 * or a replications count past its dataset's width, a layout past its names, a row not
 * complete, a column of the wrong length, a 1.x file, a row past the last) are refused with a
 * usage error naming what. Needs $STORQ_BIN (the storq program) and $STORQ_CORPUS
 * (tests/corpus/run.sh); the files are made in a temporary directory, removed at the end (kept
 * when a check fails). */
#include <dirent.h>
#include <hdf5.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "h5_checksum.h"
#include "h5_rows_tree.h"
#include "h5_util.h"
#include "point_tree.h"
#include "schema.h"

static const char *const skip_crc[] = {"crc32", NULL};
static char dir[] = "/tmp/test_rows_tree.XXXXXX";
static double read_seconds;
static size_t rows_read;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* A shell command; its exit status. */
static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int sh(const char *fmt, ...)
{
    char cmd[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    int rc = system(cmd);
    if (rc != 0)
        fprintf(stderr, "command failed (%d): %s\n", rc, cmd);
    return rc;
}

/* ---- where two trees differ, for a failure's message ---- */

static int attr_same(const storq_pt_attr *a, const storq_pt_attr *b)
{
    storq_pt_node x = {.name = "", .kind = STORQ_PT_GROUP, .attrs = (storq_pt_attr *)a,
                       .nattrs = 1};
    storq_pt_node y = {.name = "", .kind = STORQ_PT_GROUP, .attrs = (storq_pt_attr *)b,
                       .nattrs = 1};
    return storq_pt_equal(&x, &y);
}

static void show_diff(const storq_pt_node *want, const storq_pt_node *got, const char *path)
{
    char sub[1024];
    size_t na = want->nattrs > got->nattrs ? want->nattrs : got->nattrs;
    for (size_t i = 0; i < na; i++) {
        const storq_pt_attr *a = i < want->nattrs ? &want->attrs[i] : NULL;
        const storq_pt_attr *b = i < got->nattrs ? &got->attrs[i] : NULL;
        if (!a || !b || !attr_same(a, b)) {
            fprintf(stderr, "  %s: attribute %s (1.x) vs %s (2.0 row)\n", path[0] ? path : "/",
                    a ? a->name : "-", b ? b->name : "-");
            return;
        }
    }
    if (want->kind != got->kind || want->nkids != got->nkids) {
        fprintf(stderr, "  %s: kind %d, %zu members (1.x) vs kind %d, %zu members\n", path,
                want->kind, want->nkids, got->kind, got->nkids);
        for (size_t i = 0; i < want->nkids || i < got->nkids; i++)
            fprintf(stderr, "    %s | %s\n", i < want->nkids ? want->kids[i].name : "-",
                    i < got->nkids ? got->kids[i].name : "-");
        return;
    }
    for (size_t i = 0; i < want->nkids; i++) {
        const storq_pt_node *a = &want->kids[i], *b = &got->kids[i];
        snprintf(sub, sizeof sub, "%s/%s", path, a->name);
        if (strcmp(a->name, b->name) != 0) {
            fprintf(stderr, "  %s: member %zu is '%s' in the 2.0 row\n", sub, i, b->name);
            return;
        }
        if (storq_pt_equal(a, b))
            continue;
        if (a->kind == STORQ_PT_GROUP) {
            show_diff(a, b, sub);
        } else {
            fprintf(stderr, "  %s: differs (type %d rank %d n %" PRIu64 " vs type %d rank %d n %"
                    PRIu64 ")\n", sub, a->type, a->rank, storq_pt_count(a), b->type, b->rank,
                    storq_pt_count(b));
            show_diff(a, b, sub); /* its attributes */
        }
        return;
    }
}

/* ---- a converted file against its 1.x file ---- */

/* Row row of r against its point in the 1.x file x; 1 when equal. */
static int same_row(hid_t x, storq_rows_tree *r, size_t row, const char *name)
{
    storq_error err = {0};
    char path[STORQ_SCHEMA_POINT_PATH_MAX];
    storq_schema_point_path((size_t)storq_rows_tree_point(r, row), path, sizeof path);
    storq_pt_node *want = NULL, *got = NULL;
    int rc = storq_pt_read_h5(x, path, skip_crc, &want, &err);
    CHECK(rc == STORQ_OK);
    double t0 = now();
    int rc2 = storq_rows_tree_get(r, row, &got, &err);
    read_seconds += now() - t0;
    rows_read++;
    CHECK(rc2 == STORQ_OK);
    if (rc || rc2)
        fprintf(stderr, "%s row %zu: %s\n", name, row, err.msg);
    int same = !rc && !rc2 && storq_pt_equal(want, got);
    if (!rc && !rc2 && !same) {
        fprintf(stderr, "%s row %zu (%s): the tree differs from the 1.x group\n", name, row,
                path);
        show_diff(want, got, "");
    }
    storq_pt_free(want);
    storq_pt_free(got);
    return same;
}

/* The complete points of a 1.x file. */
static size_t points_of(hid_t x)
{
    hid_t g = H5Gopen2(x, "/points", H5P_DEFAULT);
    H5G_info_t info;
    size_t n = g >= 0 && H5Gget_info(g, &info) >= 0 ? (size_t)info.nlinks - 1 : 0; /* index */
    if (g >= 0)
        H5Gclose(g);
    return n;
}

static void compare(const char *one, const char *two, const char *name)
{
    storq_error err = {0};
    hid_t x = H5Fopen(one, H5F_ACC_RDONLY, H5P_DEFAULT);
    hid_t y = H5Fopen(two, H5F_ACC_RDONLY, H5P_DEFAULT);
    storq_rows_tree *r = NULL;
    CHECK(x >= 0 && y >= 0);
    int rc = storq_rows_tree_open(y, two, &r, &err);
    CHECK(rc == STORQ_OK);
    if (rc) {
        fprintf(stderr, "%s: %s\n", name, err.msg);
    } else {
        size_t n = storq_rows_tree_count(r), bad = 0;
        CHECK_EQ_U64(n, points_of(x));
        for (size_t row = 0; row < n; row++)
            bad += !same_row(x, r, row, name);
        for (size_t row = n; row-- > 0;) /* backwards */
            bad += !same_row(x, r, row, name);
        storq_rows_tree_block(r, 2);
        for (size_t row = 0; row < n; row++)
            bad += !same_row(x, r, row, name);
        CHECK(bad == 0);
        CHECK(storq_rows_tree_point(r, n) == UINT64_MAX);
        printf("%s: %zu rows equal to their 1.x points%s\n", name, n, bad ? " BUT NOT ALL" : "");
    }
    storq_rows_tree_close(&r);
    CHECK(r == NULL);
    if (x >= 0)
        H5Fclose(x);
    if (y >= 0)
        H5Fclose(y);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every run in dir/runs converted into dir/NAME.2.h5 and compared; returns how many. */
static size_t convert_and_compare(const char *storq)
{
    char runs[600], *names[64];
    size_t n = 0;
    snprintf(runs, sizeof runs, "%s/runs", dir);
    DIR *d = opendir(runs);
    CHECK(d != NULL);
    for (struct dirent *e; d && (e = readdir(d)) && n < 64;) {
        size_t len = strlen(e->d_name);
        if (len > 3 && strcmp(e->d_name + len - 3, ".h5") == 0)
            names[n++] = strndup(e->d_name, len - 3);
    }
    if (d)
        closedir(d);
    qsort(names, n, sizeof *names, by_name);
    for (size_t i = 0; i < n; i++) {
        char one[700], two[700];
        snprintf(one, sizeof one, "%s/%s.h5", runs, names[i]);
        snprintf(two, sizeof two, "%s/%s.2.h5", dir, names[i]);
        int rc = sh("'%s' convert '%s' '%s' >/dev/null", storq, one, two);
        CHECK(rc == 0);
        if (!rc)
            compare(one, two, names[i]);
        free(names[i]);
    }
    return n;
}

/* ---- a 1.x file with what runs do not make together ---- */

static int copy_file(const char *from, const char *to);

/* Attribute name of obj (at path in f) set anew: one of the writers' types, a scalar. */
static void set_attr(hid_t f, const char *path, const char *name, int type, const void *v)
{
    storq_error err = {0};
    hid_t o = H5Oopen(f, path, H5P_DEFAULT);
    CHECK(o >= 0);
    if (storq_h5u_has_attr(o, name))
        CHECK(H5Adelete(o, name) >= 0);
    int rc = type == 'f' ? storq_h5u_attr_f64(o, name, *(const double *)v, &err)
             : type == 'u' ? storq_h5u_attr_u64(o, name, *(const uint64_t *)v, &err)
             : type == 'i' ? storq_h5u_attr_i64(o, name, *(const int64_t *)v, &err)
                           : storq_h5u_attr_string(o, name, (const char *)v, &err);
    CHECK(rc == STORQ_OK);
    CHECK(storq_h5_checksum_stamp_object(o, &err) == STORQ_OK); /* as if written so */
    H5Oclose(o);
}

static void precision(hid_t f, const char *point, double achieved, uint64_t met)
{
    const double target = 0.05;
    const uint64_t max = 6;
    set_attr(f, point, STORQ_SCHEMA_ATTR_PRECISION_TARGET, 'f', &target);
    set_attr(f, point, STORQ_SCHEMA_ATTR_PRECISION_OBSERVABLE, 's', "mean_waiting_time");
    set_attr(f, point, STORQ_SCHEMA_ATTR_PRECISION_ACHIEVED, 'f', &achieved);
    set_attr(f, point, STORQ_SCHEMA_ATTR_MAX_REPLICATIONS, 'u', &max);
    set_attr(f, point, STORQ_SCHEMA_ATTR_PRECISION_MET, 'u', &met);
    set_attr(f, point, STORQ_SCHEMA_ATTR_STOPPED_BECAUSE, 's', met ? "precision target met"
                                                                    : "max_replications reached");
}

/* dir/runs/crafted.h5, mmc_queue.h5's three points with: the precision attributes at points 0
 * (precision_achieved NaN, precision_met 0) and 2, not 1; point attributes of a later version
 * (a string and a float at point 0 only, an integer at every point, 0 at point 1); a
 * histogram's relative_resolution that differs at point 1; a description "" at point 2. */
static void crafted(void)
{
    char from[700], to[700];
    snprintf(from, sizeof from, "%s/runs/mmc_queue.h5", dir);
    snprintf(to, sizeof to, "%s/runs/crafted.h5", dir);
    CHECK(copy_file(from, to) == 0);
    hid_t f = H5Fopen(to, H5F_ACC_RDWR, H5P_DEFAULT);
    CHECK(f >= 0);
    const double nan = NAN, two = 2.5, coarse = 0.25;
    const int64_t seven = 7, zero = 0, minus = -3;
    precision(f, "/points/000000", nan, 0);
    precision(f, "/points/000002", 0.01, 1);
    set_attr(f, "/points/000000", "later_s", 's', "x");
    set_attr(f, "/points/000000", "later_f", 'f', &two);
    set_attr(f, "/points/000000", "later_i", 'i', &seven);
    set_attr(f, "/points/000001", "later_i", 'i', &zero);
    set_attr(f, "/points/000002", "later_i", 'i', &minus);
    set_attr(f, "/points/000001/observables/waiting_time", "relative_resolution", 'f', &coarse);
    set_attr(f, "/points/000002/observables/mean_waiting_time", "description", 's', "");
    H5Fclose(f);
}

/* ---- odd files ---- */

static int copy_file(const char *from, const char *to)
{
    FILE *a = fopen(from, "rb"), *b = fopen(to, "wb");
    char buf[65536];
    size_t n;
    int ok = a && b;
    while (ok && (n = fread(buf, 1, sizeof buf, a)) > 0)
        ok = fwrite(buf, 1, n, b) == n;
    if (a)
        fclose(a);
    if (b && fclose(b) != 0)
        ok = 0;
    return ok ? 0 : -1;
}

/* dir/odd.h5, a copy of dir/NAME.2.h5, open for writing. */
static hid_t odd_copy(const char *name)
{
    char from[700], to[700];
    snprintf(from, sizeof from, "%s/%s.2.h5", dir, name);
    snprintf(to, sizeof to, "%s/odd.h5", dir);
    CHECK(copy_file(from, to) == 0);
    hid_t f = H5Fopen(to, H5F_ACC_RDWR, H5P_DEFAULT);
    CHECK(f >= 0);
    return f;
}

/* Element row of a (P,) dataset set to v. */
static void set_element(hid_t f, const char *path, size_t row, uint64_t v)
{
    hid_t d = H5Dopen2(f, path, H5P_DEFAULT), s = d >= 0 ? H5Dget_space(d) : -1;
    hsize_t start = row, one = 1;
    hid_t m = H5Screate_simple(1, &one, NULL);
    CHECK(s >= 0 && m >= 0 &&
          H5Sselect_hyperslab(s, H5S_SELECT_SET, &start, NULL, &one, NULL) >= 0 &&
          H5Dwrite(d, H5T_NATIVE_UINT64, m, s, H5P_DEFAULT, &v) >= 0);
    H5Sclose(m);
    if (s >= 0)
        H5Sclose(s);
    if (d >= 0)
        H5Dclose(d);
}

/* The length of the 1-D dataset at path. */
static uint64_t length(hid_t f, const char *path)
{
    hid_t d = H5Dopen2(f, path, H5P_DEFAULT), s = d >= 0 ? H5Dget_space(d) : -1;
    hsize_t n = 0;
    CHECK(s >= 0 && H5Sget_simple_extent_dims(s, &n, NULL) == 1);
    if (s >= 0)
        H5Sclose(s);
    if (d >= 0)
        H5Dclose(d);
    return n;
}

/* dir/odd.h5 (closed as f) refused with a usage error whose message holds want: at open, or
 * (row given) when row is read. */
static void refused(hid_t f, long row, const char *want, const char *what)
{
    char path[700];
    snprintf(path, sizeof path, "%s/odd.h5", dir);
    if (f >= 0)
        H5Fclose(f);
    hid_t y = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    storq_error err = {0};
    storq_rows_tree *r = NULL;
    storq_pt_node *t = NULL;
    int rc = storq_rows_tree_open(y, path, &r, &err);
    if (row >= 0 && rc == STORQ_OK)
        rc = storq_rows_tree_get(r, (size_t)row, &t, &err);
    CHECK(rc == STORQ_ERR_USAGE);
    CHECK(t == NULL);
    CHECK(strstr(err.msg, want) != NULL);
    printf("%s: %s (%d)\n", what, err.msg, rc);
    storq_rows_tree_close(&r);
    if (y >= 0)
        H5Fclose(y);
}

static void odd_files(void)
{
    /* sm_steady: ragged levels and histogram bins, layouts, quantities at some points only */
    hid_t f = odd_copy("sm_steady");
    set_element(f, "/points/n_level", 0, length(f, "/level") + 1);
    refused(f, 0, "n_level", "an n_<dim> past the width");
    f = odd_copy("sm_steady");
    set_element(f, "/points/n_level", 1, UINT32_MAX);
    refused(f, 1, "past the", "an n_<dim> of 2^32 - 1");
    f = odd_copy("sm_steady");
    set_element(f, "/points/replications", 2, length(f, "/replication") + 1);
    refused(f, 2, "/points/replications", "replications past the width");
    f = odd_copy("sm_steady");
    set_element(f, "/observables/job_delay/layout", 0, 7);
    refused(f, 0, "layouts", "a layout past its names");
    f = odd_copy("sm_steady");
    set_element(f, "/points/status", 3, 0);
    refused(f, 3, "not a complete point", "a row not complete");
    f = odd_copy("sm_steady");
    refused(f, 100, "no row 100", "a row past the last");
    /* a theory array with a row more than the file */
    f = odd_copy("mmc_queue");
    char name[256] = "";
    hid_t g = H5Gopen2(f, "/theory", H5P_DEFAULT);
    CHECK(H5Lget_name_by_idx(g, ".", H5_INDEX_CRT_ORDER, H5_ITER_INC, 0, name, sizeof name,
                             H5P_DEFAULT) > 0);
    hsize_t rows = length(f, "/point") + 1;
    hid_t s = H5Screate_simple(1, &rows, NULL);
    CHECK(H5Ldelete(g, name, H5P_DEFAULT) >= 0);
    hid_t d = H5Dcreate2(g, name, H5T_IEEE_F64LE, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(d >= 0);
    H5Dclose(d);
    H5Sclose(s);
    H5Gclose(g);
    refused(f, -1, "row a point", "a column of the wrong length");
    /* a 1.x file */
    char from[700], to[700];
    snprintf(from, sizeof from, "%s/runs/mmc_queue.h5", dir);
    snprintf(to, sizeof to, "%s/odd.h5", dir);
    CHECK(copy_file(from, to) == 0);
    refused(-1, -1, "not a schema 2.0", "a 1.x file");
}

int main(void)
{
    const char *storq = getenv("STORQ_BIN"), *corpus = getenv("STORQ_CORPUS");
    if (!storq || !corpus) {
        fprintf(stderr, "test_rows_tree: set STORQ_BIN (the storq program) and STORQ_CORPUS "
                        "(tests/corpus/run.sh)\n");
        return 1;
    }
    storq_h5u_quiet();
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    double t0 = now();
    CHECK(sh("'%s' '%s' '%s/runs'", corpus, storq, dir) == 0);
    /* a precision target: replications that differ between points, the precision attributes */
    CHECK(sh("OMP_NUM_THREADS=2 '%s' run mmc --c 2 --lambda 0.5,1.5 --mu 1 --warmup 100 "
             "--arrivals 1000 -r 2 --precision 0.02 --max-replications 6 --seed 5 --quiet "
             "-o '%s/runs/mmc_prec.h5' >/dev/null", storq, dir) == 0);
    /* a task's file: rows 0, 1 are points 1, 3 */
    CHECK(sh("OMP_NUM_THREADS=2 '%s' run mmc --c 1,2,3,4 --lambda 0.5 --mu 1 --warmup 100 "
             "--arrivals 1000 -r 2 --task 1/2 --seed 5 --quiet -o '%s/runs/mmc_task.h5' "
             ">/dev/null", storq, dir) == 0);
    crafted();
    double t1 = now();
    size_t files = convert_and_compare(storq);
    CHECK(files >= 17);
    double t2 = now();
    odd_files();
    printf("%zu files: runs %.1f s, convert and compare %.1f s; %zu rows read in %.3f s "
           "(%.0f rows/s)\n", files, t1 - t0, t2 - t1, rows_read, read_seconds,
           read_seconds > 0 ? (double)rows_read / read_seconds : 0.0);
    if (!check_failures_)
        sh("rm -rf '%s'", dir);
    else
        fprintf(stderr, "files kept in %s\n", dir);
    return check_report("test_rows_tree");
}
