/* The one grammar for numbers a user writes, on the command line and in sweep files:
 *
 *   number  = [+|-] digits [. [digits]] [exponent] | [+|-] . digits [exponent]
 *   exponent = (e|E) [+|-] digits
 *
 * decimal only (no hex, no inf or nan, no blanks, nothing after the number). An integer may be
 * written with a fraction or an exponent when its value is an exact integer (1e3, 2.5e2 and 100.0
 * are 1000, 250 and 100; 1.5 and 1e-1 are not integers); integers are read exactly, never through
 * a double. A real must be finite and representable (1e400 and 1e-400 are refused, not rounded to
 * infinity or zero). docs/sweep-files.md#numbers states it for users. */
#ifndef STORQ_NUMBER_H
#define STORQ_NUMBER_H

#include <stdint.h>

/* 1 when text is a number of the grammar (of any value). */
int storq_number_valid(const char *text);

/* A real: 0 on success; -1 when text is not a number of the grammar, or is out of a double's
 * range (overflow or underflow). */
int storq_number_real(const char *text, double *out);

/* An integer: 0 on success; -1 when text is not a number of the grammar, -2 when it is one but
 * not an exact integer, -3 when its magnitude exceeds UINT64_MAX. *negative says its sign (a
 * negative zero is zero); *magnitude is its absolute value. */
int storq_number_integer(const char *text, int *negative, uint64_t *magnitude);

#endif
