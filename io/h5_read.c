/* Reading with h5_util.h's conventions: attributes and datasets of the types storq writes, each
 * size checked before anything is allocated for it, and listing a group's links in creation
 * order. Errors carry HDF5's innermost message (h5_util.c). */
#include "h5_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "h5_guard.h"

/* ---- reading ---- */

int storq_h5u_has_attr(hid_t loc, const char *name)
{
    /* every reader asks this or the next of each object it reads: progress, for a guarded
     * reader's stall limit (h5_guard.h) */
    storq_h5_guard_beat();
    htri_t r = H5Aexists(loc, name);
    H5Eclear2(H5E_DEFAULT);
    return r > 0;
}

int storq_h5u_has_link(hid_t loc, const char *path)
{
    storq_h5_guard_beat();
    /* H5Lexists needs every intermediate group to exist, so test the path step by step. */
    char buf[1024];
    size_t len = strlen(path);
    if (len == 0 || len >= sizeof buf)
        return 0;
    memcpy(buf, path, len + 1);
    for (size_t i = 1; i <= len; i++) {
        if (buf[i] != '/' && buf[i] != '\0')
            continue;
        char saved = buf[i];
        buf[i] = '\0';
        htri_t r = H5Lexists(loc, buf, H5P_DEFAULT);
        buf[i] = saved;
        if (r <= 0) {
            H5Eclear2(H5E_DEFAULT);
            return 0;
        }
    }
    return 1;
}

/* Read the strings of a string attribute of either storage (variable or fixed length). */
static int read_attr_strings(hid_t loc, const char *name, char ***out, size_t *n, storq_error *err)
{
    *out = NULL;
    *n = 0;
    hid_t a = H5Aopen(loc, name, H5P_DEFAULT);
    if (a < 0)
        return storq_h5u_fail(err, loc, "cannot open attribute '%s'", name);
    hid_t ftype = H5Aget_type(a), space = H5Aget_space(a), mtype = -1;
    int rc = STORQ_OK;
    hssize_t count = space >= 0 ? H5Sget_simple_extent_npoints(space) : -1;
    if (ftype < 0 || count < 0 || H5Tget_class(ftype) != H5T_STRING) {
        rc = storq_h5u_fail(err, loc, "attribute '%s' is not a string", name);
        goto done;
    }
    char **strs = calloc((size_t)count + 1, sizeof *strs);
    if (!strs) {
        rc = storq_fail(err, STORQ_ERR_RUNTIME, "out of memory reading attribute '%s'", name);
        goto done;
    }
    if (H5Tis_variable_str(ftype) > 0) {
        mtype = storq_h5u_vlen_string_type();
        char **raw = calloc((size_t)count + 1, sizeof *raw);
        if (!raw || H5Aread(a, mtype, raw) < 0) {
            free(raw);
            free(strs);
            rc = storq_h5u_fail(err, loc, "cannot read attribute '%s'", name);
            goto done;
        }
        for (hssize_t i = 0; i < count; i++)
            strs[i] = strdup(raw[i] ? raw[i] : "");
        H5Dvlen_reclaim(mtype, space, H5P_DEFAULT, raw);
        free(raw);
    } else {
        size_t size = H5Tget_size(ftype);
        mtype = H5Tcopy(H5T_C_S1);
        H5Tset_size(mtype, size);
        char *raw = calloc((size_t)count * size + 1, 1);
        if (!raw || H5Aread(a, mtype, raw) < 0) {
            free(raw);
            free(strs);
            rc = storq_h5u_fail(err, loc, "cannot read attribute '%s'", name);
            goto done;
        }
        for (hssize_t i = 0; i < count; i++)
            strs[i] = strndup(raw + (size_t)i * size, size);
        free(raw);
    }
    *out = strs;
    *n = (size_t)count;
done:
    storq_h5u_close_type(&mtype);
    storq_h5u_close_type(&ftype);
    storq_h5u_close_space(&space);
    H5Aclose(a);
    return rc;
}

int storq_h5u_read_attr_string(hid_t loc, const char *name, char **out, storq_error *err)
{
    char **strs;
    size_t n;
    *out = NULL;
    STORQ_TRY(read_attr_strings(loc, name, &strs, &n, err));
    if (n == 0) {
        storq_h5u_free_names(strs, n);
        return storq_h5u_fail(err, loc, "attribute '%s' is empty", name);
    }
    *out = strs[0];
    strs[0] = NULL;
    storq_h5u_free_names(strs, n);
    return *out ? STORQ_OK : storq_fail(err, STORQ_ERR_RUNTIME, "out of memory");
}

int storq_h5u_read_attr_string_array(hid_t loc, const char *name, char ***out, size_t *n,
                                     storq_error *err)
{
    return read_attr_strings(loc, name, out, n, err);
}

static int read_attr_numbers(hid_t loc, const char *name, hid_t mtype, void *buf, size_t elsize,
                             size_t max, size_t *n, storq_error *err)
{
    hid_t a = H5Aopen(loc, name, H5P_DEFAULT);
    if (a < 0)
        return storq_h5u_fail(err, loc, "cannot open attribute '%s'", name);
    hid_t space = H5Aget_space(a);
    hid_t ftype = H5Aget_type(a);
    hssize_t count = space >= 0 ? H5Sget_simple_extent_npoints(space) : -1;
    H5T_class_t cls = ftype >= 0 ? H5Tget_class(ftype) : H5T_NO_CLASS;
    int rc = STORQ_OK;
    if (count < 1 || (cls != H5T_INTEGER && cls != H5T_FLOAT)) {
        rc = storq_h5u_fail(err, loc, "attribute '%s' is not a number", name);
    } else {
        unsigned char *all = malloc((size_t)count * elsize);
        if (!all || H5Aread(a, mtype, all) < 0) {
            rc = storq_h5u_fail(err, loc, "cannot read attribute '%s'", name);
        } else {
            size_t k = (size_t)count < max ? (size_t)count : max;
            memcpy(buf, all, k * elsize);
            *n = (size_t)count;
        }
        free(all);
    }
    storq_h5u_close_type(&ftype);
    storq_h5u_close_space(&space);
    H5Aclose(a);
    return rc;
}

int storq_h5u_read_attr_f64(hid_t loc, const char *name, double *out, storq_error *err)
{
    size_t n;
    return read_attr_numbers(loc, name, H5T_NATIVE_DOUBLE, out, sizeof *out, 1, &n, err);
}

int storq_h5u_read_attr_u64(hid_t loc, const char *name, uint64_t *out, storq_error *err)
{
    size_t n;
    return read_attr_numbers(loc, name, H5T_NATIVE_UINT64, out, sizeof *out, 1, &n, err);
}

int storq_h5u_read_attr_i32_array(hid_t loc, const char *name, int32_t *out, size_t max, size_t *n,
                                  storq_error *err)
{
    return read_attr_numbers(loc, name, H5T_NATIVE_INT32, out, sizeof *out, max, n, err);
}

int storq_h5u_read_string(hid_t loc, const char *name, char **out, storq_error *err)
{
    *out = NULL;
    hid_t d = H5Dopen2(loc, name, H5P_DEFAULT);
    if (d < 0)
        return storq_h5u_fail(err, loc, "cannot open dataset '%s'", name);
    hid_t ftype = H5Dget_type(d), mtype = -1, space = H5Dget_space(d);
    int rc = STORQ_OK;
    if (ftype < 0 || H5Tget_class(ftype) != H5T_STRING ||
        H5Sget_simple_extent_npoints(space) != 1) {
        rc = storq_h5u_fail(err, loc, "dataset '%s' is not a single string", name);
    } else if (H5Tis_variable_str(ftype) > 0) {
        char *raw = NULL;
        mtype = storq_h5u_vlen_string_type();
        if (H5Dread(d, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, &raw) < 0) {
            rc = storq_h5u_fail(err, loc, "cannot read dataset '%s'", name);
        } else {
            *out = strdup(raw ? raw : "");
            H5Dvlen_reclaim(mtype, space, H5P_DEFAULT, &raw);
        }
    } else {
        size_t size = H5Tget_size(ftype);
        mtype = H5Tcopy(H5T_C_S1);
        H5Tset_size(mtype, size);
        *out = calloc(size + 1, 1);
        if (*out && H5Dread(d, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, *out) < 0) {
            free(*out);
            *out = NULL;
            rc = storq_h5u_fail(err, loc, "cannot read dataset '%s'", name);
        }
    }
    if (rc == STORQ_OK && !*out)
        rc = storq_fail(err, STORQ_ERR_RUNTIME, "out of memory reading dataset '%s'", name);
    storq_h5u_close_type(&mtype);
    storq_h5u_close_type(&ftype);
    storq_h5u_close_space(&space);
    H5Dclose(d);
    return rc;
}

static int read_numbers(hid_t loc, const char *name, hid_t mtype, size_t elsize, void **out,
                        size_t *n, storq_error *err)
{
    *out = NULL;
    *n = 0;
    hid_t d = H5Dopen2(loc, name, H5P_DEFAULT);
    if (d < 0)
        return storq_h5u_fail(err, loc, "cannot open dataset '%s'", name);
    hid_t space = H5Dget_space(d);
    hssize_t count = space >= 0 ? H5Sget_simple_extent_npoints(space) : -1;
    int rc = STORQ_OK;
    void *buf = count >= 0 ? malloc(((size_t)count + 1) * elsize) : NULL;
    if (!buf) {
        rc = storq_h5u_fail(err, loc, "cannot size dataset '%s'", name);
    } else if (count > 0 && H5Dread(d, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0) {
        free(buf);
        buf = NULL;
        rc = storq_h5u_fail(err, loc, "cannot read dataset '%s' as numbers", name);
    }
    *out = buf;
    *n = buf ? (size_t)count : 0;
    storq_h5u_close_space(&space);
    H5Dclose(d);
    return rc;
}

int storq_h5u_read_f64(hid_t loc, const char *name, double **out, size_t *n, storq_error *err)
{
    return read_numbers(loc, name, H5T_NATIVE_DOUBLE, sizeof **out, (void **)out, n, err);
}

int storq_h5u_read_u64_scalar(hid_t loc, const char *name, uint64_t *out, storq_error *err)
{
    uint64_t *buf;
    size_t n;
    STORQ_TRY(read_numbers(loc, name, H5T_NATIVE_UINT64, sizeof *buf, (void **)&buf, &n, err));
    int rc = STORQ_OK;
    if (n != 1)
        rc = storq_h5u_fail(err, loc, "dataset '%s' holds %zu values, not 1", name, n);
    else
        *out = buf[0];
    free(buf);
    return rc;
}

/* ---- listing ---- */

typedef struct name_list {
    char **names;
    size_t n, cap;
    int failed;
} name_list;

static herr_t collect_name(hid_t group, const char *name, const H5L_info_t *info, void *data)
{
    name_list *list = data;
    if (list->n == list->cap) {
        size_t cap = list->cap ? 2 * list->cap : 16;
        char **grown = realloc(list->names, cap * sizeof *grown);
        if (!grown) {
            list->failed = 1;
            return -1;
        }
        list->names = grown;
        list->cap = cap;
    }
    list->names[list->n] = strdup(name);
    if (!list->names[list->n]) {
        list->failed = 1;
        return -1;
    }
    list->n++;
    return 0;
}

static int creation_order_indexed(hid_t loc)
{
    unsigned flags = 0;
    hid_t gcpl = H5Gget_create_plist(loc);
    if (gcpl < 0) {
        H5Eclear2(H5E_DEFAULT);
        return 0;
    }
    if (H5Pget_link_creation_order(gcpl, &flags) < 0)
        flags = 0;
    H5Pclose(gcpl);
    return (flags & H5P_CRT_ORDER_INDEXED) != 0;
}

int storq_h5u_list_links(hid_t loc, char ***names, size_t *n, storq_error *err)
{
    name_list list = {0};
    H5_index_t index = creation_order_indexed(loc) ? H5_INDEX_CRT_ORDER : H5_INDEX_NAME;
    hsize_t pos = 0;
    herr_t rc = H5Literate(loc, index, H5_ITER_INC, &pos, collect_name, &list);
    if (rc < 0 || list.failed) {
        storq_h5u_free_names(list.names, list.n);
        *names = NULL;
        *n = 0;
        return storq_h5u_fail(err, loc, "cannot list the members of the group");
    }
    *names = list.names;
    *n = list.n;
    return STORQ_OK;
}

void storq_h5u_free_names(char **names, size_t n)
{
    if (!names)
        return;
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
}
