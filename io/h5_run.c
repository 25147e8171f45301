#include "h5_run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "h5_util.h"
#include "schema.h"

/* The rows of /points/index, which every storq file has: a missing or unreadable index (a damaged
 * file) is an error, not a run of no points. */
static int index_rows(hid_t file, size_t *rows, storq_error *err)
{
    *rows = 0;
    if (!storq_h5u_has_link(file, STORQ_SCHEMA_INDEX_PATH))
        return storq_h5u_fail(err, file, "has no '" STORQ_SCHEMA_INDEX_PATH "' (damaged?)");
    hid_t d = H5Dopen2(file, STORQ_SCHEMA_INDEX_PATH, H5P_DEFAULT);
    if (d < 0)
        return storq_h5u_fail(err, file, "cannot open '" STORQ_SCHEMA_INDEX_PATH "'");
    hid_t space = H5Dget_space(d);
    hssize_t n = space >= 0 ? H5Sget_simple_extent_npoints(space) : -1;
    storq_h5u_close_space(&space);
    H5Dclose(d);
    if (n < 0)
        return storq_h5u_fail(err, file, "cannot read the shape of '" STORQ_SCHEMA_INDEX_PATH "'");
    *rows = (size_t)n;
    return STORQ_OK;
}

static int read_optional_string(hid_t file, const char *name, char **out, storq_error *err)
{
    *out = NULL;
    return storq_h5u_has_attr(file, name) ? storq_h5u_read_attr_string(file, name, out, err)
                                          : STORQ_OK;
}

/* task_index and task_count (schema 1.1) when present; a count of 0 or 1 is the whole run. */
static int read_task(hid_t file, storq_h5_run *run, storq_error *err)
{
    uint64_t index = 0, count = 1;
    run->task_index = 0;
    run->task_count = 1;
    if (!storq_h5u_has_attr(file, STORQ_SCHEMA_ATTR_TASK_COUNT))
        return STORQ_OK;
    STORQ_TRY(storq_h5u_read_attr_u64(file, STORQ_SCHEMA_ATTR_TASK_COUNT, &count, err));
    if (count <= 1)
        return STORQ_OK;
    STORQ_TRY(storq_h5u_read_attr_u64(file, STORQ_SCHEMA_ATTR_TASK_INDEX, &index, err));
    if (index >= count)
        return storq_h5u_fail(err, file, "task_index %llu is not below task_count %llu",
                              (unsigned long long)index, (unsigned long long)count);
    run->task_index = (size_t)index;
    run->task_count = (size_t)count;
    return STORQ_OK;
}

int storq_h5_run_group_create(hid_t file, hid_t *run, storq_error *err)
{
    /* room for 16 links (config, then the tables a session adds) of names up to 24 characters;
     * tests/test_h5_units.c checks what a session writes fits */
    return storq_h5u_create_sized_group(file, STORQ_SCHEMA_RUN, 16, 24, run, err);
}

int storq_h5_run_read(hid_t file, storq_h5_run *run, storq_error *err)
{
    memset(run, 0, sizeof *run);
    int rc = storq_h5u_read_attr_string(file, STORQ_SCHEMA_ATTR_MODEL, &run->model, err);
    if (!rc)
        rc = storq_h5u_read_attr_u64(file, STORQ_SCHEMA_ATTR_SEED, &run->seed, err);
    if (!rc)
        rc = storq_h5u_read_attr_u64(file, STORQ_SCHEMA_ATTR_REPLICATIONS, &run->replications,
                                     err);
    if (!rc)
        rc = storq_h5u_read_string(file, STORQ_SCHEMA_CONFIG_PATH, &run->config, err);
    if (!rc)
        rc = read_optional_string(file, STORQ_SCHEMA_ATTR_CREATED, &run->created, err);
    if (!rc)
        rc = read_optional_string(file, STORQ_SCHEMA_ATTR_GIT_COMMIT, &run->git_commit, err);
    if (!rc)
        rc = read_task(file, run, err);
    if (!rc)
        rc = index_rows(file, &run->npoints, err);
    if (rc)
        storq_h5_run_free(run);
    return rc;
}

void storq_h5_run_free(storq_h5_run *run)
{
    free(run->model);
    free(run->config);
    free(run->created);
    free(run->git_commit);
    memset(run, 0, sizeof *run);
}

/* One line of a config text, shortened, for a message. */
static void quote_line(const char *start, char *buf, size_t size)
{
    int n = (int)strcspn(start, "\n");
    snprintf(buf, size, "%.*s%s", n > 60 ? 60 : n, start, n > 60 ? "..." : "");
}

/* Where two config texts first differ, as "config line N: 'A' LA, 'B' LB". */
static void first_difference(const char *a, const char *la, const char *b, const char *lb,
                             char *buf, size_t size)
{
    size_t line = 1, i = 0, start = 0;
    while (a[i] && a[i] == b[i]) {
        if (a[i] == '\n') {
            line++;
            start = i + 1;
        }
        i++;
    }
    char qa[80], qb[80];
    quote_line(a + start, qa, sizeof qa);
    quote_line(b + start, qb, sizeof qb);
    snprintf(buf, size, "config line %zu: '%s' %s, '%s' %s", line, qa, la, qb, lb);
}

int storq_h5_run_differ(const storq_h5_run *a, const char *la, const storq_h5_run *b,
                        const char *lb, char *buf, size_t size)
{
    const char *ca = a->config ? a->config : "", *cb = b->config ? b->config : "";
    if (strcmp(a->model, b->model) != 0)
        snprintf(buf, size, "model %s %s, %s %s", a->model, la, b->model, lb);
    else if (a->seed != b->seed)
        snprintf(buf, size, "seed %llu %s, %llu %s", (unsigned long long)a->seed, la,
                 (unsigned long long)b->seed, lb);
    else if (a->replications != b->replications)
        snprintf(buf, size, "replications %llu %s, %llu %s",
                 (unsigned long long)a->replications, la, (unsigned long long)b->replications,
                 lb);
    else if (strcmp(ca, cb) != 0)
        first_difference(ca, la, cb, lb, buf, size);
    else if (a->npoints != b->npoints)
        snprintf(buf, size, "%zu points %s, %zu %s", a->npoints, la, b->npoints, lb);
    else
        return 0;
    return 1;
}

void storq_h5_run_task_text(size_t index, size_t count, char *buf, size_t size)
{
    if (count <= 1)
        snprintf(buf, size, "the whole run");
    else
        snprintf(buf, size, "task %zu/%zu", index, count);
}

/* --resume, after the interrupted point groups went: a checkpoint counts only while its point is
 * unfinished (docs/hdf5-schema.md, "Checkpoints"). A run killed between writing a point and
 * dropping its checkpoint leaves both, a write cut short leaves a temporary or a checkpoint without
 * status "complete": all of these go, /checkpoints with its last member, and the stated version
 * follows (1.2 only while checkpoints remain). */
static int tidy_checkpoints(hid_t file, size_t npoints, const unsigned char *state,
                            storq_error *err)
{
    if (!storq_h5u_has_link(file, "/" STORQ_SCHEMA_CHECKPOINTS))
        return storq_schema_restate_version(file, err);
    hid_t g = H5Gopen2(file, STORQ_SCHEMA_CHECKPOINTS, H5P_DEFAULT);
    if (g < 0)
        return storq_h5u_fail(err, file, "cannot open group '" STORQ_SCHEMA_CHECKPOINTS "'");
    char **names = NULL;
    size_t n = 0, kept = 0;
    int rc = storq_h5u_list_links(g, &names, &n, err);
    for (size_t i = 0; !rc && i < n; i++) {
        size_t id;
        if (storq_schema_point_id(names[i], &id) && id < npoints && state[id] != 1 &&
            storq_schema_point_complete(g, names[i]) == 1) {
            kept++;
            continue;
        }
        if (H5Ldelete(g, names[i], H5P_DEFAULT) < 0)
            rc = storq_h5u_fail(err, g, "cannot delete the stale checkpoint '%s'", names[i]);
    }
    storq_h5u_free_names(names, n);
    H5Gclose(g);
    if (!rc && kept == 0 && H5Ldelete(file, STORQ_SCHEMA_CHECKPOINTS, H5P_DEFAULT) < 0)
        rc = storq_h5u_fail(err, file, "cannot delete the empty group '"
                            STORQ_SCHEMA_CHECKPOINTS "'");
    return rc ? rc : storq_schema_restate_version(file, err);
}

int storq_h5_run_scan_points(hid_t file, size_t npoints, unsigned char *state,
                             int drop_incomplete, storq_error *err)
{
    memset(state, 0, npoints);
    hid_t points = H5Gopen2(file, STORQ_SCHEMA_POINTS, H5P_DEFAULT);
    if (points < 0)
        return storq_h5u_fail(err, file, "cannot open group 'points'");
    char **names = NULL;
    size_t n = 0;
    int rc = storq_h5u_list_links(points, &names, &n, err);
    for (size_t i = 0; !rc && i < n; i++) {
        size_t id;
        if (!storq_schema_point_id(names[i], &id))
            continue;
        if (storq_schema_point_complete(points, names[i]) > 0) {
            if (id < npoints)
                state[id] = 1;
            continue;
        }
        if (id < npoints)
            state[id] = 2;
        if (drop_incomplete && H5Ldelete(points, names[i], H5P_DEFAULT) < 0)
            rc = storq_h5u_fail(err, points, "cannot delete the incomplete point group '%s'",
                                names[i]);
    }
    storq_h5u_free_names(names, n);
    H5Gclose(points);
    if (!rc && drop_incomplete)
        rc = tidy_checkpoints(file, npoints, state, err);
    return rc;
}
