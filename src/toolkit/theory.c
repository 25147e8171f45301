#include "theory.h"

#include <stdlib.h>
#include <stdio.h>
#include <string.h>

int storq_theory_add(storq_theory *t, const char *name, const char *unit, const char *desc,
                     const char *grid, const double *data, size_t len, storq_error *err)
{
    if (t->n == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 8;
        storq_array *items = realloc(t->items, cap * sizeof *items);
        if (!items)
            return STORQ_RUNTIME_FAIL(err, "out of memory");
        t->items = items;
        t->cap = cap;
    }
    storq_array *a = &t->items[t->n];
    memset(a, 0, sizeof *a);
    snprintf(a->name, sizeof a->name, "%s", name);
    snprintf(a->unit, sizeof a->unit, "%s", unit ? unit : "");
    snprintf(a->desc, sizeof a->desc, "%s", desc ? desc : "");
    snprintf(a->grid, sizeof a->grid, "%s", grid ? grid : "");
    a->data = malloc((len ? len : 1) * sizeof *a->data);
    if (!a->data)
        return STORQ_RUNTIME_FAIL(err, "out of memory");
    memcpy(a->data, data, len * sizeof *a->data);
    a->len = len;
    t->n++;
    return STORQ_OK;
}

int storq_theory_scalar(storq_theory *t, const char *name, const char *unit, const char *desc,
                        double value, storq_error *err)
{
    return storq_theory_add(t, name, unit, desc, "", &value, 1, err);
}

const storq_array *storq_theory_find(const storq_theory *t, const char *name)
{
    for (size_t i = 0; t && i < t->n; i++)
        if (strcmp(t->items[i].name, name) == 0)
            return &t->items[i];
    return NULL;
}

void storq_theory_free(storq_theory *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->n; i++)
        free(t->items[i].data);
    free(t->items);
    memset(t, 0, sizeof *t);
}
