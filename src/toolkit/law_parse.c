/* The grammar shared by the laws' parsers: see law_parse.h. */
#include "law_parse.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "number.h"

/* Every parse error: "PARAM: 'SPEC': what is wrong; accepted: the forms". */
int storq_law_bad(storq_error *err, const char *param, const char *spec, const char *accepted,
                  const char *fmt, ...)
{
    char why[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    return storq_fail(err, STORQ_ERR_USAGE, "%s: '%s': %s; accepted: %s",
                      param ? param : "distribution", spec ? spec : "(null)", why, accepted);
}

/* A whole token as a finite real, in the one number grammar (number.h). */
int storq_law_real(const char *s, double *x)
{
    return storq_number_real(s, x) == 0;
}

/* A whole token as an integer, in the one number grammar (1e3 yes, 1.5 no). */
int storq_law_int(const char *s, int64_t *k)
{
    int negative;
    uint64_t m;
    if (storq_number_integer(s, &negative, &m) != 0 || m > (uint64_t)INT64_MAX)
        return 0;
    *k = negative ? -(int64_t)m : (int64_t)m;
    return 1;
}

/* Split s (modified in place) at commas; empty tokens are kept so "1,,2" is caught. */
int storq_law_split(char *s, char **tok, int max)
{
    int n = 0;
    for (;;) {
        if (n == max)
            return max + 1;
        tok[n++] = s;
        char *c = strchr(s, ',');
        if (!c)
            return n;
        *c = '\0';
        s = c + 1;
    }
}
