/* Checksums of stored results: see h5_checksum.h and docs/hdf5-schema.md ("What readers check").
 *
 * The byte stream of one object, fed to CRC-32 in this order:
 *   for each attribute in name order, but crc32 itself and status (written after the checksum):
 *       its name, a NUL byte, its value
 *   for a dataset, then: a NUL byte (an empty name: no attribute has one), its value
 * and a value is: its class ('f' float, 'i' signed integer, 'u' unsigned integer, 's' string),
 * its rank (one byte), each dimension (uint64 little-endian), then its elements: numbers as
 * float64 / int64 / uint64 little-endian whatever their stored width, strings as their bytes
 * each followed by a NUL byte. tests/check_h5_schema.py recomputes it with Python's zlib. */
#include "h5_checksum.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "h5_util.h"
#include "schema.h"

/* A point group is 3 levels deep (point/observables/u/mean): deeper is not storq's, and a hard
 * link back up would otherwise be walked forever. */
#define MAX_DEPTH 8

/* An attribute or a dataset: what is read, and how. */
typedef struct value_src {
    hid_t id;
    int is_attr;
} value_src;

static herr_t read_value(value_src v, hid_t mtype, void *buf)
{
    return v.is_attr ? H5Aread(v.id, mtype, buf)
                     : H5Dread(v.id, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf);
}

static void put_u64le(unsigned char *out, uint64_t x)
{
    for (int i = 0; i < 8; i++)
        out[i] = (unsigned char)(x >> (8 * i));
}

/* Feed one value (see the top of the file); -1 when its type or dataspace is not one storq
 * writes, or it cannot be read. */
static int feed_value(value_src v, uint32_t *crc)
{
    hid_t ftype = v.is_attr ? H5Aget_type(v.id) : H5Dget_type(v.id);
    hid_t space = v.is_attr ? H5Aget_space(v.id) : H5Dget_space(v.id);
    hid_t mtype = -1;
    int rank = space >= 0 ? H5Sget_simple_extent_ndims(space) : -1;
    hsize_t dims[H5S_MAX_RANK];
    hssize_t n = space >= 0 ? H5Sget_simple_extent_npoints(space) : -1;
    H5T_class_t cls = ftype >= 0 ? H5Tget_class(ftype) : H5T_NO_CLASS;
    int rc = -1;
    void *buf = NULL;
    if (rank < 0 || n < 0 || H5Sget_simple_extent_type(space) == H5S_NULL ||
        H5Sget_simple_extent_dims(space, dims, NULL) < 0)
        goto done;
    unsigned char head[2 + 8 * H5S_MAX_RANK];
    head[0] = cls == H5T_FLOAT ? 'f' : cls == H5T_STRING ? 's'
              : cls == H5T_INTEGER ? (H5Tget_sign(ftype) == H5T_SGN_2 ? 'i' : 'u') : 0;
    if (!head[0])
        goto done;
    head[1] = (unsigned char)rank;
    for (int i = 0; i < rank; i++)
        put_u64le(head + 2 + 8 * i, dims[i]);
    *crc = storq_crc32(*crc, head, 2 + 8 * (size_t)rank);
    size_t count = (size_t)n;
    if (cls == H5T_STRING && H5Tis_variable_str(ftype) > 0) {
        mtype = H5Tcopy(H5T_C_S1);
        char **s = calloc(count + 1, sizeof *s);
        buf = s;
        if (!s || mtype < 0 || H5Tset_size(mtype, H5T_VARIABLE) < 0 ||
            H5Tset_cset(mtype, H5Tget_cset(ftype)) < 0 ||
            (count && read_value(v, mtype, s) < 0))
            goto done;
        for (size_t i = 0; i < count; i++)
            *crc = storq_crc32(*crc, s[i] ? s[i] : "", (s[i] ? strlen(s[i]) : 0) + 1);
        H5Dvlen_reclaim(mtype, space, H5P_DEFAULT, s);
    } else if (cls == H5T_STRING) {
        size_t size = H5Tget_size(ftype);
        mtype = H5Tcopy(H5T_C_S1);
        char *s = calloc(count * size + 1, 1);
        buf = s;
        if (!s || mtype < 0 || H5Tset_size(mtype, size) < 0 ||
            H5Tset_cset(mtype, H5Tget_cset(ftype)) < 0 ||
            (count && read_value(v, mtype, s) < 0))
            goto done;
        for (size_t i = 0; i < count; i++) {
            const char *e = s + i * size;
            size_t len = strnlen(e, size);
            *crc = storq_crc32(*crc, e, len);
            *crc = storq_crc32(*crc, "", 1);
        }
    } else {
        hid_t le = head[0] == 'f' ? H5T_IEEE_F64LE : head[0] == 'i' ? H5T_STD_I64LE
                                                                    : H5T_STD_U64LE;
        buf = malloc(count * 8 + 8);
        if (!buf || (count && read_value(v, le, buf) < 0))
            goto done;
        *crc = storq_crc32(*crc, buf, count * 8);
    }
    rc = 0;
done:
    free(buf);
    storq_h5u_close_type(&mtype);
    storq_h5u_close_type(&ftype);
    storq_h5u_close_space(&space);
    H5Eclear2(H5E_DEFAULT);
    return rc;
}

/* Attributes a checksum of schema 2.0's attributes-only kind leaves out: its own, the covers list
 * of the row checksums, and HDF5's and netCDF's dimension-scale bookkeeping. */
static const char *const attrs_only_skip[] = {
    STORQ_SCHEMA_ATTR_CRC32, "covers", "CLASS", "NAME", "DIMENSION_LIST", "REFERENCE_LIST",
    "_Netcdf4Dimid", "_Netcdf4Coordinates", NULL};

static int skipped(const char *name, int attrs_only)
{
    if (!attrs_only)
        return strcmp(name, STORQ_SCHEMA_ATTR_CRC32) == 0 ||
               strcmp(name, STORQ_SCHEMA_ATTR_STATUS) == 0;
    for (const char *const *s = attrs_only_skip; *s; s++)
        if (strcmp(name, *s) == 0)
            return 1;
    return 0;
}

/* The checksum of one object (see the top of the file), of its attributes alone when
 * attrs_only (schema 2.0); -1 when it cannot be computed. */
static int object_crc_mode(hid_t obj, int attrs_only, uint32_t *out)
{
    char **names = NULL;
    uint32_t crc = 0;
    int rc = storq_h5u_attr_names(obj, &names);
    for (size_t i = 0; !rc && names[i]; i++) {
        if (skipped(names[i], attrs_only))
            continue;
        hid_t a = H5Aopen(obj, names[i], H5P_DEFAULT);
        crc = storq_crc32(crc, names[i], strlen(names[i]) + 1);
        rc = a >= 0 ? feed_value((value_src){a, 1}, &crc) : -1;
        if (a >= 0)
            H5Aclose(a);
    }
    for (size_t i = 0; names && names[i]; i++)
        free(names[i]);
    free(names);
    if (!rc && !attrs_only && H5Iget_type(obj) == H5I_DATASET) {
        crc = storq_crc32(crc, "", 1);
        rc = feed_value((value_src){obj, 0}, &crc);
    }
    H5Eclear2(H5E_DEFAULT);
    *out = crc;
    return rc;
}

static int object_crc(hid_t obj, uint32_t *out)
{
    return object_crc_mode(obj, 0, out);
}

int storq_h5_checksum_attrs(hid_t obj, uint32_t *out)
{
    return object_crc_mode(obj, 1, out);
}

typedef int (*object_fn)(hid_t obj, void *ctx, storq_error *err);

/* 1 when loc/name is a soft link (a histogram's bin_edges into /layouts, 1.3). */
static int is_soft_link(hid_t loc, const char *name)
{
    H5L_info_t info;
    int soft = H5Lget_info(loc, name, &info, H5P_DEFAULT) >= 0 && info.type == H5L_TYPE_SOFT;
    H5Eclear2(H5E_DEFAULT);
    return soft;
}

/* fn on every object below obj, children first, then on obj. Soft links are followed when
 * follow_soft (a verification checks the shared bin edges a point's histogram reads), else
 * skipped (their target, in /layouts, was stamped when it was written). */
static int walk(hid_t obj, int depth, int follow_soft, object_fn fn, void *ctx,
                storq_error *err)
{
    if (depth > MAX_DEPTH)
        return fn(-1, ctx, err); /* fn says what is wrong */
    if (H5Iget_type(obj) == H5I_GROUP) {
        char **names = NULL;
        size_t n = 0;
        STORQ_TRY(storq_h5u_list_links(obj, &names, &n, err));
        int rc = STORQ_OK;
        for (size_t i = 0; !rc && i < n; i++) {
            if (!follow_soft && is_soft_link(obj, names[i]))
                continue;
            hid_t child = H5Oopen(obj, names[i], H5P_DEFAULT);
            if (child < 0) {
                rc = storq_h5u_fail(err, obj, "cannot open '%s'", names[i]);
                break;
            }
            H5I_type_t t = H5Iget_type(child);
            if (t == H5I_GROUP || t == H5I_DATASET)
                rc = walk(child, depth + 1, follow_soft, fn, ctx, err);
            H5Oclose(child);
        }
        storq_h5u_free_names(names, n);
        STORQ_TRY(rc);
    }
    return fn(obj, ctx, err);
}

static int stamp_one(hid_t obj, void *ctx, storq_error *err)
{
    uint32_t crc;
    if (obj < 0)
        return STORQ_RUNTIME_FAIL(err, "point group nested too deep to checksum");
    if (object_crc_mode(obj, ctx != NULL, &crc) != 0)
        return storq_h5u_fail(err, obj, "cannot compute the checksum");
    if (storq_h5u_has_attr(obj, STORQ_SCHEMA_ATTR_CRC32) &&
        H5Adelete(obj, STORQ_SCHEMA_ATTR_CRC32) < 0)
        return storq_h5u_fail(err, obj, "cannot replace the checksum");
    hid_t space = H5Screate(H5S_SCALAR);
    hid_t a = space >= 0 ? H5Acreate2(obj, STORQ_SCHEMA_ATTR_CRC32, H5T_STD_U32LE, space,
                                      H5P_DEFAULT, H5P_DEFAULT)
                         : -1;
    herr_t w = a >= 0 ? H5Awrite(a, H5T_NATIVE_UINT32, &crc) : -1;
    if (a >= 0)
        H5Aclose(a);
    storq_h5u_close_space(&space);
    if (w < 0)
        return storq_h5u_fail(err, obj, "cannot write attribute '" STORQ_SCHEMA_ATTR_CRC32 "'");
    return STORQ_OK;
}

int storq_h5_checksum_stamp(hid_t group, storq_error *err)
{
    return walk(group, 0, 0, stamp_one, NULL, err);
}

int storq_h5_checksum_stamp_object(hid_t obj, storq_error *err)
{
    return stamp_one(obj, NULL, err);
}

int storq_h5_checksum_stamp_attrs(hid_t obj, storq_error *err)
{
    static int attrs_only = 1;
    return stamp_one(obj, &attrs_only, err);
}

typedef struct verify_ctx {
    const char *label, *path;
} verify_ctx;

static int damaged(const verify_ctx *v, hid_t obj, storq_error *err, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int damaged(const verify_ctx *v, hid_t obj, storq_error *err, const char *fmt, ...)
{
    char object[512] = "?", what[512];
    if (obj >= 0 && H5Iget_name(obj, object, sizeof object) <= 0)
        snprintf(object, sizeof object, "?");
    H5Eclear2(H5E_DEFAULT);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return storq_fail(err, STORQ_ERR_USAGE, "%s%s%s: object '%s': %s", v->label ? v->label : "",
                      v->label ? ": " : "", v->path, object, what);
}

static int verify_one(hid_t obj, void *ctx, storq_error *err)
{
    const verify_ctx *v = ctx;
    if (obj < 0)
        return damaged(v, obj, err, "groups nested deeper than a storq point's (a link cycle?)");
    if (!storq_h5u_has_attr(obj, STORQ_SCHEMA_ATTR_CRC32))
        return damaged(v, obj, err, "no checksum (attribute '" STORQ_SCHEMA_ATTR_CRC32 "') though "
                       "its point has one: the file is damaged or was altered");
    hid_t a = H5Aopen(obj, STORQ_SCHEMA_ATTR_CRC32, H5P_DEFAULT);
    hid_t t = a >= 0 ? H5Aget_type(a) : -1, s = a >= 0 ? H5Aget_space(a) : -1;
    uint32_t stored = 0, now = 0;
    int ok = t >= 0 && H5Tget_class(t) == H5T_INTEGER && s >= 0 &&
             H5Sget_simple_extent_npoints(s) == 1 && H5Aread(a, H5T_NATIVE_UINT32, &stored) >= 0;
    storq_h5u_close_type(&t);
    storq_h5u_close_space(&s);
    if (a >= 0)
        H5Aclose(a);
    H5Eclear2(H5E_DEFAULT);
    if (!ok)
        return damaged(v, obj, err, "its checksum (attribute '" STORQ_SCHEMA_ATTR_CRC32 "') is "
                       "not a 32-bit number");
    if (object_crc(obj, &now) != 0)
        return damaged(v, obj, err, "cannot be read to check its checksum: the file is damaged "
                       "or was not written by storq");
    if (now != stored)
        return damaged(v, obj, err, "its data or attributes do not match the checksum written "
                       "with them (crc32 %08x stored, %08x now): the file is damaged",
                       (unsigned)stored, (unsigned)now);
    return STORQ_OK;
}

int storq_h5_checksum_verify(hid_t group, const char *label, const char *path, int *checked,
                             storq_error *err)
{
    *checked = storq_h5u_has_attr(group, STORQ_SCHEMA_ATTR_CRC32);
    if (!*checked)
        return STORQ_OK;
    verify_ctx v = {label, path};
    return walk(group, 0, 1, verify_one, &v, err);
}
