#include "text_out.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "utf8_text.h"

void storq_json_string(FILE *out, const char *s)
{
    fputc('"', out);
    char *owned = NULL; /* bytes that are not UTF-8 (a Latin-1 path) print escaped: \\xNN */
    const char *text = storq_utf8_text(s, &owned);
    for (const unsigned char *p = (const unsigned char *)(text ? text : "?"); *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(out, "\\%c", *p);
        else if (*p == '\n')
            fputs("\\n", out);
        else if (*p == '\t')
            fputs("\\t", out);
        else if (*p < 0x20)
            fprintf(out, "\\u%04x", *p);
        else
            fputc(*p, out);
    }
    free(owned);
    fputc('"', out);
}

void storq_json_number(FILE *out, double x)
{
    if (isfinite(x))
        fprintf(out, "%.17g", x);
    else
        fputs("null", out);
}

void storq_csv_field(FILE *out, const char *s)
{
    size_t len = strlen(s);
    int quote = strpbrk(s, ",\"\r\n") != NULL ||
                (len > 0 && (s[0] == ' ' || s[len - 1] == ' '));
    if (!quote) {
        fputs(s, out);
        return;
    }
    fputc('"', out);
    for (const char *p = s; *p; p++) {
        if (*p == '"')
            fputc('"', out);
        fputc(*p, out);
    }
    fputc('"', out);
}

void storq_csv_number(FILE *out, double x)
{
    if (isnan(x))
        fputs("nan", out);
    else if (isinf(x))
        fputs(x > 0 ? "inf" : "-inf", out);
    else
        fprintf(out, "%.17g", x);
}
