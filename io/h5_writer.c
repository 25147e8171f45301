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
#include "h5_merge.h"
#include "h5_run.h"
#include "h5_util.h"
#include "file_kind.h"
#include "output_lock.h"
#include "partial_file.h"
#include "schema.h"
#include "storq_version.h"
#include "utf8.h"

struct storq_h5_file {
    hid_t file;
    char *final_path;
    char *partial_path;
    const storq_model *model;
    size_t nparams;
    storq_output_lock *lock; /* NAME.lock, held from before the partial is touched to the end */
    int write_failed;        /* a point's write failed: what HDF5 still holds stays off the disk */
    int replace;             /* --force: the final rename may replace a file of that name */
};

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
    H5Fclose(file);
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

#define RUN_HEADER_LINKS 16

static int write_config(hid_t file, const char *text, storq_error *err)
{
    hid_t run;
    /* Its header has room ahead for what each session's end adds (the units, ranks and sessions
     * tables, nine attributes; tests/test_h5_units.c checks they fit): written in place, a write
     * cut short there cannot leave /run unreadable (see storq_h5u_create_sized_group). */
    STORQ_TRY(storq_h5u_create_sized_group(file, STORQ_SCHEMA_RUN, RUN_HEADER_LINKS, 24, &run,
                                           err));
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

/* ---- one point, built bottom up ----
 * Each object of a point is made whole before the next one: an anonymous dataset with its data,
 * attributes and checksum; then the group of such members with its attributes and checksum, and
 * only then its links to them, in the model's order. So an object header grows while it is the
 * last block of the file's metadata, and HDF5 grows it in place: one block an object. Made the
 * other way (a group before its members, checksums stamped at the end) most headers got a
 * continuation block of about 50 bytes for each link or attribute added later, a quarter of a
 * sweep's file (docs/hdf5-schema.md, Storage). The point's group goes into /points last, after
 * its status. */

/* The members of a group being built, in order: an open anonymous object, or (id < 0) a soft
 * link to target. */
typedef struct member {
    const char *name; /* not owned: the model's names and literals */
    hid_t id;
    char *target;
} member;

typedef struct members {
    member *m;
    size_t n, cap;
} members;

/* A group or dataset: H5Oclose keeps the id when closing fails (a dataset's data cannot be
 * written to a full disk), which HDF5 1.10 then crashes on when it ends; H5Dclose and H5Gclose
 * release it whatever happens. */
static void close_object(hid_t id)
{
    if (H5Iget_type(id) == H5I_DATASET)
        H5Dclose(id);
    else
        H5Gclose(id);
}

/* Closes the members (an anonymous object closed unlinked is gone); again is harmless. */
static void members_close(members *kids)
{
    for (size_t i = 0; i < kids->n; i++) {
        if (kids->m[i].id >= 0)
            close_object(kids->m[i].id);
        free(kids->m[i].target);
    }
    free(kids->m);
    memset(kids, 0, sizeof *kids);
}

/* Adds id (from now on kids' to close) or, id < 0, a soft link to target. */
static int members_add(members *kids, const char *name, hid_t id, const char *target,
                       storq_error *err)
{
    char *t = target ? strdup(target) : NULL;
    if (kids->n == kids->cap && (!target || t)) {
        size_t cap = kids->cap ? 2 * kids->cap : 8;
        member *grown = realloc(kids->m, cap * sizeof *grown);
        if (grown) {
            kids->m = grown;
            kids->cap = cap;
        }
    }
    if (kids->n == kids->cap || (target && !t)) {
        free(t);
        if (id >= 0)
            close_object(id);
        return storq_fail(err, STORQ_ERR_RUNTIME, "out of memory writing '%s'", name);
    }
    kids->m[kids->n++] = (member){name, id, t};
    return STORQ_OK;
}

/* obj (anonymous, its data and attributes written) gets its checksum and joins kids. */
static int add_stamped(members *kids, const char *name, hid_t obj, storq_error *err)
{
    int rc = storq_h5_checksum_stamp_object(obj, err);
    if (rc) {
        close_object(obj);
        return rc;
    }
    return members_add(kids, name, obj, NULL, err);
}

static int add_f64(members *kids, hid_t file, const char *name, int nd, const hsize_t *dims,
                   const double *data, storq_error *err)
{
    hid_t d;
    STORQ_TRY(storq_h5u_new_f64(file, name, nd, dims, data, &d, err));
    return add_stamped(kids, name, d, err);
}

static int add_u64(members *kids, hid_t file, const char *name, int nd, const hsize_t *dims,
                   const uint64_t *data, storq_error *err)
{
    hid_t d;
    STORQ_TRY(storq_h5u_new_u64(file, name, nd, dims, data, &d, err));
    return add_stamped(kids, name, d, err);
}

/* g (its attributes written) gets its checksum, then its links to kids, which are closed. */
static int link_members(hid_t g, members *kids, storq_error *err)
{
    int rc = storq_h5_checksum_stamp_object(g, err);
    for (size_t i = 0; !rc && i < kids->n; i++) {
        const member *k = &kids->m[i];
        if (k->id >= 0)
            rc = storq_h5u_link(g, k->name, k->id, err);
        else if (H5Lcreate_soft(k->target, g, k->name, H5P_DEFAULT, H5P_DEFAULT) < 0)
            rc = storq_h5u_fail(err, g, "cannot link '%s' to '%s'", k->name, k->target);
    }
    members_close(kids);
    return rc;
}

/* A group without attributes of its own (but its checksum) of kids, added to parent as name. */
static int add_group(members *parent, hid_t file, const char *name, members *kids,
                     storq_error *err)
{
    hid_t g = -1;
    int rc = storq_h5u_new_group(file, &g, err);
    if (!rc)
        rc = link_members(g, kids, err);
    members_close(kids);
    if (rc) {
        storq_h5u_close_group(&g);
        return rc;
    }
    return members_add(parent, name, g, NULL, err);
}

static int write_point_attrs(hid_t g, const storq_h5_file *f, const storq_params *params,
                             const storq_point_result *res, double wall_seconds, storq_error *err)
{
    STORQ_TRY(storq_h5u_attr_string(g, STORQ_SCHEMA_ATTR_MODEL, f->model->name, err));
    STORQ_TRY(storq_h5u_attr_u64(g, STORQ_SCHEMA_ATTR_REPLICATIONS, res->replications, err));
    STORQ_TRY(storq_h5u_attr_f64(g, STORQ_SCHEMA_ATTR_WALL_SECONDS, wall_seconds, err));
    STORQ_TRY(storq_h5u_attr_u64(g, STORQ_SCHEMA_ATTR_EVENTS, res->events, err));
    for (size_t i = 0; i < f->nparams; i++) {
        const storq_param_def *d = &f->model->params[i];
        const storq_param_value *v = &params->v[i];
        if (d->type == STORQ_PARAM_INT)
            STORQ_TRY(storq_h5u_attr_i64(g, d->name, v->i, err));
        else if (d->type == STORQ_PARAM_REAL)
            STORQ_TRY(storq_h5u_attr_f64(g, d->name, v->r, err));
        else
            STORQ_TRY(storq_h5u_attr_string(g, d->name, v->s, err));
    }
    return STORQ_OK;
}

static const char *kind_name(storq_obs_kind kind)
{
    switch (kind) {
    case STORQ_OBS_SCALAR:
        return "scalar";
    case STORQ_OBS_VECTOR:
        return "vector";
    case STORQ_OBS_HIST:
        return "histogram";
    }
    return "unknown";
}

/* Shape of one replication's value of def (after the replication axis, if any). */
static int value_shape(const storq_obs_def *def, hsize_t *dims)
{
    if (def->kind != STORQ_OBS_VECTOR)
        return 0;
    if (def->cols > 1) {
        dims[0] = def->length / def->cols;
        dims[1] = def->cols;
        return 2;
    }
    dims[0] = def->length;
    return 1;
}

static int write_summary(members *kids, hid_t file, const storq_obs_def *def,
                         const storq_summary *s, storq_error *err)
{
    hsize_t dims[2];
    int nd = value_shape(def, dims);
    size_t off = def->value_offset;
    STORQ_TRY(add_f64(kids, file, "mean", nd, dims, s->mean + off, err));
    STORQ_TRY(add_f64(kids, file, "stderr", nd, dims, s->stderr_ + off, err));
    STORQ_TRY(add_f64(kids, file, "ci95", nd, dims, s->ci95 + off, err));
    return STORQ_OK;
}

static int write_axis(members *kids, hid_t file, const storq_obs_def *def, storq_error *err)
{
    hsize_t rows = def->cols > 1 ? def->length / def->cols : def->length;
    hid_t d;
    STORQ_TRY(storq_h5u_new_f64(file, "axis", 1, &rows, def->axis, &d, err));
    int rc = storq_h5u_attr_string(d, "name", def->axis_name, err);
    if (rc) {
        H5Dclose(d);
        return rc;
    }
    return add_stamped(kids, "axis", d, err);
}

/* The sum of every replication's histogram sum, added in replication order (reproducible). */
static double hist_total_sum(const storq_obs_def *def, const storq_point_result *res)
{
    double sum = 0;
    for (size_t r = 0; r < res->replications; r++)
        sum += res->values[r * res->schema->nvalues + def->value_offset];
    return sum;
}

/* The name of def's layout in /layouts: the parameters its edges are a function of. */
static void layout_name(const storq_obs_def *def, char *buf, size_t size)
{
    if (def->hist_kind == STORQ_HIST_LOGLIN)
        snprintf(buf, size, "log-linear_emin%d_emax%d_sub%d", def->emin, def->emax,
                 def->sub_bits);
    else
        snprintf(buf, size, "integer_bins%zu", def->nbins);
}

/* /layouts/NAME, the edges a histogram's bin_edges links to (path gets it), written with its
 * checksum by the first histogram of that layout in the file, so a sweep stores them once. */
static int write_layout(hid_t file, const storq_obs_def *def, char *path, size_t size,
                        storq_error *err)
{
    char name[96];
    layout_name(def, name, sizeof name);
    snprintf(path, size, STORQ_SCHEMA_LAYOUTS_PATH "/%s", name);
    if (storq_h5u_has_link(file, path))
        return STORQ_OK;
    hid_t layouts = -1, d = -1;
    hsize_t ne = def->nbins + 1;
    double *edges = malloc(ne * sizeof *edges);
    int rc = STORQ_OK;
    if (!edges)
        rc = storq_fail(err, STORQ_ERR_RUNTIME, "out of memory writing layout '%s'", name);
    else
        storq_hist_edges(def, edges);
    if (!rc && storq_h5u_has_link(file, STORQ_SCHEMA_LAYOUTS_PATH)) {
        layouts = H5Gopen2(file, STORQ_SCHEMA_LAYOUTS_PATH, H5P_DEFAULT);
        if (layouts < 0)
            rc = storq_h5u_fail(err, file, "cannot open group '" STORQ_SCHEMA_LAYOUTS "'");
    } else if (!rc) {
        rc = storq_h5u_create_group(file, STORQ_SCHEMA_LAYOUTS, &layouts, err);
    }
    if (!rc)
        rc = storq_h5u_write_f64(layouts, name, 1, &ne, edges, err);
    free(edges);
    if (!rc && (d = H5Dopen2(layouts, name, H5P_DEFAULT)) < 0)
        rc = storq_h5u_fail(err, layouts, "cannot open dataset '%s'", name);
    if (!rc)
        rc = storq_h5_checksum_stamp_object(d, err);
    storq_h5u_close_dataset(&d);
    storq_h5u_close_group(&layouts);
    if (!rc)
        rc = storq_schema_restate_version(file, err);
    return rc;
}

static int write_histogram(members *kids, hid_t file, const storq_obs_def *def,
                           const storq_point_result *res, storq_error *err)
{
    const uint64_t *c = res->counts + def->count_offset; /* underflow, bins, overflow */
    hsize_t nb = def->nbins;
    uint64_t count = 0;
    for (size_t j = 0; j < def->nbins + 2; j++)
        count += c[j];
    double sum = hist_total_sum(def, res);
    double min = res->minmax[def->minmax_offset], max = res->minmax[def->minmax_offset + 1];
    double mean = count ? sum / (double)count : NAN;
    char edges[128];

    STORQ_TRY(add_u64(kids, file, "counts", 1, &nb, c + 1, err));
    STORQ_TRY(write_layout(file, def, edges, sizeof edges, err));
    STORQ_TRY(members_add(kids, STORQ_SCHEMA_BIN_EDGES, -1, edges, err));
    STORQ_TRY(add_u64(kids, file, "underflow", 0, NULL, &c[0], err));
    STORQ_TRY(add_u64(kids, file, "overflow", 0, NULL, &c[def->nbins + 1], err));
    STORQ_TRY(add_u64(kids, file, "count", 0, NULL, &count, err));
    STORQ_TRY(add_f64(kids, file, "sum", 0, NULL, &sum, err));
    STORQ_TRY(add_f64(kids, file, "min", 0, NULL, &min, err));
    STORQ_TRY(add_f64(kids, file, "max", 0, NULL, &max, err));
    STORQ_TRY(add_f64(kids, file, "mean", 0, NULL, &mean, err));
    return STORQ_OK;
}

static int write_observable_attrs(hid_t g, const storq_obs_def *def, storq_error *err)
{
    STORQ_TRY(storq_h5u_attr_string(g, "kind", kind_name(def->kind), err));
    STORQ_TRY(storq_h5u_attr_string(g, "unit", def->unit, err));
    STORQ_TRY(storq_h5u_attr_string(g, "description", def->desc, err));
    if (def->kind != STORQ_OBS_HIST)
        return STORQ_OK;
    if (def->hist_kind != STORQ_HIST_LOGLIN)
        return storq_h5u_attr_string(g, "histogram_kind", "integer", err);
    STORQ_TRY(storq_h5u_attr_string(g, "histogram_kind", "log-linear", err));
    return storq_h5u_attr_f64(g, "relative_resolution", ldexp(1.0, -def->sub_bits), err);
}

static int write_observable(members *parent, hid_t file, const storq_obs_def *def,
                            const storq_point_result *res, const storq_summary *s,
                            storq_error *err)
{
    members kids = {0};
    hid_t g = -1;
    int rc = def->kind == STORQ_OBS_HIST ? write_histogram(&kids, file, def, res, err)
                                         : write_summary(&kids, file, def, s, err);
    if (!rc && def->kind == STORQ_OBS_VECTOR && def->axis)
        rc = write_axis(&kids, file, def, err);
    if (!rc)
        rc = storq_h5u_new_group(file, &g, err);
    if (!rc)
        rc = write_observable_attrs(g, def, err);
    if (!rc)
        rc = link_members(g, &kids, err);
    members_close(&kids);
    if (rc) {
        storq_h5u_close_group(&g);
        return rc;
    }
    return members_add(parent, def->name, g, NULL, err);
}

/* Row r of replications/<name> is replication r's value: gather it out of the value rows. */
static int write_replication_values(members *reps, hid_t file, const storq_obs_def *def,
                                    const storq_point_result *res, storq_error *err)
{
    size_t R = res->replications, len = def->length, nv = res->schema->nvalues;
    hsize_t dims[3] = {R};
    int nd = 1 + value_shape(def, dims + 1);
    double *buf = malloc((R * len + 1) * sizeof *buf);
    if (!buf)
        return storq_fail(err, STORQ_ERR_RUNTIME, "out of memory writing replications/%s",
                          def->name);
    for (size_t r = 0; r < R; r++)
        memcpy(buf + r * len, res->values + r * nv + def->value_offset, len * sizeof *buf);
    int rc = add_f64(reps, file, def->name, nd, dims, buf, err);
    free(buf);
    return rc;
}

static int write_observables(members *point, hid_t file, const storq_point_result *res,
                             const storq_summary *s, storq_error *err)
{
    members obs = {0}, reps = {0};
    int rc = STORQ_OK;
    for (size_t i = 0; !rc && i < res->schema->ndefs; i++) {
        const storq_obs_def *def = &res->schema->defs[i];
        rc = write_observable(&obs, file, def, res, s, err);
        if (!rc)
            rc = write_replication_values(&reps, file, def, res, err);
    }
    if (!rc)
        rc = add_group(point, file, STORQ_SCHEMA_OBSERVABLES, &obs, err);
    if (!rc)
        rc = add_group(point, file, STORQ_SCHEMA_REPLICATIONS, &reps, err);
    members_close(&obs);
    members_close(&reps);
    return rc;
}

static int write_array(members *kids, hid_t file, const storq_array *a, storq_error *err)
{
    hsize_t len = a->len;
    hid_t d;
    STORQ_TRY(storq_h5u_new_f64(file, a->name, 1, &len, a->len ? a->data : NULL, &d, err));
    int rc = storq_h5u_attr_string(d, "unit", a->unit, err);
    if (!rc)
        rc = storq_h5u_attr_string(d, "description", a->desc, err);
    if (!rc)
        rc = storq_h5u_attr_string(d, "grid", a->grid, err);
    if (rc) {
        H5Dclose(d);
        return rc;
    }
    return add_stamped(kids, a->name, d, err);
}

/* theory/ and comparison/ always exist (possibly empty) so readers need no special case. */
static int write_arrays(members *point, hid_t file, const char *name, const storq_theory *t,
                        storq_error *err)
{
    members kids = {0};
    int rc = STORQ_OK;
    for (size_t i = 0; t && !rc && i < t->n; i++)
        rc = write_array(&kids, file, &t->items[i], err);
    if (!rc)
        rc = add_group(point, file, name, &kids, err);
    members_close(&kids);
    return rc;
}

static int write_precision_attrs(hid_t g, const storq_point_precision *pr, storq_error *err)
{
    STORQ_TRY(storq_h5u_attr_f64(g, STORQ_SCHEMA_ATTR_PRECISION_TARGET, pr->target, err));
    STORQ_TRY(storq_h5u_attr_string(g, STORQ_SCHEMA_ATTR_PRECISION_OBSERVABLE, pr->observable,
                                    err));
    STORQ_TRY(storq_h5u_attr_f64(g, STORQ_SCHEMA_ATTR_PRECISION_ACHIEVED, pr->achieved, err));
    STORQ_TRY(storq_h5u_attr_u64(g, STORQ_SCHEMA_ATTR_MAX_REPLICATIONS, pr->max_replications,
                                 err));
    STORQ_TRY(storq_h5u_attr_u64(g, STORQ_SCHEMA_ATTR_PRECISION_MET, pr->met ? 1 : 0, err));
    return storq_h5u_attr_string(g, STORQ_SCHEMA_ATTR_STOPPED_BECAUSE,
                                 pr->met ? "precision target met" : "max_replications reached",
                                 err);
}

/* The point's group, not yet linked: its members, then itself (attributes, checksum, links). */
static int write_point_group(hid_t g, const storq_h5_file *f, const storq_params *params,
                             const storq_point_result *res, double wall_seconds,
                             const storq_point_precision *precision, members *kids,
                             storq_error *err)
{
    STORQ_TRY(write_point_attrs(g, f, params, res, wall_seconds, err));
    if (precision)
        STORQ_TRY(write_precision_attrs(g, precision, err));
    /* Readers check every object against its checksum: a bit changed on disk or in a copy is
     * found. */
    STORQ_TRY(link_members(g, kids, err));
    /* Last: a group without status "complete" is an interrupted write, dropped by --resume. */
    return storq_h5u_attr_string(g, STORQ_SCHEMA_ATTR_STATUS, STORQ_SCHEMA_COMPLETE, err);
}

int storq_h5_write_point(storq_h5_file *f, size_t point_id, const storq_params *params,
                         const storq_point_result *res, const storq_summary *summary,
                         const storq_theory *theory, const storq_theory *comparison,
                         double wall_seconds, const storq_point_precision *precision,
                         storq_error *err)
{
    char name[STORQ_SCHEMA_POINT_PATH_MAX];
    storq_schema_point_path(point_id, name, sizeof name);
    if (storq_h5u_has_link(f->file, name))
        return storq_h5u_fail(err, f->file, "point %zu was already written", point_id);
    members kids = {0};
    hid_t g = -1;
    int rc = write_observables(&kids, f->file, res, summary, err);
    if (!rc)
        rc = write_arrays(&kids, f->file, STORQ_SCHEMA_THEORY, theory, err);
    if (!rc)
        rc = write_arrays(&kids, f->file, STORQ_SCHEMA_COMPARISON, comparison, err);
    if (!rc)
        rc = storq_h5u_new_group(f->file, &g, err);
    if (!rc)
        rc = write_point_group(g, f, params, res, wall_seconds, precision, &kids, err);
    members_close(&kids);
    if (!rc) /* the point appears in /points whole */
        rc = storq_h5u_link(f->file, name, g, err);
    storq_h5u_close_group(&g);
    if (rc) {
        f->write_failed = 1;
        return rc;
    }
    if (H5Fflush(f->file, H5F_SCOPE_GLOBAL) < 0) {
        f->write_failed = 1;
        return storq_h5u_fail(err, f->file, "cannot flush point %zu to disk", point_id);
    }
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

static int check_same_run(hid_t file, const char *partial, const storq_run_meta *meta,
                          const storq_model *model, const storq_params *points, size_t npoints,
                          storq_error *err)
{
    storq_h5_run there, here = {.seed = meta->seed, .replications = meta->replications,
                                .npoints = npoints};
    STORQ_TRY(storq_schema_check(file, partial, "--resume", STORQ_SCHEMA_READ, NULL, err));
    /* Nothing of the file is used before it passed the readers' checks. */
    STORQ_TRY(storq_h5_check_file(file, partial, "--resume", NULL, err));
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
    fprintf(stderr, "storq: --resume: %s was left damaged by a write cut short (%s); its complete "
            "points go to a new %s\n", f->partial_path, why, f->partial_path);
    storq_error merge_err = {0};
    char *inputs[1] = {damaged};
    int merged = storq_h5_merge(f->final_path, inputs, 1, meta->command_line, stderr, &merge_err);
    if (merged == STORQ_OK) /* every point was complete: back to the partial, to finish as usual */
        rename(f->final_path, f->partial_path);
    int rc = STORQ_OK;
    if (access(f->partial_path, F_OK) != 0) {
        rename(damaged, f->partial_path);
        rc = storq_fail(err, STORQ_ERR_RUNTIME, "--resume: %s is damaged beyond repair (%s; "
                        "copying its complete points: %s); --force starts over", f->partial_path,
                        why, merge_err.msg);
    } else {
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
    if (!rc)
        rc = open_partial(f, err);
    if (!rc) {
        rc = check_same_run(f->file, f->partial_path, meta, model, points, npoints, err);
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
    if (!rc)
        rc = storq_h5_run_scan_points(f->file, npoints, done, 0, err);
    for (size_t p = 0; !rc && p < npoints; p++)
        unfinished |= done[p] == 2;
    if (!rc && unfinished) {
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
