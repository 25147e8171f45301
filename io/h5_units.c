/* The run's record of itself (docs/hdf5-schema.md, "The run's units"): /run/units, one row per
 * work unit that ran, /run/ranks, one row per rank and session, /run/sessions, one row per
 * session, and /run's attributes, the latest session's. The tables are chunked compound datasets
 * with an unlimited length, so a session appends its rows in one write: a compound row cannot be
 * torn the way separate column datasets of unequal lengths could be. */
#include "h5_units.h"

#include <hdf5.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "h5_units_types.h"
#include "h5_util.h"
#include "schema.h"

/* Rows per chunk: a few kilobytes, so a run of a dozen units does not carry a large chunk, and a
 * run of a million units is still written in large pieces. */
#define UNITS_CHUNK 256
#define RANKS_CHUNK 64
#define SESSIONS_CHUNK 16

/* What a writer that does not know a column leaves in it (the fill value): NaN, "not measured",
 * in the columns added with cpu_seconds, so rows an older storq appends on --resume say so. */
static const unit_record unit_fill = {.row.cpu = NAN};
static const rank_record rank_fill = {.time = {0}};
static const session_record session_fill = {.unit = NAN, .waiting = NAN, .idle = NAN,
                                            .serving = NAN};

/* One of the three tables: its name, chunk, row (memory) size and fill row, and types. */
typedef struct table_spec {
    const char *name;
    hsize_t chunk;
    size_t row_size;
    const void *fill;
    table_type type;
} table_spec;

/* ---- the file ---- */

/* The writer's open file; anything else is refused (see h5_checkpoint.c). */
static int file_of(const storq_h5_file *f, hid_t *id, storq_error *err)
{
    *id = storq_h5_file_id(f);
    if (*id >= 0 && H5Iget_type(*id) == H5I_FILE)
        return STORQ_OK;
    H5Eclear2(H5E_DEFAULT);
    *id = -1;
    return STORQ_RUNTIME_FAIL(err, "/run/units: no open results file");
}

/* task_index, task_count of loc (the root, or a table that carries its task); 0, 1 without. */
static void task_of(hid_t loc, uint64_t *index, uint64_t *count)
{
    storq_error ignore = {0};
    *index = 0;
    *count = 1;
    if (storq_h5u_has_attr(loc, STORQ_SCHEMA_ATTR_TASK_COUNT) &&
        storq_h5u_has_attr(loc, STORQ_SCHEMA_ATTR_TASK_INDEX) &&
        (storq_h5u_read_attr_u64(loc, STORQ_SCHEMA_ATTR_TASK_COUNT, count, &ignore) ||
         storq_h5u_read_attr_u64(loc, STORQ_SCHEMA_ATTR_TASK_INDEX, index, &ignore) ||
         *count <= 1)) {
        *index = 0;
        *count = 1;
    }
}

/* A table that `storq merge` copied with /run from one task's file describes that task's work,
 * not this file's: the run's own record starts over without it. */
static int drop_foreign_tables(hid_t file, hid_t run, storq_error *err)
{
    if (!storq_h5u_has_link(run, STORQ_SCHEMA_UNITS))
        return STORQ_OK;
    hid_t d = H5Dopen2(run, STORQ_SCHEMA_UNITS, H5P_DEFAULT);
    if (d < 0)
        return storq_h5u_fail(err, run, "cannot open '" STORQ_SCHEMA_UNITS "'");
    uint64_t fi, fc, ti, tc;
    task_of(file, &fi, &fc);
    task_of(d, &ti, &tc);
    H5Dclose(d);
    if (fi == ti && fc == tc)
        return STORQ_OK;
    const char *const names[] = {STORQ_SCHEMA_UNITS, STORQ_SCHEMA_RANKS, STORQ_SCHEMA_SESSIONS};
    for (size_t i = 0; i < 3; i++)
        if (storq_h5u_has_link(run, names[i]) && H5Ldelete(run, names[i], H5P_DEFAULT) < 0)
            return storq_h5u_fail(err, run, "cannot delete '%s' (another task's)", names[i]);
    return STORQ_OK;
}

/* The largest session number in table name of run; *have is 0 when it has no row. */
static int max_session(hid_t run, const char *name, int *have, uint32_t *max, storq_error *err)
{
    *have = 0;
    *max = 0;
    if (!storq_h5u_has_link(run, name))
        return STORQ_OK;
    hid_t d = H5Dopen2(run, name, H5P_DEFAULT);
    hid_t space = d >= 0 ? H5Dget_space(d) : -1;
    hssize_t n = space >= 0 ? H5Sget_simple_extent_npoints(space) : -1;
    storq_h5u_close_space(&space);
    /* HDF5 matches compound members by name: a one-member type reads the one column. */
    hid_t col = H5Tcreate(H5T_COMPOUND, sizeof(uint32_t));
    int bad = d < 0 || n < 0 || col < 0 ||
              H5Tinsert(col, STORQ_SCHEMA_UNIT_SESSION, 0, H5T_NATIVE_UINT32) < 0;
    uint32_t *s = bad ? NULL : malloc(((size_t)n + 1) * sizeof *s);
    if (!bad && (!s || (n > 0 && H5Dread(d, col, H5S_ALL, H5S_ALL, H5P_DEFAULT, s) < 0)))
        bad = 1;
    for (hssize_t i = 0; !bad && i < n; i++) {
        if (!*have || s[i] > *max)
            *max = s[i];
        *have = 1;
    }
    free(s);
    storq_h5u_close_type(&col);
    storq_h5u_close_dataset(&d);
    if (bad)
        return storq_h5u_fail(err, run, "cannot read the column '" STORQ_SCHEMA_UNIT_SESSION
                              "' of '%s'", name);
    return STORQ_OK;
}

/* 0 for a file without a record (or with another task's), else one past the largest session in
 * any table (the sessions table may lack the row of a write cut short, or the units table the
 * rows of a session without units). */
static int next_session(hid_t run, uint32_t *next, storq_error *err)
{
    const char *const names[] = {STORQ_SCHEMA_UNITS, STORQ_SCHEMA_RANKS, STORQ_SCHEMA_SESSIONS};
    int any = 0;
    uint32_t max = 0;
    for (size_t i = 0; i < 3; i++) {
        int have;
        uint32_t m;
        STORQ_TRY(max_session(run, names[i], &have, &m, err));
        if (have && (!any || m > max))
            max = m;
        any |= have;
    }
    *next = any ? max + 1 : 0;
    return STORQ_OK;
}

/* The chunk of a table that is to hold rows: the table's own (t->chunk) while that makes at most
 * STORQ_H5U_CHUNKS_MAX chunks (HDF5 cannot write a 258th, see h5_util.h), else doubled until the
 * rows fill half as many, leaving room for the sessions a --resume appends. */
static hsize_t chunk_for(const table_spec *t, hsize_t rows)
{
    hsize_t c = t->chunk;
    if (rows <= c * STORQ_H5U_CHUNKS_MAX)
        return c;
    while (rows > c * (STORQ_H5U_CHUNKS_MAX / 2))
        c *= 2;
    return c;
}

/* The rows of the table d holds in one chunk (0 when it cannot be read). */
static hsize_t chunk_of(hid_t d)
{
    hid_t dcpl = H5Dget_create_plist(d);
    hsize_t c = 0;
    if (dcpl < 0 || H5Pget_layout(dcpl) != H5D_CHUNKED || H5Pget_chunk(dcpl, 1, &c) != 1)
        c = 0;
    if (dcpl >= 0)
        H5Pclose(dcpl);
    H5Eclear2(H5E_DEFAULT);
    return c;
}

/* A new table run/name, empty (length 0, unlimited, chunk rows a chunk), not linked yet (see
 * write_session); a units table of a task's file gets the task. */
static int create_table(hid_t file, hid_t run, const table_spec *t, hsize_t chunk, hid_t *d,
                        storq_error *err)
{
    hsize_t zero = 0, unlimited = H5S_UNLIMITED;
    hid_t space = H5Screate_simple(1, &zero, &unlimited);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    *d = space >= 0 && dcpl >= 0 && H5Pset_chunk(dcpl, 1, &chunk) >= 0 &&
                 H5Pset_fill_value(dcpl, t->type.mtype, t->fill) >= 0
             ? H5Dcreate_anon(file, t->type.ftype, space, dcpl, H5P_DEFAULT)
             : -1;
    storq_h5u_close_space(&space);
    if (dcpl >= 0)
        H5Pclose(dcpl);
    if (*d < 0)
        return storq_h5u_fail(err, run, "cannot create the table '%s'", t->name);
    uint64_t index, count;
    task_of(file, &index, &count);
    int rc = STORQ_OK;
    if (count > 1 && strcmp(t->name, STORQ_SCHEMA_UNITS) == 0) {
        rc = storq_h5u_attr_u64(*d, STORQ_SCHEMA_ATTR_TASK_INDEX, index, err);
        if (!rc)
            rc = storq_h5u_attr_u64(*d, STORQ_SCHEMA_ATTR_TASK_COUNT, count, err);
    }
    if (rc)
        storq_h5u_close_dataset(d);
    return rc;
}

/* 1 when the table d lacks a column of this storq's (a storq before cpu_seconds wrote it). */
static int lacks_columns(hid_t d, const table_spec *t)
{
    hid_t have = H5Dget_type(d);
    int members = H5Tget_nmembers(t->type.ftype), lacks = have < 0 || members < 0;
    for (int i = 0; !lacks && i < members; i++) {
        char *name = H5Tget_member_name(t->type.ftype, (unsigned)i);
        lacks = !name || H5Tget_member_index(have, name) < 0;
        H5free_memory(name);
    }
    storq_h5u_close_type(&have);
    H5Eclear2(H5E_DEFAULT);
    return lacks;
}

/* The table *d copied into a new one with this storq's columns and chunk rows a chunk (*d is
 * closed and replaced by the copy): HDF5 matches members by name, and those the old rows lack
 * keep the fill row's NaN. Without this, the new columns of this session would be dropped as its
 * rows go in, and busy_seconds of CPU time would sit in a table that says nothing of it; or the
 * session's rows would take the table past the chunks HDF5 can index. */
static int rewrite_table(hid_t file, hid_t run, const table_spec *t, hsize_t chunk, hid_t *d,
                         storq_error *err)
{
    hid_t space = H5Dget_space(*d);
    hssize_t n = space >= 0 ? H5Sget_simple_extent_npoints(space) : -1;
    storq_h5u_close_space(&space);
    char *rows = n >= 0 ? malloc(((size_t)n + 1) * t->row_size) : NULL;
    if (!rows)
        return storq_h5u_fail(err, run, "cannot read the table '%s'", t->name);
    for (hssize_t i = 0; i < n; i++)
        memcpy(rows + (size_t)i * t->row_size, t->fill, t->row_size);
    hid_t copy = -1;
    int rc = n > 0 && H5Dread(*d, t->type.mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, rows) < 0
                 ? storq_h5u_fail(err, run, "cannot read the table '%s'", t->name)
                 : create_table(file, run, t, chunk, &copy, err);
    hsize_t len = (hsize_t)n;
    if (!rc && n > 0 &&
        (H5Dset_extent(copy, &len) < 0 ||
         H5Dwrite(copy, t->type.mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, rows) < 0))
        rc = storq_h5u_fail(err, run, "cannot rewrite the table '%s' with new columns", t->name);
    free(rows);
    if (rc) {
        storq_h5u_close_dataset(&copy);
        return rc;
    }
    storq_h5u_close_dataset(d);
    *d = copy;
    return STORQ_OK;
}

/* Open run/name, to which add rows are to go, or create it (*fresh = 1: to be linked once on
 * disk); a table without this storq's columns, or whose chunks the add rows would take past
 * STORQ_H5U_CHUNKS_MAX, is rewritten (*fresh = 1 too: it replaces the old one). */
static int open_table(hid_t file, hid_t run, const table_spec *t, hsize_t add, hsize_t hint,
                      hid_t *d, int *fresh, storq_error *err)
{
    *fresh = 1;
    if (!storq_h5u_has_link(run, t->name))
        return create_table(file, run, t, chunk_for(t, add > hint ? add : hint), d, err);
    *d = H5Dopen2(run, t->name, H5P_DEFAULT);
    if (*d < 0)
        return storq_h5u_fail(err, run, "cannot open '%s'", t->name);
    hid_t space = H5Dget_space(*d);
    hssize_t old = space >= 0 ? H5Sget_simple_extent_npoints(space) : 0;
    storq_h5u_close_space(&space);
    hsize_t rows = (old > 0 ? (hsize_t)old : 0) + add;
    hsize_t want = rows > (hsize_t)old + hint ? rows : (hsize_t)old + hint;
    if (lacks_columns(*d, t) || rows > chunk_of(*d) * STORQ_H5U_CHUNKS_MAX)
        return rewrite_table(file, run, t, chunk_for(t, want), d, err);
    *fresh = 0;
    return STORQ_OK;
}

/* Add n rows (memory type t's) at the end of run/name, creating or rewriting the table when
 * needed (with chunks for hint rows more, when the caller knows that more are coming): then the
 * new table is left open in *fresh, to be linked as run/name once it is on disk. */
static int append(hid_t file, hid_t run, const table_spec *t, const void *rows, size_t n,
                  hsize_t hint, hid_t *fresh, storq_error *err)
{
    hid_t d;
    int is_new;
    STORQ_TRY(open_table(file, run, t, n, hint, &d, &is_new, err));
    hid_t fspace = H5Dget_space(d), mspace = -1;
    hsize_t old = 0, add = n;
    int rc = STORQ_OK;
    if (fspace < 0 || H5Sget_simple_extent_ndims(fspace) != 1 ||
        H5Sget_simple_extent_dims(fspace, &old, NULL) < 0) {
        rc = storq_h5u_fail(err, run, "'%s' is not a 1-D table", t->name);
    } else if (n > 0) {
        hsize_t total = old + add;
        storq_h5u_close_space(&fspace);
        if (H5Dset_extent(d, &total) < 0 || (fspace = H5Dget_space(d)) < 0 ||
            H5Sselect_hyperslab(fspace, H5S_SELECT_SET, &old, NULL, &add, NULL) < 0 ||
            (mspace = H5Screate_simple(1, &add, NULL)) < 0 ||
            H5Dwrite(d, t->type.mtype, mspace, fspace, H5P_DEFAULT, rows) < 0)
            rc = storq_h5u_fail(err, run, "cannot append %zu rows to '%s'", n, t->name);
    }
    storq_h5u_close_space(&mspace);
    storq_h5u_close_space(&fspace);
    if (is_new && !rc)
        *fresh = d;
    else
        H5Dclose(d);
    return rc;
}

/* Link the new table d as run/name, in place of a table it rewrote (d is closed). */
static int link_table(hid_t run, const char *name, hid_t *d, storq_error *err)
{
    if (*d < 0)
        return STORQ_OK;
    herr_t linked = storq_h5u_has_link(run, name) && H5Ldelete(run, name, H5P_DEFAULT) < 0
                        ? -1
                        : H5Olink(*d, run, name, H5P_DEFAULT, H5P_DEFAULT);
    storq_h5u_close_dataset(d);
    return linked < 0 ? storq_h5u_fail(err, run, "cannot link the table '%s'", name) : STORQ_OK;
}

/* Set (replacing) one of /run's scalar attributes. */
static int set_attr(hid_t run, const char *name, hid_t ftype, hid_t mtype, const void *value,
                    storq_error *err)
{
    if (storq_h5u_has_attr(run, name) && H5Adelete(run, name) < 0)
        return storq_h5u_fail(err, run, "cannot replace attribute '%s'", name);
    hid_t space = H5Screate(H5S_SCALAR);
    hid_t a = space >= 0 ? H5Acreate2(run, name, ftype, space, H5P_DEFAULT, H5P_DEFAULT) : -1;
    herr_t rc = a >= 0 ? H5Awrite(a, mtype, value) : -1;
    if (a >= 0)
        H5Aclose(a);
    storq_h5u_close_space(&space);
    if (rc < 0)
        return storq_h5u_fail(err, run, "cannot write attribute '%s'", name);
    return STORQ_OK;
}

static int set_run_attrs(hid_t run, const session_record *s, uint64_t sessions,
                         storq_error *err)
{
    STORQ_TRY(set_attr(run, STORQ_SCHEMA_ATTR_WORKERS, H5T_STD_I64LE, H5T_NATIVE_INT64,
                       &s->workers, err));
    STORQ_TRY(set_attr(run, STORQ_SCHEMA_ATTR_WALL_SECONDS, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE,
                       &s->wall, err));
    STORQ_TRY(set_attr(run, STORQ_SCHEMA_ATTR_BUSY_SECONDS, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE,
                       &s->busy, err));
    STORQ_TRY(set_attr(run, STORQ_SCHEMA_ATTR_EFFICIENCY, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE,
                       &s->efficiency, err));
    const char *const names[] = {STORQ_SCHEMA_ATTR_UNIT_SECONDS, STORQ_SCHEMA_ATTR_WAITING_SECONDS,
                                 STORQ_SCHEMA_ATTR_IDLE_SECONDS, STORQ_SCHEMA_ATTR_SERVING_SECONDS};
    const double values[] = {s->unit, s->waiting, s->idle, s->serving};
    for (size_t i = 0; i < 4; i++)
        STORQ_TRY(set_attr(run, names[i], H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &values[i], err));
    return set_attr(run, STORQ_SCHEMA_ATTR_SESSIONS, H5T_STD_U64LE, H5T_NATIVE_UINT64, &sessions,
                    err);
}

/* The number of rows of run/name (0 when missing). */
static uint64_t table_rows(hid_t run, const char *name)
{
    if (!storq_h5u_has_link(run, name))
        return 0;
    hid_t d = H5Dopen2(run, name, H5P_DEFAULT);
    hid_t space = d >= 0 ? H5Dget_space(d) : -1;
    hssize_t n = space >= 0 ? H5Sget_simple_extent_npoints(space) : 0;
    storq_h5u_close_space(&space);
    storq_h5u_close_dataset(&d);
    H5Eclear2(H5E_DEFAULT);
    return n > 0 ? (uint64_t)n : 0;
}

/* ---- this session ---- */

static int check_row(const storq_unit_row *row, uint64_t i, storq_error *err)
{
    if (row->rep < STORQ_UNIT_REP_THEORY)
        return STORQ_RUNTIME_FAIL(err, "/run/units: row %llu has rep %lld",
                                  (unsigned long long)i, (long long)row->rep);
    if (row->cpu < 0) /* NaN passes: not measured */
        return STORQ_RUNTIME_FAIL(err, "/run/units: row %llu has cpu %g s",
                                  (unsigned long long)i, row->cpu);
    return STORQ_OK;
}

static int check_session(const storq_rank_time *ranks, size_t nranks, int workers, double wall,
                         storq_error *err)
{
    if (nranks > 0 && !ranks)
        return STORQ_RUNTIME_FAIL(err, "/run/ranks: %zu ranks but no rank array", nranks);
    if (workers < 1)
        return STORQ_RUNTIME_FAIL(err, "/run/units: %d workers; a run has at least 1", workers);
    if (!(wall >= 0))
        return STORQ_RUNTIME_FAIL(err, "/run/units: wall time %g s is not a duration", wall);
    for (size_t i = 0; i < nranks; i++) {
        const storq_rank_time *r = &ranks[i];
        if (r->rank < 0 || r->threads < 0 || !isfinite(r->simulating) ||
            !isfinite(r->in_units) || !isfinite(r->waiting) || !isfinite(r->idle) ||
            !isfinite(r->serving))
            return STORQ_RUNTIME_FAIL(err, "/run/ranks: entry %zu (rank %d, %d threads) has a "
                                      "figure that is not a number of seconds", i, (int)r->rank,
                                      (int)r->threads);
    }
    return STORQ_OK;
}

enum { T_UNITS, T_RANKS, T_SESSIONS, NTABLES };

struct storq_units_record {
    hid_t file;
    uint32_t session;
    uint64_t planned;          /* rows the session expects: the chunks of a new table fit them */
    uint64_t written;          /* rows of this session already in /run/units */
    unit_record *block;        /* rows not written yet */
    size_t nblock;
    session_record sum;        /* units, busy and unit seconds so far, in row order */
    table_spec t[NTABLES];
};

int storq_h5_units_begin(storq_h5_file *f, uint64_t planned, storq_units_record **out,
                         storq_error *err)
{
    *out = NULL;
    hid_t file;
    STORQ_TRY(file_of(f, &file, err));
    storq_units_record *r = calloc(1, sizeof *r);
    unit_record *block = malloc(STORQ_UNITS_BLOCK * sizeof *block);
    if (!r || !block) {
        free(r);
        free(block);
        return STORQ_RUNTIME_FAIL(err, "out of memory for the record of the run's units");
    }
    r->file = file;
    r->planned = planned;
    r->block = block;
    const table_spec t[NTABLES] = {
        {STORQ_SCHEMA_UNITS, UNITS_CHUNK, sizeof(unit_record), &unit_fill, {-1, -1}},
        {STORQ_SCHEMA_RANKS, RANKS_CHUNK, sizeof(rank_record), &rank_fill, {-1, -1}},
        {STORQ_SCHEMA_SESSIONS, SESSIONS_CHUNK, sizeof(session_record), &session_fill, {-1, -1}}};
    memcpy(r->t, t, sizeof t);
    int rc = STORQ_OK;
    if (storq_units_units_type(&r->t[T_UNITS].type) ||
        storq_units_ranks_type(&r->t[T_RANKS].type) ||
        storq_units_sessions_type(&r->t[T_SESSIONS].type))
        rc = storq_h5u_fail(err, file, "cannot build the types of /run/units");
    hid_t run = rc ? -1 : H5Gopen2(file, "/" STORQ_SCHEMA_RUN, H5P_DEFAULT);
    if (!rc && run < 0)
        rc = storq_h5u_fail(err, file, "cannot open the group '/" STORQ_SCHEMA_RUN "'");
    if (!rc)
        rc = drop_foreign_tables(file, run, err);
    if (!rc)
        rc = next_session(run, &r->session, err);
    if (run >= 0)
        H5Gclose(run);
    if (rc) {
        storq_h5_units_free(&r);
        return rc;
    }
    *out = r;
    return STORQ_OK;
}

/* Append n rows to run/name (chunks for hint rows more when the table is new or rewritten); a
 * new table is on disk before /run links it: a write cut short (a disk full without fallocate)
 * then leaves /run's header (changed in place) without links to tables that are not there. */
static int append_linked(hid_t file, hid_t run, const table_spec *t, const void *rows, size_t n,
                         hsize_t hint, storq_error *err)
{
    hid_t fresh = -1;
    int rc = append(file, run, t, rows, n, hint, &fresh, err);
    if (!rc && fresh >= 0 && H5Fflush(file, H5F_SCOPE_GLOBAL) < 0)
        rc = storq_h5u_fail(err, file, "cannot flush /run/units");
    if (!rc)
        rc = link_table(run, t->name, &fresh, err);
    storq_h5u_close_dataset(&fresh);
    return rc;
}

/* The rows held so far go to /run/units, and the file is flushed: a run killed later keeps them. */
static int write_block(storq_units_record *r, storq_error *err)
{
    if (r->nblock == 0)
        return STORQ_OK;
    hid_t run = H5Gopen2(r->file, "/" STORQ_SCHEMA_RUN, H5P_DEFAULT);
    if (run < 0)
        return storq_h5u_fail(err, r->file, "cannot open the group '/" STORQ_SCHEMA_RUN "'");
    uint64_t after = r->written + r->nblock;
    hsize_t more = r->planned > after ? r->planned - after : 0;
    int rc = append_linked(r->file, run, &r->t[T_UNITS], r->block, r->nblock, more, err);
    H5Gclose(run);
    if (!rc && H5Fflush(r->file, H5F_SCOPE_GLOBAL) < 0)
        rc = storq_h5u_fail(err, r->file, "cannot flush /run/units");
    if (!rc) {
        r->written = after;
        r->nblock = 0;
    }
    return rc;
}

int storq_h5_units_add(storq_units_record *r, const storq_unit_row *row, storq_error *err)
{
    STORQ_TRY(check_row(row, r->sum.units, err));
    if (r->nblock == STORQ_UNITS_BLOCK)
        STORQ_TRY(write_block(r, err));
    unit_record *u = &r->block[r->nblock++];
    memset(u, 0, sizeof *u);
    u->session = r->session;
    u->row = *row;
    r->sum.units++;
    r->sum.busy += row->cpu;
    r->sum.unit += row->end - row->start;
    return STORQ_OK;
}

int storq_h5_units_end(storq_units_record *r, const storq_rank_time *ranks, size_t nranks,
                       int workers, double wall, storq_error *err)
{
    STORQ_TRY(check_session(ranks, nranks, workers, wall, err));
    rank_record *rrecs = malloc((nranks + 1) * sizeof *rrecs);
    if (!rrecs)
        return STORQ_RUNTIME_FAIL(err, "out of memory for %zu rows of /run/ranks", nranks);
    for (size_t i = 0; i < nranks; i++) {
        memset(&rrecs[i], 0, sizeof *rrecs);
        rrecs[i].session = r->session;
        rrecs[i].time = ranks[i];
    }
    session_record s = r->sum;
    s.session = r->session;
    s.workers = workers;
    s.wall = wall;
    /* Without the ranks' figures nothing is known of where the rest went. */
    s.waiting = s.idle = s.serving = nranks > 0 ? 0 : NAN;
    for (size_t i = 0; i < nranks; i++) {
        s.waiting += ranks[i].waiting;
        s.idle += ranks[i].idle;
        s.serving += ranks[i].serving;
    }
    /* A session that measured no time (nothing to run) has no efficiency. */
    s.efficiency = wall > 0 ? s.busy / ((double)workers * wall) : NAN;
    /* Rows first, the session's summary after, /run's attributes last. */
    int rc = write_block(r, err);
    hid_t run = rc ? -1 : H5Gopen2(r->file, "/" STORQ_SCHEMA_RUN, H5P_DEFAULT);
    if (!rc && run < 0)
        rc = storq_h5u_fail(err, r->file, "cannot open the group '/" STORQ_SCHEMA_RUN "'");
    /* a session without rows still makes its table (empty), as every session always has */
    if (!rc && !storq_h5u_has_link(run, STORQ_SCHEMA_UNITS))
        rc = append_linked(r->file, run, &r->t[T_UNITS], NULL, 0, 0, err);
    uint64_t sessions = rc ? 0 : table_rows(run, STORQ_SCHEMA_SESSIONS) + 1;
    if (!rc)
        rc = append_linked(r->file, run, &r->t[T_RANKS], rrecs, nranks, 0, err);
    if (!rc)
        rc = append_linked(r->file, run, &r->t[T_SESSIONS], &s, 1, 0, err);
    if (!rc)
        rc = set_run_attrs(run, &s, sessions, err);
    if (run >= 0)
        H5Gclose(run);
    free(rrecs);
    if (!rc && H5Fflush(r->file, H5F_SCOPE_GLOBAL) < 0)
        rc = storq_h5u_fail(err, r->file, "cannot flush /run/units");
    return rc;
}

void storq_h5_units_free(storq_units_record **r)
{
    if (!*r)
        return;
    for (size_t i = 0; i < NTABLES; i++)
        storq_units_table_type_free(&(*r)->t[i].type);
    free((*r)->block);
    free(*r);
    *r = NULL;
}

int storq_h5_write_units(storq_h5_file *f, const storq_unit_row *rows, size_t n,
                         const storq_rank_time *ranks, size_t nranks, int workers,
                         double wall_seconds, storq_error *err)
{
    hid_t file;
    STORQ_TRY(file_of(f, &file, err));
    if (n > 0 && !rows)
        return STORQ_RUNTIME_FAIL(err, "/run/units: %zu rows but no row array", n);
    for (size_t i = 0; i < n; i++) /* nothing is written of a session with a bad row */
        STORQ_TRY(check_row(&rows[i], i, err));
    STORQ_TRY(check_session(ranks, nranks, workers, wall_seconds, err));
    storq_units_record *r;
    STORQ_TRY(storq_h5_units_begin(f, n, &r, err));
    int rc = STORQ_OK;
    for (size_t i = 0; i < n && !rc; i++)
        rc = storq_h5_units_add(r, &rows[i], err);
    if (!rc)
        rc = storq_h5_units_end(r, ranks, nranks, workers, wall_seconds, err);
    storq_h5_units_free(&r);
    return rc;
}
