/* The checks of a schema 2.0 file (docs/hdf5-schema-2.md), after those every storq file gets
 * (links, /run, the index, /layouts; h5_check.c): every dataset of the rows has a row a point;
 * the point ids increase, are points of the index and, in a task's file, of the task; each row's
 * two checksums, recomputed from its values cut to the point's extent, match; and so does each
 * object's checksum of its attributes. Rows are read a block at a time (h5_columns.c). */
#include "h5_check_internal.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "h5_check.h"
#include "h5_checksum.h"
#include "h5_columns.h"
#include "h5_util.h"
#include "schema.h"

#define BLOCK_BYTES (32u << 20)

/* The datasets one row checksum covers, as columns, with the has_ column of each (or NULL). */
typedef struct covered {
    storq_col **cols, **has;
    size_t n;
} covered;

static int oom(checker *c)
{
    return storq_fail(c->err, STORQ_ERR_RUNTIME, "out of memory checking '%s'", c->path);
}

/* The has_<group>_<name> column of dataset path, opened, when there is one. */
static int has_column_of(checker *c, storq_cols *cols, const char *path, storq_col **out)
{
    char group[64], name[256], has[400];
    *out = NULL;
    if (sscanf(path, "/%63[^/]/%255[^/]", group, name) != 2 || !strcmp(group, "points"))
        return STORQ_OK;
    snprintf(has, sizeof has, "/points/has_%s_%s",
             strcmp(group, "replications") ? group : "observables", name);
    return storq_h5u_has_link(c->file, has) ? storq_cols_open(cols, has, out, c->err) : STORQ_OK;
}

static int open_covered(checker *c, storq_cols *cols, const char *crc_path, covered *cv)
{
    hid_t d = H5Dopen2(c->file, crc_path, H5P_DEFAULT);
    if (d < 0)
        return chk_bad(c, crc_path, "missing: a schema 2.0 file's rows carry checksums");
    char **paths = NULL;
    size_t n = 0;
    int rc = storq_h5u_has_attr(d, "covers")
                 ? storq_h5u_read_attr_string_array(d, "covers", &paths, &n, c->err)
                 : chk_bad(c, crc_path, "has no attribute 'covers'");
    H5Dclose(d);
    if (!rc && (!(cv->cols = calloc(n + 1, sizeof *cv->cols)) ||
                !(cv->has = calloc(n + 1, sizeof *cv->has))))
        rc = oom(c);
    for (size_t i = 0; !rc && i < n; i++) {
        if (paths[i][0] != '/' || !storq_h5u_has_link(c->file, paths[i]) ||
            !strcmp(paths[i], "/points/crc32") || !strcmp(paths[i], "/points/crc32_arrays"))
            rc = chk_bad(c, crc_path, "covers '%s', which the file does not hold", paths[i]);
        if (!rc)
            rc = storq_cols_open(cols, paths[i], &cv->cols[i], c->err);
        if (!rc)
            rc = has_column_of(c, cols, paths[i], &cv->has[i]);
        cv->n = rc ? i : i + 1;
    }
    storq_h5u_free_names(paths, n);
    return rc;
}

/* How many datasets the checksum crc_path covers (0 when it cannot tell: open_covered says). */
static size_t covers_count(checker *c, const char *crc_path)
{
    hid_t d = H5Dopen2(c->file, crc_path, H5P_DEFAULT);
    hid_t a = d >= 0 && storq_h5u_has_attr(d, "covers") ? H5Aopen(d, "covers", H5P_DEFAULT) : -1;
    hid_t space = a >= 0 ? H5Aget_space(a) : -1;
    hssize_t n = space >= 0 ? H5Sget_simple_extent_npoints(space) : 0;
    storq_h5u_close_space(&space);
    if (a >= 0)
        H5Aclose(a);
    storq_h5u_close_dataset(&d);
    H5Eclear2(H5E_DEFAULT);
    return n > 0 ? (size_t)n : 0;
}

static void crc_run(void *ctx, const unsigned char *at, size_t n)
{
    uint32_t *crc = ctx;
    *crc = storq_crc32(*crc, at, 8 * n);
}

static uint32_t feed_row(const storq_cols *cols, const storq_col *col, size_t r, uint32_t crc)
{
    if (col->cls == 's') {
        const char *s = (const char *)col->buf + r * col->elsize;
        size_t len = strnlen(s, col->elsize);
        return storq_crc32(storq_crc32(crc, s, len), "", 1);
    }
    storq_cols_runs(cols, col, r, crc_run, &crc);
    return crc;
}

static int check_rows(checker *c, storq_cols *cols, storq_col *ids, const covered *cv,
                      storq_col *stored, size_t first, size_t n)
{
    for (size_t r = 0; r < n; r++) {
        uint64_t id = storq_cols_u64(ids, r);
        uint32_t crc = storq_crc32(0, &id, 8);
        for (size_t i = 0; i < cv->n; i++) /* a row the quantity lacks: its arrays give none */
            if (cv->cols[i]->rank == 1 || !cv->has[i] || storq_cols_u64(cv->has[i], r))
                crc = feed_row(cols, cv->cols[i], r, crc);
        uint64_t want = storq_cols_u64(stored, r);
        if (crc != want)
            return chk_bad(c, stored->path, "point %" PRIu64 " (row %zu): its values do not match "
                           "the checksum written with them (crc32 %08" PRIx64 " stored, %08" PRIx32
                           " now)", id, first + r, want, crc);
    }
    return STORQ_OK;
}

/* The share of the run's points the file holds: p % count == index (a task's file, 1.1). */
typedef struct share {
    uint64_t count, index;
} share;

static int read_share(checker *c, share *s)
{
    s->count = 1;
    s->index = 0;
    if (!storq_h5u_has_attr(c->file, STORQ_SCHEMA_ATTR_TASK_COUNT))
        return STORQ_OK;
    STORQ_TRY(storq_h5u_read_attr_u64(c->file, STORQ_SCHEMA_ATTR_TASK_COUNT, &s->count, c->err));
    return storq_h5u_read_attr_u64(c->file, STORQ_SCHEMA_ATTR_TASK_INDEX, &s->index, c->err);
}

/* Ids increasing, in the index, and of the task. */
static int check_ids(checker *c, const share *sh, storq_col *ids, size_t first, size_t n,
                     uint64_t *last)
{
    for (size_t r = 0; r < n; r++) {
        uint64_t id = storq_cols_u64(ids, r);
        if ((first + r > 0 && id <= *last) || id >= c->nrows ||
            (sh->count && id % sh->count != sh->index))
            return chk_bad(c, "/point", "row %zu holds point %" PRIu64 ", which is not a point "
                           "of the file's index (%zu points%s) in increasing order", first + r,
                           id, c->nrows, sh->count > 1 ? ", of this task" : "");
        *last = id;
    }
    return STORQ_OK;
}

/* Every object's checksum of its attributes, under the groups of the rows. */
static herr_t attrs_one(hid_t obj, const char *name, const H5O_info_t *info, void *data)
{
    checker *c = data;
    (void)info;
    if (!strcmp(name, "."))
        return 0;
    hid_t o = H5Oopen(obj, name, H5P_DEFAULT);
    uint32_t now = 0;
    uint64_t stored = 0;
    char where[400];
    chk_object_name(o, where, sizeof where);
    int rc = o < 0 ? chk_bad(c, name, "cannot be opened")
             : !storq_h5u_has_attr(o, STORQ_SCHEMA_ATTR_CRC32)
                 ? chk_bad(c, where, "has no checksum (attribute 'crc32')")
             : storq_h5u_read_attr_u64(o, STORQ_SCHEMA_ATTR_CRC32, &stored, c->err) ? -1
             : storq_h5_checksum_attrs(o, &now) || now != stored
                 ? chk_bad(c, where, "its attributes do not match the checksum written with them")
                 : STORQ_OK;
    if (o >= 0)
        H5Oclose(o);
    return rc ? -1 : 0;
}

static int check_attrs(checker *c)
{
    const char *groups[] = {"/points", "/observables", "/replications", "/theory", "/comparison"};
    for (size_t i = 0; i < sizeof groups / sizeof *groups; i++) {
        if (!storq_h5u_has_link(c->file, groups[i]))
            continue;
        hid_t g = H5Gopen2(c->file, groups[i], H5P_DEFAULT);
        herr_t e = g < 0 ? -1
                         : H5Ovisit2(g, H5_INDEX_NAME, H5_ITER_INC, attrs_one, c, H5O_INFO_BASIC);
        storq_h5u_close_group(&g);
        if (e < 0)
            return c->err->code ? c->err->code : chk_bad(c, groups[i], "cannot be walked");
    }
    return STORQ_OK;
}

int chk_columnar(checker *c, const storq_h5_rows_reader *reader)
{
    storq_cols cols;
    covered table = {0}, arrays = {0};
    storq_col *ids = NULL, *crc = NULL, *crc_arrays = NULL;
    /* room for every covered dataset and a reader's few others (the ids, the checksums) */
    int rc = storq_cols_init(&cols, c->file, covers_count(c, "/points/crc32") +
                                                 covers_count(c, "/points/crc32_arrays") + 64,
                             c->err);
    if (!rc)
        rc = storq_cols_open(&cols, "/point", &ids, c->err);
    if (!rc)
        rc = storq_cols_open(&cols, "/points/crc32", &crc, c->err);
    if (!rc)
        rc = storq_cols_open(&cols, "/points/crc32_arrays", &crc_arrays, c->err);
    if (!rc)
        rc = open_covered(c, &cols, "/points/crc32", &table);
    if (!rc)
        rc = open_covered(c, &cols, "/points/crc32_arrays", &arrays);
    if (!rc && reader)
        rc = reader->prepare(reader->ctx, &cols, c->err);
    if (!rc)
        rc = storq_cols_alloc(&cols, BLOCK_BYTES, c->err);
    uint64_t last = 0;
    share sh;
    if (!rc)
        rc = read_share(c, &sh);
    for (size_t first = 0; !rc && first < cols.nrows; first += cols.block) {
        size_t n = cols.nrows - first < cols.block ? cols.nrows - first : cols.block;
        rc = storq_cols_read(&cols, first, n, c->err);
        if (!rc)
            rc = check_ids(c, &sh, ids, first, n, &last);
        if (!rc)
            rc = check_rows(c, &cols, ids, &table, crc, first, n);
        if (!rc)
            rc = check_rows(c, &cols, ids, &arrays, crc_arrays, first, n);
        if (!rc && reader)
            rc = reader->block(reader->ctx, &cols, n, c->err);
    }
    if (!rc && reader && reader->end)
        rc = reader->end(reader->ctx, c->err);
    free(table.cols);
    free(table.has);
    free(arrays.cols);
    free(arrays.has);
    storq_cols_free(&cols);
    return rc ? rc : check_attrs(c);
}
