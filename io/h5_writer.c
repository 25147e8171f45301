/* The results file (docs/hdf5-schema.md, io/schema.h). One process (rank 0) writes it with the
 * default sec2 driver. Everything goes to NAME.partial; finish() renames it, so a file under the
 * final name is always complete. Points are flushed as they finish so --resume can skip them. */
#define _GNU_SOURCE /* memfd_create */
#include "h5_writer.h"

#include <errno.h>
#include <fcntl.h>
#include <hdf5.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "h5_check.h"
#include "h5_checksum.h"
#include "h5_convert.h"
#include "h5_merge.h"
#include "h5_library.h"
#include "h5_run.h"
#include "h5_util.h"
#include "file_kind.h"
#include "output_lock.h"
#include "partial_file.h"
#include "schema.h"
#include "storq_version.h"
#include "utf8.h"

#include "h5_writer_internal.h"

static storq_h5_file *new_handle(const char *final_path, const storq_model *model,
                                 storq_error *err)
{
    storq_h5_file *f = calloc(1, sizeof *f);
    if (f) {
        f->file = -1;
        f->final_path = strdup(final_path);
        f->partial_path = storq_partial_name(final_path);
    }
    if (!f || !f->final_path || !f->partial_path) {
        storq_h5_close(&f);
        storq_fail(err, STORQ_ERR_RUNTIME, "out of memory opening '%s'", final_path);
        return NULL;
    }
    f->model = model;
    f->nparams = storq_param_count(model->params);
    return f;
}

/* HDF5 1.10 cannot close a file whose flush failed (a disk full): H5Fclose fails and leaves a
 * half-freed file behind that crashes the library when it ends (at MPI_Finalize). So a file that
 * cannot be flushed is closed on a scratch file in memory put under its descriptor (sec2 driver:
 * the handle is the int descriptor), where the close's writes and truncation go: the file on disk
 * keeps what the writes before the failure put there, which --resume reads. */
/* After a failed write (discard), nothing more goes to the disk: flushing what HDF5 still holds
 * would write the headers it changed in place (/points, with a link to the unfinished point or a
 * continuation of its header) while the new blocks they point to, further on, cannot be written,
 * and the complete points would no longer be readable. The file keeps its last flushed state. */
static void close_file(hid_t file, int discard)
{
    if (discard || H5Fflush(file, H5F_SCOPE_GLOBAL) < 0) {
        H5Eclear2(H5E_DEFAULT);
        void *handle = NULL;
        hid_t fapl = H5Fget_access_plist(file);
        int sec2 = fapl >= 0 && H5Pget_driver(fapl) == H5FD_SEC2;
        if (fapl >= 0)
            H5Pclose(fapl);
        int scratch = sec2 && H5Fget_vfd_handle(file, H5P_DEFAULT, &handle) >= 0 && handle
                          ? memfd_create("storq-discard", 0)
                          : -1;
        if (scratch >= 0) {
            dup2(scratch, *(int *)handle);
            close(scratch);
        }
        /* fails too (the cache keeps a flag of the failed flush), but without it the close
         * fails and the crash comes back (HDF5 1.10.8, tests/e2e_full_disk.sh) */
        H5Fflush(file, H5F_SCOPE_GLOBAL);
    }
    if (H5Fclose(file) < 0)
        storq_h5_library_close_failed(); /* half freed: HDF5 must not end (h5_library.h) */
    H5Eclear2(H5E_DEFAULT);
}

void storq_h5_close(storq_h5_file **pf)
{
    if (!pf || !*pf)
        return;
    storq_h5_file *f = *pf;
    if (f->file >= 0) {
        close_file(f->file, f->write_failed);
        storq_partial_trim(f->partial_path);
    }
    storq_output_lock_release(&f->lock);
    free(f->final_path);
    free(f->partial_path);
    free(f);
    *pf = NULL;
}

static int check_param_names(const storq_model *model, storq_error *err)
{
    for (const storq_param_def *d = model->params; d->name; d++)
        for (const char *const *r = storq_schema_point_names; *r; r++)
            if (strcmp(d->name, *r) == 0)
                return storq_fail(err, STORQ_ERR_RUNTIME,
                                  "model '%s': parameter name '%s' is reserved in the results file",
                                  model->name, d->name);
    return STORQ_OK;
}

/* ---- root ---- */

static void iso8601_now(char *buf, size_t size)
{
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* Schema 1.1: a job-array task records which share of the points it holds. A whole run's file
 * has no task attributes and so stays a 1.0 file. */
static int write_task_attrs(hid_t file, const storq_run_meta *meta, storq_error *err)
{
    if (meta->task_count <= 1)
        return STORQ_OK;
    STORQ_TRY(storq_h5u_attr_u64(file, STORQ_SCHEMA_ATTR_TASK_INDEX, meta->task_index, err));
    return storq_h5u_attr_u64(file, STORQ_SCHEMA_ATTR_TASK_COUNT, meta->task_count, err);
}

static int write_root_attrs(hid_t file, const storq_run_meta *meta, const storq_model *model,
                            storq_error *err)
{
    int32_t version[2];
    storq_schema_version(meta->task_count, version);
    char created[32], host[256] = "";
    iso8601_now(created, sizeof created);
    if (gethostname(host, sizeof host - 1) != 0)
        snprintf(host, sizeof host, "unknown");
    STORQ_TRY(storq_h5u_attr_string(file, STORQ_SCHEMA_ATTR_FORMAT, STORQ_SCHEMA_FORMAT, err));
    STORQ_TRY(storq_h5u_attr_i32_array(file, STORQ_SCHEMA_ATTR_VERSION, version, 2, err));
    STORQ_TRY(storq_h5u_attr_string(file, STORQ_SCHEMA_ATTR_STORQ_VERSION, STORQ_VERSION, err));
    STORQ_TRY(storq_h5u_attr_string(file, STORQ_SCHEMA_ATTR_GIT_COMMIT, STORQ_GIT_COMMIT, err));
    STORQ_TRY(storq_h5u_attr_string(file, STORQ_SCHEMA_ATTR_COMMAND_LINE, meta->command_line,
                                    err));
    STORQ_TRY(storq_utf8_raw_attr(file, STORQ_SCHEMA_ATTR_COMMAND_LINE, meta->command_line, err));
    STORQ_TRY(storq_h5u_attr_string(file, STORQ_SCHEMA_ATTR_CREATED, created, err));
    STORQ_TRY(storq_h5u_attr_string(file, STORQ_SCHEMA_ATTR_HOSTNAME, host, err));
    STORQ_TRY(storq_h5u_attr_i64(file, STORQ_SCHEMA_ATTR_MPI_RANKS, meta->mpi_ranks, err));
    STORQ_TRY(storq_h5u_attr_i64(file, STORQ_SCHEMA_ATTR_OMP_THREADS, meta->omp_threads, err));
    STORQ_TRY(storq_h5u_attr_u64(file, STORQ_SCHEMA_ATTR_SEED, meta->seed, err));
    STORQ_TRY(storq_h5u_attr_string(file, STORQ_SCHEMA_ATTR_MODEL, model->name, err));
    STORQ_TRY(storq_h5u_attr_u64(file, STORQ_SCHEMA_ATTR_REPLICATIONS, meta->replications, err));
    return write_task_attrs(file, meta, err);
}

static int write_config(hid_t file, const char *text, storq_error *err)
{
    hid_t run;
    STORQ_TRY(storq_h5_run_group_create(file, &run, err)); /* room ahead for each session's end */
    int rc = storq_h5u_write_string(run, STORQ_SCHEMA_CONFIG, text, err);
    hid_t d = rc ? -1 : H5Dopen2(run, STORQ_SCHEMA_CONFIG, H5P_DEFAULT);
    if (!rc) /* a trace path that is not UTF-8: the text is escaped, its bytes kept beside */
        rc = d >= 0 ? storq_utf8_raw_attr(d, STORQ_SCHEMA_CONFIG, text, err)
                    : storq_h5u_fail(err, run, "cannot open '%s'", STORQ_SCHEMA_CONFIG);
    if (d >= 0)
        H5Dclose(d);
    H5Gclose(run);
    return rc;
}

/* ---- /points/index: a compound table, one row per point ---- */

typedef struct index_layout {
    hid_t ftype, mtype;    /* file (little-endian) and memory (native) compound types */
    size_t *offsets;       /* of each parameter's field; the point id is at 0 */
    size_t row_size;
} index_layout;

static void index_layout_free(index_layout *l)
{
    storq_h5u_close_type(&l->ftype);
    storq_h5u_close_type(&l->mtype);
    free(l->offsets);
    l->offsets = NULL;
}

static size_t longest_string(const storq_params *points, size_t npoints, size_t i)
{
    size_t max = 0;
    for (size_t p = 0; p < npoints; p++) {
        char *owned = NULL;
        const char *text = points[p].v[i].s ? storq_utf8_text(points[p].v[i].s, &owned) : "";
        /* escaped text is at most 4 bytes a byte; out of memory, room for the worst */
        size_t len = text ? strlen(text) : 4 * strlen(points[p].v[i].s);
        free(owned);
        if (len > max)
            max = len;
    }
    return max;
}

static int insert_field(index_layout *l, const char *name, size_t offset, hid_t ftype,
                        hid_t mtype)
{
    if (H5Tinsert(l->ftype, name, offset, ftype) < 0)
        return -1;
    return H5Tinsert(l->mtype, name, offset, mtype) < 0 ? -1 : 0;
}

/* Packed fields: point (uint64), then INT -> int64, REAL -> float64, STRING -> fixed length sized
 * to the longest value plus its terminating null. */
static int index_layout_build(index_layout *l, hid_t file, const storq_model *model, size_t nparams,
                              const storq_params *points, size_t npoints, storq_error *err)
{
    memset(l, 0, sizeof *l);
    l->ftype = l->mtype = -1;
    l->offsets = calloc(nparams + 1, sizeof *l->offsets);
    if (!l->offsets)
        return storq_fail(err, STORQ_ERR_RUNTIME, "out of memory building /points/index");
    size_t *sizes = calloc(nparams + 1, sizeof *sizes);
    if (!sizes)
        return storq_fail(err, STORQ_ERR_RUNTIME, "out of memory building /points/index");
    size_t total = sizeof(uint64_t);
    for (size_t i = 0; i < nparams; i++) {
        sizes[i] = model->params[i].type == STORQ_PARAM_STRING
                       ? longest_string(points, npoints, i) + 1
                       : 8;
        l->offsets[i] = total;
        total += sizes[i];
    }
    l->row_size = total;
    l->ftype = H5Tcreate(H5T_COMPOUND, total);
    l->mtype = H5Tcreate(H5T_COMPOUND, total);
    int bad = l->ftype < 0 || l->mtype < 0 ||
              insert_field(l, STORQ_SCHEMA_INDEX_POINT, 0, H5T_STD_U64LE, H5T_NATIVE_UINT64) < 0;
    for (size_t i = 0; i < nparams && !bad; i++) {
        const storq_param_def *d = &model->params[i];
        if (d->type == STORQ_PARAM_INT) {
            bad = insert_field(l, d->name, l->offsets[i], H5T_STD_I64LE, H5T_NATIVE_INT64) < 0;
        } else if (d->type == STORQ_PARAM_REAL) {
            bad = insert_field(l, d->name, l->offsets[i], H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE) < 0;
        } else {
            hid_t s = H5Tcopy(H5T_C_S1);
            bad = s < 0 || H5Tset_size(s, sizes[i]) < 0 ||
                  H5Tset_strpad(s, H5T_STR_NULLTERM) < 0 ||
                  insert_field(l, d->name, l->offsets[i], s, s) < 0;
            storq_h5u_close_type(&s);
        }
    }
    free(sizes);
    if (bad)
        return storq_h5u_fail(err, file, "cannot build the type of /points/index");
    return STORQ_OK;
}

static void index_row(const index_layout *l, const storq_model *model, size_t nparams,
                      uint64_t point, const storq_params *p, unsigned char *row)
{
    memset(row, 0, l->row_size);
    memcpy(row, &point, sizeof point);
    for (size_t i = 0; i < nparams; i++) {
        unsigned char *field = row + l->offsets[i];
        switch (model->params[i].type) {
        case STORQ_PARAM_INT:
            memcpy(field, &p->v[i].i, sizeof p->v[i].i);
            break;
        case STORQ_PARAM_REAL:
            memcpy(field, &p->v[i].r, sizeof p->v[i].r);
            break;
        case STORQ_PARAM_STRING:
            if (p->v[i].s) { /* stored as the point's attribute is: escaped if not UTF-8 */
                char *owned = NULL;
                const char *text = storq_utf8_text(p->v[i].s, &owned);
                if (text)
                    memcpy(field, text, strlen(text)); /* the field has room for it */
                free(owned);
            }
            break;
        }
    }
}

static int write_index_units(hid_t dset, const storq_model *model, size_t nparams,
                             storq_error *err)
{
    const char **units = calloc(nparams + 1, sizeof *units);
    if (!units)
        return storq_fail(err, STORQ_ERR_RUNTIME, "out of memory writing /points/index");
    units[0] = ""; /* the point id */
    for (size_t i = 0; i < nparams; i++)
        units[i + 1] = model->params[i].unit ? model->params[i].unit : "";
    int rc = storq_h5u_attr_strings(dset, STORQ_SCHEMA_INDEX_UNITS, units, nparams + 1, err);
    free(units);
    return rc;
}

static int write_index(hid_t points_group, const storq_model *model, size_t nparams,
                       const storq_params *points, size_t npoints, storq_error *err)
{
    index_layout l;
    int rc = index_layout_build(&l, points_group, model, nparams, points, npoints, err);
    unsigned char *rows = rc ? NULL : calloc(npoints + 1, l.row_size);
    if (!rc && !rows)
        rc = storq_fail(err, STORQ_ERR_RUNTIME, "out of memory writing /points/index");
    if (rc) {
        index_layout_free(&l);
        return rc;
    }
    for (size_t p = 0; p < npoints; p++)
        index_row(&l, model, nparams, p, &points[p], rows + p * l.row_size);

    hsize_t dims[1] = {npoints};
    hid_t space = H5Screate_simple(1, dims, NULL);
    hid_t d = space < 0 ? -1
                        : H5Dcreate2(points_group, STORQ_SCHEMA_INDEX, l.ftype, space,
                                     H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (d < 0)
        rc = storq_h5u_fail(err, points_group, "cannot create dataset '" STORQ_SCHEMA_INDEX "'");
    else if (npoints > 0 && H5Dwrite(d, l.mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, rows) < 0)
        rc = storq_h5u_fail(err, points_group, "cannot write dataset '" STORQ_SCHEMA_INDEX "'");
    else
        rc = write_index_units(d, model, nparams, err);
    storq_h5u_close_dataset(&d);
    storq_h5u_close_space(&space);
    free(rows);
    index_layout_free(&l);
    return rc;
}

static int write_file_header(hid_t file, const storq_run_meta *meta, const storq_model *model,
                             size_t nparams, const storq_params *points, size_t npoints,
                             storq_error *err)
{
    STORQ_TRY(write_root_attrs(file, meta, model, err));
    STORQ_TRY(write_config(file, meta->config_text, err));
    hid_t g;
    char last[STORQ_SCHEMA_POINT_PATH_MAX];
    storq_schema_point_path(npoints ? npoints - 1 : 0, last, sizeof last);
    const char *slash = strrchr(last, '/');
    /* its links: the index and one a point */
    STORQ_TRY(storq_h5u_create_sized_group(file, STORQ_SCHEMA_POINTS, npoints + 1,
                                           strlen(slash ? slash + 1 : last), &g, err));
    int rc = write_index(g, model, nparams, points, npoints, err);
    H5Gclose(g);
    if (rc == STORQ_OK && H5Fflush(file, H5F_SCOPE_GLOBAL) < 0)
        rc = storq_h5u_fail(err, file, "cannot flush the file");
    return rc;
}

int storq_h5_create(const char *final_path, const storq_run_meta *meta, const storq_model *model,
                    const storq_params *points, size_t npoints, storq_h5_file **out,
                    storq_error *err)
{
    *out = NULL;
    storq_h5u_quiet();
    STORQ_TRY(check_param_names(model, err));
    storq_h5_file *f = new_handle(final_path, model, err);
    if (!f)
        return err->code;
    f->replace = meta->force;
    f->schema = meta->schema == 2 ? 2 : 1;
    int rc = storq_output_lock_take(final_path, "--output", &f->lock, err);
    if (!rc) /* again under the lock: a run that finished since the first look wrote it */
        rc = storq_partial_check_final(final_path, f->replace, "--output", err);
    if (!rc)
        rc = storq_partial_create(final_path, f->partial_path, "--output", err);
    if (rc) {
        storq_h5_close(&f);
        return rc;
    }
    /* the header: root attributes, /run/config, and an index row of every point */
    rc = storq_partial_reserve(f->partial_path, (1u << 18) + (uint64_t)npoints * 4096,
                               "the file's header", err);
    if (!rc) {
        hid_t fapl = storq_h5u_file_access(), fcpl = storq_h5u_file_create();
        f->file = H5Fcreate(f->partial_path, H5F_ACC_TRUNC, fcpl >= 0 ? fcpl : H5P_DEFAULT,
                            fapl >= 0 ? fapl : H5P_DEFAULT);
        if (fapl >= 0)
            H5Pclose(fapl);
        if (fcpl >= 0)
            H5Pclose(fcpl);
        if (f->file < 0)
            rc = storq_h5u_fail_file(err, f->partial_path, "cannot create the HDF5 file");
    }
    if (!rc)
        rc = write_file_header(f->file, meta, model, f->nparams, points, npoints, err);
    if (rc) {
        /* A header-less partial is useless for --resume: remove it (while the lock is held). */
        if (f->file >= 0)
            close_file(f->file, 1);
        f->file = -1;
        unlink(f->partial_path);
        storq_h5_close(&f);
        return rc;
    }
    *out = f;
    return STORQ_OK;
}

/* ---- finish ---- */

hid_t storq_h5_file_id(const storq_h5_file *f)
{
    return f ? f->file : -1;
}

int storq_h5_reserve(storq_h5_file *f, uint64_t bytes, const char *what, storq_error *err)
{
    return storq_partial_reserve(f->partial_path, bytes, what, err);
}

/* Schema 2: the finished file written from the flushed partial, which is then removed; kept when
 * that fails (every point is in it: --resume finishes it again). */
static int finish_columnar(storq_h5_file *f, storq_error *err)
{
    int rc = storq_h5_finish_columnar(f->file, f->partial_path, f->final_path, f->replace, err);
    herr_t closed = H5Fclose(f->file);
    f->file = -1;
    if (!rc && closed >= 0)
        unlink(f->partial_path);
    else
        storq_partial_trim(f->partial_path);
    return rc;
}

int storq_h5_finish(storq_h5_file **pf, storq_error *err)
{
    storq_h5_file *f = pf ? *pf : NULL;
    if (!f || f->file < 0)
        return STORQ_RUNTIME_FAIL(err, "storq_h5_finish: no open results file");
    if (H5Fflush(f->file, H5F_SCOPE_GLOBAL) < 0) {
        int rc = storq_h5u_fail(err, f->file, "cannot flush the file");
        storq_h5_close(pf);
        return rc;
    }
    if (f->schema == 2) {
        int rc = finish_columnar(f, err);
        storq_h5_close(pf);
        return rc;
    }
    herr_t closed = H5Fclose(f->file);
    f->file = -1;
    int rc = STORQ_OK;
    if (closed < 0)
        rc = storq_h5u_fail_file(err, f->partial_path, "cannot close the file");
    else
        rc = storq_partial_commit(f->partial_path, f->final_path, f->replace, err);
    storq_h5_close(pf);
    return rc;
}

/* ---- resume ---- */

static int refuse(storq_error *err, const char *partial, const char *what)
{
    return storq_fail(err, STORQ_ERR_USAGE, "--resume: %s was written by a different run (%s)",
                      partial, what);
}

/* *lost: /run's records (its header, units, ranks, sessions) cannot be read; the run is proved
 * the same all the same, by the root's attributes, /run/config and the index. */
static int check_same_run(hid_t file, const char *partial, const storq_run_meta *meta,
                          const storq_model *model, const storq_params *points, size_t npoints,
                          int *lost, storq_error *err)
{
    storq_h5_run there, here = {.seed = meta->seed, .replications = meta->replications,
                                .npoints = npoints};
    storq_h5_checked checked;
    STORQ_TRY(storq_schema_check(file, partial, "--resume", STORQ_SCHEMA_READ, NULL, err));
    /* Nothing of the file is used before it passed the readers' checks. */
    STORQ_TRY(storq_h5_check_file_salvage(file, partial, "--resume", &checked, err));
    *lost = checked.run_records_damaged;
    STORQ_TRY(storq_h5_run_read(file, &there, err));
    here.model = strdup(model->name);
    here.config = storq_utf8_escape(meta->config_text); /* as stored */
    char what[512];
    size_t count = meta->task_count > 1 ? meta->task_count : 1;
    size_t index = count > 1 ? meta->task_index : 0;
    int rc = STORQ_OK;
    if (!here.model || !here.config) {
        rc = storq_fail(err, STORQ_ERR_RUNTIME, "out of memory");
    } else if (storq_h5_run_differ(&there, "there", &here, "here", what, sizeof what)) {
        rc = refuse(err, partial, what);
    } else if (there.task_count != count || there.task_index != index) {
        char a[64], b[64];
        storq_h5_run_task_text(there.task_index, there.task_count, a, sizeof a);
        storq_h5_run_task_text(index, count, b, sizeof b);
        snprintf(what, sizeof what, "%s there, %s here", a, b);
        rc = refuse(err, partial, what);
    }
    storq_h5_run_free(&there);
    storq_h5_run_free(&here);
    /* The same run by its description; its index must hold this run's points too. */
    storq_h5_expect expect = {model, points, npoints};
    if (!rc)
        rc = storq_h5_check_points_of(file, partial, "--resume", &expect, err);
    return rc;
}

static int open_partial(storq_h5_file *f, storq_error *err)
{
    hid_t fapl = storq_h5u_file_access();
    f->file = H5Fopen(f->partial_path, H5F_ACC_RDWR, fapl >= 0 ? fapl : H5P_DEFAULT);
    if (fapl >= 0)
        H5Pclose(fapl);
    if (f->file >= 0)
        return STORQ_OK;
    char detail[512] = "";
    storq_h5u_error_detail(detail, sizeof detail);
    /* A damaged partial is the file given (usage); a lock held elsewhere is not. */
    if (!strstr(detail, "unable to lock"))
        return storq_fail(err, STORQ_ERR_USAGE, "--resume: %s is damaged: HDF5 cannot open it "
                          "(%s); --force starts over", f->partial_path, detail);
    return storq_fail(err, STORQ_ERR_RUNTIME, "--resume: cannot open %s (HDF5: %s)",
                      f->partial_path, detail);
}

/* A write cut short inside HDF5 (a full disk where no room could be reserved ahead) can leave an
 * unfinished point group that HDF5 cannot delete ("not valid object type"). Then the complete
 * points go to a new partial file, as `storq merge` of this one file copies them (root, /run
 * config, index, every complete point group; not the checkpoints of unfinished points nor the
 * record of earlier sessions' units: those replications run again, to the same values), and the
 * resume goes on from it. The damaged file is kept until the copy is in place. */
static int salvage(storq_h5_file *f, const storq_run_meta *meta, size_t npoints,
                   unsigned char *done, storq_error *err)
{
    char why[sizeof err->msg];
    snprintf(why, sizeof why, "%s", err->msg);
    memset(err, 0, sizeof *err);
    if (f->file >= 0) /* not open when only /run's records are damaged */
        close_file(f->file, 0);
    f->file = -1;
    size_t len = strlen(f->partial_path) + sizeof ".damaged";
    char *damaged = malloc(len);
    if (!damaged)
        return storq_fail(err, STORQ_ERR_RUNTIME, "out of memory");
    snprintf(damaged, len, "%s.damaged", f->partial_path);
    if (rename(f->partial_path, damaged) != 0) {
        int rc = storq_fail(err, STORQ_ERR_RUNTIME, "--resume: %s is damaged (%s) and cannot be "
                            "renamed to repair it: %s", f->partial_path, why, strerror(errno));
        free(damaged);
        return rc;
    }
    fprintf(stderr, "storq: --resume: %s is damaged (%s: a write cut short, or damage from "
            "elsewhere); its complete points go to a new %s\n", f->partial_path, why,
            f->partial_path);
    storq_error merge_err = {0};
    int lost = 0;
    int merged = storq_h5_merge_salvage(f->final_path, damaged, meta->command_line, stderr, &lost,
                                        &merge_err);
    if (merged == STORQ_OK) /* every point was complete: back to the partial, to finish as usual */
        rename(f->final_path, f->partial_path);
    int rc = STORQ_OK;
    if (access(f->partial_path, F_OK) != 0) {
        rename(damaged, f->partial_path);
        rc = storq_fail(err, STORQ_ERR_RUNTIME, "--resume: %s is damaged beyond repair (%s; "
                        "copying its complete points: %s); --force starts over", f->partial_path,
                        why, merge_err.msg);
    } else {
        if (lost)
            fprintf(stderr, "storq: warning: --resume: the record of the earlier sessions of %s "
                    "(/run/units, /run/ranks, /run/sessions, /run's attributes) could not be "
                    "read and is not carried over: the record starts again with this session, "
                    "numbered 0\n", f->partial_path);
        unlink(damaged);
        rc = open_partial(f, err);
        if (!rc)
            rc = storq_h5_run_scan_points(f->file, npoints, done, 1, err);
    }
    free(damaged);
    return rc;
}

int storq_h5_resume(const char *final_path, const storq_run_meta *meta, const storq_model *model,
                    const storq_params *points, size_t npoints, unsigned char *done,
                    storq_h5_file **out, storq_error *err)
{
    *out = NULL;
    storq_h5u_quiet();
    memset(done, 0, npoints);
    storq_h5_file *f = new_handle(final_path, model, err);
    if (!f)
        return err->code;
    f->replace = meta->force;
    f->schema = meta->schema == 2 ? 2 : 1;
    int rc = storq_output_lock_take(final_path, "--resume", &f->lock, err);
    if (!rc)
        rc = storq_partial_check_final(final_path, f->replace, "--resume", err);
    if (!rc) /* HDF5 would wait forever on a FIFO there */
        rc = storq_open_regular(f->partial_path, "--resume", "a partial file", NULL, err);
    if (!rc && access(f->partial_path, F_OK) != 0)
        rc = storq_fail(err, STORQ_ERR_USAGE, "--resume: no %s to resume; run without --resume",
                        f->partial_path);
    else if (!rc && access(f->partial_path, R_OK | W_OK) != 0)
        rc = storq_fail(err, STORQ_ERR_USAGE, "--resume: cannot open %s for writing: %s",
                        f->partial_path, strerror(errno));
    /* Checked read-only first: a refused --resume leaves the partial exactly as it was (HDF5
     * writes a file it closes after opening it for writing, even when nothing changed). */
    int checked = 0, same = STORQ_OK, lost = 0;
    if (!rc) {
        hid_t ro = H5Fopen(f->partial_path, H5F_ACC_RDONLY, H5P_DEFAULT);
        if (ro >= 0) {
            same = check_same_run(ro, f->partial_path, meta, model, points, npoints, &lost, err);
            checked = 1;
            lost = same == STORQ_OK && lost; /* salvaged only once proved the same run */
            H5Fclose(ro);
            H5Eclear2(H5E_DEFAULT);
        }
    }
    /* refused (another run's file, or unreadable): stop before opening it for writing; a damaged
     * file of this run (a runtime error) is salvaged below */
    if (!rc && same != STORQ_OK && same != STORQ_ERR_RUNTIME)
        rc = same;
    if (!rc && !lost) /* a file whose /run records are damaged is not opened for writing */
        rc = open_partial(f, err);
    if (!rc && !lost) {
        rc = checked ? same : check_same_run(f->file, f->partial_path, meta, model, points,
                                             npoints, &lost, err);
        if (rc == STORQ_ERR_RUNTIME) { /* not another run's file: a damaged one */
            char why[sizeof err->msg];
            snprintf(why, sizeof why, "%s", err->msg);
            memset(err, 0, sizeof *err);
            rc = storq_fail(err, STORQ_ERR_RUNTIME, "--resume: %s cannot be resumed (%s); "
                            "--force starts over", f->partial_path, why);
        }
    }
    /* A point group a write left unfinished is not deleted in place: when that write was cut
     * short inside HDF5 (a full disk), deleting it can fail half way and leave HDF5 unable to
     * close the file at all (a crash at MPI_Finalize). The complete points are copied into a new
     * partial instead (salvage); nothing of the old file is modified. */
    int unfinished = 0;
    if (!rc && !lost)
        rc = storq_h5_run_scan_points(f->file, npoints, done, 0, err);
    for (size_t p = 0; !rc && p < npoints; p++)
        unfinished |= done[p] == 2;
    if (!rc && lost) { /* the same run, but /run's records cannot be read (nor rewritten) */
        storq_fail(err, STORQ_ERR_RUNTIME, "/run's records cannot be read");
        rc = salvage(f, meta, npoints, done, err);
    } else if (!rc && unfinished) {
        storq_fail(err, STORQ_ERR_RUNTIME, "a point group left unfinished by a write cut short");
        rc = salvage(f, meta, npoints, done, err);
    } else if (!rc) { /* no unfinished point: now tidy the checkpoints a kill left */
        rc = storq_h5_run_scan_points(f->file, npoints, done, 1, err);
    }
    if (rc == STORQ_ERR_RUNTIME && f->file >= 0)
        rc = salvage(f, meta, npoints, done, err);
    for (size_t p = 0; !rc && p < npoints; p++)
        done[p] = done[p] == 1;
    if (!rc && H5Fflush(f->file, H5F_SCOPE_GLOBAL) < 0)
        rc = storq_h5u_fail(err, f->file, "cannot flush the file");
    if (rc) {
        memset(done, 0, npoints);
        storq_h5_close(&f);
        return rc;
    }
    *out = f;
    return STORQ_OK;
}
