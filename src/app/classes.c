#include "classes.h"

#include <stdlib.h>
#include <string.h>

#include "params.h"
#include "run_spec.h"
#include "value_list.h"

#define PREFIX "class."

int storq_is_class_section(const char *section)
{
    return !strncmp(section, PREFIX, strlen(PREFIX));
}

/* Append piece to the growing *out (with sep before it unless it is the first). */
static int append(char **out, size_t *len, const char *sep, const char *piece, storq_error *err)
{
    size_t add = (*len ? strlen(sep) : 0) + strlen(piece);
    char *grown = realloc(*out, *len + add + 1);
    if (!grown)
        return STORQ_RUNTIME_FAIL(err, "out of memory");
    if (*len)
        strcpy(grown + *len, sep);
    strcpy(grown + *len + (*len ? strlen(sep) : 0), piece);
    *out = grown;
    *len += add;
    return STORQ_OK;
}

int storq_classes_from_flags(const storq_model *m, const storq_args *a, char **classes,
                             storq_error *err)
{
    *classes = NULL;
    size_t len = 0;
    int given = 0, listed = 0;
    for (size_t i = 0; i < a->nparams; i++) {
        listed |= !strcmp(a->params[i].name, "classes");
        if (strcmp(a->params[i].name, "class"))
            continue;
        given = 1;
        if (!m->class_fields)
            return storq_fail(err, STORQ_ERR_USAGE, "--class: model '%s' has no request classes",
                              m->name);
        int rc = append(classes, &len, "|", a->params[i].value, err);
        if (rc) {
            free(*classes);
            *classes = NULL;
            return rc;
        }
    }
    if (given && listed) {
        free(*classes);
        *classes = NULL;
        return storq_fail(err, STORQ_ERR_USAGE, "--class: give the classes one by one (--class) "
                          "or all at once (--classes), not both");
    }
    return STORQ_OK;
}

/* The number of ':'-separated fields of spec. */
static size_t count_fields(const char *spec)
{
    size_t n = 1;
    for (; *spec; spec++)
        n += *spec == ':';
    return n;
}

/* The field number of key in fields ("share:k:nmax:delay"), or -1. */
static int field_index(const char *fields, const char *key)
{
    size_t k = strlen(key);
    int i = 0;
    for (const char *f = fields; *f; i++) {
        size_t len = strcspn(f, ":");
        if (len == k && !strncmp(f, key, k))
            return i;
        f += len + (f[len] == ':');
    }
    return -1;
}

/* 1 when value is one value under the list rule (a law's numbers continue it: shexp:0.1,1.25 is
 * one), without '|' or ':' outside a law. */
static int single_value(const storq_model *m, const char *value)
{
    size_t idx;
    const storq_param_def *def = storq_param_find(m->params, "classes", &idx);
    char **values;
    size_t n;
    storq_error ignore = {0};
    if (!def || strchr(value, '|') || storq_split_values(def, value, &values, &n, &ignore))
        return 0;
    for (size_t i = 0; i < n; i++)
        free(values[i]);
    free(values);
    return n == 1;
}

/* One [class.NAME] section as NAME:V1:V2:... into *out. */
static int one_class(const storq_model *m, const storq_sweep_file *f, const char *section,
                     int section_line, char **out, storq_error *err)
{
    const char *name = section + strlen(PREFIX);
    size_t nf = count_fields(m->class_fields);
    const storq_sweep_entry **by_field = calloc(nf, sizeof *by_field);
    if (!by_field)
        return STORQ_RUNTIME_FAIL(err, "out of memory");
    int rc = STORQ_OK;
    if (!*name)
        rc = storq_fail(err, STORQ_ERR_USAGE, "%s:%d: [%s]: a class section needs a name: "
                        "[class.NAME]", f->path, section_line, section);
    for (size_t i = 0; !rc && i < f->nentries; i++) {
        const storq_sweep_entry *e = &f->entries[i];
        if (strcmp(e->section, section))
            continue;
        int fi = field_index(m->class_fields, e->key);
        if (fi < 0)
            rc = storq_fail(err, STORQ_ERR_USAGE, "%s:%d: [%s] %.60s: not a field of a class; "
                            "accepted: %s (one each)", f->path, e->line, section, e->key,
                            m->class_fields);
        else if (!single_value(m, e->value))
            rc = storq_fail(err, STORQ_ERR_USAGE, "%s:%d: [%s] %s: one value per class field; to "
                            "sweep over classes, list whole classes in `classes`", f->path,
                            e->line, section, e->key);
        else
            by_field[fi] = e;
    }
    size_t len = 0;
    if (!rc)
        rc = append(out, &len, "", name, err);
    const char *field = m->class_fields;
    for (size_t i = 0; !rc && i < nf; i++) {
        size_t flen = strcspn(field, ":");
        if (!by_field[i])
            rc = storq_fail(err, STORQ_ERR_USAGE, "%s:%d: [%s]: no `%.*s =`; a class gives each "
                            "of %s", f->path, section_line, section, (int)flen, field,
                            m->class_fields);
        else
            rc = append(out, &len, ":", by_field[i]->value, err);
        field += flen + (field[flen] == ':');
    }
    free(by_field);
    return rc;
}

int storq_classes_from_sections(const storq_model *m, const storq_sweep_file *f, char **classes,
                                int *line, storq_error *err)
{
    *classes = NULL;
    *line = 0;
    size_t len = 0;
    for (size_t s = 0; s < f->nsections; s++) {
        const storq_sweep_section *sec = &f->sections[s];
        if (!storq_is_class_section(sec->name))
            continue;
        if (!m->class_fields)
            return storq_fail(err, STORQ_ERR_USAGE, "%s:%d: [%.60s]: model '%s' has no request "
                              "classes", f->path, sec->line, sec->name, m->name);
        char *one = NULL;
        int rc = one_class(m, f, sec->name, sec->line, &one, err);
        if (!rc)
            rc = append(classes, &len, "|", one, err);
        free(one);
        if (rc) {
            free(*classes);
            *classes = NULL;
            return rc;
        }
        if (!*line)
            *line = sec->line;
    }
    return STORQ_OK;
}
