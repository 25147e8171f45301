#include "sweep_file.h"

#include "file_kind.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int is_blank(char c) { return c == ' ' || c == '\t'; }

/* How much of a line to quote in a message: enough to recognise it, never a megabyte. */
#define QUOTE_MAX 60

static void quote(char *buf, size_t size, const char *s)
{
    size_t n = strlen(s);
    if (n > QUOTE_MAX)
        snprintf(buf, size, "%.*s...", QUOTE_MAX, s);
    else
        snprintf(buf, size, "%s", s);
}

/* s without its leading and trailing blanks, in place. */
static char *trim(char *s)
{
    while (is_blank(*s))
        s++;
    size_t n = strlen(s);
    while (n && is_blank(s[n - 1]))
        s[--n] = '\0';
    return s;
}

/* Cut a comment off: ; or # at the start or after a blank starts one. */
static void cut_comment(char *s)
{
    for (char *p = s; *p; p++) {
        if ((*p == ';' || *p == '#') && (p == s || is_blank(p[-1]))) {
            *p = '\0';
            return;
        }
    }
}

/* `name =` or `[`: what an indented line looks like when it was meant as a line of its own. */
static int looks_like_own_line(const char *s)
{
    if (*s == '[')
        return 1;
    const char *p = s;
    while ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || *p == '_' ||
           (p > s && ((*p >= '0' && *p <= '9') || *p == '-')))
        p++;
    if (p == s)
        return 0;
    while (is_blank(*p))
        p++;
    return *p == '=';
}

static char *dup_or_fail(const char *s, storq_error *err)
{
    char *d = strdup(s);
    if (!d)
        STORQ_RUNTIME_FAIL(err, "out of memory");
    return d;
}

static int add_section(storq_sweep_file *f, const char *name, int line, storq_error *err)
{
    if (storq_sweep_file_section_line(f, name))
        return STORQ_OK;
    storq_sweep_section *g = realloc(f->sections, (f->nsections + 1) * sizeof *g);
    if (!g)
        return STORQ_RUNTIME_FAIL(err, "out of memory");
    f->sections = g;
    if (!(g[f->nsections].name = dup_or_fail(name, err)))
        return STORQ_ERR_RUNTIME;
    g[f->nsections++].line = line;
    return STORQ_OK;
}

static int add_entry(storq_sweep_file *f, const char *section, const char *key, const char *value,
                     int line, storq_error *err)
{
    const storq_sweep_entry *dup = storq_sweep_file_find(f, section, key);
    if (dup)
        return storq_fail(err, STORQ_ERR_USAGE, "%s:%d: [%s] %s: given twice (lines %d and %d); "
                          "keep one", f->path, line, section, key, dup->line, line);
    storq_sweep_entry *g = realloc(f->entries, (f->nentries + 1) * sizeof *g);
    if (!g)
        return STORQ_RUNTIME_FAIL(err, "out of memory");
    f->entries = g;
    storq_sweep_entry *e = &g[f->nentries];
    memset(e, 0, sizeof *e);
    e->line = line;
    f->nentries++;
    if (!(e->section = dup_or_fail(section, err)) || !(e->key = dup_or_fail(key, err)) ||
        !(e->value = dup_or_fail(value, err)))
        return STORQ_ERR_RUNTIME;
    return STORQ_OK;
}

/* Append a continuation line to the last entry's value, one blank between. */
static int continue_value(storq_sweep_file *f, const char *more, storq_error *err)
{
    storq_sweep_entry *e = &f->entries[f->nentries - 1];
    size_t n = strlen(e->value), m = strlen(more);
    char *g = realloc(e->value, n + m + 2);
    if (!g)
        return STORQ_RUNTIME_FAIL(err, "out of memory");
    if (n)
        g[n++] = ' ';
    memcpy(g + n, more, m + 1);
    e->value = g;
    return STORQ_OK;
}

/* Bytes a text file has no business holding: NUL and the other control characters but tab. */
static int check_bytes(const storq_sweep_file *f, const char *s, size_t len, int line,
                       storq_error *err)
{
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if ((c < 0x20 && c != '\t') || c == 0x7f)
            return storq_fail(err, STORQ_ERR_USAGE, "%s:%d: byte %zu of the line is a control "
                              "character (0x%02x%s); a sweep file is plain text",
                              f->path, line, i + 1, c, c == 0 ? ", NUL" : "");
    }
    return STORQ_OK;
}

/* One line (its bytes checked, the newline and a CR before it removed). open: the line of the
 * key whose value an indented line would continue, or 0 when none may. */
static int read_line(storq_sweep_file *f, char *s, int line, char *section, size_t section_size,
                     int *open, storq_error *err)
{
    char shown[QUOTE_MAX + 8];
    int indented = is_blank(*s);
    char *t = s;
    while (is_blank(*t))
        t++;
    if (!*t) { /* a blank line ends a value */
        *open = 0;
        return STORQ_OK;
    }
    if (*t == ';' || *t == '#') /* a comment line: a value may go on after it */
        return STORQ_OK;
    cut_comment(t);
    t = trim(t);
    if (indented) {
        if (!*open)
            return storq_fail(err, STORQ_ERR_USAGE, "%s:%d: an indented line continues nothing: "
                              "it must follow a `key = value` line (or its continuation, or a "
                              "comment between them) with no blank line; unindent it if it "
                              "stands alone", f->path, line);
        if (looks_like_own_line(t)) {
            quote(shown, sizeof shown, t);
            return storq_fail(err, STORQ_ERR_USAGE, "%s:%d: `%s` is indented, so it would "
                              "continue the value of [%s] %s (line %d); unindent it if it is "
                              "a line of its own", f->path, line, shown, section,
                              f->entries[f->nentries - 1].key, *open);
        }
        return continue_value(f, t, err);
    }
    *open = 0;
    if (*t == '[') {
        size_t n = strlen(t);
        char *name = t + 1;
        if (n < 3 || t[n - 1] != ']') {
            quote(shown, sizeof shown, t);
            return storq_fail(err, STORQ_ERR_USAGE, "%s:%d: `%s` is not a section header "
                              "(`[name]`)", f->path, line, shown);
        }
        t[n - 1] = '\0';
        name = trim(name);
        if (!*name || strpbrk(name, "[]") || strlen(name) >= section_size) {
            quote(shown, sizeof shown, name);
            return storq_fail(err, STORQ_ERR_USAGE, "%s:%d: `[%s]` is not a section name",
                              f->path, line, shown);
        }
        strcpy(section, name);
        return add_section(f, section, line, err);
    }
    char *eq = strchr(t, '=');
    if (!eq) {
        quote(shown, sizeof shown, t);
        return storq_fail(err, STORQ_ERR_USAGE, "%s:%d: `%s` is neither `key = value` nor "
                          "`[section]` nor a comment", f->path, line, shown);
    }
    *eq = '\0';
    char *key = trim(t), *value = trim(eq + 1);
    if (!*key || strpbrk(key, " \t")) {
        quote(shown, sizeof shown, key);
        return storq_fail(err, STORQ_ERR_USAGE, "%s:%d: `%s` is not a key (one word before "
                          "the `=`)", f->path, line, shown);
    }
    if (!*section)
        return storq_fail(err, STORQ_ERR_USAGE, "%s:%d: %s: outside any section; put it under "
                          "[run] or [MODEL]", f->path, line, key);
    STORQ_TRY(add_entry(f, section, key, value, line, err));
    *open = line;
    return STORQ_OK;
}

static int read_all(const char *path, char **text, size_t *len, storq_error *err)
{
    /* what it is before it is opened: a FIFO or a device would block or worse */
    int fd = -1;
    STORQ_TRY(storq_open_regular(path, NULL, "a sweep file", &fd, err));
    FILE *fp = fd >= 0 ? fdopen(fd, "rb") : fopen(path, "rb");
    if (!fp)
        return storq_fail(err, STORQ_ERR_USAGE, "%s: cannot read the sweep file: %s", path,
                          strerror(errno));
    struct stat st;
    int rc = STORQ_OK;
    if (fstat(fileno(fp), &st) != 0 || !S_ISREG(st.st_mode))
        rc = storq_fail(err, STORQ_ERR_USAGE, "%s: the sweep file is not a regular file", path);
    else if ((unsigned long long)st.st_size > STORQ_SWEEP_FILE_MAX_BYTES)
        rc = storq_fail(err, STORQ_ERR_USAGE, "%s: the sweep file has %lld bytes; at most %u "
                        "are read", path, (long long)st.st_size, STORQ_SWEEP_FILE_MAX_BYTES);
    char *buf = NULL;
    size_t n = 0;
    if (!rc) {
        /* read to the end (the size may have changed since fstat), never past the cap */
        size_t cap = (size_t)st.st_size + 1;
        buf = malloc(cap + 1);
        if (!buf)
            rc = STORQ_RUNTIME_FAIL(err, "out of memory");
        while (!rc) {
            size_t got = fread(buf + n, 1, cap - n, fp);
            n += got;
            if (n < cap)
                break;
            if (cap > STORQ_SWEEP_FILE_MAX_BYTES) {
                rc = storq_fail(err, STORQ_ERR_USAGE, "%s: the sweep file has more than %u "
                                "bytes", path, STORQ_SWEEP_FILE_MAX_BYTES);
                break;
            }
            char *g = realloc(buf, 2 * cap + 1);
            if (!g) {
                rc = STORQ_RUNTIME_FAIL(err, "out of memory");
                break;
            }
            buf = g;
            cap *= 2;
        }
        if (!rc && ferror(fp))
            rc = storq_fail(err, STORQ_ERR_USAGE, "%s: cannot read the sweep file", path);
    }
    fclose(fp);
    if (rc) {
        free(buf);
        return rc;
    }
    buf[n] = '\0';
    *text = buf;
    *len = n;
    return STORQ_OK;
}

int storq_sweep_file_read(const char *path, storq_sweep_file *f, storq_error *err)
{
    memset(f, 0, sizeof *f);
    f->path = path;
    char *text = NULL;
    size_t len = 0;
    STORQ_TRY(read_all(path, &text, &len, err));
    /* A UTF-8 byte-order mark, as some editors write, is not part of the first line. */
    size_t start = len >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3) ? 3 : 0;
    char section[256] = "";
    int open = 0, line = 0, rc = STORQ_OK;
    for (size_t i = start; i < len && !rc;) {
        line++;
        char *nl = memchr(text + i, '\n', len - i);
        size_t n = nl ? (size_t)(nl - (text + i)) : len - i;
        char *s = text + i;
        i += n + 1;
        if (n && s[n - 1] == '\r') /* CRLF files */
            n--;
        rc = check_bytes(f, s, n, line, err);
        if (!rc) {
            s[n] = '\0';
            rc = read_line(f, s, line, section, sizeof section, &open, err);
        }
    }
    free(text);
    if (rc)
        storq_sweep_file_free(f);
    return rc;
}

void storq_sweep_file_free(storq_sweep_file *f)
{
    for (size_t i = 0; f->entries && i < f->nentries; i++) {
        free(f->entries[i].section);
        free(f->entries[i].key);
        free(f->entries[i].value);
    }
    for (size_t i = 0; f->sections && i < f->nsections; i++)
        free(f->sections[i].name);
    free(f->entries);
    free(f->sections);
    const char *path = f->path;
    memset(f, 0, sizeof *f);
    f->path = path;
}

const storq_sweep_entry *storq_sweep_file_find(const storq_sweep_file *f, const char *section,
                                               const char *key)
{
    for (size_t i = 0; i < f->nentries; i++)
        if (!strcmp(f->entries[i].section, section) && !strcmp(f->entries[i].key, key))
            return &f->entries[i];
    return NULL;
}

int storq_sweep_file_section_line(const storq_sweep_file *f, const char *section)
{
    for (size_t i = 0; i < f->nsections; i++)
        if (!strcmp(f->sections[i].name, section))
            return f->sections[i].line;
    return 0;
}
