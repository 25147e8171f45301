/* Escaping of strings that are not UTF-8: see utf8_text.h. */
#include "utf8_text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Length of the valid UTF-8 sequence at s (at most n bytes), or 0 when it is not one. */
static size_t sequence(const unsigned char *s, size_t n)
{
    if (s[0] < 0x80)
        return 1;
    size_t len = s[0] >= 0xC2 && s[0] <= 0xDF ? 2 : s[0] >= 0xE0 && s[0] <= 0xEF ? 3
                 : s[0] >= 0xF0 && s[0] <= 0xF4 ? 4 : 0;
    if (!len || len > n)
        return 0;
    for (size_t i = 1; i < len; i++)
        if ((s[i] & 0xC0) != 0x80)
            return 0;
    /* overlong 3- and 4-byte forms, UTF-16 surrogates, past U+10FFFF */
    if ((s[0] == 0xE0 && s[1] < 0xA0) || (s[0] == 0xED && s[1] >= 0xA0) ||
        (s[0] == 0xF0 && s[1] < 0x90) || (s[0] == 0xF4 && s[1] >= 0x90))
        return 0;
    return len;
}

int storq_utf8_valid(const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    for (size_t i = 0; i < n;) {
        size_t len = sequence(p + i, n - i);
        if (!len)
            return 0;
        i += len;
    }
    return 1;
}

char *storq_utf8_escape(const char *s)
{
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    size_t n = strlen((const char *)p);
    char *out = malloc(4 * n + 1), *o = out;
    if (!out)
        return NULL;
    for (size_t i = 0; i < n;) {
        size_t len = sequence(p + i, n - i);
        if (len) {
            memcpy(o, p + i, len);
            o += len;
            i += len;
        } else {
            o += sprintf(o, "\\x%02x", p[i++]);
        }
    }
    *o = '\0';
    return out;
}

const char *storq_utf8_text(const char *s, char **owned)
{
    *owned = NULL;
    if (!s || storq_utf8_valid(s, strlen(s)))
        return s;
    *owned = storq_utf8_escape(s);
    return *owned;
}
