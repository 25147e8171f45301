#include "schema.h"

#include "file_kind.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "h5_guard.h"
#include "h5_util.h"

const char *const storq_schema_root_attrs[] = {
    STORQ_SCHEMA_ATTR_FORMAT,       STORQ_SCHEMA_ATTR_VERSION,   STORQ_SCHEMA_ATTR_STORQ_VERSION,
    STORQ_SCHEMA_ATTR_GIT_COMMIT,   STORQ_SCHEMA_ATTR_CREATED,   STORQ_SCHEMA_ATTR_HOSTNAME,
    STORQ_SCHEMA_ATTR_COMMAND_LINE, STORQ_SCHEMA_ATTR_MODEL,     STORQ_SCHEMA_ATTR_SEED,
    STORQ_SCHEMA_ATTR_REPLICATIONS, STORQ_SCHEMA_ATTR_MPI_RANKS, STORQ_SCHEMA_ATTR_OMP_THREADS,
    STORQ_SCHEMA_ATTR_TASK_INDEX,   STORQ_SCHEMA_ATTR_TASK_COUNT, NULL};

const char *const storq_schema_point_names[] = {
    STORQ_SCHEMA_INDEX_POINT,       STORQ_SCHEMA_ATTR_MODEL,        STORQ_SCHEMA_ATTR_STATUS,
    STORQ_SCHEMA_ATTR_REPLICATIONS, STORQ_SCHEMA_ATTR_WALL_SECONDS, STORQ_SCHEMA_ATTR_EVENTS,
    STORQ_SCHEMA_ATTR_PRECISION_TARGET, STORQ_SCHEMA_ATTR_PRECISION_OBSERVABLE,
    STORQ_SCHEMA_ATTR_PRECISION_ACHIEVED, STORQ_SCHEMA_ATTR_PRECISION_MET,
    STORQ_SCHEMA_ATTR_MAX_REPLICATIONS, STORQ_SCHEMA_ATTR_STOPPED_BECAUSE,
    STORQ_SCHEMA_ATTR_CRC32, NULL};

/* A usage error worded "LABEL: what", or "what" without a label. */
static int refuse(storq_error *err, const char *label, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int refuse(storq_error *err, const char *label, const char *fmt, ...)
{
    char what[900];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return storq_fail(err, STORQ_ERR_USAGE, "%s%s%s", label ? label : "", label ? ": " : "",
                      what);
}

/* The format attribute says "storq" and format_version holds at least the major version. */
static int read_version(hid_t file, storq_schema_info *v)
{
    char *format = NULL;
    int32_t version[2] = {0, 0};
    size_t n = 0;
    storq_error ignore = {0};
    int ok = storq_h5u_has_attr(file, STORQ_SCHEMA_ATTR_FORMAT) &&
             storq_h5u_read_attr_string(file, STORQ_SCHEMA_ATTR_FORMAT, &format, &ignore) ==
                 STORQ_OK &&
             strcmp(format, STORQ_SCHEMA_FORMAT) == 0 &&
             storq_h5u_has_attr(file, STORQ_SCHEMA_ATTR_VERSION) &&
             storq_h5u_read_attr_i32_array(file, STORQ_SCHEMA_ATTR_VERSION, version, 2, &n,
                                           &ignore) == STORQ_OK &&
             n > 0;
    free(format);
    v->major = version[0];
    v->minor = n > 1 ? version[1] : 0;
    return ok;
}

typedef struct check_args {
    hid_t file;
    const char *path, *label;
    storq_schema_use use;
} check_args;

static int check_here(void *ctx, void *result, storq_error *err);

/* The first read of a file's root: in a child (h5_guard.h), since HDF5 may crash on it. */
int storq_schema_check(hid_t file, const char *path, const char *label, storq_schema_use use,
                       storq_schema_info *info, storq_error *err)
{
    check_args a = {file, path, label, use};
    storq_schema_info v;
    memset(&v, 0, sizeof v);
    STORQ_TRY(storq_h5_guard(check_here, &a, &v, sizeof v, NULL, label, path, err));
    if (info)
        *info = v;
    return STORQ_OK;
}

static int check_here(void *ctx, void *result, storq_error *err)
{
    const check_args *a = ctx;
    hid_t file = a->file;
    const char *path = a->path, *label = a->label;
    storq_schema_use use = a->use;
    storq_schema_info *info = result;
    storq_schema_info v;
    if (!read_version(file, &v))
        return refuse(err, label, "%s is not a storq results file", path);
    if (v.major != STORQ_SCHEMA_MAJOR && v.major != STORQ_SCHEMA_MAJOR_COLUMNAR)
        return refuse(err, label, "%s has format version %d.%d; this storq reads %d.x and %d.0",
                      path, v.major, v.minor, STORQ_SCHEMA_MAJOR, STORQ_SCHEMA_MAJOR_COLUMNAR);
    if (v.major == STORQ_SCHEMA_MAJOR_COLUMNAR && use == STORQ_SCHEMA_READ)
        return refuse(err, label, "%s has format version %d.%d (columnar, written by storq "
                      "convert): %s reads %d.x files so far; give it the %d.x file that was "
                      "converted", path, v.major, v.minor,
                      use == STORQ_SCHEMA_MERGE ? "storq merge" : label ? label : "this command",
                      STORQ_SCHEMA_MAJOR, STORQ_SCHEMA_MAJOR);
    if (use == STORQ_SCHEMA_MERGE && v.major == STORQ_SCHEMA_MAJOR_COLUMNAR && v.minor > 0)
        return refuse(err, label, "%s has format version %d.%d; this storq merges files up to "
                      "%d.0 (use the storq that wrote it)", path, v.major, v.minor,
                      STORQ_SCHEMA_MAJOR_COLUMNAR);
    if (use == STORQ_SCHEMA_MERGE && v.major == STORQ_SCHEMA_MAJOR && v.minor > STORQ_SCHEMA_MINOR)
        return refuse(err, label, "%s has format version %d.%d; this storq merges files up to "
                      "%d.%d (use the storq that wrote it)", path, v.major, v.minor,
                      STORQ_SCHEMA_MAJOR, STORQ_SCHEMA_MINOR);
    if (info)
        *info = v;
    return STORQ_OK;
}

int storq_schema_major(hid_t file)
{
    storq_schema_info v;
    return read_version(file, &v) ? v.major : 0;
}

int storq_schema_open(const char *path, const char *label, storq_schema_use use,
                      const char *busy_hint, hid_t *file, storq_schema_info *info,
                      storq_error *err)
{
    *file = -1;
    /* a FIFO or a device is refused before anything opens it (H5Fis_hdf5 would block) */
    STORQ_TRY(storq_open_regular(path, label, "a results file", NULL, err));
    /* errno says why far more clearly than HDF5's error stack. */
    if (access(path, R_OK) != 0)
        return refuse(err, label, "cannot read %s: %s", path, strerror(errno));
    htri_t is_h5 = H5Fis_hdf5(path);
    H5Eclear2(H5E_DEFAULT);
    if (is_h5 <= 0)
        return refuse(err, label, "%s is not a storq results file (not HDF5)", path);
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0) {
        /* A lock held by a run writing the file is a matter of time; anything else (a file cut
         * short, a damaged superblock) is the file given. */
        char detail[512];
        storq_h5u_error_detail(detail, sizeof detail);
        if (strstr(detail, "unable to lock"))
            return storq_fail(err, STORQ_ERR_RUNTIME, "%s%s'%s': cannot open the file (%s) "
                              "(HDF5: %s)", label ? label : "", label ? ": " : "", path,
                              busy_hint, detail);
        return refuse(err, label, "%s is damaged: HDF5 cannot open it (%s)", path,
                      detail[0] ? detail : "no detail");
    }
    int rc = storq_schema_check(f, path, label, use, info, err);
    if (rc) {
        H5Fclose(f);
        return rc;
    }
    *file = f;
    return STORQ_OK;
}

void storq_schema_version(size_t task_count, int32_t version[2])
{
    /* A file states the oldest version that describes it: only a task's file needs 1.1. */
    version[0] = STORQ_SCHEMA_MAJOR;
    version[1] = task_count > 1 ? STORQ_SCHEMA_MINOR_TASKS : 0;
}

/* The version the file's contents call for: its task attributes', 1.2 while it has checkpoints,
 * 1.3 with /layouts.
 * The run's record of its units (/run/units, /run/ranks, /run/sessions, their CPU-time columns
 * included) calls for none: it is optional in every 1.x file. */
static int version_due(hid_t file, int32_t version[2], storq_error *err)
{
    uint64_t count = 1;
    if (storq_h5u_has_attr(file, STORQ_SCHEMA_ATTR_TASK_COUNT))
        STORQ_TRY(storq_h5u_read_attr_u64(file, STORQ_SCHEMA_ATTR_TASK_COUNT, &count, err));
    storq_schema_version((size_t)count, version);
    if (storq_h5u_has_link(file, "/" STORQ_SCHEMA_CHECKPOINTS) &&
        version[1] < STORQ_SCHEMA_MINOR_CHECKPOINTS)
        version[1] = STORQ_SCHEMA_MINOR_CHECKPOINTS;
    if (storq_h5u_has_link(file, STORQ_SCHEMA_LAYOUTS_PATH) &&
        version[1] < STORQ_SCHEMA_MINOR_LAYOUTS)
        version[1] = STORQ_SCHEMA_MINOR_LAYOUTS;
    return STORQ_OK;
}

int storq_schema_restate_version(hid_t file, storq_error *err)
{
    storq_schema_info now;
    if (!read_version(file, &now))
        return storq_h5u_fail(err, file, "no readable format_version to restate");
    int32_t due[2];
    STORQ_TRY(version_due(file, due, err));
    if (now.minor > STORQ_SCHEMA_MINOR || (now.major == due[0] && now.minor == due[1]))
        return STORQ_OK;
    /* Written in place when it has two elements, as storq writes it: no new attribute. */
    hid_t a = H5Aopen(file, STORQ_SCHEMA_ATTR_VERSION, H5P_DEFAULT);
    hid_t space = a >= 0 ? H5Aget_space(a) : -1;
    hssize_t n = space >= 0 ? H5Sget_simple_extent_npoints(space) : -1;
    herr_t rc = n == 2 ? H5Awrite(a, H5T_NATIVE_INT32, due) : -1;
    storq_h5u_close_space(&space);
    if (a >= 0)
        H5Aclose(a);
    if (n != 2 && a >= 0 && H5Adelete(file, STORQ_SCHEMA_ATTR_VERSION) >= 0)
        return storq_h5u_attr_i32_array(file, STORQ_SCHEMA_ATTR_VERSION, due, 2, err);
    if (rc < 0)
        return storq_h5u_fail(err, file, "cannot rewrite attribute '" STORQ_SCHEMA_ATTR_VERSION
                              "' as [%d, %d]", (int)due[0], (int)due[1]);
    return STORQ_OK;
}

void storq_schema_point_path(size_t id, char *buf, size_t size)
{
    snprintf(buf, size, "/" STORQ_SCHEMA_POINTS "/%06zu", id);
}

void storq_schema_checkpoint_path(size_t id, char *buf, size_t size)
{
    snprintf(buf, size, "/" STORQ_SCHEMA_CHECKPOINTS "/%06zu", id);
}

int storq_schema_point_id(const char *name, size_t *id)
{
    if (!*name)
        return 0;
    size_t v = 0;
    for (const char *c = name; *c; c++) {
        if (*c < '0' || *c > '9')
            return 0;
        v = v * 10 + (size_t)(*c - '0');
    }
    *id = v;
    return 1;
}

int storq_schema_point_complete(hid_t loc, const char *name)
{
    hid_t g = H5Gopen2(loc, name, H5P_DEFAULT);
    if (g < 0) {
        H5Eclear2(H5E_DEFAULT);
        return -1;
    }
    char *status = NULL;
    storq_error ignore = {0};
    int complete = storq_h5u_has_attr(g, STORQ_SCHEMA_ATTR_STATUS) &&
                   storq_h5u_read_attr_string(g, STORQ_SCHEMA_ATTR_STATUS, &status, &ignore) ==
                       STORQ_OK &&
                   strcmp(status, STORQ_SCHEMA_COMPLETE) == 0;
    free(status);
    H5Gclose(g);
    return complete;
}
