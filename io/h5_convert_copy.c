/* `storq convert`, the copy pass: each complete point of the 1.x file read once, in id order,
 * into its row of every 2.0 dataset (a buffer of one chunk of rows a dataset, written whole when
 * it fills), with the row's two checksums (docs/hdf5-schema-2.md, "Checksums") and the values
 * that may become the dimensions' coordinates. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "h5_checksum.h"
#include "h5_convert_internal.h"
#include "h5_util.h"
#include "schema.h"

int storq_cv_copy(cv_plan *p, storq_error *err);

typedef struct copy_state {
    cv_plan *p;
    size_t row;
    const storq_pt_node *pt, *groups[CV_NGROUPS]; /* the point and its four groups */
    unsigned char *scratch; /* one 1.x dataset's values */
    size_t scratch_len;
    int64_t *dimlen;      /* per dimension: its length at this point, -1 none */
    uint32_t crc_arrays;
} copy_state;

static int oom(storq_error *err)
{
    return STORQ_RUNTIME_FAIL(err, "convert: out of memory");
}

static int bad(const copy_state *s, const char *what, const char *name, storq_error *err)
{
    char path[STORQ_SCHEMA_POINT_PATH_MAX];
    storq_cv_point_path(s->p, s->row, path, sizeof path);
    return storq_fail(err, STORQ_ERR_USAGE, "convert: %s: object '%s': %s '%s'", s->p->in_path,
                      path, what, name);
}

/* ---- checksums: numbers as 8 bytes little-endian ---- */

static uint32_t feed_u64(uint32_t crc, uint64_t x)
{
    unsigned char b[8];
    for (int i = 0; i < 8; i++)
        b[i] = (unsigned char)(x >> (8 * i));
    return storq_crc32(crc, b, 8);
}

static int little_endian(void)
{
    const uint16_t one = 1;
    return *(const unsigned char *)&one == 1;
}

/* n 8-byte numbers (float64, int64, uint64 in memory) */
static uint32_t feed_words(uint32_t crc, const void *v, size_t n)
{
    if (little_endian())
        return storq_crc32(crc, v, 8 * n);
    const uint64_t *w = v;
    for (size_t i = 0; i < n; i++)
        crc = feed_u64(crc, w[i]);
    return crc;
}

/* One element of a per-point dataset, as the row checksum feeds it. */
static uint32_t feed_element(uint32_t crc, const cv_var *v, const unsigned char *e)
{
    uint64_t w = 0;
    switch (v->cls) {
    case 'b': return feed_u64(crc, *e);
    case 'w': {
        uint32_t x;
        memcpy(&x, e, 4);
        return feed_u64(crc, x);
    }
    case 's': {
        size_t len = strnlen((const char *)e, v->elsize);
        crc = storq_crc32(crc, e, len);
        return storq_crc32(crc, "", 1);
    }
    default:
        memcpy(&w, e, 8);
        return feed_words(crc, &w, 1);
    }
}

/* ---- rows ---- */

static unsigned char *slot(const copy_state *s, const cv_var *v)
{
    return v->buf + (s->row % v->chunk_rows) * v->rowlen * v->elsize;
}

static void fill_row(const copy_state *s, const cv_var *v)
{
    unsigned char *r = slot(s, v);
    if (v->cls == 'f') {
        double *d = (double *)(void *)r;
        for (size_t i = 0; i < v->rowlen; i++)
            d[i] = NAN;
    } else {
        memset(r, 0, v->rowlen * v->elsize);
    }
}

/* Copy a row-major array of shape src (rank) into the leading corner of one of shape dst. */
static void scatter(unsigned char *to, const unsigned char *from, int rank, const hsize_t *src,
                    const hsize_t *dst, size_t el)
{
    if (rank == 0) {
        memcpy(to, from, el);
        return;
    }
    if (rank == 1) {
        memcpy(to, from, (size_t)src[0] * el);
        return;
    }
    size_t inner_src = el, inner_dst = el;
    for (int i = 1; i < rank; i++) {
        inner_src *= (size_t)src[i];
        inner_dst *= (size_t)dst[i];
    }
    for (hsize_t i = 0; i < src[0]; i++)
        scatter(to + i * inner_dst, from + i * inner_src, rank - 1, src + 1, dst + 1, el);
}

/* The 1.x object a quantity's dataset reads, below the point. */
static const storq_pt_node *locate(const copy_state *s, const cv_var *v, const char **name)
{
    const cv_qty *q = &s->p->q[v->ref];
    *name = q->name;
    if (v->rep)
        return storq_pt_find(s->groups[CV_REP], q->name);
    const storq_pt_node *o = storq_pt_find(s->groups[q->group], q->name);
    if (q->group != CV_OBS || !o)
        return o;
    *name = v->leaf;
    return storq_pt_find(o, v->leaf);
}

static int read_layout(copy_state *s, cv_var *v, storq_error *err)
{
    const cv_qty *q = &s->p->q[v->ref];
    const storq_pt_node *og = storq_pt_find(s->groups[CV_OBS], q->name);
    const storq_pt_node *l = og ? storq_pt_find(og, STORQ_SCHEMA_BIN_EDGES) : NULL;
    size_t skip = strlen(STORQ_SCHEMA_LAYOUTS_PATH) + 1;
    for (size_t i = 0; l && l->kind == STORQ_PT_SOFTLINK && strlen(l->target) > skip &&
                       i < q->nlayouts; i++)
        if (strcmp(l->target + skip, q->layouts[i]) == 0) {
            uint32_t k = (uint32_t)i;
            memcpy(slot(s, v), &k, 4);
            return STORQ_OK;
        }
    return bad(s, "a histogram's bin_edges link changed between the passes of", q->name, err);
}

/* n values of a dataset node as float64 (to_f64) or uint64, 8 bytes each, into to. */
static void widen(unsigned char *to, const storq_pt_node *d, uint64_t n, int to_f64)
{
    size_t el = storq_pt_type_size(d->type);
    if (el == 8 && (d->type == STORQ_PT_F64) == to_f64) {
        memcpy(to, d->data, (size_t)n * 8);
        return;
    }
    for (uint64_t i = 0; i < n; i++) {
        const unsigned char *e = (const unsigned char *)d->data + i * el;
        double x = 0;
        uint64_t u = 0;
        switch (d->type) {
        case STORQ_PT_F64: memcpy(&x, e, 8); u = (uint64_t)x; break;
        case STORQ_PT_U64: memcpy(&u, e, 8); x = (double)u; break;
        case STORQ_PT_I64: { int64_t k; memcpy(&k, e, 8); x = (double)k; u = (uint64_t)k; break; }
        case STORQ_PT_U32: { uint32_t k; memcpy(&k, e, 4); x = k; u = k; break; }
        default: { int32_t k; memcpy(&k, e, 4); x = k; u = (uint64_t)(int64_t)k; break; }
        }
        memcpy(to + i * 8, to_f64 ? (const void *)&x : (const void *)&u, 8);
    }
}

/* The coordinate a dataset's values may give its dimension. */
static cv_coord *coord_of(const copy_state *s, const cv_var *v)
{
    cv_qty *q = &s->p->q[v->ref];
    if (v->rep || v->rank != 1)
        return NULL;
    if (q->kind == 'v' && strcmp(v->leaf, "axis") == 0)
        return &q->axis_coord;
    if (q->kind == 'a' && !q->scalar && q->grid_source)
        return &q->axis_coord;
    return NULL;
}

static int read_quantity(copy_state *s, cv_var *v, storq_error *err)
{
    const char *name;
    const storq_pt_node *d = locate(s, v, &name);
    if (!d || d->kind != STORQ_PT_DATASET || d->rank > CV_RANK_MAX)
        return bad(s, "cannot read", name, err);
    int rank = d->rank;
    hsize_t dims[CV_RANK_MAX] = {0};
    for (int i = 0; i < rank; i++)
        dims[i] = d->dims[i];
    uint64_t n = storq_pt_count(d);
    if (v->rank == 0 && n != 1)
        return bad(s, "not one number as at the other points:", name, err);
    if (v->rank > 0 && rank != v->rank) { /* a theory array of another rank: flat */
        if (v->rank != 1)
            return bad(s, "not of the rank it has at the other points:", name, err);
        dims[0] = (hsize_t)n;
    }
    for (int i = 0; i < v->rank; i++)
        if (dims[i] > v->shape[i])
            return bad(s, "longer than the plan made of it:", name, err);
    if ((size_t)n * 8 > s->scratch_len) {
        unsigned char *grown = realloc(s->scratch, (size_t)n * 8);
        if (!grown)
            return oom(err);
        s->scratch = grown;
        s->scratch_len = (size_t)n * 8;
    }
    widen(s->scratch, d, n, v->cls == 'f');
    scatter(slot(s, v), s->scratch, v->rank, dims, v->shape, 8);
    for (int i = 0; i < v->rank; i++)
        s->dimlen[v->dim[i]] = (int64_t)dims[i];
    if (v->rank > 0)
        s->crc_arrays = feed_words(s->crc_arrays, s->scratch, (size_t)n);
    cv_coord *c = coord_of(s, v);
    if (c && storq_cv_coord_add(c, (const double *)(const void *)s->scratch, (size_t)n) != 0)
        return oom(err);
    return STORQ_OK;
}

/* A column from the point's attributes, or (a parameter) from /points/index. */
static int read_column(copy_state *s, cv_var *v, storq_error *err)
{
    const cv_col *c = &s->p->c[v->ref];
    unsigned char *to = slot(s, v);
    if (c->param >= 0) {
        const unsigned char *row = s->p->index + s->p->ids[s->row] * s->p->index_size;
        memcpy(to, row + c->field_offset, v->elsize);
        if (v->cls == 's')
            to[v->elsize - 1] = '\0';
        return STORQ_OK;
    }
    const storq_pt_attr *a = storq_pt_attr_find(s->pt, c->name);
    if (!a) {
        if (v->cls == 'f')
            memcpy(to, &(double){NAN}, 8);
        return STORQ_OK;
    }
    if (v->cls == 's') {
        if (a->type != STORQ_PT_STR || a->rank != 0)
            return bad(s, "cannot read the attribute", c->name, err);
        strncpy((char *)to, ((char *const *)a->data)[0], v->elsize - 1);
        return STORQ_OK;
    }
    if (a->type == STORQ_PT_STR || a->n != 1)
        return bad(s, "cannot read the attribute", c->name, err);
    storq_pt_node one = {.type = a->type, .data = a->data};
    if (v->cls == 'i') { /* int64 columns: as the file's signed value */
        int64_t k = a->type == STORQ_PT_F64 ? (int64_t)((const double *)a->data)[0]
                    : a->type == STORQ_PT_I32 ? ((const int32_t *)a->data)[0]
                    : a->type == STORQ_PT_U32 ? (int64_t)((const uint32_t *)a->data)[0]
                                              : ((const int64_t *)a->data)[0];
        memcpy(to, &k, 8);
        return STORQ_OK;
    }
    widen(to, &one, 1, v->cls == 'f');
    return STORQ_OK;
}

static int open_point(copy_state *s, storq_error *err)
{
    STORQ_TRY(s->p->src.point(s->p->src.ctx, s->row, &s->pt, err));
    for (int g = 0; g < CV_NGROUPS; g++) {
        s->groups[g] = storq_pt_find(s->pt, storq_cv_group_names[g]);
        if (!s->groups[g] || s->groups[g]->kind != STORQ_PT_GROUP)
            return bad(s, "cannot open", storq_cv_group_names[g], err);
    }
    return STORQ_OK;
}

/* Row s->row of every dataset. */
static int copy_row(copy_state *s, storq_error *err)
{
    cv_plan *p = s->p;
    uint64_t id = p->ids[s->row];
    for (size_t i = 0; i < p->nv; i++)
        fill_row(s, &p->v[i]);
    for (size_t i = 0; i < p->nd; i++)
        s->dimlen[i] = -1;
    s->crc_arrays = feed_u64(0, id);
    STORQ_TRY(open_point(s, err));
    int rc = STORQ_OK;
    for (size_t i = 0; !rc && i < p->nv; i++) {
        cv_var *v = &p->v[i];
        if ((v->role == CV_R_QTY || v->role == CV_R_LAYOUT) && !p->q[v->ref].present[s->row])
            continue;
        if (v->role == CV_R_QTY)
            rc = read_quantity(s, v, err);
        else if (v->role == CV_R_LAYOUT)
            rc = read_layout(s, v, err);
        else if (v->role == CV_R_COL)
            rc = read_column(s, v, err);
    }
    STORQ_TRY(rc);
    uint32_t crc = feed_u64(0, id);
    for (size_t i = 0; i < p->nv; i++) {
        cv_var *v = &p->v[i];
        unsigned char *to = slot(s, v);
        if (v->role == CV_R_STATUS)
            *to = 1;
        else if (v->role == CV_R_HAS)
            *to = p->q[v->ref].present[s->row];
        else if (v->role == CV_R_NDIM) {
            uint32_t n = s->dimlen[v->ref] > 0 ? (uint32_t)s->dimlen[v->ref] : 0;
            memcpy(to, &n, 4);
        } else if (v->role == CV_R_CRCA)
            memcpy(to, &s->crc_arrays, 4);
        if (v->table)
            crc = feed_element(crc, v, to);
    }
    for (size_t i = 0; i < p->nv; i++)
        if (p->v[i].role == CV_R_CRC)
            memcpy(slot(s, &p->v[i]), &crc, 4);
    return STORQ_OK;
}

/* The rows of v's buffer, once full or at the last row. */
static int flush(copy_state *s, cv_var *v, storq_error *err)
{
    size_t n = s->row % v->chunk_rows + 1;
    if (n != v->chunk_rows && s->row + 1 != s->p->P)
        return STORQ_OK;
    if (v->rowlen == 0)
        return STORQ_OK;
    hsize_t start[CV_RANK_MAX + 1] = {s->row + 1 - n}, count[CV_RANK_MAX + 1] = {n};
    for (int i = 0; i < v->rank; i++)
        count[i + 1] = v->shape[i];
    hid_t fs = H5Dget_space(v->ds), ms = H5Screate_simple(v->rank + 1, count, NULL);
    herr_t rc = fs >= 0 && ms >= 0 &&
                H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL) >= 0
                    ? H5Dwrite(v->ds, v->mtype, ms, fs, H5P_DEFAULT, v->buf) : -1;
    storq_h5u_close_space(&fs);
    storq_h5u_close_space(&ms);
    if (rc < 0)
        return storq_h5u_fail(err, v->ds, "cannot write rows %zu to %zu", s->row + 1 - n,
                              s->row);
    return STORQ_OK;
}

int storq_cv_copy(cv_plan *p, storq_error *err)
{
    copy_state s = {.p = p};
    s.dimlen = calloc(p->nd + 1, sizeof *s.dimlen);
    int rc = s.dimlen ? STORQ_OK : oom(err);
    for (size_t i = 0; !rc && i < p->nv; i++) {
        cv_var *v = &p->v[i];
        size_t rows = v->chunk_rows ? v->chunk_rows : 1;
        v->chunk_rows = rows;
        v->buf = malloc(rows * (v->rowlen ? v->rowlen : 1) * v->elsize);
        if (!v->buf)
            rc = oom(err);
    }
    for (s.row = 0; !rc && s.row < p->P; s.row++) {
        rc = copy_row(&s, err);
        for (size_t i = 0; !rc && i < p->nv; i++)
            rc = flush(&s, &p->v[i], err);
    }
    for (size_t i = 0; i < p->nv; i++) {
        free(p->v[i].buf);
        p->v[i].buf = NULL;
    }
    free(s.scratch);
    free(s.dimlen);
    return rc;
}
