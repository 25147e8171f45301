/* The checks readers make before trusting a results file: see h5_check.h and
 * docs/hdf5-schema.md ("What readers check"). Order: links first (nothing outside the file is
 * ever opened), then the run (root attributes, /run), /points/index, every complete point, every
 * complete checkpoint. Every dataset is sized before anything is allocated for it: a dataset
 * storq wrote holds its data, so one that claims more bytes than the whole file is damaged or
 * crafted (HDF5 would read it as fill values, and a reader would allocate what it claims). */
#include "h5_check.h"
#include "h5_check_internal.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "h5_checksum.h"
#include "h5_util.h"
#include "schema.h"
#include "utf8.h"

/* ---- the run: root attributes, /run ---- */

static int check_run(checker *c)
{
    int present;
    STORQ_TRY(chk_expect_attr(c, c->file, STORQ_SCHEMA_ATTR_MODEL, 's', 1, &present));
    STORQ_TRY(chk_expect_attr(c, c->file, STORQ_SCHEMA_ATTR_SEED, 'i', 1, &present));
    STORQ_TRY(chk_expect_attr(c, c->file, STORQ_SCHEMA_ATTR_REPLICATIONS, 'i', 1, &present));
    STORQ_TRY(chk_expect_attr(c, c->file, STORQ_SCHEMA_ATTR_TASK_INDEX, 'i', 0, &present));
    STORQ_TRY(chk_expect_attr(c, c->file, STORQ_SCHEMA_ATTR_TASK_COUNT, 'i', 0, &present));
    if (storq_h5u_read_attr_string(c->file, STORQ_SCHEMA_ATTR_MODEL, &c->model, c->err) ||
        storq_h5u_read_attr_u64(c->file, STORQ_SCHEMA_ATTR_REPLICATIONS, &c->replications,
                                c->err)) {
        c->err->code = 0;
        return chk_bad(c, "/", "its attributes model and replications cannot be read");
    }
    if (c->replications == 0)
        return chk_bad(c, "/", "attribute replications is 0");
    shape s;
    STORQ_TRY(chk_expect_dataset(c, c->file, STORQ_SCHEMA_CONFIG_PATH, 's', 0, &s));
    /* The run's record of its units: read by storq info, copied by storq merge (not by a
     * salvage, where a damaged record is only noted). */
    const char *const records[] = {STORQ_SCHEMA_UNITS_PATH, STORQ_SCHEMA_SESSIONS_PATH,
                                   STORQ_SCHEMA_RANKS_PATH};
    for (size_t i = 0; i < sizeof records / sizeof records[0]; i++) {
        if (!storq_h5u_has_link(c->file, records[i]))
            continue;
        int rc = chk_expect_dataset(c, c->file, records[i], 'c', 1, &s);
        if (rc && !c->salvage)
            return rc;
        if (rc) {
            memset(c->err, 0, sizeof *c->err);
            c->run_damaged = 1;
        }
    }
    return STORQ_OK;
}

/* ---- /points/index ---- */

static void free_columns(checker *c)
{
    for (int m = 0; c->cols && m < c->ncols; m++) {
        H5free_memory(c->cols[m].name);
        free(c->cols[m].data);
    }
    free(c->cols);
    c->cols = NULL;
}

/* Column m of the index into c->cols[m]: HDF5 matches compound members by name, so a
 * one-member type reads one column. */
static int read_column(checker *c, hid_t d, hid_t ftype, int m)
{
    column *col = &c->cols[m];
    col->name = H5Tget_member_name(ftype, (unsigned)m);
    hid_t mft = H5Tget_member_type(ftype, (unsigned)m);
    col->cls = mft >= 0 ? chk_type_class(mft) : '?';
    int is_vlen = col->cls == 's' && H5Tis_variable_str(mft) > 0;
    col->size = col->cls == 's' ? H5Tget_size(mft) : 8;
    storq_h5u_close_type(&mft);
    if (!col->name || is_vlen ||
        (col->cls != 'i' && col->cls != 'u' && col->cls != 'f' && col->cls != 's'))
        return chk_bad(c, STORQ_SCHEMA_INDEX_PATH,
                       "column %d ('%s') is %s; the schema says integer, "
                       "float64 or a fixed-length string",
                       m, col->name ? col->name : "?",
                       is_vlen ? "a variable-length string" : chk_class_text(col->cls));
    hid_t elem = col->cls == 'f'   ? H5Tcopy(H5T_NATIVE_DOUBLE)
                 : col->cls == 'i' ? H5Tcopy(H5T_NATIVE_INT64)
                 : col->cls == 'u' ? H5Tcopy(H5T_NATIVE_UINT64)
                                   : H5Tcopy(H5T_C_S1);
    if (col->cls == 's')
        H5Tset_size(elem, col->size);
    hid_t t = H5Tcreate(H5T_COMPOUND, col->size);
    col->data = calloc(c->nrows + 1, col->size);
    int ok = t >= 0 && elem >= 0 && col->data && H5Tinsert(t, col->name, 0, elem) >= 0 &&
             (c->nrows == 0 || H5Dread(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, col->data) >= 0);
    storq_h5u_close_type(&t);
    storq_h5u_close_type(&elem);
    if (!ok)
        return chk_bad(c, STORQ_SCHEMA_INDEX_PATH,
                       "column '%s' cannot be read: the file is damaged", col->name);
    return STORQ_OK;
}

static int check_index(checker *c, uint32_t *crc)
{
    shape s;
    STORQ_TRY(chk_expect_dataset(c, c->file, STORQ_SCHEMA_INDEX_PATH, 'c', 1, &s));
    c->nrows = (size_t)s.dims[0];
    hid_t d = H5Dopen2(c->file, STORQ_SCHEMA_INDEX_PATH, H5P_DEFAULT);
    hid_t ftype = d >= 0 ? H5Dget_type(d) : -1;
    c->ncols = ftype >= 0 ? H5Tget_nmembers(ftype) : -1;
    int rc = c->ncols >= 1 ? STORQ_OK : chk_bad(c, STORQ_SCHEMA_INDEX_PATH, "has no columns");
    if (!rc) {
        c->cols = calloc((size_t)c->ncols, sizeof *c->cols);
        if (!c->cols)
            rc = STORQ_RUNTIME_FAIL(c->err, "out of memory");
    }
    for (int m = 0; !rc && m < c->ncols; m++)
        rc = read_column(c, d, ftype, m);
    storq_h5u_close_type(&ftype);
    storq_h5u_close_dataset(&d);
    STORQ_TRY(rc);
    const column *ids = &c->cols[0];
    if (strcmp(ids->name, STORQ_SCHEMA_INDEX_POINT) != 0 || ids->cls != 'u')
        return chk_bad(c, STORQ_SCHEMA_INDEX_PATH,
                       "its first column is '%s', not the point ids "
                       "('" STORQ_SCHEMA_INDEX_POINT "', uint64)",
                       ids->name);
    for (size_t r = 0; r < c->nrows; r++) {
        uint64_t id;
        memcpy(&id, ids->data + r * 8, 8);
        if (id != r)
            return chk_bad(c, STORQ_SCHEMA_INDEX_PATH, "row %zu has point id %" PRIu64 ", not %zu",
                           r, id, r);
    }
    *crc = 0;
    for (int m = 0; m < c->ncols; m++) {
        *crc = storq_crc32(*crc, c->cols[m].name, strlen(c->cols[m].name) + 1);
        *crc = storq_crc32(*crc, &c->cols[m].cls, 1);
        *crc = storq_crc32(*crc, c->cols[m].data, c->nrows * c->cols[m].size);
    }
    return STORQ_OK;
}

/* --resume: the index holds exactly the points of the run being resumed. */
static int check_expected(checker *c, const storq_h5_expect *e)
{
    size_t nparams = storq_param_count(e->model->params);
    if (c->nrows != e->npoints)
        return chk_bad(c, STORQ_SCHEMA_INDEX_PATH, "has %zu points; the run being resumed has %zu",
                       c->nrows, e->npoints);
    if ((size_t)c->ncols != nparams + 1)
        return chk_bad(c, STORQ_SCHEMA_INDEX_PATH,
                       "has %d parameter columns; model %s has %zu "
                       "parameters",
                       c->ncols - 1, e->model->name, nparams);
    for (size_t i = 0; i < nparams; i++) {
        const storq_param_def *def = &e->model->params[i];
        const column *col = &c->cols[i + 1];
        char want = def->type == STORQ_PARAM_INT ? 'i' : def->type == STORQ_PARAM_REAL ? 'f' : 's';
        if (strcmp(col->name, def->name) != 0 || col->cls != want)
            return chk_bad(c, STORQ_SCHEMA_INDEX_PATH,
                           "column %zu is '%s' (%s); model %s's "
                           "parameter %zu is '%s' (%s)",
                           i + 1, col->name, chk_class_text(col->cls), e->model->name, i + 1,
                           def->name, chk_class_text(want));
        for (size_t p = 0; p < e->npoints; p++) {
            const unsigned char *v = col->data + p * col->size;
            const storq_param_value *x = &e->points[p].v[i];
            char there[80], here[80];
            int same;
            if (want == 'i') {
                int64_t a;
                memcpy(&a, v, 8);
                same = a == x->i;
                snprintf(there, sizeof there, "%" PRId64, a);
                snprintf(here, sizeof here, "%" PRId64, x->i);
            } else if (want == 'f') {
                double a;
                memcpy(&a, v, 8);
                same = memcmp(&a, &x->r, 8) == 0;
                snprintf(there, sizeof there, "%.17g", a);
                snprintf(here, sizeof here, "%.17g", x->r);
            } else {
                char *owned = NULL; /* stored escaped when not UTF-8 (utf8.h) */
                const char *s = x->s ? storq_utf8_text(x->s, &owned) : "";
                size_t len = strnlen((const char *)v, col->size);
                same = s && len == strlen(s) && memcmp(v, s, len) == 0;
                s = s ? s : "";
                snprintf(there, sizeof there, "'%.*s'", (int)(len < 60 ? len : 60),
                         (const char *)v);
                snprintf(here, sizeof here, "'%.60s'", s);
                free(owned);
            }
            if (!same)
                return chk_bad(c, STORQ_SCHEMA_INDEX_PATH,
                               "point %zu has %s = %s; in the run being "
                               "resumed it is %s",
                               p, def->name, there, here);
        }
    }
    return STORQ_OK;
}

/* ---- one complete point ---- */

/* The point's attribute for index column col equals row id's value. */
static int check_param(checker *c, hid_t g, const char *where, const column *col, size_t id)
{
    int present;
    char want = col->cls == 'u' ? 'i' : col->cls;
    STORQ_TRY(chk_expect_attr(c, g, col->name, want, 1, &present));
    const unsigned char *v = col->data + id * col->size;
    char there[80] = "?", here[80] = "?";
    int same = 0;
    storq_error ignore = {0};
    if (col->cls == 's') {
        char *s = NULL;
        size_t len = strnlen((const char *)v, col->size);
        if (!storq_h5u_read_attr_string(g, col->name, &s, &ignore)) {
            same = strlen(s) == len && memcmp(s, v, len) == 0;
            snprintf(here, sizeof here, "'%.60s'", s);
        }
        snprintf(there, sizeof there, "'%.*s'", (int)(len < 60 ? len : 60), (const char *)v);
        free(s);
    } else if (col->cls == 'f') {
        double a, x;
        memcpy(&x, v, 8);
        if (!storq_h5u_read_attr_f64(g, col->name, &a, &ignore))
            same = memcmp(&a, &x, 8) == 0;
        snprintf(here, sizeof here, "%.17g", a);
        snprintf(there, sizeof there, "%.17g", x);
    } else {
        /* int64 and uint64 columns: the attribute has the column's sign */
        hid_t attr = H5Aopen(g, col->name, H5P_DEFAULT);
        uint64_t a = 0, x;
        memcpy(&x, v, 8);
        if (attr >= 0 &&
            H5Aread(attr, col->cls == 'i' ? H5T_NATIVE_INT64 : H5T_NATIVE_UINT64, &a) >= 0)
            same = a == x;
        if (attr >= 0)
            H5Aclose(attr);
        H5Eclear2(H5E_DEFAULT);
        snprintf(here, sizeof here, col->cls == 'i' ? "%" PRId64 : "%" PRIu64, a);
        snprintf(there, sizeof there, col->cls == 'i' ? "%" PRId64 : "%" PRIu64, x);
    }
    if (!same)
        return chk_bad(c, where, "has %s = %s, but row %zu of " STORQ_SCHEMA_INDEX_PATH " says %s",
                       col->name, here, id, there);
    return STORQ_OK;
}

static int check_point_attrs(checker *c, hid_t g, const char *where, size_t id, uint64_t *reps)
{
    int present;
    STORQ_TRY(chk_expect_attr(c, g, STORQ_SCHEMA_ATTR_MODEL, 's', 1, &present));
    STORQ_TRY(chk_expect_attr(c, g, STORQ_SCHEMA_ATTR_REPLICATIONS, 'i', 1, &present));
    STORQ_TRY(chk_expect_attr(c, g, STORQ_SCHEMA_ATTR_EVENTS, 'i', 1, &present));
    STORQ_TRY(chk_expect_attr(c, g, STORQ_SCHEMA_ATTR_WALL_SECONDS, 'f', 1, &present));
    char *model = NULL;
    storq_error ignore = {0};
    int rc = storq_h5u_read_attr_string(g, STORQ_SCHEMA_ATTR_MODEL, &model, &ignore) ||
                     storq_h5u_read_attr_u64(g, STORQ_SCHEMA_ATTR_REPLICATIONS, reps, &ignore)
                 ? chk_bad(c, where, "its attributes model and replications cannot be read")
                 : STORQ_OK;
    if (!rc && strcmp(model, c->model) != 0)
        rc = chk_bad(c, where, "has model '%.60s', but the run (the root attribute model) is '%s'",
                     model, c->model);
    free(model);
    STORQ_TRY(rc);
    /* With a precision target a point takes batches of the run's replications, up to its
     * max_replications; without one, exactly the run's. */
    int precision;
    STORQ_TRY(chk_expect_attr(c, g, STORQ_SCHEMA_ATTR_PRECISION_TARGET, 'f', 0, &precision));
    if (precision) {
        uint64_t max = 0;
        STORQ_TRY(chk_expect_attr(c, g, STORQ_SCHEMA_ATTR_MAX_REPLICATIONS, 'i', 1, &present));
        if (storq_h5u_read_attr_u64(g, STORQ_SCHEMA_ATTR_MAX_REPLICATIONS, &max, &ignore) ||
            *reps == 0 || *reps > max)
            return chk_bad(c, where,
                           "holds %" PRIu64 " replications, not 1 to its "
                           "max_replications (%" PRIu64 ")",
                           *reps, max);
    } else if (*reps != c->replications) {
        return chk_bad(c, where,
                       "holds %" PRIu64 " replications, but the run (the root attribute "
                       "replications) has %" PRIu64,
                       *reps, c->replications);
    }
    for (int m = 1; m < c->ncols; m++)
        STORQ_TRY(check_param(c, g, where, &c->cols[m], id));
    return STORQ_OK;
}

/* One observable group and its row of replications/. */
static int check_observable(checker *c, hid_t obs, hid_t reps_group, const char *name,
                            uint64_t reps)
{
    hid_t g = H5Gopen2(obs, name, H5P_DEFAULT);
    char where[600];
    if (g < 0) {
        chk_object_name(obs, where, sizeof where);
        return chk_bad(c, where, "its member '%s' is not a group", name);
    }
    chk_object_name(g, where, sizeof where);
    char *kind = NULL;
    storq_error ignore = {0};
    int present;
    int rc = chk_expect_attr(c, g, "kind", 's', 1, &present);
    if (!rc && storq_h5u_read_attr_string(g, "kind", &kind, &ignore))
        rc = chk_bad(c, where, "its attribute kind cannot be read");
    shape value = {.cls = 'f', .rank = 0}, s, m;
    int known = 1;
    if (rc) {
        /* reported */
    } else if (strcmp(kind, "scalar") == 0) {
        static const char *const stats[] = {"mean", "stderr", "ci95"};
        for (size_t i = 0; !rc && i < 3; i++)
            rc = chk_expect_dataset(c, g, stats[i], 'f', 0, &s);
    } else if (strcmp(kind, "vector") == 0) {
        rc = chk_expect_dataset(c, g, "mean", 'f', -1, &value);
        if (!rc && value.rank != 1 && value.rank != 2)
            rc = chk_bad(c, where, "its mean has %d dimensions; a vector has 1 or 2", value.rank);
        static const char *const stats[] = {"stderr", "ci95"};
        for (size_t i = 0; !rc && i < 2; i++) {
            rc = chk_expect_dataset(c, g, stats[i], 'f', value.rank, &s);
            if (!rc && !chk_same_dims(&s, &value))
                rc = chk_bad(c, where, "its %s and mean differ in shape", stats[i]);
        }
        if (!rc && storq_h5u_has_link(g, "axis")) {
            rc = chk_expect_dataset(c, g, "axis", 'f', 1, &s);
            if (!rc && s.dims[0] != value.dims[0])
                rc = chk_bad(c, where, "its axis has %llu values for %llu rows",
                             (unsigned long long)s.dims[0], (unsigned long long)value.dims[0]);
        }
    } else if (strcmp(kind, "histogram") == 0) {
        rc = chk_expect_dataset(c, g, "counts", 'i', 1, &m);
        if (!rc)
            rc = chk_expect_dataset(c, g, "bin_edges", 'f', 1, &s);
        if (!rc && s.dims[0] != m.dims[0] + 1)
            rc = chk_bad(c, where, "its bin_edges has %llu values for %llu bins",
                         (unsigned long long)s.dims[0], (unsigned long long)m.dims[0]);
        static const char *const ints[] = {"underflow", "overflow", "count"};
        static const char *const reals[] = {"sum", "min", "max", "mean"};
        for (size_t i = 0; !rc && i < 3; i++)
            rc = chk_expect_dataset(c, g, ints[i], 'i', 0, &s);
        for (size_t i = 0; !rc && i < 4; i++)
            rc = chk_expect_dataset(c, g, reals[i], 'f', 0, &s);
    } else {
        known = 0; /* a later minor version's kind: its datasets had the generic checks */
    }
    free(kind);
    H5Gclose(g);
    STORQ_TRY(rc);
    if (!known)
        return STORQ_OK;
    /* replications/<name>: one row per replication, each row the value's shape (a histogram's
     * row is its sum: one value). */
    STORQ_TRY(chk_expect_dataset(c, reps_group, name, 'f', value.rank + 1, &s));
    int fits = s.dims[0] == reps;
    for (int i = 0; i < value.rank; i++)
        fits = fits && s.dims[i + 1] == value.dims[i];
    if (!fits) {
        char sh[200], rw[600];
        chk_shape_text(&s, sh, sizeof sh);
        chk_object_name(reps_group, rw, sizeof rw);
        snprintf(rw + strlen(rw), sizeof rw - strlen(rw), "/%s", name);
        return chk_bad(c, rw, "has shape %s; the point holds %" PRIu64 " replications of %s", sh,
                       reps, where);
    }
    return STORQ_OK;
}

/* Every member of theory/ or comparison/: a 1-D float64 array. */
static int check_arrays(checker *c, hid_t g)
{
    char **names = NULL;
    size_t n = 0;
    if (storq_h5u_list_links(g, &names, &n, c->err)) {
        c->err->code = 0;
        char where[512];
        chk_object_name(g, where, sizeof where);
        return chk_bad(c, where, "its members cannot be listed");
    }
    int rc = STORQ_OK;
    shape s;
    for (size_t i = 0; !rc && i < n; i++)
        rc = chk_expect_dataset(c, g, names[i], 'f', 1, &s);
    storq_h5u_free_names(names, n);
    return rc;
}

static int open_member_group(checker *c, hid_t g, const char *where, const char *name, hid_t *out)
{
    H5O_info_t info;
    *out = -1;
    if (!storq_h5u_has_link(g, name) || H5Oget_info_by_name(g, name, &info, H5P_DEFAULT) < 0 ||
        info.type != H5O_TYPE_GROUP || (*out = H5Gopen2(g, name, H5P_DEFAULT)) < 0)
        return chk_bad(c, where, "lacks the group '%s'", name);
    return STORQ_OK;
}

static int check_point(checker *c, hid_t g, size_t id, size_t *checksummed)
{
    char where[STORQ_SCHEMA_POINT_PATH_MAX];
    storq_schema_point_path(id, where, sizeof where);
    STORQ_TRY(chk_tree(c, g, 0));
    uint64_t reps;
    STORQ_TRY(check_point_attrs(c, g, where, id, &reps));
    hid_t obs = -1, rg = -1, th = -1, cmp = -1;
    int rc = open_member_group(c, g, where, STORQ_SCHEMA_OBSERVABLES, &obs);
    if (!rc)
        rc = open_member_group(c, g, where, STORQ_SCHEMA_REPLICATIONS, &rg);
    if (!rc)
        rc = open_member_group(c, g, where, STORQ_SCHEMA_THEORY, &th);
    if (!rc)
        rc = open_member_group(c, g, where, STORQ_SCHEMA_COMPARISON, &cmp);
    char **names = NULL;
    size_t n = 0;
    if (!rc && storq_h5u_list_links(obs, &names, &n, c->err)) {
        c->err->code = 0;
        rc = chk_bad(c, where, "its observables cannot be listed");
    }
    for (size_t i = 0; !rc && i < n; i++)
        rc = check_observable(c, obs, rg, names[i], reps);
    storq_h5u_free_names(names, n);
    if (!rc)
        rc = check_arrays(c, th);
    if (!rc)
        rc = check_arrays(c, cmp);
    storq_h5u_close_group(&obs);
    storq_h5u_close_group(&rg);
    storq_h5u_close_group(&th);
    storq_h5u_close_group(&cmp);
    STORQ_TRY(rc);
    int checked;
    STORQ_TRY(storq_h5_checksum_verify(g, c->label, c->path, &checked, c->err));
    *checksummed += (size_t)checked;
    return STORQ_OK;
}

/* Every complete point group (and nothing else numbered) in /points; complete checkpoints get
 * the generic checks (--resume checks their shapes against the run's observables). */
static int check_groups(checker *c, const char *parent, int points, size_t *checksummed,
                        size_t *unreadable)
{
    hid_t top = H5Gopen2(c->file, parent, H5P_DEFAULT);
    if (top < 0)
        return chk_bad(c, parent, "is missing or not a group");
    char **names = NULL;
    size_t n = 0;
    int rc = STORQ_OK;
    if (storq_h5u_list_links(top, &names, &n, c->err)) {
        c->err->code = 0;
        rc = chk_bad(c, parent, "its members cannot be listed: the file is damaged");
    }
    for (size_t i = 0; !rc && i < n; i++) {
        size_t id;
        char where[600];
        snprintf(where, sizeof where, "%s/%s", parent, names[i]);
        if (!storq_schema_point_id(names[i], &id))
            continue; /* the index, a checkpoint's temporary, a later version's addition */
        /* interrupted (perhaps damaged by the write cut short): no reader uses it. One HDF5
         * cannot open (a damaged object header) is not complete either: merge counts it
         * missing, --resume salvages the complete points (partial_file.c), info marks it
         * unreadable and fails (out->unreadable) */
        int complete = storq_schema_point_complete(top, names[i]);
        if (complete < 0 && !points) {
            rc = chk_bad(c, where, "cannot be read: its HDF5 object header is damaged");
            break;
        }
        *unreadable += complete < 0;
        if (complete != 1)
            continue;
        H5O_info_t info;
        if (H5Oget_info_by_name(top, names[i], &info, H5P_DEFAULT) < 0 ||
            info.type != H5O_TYPE_GROUP) {
            rc = chk_bad(c, where, "is not a group");
            break;
        }
        if (id >= c->nrows) {
            rc =
                chk_bad(c, where, "is not a point of the run (" STORQ_SCHEMA_INDEX_PATH " has %zu)",
                        c->nrows);
            break;
        }
        hid_t g = H5Gopen2(top, names[i], H5P_DEFAULT);
        if (g < 0)
            rc = chk_bad(c, where, "cannot be opened");
        else
            rc = points ? check_point(c, g, id, checksummed) : chk_tree(c, g, 0);
        storq_h5u_close_group(&g);
    }
    storq_h5u_free_names(names, n);
    H5Gclose(top);
    return rc;
}

/* Schema 2.0: every dataset sized within the file before anything reads it, then the rows. */
static int check_columnar_tree(checker *c, const storq_h5_rows_reader *reader,
                               size_t *checksummed)
{
    const char *groups[] = {"/points", "/observables", "/replications", "/theory", "/comparison"};
    for (size_t i = 0; i < sizeof groups / sizeof *groups; i++) {
        if (!storq_h5u_has_link(c->file, groups[i]))
            continue;
        hid_t g = H5Gopen2(c->file, groups[i], H5P_DEFAULT);
        int rc = g >= 0 ? chk_tree(c, g, 0) : chk_bad(c, groups[i], "is not a group");
        storq_h5u_close_group(&g);
        STORQ_TRY(rc);
    }
    STORQ_TRY(chk_columnar(c, reader));
    hid_t d = H5Dopen2(c->file, "/point", H5P_DEFAULT);
    hid_t space = d >= 0 ? H5Dget_space(d) : -1;
    hssize_t n = space >= 0 ? H5Sget_simple_extent_npoints(space) : 0;
    storq_h5u_close_space(&space);
    storq_h5u_close_dataset(&d);
    *checksummed = n > 0 ? (size_t)n : 0;
    return STORQ_OK;
}

static int file_size(checker *c)
{
    if (H5Fget_filesize(c->file, &c->size) >= 0)
        return STORQ_OK;
    H5Eclear2(H5E_DEFAULT);
    return storq_h5u_fail(c->err, c->file, "cannot tell the file's size");
}

int storq_h5_check_points_of(hid_t file, const char *path, const char *label,
                             const storq_h5_expect *expect, storq_error *err)
{
    checker c = {.file = file, .path = path, .label = label, .err = err};
    uint32_t crc;
    int rc = file_size(&c);
    if (!rc)
        rc = check_index(&c, &crc);
    if (!rc)
        rc = check_expected(&c, expect);
    free_columns(&c);
    return rc;
}

int storq_h5_check_file_here(hid_t file, const char *path, const char *label, storq_h5_checked *out,
                             storq_error *err)
{
    return storq_h5_check_file_mode_here(file, path, label, 0, NULL, out, err);
}

int storq_h5_check_file_mode_here(hid_t file, const char *path, const char *label, int salvage,
                                  const storq_h5_rows_reader *reader, storq_h5_checked *out,
                                  storq_error *err)
{
    checker c = {.file = file, .path = path, .label = label, .err = err, .salvage = salvage};
    storq_h5_checked found = {0};
    int rc = file_size(&c);
    if (!rc)
        rc = chk_links(&c);
    if (!rc)
        rc = check_run(&c);
    if (!rc)
        rc = check_index(&c, &found.index_crc);
    found.npoints = c.nrows;
    found.run_records_damaged = c.run_damaged;
    int columnar = storq_schema_major(file) == STORQ_SCHEMA_MAJOR_COLUMNAR;
    if (!rc && columnar)
        rc = check_columnar_tree(&c, reader, &found.checksummed);
    else if (!rc)
        rc = check_groups(&c, "/" STORQ_SCHEMA_POINTS, 1, &found.checksummed, &found.unreadable);
    if (!rc && storq_h5u_has_link(file, "/" STORQ_SCHEMA_CHECKPOINTS))
        rc = check_groups(&c, "/" STORQ_SCHEMA_CHECKPOINTS, 0, &found.checksummed,
                          &found.unreadable);
    if (!rc && storq_h5u_has_link(file, STORQ_SCHEMA_LAYOUTS_PATH))
        rc = chk_layouts(&c);
    free(c.model);
    free_columns(&c);
    H5Eclear2(H5E_DEFAULT);
    if (!rc && out)
        *out = found;
    return rc;
}

int storq_h5_open_checked(const char *path, const char *hint, hid_t *file, storq_h5_checked *out,
                          storq_error *err)
{
    STORQ_TRY(storq_schema_open(path, NULL, STORQ_SCHEMA_READ_COLUMNAR, hint, file, NULL, err));
    int rc = storq_h5_check_file(*file, path, NULL, out, err);
    if (rc) {
        H5Fclose(*file);
        *file = -1;
    }
    return rc;
}
