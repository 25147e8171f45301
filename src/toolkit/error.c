#include "error.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LONG_WORD 200 /* a word longer than this is an input echoed back: shortened */
#define KEPT 60       /* characters of it kept */

/* Copy text into msg (of size cap), shortening every word (a run without blanks) longer than
 * LONG_WORD to its first KEPT characters and its length, so a message never echoes a huge input
 * (a 100 KB list given as one value) back at the user. */
static void copy_shortened(char *msg, size_t cap, const char *text)
{
    size_t out = 0;
    for (const char *s = text; *s && out + 1 < cap;) {
        size_t word = strcspn(s, " \t\n");
        if (word > LONG_WORD) {
            int n = snprintf(msg + out, cap - out, "%.*s... (%zu characters)", KEPT, s, word);
            out += n > 0 ? (size_t)n : 0;
            s += word;
        } else {
            size_t take = word ? word : 1; /* a word, or one blank */
            if (take > cap - 1 - out)
                take = cap - 1 - out;
            memcpy(msg + out, s, take);
            out += take;
            s += take;
        }
        if (out >= cap)
            out = cap - 1;
    }
    msg[out] = '\0';
}

int storq_fail(storq_error *err, int code, const char *fmt, ...)
{
    if (!err || err->code != STORQ_OK) /* the first failure's message is kept */
        return err && err->code ? err->code : code;
    err->code = code;
    va_list ap, again;
    va_start(ap, fmt);
    va_copy(again, ap);
    int len = vsnprintf(NULL, 0, fmt, ap);
    char *full = len >= 0 ? malloc((size_t)len + 1) : NULL;
    if (full) {
        vsnprintf(full, (size_t)len + 1, fmt, again);
        copy_shortened(err->msg, sizeof err->msg, full);
        free(full);
    } else {
        vsnprintf(err->msg, sizeof err->msg, fmt, again); /* out of memory: truncated */
    }
    va_end(again);
    va_end(ap);
    return code;
}
