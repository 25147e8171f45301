/* Text tables for a terminal: cells row by row, each column as wide as its widest cell (or a
 * minimum), left- or right-aligned. Used by the point report, `storq info` and `storq models`.
 *
 *     storq_table t;
 *     storq_table_init(&t, 3, "l  r  l", "  ");
 *     storq_table_header(&t, "name", "mean", "unit", (char *)NULL);
 *     storq_table_add(&t, "%s", name);
 *     storq_table_add(&t, "%.6g", x);
 *     storq_table_add(&t, "%s", unit);
 *     storq_table_print(&t, stdout);
 *     storq_table_free(&t);
 */
#ifndef STORQ_TABLE_H
#define STORQ_TABLE_H

#include <stddef.h>
#include <stdio.h>

typedef struct storq_table {
    size_t ncols;
    char *align;       /* per column: 'l' or 'r' */
    size_t *gap;       /* per column: spaces before it (the first column's is unused) */
    size_t *min_width; /* per column */
    char **cells;      /* row by row; a row may stay short at the end */
    size_t ncells, cap;
    size_t header_cells; /* cells of the header row, 0 without one */
    const char *indent;  /* before every row */
    char *title;         /* a line before the rows, or NULL */
    int lost;            /* a cell (or the whole table) was lost to a lack of memory */
    int full;            /* the cell array could not grow: no more cells are taken */
} storq_table;

/* ncols columns laid out by layout: one letter a column, 'l' left-aligned or 'r' right-aligned,
 * and between two letters the spaces the columns stand apart, e.g. "l r r  l". With fewer letters
 * than columns, the last letter and its gap repeat; NULL is "l  l": left-aligned, two spaces
 * apart. indent (not copied; NULL for none) goes before each row. Returns 0, or -1 for a layout
 * with more letters than columns or another character, or when out of memory (the table then
 * prints nothing). */
int storq_table_init(storq_table *t, size_t ncols, const char *layout, const char *indent);

/* Widen column col to at least width characters, so that tables printed one after another line
 * up. */
void storq_table_min_width(storq_table *t, size_t col, size_t width);

/* A line printed as given before the rows (with its own indentation). */
void storq_table_title(storq_table *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The header row: one string a column, then a NULL. Before any other row. */
void storq_table_header(storq_table *t, ...) __attribute__((sentinel));

/* The cells added so far are the header (for a header built cell by cell). */
void storq_table_end_header(storq_table *t);

/* The next cell: rows fill left to right, top to bottom. */
void storq_table_add(storq_table *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Rows below the header. */
size_t storq_table_rows(const storq_table *t);

/* The title, then each row: indent, the cells padded to their column's width, separated by the
 * gaps; no spaces at the end of a line. Returns 0, or -1 when a cell was lost (what remains is
 * printed, a lost cell as "?"). */
int storq_table_print(const storq_table *t, FILE *out);

void storq_table_free(storq_table *t);

#endif
