/* `storq convert`: a quantity's attributes (unit, description, grid, an axis's name...). 1.x
 * stored them on every point's object; one the same at every point that has the quantity is
 * stored once, as 1.x did; one that differs between points (a cluster's grid naming the
 * point's policy, a description naming its load) becomes an array of one value a row, "" or 0
 * where the row lacks the quantity (docs/hdf5-schema-2.md, Quantities). They are gathered as the
 * plan pass reads each point, so no point is read again for them. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "h5_convert_internal.h"
#include "h5_util.h"
#include "schema.h"

#define MISSING "\x01missing"

static int oom(storq_error *err)
{
    return STORQ_RUNTIME_FAIL(err, "convert: out of memory");
}

static int same_sub(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static int attr_kind(const storq_pt_attr *a)
{
    if (a->rank != 0)
        return 'o';
    return a->type == STORQ_PT_STR ? 's' : 'n';
}

static double attr_number(const storq_pt_attr *a)
{
    switch (a->type) {
    case STORQ_PT_F64: return ((const double *)a->data)[0];
    case STORQ_PT_U64: return (double)((const uint64_t *)a->data)[0];
    case STORQ_PT_I64: return (double)((const int64_t *)a->data)[0];
    case STORQ_PT_U32: return (double)((const uint32_t *)a->data)[0];
    case STORQ_PT_I32: return (double)((const int32_t *)a->data)[0];
    default: return NAN;
    }
}

static int copy_attr(storq_pt_attr *to, const storq_pt_attr *from)
{
    memset(to, 0, sizeof *to);
    to->name = strdup(from->name);
    to->type = from->type;
    to->rank = from->rank;
    to->n = from->n;
    size_t el = from->type == STORQ_PT_STR ? sizeof(char *) : storq_pt_type_size(from->type);
    to->data = calloc(from->n ? from->n : 1, el);
    if (!to->name || !to->data)
        return -1;
    if (from->type != STORQ_PT_STR) {
        memcpy(to->data, from->data, from->n * el);
        return 0;
    }
    for (size_t i = 0; i < from->n; i++)
        if (!(((char **)to->data)[i] = strdup(((char *const *)from->data)[i])))
            return -1;
    return 0;
}

static void free_attr(storq_pt_attr *a)
{
    if (a->type == STORQ_PT_STR)
        for (size_t i = 0; a->data && i < a->n; i++)
            free(((char **)a->data)[i]);
    free(a->data);
    free(a->name);
}

static cv_aset *aset_find(const cv_qty *q, const char *sub)
{
    for (size_t i = 0; i < q->nasets; i++)
        if (same_sub(q->asets[i].sub, sub))
            return &q->asets[i];
    return NULL;
}

/* The first object seen: its attributes become the set's. */
static int aset_start(cv_aset *s, const storq_pt_node *obj)
{
    s->first = calloc(obj->nattrs + 1, sizeof *s->first);
    s->rows = calloc(obj->nattrs + 1, sizeof *s->rows);
    if (!s->first || !s->rows)
        return -1;
    for (size_t i = 0; i < obj->nattrs; i++) {
        s->n = i + 1;
        if (copy_attr(&s->first[i], &obj->attrs[i]) != 0)
            return -1;
        s->rows[i].kind = attr_kind(&obj->attrs[i]);
    }
    return 0;
}

/* Row row's value of attribute i, against the first's; the per-row array made at the first
 * difference, holding the first's value at the earlier rows that had the quantity. */
static int gather_one(const cv_plan *p, const cv_qty *q, cv_aset *s, size_t i,
                      const storq_pt_node *obj, size_t row)
{
    cv_arow *r = &s->rows[i];
    const storq_pt_attr *first = &s->first[i];
    const storq_pt_attr *a = storq_pt_attr_find(obj, first->name);
    if (r->kind == 's') {
        const char *v = a && attr_kind(a) == 's' ? ((char *const *)a->data)[0] : MISSING;
        const char *f = ((char *const *)first->data)[0];
        if (!r->differ && strcmp(v, f) == 0)
            return 0;
        if (!r->differ) {
            if (!(r->text = calloc(p->P + 1, sizeof *r->text)))
                return -1;
            for (size_t k = 0; k < row; k++)
                if (q->present[k] && !(r->text[k] = strdup(f)))
                    return -1;
            r->differ = 1;
        }
        return (r->text[row] = strdup(v)) ? 0 : -1;
    }
    if (r->kind != 'n')
        return 0;
    double x = a && attr_kind(a) == 'n' ? attr_number(a) : NAN, f = attr_number(first);
    if (!r->differ && (x == f || (isnan(x) && isnan(f))))
        return 0;
    if (!r->differ) {
        if (!(r->num = calloc(p->P + 1, sizeof *r->num)))
            return -1;
        for (size_t k = 0; k < row; k++)
            r->num[k] = f;
        r->differ = 1;
    }
    r->num[row] = x;
    return 0;
}

int storq_cv_attrs_gather(cv_plan *p, size_t qi, const char *sub, const storq_pt_node *obj,
                          size_t row, storq_error *err)
{
    cv_qty *q = &p->q[qi];
    cv_aset *s = aset_find(q, sub);
    if (!s) {
        if (storq_cv_push((void **)&q->asets, &q->nasets, sizeof *q->asets) != 0)
            return oom(err);
        s = &q->asets[q->nasets - 1];
        if ((sub && !(s->sub = strdup(sub))) || aset_start(s, obj) != 0)
            return oom(err);
    } else {
        for (size_t i = 0; i < s->n; i++)
            if (gather_one(p, q, s, i, obj, row) != 0)
                return oom(err);
    }
    s->seen++;
    return STORQ_OK;
}

/* Attribute i of s written to dst: once, as the first row's, or one a row. */
static int write_one(const cv_plan *p, const cv_qty *q, const cv_aset *s, size_t i, hid_t dst,
                     storq_error *err)
{
    const cv_arow *r = &s->rows[i];
    const char *name = s->first[i].name;
    if (!r->differ || r->kind == 'o')
        return storq_pt_write_attr(dst, &s->first[i], err);
    if (r->kind == 's') {
        const char **v = calloc(p->P + 1, sizeof *v);
        if (!v)
            return oom(err);
        for (size_t k = 0; k < p->P; k++)
            v[k] = q->present[k] && r->text[k] && strcmp(r->text[k], MISSING) ? r->text[k] : "";
        int rc = storq_h5u_attr_strings(dst, name, v, p->P, err);
        free(v);
        return rc;
    }
    storq_pt_attr a = {.name = (char *)name, .type = STORQ_PT_F64, .rank = 1, .n = p->P};
    double *x = calloc(p->P + 1, sizeof *x);
    if (!x)
        return oom(err);
    for (size_t k = 0; k < p->P; k++)
        x[k] = q->present[k] ? r->num[k] : 0;
    a.data = x;
    int rc = storq_pt_write_attr(dst, &a, err);
    free(x);
    return rc;
}

int storq_cv_quantity_attrs(const cv_plan *p, size_t qi, const char *sub, hid_t dst,
                            storq_error *err)
{
    const cv_qty *q = &p->q[qi];
    const cv_aset *s = aset_find(q, sub);
    if (!s)
        return q->npresent ? storq_fail(err, STORQ_ERR_USAGE, "convert: %s: '%s' has an object "
                                        "at none of its points", p->in_path, q->name)
                           : STORQ_OK;
    if (s->seen != q->npresent)
        return storq_fail(err, STORQ_ERR_USAGE, "convert: %s: '%s' lacks one of its objects at "
                          "some points", p->in_path, q->name);
    for (size_t i = 0; i < s->n; i++)
        STORQ_TRY(write_one(p, q, s, i, dst, err));
    return STORQ_OK;
}

void storq_cv_asets_free(cv_qty *q)
{
    for (size_t i = 0; i < q->nasets; i++) {
        cv_aset *s = &q->asets[i];
        for (size_t k = 0; k < s->n; k++) {
            if (s->rows && s->rows[k].text)
                for (size_t r = 0; r < q->len[0].rows; r++)
                    free(s->rows[k].text[r]);
            if (s->rows) {
                free(s->rows[k].text);
                free(s->rows[k].num);
            }
            free_attr(&s->first[k]);
        }
        free(s->first);
        free(s->rows);
        free(s->sub);
    }
    free(q->asets);
    q->asets = NULL;
    q->nasets = 0;
}
