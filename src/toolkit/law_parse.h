/* The grammar shared by the continuous and discrete laws' parsers (distribution.c,
 * discrete_law.c): tokens, numbers and the one form of a parse error. Internal to the toolkit. */
#ifndef STORQ_LAW_PARSE_H
#define STORQ_LAW_PARSE_H

#include <stdint.h>

#include "error.h"

/* Every parse error: "PARAM: 'SPEC': what is wrong; accepted: the forms" (a usage error). */
int storq_law_bad(storq_error *err, const char *param, const char *spec, const char *accepted,
                  const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* A whole token as a finite real, in the one number grammar (number.h): 1 if it is one. */
int storq_law_real(const char *s, double *x);
/* A whole token as an integer, in the one number grammar (1e3 yes, 1.5 no): 1 if it is one. */
int storq_law_int(const char *s, int64_t *k);
/* Split s (modified in place) at commas into at most max tokens (max + 1: too many); empty
 * tokens are kept so "1,,2" is caught. */
int storq_law_split(char *s, char **tok, int max);

#endif
