/* `storq merge OUT IN...`: the files of a run's job-array tasks (or any files of one run) into one
 * results file. Every input must hold the same run (model, seed, replications, /run/config); each
 * complete point group is copied as it stands (H5Ocopy), so a merge of all tasks holds exactly the
 * datasets and attributes of the single-job file; a partial task's checkpoints (/checkpoints) are
 * never copied. OUT is written as OUT.partial and renamed only when it holds every point of the
 * run; otherwise OUT.partial stays, a whole run's partial file that a later merge replaces or
 * `storq run ... --resume` completes. */
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "h5_merge.h"

#include "file_kind.h"
#include "h5_check.h"
#include "h5_convert.h"
#include "h5_rows_tree.h"
#include "point_tree.h"
#include "h5_run.h"
#include "h5_util.h"
#include "partial_file.h"
#include "schema.h"
#include "stop.h"
#include "utf8.h"

/* An input is open only while it is read: a job array may have a thousand tasks, more than the
 * open files (and HDF5 metadata caches) a process should hold at once. */
typedef struct merge_input {
    const char *path;
    storq_h5_run run;
    size_t complete, interrupted; /* point groups with and without status "complete" */
    size_t checkpointed;          /* unfinished points with a checkpoint (never copied) */
    uint32_t index_crc;           /* of its /points/index: every input's must be the same */
    int columnar;                 /* a schema 2.0 file: its points are rows */
    int records_damaged;          /* a salvage's input whose /run records cannot be read */
} merge_input;

typedef struct merge {
    merge_input *in;
    size_t n, npoints;     /* inputs; points of the run (the first input says how many) */
    size_t *owner;         /* per point: 1 + the input that holds it, 0 when none does */
    unsigned char *state;  /* per point, of the input being read: see storq_h5_run_scan_points */
    int salvage;           /* storq_h5_merge_salvage: /run's records may be unreadable */
} merge;

static void merge_free(merge *m)
{
    for (size_t i = 0; m->in && i < m->n; i++)
        storq_h5_run_free(&m->in[i].run);
    free(m->in);
    free(m->owner);
    free(m->state);
}

/* ---- the inputs ---- */

/* Writing OUT.partial would destroy an input, and an input given twice holds every point twice. */
static int check_paths(const char *out, const char *partial, char *const *inputs, size_t n,
                       storq_error *err)
{
    for (size_t i = 0; i < n; i++) {
        if (storq_same_file(out, inputs[i]) || storq_same_file(partial, inputs[i]))
            return storq_fail(err, STORQ_ERR_USAGE, "merge: the output %s is also an input "
                              "(%s); name a new file", out, inputs[i]);
        for (size_t j = 0; j < i; j++)
            if (storq_same_file(inputs[i], inputs[j]))
                return storq_fail(err, STORQ_ERR_USAGE, "merge: %s is given twice", inputs[i]);
    }
    return STORQ_OK;
}

/* A storq file whose root a merge may rewrite (see storq_schema_check). */
static int open_input(const char *path, hid_t *file, storq_error *err)
{
    return storq_schema_open(path, "merge", STORQ_SCHEMA_MERGE, "is a run still writing it?", file,
                             NULL, err);
}

/* A partial file's unfinished points with a checkpoint (schema 1.2): a merge takes complete
 * points only, so their replications stay behind; counted to say so. */
static size_t count_checkpoints(hid_t file, const merge *m)
{
    if (!storq_h5u_has_link(file, "/" STORQ_SCHEMA_CHECKPOINTS))
        return 0;
    size_t n = 0;
    for (size_t p = 0; p < m->npoints; p++) {
        char name[STORQ_SCHEMA_POINT_PATH_MAX];
        storq_schema_checkpoint_path(p, name, sizeof name);
        n += m->state[p] != 1 && storq_h5u_has_link(file, name) &&
             storq_schema_point_complete(file, name) == 1;
    }
    return n;
}

/* A 2.0 file's points: every row is a complete point (state 1), the others absent (0). */
static int scan_rows(hid_t file, const char *path, size_t npoints, unsigned char *state,
                     storq_error *err)
{
    storq_rows_tree *rows = NULL;
    memset(state, 0, npoints);
    STORQ_TRY(storq_rows_tree_open(file, path, &rows, err));
    int rc = STORQ_OK;
    for (size_t r = 0; !rc && r < storq_rows_tree_count(rows); r++) {
        uint64_t id = storq_rows_tree_point(rows, r);
        if (id >= npoints)
            rc = storq_fail(err, STORQ_ERR_USAGE, "merge: %s: row %zu holds point %llu, not a "
                            "point of the run", path, r, (unsigned long long)id);
        else
            state[id] = 1;
    }
    storq_rows_tree_close(&rows);
    return rc;
}

/* Input i's run, checked against the first input's; its complete points claimed in m->owner. */
static int read_input(merge *m, size_t i, hid_t file, storq_error *err)
{
    merge_input *in = &m->in[i];
    storq_h5_checked checked;
    if (m->salvage)
        STORQ_TRY(storq_h5_check_file_salvage(file, in->path, "merge", &checked, err));
    else
        STORQ_TRY(storq_h5_check_file(file, in->path, "merge", &checked, err));
    STORQ_TRY(storq_h5_run_read(file, &in->run, err));
    in->index_crc = checked.index_crc;
    in->records_damaged = checked.run_records_damaged;
    if (i == 0) {
        m->npoints = in->run.npoints;
        m->owner = calloc(m->npoints + 1, sizeof *m->owner);
        m->state = malloc(m->npoints + 1);
        if (!m->owner || !m->state)
            return STORQ_RUNTIME_FAIL(err, "out of memory");
    }
    char what[600], la[300], lb[300];
    snprintf(la, sizeof la, "in %s", in->path);
    snprintf(lb, sizeof lb, "in %s", m->in[0].path);
    if (i > 0 && storq_h5_run_differ(&in->run, la, &m->in[0].run, lb, what, sizeof what))
        return storq_fail(err, STORQ_ERR_USAGE, "merge: %s and %s hold different runs (%s)",
                          in->path, m->in[0].path, what);
    if (i > 0 && in->index_crc != m->in[0].index_crc)
        return storq_fail(err, STORQ_ERR_USAGE, "merge: %s and %s hold different runs (their "
                          "/" STORQ_SCHEMA_POINTS "/" STORQ_SCHEMA_INDEX " differ: other "
                          "parameter values)", in->path, m->in[0].path);
    in->columnar = storq_schema_major(file) == STORQ_SCHEMA_MAJOR_COLUMNAR;
    if (in->columnar)
        STORQ_TRY(scan_rows(file, in->path, m->npoints, m->state, err));
    else
        STORQ_TRY(storq_h5_run_scan_points(file, m->npoints, m->state, 0, err));
    for (size_t p = 0; p < m->npoints; p++) {
        in->interrupted += m->state[p] == 2;
        if (m->state[p] != 1)
            continue;
        if (m->owner[p])
            return storq_fail(err, STORQ_ERR_USAGE, "merge: point %zu is in both %s and %s; "
                              "each point must come from exactly one input", p,
                              m->in[m->owner[p] - 1].path, in->path);
        m->owner[p] = i + 1;
        in->complete++;
    }
    in->checkpointed = count_checkpoints(file, m);
    return STORQ_OK;
}

/* Check that the inputs hold one run, and find which input holds each point. */
static int collect(merge *m, char *const *inputs, storq_error *err)
{
    m->in = calloc(m->n, sizeof *m->in);
    if (!m->in)
        return STORQ_RUNTIME_FAIL(err, "out of memory");
    int rc = STORQ_OK;
    for (size_t i = 0; !rc && i < m->n; i++) {
        hid_t file = -1;
        m->in[i].path = inputs[i];
        rc = open_input(inputs[i], &file, err);
        if (!rc)
            rc = read_input(m, i, file, err);
        if (file >= 0)
            H5Fclose(file);
    }
    return rc;
}

/* ---- the output ---- */

/* Set by the merge itself, not copied from the first input. */
static const char *const own_root_attrs[] = {
    STORQ_SCHEMA_ATTR_VERSION, STORQ_SCHEMA_ATTR_COMMAND_LINE, STORQ_SCHEMA_ATTR_CREATED,
    STORQ_SCHEMA_ATTR_TASK_INDEX, STORQ_SCHEMA_ATTR_TASK_COUNT,
    STORQ_SCHEMA_ATTR_COMMAND_LINE "_bytes", "converted_from", NULL};

static herr_t copy_root_attr(hid_t src, const char *name, const H5A_info_t *info, void *data)
{
    hid_t dst = *(hid_t *)data;
    for (const char *const *o = own_root_attrs; *o; o++)
        if (strcmp(name, *o) == 0)
            return 0;
    return storq_h5u_copy_attr(src, name, dst);
}

/* The run began when its earliest task did (ISO 8601 UTC sorts as text). */
static const char *earliest_created(const merge *m)
{
    const char *c = m->in[0].run.created;
    for (size_t i = 1; i < m->n; i++)
        if (m->in[i].run.created && (!c || strcmp(m->in[i].run.created, c) < 0))
            c = m->in[i].run.created;
    return c ? c : "";
}

/* A salvage of a file whose /run records cannot be read: a new /run (sized as the writer makes
 * it) with the old /run/config only; the sessions that follow start a new record. */
static int copy_config_only(const merge *m, hid_t src, hid_t out, storq_error *err)
{
    hid_t run;
    STORQ_TRY(storq_h5_run_group_create(out, &run, err));
    herr_t rc = H5Ocopy(src, STORQ_SCHEMA_CONFIG_PATH, run, STORQ_SCHEMA_CONFIG, H5P_DEFAULT,
                        H5P_DEFAULT);
    /* the file says its record is not whole, not only the warning of the resume that lost it */
    int marked = rc < 0 ? STORQ_OK
                        : storq_h5u_attr_u64(run, STORQ_SCHEMA_ATTR_RECORD_LOST, 1, err);
    H5Gclose(run);
    if (rc < 0)
        return storq_h5u_fail(err, out, "cannot copy " STORQ_SCHEMA_CONFIG_PATH " from %s",
                              m->in[0].path);
    return marked;
}

/* The first input's root, but the merge's command line and the earliest creation time, and no
 * task attributes: OUT describes the whole run (docs/hdf5-schema.md). */
static int write_root(const merge *m, hid_t src, hid_t out, const char *command_line,
                      storq_error *err)
{
    int32_t version[2];
    storq_schema_version(1, version);
    hsize_t pos = 0;
    if (H5Aiterate2(src, H5_INDEX_NAME, H5_ITER_INC, &pos, copy_root_attr, &out) < 0)
        return storq_h5u_fail(err, out, "cannot copy the root attributes of %s", m->in[0].path);
    STORQ_TRY(storq_h5u_attr_i32_array(out, STORQ_SCHEMA_ATTR_VERSION, version, 2, err));
    STORQ_TRY(storq_h5u_attr_string(out, STORQ_SCHEMA_ATTR_COMMAND_LINE, command_line, err));
    STORQ_TRY(storq_utf8_raw_attr(out, STORQ_SCHEMA_ATTR_COMMAND_LINE, command_line, err));
    STORQ_TRY(storq_h5u_attr_string(out, STORQ_SCHEMA_ATTR_CREATED, earliest_created(m), err));
    if (m->in[0].records_damaged)
        STORQ_TRY(copy_config_only(m, src, out, err));
    else if (H5Ocopy(src, STORQ_SCHEMA_RUN, out, STORQ_SCHEMA_RUN, H5P_DEFAULT, H5P_DEFAULT) < 0)
        return storq_h5u_fail(err, out, "cannot copy /" STORQ_SCHEMA_RUN " from %s",
                              m->in[0].path);
    hid_t points;
    STORQ_TRY(storq_h5u_create_group(out, STORQ_SCHEMA_POINTS, &points, err));
    herr_t rc = H5Ocopy(src, STORQ_SCHEMA_INDEX_PATH, points, STORQ_SCHEMA_INDEX, H5P_DEFAULT,
                        H5P_DEFAULT);
    /* from a 2.0 file: its dimension scale (references into that file) and attribute checksum
     * are 2.0's, not 1.x's */
    for (int k = 0; rc >= 0 && k < 2; k++) {
        const char *a = k ? STORQ_SCHEMA_ATTR_CRC32 : "DIMENSION_LIST";
        if (H5Aexists_by_name(points, STORQ_SCHEMA_INDEX, a, H5P_DEFAULT) > 0)
            rc = H5Adelete_by_name(points, STORQ_SCHEMA_INDEX, a, H5P_DEFAULT);
    }
    H5Gclose(points);
    if (rc < 0)
        return storq_h5u_fail(err, out, "cannot copy " STORQ_SCHEMA_INDEX_PATH " from %s",
                              m->in[0].path);
    return STORQ_OK;
}

/* Whether two layouts' edges are the same numbers (bit for bit). */
static int same_edges(hid_t a, hid_t b, const char *name, int *same, storq_error *err)
{
    double *x = NULL, *y = NULL;
    size_t nx = 0, ny = 0;
    int rc = storq_h5u_read_f64(a, name, &x, &nx, err);
    if (!rc)
        rc = storq_h5u_read_f64(b, name, &y, &ny, err);
    *same = !rc && nx == ny && memcmp(x, y, nx * sizeof *x) == 0;
    free(x);
    free(y);
    return rc;
}

/* Input i's /layouts (1.3): the bin edges its histograms link to, copied once. The same name
 * in two inputs of one run holds the same edges (the name is the layout's parameters). */
static int copy_layouts(const merge *m, size_t i, hid_t src, hid_t out, storq_error *err)
{
    if (!storq_h5u_has_link(src, STORQ_SCHEMA_LAYOUTS_PATH))
        return STORQ_OK;
    hid_t from = H5Gopen2(src, STORQ_SCHEMA_LAYOUTS_PATH, H5P_DEFAULT), to = -1;
    if (from < 0)
        return storq_h5u_fail(err, src, "cannot open " STORQ_SCHEMA_LAYOUTS_PATH " of %s",
                              m->in[i].path);
    char **names = NULL;
    size_t n = 0;
    int rc = storq_h5u_list_links(from, &names, &n, err);
    if (!rc && storq_h5u_has_link(out, STORQ_SCHEMA_LAYOUTS_PATH)) {
        to = H5Gopen2(out, STORQ_SCHEMA_LAYOUTS_PATH, H5P_DEFAULT);
        if (to < 0)
            rc = storq_h5u_fail(err, out, "cannot open " STORQ_SCHEMA_LAYOUTS_PATH);
    } else if (!rc) {
        rc = storq_h5u_create_group(out, STORQ_SCHEMA_LAYOUTS, &to, err);
    }
    for (size_t k = 0; !rc && k < n; k++) {
        int same = 0;
        if (!storq_h5u_has_link(to, names[k])) {
            if (H5Ocopy(from, names[k], to, names[k], H5P_DEFAULT, H5P_DEFAULT) < 0)
                rc = storq_h5u_fail(err, out, "cannot copy " STORQ_SCHEMA_LAYOUTS_PATH "/%s from %s",
                                    names[k], m->in[i].path);
        } else if (!(rc = same_edges(from, to, names[k], &same, err)) && !same) {
            rc = storq_fail(err, STORQ_ERR_USAGE, "merge: %s and %s hold different runs (their "
                            STORQ_SCHEMA_LAYOUTS_PATH "/%s differ)", m->in[i].path,
                            m->in[0].path, names[k]);
        }
    }
    storq_h5u_free_names(names, n);
    storq_h5u_close_group(&to);
    H5Gclose(from);
    STORQ_TRY(rc);
    return storq_schema_restate_version(out, err);
}

/* TERM, INT or USR1 (`storq merge` installs the handlers): the partial is removed by the
 * caller, the inputs were only read. */
static int stopped(storq_error *err)
{
    return storq_fail(err, STORQ_STOPPED, "merge: stopped by signal %d; nothing was written and "
                      "the inputs are untouched", storq_stop_signal());
}

/* A 2.0 input's points: each row it owns rebuilt as the point group it was (io/h5_rows_tree.h)
 * and written as 1.x writes one. */
static int copy_rows(const merge *m, size_t i, hid_t src, hid_t out, storq_error *err)
{
    storq_rows_tree *rows = NULL;
    STORQ_TRY(storq_rows_tree_open(src, m->in[i].path, &rows, err));
    int rc = STORQ_OK;
    for (size_t r = 0; !rc && r < storq_rows_tree_count(rows); r++) {
        uint64_t p = storq_rows_tree_point(rows, r);
        if (storq_stop_signal()) {
            rc = stopped(err);
            break;
        }
        if (p >= m->npoints || m->owner[p] != i + 1)
            continue;
        char name[STORQ_SCHEMA_POINT_PATH_MAX];
        storq_schema_point_path((size_t)p, name, sizeof name);
        storq_pt_node *tree = NULL;
        rc = storq_rows_tree_get(rows, r, &tree, err);
        if (!rc)
            rc = storq_pt_write_h5(out, out, name, tree, err);
        storq_pt_free(tree);
    }
    storq_rows_tree_close(&rows);
    return rc;
}

/* Input i's points, in id order. */
static int copy_points(const merge *m, size_t i, hid_t src, hid_t out, storq_error *err)
{
    if (m->in[i].columnar)
        return copy_rows(m, i, src, out, err);
    for (size_t p = 0; p < m->npoints; p++) {
        if (storq_stop_signal())
            return stopped(err);
        if (m->owner[p] != i + 1)
            continue;
        char name[STORQ_SCHEMA_POINT_PATH_MAX];
        storq_schema_point_path(p, name, sizeof name);
        if (H5Ocopy(src, name, out, name, H5P_DEFAULT, H5P_DEFAULT) < 0)
            return storq_h5u_fail(err, out, "cannot copy point %zu from %s", p, m->in[i].path);
    }
    return STORQ_OK;
}

/* The header from the first input, then every input's points, one input open at a time. */
static int write_contents(const merge *m, hid_t out, const char *command_line, storq_error *err)
{
    int rc = STORQ_OK;
    for (size_t i = 0; !rc && i < m->n; i++) {
        if (i > 0 && m->in[i].complete == 0)
            continue;
        hid_t src;
        rc = open_input(m->in[i].path, &src, err);
        if (rc)
            break;
        if (i == 0)
            rc = write_root(m, src, out, command_line, err);
        if (!rc)
            rc = copy_layouts(m, i, src, out, err);
        if (!rc)
            rc = copy_points(m, i, src, out, err);
        H5Fclose(src);
    }
    if (!rc && H5Fflush(out, H5F_SCOPE_GLOBAL) < 0)
        rc = storq_h5u_fail(err, out, "cannot flush the file");
    return rc;
}

static int write_output(const merge *m, const char *out_path, const char *partial,
                        const char *command_line, storq_error *err)
{
    STORQ_TRY(storq_partial_create(out_path, partial, "merge", err));
    hid_t fapl = storq_h5u_file_access(), fcpl = storq_h5u_file_create();
    hid_t out = H5Fcreate(partial, H5F_ACC_TRUNC, fcpl >= 0 ? fcpl : H5P_DEFAULT,
                          fapl >= 0 ? fapl : H5P_DEFAULT);
    if (fapl >= 0)
        H5Pclose(fapl);
    if (fcpl >= 0)
        H5Pclose(fcpl);
    int rc = out < 0 ? storq_h5u_fail_file(err, partial, "cannot create the HDF5 file") : STORQ_OK;
    if (!rc)
        rc = write_contents(m, out, command_line, err);
    if (out >= 0 && H5Fclose(out) < 0 && !rc)
        rc = storq_h5u_fail_file(err, partial, "cannot close the file");
    if (!rc && storq_stop_signal()) /* the last moment before the rename */
        rc = stopped(err);
    if (rc)
        unlink(partial); /* the inputs are still there: a new merge starts over */
    return rc;
}

/* ---- the report ---- */

/* The ids of the missing (or the present) points, as "0-3, 7, 9-12", cut short to fit buf. */
static void ranges_text(const merge *m, int missing, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t p = 0; p < m->npoints && used < size; p++) {
        if ((m->owner[p] == 0) != missing)
            continue;
        size_t q = p;
        while (q + 1 < m->npoints && (m->owner[q + 1] == 0) == missing)
            q++;
        int w = q > p ? snprintf(buf + used, size - used, "%s%zu-%zu", used ? ", " : "", p, q)
                      : snprintf(buf + used, size - used, "%s%zu", used ? ", " : "", p);
        used += (size_t)w;
        p = q;
    }
    if (used >= size && size > 4)
        strcpy(buf + size - 4, "...");
}

static void report_inputs(const merge *m, FILE *report)
{
    for (size_t i = 0; i < m->n; i++) {
        const merge_input *in = &m->in[i];
        char task[64];
        storq_h5_run_task_text(in->run.task_index, in->run.task_count, task, sizeof task);
        fprintf(report, "merge: %s (%s): %zu point%s", in->path, task, in->complete,
                in->complete == 1 ? "" : "s");
        if (in->interrupted)
            fprintf(report, ", %zu interrupted (skipped)", in->interrupted);
        if (in->checkpointed)
            fprintf(report, ", %zu unfinished with a checkpoint (skipped)", in->checkpointed);
        fputc('\n', report);
    }
    /* Results of the same point may differ between builds (a kernel fix, say). */
    for (size_t i = 1; i < m->n; i++) {
        const char *a = m->in[0].run.git_commit, *b = m->in[i].run.git_commit;
        if (a && b && strcmp(a, b) != 0) {
            fprintf(stderr, "storq: warning: %s and %s were written by different builds of "
                    "storq (%s, %s)\n", m->in[0].path, m->in[i].path, a, b);
            break;
        }
    }
}

/* The merged partial (every point in it) finished as out_path, in the columnar layout. */
static int finish_columnar(const char *partial, const char *out_path, storq_error *err)
{
    hid_t in = H5Fopen(partial, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (in < 0)
        return storq_h5u_fail_file(err, partial, "cannot open the merged file");
    int rc = storq_h5_finish_columnar(in, partial, out_path, 1, err);
    H5Fclose(in);
    if (!rc)
        unlink(partial);
    return rc;
}

static int merge_files(const char *out_path, char *const *inputs, size_t ninputs,
                       const char *command_line, int schema, FILE *report, int salvage,
                       int *records_lost, storq_error *err)
{
    storq_h5u_quiet();
    if (ninputs == 0)
        return storq_fail(err, STORQ_ERR_USAGE, "merge: name the files to merge: storq merge "
                          "OUT.h5 IN.h5 [IN.h5 ...]");
    char *partial = storq_partial_name(out_path);
    if (!partial)
        return STORQ_RUNTIME_FAIL(err, "out of memory");
    merge m = {.n = ninputs, .salvage = salvage};
    int rc = check_paths(out_path, partial, inputs, ninputs, err);
    if (!rc)
        rc = collect(&m, inputs, err);
    if (!rc && storq_stop_signal())
        rc = stopped(err);
    if (!rc) {
        report_inputs(&m, report);
        rc = write_output(&m, out_path, partial, command_line, err);
    }
    size_t missing = 0;
    for (size_t p = 0; !rc && p < m.npoints; p++)
        missing += m.owner[p] == 0;
    if (!rc && missing == 0) {
        rc = schema == 2 ? finish_columnar(partial, out_path, err) /* checked under the lock */
                         : storq_partial_commit(partial, out_path, 1, err);
        if (!rc)
            fprintf(report, "merge: %s: all %zu points of the run\n", out_path, m.npoints);
    } else if (!rc) {
        char list[400];
        ranges_text(&m, 0, list, sizeof list);
        fprintf(report, "merge: %s: %zu of the run's %zu points: %s\n", partial,
                m.npoints - missing, m.npoints, list[0] ? list : "none");
        ranges_text(&m, 1, list, sizeof list);
        rc = storq_fail(err, STORQ_ERR_RUNTIME, "merge: %zu of the run's %zu points %s in no "
                        "input: %s. %s %zu %s in %s; merge again with --force and "
                        "every task's file, the missing ones included (a merge never reads "
                        "its own partial: --force replaces it), or complete it with "
                        "`storq run ... -o %s --resume`",
                        missing, m.npoints, missing == 1 ? "is" : "are", list,
                        m.npoints - missing == 1 ? "The other" : "The", m.npoints - missing,
                        m.npoints - missing == 1 ? "is" : "others are", partial, out_path);
    }
    if (records_lost)
        *records_lost = m.in && m.in[0].records_damaged;
    merge_free(&m);
    free(partial);
    return rc;
}

int storq_h5_merge(const char *out_path, char *const *inputs, size_t ninputs,
                   const char *command_line, int schema, FILE *report, storq_error *err)
{
    return merge_files(out_path, inputs, ninputs, command_line, schema, report, 0, NULL, err);
}

int storq_h5_merge_salvage(const char *out_path, char *input, const char *command_line,
                           FILE *report, int *records_lost, storq_error *err)
{
    char *inputs[1] = {input};
    return merge_files(out_path, inputs, 1, command_line, 1, report, 1, records_lost, err);
}
