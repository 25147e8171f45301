/* `storq convert`: the 2.0 file's skeleton (root, /run, /layouts, /points/index, /point, every
 * dataset with its attributes and checksum), then, once the rows are copied
 * (h5_convert_copy.c), the dimension scales (docs/hdf5-schema-2.md). Every object is made
 * without times, so that a conversion is the same bytes every time. */
#include <hdf5_hl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "h5_checksum.h"
#include "h5_convert_internal.h"
#include "h5_util.h"
#include "schema.h"

int storq_cv_copy(cv_plan *p, storq_error *err);

#define NOT_A_VARIABLE "This is a netCDF dimension but not a netCDF variable."

static int oom(storq_error *err)
{
    return STORQ_RUNTIME_FAIL(err, "convert: out of memory");
}

/* Copy obj's attributes to dst, but those named in skip. */
typedef struct attr_copy {
    hid_t dst;
    const char *const *skip;
} attr_copy;

static herr_t copy_attr(hid_t src, const char *name, const H5A_info_t *info, void *data)
{
    (void)info;
    const attr_copy *c = data;
    for (const char *const *s = c->skip; s && *s; s++)
        if (strcmp(name, *s) == 0)
            return 0;
    return storq_h5u_copy_attr(src, name, c->dst);
}

static int copy_attrs(hid_t src, const char *path, hid_t dst, const char *const *skip,
                      storq_error *err)
{
    hid_t o = H5Oopen(src, path, H5P_DEFAULT);
    attr_copy c = {dst, skip};
    hsize_t pos = 0;
    herr_t rc = o >= 0 ? H5Aiterate2(o, H5_INDEX_NAME, H5_ITER_INC, &pos, copy_attr, &c) : -1;
    if (o >= 0)
        H5Oclose(o);
    if (rc < 0)
        return storq_h5u_fail(err, dst, "cannot copy the attributes of '%s'", path);
    return STORQ_OK;
}

static const char *const skip_root[] = {STORQ_SCHEMA_ATTR_VERSION, NULL};

static int stamp(hid_t obj, storq_error *err)
{
    return storq_h5_checksum_stamp_attrs(obj, err);
}

/* The group that holds path's dataset ("observables/u" of "observables/u/mean"), made with
 * its attributes and checksum when new. */
static int parent_group(cv_plan *p, hid_t in, hid_t out, const cv_var *v, hid_t *g,
                        storq_error *err)
{
    char dir[700];
    snprintf(dir, sizeof dir, "%s", v->path);
    *strrchr(dir, '/') = '\0';
    if (storq_h5u_has_link(out, dir)) {
        *g = H5Gopen2(out, dir, H5P_DEFAULT);
        return *g >= 0 ? STORQ_OK : storq_h5u_fail(err, out, "cannot open group '%s'", dir);
    }
    STORQ_TRY(storq_h5u_create_group(out, dir, g, err));
    if (strchr(dir, '/') && v->role != CV_R_COL && v->ref < p->nq) { /* observables/<name> */
        const cv_qty *q = &p->q[v->ref];
        STORQ_TRY(storq_cv_quantity_attrs(p, v->ref, NULL, *g, err));
        if (q->kind == 'h')
            STORQ_TRY(storq_h5u_attr_strings(*g, "layouts", (const char *const *)q->layouts,
                                             q->nlayouts, err));
    }
    return stamp(*g, err);
}

static hid_t file_type(const cv_plan *p, const cv_var *v, hid_t in)
{
    switch (v->cls) {
    case 'f': return H5Tcopy(H5T_IEEE_F64LE);
    case 'u': return H5Tcopy(H5T_STD_U64LE);
    case 'i': return H5Tcopy(H5T_STD_I64LE);
    case 'b': return H5Tcopy(H5T_STD_U8LE);
    case 'w': return H5Tcopy(H5T_STD_U32LE);
    default: break;
    }
    hid_t t = H5Tcopy(H5T_C_S1);
    if (t >= 0 && (H5Tset_size(t, v->elsize) < 0 || H5Tset_strpad(t, H5T_STR_NULLTERM) < 0 ||
                   H5Tset_cset(t, H5T_CSET_UTF8) < 0)) {
        H5Tclose(t);
        t = -1;
    }
    (void)p;
    (void)in;
    return t;
}

static hid_t mem_type(const cv_var *v)
{
    switch (v->cls) {
    case 'f': return H5Tcopy(H5T_NATIVE_DOUBLE);
    case 'u': return H5Tcopy(H5T_NATIVE_UINT64);
    case 'i': return H5Tcopy(H5T_NATIVE_INT64);
    case 'b': return H5Tcopy(H5T_NATIVE_UINT8);
    case 'w': return H5Tcopy(H5T_NATIVE_UINT32);
    default: return H5Tcopy(v->ftype);
    }
}

/* Chunked along the points, shuffled and deflated; no times; NaN the fill of floats. */
static hid_t var_dcpl(const cv_plan *p, const cv_var *v)
{
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    if (dcpl < 0)
        return -1;
    H5Pset_obj_track_times(dcpl, 0);
    H5Pset_attr_creation_order(dcpl, 0);
    if (v->cls == 'f') {
        double nan = NAN;
        H5Pset_fill_value(dcpl, H5T_NATIVE_DOUBLE, &nan);
    }
    hsize_t chunk[CV_RANK_MAX + 1] = {v->chunk_rows};
    int ok = p->P > 0 && v->chunk_rows > 0;
    for (int i = 0; i < v->rank; i++) {
        chunk[i + 1] = v->shape[i];
        ok &= v->shape[i] > 0;
    }
    if (ok && (H5Pset_chunk(dcpl, v->rank + 1, chunk) < 0 ||
               (storq_h5u_deflate_available() &&
                (H5Pset_shuffle(dcpl) < 0 ||
                 H5Pset_deflate(dcpl, STORQ_H5U_DEFLATE_LEVEL) < 0)))) {
        H5Pclose(dcpl);
        return -1;
    }
    return dcpl;
}

/* Writes go to the file as whole chunks: no chunk cache, which would hold a copy of each. */
static hid_t var_dapl(void)
{
    hid_t dapl = H5Pcreate(H5P_DATASET_ACCESS);
    if (dapl >= 0)
        H5Pset_chunk_cache(dapl, 0, 0, 1.0);
    return dapl;
}

static int dims_attr(const cv_plan *p, const cv_var *v, hid_t ds, storq_error *err)
{
    const char *names[CV_RANK_MAX + 1] = {"point"};
    for (int i = 0; i < v->rank; i++)
        names[i + 1] = p->d[v->dim[i]].name;
    return storq_h5u_attr_strings(ds, "dims", names, (size_t)v->rank + 1, err);
}

/* The 1.x attributes a dataset keeps, and its own. */
static int var_attrs(cv_plan *p, hid_t in, cv_var *v, storq_error *err)
{
    if (v->role == CV_R_COL && p->c[v->ref].param >= 0)
        STORQ_TRY(storq_h5u_attr_string(v->ds, "unit", p->c[v->ref].unit, err));
    if (v->role == CV_R_QTY) {
        const cv_qty *q = &p->q[v->ref];
        const char *sub = v->rep ? STORQ_CV_REPLICATIONS : q->group == CV_OBS ? v->leaf : NULL;
        STORQ_TRY(storq_cv_quantity_attrs(p, v->ref, sub, v->ds, err));
    }
    if (v->role == CV_R_CRC || v->role == CV_R_CRCA) {
        const char **covers = calloc(p->nv + 1, sizeof *covers);
        size_t n = 0;
        if (!covers)
            return oom(err);
        int rc = STORQ_OK;
        for (size_t i = 0; !rc && i < p->nv; i++) /* absolute paths, as the docs give them */
            if ((v->role == CV_R_CRC ? p->v[i].table : p->v[i].rank > 0) &&
                !(covers[n++] = storq_cv_printf("/%s", p->v[i].path)))
                rc = oom(err);
        if (!rc)
            rc = storq_h5u_attr_strings(v->ds, "covers", covers, n, err);
        for (size_t i = 0; i < n; i++)
            free((char *)covers[i]);
        free(covers);
        STORQ_TRY(rc);
    }
    STORQ_TRY(dims_attr(p, v, v->ds, err));
    return stamp(v->ds, err);
}

static int create_var(cv_plan *p, hid_t in, hid_t out, cv_var *v, storq_error *err)
{
    hid_t g;
    STORQ_TRY(parent_group(p, in, out, v, &g, err));
    v->ftype = file_type(p, v, in);
    v->mtype = v->ftype >= 0 ? mem_type(v) : -1;
    hsize_t dims[CV_RANK_MAX + 1] = {p->P};
    for (int i = 0; i < v->rank; i++)
        dims[i + 1] = v->shape[i];
    hid_t space = H5Screate_simple(v->rank + 1, dims, NULL);
    hid_t dcpl = var_dcpl(p, v), dapl = var_dapl();
    v->ds = space >= 0 && dcpl >= 0 && dapl >= 0 && v->mtype >= 0
                ? H5Dcreate2(g, strrchr(v->path, '/') + 1, v->ftype, space, H5P_DEFAULT, dcpl,
                             dapl)
                : -1;
    if (dcpl >= 0)
        H5Pclose(dcpl);
    if (dapl >= 0)
        H5Pclose(dapl);
    storq_h5u_close_space(&space);
    int rc = v->ds < 0 ? storq_h5u_fail(err, g, "cannot create dataset '%s'", v->path)
                       : var_attrs(p, in, v, err);
    H5Gclose(g);
    return rc;
}

/* The root's attributes as 1.x's, format_version 2.0 and where it came from. */
static int write_root(const cv_plan *p, hid_t in, hid_t out, storq_error *err)
{
    attr_copy c = {out, skip_root};
    hsize_t pos = 0;
    if (H5Aiterate2(in, H5_INDEX_NAME, H5_ITER_INC, &pos, copy_attr, &c) < 0)
        return storq_h5u_fail(err, out, "cannot copy the root attributes of %s", p->in_path);
    int32_t version[2] = {2, 0};
    STORQ_TRY(storq_h5u_attr_i32_array(out, STORQ_SCHEMA_ATTR_VERSION, version, 2, err));
    if (p->written) /* a run or merge that finished into 2.0: nothing was converted */
        return STORQ_OK;
    return storq_h5u_attr_i32_array(out, "converted_from", p->from_version, 2, err);
}

/* A dataset copied whole, data and attributes, with the creation properties of the source but
 * no times (H5Ocopy stamps the copy with the time of the copy). */
static int copy_dataset(hid_t src, const char *name, hid_t dst, storq_error *err)
{
    hid_t d = H5Dopen2(src, name, H5P_DEFAULT);
    hid_t ft = d >= 0 ? H5Dget_type(d) : -1, space = d >= 0 ? H5Dget_space(d) : -1;
    hid_t mt = ft >= 0 ? H5Tget_native_type(ft, H5T_DIR_ASCEND) : -1;
    hid_t dcpl = d >= 0 ? H5Dget_create_plist(d) : -1;
    hssize_t n = space >= 0 ? H5Sget_simple_extent_npoints(space) : -1;
    size_t size = mt >= 0 ? H5Tget_size(mt) : 0;
    void *buf = n >= 0 && size ? calloc((size_t)n + 1, size) : NULL;
    hid_t out = -1;
    int ok = buf && dcpl >= 0 && H5Pset_obj_track_times(dcpl, 0) >= 0 &&
             (n == 0 || H5Dread(d, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0);
    if (ok)
        out = H5Dcreate2(dst, name, ft, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    ok = ok && out >= 0 && (n == 0 || H5Dwrite(out, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0);
    if (buf && mt >= 0 && H5Tdetect_class(mt, H5T_VLEN) + H5Tdetect_class(mt, H5T_STRING) > 0 &&
        (H5Tdetect_class(mt, H5T_VLEN) > 0 || H5Tis_variable_str(mt) > 0))
        H5Dvlen_reclaim(mt, space, H5P_DEFAULT, buf);
    free(buf);
    storq_h5u_close_type(&mt);
    storq_h5u_close_type(&ft);
    storq_h5u_close_space(&space);
    if (dcpl >= 0)
        H5Pclose(dcpl);
    int rc = ok ? STORQ_OK : storq_h5u_fail(err, dst, "cannot copy the dataset '%s'", name);
    if (!rc)
        rc = copy_attrs(src, name, out, NULL, err);
    if (out >= 0)
        H5Dclose(out);
    if (d >= 0)
        H5Dclose(d);
    return rc;
}

/* A group of the 1.x file (/run, /layouts) copied whole, in its order, without times. */
static int copy_tree(hid_t src, const char *name, hid_t dst, int depth, storq_error *err)
{
    H5O_info_t info;
    if (H5Oget_info_by_name(src, name, &info, H5P_DEFAULT) < 0)
        return storq_h5u_fail(err, src, "cannot open '%s'", name);
    if (info.type == H5O_TYPE_DATASET)
        return copy_dataset(src, name, dst, err);
    if (info.type != H5O_TYPE_GROUP || depth > 4)
        return storq_h5u_fail(err, src, "'%s' is neither a group nor a dataset", name);
    hid_t from = H5Gopen2(src, name, H5P_DEFAULT), to = -1;
    char **names = NULL;
    size_t n = 0;
    int rc = from < 0 ? storq_h5u_fail(err, src, "cannot open '%s'", name)
                      : storq_h5u_create_group(dst, name, &to, err);
    if (!rc)
        rc = copy_attrs(src, name, to, NULL, err);
    if (!rc)
        rc = storq_h5u_list_links(from, &names, &n, err);
    for (size_t i = 0; !rc && i < n; i++)
        rc = copy_tree(from, names[i], to, depth + 1, err);
    storq_h5u_free_names(names, n);
    storq_h5u_close_group(&to);
    storq_h5u_close_group(&from);
    return rc;
}

/* in's object path (its last part named to) copied under out. */
static int copy_object(hid_t in, const char *path, hid_t out, const char *to, storq_error *err)
{
    char dir[256];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash || strcmp(slash + 1, to) != 0)
        return storq_h5u_fail(err, out, "cannot copy '%s'", path);
    *slash = '\0';
    hid_t from = H5Gopen2(in, dir[0] ? dir : "/", H5P_DEFAULT);
    if (from < 0)
        return storq_h5u_fail(err, in, "cannot open '%s'", dir);
    int rc = copy_tree(from, to, out, 0, err);
    H5Gclose(from);
    return rc;
}

/* /point: the id of each row, the dimension scale "point". */
static int write_point_scale(const cv_plan *p, hid_t out, hid_t *scale, storq_error *err)
{
    cv_var v = {.cls = 'u', .elsize = 8, .chunk_rows = p->P < 1024 ? p->P : 1024};
    hsize_t n = p->P;
    hid_t space = H5Screate_simple(1, &n, NULL), dcpl = var_dcpl(p, &v);
    *scale = space >= 0 && dcpl >= 0 ? H5Dcreate2(out, "point", H5T_STD_U64LE, space,
                                                  H5P_DEFAULT, dcpl, H5P_DEFAULT) : -1;
    storq_h5u_close_space(&space);
    if (dcpl >= 0)
        H5Pclose(dcpl);
    if (*scale < 0 || (p->P && H5Dwrite(*scale, H5T_NATIVE_UINT64, H5S_ALL, H5S_ALL,
                                        H5P_DEFAULT, p->ids) < 0) ||
        H5DSset_scale(*scale, "point") < 0)
        return storq_h5u_fail(err, out, "cannot write /point");
    return STORQ_OK;
}

/* A dimension's coordinate from its sources, or none (state != 1). */
static int dim_coord(cv_plan *p, hid_t in, size_t di, storq_error *err)
{
    cv_dim *d = &p->d[di];
    if (d->replication)
        return STORQ_OK;
    for (size_t i = 0; i < p->nq; i++) {
        cv_qty *q = &p->q[i];
        if (q->dim[0] != di)
            continue;
        if ((q->kind == 'v' && q->has_axis) ||
            (q->kind == 'a' && !q->scalar && q->grid_source))
            storq_cv_coord_merge(&d->coord, &q->axis_coord);
        for (size_t k = 0; q->kind == 'h' && k < q->nlayouts; k++) {
            char path[600];
            double *edges = NULL;
            size_t n = 0;
            snprintf(path, sizeof path, STORQ_SCHEMA_LAYOUTS_PATH "/%s", q->layouts[k]);
            STORQ_TRY(storq_h5u_read_f64(in, path, &edges, &n, err));
            int rc = storq_cv_coord_add(&d->coord, edges, n);
            free(edges);
            if (rc)
                return oom(err);
        }
    }
    size_t want = (size_t)d->max + (d->hist ? 1 : 0);
    if (d->coord.state == 1 && d->coord.n != want)
        d->coord.state = -1;
    return STORQ_OK;
}

static int write_dim_scale(cv_plan *p, hid_t in, hid_t out, size_t di, hid_t *scale,
                           storq_error *err)
{
    STORQ_TRY(dim_coord(p, in, di, err));
    cv_dim *d = &p->d[di];
    hsize_t n = (hsize_t)d->max;
    int coord = d->coord.state == 1;
    hid_t space = H5Screate_simple(1, &n, NULL), dcpl = H5Pcreate(H5P_DATASET_CREATE);
    if (dcpl >= 0)
        H5Pset_obj_track_times(dcpl, 0);
    /* a histogram's bin edges (thousands of them, a few distinct mantissas) shrink tenfold */
    if (dcpl >= 0 && coord && n >= 256 && storq_h5u_deflate_available() &&
        (H5Pset_chunk(dcpl, 1, &n) < 0 || H5Pset_shuffle(dcpl) < 0 || H5Pset_deflate(dcpl, 4) < 0))
        H5Pclose(dcpl), dcpl = -1;
    *scale = space >= 0 && dcpl >= 0
                 ? H5Dcreate2(out, d->name, coord ? H5T_IEEE_F64LE : H5T_IEEE_F32LE, space,
                              H5P_DEFAULT, dcpl, H5P_DEFAULT) : -1;
    storq_h5u_close_space(&space);
    if (dcpl >= 0)
        H5Pclose(dcpl);
    char name[128];
    snprintf(name, sizeof name, NOT_A_VARIABLE "%10lld", (long long)d->max);
    int ok = *scale >= 0 &&
             (!coord || n == 0 ||
              H5Dwrite(*scale, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, d->coord.v) >=
                  0) &&
             H5DSset_scale(*scale, coord ? d->name : name) >= 0;
    if (!ok)
        return storq_h5u_fail(err, out, "cannot write the dimension scale '/%s'", d->name);
    if (coord && d->hist)
        STORQ_TRY(storq_h5u_attr_f64(*scale, "upper_edge", d->coord.v[d->max], err));
    return STORQ_OK;
}

/* /points/index's rows, the run's points (a task's file holds fewer): the netCDF dimension
 * "run_point", without a variable, so that netCDF readers name its dimension too. */
static int index_scale(const cv_plan *p, hid_t out, storq_error *err)
{
    hsize_t n = p->nindex;
    hid_t space = H5Screate_simple(1, &n, NULL), dcpl = H5Pcreate(H5P_DATASET_CREATE);
    if (dcpl >= 0)
        H5Pset_obj_track_times(dcpl, 0);
    hid_t sc = space >= 0 && dcpl >= 0 ? H5Dcreate2(out, "run_point", H5T_IEEE_F32LE, space,
                                                    H5P_DEFAULT, dcpl, H5P_DEFAULT) : -1;
    hid_t index = H5Dopen2(out, STORQ_SCHEMA_INDEX_PATH, H5P_DEFAULT);
    char name[128];
    snprintf(name, sizeof name, NOT_A_VARIABLE "%10zu", p->nindex);
    int ok = sc >= 0 && index >= 0 && H5DSset_scale(sc, name) >= 0 &&
             H5DSattach_scale(index, sc, 0) >= 0;
    storq_h5u_close_space(&space);
    if (dcpl >= 0)
        H5Pclose(dcpl);
    storq_h5u_close_dataset(&sc);
    storq_h5u_close_dataset(&index);
    return ok ? STORQ_OK : storq_h5u_fail(err, out, "cannot write the dimension scale "
                                          "'/run_point'");
}

/* Every dataset's dimensions named by their scales. */
static int attach_scales(cv_plan *p, hid_t in, hid_t out, hid_t point, storq_error *err)
{
    hid_t *scales = calloc(p->nd + 1, sizeof *scales);
    if (!scales)
        return oom(err);
    int rc = STORQ_OK;
    for (size_t i = 0; i < p->nd; i++)
        scales[i] = -1;
    for (size_t i = 0; !rc && i < p->nd; i++)
        rc = write_dim_scale(p, in, out, i, &scales[i], err);
    for (size_t i = 0; !rc && i < p->nv; i++) {
        const cv_var *v = &p->v[i];
        if (H5DSattach_scale(v->ds, point, 0) < 0)
            rc = storq_h5u_fail(err, v->ds, "cannot attach the dimension scale 'point'");
        for (int k = 0; !rc && k < v->rank; k++)
            if (H5DSattach_scale(v->ds, scales[v->dim[k]], (unsigned)k + 1) < 0)
                rc = storq_h5u_fail(err, v->ds, "cannot attach the dimension scale '%s'",
                                    p->d[v->dim[k]].name);
    }
    for (size_t i = 0; i < p->nd; i++)
        if (scales[i] >= 0)
            H5Dclose(scales[i]);
    free(scales);
    return rc;
}

/* The groups that exist even when empty, with their checksums. */
static int top_groups(hid_t out, storq_error *err)
{
    for (int g = 0; g < CV_NGROUPS; g++) {
        hid_t grp;
        STORQ_TRY(storq_h5u_create_group(out, storq_cv_group_names[g], &grp, err));
        int rc = stamp(grp, err);
        H5Gclose(grp);
        STORQ_TRY(rc);
    }
    return STORQ_OK;
}

int storq_cv_write(cv_plan *p, hid_t in, hid_t out, storq_error *err)
{
    STORQ_TRY(write_root(p, in, out, err));
    STORQ_TRY(copy_object(in, "/" STORQ_SCHEMA_RUN, out, STORQ_SCHEMA_RUN, err));
    if (storq_h5u_has_link(in, STORQ_SCHEMA_LAYOUTS_PATH))
        STORQ_TRY(copy_object(in, STORQ_SCHEMA_LAYOUTS_PATH, out, STORQ_SCHEMA_LAYOUTS, err));
    hid_t points, point = -1;
    STORQ_TRY(storq_h5u_create_group(out, STORQ_SCHEMA_POINTS, &points, err));
    int rc = copy_object(in, STORQ_SCHEMA_INDEX_PATH, points, STORQ_SCHEMA_INDEX, err);
    if (!rc) {
        hid_t index = H5Dopen2(points, STORQ_SCHEMA_INDEX, H5P_DEFAULT);
        rc = index >= 0 ? stamp(index, err) : storq_h5u_fail(err, points, "cannot open index");
        if (index >= 0)
            H5Dclose(index);
    }
    if (!rc)
        rc = stamp(points, err);
    H5Gclose(points);
    if (!rc)
        rc = write_point_scale(p, out, &point, err);
    if (!rc)
        rc = top_groups(out, err);
    for (size_t i = 0; !rc && i < p->nv; i++)
        rc = create_var(p, in, out, &p->v[i], err);
    if (!rc)
        rc = storq_cv_copy(p, err);
    if (!rc)
        rc = attach_scales(p, in, out, point, err);
    if (!rc)
        rc = index_scale(p, out, err);
    if (point >= 0)
        H5Dclose(point);
    return rc;
}
