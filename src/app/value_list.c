/* Values as the user writes them: see value_list.h. */
#include "value_list.h"

#include <stdlib.h>
#include <string.h>

int storq_ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

char *storq_spec_strdup(const char *s, storq_error *err)
{
    char *d = strdup(s);
    if (!d)
        STORQ_RUNTIME_FAIL(err, "out of memory");
    return d;
}

int storq_spec_where(char **slot, const char *what, storq_error *err)
{
    free(*slot);
    *slot = storq_spec_strdup(what, err);
    return *slot ? STORQ_OK : STORQ_ERR_RUNTIME;
}

void storq_free_values(char **values, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(values[i]);
    free(values);
}

/* A list item that continues a law's parameters rather than starting a value: a number (or a pmf
 * entry such as 4=0.5) after a value that names a law with parameters (name:...). */
static int continues_law(const char *prev, const char *item)
{
    return prev && strchr(prev, ':') && strchr("0123456789.+-", item[0]);
}

static int is_blank(char c)
{
    return c == ' ' || c == '\t';
}

static int empty_item(const storq_param_def *def, const char *text, const char *why,
                      storq_error *err)
{
    return storq_fail(err, STORQ_ERR_USAGE,
                      "--%s: an empty item in '%.60s%s' (%s); separate "
                      "values by one comma or by blanks",
                      def->name, text, strlen(text) > 60 ? "..." : "", why);
}

/* Add one item, or append it to the law before it (its numbers continue it). */
static int add_item(char **out, size_t *n, const char *start, size_t len, storq_error *err)
{
    char *tok = strndup(start, len);
    if (!tok)
        return STORQ_RUNTIME_FAIL(err, "out of memory");
    if (!continues_law(*n ? out[*n - 1] : NULL, tok)) {
        out[(*n)++] = tok;
        return STORQ_OK;
    }
    size_t have = strlen(out[*n - 1]);
    char *grown = realloc(out[*n - 1], have + len + 2);
    if (!grown) {
        free(tok);
        return STORQ_RUNTIME_FAIL(err, "out of memory");
    }
    grown[have] = ',';
    memcpy(grown + have + 1, tok, len + 1);
    out[*n - 1] = grown;
    free(tok);
    return STORQ_OK;
}

int storq_split_values(const storq_param_def *def, const char *text, char ***values,
                       size_t *nvalues, storq_error *err)
{
    size_t n = 0;
    char **out = calloc(strlen(text) / 2 + 2, sizeof *out); /* items are >= 1 char apart */
    if (!out)
        return STORQ_RUNTIME_FAIL(err, "out of memory");
    int rc = STORQ_OK;
    const char *p = text;
    while (is_blank(*p))
        p++;
    if (*p == ',')
        rc = empty_item(def, text, "a comma with nothing before it", err);
    /* Here p is at an item's first character (or the end). */
    while (*p && !rc) {
        const char *start = p;
        while (*p && *p != ',' && !is_blank(*p))
            p++;
        size_t len = (size_t)(p - start);
        while (is_blank(*p))
            p++;
        if (*p == ',') {
            p++;
            while (is_blank(*p))
                p++;
            if (*p == ',')
                rc = empty_item(def, text, "two commas with nothing between them", err);
            else if (!*p)
                rc = empty_item(def, text, "a comma with nothing after it", err);
        }
        if (!rc)
            rc = add_item(out, &n, start, len, err);
    }
    if (!rc && n == 0)
        rc = storq_fail(err, STORQ_ERR_USAGE, "--%s: no value given", def->name);
    if (rc) {
        storq_free_values(out, n);
        return rc;
    }
    *values = out;
    *nvalues = n;
    return STORQ_OK;
}
