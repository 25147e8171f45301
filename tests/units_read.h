/* The run's record of its units read back through HDF5 directly, for tests/test_h5_units.c: its
 * tables as C rows (with or without the columns added with cpu_seconds), /run's attributes, the
 * format version, whether /run's header grew a continuation block, and `storq info`'s text. */
#ifndef STORQ_TEST_UNITS_READ_H
#define STORQ_TEST_UNITS_READ_H

#include <hdf5.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include "h5_info.h"
#include "schema.h"

typedef struct stored_row {
    uint32_t session;
    uint64_t point;
    int64_t rep;
    int32_t rank, thread;
    double start, end;
    uint64_t events;
    double cost, cpu;
} stored_row;

typedef struct stored_session {
    uint32_t session;
    int64_t workers;
    uint64_t units;
    double wall, busy, efficiency, unit, waiting, idle, serving;
} stored_session;

typedef struct stored_rank {
    uint32_t session;
    int32_t rank, threads;
    double simulating, in_units, waiting, idle, serving;
} stored_rank;

static hid_t insert(hid_t t, const char *name, size_t offset, hid_t type)
{
    H5Tinsert(t, name, offset, type);
    return t;
}

/* The columns as a storq before cpu_seconds wrote them (old = 1), or with the new ones. */
static hid_t row_type(int old)
{
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
    if (!old)
        insert(t, "cpu_seconds", offsetof(stored_row, cpu), H5T_NATIVE_DOUBLE);
    return t;
}

static hid_t session_type(int old)
{
    hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(stored_session));
    insert(t, "session", offsetof(stored_session, session), H5T_NATIVE_UINT32);
    insert(t, "workers", offsetof(stored_session, workers), H5T_NATIVE_INT64);
    insert(t, "units", offsetof(stored_session, units), H5T_NATIVE_UINT64);
    insert(t, "wall_seconds", offsetof(stored_session, wall), H5T_NATIVE_DOUBLE);
    insert(t, "busy_seconds", offsetof(stored_session, busy), H5T_NATIVE_DOUBLE);
    insert(t, "parallel_efficiency", offsetof(stored_session, efficiency), H5T_NATIVE_DOUBLE);
    if (!old) {
        insert(t, "unit_seconds", offsetof(stored_session, unit), H5T_NATIVE_DOUBLE);
        insert(t, "waiting_seconds", offsetof(stored_session, waiting), H5T_NATIVE_DOUBLE);
        insert(t, "idle_seconds", offsetof(stored_session, idle), H5T_NATIVE_DOUBLE);
        insert(t, "serving_seconds", offsetof(stored_session, serving), H5T_NATIVE_DOUBLE);
    }
    return t;
}

static hid_t rank_type(void)
{
    hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(stored_rank));
    insert(t, "session", offsetof(stored_rank, session), H5T_NATIVE_UINT32);
    insert(t, "rank", offsetof(stored_rank, rank), H5T_NATIVE_INT32);
    insert(t, "threads", offsetof(stored_rank, threads), H5T_NATIVE_INT32);
    insert(t, "simulating_seconds", offsetof(stored_rank, simulating), H5T_NATIVE_DOUBLE);
    insert(t, "in_units_seconds", offsetof(stored_rank, in_units), H5T_NATIVE_DOUBLE);
    insert(t, "waiting_seconds", offsetof(stored_rank, waiting), H5T_NATIVE_DOUBLE);
    insert(t, "idle_seconds", offsetof(stored_rank, idle), H5T_NATIVE_DOUBLE);
    insert(t, "serving_seconds", offsetof(stored_rank, serving), H5T_NATIVE_DOUBLE);
    return t;
}

/* Every row of the table at object (memory type t, rows of size bytes; malloc'd, free()): their
 * number, or -1 when the table is not there. */
static long read_table(const char *path, const char *object, hid_t t, size_t size, void **rows)
{
    hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    hid_t d = file >= 0 && H5Lexists(file, object, H5P_DEFAULT) > 0
                  ? H5Dopen2(file, object, H5P_DEFAULT)
                  : -1;
    long n = -1;
    *rows = NULL;
    if (d >= 0) {
        hid_t space = H5Dget_space(d);
        hssize_t count = H5Sget_simple_extent_npoints(space);
        *rows = calloc((size_t)count + 1, size);
        if (count == 0 || H5Dread(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, *rows) >= 0)
            n = (long)count;
        H5Sclose(space);
        H5Dclose(d);
    }
    H5Tclose(t);
    if (file >= 0)
        H5Fclose(file);
    H5Eclear2(H5E_DEFAULT);
    return n;
}

static long read_ranks(const char *path, stored_rank **ranks)
{
    return read_table(path, STORQ_SCHEMA_RANKS_PATH, rank_type(), sizeof **ranks,
                      (void **)ranks);
}

/* Every row of /run/units (malloc'd, free()); -1 when the table is not there. */
static long read_rows(const char *path, stored_row **rows, hsize_t *chunk, int *unlimited)
{
    hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    hid_t d = file >= 0 ? H5Dopen2(file, STORQ_SCHEMA_UNITS_PATH, H5P_DEFAULT) : -1;
    long n = -1;
    *rows = NULL;
    if (d >= 0) {
        hid_t t = row_type(0);
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
    stored_session *all;
    long n = read_table(path, STORQ_SCHEMA_SESSIONS_PATH, session_type(0), sizeof *all,
                        (void **)&all);
    if (n >= 0)
        memcpy(out, all, ((size_t)n < max ? (size_t)n : max) * sizeof *all);
    free(all);
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

/* Whether the text of path holds needle (which may span lines). */
static int contains(const char *path, const char *needle)
{
    FILE *fp = fopen(path, "r");
    static char text[1 << 16];
    size_t n = fp ? fread(text, 1, sizeof text - 1, fp) : 0;
    text[n] = '\0';
    if (fp)
        fclose(fp);
    return strstr(text, needle) != NULL;
}

/* storq info's text of path into a file, and whether it holds needle. */
static int info_says(const char *path, const char *needle)
{
    storq_error err = {0};
    /* a name of this process's own: test_h5_units and test_h5_units_long run side by side */
    char name[64];
    snprintf(name, sizeof name, "test_h5_units_info.%ld.txt", (long)getpid());
    FILE *out = fopen(name, "w");
    int rc = out ? storq_h5_info(path, out, &err) : -1;
    if (out)
        fclose(out);
    int found = rc == STORQ_OK && contains(name, needle);
    if (!found) {
        fprintf(stderr, "storq info %s lacks '%s'%s%s\n", path, needle, rc ? ": " : "",
                rc ? err.msg : "");
        char cat[96];
        snprintf(cat, sizeof cat, "cat %s >&2", name);
        if (!rc)
            system(cat);
    }
    remove(name);
    return found;
}

/* 1 when the object header of path's /run has a continuation block (message type 0x10): the
 * record is written in place, in the room the writer left (see io/h5_writer.c, write_config). */
static int run_header_chained(const char *path)
{
    hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    H5O_info_t info;
    int chained = file < 0 || H5Oget_info_by_name2(file, "/run", &info, H5O_INFO_HDR,
                                                   H5P_DEFAULT) < 0 ||
                  (info.hdr.mesg.present >> 0x10) & 1;
    if (file >= 0)
        H5Fclose(file);
    return chained;
}

#endif
