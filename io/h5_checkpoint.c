/* Replication-level checkpoints in the partial results file (docs/hdf5-schema.md, "Checkpoints").
 * A checkpoint is written whole under a temporary name, marked complete last, and only then
 * renamed over the previous one, so a write cut short leaves the previous checkpoint (or none)
 * and a stray temporary that nothing reads. */
#include "h5_checkpoint.h"

#include <hdf5.h>
#include <stdlib.h>
#include <string.h>

#include "h5_checksum.h"
#include "h5_util.h"
#include "schema.h"

#define GROUP "/" STORQ_SCHEMA_CHECKPOINTS
#define TMP_PATH_MAX (STORQ_SCHEMA_POINT_PATH_MAX + sizeof STORQ_SCHEMA_CHECKPOINT_TMP)

/* The HDF5 file of the writer's handle. h5_writer.h gives no accessor, and h5_writer.c keeps the
 * id as the first member of its struct, so it is read through a pointer to that member (C17
 * 6.7.2.1p15); anything but an open file means that layout changed, and is refused. */
static int file_of(const storq_h5_file *f, hid_t *id, storq_error *err)
{
    *id = storq_h5_file_id(f);
    if (*id >= 0 && H5Iget_type(*id) == H5I_FILE)
        return STORQ_OK;
    H5Eclear2(H5E_DEFAULT);
    *id = -1;
    return STORQ_RUNTIME_FAIL(err, "checkpoints: no open results file");
}

/* name holds STORQ_SCHEMA_POINT_PATH_MAX bytes, tmp TMP_PATH_MAX. */
static void paths(size_t point, char *name, char *tmp)
{
    storq_schema_checkpoint_path(point, name, STORQ_SCHEMA_POINT_PATH_MAX);
    snprintf(tmp, TMP_PATH_MAX, "%s" STORQ_SCHEMA_CHECKPOINT_TMP, name);
}

/* Delete loc/path if it is there (a no-op otherwise). */
static int unlink_if_there(hid_t file, const char *path, storq_error *err)
{
    if (storq_h5u_has_link(file, path) && H5Ldelete(file, path, H5P_DEFAULT) < 0)
        return storq_h5u_fail(err, file, "cannot delete '%s'", path);
    return STORQ_OK;
}

/* /checkpoints goes when its last member does, and the stated version with it: the group's
 * presence is what raises a file to 1.2 (storq_schema_restate_version). */
static int remove_group_if_empty(hid_t file, storq_error *err)
{
    if (!storq_h5u_has_link(file, GROUP))
        return STORQ_OK;
    H5G_info_t info;
    if (H5Gget_info_by_name(file, GROUP, &info, H5P_DEFAULT) < 0)
        return storq_h5u_fail(err, file, "cannot list '" GROUP "'");
    if (info.nlinks == 0 && H5Ldelete(file, GROUP, H5P_DEFAULT) < 0)
        return storq_h5u_fail(err, file, "cannot delete the empty group '" GROUP "'");
    return STORQ_OK;
}

static int flush(hid_t file, size_t point, storq_error *err)
{
    if (H5Fflush(file, H5F_SCOPE_GLOBAL) < 0)
        return storq_h5u_fail(err, file, "cannot flush the checkpoint of point %zu", point);
    return STORQ_OK;
}

/* ---- writing ---- */

static int write_done(hid_t g, const unsigned char *done, size_t n, uint64_t *in,
                      storq_error *err)
{
    /* Stored as 0 or 1 whatever nonzero byte the caller uses. */
    unsigned char *mask = malloc(n + 1);
    if (!mask)
        return STORQ_RUNTIME_FAIL(err, "out of memory writing a checkpoint");
    *in = 0;
    for (size_t r = 0; r < n; r++) {
        mask[r] = done[r] != 0;
        *in += mask[r];
    }
    hsize_t dims[1] = {n};
    hid_t space = H5Screate_simple(1, dims, NULL);
    hid_t d = space < 0 ? -1
                        : H5Dcreate2(g, STORQ_SCHEMA_CHECKPOINT_DONE, H5T_STD_U8LE, space,
                                     H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    int rc = STORQ_OK;
    if (d < 0)
        rc = storq_h5u_fail(err, g, "cannot create dataset '" STORQ_SCHEMA_CHECKPOINT_DONE "'");
    else if (n > 0 && H5Dwrite(d, H5T_NATIVE_UCHAR, H5S_ALL, H5S_ALL, H5P_DEFAULT, mask) < 0)
        rc = storq_h5u_fail(err, g, "cannot write dataset '" STORQ_SCHEMA_CHECKPOINT_DONE "'");
    storq_h5u_close_dataset(&d);
    storq_h5u_close_space(&space);
    free(mask);
    return rc;
}

/* Everything of the checkpoint, then its status: only a group with status "complete" is read. */
static int write_body(hid_t g, const storq_point_result *res, const unsigned char *done,
                      double seconds, storq_error *err)
{
    const storq_observables *s = res->schema;
    size_t R = res->replications;
    hsize_t vdims[2] = {R, s->nvalues}, nc = s->ncounts, nm = s->nminmax;
    uint64_t in = 0;
    STORQ_TRY(write_done(g, done, R, &in, err));
    /* The caller's rows of replications not in are zeros (storq_point_result_init): the whole
     * table goes in one write. */
    STORQ_TRY(storq_h5u_write_f64(g, STORQ_SCHEMA_CHECKPOINT_VALUES, 2, vdims,
                                  R * s->nvalues > 0 ? res->values : NULL, err));
    STORQ_TRY(storq_h5u_write_u64(g, STORQ_SCHEMA_CHECKPOINT_COUNTS, 1, &nc,
                                  nc ? res->counts : NULL, err));
    STORQ_TRY(storq_h5u_write_f64(g, STORQ_SCHEMA_CHECKPOINT_MINMAX, 1, &nm,
                                  nm ? res->minmax : NULL, err));
    STORQ_TRY(storq_h5u_attr_u64(g, STORQ_SCHEMA_ATTR_REPLICATIONS_IN, in, err));
    STORQ_TRY(storq_h5u_attr_u64(g, STORQ_SCHEMA_ATTR_EVENTS, res->events, err));
    STORQ_TRY(storq_h5u_attr_f64(g, STORQ_SCHEMA_ATTR_WORKER_SECONDS, seconds, err));
    /* as for a point: a bit changed on disk is found before --resume builds on it */
    STORQ_TRY(storq_h5_checksum_stamp(g, err));
    return storq_h5u_attr_string(g, STORQ_SCHEMA_ATTR_STATUS, STORQ_SCHEMA_COMPLETE, err);
}

static int write_temporary(hid_t file, const char *tmp, const storq_point_result *res,
                           const unsigned char *done, double seconds, storq_error *err)
{
    if (!storq_h5u_has_link(file, GROUP)) {
        hid_t top;
        STORQ_TRY(storq_h5u_create_group(file, GROUP, &top, err));
        H5Gclose(top);
    }
    STORQ_TRY(unlink_if_there(file, tmp, err)); /* left by a write cut short */
    hid_t g;
    STORQ_TRY(storq_h5u_create_group(file, tmp, &g, err));
    int rc = write_body(g, res, done, seconds, err);
    H5Gclose(g);
    return rc;
}

int storq_h5_write_checkpoint(storq_h5_file *f, size_t point, const storq_point_result *res,
                              const unsigned char *done, double seconds, storq_error *err)
{
    hid_t file;
    STORQ_TRY(file_of(f, &file, err));
    char name[STORQ_SCHEMA_POINT_PATH_MAX], tmp[TMP_PATH_MAX];
    paths(point, name, tmp);
    int rc = write_temporary(file, tmp, res, done, seconds, err);
    /* The version first: a file never holds a valid checkpoint while it states less than 1.2. */
    if (!rc)
        rc = storq_schema_restate_version(file, err);
    if (!rc)
        rc = unlink_if_there(file, name, err);
    if (!rc && H5Lmove(file, tmp, file, name, H5P_DEFAULT, H5P_DEFAULT) < 0)
        rc = storq_h5u_fail(err, file, "cannot rename '%s' to '%s'", tmp, name);
    if (rc) {
        /* Best effort: no stray temporary, no empty group, the version that fits what is left. */
        storq_error ignore = {0};
        if (unlink_if_there(file, tmp, &ignore) == STORQ_OK &&
            remove_group_if_empty(file, &ignore) == STORQ_OK)
            storq_schema_restate_version(file, &ignore);
        return rc;
    }
    return flush(file, point, err);
}

int storq_h5_drop_checkpoint(storq_h5_file *f, size_t point, storq_error *err)
{
    hid_t file;
    STORQ_TRY(file_of(f, &file, err));
    char name[STORQ_SCHEMA_POINT_PATH_MAX], tmp[TMP_PATH_MAX];
    paths(point, name, tmp);
    if (!storq_h5u_has_link(file, name) && !storq_h5u_has_link(file, tmp))
        return STORQ_OK;
    STORQ_TRY(unlink_if_there(file, name, err));
    STORQ_TRY(unlink_if_there(file, tmp, err));
    STORQ_TRY(remove_group_if_empty(file, err));
    STORQ_TRY(storq_schema_restate_version(file, err));
    return flush(file, point, err);
}

/* ---- reading ---- */

static void shape_text(H5T_class_t cls, int ndims, const hsize_t *dims, char *buf, size_t size)
{
    const char *type = cls == H5T_FLOAT ? "float64" : cls == H5T_INTEGER ? "integer" : "other";
    if (ndims == 2)
        snprintf(buf, size, "%s %llu x %llu", type, (unsigned long long)dims[0],
                 (unsigned long long)dims[1]);
    else if (ndims == 1)
        snprintf(buf, size, "%s (%llu)", type, (unsigned long long)dims[0]);
    else
        snprintf(buf, size, "%s of %d dimensions", type, ndims);
}

/* Open dataset name of g and check its class and shape against the point's; *d is the dataset. */
static int open_shaped(hid_t g, size_t point, const char *name, H5T_class_t cls, int ndims,
                       const hsize_t *want, hid_t *d, storq_error *err)
{
    *d = H5Dopen2(g, name, H5P_DEFAULT);
    if (*d < 0)
        return storq_h5u_fail(err, g, "the checkpoint of point %zu lacks dataset '%s'", point,
                              name);
    hid_t type = H5Dget_type(*d), space = H5Dget_space(*d);
    H5T_class_t got_cls = type >= 0 ? H5Tget_class(type) : H5T_NO_CLASS;
    hsize_t got[2] = {0, 0};
    int nd = space >= 0 ? H5Sget_simple_extent_ndims(space) : -1;
    if (nd < 0 || nd > 2 || H5Sget_simple_extent_dims(space, got, NULL) < 0)
        nd = -1;
    int same = got_cls == cls && nd == ndims;
    for (int i = 0; same && i < ndims; i++)
        same = got[i] == want[i];
    storq_h5u_close_type(&type);
    storq_h5u_close_space(&space);
    if (same)
        return STORQ_OK;
    storq_h5u_close_dataset(d);
    char have[96], need[96];
    shape_text(got_cls, nd, got, have, sizeof have);
    shape_text(cls, ndims, want, need, sizeof need);
    return storq_h5u_fail(err, g, "the checkpoint of point %zu does not fit the point's "
                          "observables and replications: '%s' is %s, the point's is %s", point,
                          name, have, need);
}

static int read_shaped(hid_t g, size_t point, const char *name, H5T_class_t cls, int ndims,
                       const hsize_t *want, hid_t mtype, void *buf, storq_error *err)
{
    hid_t d;
    STORQ_TRY(open_shaped(g, point, name, cls, ndims, want, &d, err));
    hsize_t n = ndims == 2 ? want[0] * want[1] : want[0];
    herr_t rc = n > 0 ? H5Dread(d, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) : 0;
    H5Dclose(d);
    if (rc < 0)
        return storq_h5u_fail(err, g, "cannot read dataset '%s' of the checkpoint of point %zu",
                              name, point);
    return STORQ_OK;
}

/* The done mask: 0 or 1 each, as many ones as replications_in says. */
static int read_done(hid_t g, size_t point, size_t R, unsigned char *done, storq_error *err)
{
    hsize_t dims[1] = {R};
    uint64_t in = 0, ones = 0;
    STORQ_TRY(read_shaped(g, point, STORQ_SCHEMA_CHECKPOINT_DONE, H5T_INTEGER, 1, dims,
                          H5T_NATIVE_UCHAR, done, err));
    STORQ_TRY(storq_h5u_read_attr_u64(g, STORQ_SCHEMA_ATTR_REPLICATIONS_IN, &in, err));
    for (size_t r = 0; r < R; r++) {
        if (done[r] > 1)
            return storq_h5u_fail(err, g, "the checkpoint of point %zu: '"
                                  STORQ_SCHEMA_CHECKPOINT_DONE "'[%zu] is %u, not 0 or 1", point,
                                  r, (unsigned)done[r]);
        ones += done[r];
    }
    if (ones != in)
        return storq_h5u_fail(err, g, "the checkpoint of point %zu marks %llu replications "
                              "done but says " STORQ_SCHEMA_ATTR_REPLICATIONS_IN " = %llu", point,
                              (unsigned long long)ones, (unsigned long long)in);
    return STORQ_OK;
}

static int read_body(hid_t g, size_t point, storq_point_result *res, unsigned char *done,
                     double *seconds, storq_error *err)
{
    const storq_observables *s = res->schema;
    size_t R = res->replications;
    hsize_t vdims[2] = {R, s->nvalues}, nc = s->ncounts, nm = s->nminmax;
    STORQ_TRY(read_done(g, point, R, done, err));
    STORQ_TRY(read_shaped(g, point, STORQ_SCHEMA_CHECKPOINT_VALUES, H5T_FLOAT, 2, vdims,
                          H5T_NATIVE_DOUBLE, res->values, err));
    STORQ_TRY(read_shaped(g, point, STORQ_SCHEMA_CHECKPOINT_COUNTS, H5T_INTEGER, 1, &nc,
                          H5T_NATIVE_UINT64, res->counts, err));
    STORQ_TRY(read_shaped(g, point, STORQ_SCHEMA_CHECKPOINT_MINMAX, H5T_FLOAT, 1, &nm,
                          H5T_NATIVE_DOUBLE, res->minmax, err));
    STORQ_TRY(storq_h5u_read_attr_u64(g, STORQ_SCHEMA_ATTR_EVENTS, &res->events, err));
    STORQ_TRY(storq_h5u_read_attr_f64(g, STORQ_SCHEMA_ATTR_WORKER_SECONDS, seconds, err));
    /* Only the rows of replications in come from the file; the others stay zeros for the
     * replications still to run. */
    for (size_t r = 0; r < R; r++)
        if (!done[r])
            memset(res->values + r * s->nvalues, 0, s->nvalues * sizeof *res->values);
    return STORQ_OK;
}

int storq_h5_read_checkpoint(storq_h5_file *f, size_t point, storq_point_result *res,
                             unsigned char *done, double *seconds, storq_error *err)
{
    memset(done, 0, res->replications);
    *seconds = 0;
    hid_t file;
    int rc = file_of(f, &file, err);
    if (rc)
        return -rc;
    char name[STORQ_SCHEMA_POINT_PATH_MAX], tmp[TMP_PATH_MAX];
    paths(point, name, tmp);
    /* No checkpoint, or one whose write was cut short (no status "complete"): none to use. */
    if (!storq_h5u_has_link(file, name) || storq_schema_point_complete(file, name) != 1)
        return 0;
    hid_t g = H5Gopen2(file, name, H5P_DEFAULT);
    if (g < 0)
        return -storq_h5u_fail(err, file, "cannot open the checkpoint '%s'", name);
    int checked;
    rc = storq_h5_checksum_verify(g, "--resume", name, &checked, err);
    if (!rc)
        rc = read_body(g, point, res, done, seconds, err);
    H5Gclose(g);
    if (rc) {
        memset(done, 0, res->replications);
        return -rc;
    }
    return 1;
}
