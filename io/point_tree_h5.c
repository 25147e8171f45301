/* A point group of a 1.x file read whole into a tree (point_tree.h): members in
 * storq_h5u_list_links's order, soft links kept as links, every value read into memory. A type or
 * shape a point never holds is a usage error naming the object; a failure of HDF5 a runtime one
 * (h5_util.h's message). */
#include "point_tree.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "h5_guard.h"
#include "h5_util.h"

/* A point is 4 deep (point/observables/u/mean): deeper is refused, so that a hard link back up
 * to a group cannot be walked forever. */
#define DEPTH_MAX 32

typedef struct reader {
    const char *const *skip;
    char path[1024]; /* the object being read, for messages */
    storq_error *err;
} reader;

/* A usage error: "'FILE', object 'PATH': what". */
static int refuse(reader *r, hid_t loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int refuse(reader *r, hid_t loc, const char *fmt, ...)
{
    char file[512], what[512];
    if (H5Fget_name(loc, file, sizeof file) < 0)
        snprintf(file, sizeof file, "?");
    H5Eclear2(H5E_DEFAULT);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return storq_fail(r->err, STORQ_ERR_USAGE, "'%s', object '%s': %s", file, r->path, what);
}

/* Appends "/name" to the path; returns its length before, for path_pop. */
static size_t path_push(reader *r, const char *name)
{
    size_t len = strlen(r->path);
    const char *sep = len && r->path[len - 1] == '/' ? "" : "/";
    snprintf(r->path + len, sizeof r->path - len, "%s%s", sep, name);
    return len;
}

static void path_pop(reader *r, size_t len)
{
    r->path[len] = '\0';
}

storq_pt_type storq_pt_h5_number_type(hid_t ftype)
{
    size_t size = H5Tget_size(ftype);
    H5T_class_t cls = H5Tget_class(ftype);
    if (cls == H5T_FLOAT && size == 8)
        return STORQ_PT_F64;
    if (cls != H5T_INTEGER || (size != 8 && size != 4))
        return (storq_pt_type)0;
    int sign = H5Tget_sign(ftype) == H5T_SGN_2;
    if (size == 8)
        return sign ? STORQ_PT_I64 : STORQ_PT_U64;
    return sign ? STORQ_PT_I32 : STORQ_PT_U32;
}

hid_t storq_pt_h5_mem_type(storq_pt_type type)
{
    switch (type) {
    case STORQ_PT_F64:
        return H5T_NATIVE_DOUBLE;
    case STORQ_PT_U64:
        return H5T_NATIVE_UINT64;
    case STORQ_PT_I64:
        return H5T_NATIVE_INT64;
    case STORQ_PT_U32:
        return H5T_NATIVE_UINT32;
    default:
        return H5T_NATIVE_INT32;
    }
}

hid_t storq_pt_h5_file_type(storq_pt_type type)
{
    switch (type) {
    case STORQ_PT_F64:
        return H5T_IEEE_F64LE;
    case STORQ_PT_U64:
        return H5T_STD_U64LE;
    case STORQ_PT_I64:
        return H5T_STD_I64LE;
    case STORQ_PT_U32:
        return H5T_STD_U32LE;
    default:
        return H5T_STD_I32LE;
    }
}

/* What a file type holds, for a refusal: "2-byte integers", "strings"... */
static void describe(hid_t ftype, char *buf, size_t size)
{
    size_t bytes = H5Tget_size(ftype);
    switch (H5Tget_class(ftype)) {
    case H5T_INTEGER:
        snprintf(buf, size, "%zu-byte integers", bytes);
        break;
    case H5T_FLOAT:
        snprintf(buf, size, "%zu-byte floats", bytes);
        break;
    case H5T_STRING:
        snprintf(buf, size, "strings");
        break;
    case H5T_COMPOUND:
        snprintf(buf, size, "compound values");
        break;
    default:
        snprintf(buf, size, "values of HDF5 type class %d", (int)H5Tget_class(ftype));
    }
}

/* The rank of space (0 when scalar), or -1 when it is neither scalar nor simple (null). */
static int space_rank(hid_t space)
{
    H5S_class_t cls = H5Sget_simple_extent_type(space);
    if (cls == H5S_SCALAR)
        return 0;
    return cls == H5S_SIMPLE ? H5Sget_simple_extent_ndims(space) : -1;
}

/* n elements of a numeric type in a buffer to free (never NULL when n is 0). */
static void *alloc_values(storq_pt_type type, hssize_t n)
{
    size_t size = storq_pt_type_size(type);
    if (n < 0 || (uint64_t)n > SIZE_MAX / size)
        return NULL;
    return malloc(n ? (size_t)n * size : 1);
}

/* A string attribute: fixed-length strings read one byte longer, so HDF5 ends each with a NUL
 * even when it fills its length; each kept up to its first NUL, padding left out. */
static int read_string_attr(reader *r, hid_t obj, const char *name, hid_t a, hid_t ftype,
                            hid_t space, int rank, hssize_t n, storq_pt_node *node)
{
    int vlen = H5Tis_variable_str(ftype) > 0;
    size_t len = vlen ? 0 : H5Tget_size(ftype) + 1;
    char **strs = calloc(n ? (size_t)n : 1, sizeof *strs);
    char *raw = vlen || !strs ? NULL : calloc(n ? (size_t)n : 1, len);
    hid_t mtype = H5Tcopy(H5T_C_S1);
    int rc = STORQ_OK;
    if (!strs || (!vlen && !raw)) {
        rc = STORQ_RUNTIME_FAIL(r->err, "out of memory reading attribute '%s' of '%s'", name,
                                r->path);
    } else if (mtype < 0 || H5Tset_size(mtype, vlen ? H5T_VARIABLE : len) < 0 ||
               H5Tset_cset(mtype, H5Tget_cset(ftype)) < 0 ||
               (n > 0 && H5Aread(a, mtype, vlen ? (void *)strs : (void *)raw) < 0)) {
        rc = storq_h5u_fail(r->err, obj, "cannot read attribute '%s'", name);
    } else {
        for (hssize_t i = 0; !vlen && i < n; i++)
            strs[i] = raw + (size_t)i * len;
        rc = storq_pt_set_attr(node, name, STORQ_PT_STR, rank, (size_t)n, strs, r->err);
        if (vlen && n > 0)
            H5Dvlen_reclaim(mtype, space, H5P_DEFAULT, strs);
    }
    storq_h5u_close_type(&mtype);
    free(raw);
    free(strs);
    return rc;
}

static int read_attr(reader *r, hid_t obj, const char *name, storq_pt_node *node)
{
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
    if (a < 0)
        return storq_h5u_fail(r->err, obj, "cannot open attribute '%s'", name);
    hid_t ftype = H5Aget_type(a), space = H5Aget_space(a);
    int rank = space >= 0 ? space_rank(space) : -1;
    hssize_t n = space >= 0 ? H5Sget_simple_extent_npoints(space) : -1;
    storq_pt_type type = ftype >= 0 ? storq_pt_h5_number_type(ftype) : (storq_pt_type)0;
    char what[64] = "";
    int rc = STORQ_OK;
    if (ftype < 0 || space < 0 || n < 0) {
        rc = storq_h5u_fail(r->err, obj, "cannot read the type and shape of attribute '%s'",
                            name);
    } else if (rank < 0) {
        rc = refuse(r, obj, "attribute '%s' has a null dataspace, which a point's do not", name);
    } else if (rank > 1) {
        rc = refuse(r, obj, "attribute '%s' is of rank %d, where a point's are scalars or 1-D",
                    name, rank);
    } else if (H5Tget_class(ftype) == H5T_STRING) {
        rc = read_string_attr(r, obj, name, a, ftype, space, rank, n, node);
    } else if (!type) {
        describe(ftype, what, sizeof what);
        rc = refuse(r, obj, "attribute '%s' holds %s, which a point does not", name, what);
    } else {
        void *buf = alloc_values(type, n);
        if (!buf)
            rc = STORQ_RUNTIME_FAIL(r->err, "out of memory reading attribute '%s' of '%s'", name,
                                    r->path);
        else if (n > 0 && H5Aread(a, storq_pt_h5_mem_type(type), buf) < 0)
            rc = storq_h5u_fail(r->err, obj, "cannot read attribute '%s'", name);
        else
            rc = storq_pt_set_attr(node, name, type, rank, (size_t)n, buf, r->err);
        free(buf);
    }
    storq_h5u_close_type(&ftype);
    storq_h5u_close_space(&space);
    H5Aclose(a);
    return rc;
}

int storq_pt_read_attr_h5(hid_t obj, const char *name, storq_pt_node *node, storq_error *err)
{
    reader r = {.err = err};
    if (H5Iget_name(obj, r.path, sizeof r.path) <= 0)
        snprintf(r.path, sizeof r.path, "?");
    H5Eclear2(H5E_DEFAULT);
    return read_attr(&r, obj, name, node);
}

static int skipped(const reader *r, const char *name)
{
    for (const char *const *s = r->skip; s && *s; s++)
        if (strcmp(*s, name) == 0)
            return 1;
    return 0;
}

/* obj's attributes, by name (storq_h5u_attr_names's order), but those skipped. */
static int read_attrs(reader *r, hid_t obj, storq_pt_node *node)
{
    char **names = NULL;
    int rc = storq_h5u_attr_names(obj, &names) == 0
                 ? STORQ_OK
                 : storq_h5u_fail(r->err, obj, "cannot list the attributes");
    for (size_t i = 0; !rc && names[i]; i++)
        if (!skipped(r, names[i]))
            rc = read_attr(r, obj, names[i], node);
    for (size_t i = 0; names && names[i]; i++)
        free(names[i]);
    free(names);
    return rc;
}

static int read_dataset(reader *r, hid_t d, const char *name, storq_pt_node *parent)
{
    hid_t ftype = H5Dget_type(d), space = H5Dget_space(d);
    int rank = space >= 0 ? space_rank(space) : -1;
    hssize_t n = space >= 0 ? H5Sget_simple_extent_npoints(space) : -1;
    storq_pt_type type = ftype >= 0 ? storq_pt_h5_number_type(ftype) : (storq_pt_type)0;
    hsize_t hdims[STORQ_PT_RANK_MAX];
    uint64_t dims[STORQ_PT_RANK_MAX] = {0};
    void *buf = NULL;
    char what[64] = "";
    int rc = STORQ_OK;
    if (ftype < 0 || space < 0 || n < 0) {
        rc = storq_h5u_fail(r->err, d, "cannot read the type and shape of the dataset");
    } else if (!type) {
        describe(ftype, what, sizeof what);
        rc = refuse(r, d, "a dataset of %s, which a point does not hold", what);
    } else if (rank < 0) {
        rc = refuse(r, d, "a dataset with a null dataspace, which a point does not hold");
    } else if (rank > STORQ_PT_RANK_MAX) {
        rc = refuse(r, d, "a dataset of rank %d (a point's are of rank 0 to %d)", rank,
                    STORQ_PT_RANK_MAX);
    } else if (rank > 0 && H5Sget_simple_extent_dims(space, hdims, NULL) < 0) {
        rc = storq_h5u_fail(r->err, d, "cannot read the shape of the dataset");
    } else if (!(buf = alloc_values(type, n))) {
        rc = STORQ_RUNTIME_FAIL(r->err, "out of memory reading dataset '%s'", r->path);
    } else if (n > 0 && H5Dread(d, storq_pt_h5_mem_type(type), H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0) {
        rc = storq_h5u_fail(r->err, d, "cannot read the dataset");
    }
    for (int i = 0; !rc && i < rank; i++)
        dims[i] = hdims[i];
    storq_pt_node *kid = NULL;
    if (!rc)
        rc = storq_pt_add_dataset(parent, name, type, rank, dims, buf, &kid, r->err);
    free(buf);
    storq_h5u_close_type(&ftype);
    storq_h5u_close_space(&space);
    /* kid stays valid: parent gains no member while its attributes are read */
    return rc ? rc : read_attrs(r, d, kid);
}

static int read_softlink(reader *r, hid_t g, const char *name, size_t size,
                         storq_pt_node *parent)
{
    char *target = malloc(size + 1);
    if (!target)
        return STORQ_RUNTIME_FAIL(r->err, "out of memory reading soft link '%s'", r->path);
    int rc = STORQ_OK;
    if (H5Lget_val(g, name, target, size + 1, H5P_DEFAULT) < 0)
        rc = storq_h5u_fail(r->err, g, "cannot read soft link '%s'", name);
    target[size] = '\0';
    if (!rc)
        rc = storq_pt_add_softlink(parent, name, target, r->err);
    free(target);
    return rc;
}

static int read_group(reader *r, hid_t g, storq_pt_node *node, int depth);

static int read_member(reader *r, hid_t g, const char *name, storq_pt_node *node, int depth)
{
    storq_h5_guard_beat();
    H5L_info_t info;
    if (H5Lget_info(g, name, &info, H5P_DEFAULT) < 0)
        return storq_h5u_fail(r->err, g, "cannot read link '%s'", name);
    if (info.type == H5L_TYPE_SOFT)
        return read_softlink(r, g, name, info.u.val_size, node);
    if (info.type != H5L_TYPE_HARD)
        return refuse(r, g, "an external or user-defined link, which a point does not hold");
    hid_t obj = H5Oopen(g, name, H5P_DEFAULT);
    if (obj < 0)
        return storq_h5u_fail(r->err, g, "cannot open '%s'", name);
    int rc;
    H5I_type_t type = H5Iget_type(obj);
    if (type == H5I_GROUP) {
        storq_pt_node *kid;
        rc = storq_pt_add_group(node, name, &kid, r->err);
        if (!rc)
            rc = read_group(r, obj, kid, depth + 1);
    } else if (type == H5I_DATASET) {
        rc = read_dataset(r, obj, name, node);
    } else {
        rc = refuse(r, g, "a named datatype, which a point does not hold");
    }
    H5Oclose(obj);
    return rc;
}

static int read_group(reader *r, hid_t g, storq_pt_node *node, int depth)
{
    if (depth > DEPTH_MAX)
        return refuse(r, g, "groups nested more than %d deep (a link back up?)", DEPTH_MAX);
    STORQ_TRY(read_attrs(r, g, node));
    char **names;
    size_t n;
    STORQ_TRY(storq_h5u_list_links(g, &names, &n, r->err));
    int rc = STORQ_OK;
    for (size_t i = 0; !rc && i < n; i++) {
        size_t len = path_push(r, names[i]);
        rc = read_member(r, g, names[i], node, depth);
        path_pop(r, len);
    }
    storq_h5u_free_names(names, n);
    return rc;
}

int storq_pt_read_h5(hid_t loc, const char *path, const char *const *skip, storq_pt_node **root,
                     storq_error *err)
{
    *root = NULL;
    hid_t g = H5Gopen2(loc, path, H5P_DEFAULT);
    if (g < 0)
        return storq_h5u_fail(err, loc, "cannot open group '%s'", path);
    reader r = {.skip = skip, .err = err};
    if (H5Iget_name(g, r.path, sizeof r.path) <= 0)
        snprintf(r.path, sizeof r.path, "%s", path);
    storq_pt_node *t = NULL;
    int rc = storq_pt_new(&t, err);
    if (!rc)
        rc = read_group(&r, g, t, 0);
    H5Gclose(g);
    if (rc) {
        storq_pt_free(t);
        return rc;
    }
    *root = t;
    return STORQ_OK;
}
