/* `storq convert`: which inputs it takes, and the output written as OUT.partial then renamed
 * (see h5_convert.h). The plan (h5_convert_plan.c, h5_convert_dims.c) and the writing
 * (h5_convert_write.c, h5_convert_copy.c) share h5_convert_internal.h. */
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "file_kind.h"
#include "h5_check.h"
#include "h5_convert.h"
#include "h5_convert_internal.h"
#include "h5_run.h"
#include "h5_util.h"
#include "partial_file.h"
#include "schema.h"

/* A 2.0 file is made in the HDF5 1.10 file format (readable by HDF5 1.10 and newer, 2018 on):
 * its chunk indexes (one chunk: none; a fixed number: an array) cost nothing like 1.8's B-trees
 * (about 2.6 KB a dataset at HDF5's default istore_k, which also cannot index a dataset's 258th
 * chunk at 1.x's istore_k of 1: docs/hdf5-schema.md, Storage). Its superblock records no time, so
 * two conversions of one file are the same bytes. */

static int ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), m = strlen(tail);
    return n >= m && strcmp(s + n - m, tail) == 0;
}

/* Before the whole check: what the file is, by its root alone (a 2.0 file, a partial). */
static int first_look(const char *path, int32_t version[2], storq_error *err)
{
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0) {
        H5Eclear2(H5E_DEFAULT);
        return STORQ_OK; /* storq_schema_open says why */
    }
    size_t n = 0;
    storq_error ignore = {0};
    char *format = NULL;
    int storq = storq_h5u_has_attr(f, STORQ_SCHEMA_ATTR_FORMAT) &&
                storq_h5u_read_attr_string(f, STORQ_SCHEMA_ATTR_FORMAT, &format, &ignore) == 0 &&
                strcmp(format, "storq") == 0;
    free(format);
    int rc = STORQ_OK;
    if (storq && storq_h5u_read_attr_i32_array(f, STORQ_SCHEMA_ATTR_VERSION, version, 2, &n,
                                               &ignore) == 0 && n == 2 && version[0] == 2)
        rc = storq_fail(err, STORQ_ERR_USAGE, "convert: %s is already a schema 2.0 file "
                        "(format_version [2, %d]): nothing to convert", path, (int)version[1]);
    else if (storq && storq_h5u_has_link(f, "/" STORQ_SCHEMA_CHECKPOINTS))
        rc = storq_fail(err, STORQ_ERR_USAGE, "convert: %s holds checkpoints (/%s): it is the "
                        "partial file of an unfinished run; complete it with `storq run ... "
                        "--resume`, then convert the finished file", path,
                        STORQ_SCHEMA_CHECKPOINTS);
    H5Fclose(f);
    return rc;
}

/* The rows: every point the file should hold, each complete. */
static int find_points(cv_plan *p, hid_t in, storq_error *err)
{
    storq_h5_run run = {0};
    STORQ_TRY(storq_h5_run_read(in, &run, err));
    size_t n = run.npoints, ti = run.task_index, tc = run.task_count;
    storq_h5_run_free(&run);
    unsigned char *state = malloc(n + 1);
    p->ids = malloc((n + 1) * sizeof *p->ids);
    if (!state || !p->ids) {
        free(state);
        return STORQ_RUNTIME_FAIL(err, "convert: out of memory");
    }
    int rc = storq_h5_run_scan_points(in, n, state, 0, err);
    size_t missing = 0, first_missing = 0;
    for (size_t id = 0; !rc && id < n; id++) {
        if (state[id] == 2)
            rc = storq_fail(err, STORQ_ERR_USAGE, "convert: %s: point %zu is an interrupted "
                            "write (no status \"complete\"): the file is unfinished; complete "
                            "it with `storq run ... --resume` first", p->in_path, id);
        else if (state[id] == 1)
            p->ids[p->P++] = id;
        else if (tc < 2 || id % tc == ti)
            first_missing = missing++ ? first_missing : id;
    }
    free(state);
    STORQ_TRY(rc);
    if (missing)
        return storq_fail(err, STORQ_ERR_USAGE, "convert: %s holds %zu of the %zu points it "
                          "should (point %zu is missing): an unfinished run or merge; complete "
                          "it first", p->in_path, p->P, p->P + missing, first_missing);
    p->nindex = n;
    return STORQ_OK;
}

/* /points/index whole, in memory: the parameters' values of each point. */
static int read_index(cv_plan *p, hid_t in, storq_error *err)
{
    hid_t d = H5Dopen2(in, STORQ_SCHEMA_INDEX_PATH, H5P_DEFAULT);
    hid_t ft = d >= 0 ? H5Dget_type(d) : -1;
    p->index_type = ft >= 0 ? H5Tget_native_type(ft, H5T_DIR_ASCEND) : -1;
    p->index_size = p->index_type >= 0 ? H5Tget_size(p->index_type) : 0;
    p->index = p->index_size ? calloc(p->nindex + 1, p->index_size) : NULL;
    int ok = p->index && (p->nindex == 0 || H5Dread(d, p->index_type, H5S_ALL, H5S_ALL,
                                                    H5P_DEFAULT, p->index) >= 0);
    if (ft >= 0)
        H5Tclose(ft);
    if (d >= 0)
        H5Dclose(d);
    return ok ? STORQ_OK : storq_h5u_fail(err, in, "cannot read " STORQ_SCHEMA_INDEX_PATH);
}

static hid_t create_file(const char *partial)
{
    hid_t fapl = storq_h5u_file_access(), fcpl = H5Pcreate(H5P_FILE_CREATE);
    if (fapl >= 0) /* 1.10's chunk indexes: a dataset of one chunk has no B-tree node */
        H5Pset_libver_bounds(fapl, H5F_LIBVER_V110, H5F_LIBVER_V110);
    if (fcpl >= 0) {
        H5Pset_obj_track_times(fcpl, 0);
        H5Pset_link_creation_order(fcpl, H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED);
    }
    hid_t out = fapl >= 0 && fcpl >= 0 ? H5Fcreate(partial, H5F_ACC_TRUNC, fcpl, fapl) : -1;
    if (fapl >= 0)
        H5Pclose(fapl);
    if (fcpl >= 0)
        H5Pclose(fcpl);
    return out;
}

/* The points of a 1.x file: each point group read whole, one at a time, without checksums (the
 * whole file was checked first). */
typedef struct group_source {
    const cv_plan *p;
    hid_t in;
    storq_pt_node *tree;
} group_source;

static int group_point(void *ctx, size_t row, const storq_pt_node **tree, storq_error *err)
{
    static const char *const skip[] = {STORQ_SCHEMA_ATTR_CRC32, NULL};
    group_source *g = ctx;
    char path[STORQ_SCHEMA_POINT_PATH_MAX];
    storq_cv_point_path(g->p, row, path, sizeof path);
    storq_pt_free(g->tree);
    g->tree = NULL;
    STORQ_TRY(storq_pt_read_h5(g->in, path, skip, &g->tree, err));
    *tree = g->tree;
    return STORQ_OK;
}

/* The plan of in's points and the 2.0 file written to tmp (created here: *made), with room
 * bytes of disk reserved for it first when room > 0 (a full disk fails before HDF5 writes). */
static int plan_and_write(cv_plan *p, hid_t in, const char *tmp, uint64_t room, int *made,
                          storq_error *err)
{
    size_t nver = 0;
    group_source groups = {p, in, NULL};
    p->src = (cv_source){group_point, &groups};
    int rc = storq_h5u_read_attr_i32_array(in, STORQ_SCHEMA_ATTR_VERSION, p->from_version, 2,
                                           &nver, err);
    if (!rc)
        rc = find_points(p, in, err);
    if (!rc)
        rc = read_index(p, in, err);
    if (!rc)
        rc = storq_cv_plan_read(p, in, err);
    if (!rc)
        rc = storq_cv_plan_dims(p, err);
    if (!rc)
        rc = storq_cv_plan_vars(p, err);
    if (!rc)
        rc = storq_partial_create(p->out_path, tmp, "convert", err);
    *made = !rc;
    if (!rc && room)
        rc = storq_partial_reserve(tmp, room, "the finished file", err);
    hid_t out = rc ? -1 : create_file(tmp);
    if (!rc && out < 0)
        rc = storq_h5u_fail_file(err, tmp, "cannot create the HDF5 file");
    if (!rc)
        rc = storq_cv_write(p, in, out, err);
    for (size_t i = 0; i < p->nv; i++) /* every dataset closed before the file */
        if (p->v[i].ds >= 0) {
            H5Dclose(p->v[i].ds);
            p->v[i].ds = -1;
        }
    if (out >= 0 && H5Fclose(out) < 0 && !rc)
        rc = storq_h5u_fail_file(err, tmp, "cannot close the file");
    storq_pt_free(groups.tree);
    return rc;
}

static int convert(cv_plan *p, const char *partial, int *made, FILE *report, storq_error *err)
{
    hid_t in = -1;
    storq_h5_checked checked;
    STORQ_TRY(first_look(p->in_path, p->from_version, err));
    STORQ_TRY(storq_h5_open_checked(p->in_path, "is a run still writing it?", &in, &checked,
                                    err));
    int rc = plan_and_write(p, in, partial, 0, made, err);
    H5Fclose(in);
    if (!rc && report) {
        size_t ragged = 0;
        for (size_t i = 0; i < p->nd; i++)
            ragged += p->d[i].ragged;
        fprintf(report, "convert: %s (schema %d.%d, %zu point%s) -> %s (schema 2.0): %zu "
                "datasets, %zu dimensions (%zu ragged)\n", p->in_path, (int)p->from_version[0],
                (int)p->from_version[1], p->P, p->P == 1 ? "" : "s", p->out_path, p->nv, p->nd,
                ragged);
    }
    return rc;
}

char *storq_h5_finishing_name(const char *final_path)
{
    size_t n = strlen(final_path) + sizeof ".finishing";
    char *s = malloc(n);
    if (s)
        snprintf(s, n, "%s.finishing", final_path);
    return s;
}

int storq_h5_finish_columnar(hid_t in, const char *in_path, const char *final_path, int replace,
                             storq_error *err)
{
    struct stat st; /* room for it: the partial's size (2.0 is smaller) and 1 MiB */
    uint64_t room = (stat(in_path, &st) == 0 ? (uint64_t)st.st_size : 0) + (1u << 20);
    char *tmp = storq_h5_finishing_name(final_path);
    if (!tmp)
        return STORQ_RUNTIME_FAIL(err, "out of memory");
    cv_plan p = {.in_path = in_path, .out_path = final_path, .index_type = -1, .written = 1};
    int made = 0;
    int rc = plan_and_write(&p, in, tmp, room, &made, err);
    storq_cv_plan_free(&p);
    if (!rc)
        rc = storq_partial_commit(tmp, final_path, replace, err);
    else if (made)
        unlink(tmp);
    free(tmp);
    return rc;
}

int storq_h5_convert(const char *in_path, const char *out_path, int replace, FILE *report,
                     storq_error *err)
{
    storq_h5u_quiet();
    char *partial = storq_partial_name(out_path);
    if (!partial)
        return STORQ_RUNTIME_FAIL(err, "out of memory");
    int rc = STORQ_OK;
    if (storq_same_file(in_path, out_path) || storq_same_file(in_path, partial))
        rc = storq_fail(err, STORQ_ERR_USAGE, "convert: the output %s is the input; name a new "
                        "file", out_path);
    else if (ends_with(in_path, ".partial"))
        rc = storq_fail(err, STORQ_ERR_USAGE, "convert: %s is a partial file (an unfinished run "
                        "or merge); complete it with `storq run ... --resume`, then convert the "
                        "finished file", in_path);
    cv_plan p = {.in_path = in_path, .out_path = out_path, .index_type = -1};
    int created = 0;
    if (!rc)
        rc = convert(&p, partial, &created, report, err);
    storq_cv_plan_free(&p);
    if (!rc)
        rc = storq_partial_commit(partial, out_path, replace, err);
    else if (created)
        unlink(partial); /* only ever this conversion's: the caller checked it absent */
    free(partial);
    return rc;
}
