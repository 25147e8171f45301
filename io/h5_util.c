#include "h5_util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "utf8.h"

void storq_h5u_quiet(void)
{
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
}

/* HDF5's innermost error (e.g. "... errno = 28, error message = 'No space left on device'") is the
 * part a user can act on; the outer ones only restate which API call failed. */
static herr_t innermost_error(unsigned n, const H5E_error2_t *e, void *data)
{
    if (n == 0 && e->desc)
        snprintf((char *)data, 512, "%s", e->desc);
    return 0;
}

static int vfail(storq_error *err, hid_t loc, const char *path, const char *fmt, va_list ap)
{
    char detail[512] = "";
    /* Walk before any other HDF5 call: every API call clears the stack on entry. */
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, innermost_error, detail);
    H5Eclear2(H5E_DEFAULT);
    /* a system call's failure: its errno says it all ("No space left on device") */
    const char *code = strstr(detail, "errno = ");
    if (code && atoi(code + 8) > 0)
        snprintf(detail, sizeof detail, "%s", strerror(atoi(code + 8)));

    char what[512];
    vsnprintf(what, sizeof what, fmt, ap);

    char file[512], object[512] = "/";
    snprintf(file, sizeof file, "%s", path ? path : "?");
    if (loc >= 0) {
        if (H5Fget_name(loc, file, sizeof file) < 0)
            snprintf(file, sizeof file, "?");
        if (H5Iget_name(loc, object, sizeof object) <= 0)
            snprintf(object, sizeof object, "/");
        H5Eclear2(H5E_DEFAULT);
        if (detail[0])
            return storq_fail(err, STORQ_ERR_RUNTIME, "'%s', object '%s': %s (HDF5: %s)", file,
                              object, what, detail);
        return storq_fail(err, STORQ_ERR_RUNTIME, "'%s', object '%s': %s", file, object, what);
    }
    if (detail[0])
        return storq_fail(err, STORQ_ERR_RUNTIME, "'%s': %s (HDF5: %s)", file, what, detail);
    return storq_fail(err, STORQ_ERR_RUNTIME, "'%s': %s", file, what);
}

void storq_h5u_error_detail(char *buf, size_t size)
{
    char detail[512] = "";
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, innermost_error, detail);
    H5Eclear2(H5E_DEFAULT);
    snprintf(buf, size, "%s", detail);
}

int storq_h5u_fail(storq_error *err, hid_t loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = vfail(err, loc, NULL, fmt, ap);
    va_end(ap);
    return rc;
}

int storq_h5u_fail_file(storq_error *err, const char *path, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = vfail(err, -1, path, fmt, ap);
    va_end(ap);
    return rc;
}

void storq_h5u_close_group(hid_t *id)
{
    if (*id >= 0)
        H5Gclose(*id);
    *id = -1;
}

void storq_h5u_close_dataset(hid_t *id)
{
    if (*id >= 0)
        H5Dclose(*id);
    *id = -1;
}

void storq_h5u_close_type(hid_t *id)
{
    if (*id >= 0)
        H5Tclose(*id);
    *id = -1;
}

void storq_h5u_close_space(hid_t *id)
{
    if (*id >= 0)
        H5Sclose(*id);
    *id = -1;
}

hid_t storq_h5u_vlen_string_type(void)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    if (t < 0)
        return -1;
    if (H5Tset_size(t, H5T_VARIABLE) < 0 || H5Tset_cset(t, H5T_CSET_UTF8) < 0) {
        H5Tclose(t);
        return -1;
    }
    return t;
}

hid_t storq_h5u_file_access(void)
{
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (fapl >= 0 && H5Pset_libver_bounds(fapl, H5F_LIBVER_V18, H5F_LIBVER_LATEST) < 0) {
        H5Pclose(fapl);
        fapl = -1;
    }
    /* HDF5's memory within the room the memory budget keeps for it (src/app/memory_budget.c):
     * a metadata cache of 1 MB growing to at most 4 MB (its default grows to 32 MB: a 250-point
     * sweep's writer peaked at 80 MB with it, 55 MB with this) */
    H5AC_cache_config_t mdc = {.version = H5AC__CURR_CACHE_CONFIG_VERSION};
    if (fapl >= 0 && H5Pget_mdc_config(fapl, &mdc) >= 0) {
        mdc.max_size = (size_t)4 << 20;
        mdc.initial_size = (size_t)1 << 20;
        mdc.set_initial_size = 1;
        H5Pset_mdc_config(fapl, &mdc);
    }
    return fapl;
}

hid_t storq_h5u_file_create(void)
{
    hid_t fcpl = H5Pcreate(H5P_FILE_CREATE);
    if (fcpl >= 0 && H5Pset_istore_k(fcpl, STORQ_H5U_CHUNK_BTREE_K) < 0) {
        H5Pclose(fcpl);
        fcpl = -1;
    }
    return fcpl;
}

/* A small group keeps its links (up to this many) and attributes in its object header rather
 * than in a heap and two B-trees of their own, which cost a few KB per group: a point has a
 * dozen groups, a sweep thousands of points. Readers see no difference (order and names are
 * kept). Not for the file's long-lived groups (/points): a header grown by continuation blocks
 * is what a write cut short (a full disk) leaves unreadable, and --resume must read /points. */
#define COMPACT_LINKS_MAX 1024
#define COMPACT_ATTRS_MAX 64

/* nlinks > 0: a header sized up front for nlinks links of names of name_len characters, kept in
 * it (see storq_h5u_create_sized_group). name NULL: an anonymous group (storq_h5u_new_group). */
static int create_group(hid_t loc, const char *name, int compact, unsigned nlinks,
                        unsigned name_len, hid_t *out, storq_error *err)
{
    hid_t gcpl = H5Pcreate(H5P_GROUP_CREATE);
    if (gcpl >= 0) {
        H5Pset_link_creation_order(gcpl, H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED);
        if (compact) {
            H5Pset_link_phase_change(gcpl, COMPACT_LINKS_MAX, COMPACT_LINKS_MAX - 1);
            H5Pset_attr_phase_change(gcpl, COMPACT_ATTRS_MAX, COMPACT_ATTRS_MAX - 1);
        }
        if (nlinks > 0) {
            H5Pset_link_phase_change(gcpl, nlinks, nlinks > 1 ? nlinks - 1 : 1);
            H5Pset_est_link_info(gcpl, nlinks, name_len);
        }
        H5Pset_obj_track_times(gcpl, 0);
    }
    hid_t cpl = gcpl >= 0 ? gcpl : H5P_DEFAULT;
    *out = name ? H5Gcreate2(loc, name, H5P_DEFAULT, cpl, H5P_DEFAULT)
                : H5Gcreate_anon(loc, cpl, H5P_DEFAULT);
    if (gcpl >= 0)
        H5Pclose(gcpl);
    if (*out < 0)
        return name ? storq_h5u_fail(err, loc, "cannot create group '%s'", name)
                    : storq_h5u_fail(err, loc, "cannot create a group");
    return STORQ_OK;
}

int storq_h5u_create_group(hid_t loc, const char *name, hid_t *out, storq_error *err)
{
    return create_group(loc, name, 0, 0, 0, out, err);
}

int storq_h5u_new_group(hid_t loc, hid_t *out, storq_error *err)
{
    return create_group(loc, NULL, 1, 0, 0, out, err);
}

int storq_h5u_link(hid_t parent, const char *name, hid_t obj, storq_error *err)
{
    if (H5Olink(obj, parent, name, H5P_DEFAULT, H5P_DEFAULT) < 0)
        return storq_h5u_fail(err, parent, "cannot link '%s'", name);
    return STORQ_OK;
}

int storq_h5u_create_sized_group(hid_t loc, const char *name, size_t nlinks, size_t name_len,
                                 hid_t *out, storq_error *err)
{
    if (nlinks > STORQ_H5U_SIZED_LINKS_MAX)
        nlinks = STORQ_H5U_SIZED_LINKS_MAX;
    if (name_len > 255)
        name_len = 255;
    return create_group(loc, name, 0, (unsigned)(nlinks ? nlinks : 1), (unsigned)name_len, out,
                        err);
}

/* ---- writing ---- */

static int write_attr(hid_t loc, const char *name, hid_t ftype, hid_t mtype, hid_t space,
                      const void *buf, storq_error *err)
{
    hid_t a = H5Acreate2(loc, name, ftype, space, H5P_DEFAULT, H5P_DEFAULT);
    if (a < 0)
        return storq_h5u_fail(err, loc, "cannot create attribute '%s'", name);
    herr_t rc = H5Awrite(a, mtype, buf);
    H5Aclose(a);
    if (rc < 0)
        return storq_h5u_fail(err, loc, "cannot write attribute '%s'", name);
    return STORQ_OK;
}

static int write_scalar_attr(hid_t loc, const char *name, hid_t ftype, hid_t mtype, const void *buf,
                             storq_error *err)
{
    hid_t space = H5Screate(H5S_SCALAR);
    if (space < 0)
        return storq_h5u_fail(err, loc, "cannot make a dataspace for attribute '%s'", name);
    int rc = write_attr(loc, name, ftype, mtype, space, buf, err);
    H5Sclose(space);
    return rc;
}

int storq_h5u_attr_string(hid_t loc, const char *name, const char *value, storq_error *err)
{
    hid_t t = storq_h5u_vlen_string_type();
    if (t < 0)
        return storq_h5u_fail(err, loc, "cannot make a string type for attribute '%s'", name);
    char *owned;
    const char *v = storq_utf8_text(value ? value : "", &owned); /* declared UTF-8: kept so */
    int rc =
        v ? write_scalar_attr(loc, name, t, t, &v, err) : STORQ_RUNTIME_FAIL(err, "out of memory");
    free(owned);
    H5Tclose(t);
    return rc;
}

int storq_h5u_attr_strings(hid_t loc, const char *name, const char *const *values, size_t n,
                           storq_error *err)
{
    hsize_t dims[1] = {n};
    hid_t t = storq_h5u_vlen_string_type();
    hid_t space = H5Screate_simple(1, dims, NULL);
    int rc;
    char **owned = calloc(n + 1, sizeof *owned);
    const char **v = calloc(n + 1, sizeof *v);
    int oom = !owned || !v;
    for (size_t i = 0; !oom && i < n; i++)
        oom = !(v[i] = storq_utf8_text(values[i] ? values[i] : "", &owned[i]));
    if (oom)
        rc = STORQ_RUNTIME_FAIL(err, "out of memory");
    else if (t < 0 || space < 0)
        rc = storq_h5u_fail(err, loc, "cannot make the type of attribute '%s'", name);
    else
        rc = write_attr(loc, name, t, t, space, v, err);
    for (size_t i = 0; owned && i < n; i++)
        free(owned[i]);
    free(owned);
    free(v);
    storq_h5u_close_type(&t);
    storq_h5u_close_space(&space);
    return rc;
}

int storq_h5u_attr_f64(hid_t loc, const char *name, double value, storq_error *err)
{
    return write_scalar_attr(loc, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &value, err);
}

int storq_h5u_attr_u64(hid_t loc, const char *name, uint64_t value, storq_error *err)
{
    return write_scalar_attr(loc, name, H5T_STD_U64LE, H5T_NATIVE_UINT64, &value, err);
}

int storq_h5u_attr_i64(hid_t loc, const char *name, int64_t value, storq_error *err)
{
    return write_scalar_attr(loc, name, H5T_STD_I64LE, H5T_NATIVE_INT64, &value, err);
}

int storq_h5u_attr_i32_array(hid_t loc, const char *name, const int32_t *values, size_t n,
                             storq_error *err)
{
    hsize_t dims[1] = {n};
    hid_t space = H5Screate_simple(1, dims, NULL);
    if (space < 0)
        return storq_h5u_fail(err, loc, "cannot make a dataspace for attribute '%s'", name);
    int rc = write_attr(loc, name, H5T_STD_I32LE, H5T_NATIVE_INT32, space, values, err);
    H5Sclose(space);
    return rc;
}

int storq_h5u_attr_numbers(hid_t loc, const char *name, hid_t ftype, hid_t mtype, int rank,
                           const void *values, size_t n, storq_error *err)
{
    hsize_t dims[1] = {n};
    hid_t space = rank == 0 ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, dims, NULL);
    if (space < 0)
        return storq_h5u_fail(err, loc, "cannot make a dataspace for attribute '%s'", name);
    static const uint64_t none = 0; /* HDF5 wants a buffer even for no values */
    int rc = write_attr(loc, name, ftype, mtype, space, values && n ? values : &none, err);
    H5Sclose(space);
    return rc;
}

int storq_h5u_deflate_available(void)
{
    unsigned config = 0;
    htri_t avail = H5Zfilter_avail(H5Z_FILTER_DEFLATE);
    int ok = avail > 0 && H5Zget_filter_info(H5Z_FILTER_DEFLATE, &config) >= 0 &&
             (config & H5Z_FILTER_CONFIG_ENCODE_ENABLED);
    H5Eclear2(H5E_DEFAULT);
    return ok;
}

/* The creation properties of a numeric array of ftype and shape dims: at least
 * STORQ_H5U_COMPRESS_MIN bytes go chunked (chunks of at most STORQ_H5U_CHUNK_MAX bytes, cut
 * along the first axis), byte-shuffled and deflated; anything else, or a build without zlib,
 * gets HDF5's default (contiguous). deflate is deterministic: the same data give the same bytes,
 * whichever rank or thread computed them. */
/* No access and modification times in object headers: they would differ between two runs of
 * the same results, and cost 16 bytes an object. */
static hid_t plain_dcpl(void)
{
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    if (dcpl >= 0) {
        H5Pset_obj_track_times(dcpl, 0);
        H5Pset_dset_no_attrs_hint(dcpl, 1);
    }
    return dcpl;
}

hid_t storq_h5u_array_create_plist(hid_t ftype, int ndims, const hsize_t *dims)
{
    H5T_class_t cls = H5Tget_class(ftype);
    size_t elsize = H5Tget_size(ftype);
    if (ndims < 1 || (cls != H5T_INTEGER && cls != H5T_FLOAT) || elsize == 0)
        return plain_dcpl();
    hsize_t bytes = elsize, row = elsize;
    for (int i = 0; i < ndims; i++)
        bytes *= dims[i];
    for (int i = 1; i < ndims; i++)
        row *= dims[i];
    hid_t dcpl = plain_dcpl();
    if (dcpl < 0 || bytes < STORQ_H5U_COMPRESS_MIN || row > STORQ_H5U_CHUNK_MAX ||
        !storq_h5u_deflate_available())
        return dcpl;
    hsize_t chunk[H5S_MAX_RANK];
    for (int i = 0; i < ndims; i++)
        chunk[i] = dims[i];
    hsize_t rows = STORQ_H5U_CHUNK_MAX / row;
    /* past STORQ_H5U_CHUNKS_MAX MiB, at most that many chunks (see h5_util.h) */
    if (dims[0] > rows * STORQ_H5U_CHUNKS_MAX)
        rows = (dims[0] + STORQ_H5U_CHUNKS_MAX - 1) / STORQ_H5U_CHUNKS_MAX;
    if (chunk[0] > rows)
        chunk[0] = rows;
    if (H5Pset_chunk(dcpl, ndims, chunk) < 0 || H5Pset_shuffle(dcpl) < 0 ||
        H5Pset_deflate(dcpl, STORQ_H5U_DEFLATE_LEVEL) < 0) {
        H5Pclose(dcpl);
        H5Eclear2(H5E_DEFAULT);
        return plain_dcpl();
    }
    return dcpl;
}

/* keep NULL: the dataset loc/name, closed; else an anonymous one (name only names it in
 * messages), left open in *keep. */
static int write_dataset(hid_t loc, const char *name, hid_t ftype, hid_t mtype, int ndims,
                         const hsize_t *dims, const void *data, hid_t *keep, storq_error *err)
{
    hid_t space = ndims == 0 ? H5Screate(H5S_SCALAR) : H5Screate_simple(ndims, dims, NULL);
    if (space < 0)
        return storq_h5u_fail(err, loc, "cannot make a dataspace for dataset '%s'", name);
    hid_t dcpl = storq_h5u_array_create_plist(ftype, ndims, dims);
    hid_t d = dcpl < 0 ? -1
              : keep   ? H5Dcreate_anon(loc, ftype, space, dcpl, H5P_DEFAULT)
                       : H5Dcreate2(loc, name, ftype, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    if (dcpl >= 0)
        H5Pclose(dcpl);
    H5Sclose(space);
    if (d < 0)
        return storq_h5u_fail(err, loc, "cannot create dataset '%s'", name);
    /* An empty dataset has nothing to write (and HDF5 rejects a NULL buffer). */
    herr_t rc = data ? H5Dwrite(d, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) : 0;
    if (rc < 0 || !keep)
        H5Dclose(d);
    if (rc < 0)
        return storq_h5u_fail(err, loc, "cannot write dataset '%s'", name);
    if (keep)
        *keep = d;
    return STORQ_OK;
}

int storq_h5u_write_f64(hid_t loc, const char *name, int ndims, const hsize_t *dims,
                        const double *data, storq_error *err)
{
    return write_dataset(loc, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, ndims, dims, data, NULL,
                         err);
}

int storq_h5u_write_u64(hid_t loc, const char *name, int ndims, const hsize_t *dims,
                        const uint64_t *data, storq_error *err)
{
    return write_dataset(loc, name, H5T_STD_U64LE, H5T_NATIVE_UINT64, ndims, dims, data, NULL, err);
}

int storq_h5u_new_f64(hid_t loc, const char *name, int ndims, const hsize_t *dims,
                      const double *data, hid_t *out, storq_error *err)
{
    return write_dataset(loc, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, ndims, dims, data, out, err);
}

int storq_h5u_new_u64(hid_t loc, const char *name, int ndims, const hsize_t *dims,
                      const uint64_t *data, hid_t *out, storq_error *err)
{
    return write_dataset(loc, name, H5T_STD_U64LE, H5T_NATIVE_UINT64, ndims, dims, data, out, err);
}

int storq_h5u_new_array(hid_t loc, const char *name, hid_t ftype, hid_t mtype, int ndims,
                        const hsize_t *dims, const void *data, hid_t *out, storq_error *err)
{
    return write_dataset(loc, name, ftype, mtype, ndims, dims, data, out, err);
}

int storq_h5u_write_string(hid_t loc, const char *name, const char *text, storq_error *err)
{
    hid_t t = storq_h5u_vlen_string_type();
    if (t < 0)
        return storq_h5u_fail(err, loc, "cannot make a string type for dataset '%s'", name);
    char *owned;
    const char *v = storq_utf8_text(text ? text : "", &owned);
    int rc = v ? write_dataset(loc, name, t, t, 0, NULL, &v, NULL, err)
               : STORQ_RUNTIME_FAIL(err, "out of memory");
    free(owned);
    H5Tclose(t);
    return rc;
}

static herr_t collect_attr_name(hid_t loc, const char *name, const H5A_info_t *info, void *data)
{
    (void)loc;
    (void)info;
    char ***names = data;
    size_t n = 0;
    while ((*names)[n])
        n++;
    char **grown = realloc(*names, (n + 2) * sizeof *grown);
    if (!grown)
        return -1;
    *names = grown;
    grown[n] = strdup(name);
    grown[n + 1] = NULL;
    return grown[n] ? 0 : -1;
}

int storq_h5u_attr_names(hid_t obj, char ***names)
{
    hsize_t pos = 0;
    *names = calloc(1, sizeof **names);
    return *names && H5Aiterate2(obj, H5_INDEX_NAME, H5_ITER_INC, &pos, collect_attr_name,
                                 names) >= 0
               ? 0
               : -1;
}

int storq_h5u_copy_attr(hid_t src, const char *name, hid_t dst)
{
    hid_t a = H5Aopen(src, name, H5P_DEFAULT);
    hid_t ftype = a >= 0 ? H5Aget_type(a) : -1, space = a >= 0 ? H5Aget_space(a) : -1;
    hid_t mtype = ftype >= 0 ? H5Tget_native_type(ftype, H5T_DIR_ASCEND) : -1;
    hssize_t n = space >= 0 ? H5Sget_simple_extent_npoints(space) : -1;
    void *buf = mtype >= 0 && n >= 0 ? calloc((size_t)n + 1, H5Tget_size(mtype)) : NULL;
    int rc = -1;
    if (buf && H5Aread(a, mtype, buf) >= 0) {
        hid_t b = H5Acreate2(dst, name, ftype, space, H5P_DEFAULT, H5P_DEFAULT);
        rc = b >= 0 && H5Awrite(b, mtype, buf) >= 0 ? 0 : -1;
        if (b >= 0)
            H5Aclose(b);
        if (H5Tdetect_class(mtype, H5T_STRING) > 0 && H5Tis_variable_str(mtype) > 0)
            H5Dvlen_reclaim(mtype, space, H5P_DEFAULT, buf);
    }
    free(buf);
    storq_h5u_close_type(&mtype);
    storq_h5u_close_type(&ftype);
    storq_h5u_close_space(&space);
    if (a >= 0)
        H5Aclose(a);
    return rc;
}
