/* Machine-readable text: JSON values and CSV fields (RFC 4180), for `storq theory --format` and
 * `storq info --format`. Numbers keep every bit (%.17g); JSON has no NaN or infinity, so those
 * are written as null (CSV writes nan, inf, -inf, which pandas and numpy read back). */
#ifndef STORQ_TEXT_OUT_H
#define STORQ_TEXT_OUT_H

#include <stdio.h>

/* How `storq theory` and `storq info` print: aligned text, CSV or JSON (--format). */
typedef enum storq_view_format {
    STORQ_VIEW_TABLE,
    STORQ_VIEW_CSV,
    STORQ_VIEW_JSON
} storq_view_format;

/* s as a JSON string, quoted and escaped. */
void storq_json_string(FILE *out, const char *s);
/* x as a JSON number, or null when it is not finite. */
void storq_json_number(FILE *out, double x);

/* s as one CSV field: as is, or quoted (inner quotes doubled) when it holds a comma, a quote,
 * a line break or leading or trailing blanks. */
void storq_csv_field(FILE *out, const char *s);
/* x as one CSV field. */
void storq_csv_number(FILE *out, double x);

#endif
