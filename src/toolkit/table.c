#include "table.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_GAP 2

/* Fill align and gap from layout; -1 when it does not describe at most ncols columns. */
static int parse_layout(storq_table *t, const char *layout)
{
    size_t col = 0, spaces = 0;
    for (const char *c = layout; *c; c++) {
        if (*c == ' ') {
            spaces++;
            continue;
        }
        if ((*c != 'l' && *c != 'r') || col == t->ncols || (col == 0) != (spaces == 0))
            return -1;
        t->align[col] = *c;
        t->gap[col++] = spaces;
        spaces = 0;
    }
    if (col == 0 || spaces > 0)
        return -1;
    for (size_t i = col; i < t->ncols; i++) {
        t->align[i] = t->align[col - 1];
        t->gap[i] = col > 1 ? t->gap[col - 1] : DEFAULT_GAP;
    }
    return 0;
}

int storq_table_init(storq_table *t, size_t ncols, const char *layout, const char *indent)
{
    memset(t, 0, sizeof *t);
    t->indent = indent ? indent : "";
    t->align = ncols ? malloc(ncols) : NULL;
    t->gap = ncols ? calloc(ncols, sizeof *t->gap) : NULL;
    t->min_width = ncols ? calloc(ncols, sizeof *t->min_width) : NULL;
    t->ncols = ncols;
    if (!t->align || !t->gap || !t->min_width ||
        parse_layout(t, layout ? layout : "l  l") != 0) {
        storq_table_free(t);
        t->lost = 1;
        return -1;
    }
    return 0;
}

void storq_table_min_width(storq_table *t, size_t col, size_t width)
{
    if (col < t->ncols && t->min_width[col] < width)
        t->min_width[col] = width;
}

/* fmt and ap as a new string, or NULL when out of memory. */
static char *format(const char *fmt, va_list ap)
{
    va_list again;
    va_copy(again, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    char *s = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (s)
        vsnprintf(s, (size_t)n + 1, fmt, again);
    va_end(again);
    return s;
}

void storq_table_title(storq_table *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    free(t->title);
    t->title = format(fmt, ap);
    va_end(ap);
    if (!t->title)
        t->lost = 1;
}

/* Take ownership of cell (NULL: lost to a lack of memory, printed as "?"). Once the cell array
 * cannot grow no more cells are taken, so the rows printed stay aligned. */
static void push(storq_table *t, char *cell)
{
    if (t->ncells == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 32;
        char **grown = t->ncols && !t->full ? realloc(t->cells, cap * sizeof *grown) : NULL;
        if (!grown) {
            t->lost = t->full = 1;
            free(cell);
            return;
        }
        t->cells = grown;
        t->cap = cap;
    }
    if (!cell)
        t->lost = 1;
    t->cells[t->ncells++] = cell;
}

void storq_table_header(storq_table *t, ...)
{
    va_list ap;
    va_start(ap, t);
    for (const char *h; (h = va_arg(ap, const char *)) != NULL;)
        push(t, strdup(h));
    va_end(ap);
    storq_table_end_header(t);
}

void storq_table_end_header(storq_table *t)
{
    t->header_cells = t->ncells;
}

void storq_table_add(storq_table *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    push(t, format(fmt, ap));
    va_end(ap);
}

size_t storq_table_rows(const storq_table *t)
{
    if (!t->ncols)
        return 0;
    size_t body = t->ncells - t->header_cells;
    return (body + t->ncols - 1) / t->ncols;
}

/* Padding is held back until something follows it, so no line ends in spaces. */
static void put_cell(FILE *out, const char *cell, size_t width, char align, size_t *pending)
{
    size_t len = strlen(cell);
    size_t pad = width > len ? width - len : 0;
    if (align == 'r')
        *pending += pad;
    if (len > 0) {
        fprintf(out, "%*s%s", (int)*pending, "", cell);
        *pending = 0;
    }
    if (align != 'r')
        *pending += pad;
}

int storq_table_print(const storq_table *t, FILE *out)
{
    if (t->title)
        fprintf(out, "%s\n", t->title);
    size_t *width = t->ncols ? malloc(t->ncols * sizeof *width) : NULL;
    if (!width)
        return -1;
    memcpy(width, t->min_width, t->ncols * sizeof *width);
    for (size_t i = 0; i < t->ncells; i++) {
        size_t len = t->cells[i] ? strlen(t->cells[i]) : 1;
        if (len > width[i % t->ncols])
            width[i % t->ncols] = len;
    }
    for (size_t row = 0; row * t->ncols < t->ncells; row++) {
        size_t pending = 0;
        fputs(t->indent, out);
        for (size_t c = 0; c < t->ncols && row * t->ncols + c < t->ncells; c++) {
            const char *cell = t->cells[row * t->ncols + c];
            if (c > 0)
                pending += t->gap[c];
            put_cell(out, cell ? cell : "?", width[c], t->align[c], &pending);
        }
        fputc('\n', out);
    }
    free(width);
    return t->lost ? -1 : 0;
}

void storq_table_free(storq_table *t)
{
    for (size_t i = 0; i < t->ncells; i++)
        free(t->cells[i]);
    free(t->cells);
    free(t->align);
    free(t->gap);
    free(t->min_width);
    free(t->title);
    memset(t, 0, sizeof *t);
}
