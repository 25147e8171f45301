#include "number.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int is_digit(char c) { return c >= '0' && c <= '9'; }

/* The parts of a number of the grammar: sign, mantissa digits (integer and fraction parts) and
 * the exponent's text. Returns 0 when text is not one. */
typedef struct parts {
    int negative;
    const char *int_digits, *frac_digits;
    size_t n_int, n_frac;
    int exp_negative;
    const char *exp_digits;
    size_t n_exp;
} parts;

static int split(const char *s, parts *p)
{
    memset(p, 0, sizeof *p);
    if (*s == '+' || *s == '-')
        p->negative = *s++ == '-';
    p->int_digits = s;
    while (is_digit(*s))
        s++;
    p->n_int = (size_t)(s - p->int_digits);
    if (*s == '.') {
        p->frac_digits = ++s;
        while (is_digit(*s))
            s++;
        p->n_frac = (size_t)(s - p->frac_digits);
    }
    if (p->n_int + p->n_frac == 0)
        return 0;
    if (*s == 'e' || *s == 'E') {
        s++;
        if (*s == '+' || *s == '-')
            p->exp_negative = *s++ == '-';
        p->exp_digits = s;
        while (is_digit(*s))
            s++;
        p->n_exp = (size_t)(s - p->exp_digits);
        if (!p->n_exp)
            return 0;
    }
    return *s == '\0';
}

int storq_number_valid(const char *text)
{
    parts p;
    return text && split(text, &p);
}

int storq_number_real(const char *text, double *out)
{
    if (!storq_number_valid(text))
        return -1;
    /* The grammar is a subset of strtod's, so strtod reads all of it. */
    char *end;
    errno = 0;
    double x = strtod(text, &end);
    if (*end || errno == ERANGE || !isfinite(x))
        return -1;
    *out = x;
    return 0;
}

/* Digit i of the mantissa, the integer and fraction parts read as one string. */
static int mantissa_digit(const parts *p, size_t i)
{
    return (i < p->n_int ? p->int_digits[i] : p->frac_digits[i - p->n_int]) - '0';
}

int storq_number_integer(const char *text, int *negative, uint64_t *magnitude)
{
    parts p;
    if (!text || !split(text, &p))
        return -1;
    *negative = 0;
    *magnitude = 0;
    /* The value is D * 10^e, D the mantissa's significant digits (leading and trailing zeros
     * dropped), computed exactly from the text. */
    size_t len = p.n_int + p.n_frac, first = 0, last = len;
    while (first < len && mantissa_digit(&p, first) == 0)
        first++;
    if (first == len) /* zero, however written */
        return 0;
    while (mantissa_digit(&p, last - 1) == 0)
        last--;
    long long e = 0; /* saturated: past 10^6 it is out of range or not an integer anyway */
    for (size_t i = 0; i < p.n_exp; i++)
        if (e < 1000000)
            e = e * 10 + (p.exp_digits[i] - '0');
    if (p.exp_negative)
        e = -e;
    e += (long long)(len - last) - (long long)p.n_frac;
    if (e < 0) /* the last significant digit stands after the point */
        return -2;
    if ((long long)(last - first) + e > 20)
        return -3;
    uint64_t v = 0;
    for (size_t i = first; i < last; i++) {
        unsigned d = (unsigned)mantissa_digit(&p, i);
        if (v > (UINT64_MAX - d) / 10)
            return -3;
        v = v * 10 + d;
    }
    for (long long i = 0; i < e; i++) {
        if (v > UINT64_MAX / 10)
            return -3;
        v *= 10;
    }
    *negative = p.negative;
    *magnitude = v;
    return 0;
}
