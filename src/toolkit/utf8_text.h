/* Names are bytes: a path in -o or in a sweep file may hold bytes that are not UTF-8 (a Latin-1
 * file name), but every string storq writes is declared UTF-8 (docs/hdf5-schema.md, "Strings
 * that are not UTF-8"). Such a string is stored escaped: each byte that is not part of valid
 * UTF-8 becomes the four characters \xNN (hex, lower case). Valid text is stored unchanged. */
#ifndef STORQ_UTF8_TEXT_H
#define STORQ_UTF8_TEXT_H

#include <stddef.h>

/* 1 when s[0..n) is valid UTF-8 (no overlong forms, no surrogates, nothing past U+10FFFF). */
int storq_utf8_valid(const char *s, size_t n);

/* s escaped as above, in a new string (caller frees); NULL when out of memory. */
char *storq_utf8_escape(const char *s);

/* s itself when valid, else its escaped copy in *owned (caller frees *owned; NULL if valid):
 * for writers that only need a pointer. NULL on out of memory. */
const char *storq_utf8_text(const char *s, char **owned);

#endif
