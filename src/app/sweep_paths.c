#include "sweep_paths.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#define TRACE "trace:"

char *storq_sweep_dir(const char *path, int absolute)
{
    const char *slash = strrchr(path, '/');
    /* "/s.ini" is in "/", "a/s.ini" in "a" */
    size_t len = slash ? (slash == path ? 1 : (size_t)(slash - path)) : 0;
    char *dir = strndup(path, len);
    if (!dir || !absolute)
        return dir;
    char *real = realpath(len ? dir : ".", NULL);
    if (!real)
        return dir; /* it was just read from there: the given name still works */
    free(dir);
    return real;
}

char *storq_path_in_dir(const char *dir, const char *path)
{
    if (!*dir || path[0] == '/')
        return strdup(path);
    size_t n = strlen(dir);
    int sep = dir[n - 1] != '/';
    char *out = malloc(n + (size_t)sep + strlen(path) + 1);
    if (out) {
        memcpy(out, dir, n);
        if (sep)
            out[n] = '/';
        strcpy(out + n + (size_t)sep, path);
    }
    return out;
}

/* law with a relative trace put in dir; NULL out of memory. */
static char *law_in_dir(const char *dir, const char *law, size_t len)
{
    size_t t = strlen(TRACE);
    char *rel = strndup(law, len), *out = NULL;
    if (!rel)
        return NULL;
    if (len <= t || strncmp(rel, TRACE, t) || rel[t] == '/') {
        out = rel; /* not a trace, no file named, or an absolute path */
        rel = NULL;
    } else {
        char *path = storq_path_in_dir(dir, rel + t);
        out = path ? malloc(t + strlen(path) + 1) : NULL;
        if (out) {
            memcpy(out, TRACE, t);
            strcpy(out + t, path);
        }
        free(path);
    }
    free(rel);
    return out;
}

/* The position of the law among a class's ':'-separated fields (NAME first), or -1: the field of
 * m->class_fields that names a law parameter, when it is the last one (a law holds ':' itself). */
static int class_law_field(const storq_model *m)
{
    if (!m->class_fields)
        return -1;
    int index = 1, law = -1;
    for (const char *f = m->class_fields; *f; index++) {
        size_t len = strcspn(f, ":");
        law = -1;
        for (const storq_param_def *d = m->params; d->name; d++)
            if (d->laws && strlen(d->name) == len && !strncmp(d->name, f, len))
                law = index;
        f += len + (f[len] == ':');
    }
    return law;
}

/* Append n bytes of s to the buffer out of capacity cap (enough by construction). */
static void put(char *out, size_t *used, const char *s, size_t n)
{
    memcpy(out + *used, s, n);
    *used += n;
    out[*used] = '\0';
}

static char *classes_in_dir(const storq_model *m, const char *dir, const char *classes)
{
    int law = class_law_field(m);
    if (law < 0)
        return strdup(classes);
    size_t nclass = 1;
    for (const char *p = classes; *p; p++)
        nclass += *p == '|' || *p == ';';
    char *out = malloc(strlen(classes) + nclass * (strlen(dir) + 1) + 1);
    if (!out)
        return NULL;
    size_t used = 0;
    out[0] = '\0';
    for (const char *c = classes;;) {
        size_t len = strcspn(c, "|;");
        /* skip NAME and the fields before the law */
        size_t at = 0;
        for (int field = 0; field < law && at < len; field++)
            at += strcspn(c + at, ":|;") + 1;
        if (at > len)
            at = len; /* too few fields: the model's parser names the class */
        put(out, &used, c, at);
        char *resolved = law_in_dir(dir, c + at, len - at);
        if (!resolved) {
            free(out);
            return NULL;
        }
        put(out, &used, resolved, strlen(resolved));
        free(resolved);
        c += len;
        if (!*c)
            break;
        put(out, &used, c, 1); /* the separator */
        c++;
    }
    return out;
}

char *storq_value_in_dir(const storq_model *m, const storq_param_def *def, const char *dir,
                         const char *value)
{
    if (def->laws)
        return law_in_dir(dir, value, strlen(value));
    if (m->class_fields && !strcmp(def->name, "classes"))
        return classes_in_dir(m, dir, value);
    return strdup(value);
}
