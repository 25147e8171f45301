/* Long records of a run's units (io/h5_units.c): HDF5 1.10.8 cannot write the 258th chunk of a
 * dataset in a storq file (its chunk B-tree gains a level per chunk, the level is one byte), which
 * a run of 300,000 replications reached ("unable to encode node level", then a crash at
 * MPI_Finalize). Here a fresh table of 300,001 rows, a table of 30,000 rows (256 a chunk, as
 * before) that a resumed session takes to 70,000 (rewritten with longer chunks), and a ranks
 * table of 20,000 rows are written, closed and read back whole, each with at most
 * STORQ_H5U_CHUNKS_MAX chunks; numeric arrays past 128 MiB get at most as many chunks. */
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "check.h"
#include "fake_run.h"
#include "h5_info.h"
#include "h5_units.h"
#include "h5_util.h"
#include "h5_writer.h"
#include "schema.h"
#include "units_read.h"

#define NPOINTS 2

/* Row i of session s: rep and times from i, so every stored row can be checked. */
static storq_unit_row *make_rows(size_t n, size_t first)
{
    storq_unit_row *r = calloc(n, sizeof *r);
    for (size_t i = 0; r && i < n; i++) {
        size_t k = first + i;
        r[i] = (storq_unit_row){.point = k % NPOINTS, .rep = (int64_t)k, .thread = (int)(k % 2),
                                .start = (double)k, .end = (double)k + 0.5, .events = k,
                                .cost = 1, .cpu = 0.25};
    }
    return r;
}

/* The file's /run/units has total rows, rows [0, n0) of session 0 and the rest of session 1,
 * each as make_rows made it, in at most STORQ_H5U_CHUNKS_MAX chunks; *chunk its chunk. */
static void check_rows(const char *path, size_t total, size_t n0, hsize_t *chunk)
{
    stored_row *rows;
    int unlimited = 0;
    CHECK(read_rows(path, &rows, chunk, &unlimited) == (long)total);
    CHECK(unlimited && *chunk > 0);
    CHECK((total + *chunk - 1) / *chunk <= STORQ_H5U_CHUNKS_MAX);
    size_t bad = 0;
    for (size_t k = 0; rows && k < total; k++)
        bad += rows[k].session != (k < n0 ? 0u : 1u) || rows[k].rep != (int64_t)k ||
               rows[k].point != k % NPOINTS || rows[k].start != (double)k ||
               rows[k].events != k || rows[k].cpu != 0.25;
    CHECK(bad == 0);
    free(rows);
}

/* One session of 300,000 replications and the theory: one table of long chunks. */
static void test_fresh(const storq_params *points)
{
    const char *final = "test_h5_units_long.h5", *partial = "test_h5_units_long.h5.partial";
    remove(final);
    remove(partial);
    storq_run_meta meta = fake_meta(300000, 1, 0, 1);
    storq_error err = {0};
    storq_h5_file *f = NULL;
    const size_t n = 300001;
    storq_unit_row *rows = make_rows(n, 0);
    storq_rank_time rank = {.rank = 0, .threads = 2};
    CHECK(rows && storq_h5_create(final, &meta, &fake_model, points, NPOINTS, &f, &err) == 0);
    CHECK(storq_h5_write_units(f, rows, n, &rank, 1, 2, 1.0, &err) == STORQ_OK);
    if (err.code)
        fprintf(stderr, "%s\n", err.msg);
    storq_h5_close(&f);
    hsize_t chunk;
    check_rows(partial, n, n, &chunk);
    CHECK(chunk > 256);
    free(rows);
    remove(partial);
}

/* 30,000 rows keep the chunk of 256 rows (short records are written as before); a resumed
 * session of 40,000 more, and 20,000 ranks, rewrite the tables with longer chunks. */
static void test_resumed(const storq_params *points)
{
    const char *final = "test_h5_units_long2.h5", *partial = "test_h5_units_long2.h5.partial";
    remove(final);
    remove(partial);
    storq_run_meta meta = fake_meta(100000, 1, 0, 1);
    storq_error err = {0};
    storq_h5_file *f = NULL;
    const size_t n0 = 30000, n1 = 40000, nranks = 20000;
    storq_unit_row *rows0 = make_rows(n0, 0), *rows1 = make_rows(n1, n0);
    storq_rank_time *ranks = calloc(nranks, sizeof *ranks);
    for (size_t i = 0; ranks && i < nranks; i++)
        ranks[i] = (storq_rank_time){.rank = (int)i, .threads = 1};
    CHECK(rows0 && rows1 && ranks);
    CHECK(storq_h5_create(final, &meta, &fake_model, points, NPOINTS, &f, &err) == 0);
    CHECK(storq_h5_write_units(f, rows0, n0, ranks, 1, 2, 1.0, &err) == STORQ_OK);
    storq_h5_close(&f);
    hsize_t chunk;
    check_rows(partial, n0, n0, &chunk);
    CHECK(chunk == 256);

    unsigned char done[NPOINTS];
    err = (storq_error){0};
    CHECK(storq_h5_resume(final, &meta, &fake_model, points, NPOINTS, done, &f, &err) == 0);
    CHECK(storq_h5_write_units(f, rows1, n1, ranks, nranks, (int)nranks, 1.0, &err) == 0);
    if (err.code)
        fprintf(stderr, "%s\n", err.msg);
    storq_h5_close(&f);
    check_rows(partial, n0 + n1, n0, &chunk);
    CHECK(chunk > 256);
    stored_rank *back;
    long nback = read_ranks(partial, &back);
    CHECK(nback == (long)nranks + 1);
    size_t bad = 0;
    for (long i = 1; back && i < nback; i++)
        bad += back[i].session != 1 || back[i].rank != (int32_t)(i - 1);
    CHECK(bad == 0);
    free(back);
    /* the rest of the record and its readers as for any record; /run's header still in place */
    stored_session ss[2];
    CHECK(read_sessions(partial, ss, 2) == 2 && ss[0].units == n0 && ss[1].units == n1);
    CHECK(attr_of(partial, "/run", "sessions") == 2);
    CHECK(minor_version(partial) == 0);
    CHECK(!run_header_chained(partial));
    CHECK(info_says(partial, "30000 units") && info_says(partial, "40000 units"));
    free(rows0);
    free(rows1);
    free(ranks);
    remove(partial);
}

/* Numeric arrays: chunks of 1 MiB up to STORQ_H5U_CHUNKS_MAX of them, as before; a longer array
 * is cut in at most that many (checked on the properties: such an array is 128 MiB and more). */
static hsize_t chunks_of_array(hsize_t rows, hsize_t cols)
{
    hsize_t dims[2] = {rows, cols}, chunk[2] = {0, 0};
    hid_t dcpl = storq_h5u_array_create_plist(H5T_IEEE_F64LE, 2, dims);
    int chunked = dcpl >= 0 && H5Pget_layout(dcpl) == H5D_CHUNKED &&
                  H5Pget_chunk(dcpl, 2, chunk) == 2 && chunk[1] == cols;
    if (dcpl >= 0)
        H5Pclose(dcpl);
    return chunked && chunk[0] > 0 ? (rows + chunk[0] - 1) / chunk[0] : 0;
}

static void test_arrays(void)
{
    if (!storq_h5u_deflate_available())
        return; /* contiguous: no chunks */
    CHECK(chunks_of_array(1000, 1) == 1);
    CHECK(chunks_of_array((hsize_t)128 << 17, 1) == 128); /* 128 MiB: 1 MiB chunks */
    CHECK(chunks_of_array((hsize_t)40 << 20, 1) == 128);  /* 320 MiB */
    CHECK(chunks_of_array((hsize_t)1 << 24, 100) == 128); /* 12.5 GiB, rows of 800 bytes */
}

int main(int argc, char **argv)
{
    if (argc > 1 && chdir(argv[1]) != 0) {
        perror(argv[1]);
        return 1;
    }
    storq_params points[NPOINTS];
    fake_points(points, NPOINTS);
    test_fresh(points);
    test_resumed(points);
    test_arrays();
    fake_points_free(points, NPOINTS);
    return check_report("test_h5_units_long");
}
