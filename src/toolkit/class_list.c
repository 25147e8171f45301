#include "class_list.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "number.h"
#include "params.h"

/* A letter, then letters, digits or '_'; at most STORQ_CLASS_NAME_MAX. */
static int valid_name(const char *s)
{
    size_t len = strlen(s);
    if (len < 1 || len > STORQ_CLASS_NAME_MAX || !isalpha((unsigned char)s[0]))
        return 0;
    for (size_t i = 0; i < len; i++)
        if (!isalnum((unsigned char)s[i]) && s[i] != '_')
            return 0;
    return 1;
}

/* An integer field in 1 .. max. */
static int int_field(const char *s, uint64_t max, uint64_t *out)
{
    int negative;
    return storq_number_integer(s, &negative, out) == 0 && !negative && *out >= 1 && *out <= max
               ? 0
               : -1;
}

/* One class: tok is split in place at its first four colons. */
static int one_class(char *tok, const storq_class_form *form, const storq_class_fields *seen,
                     int nseen, storq_class_fields *c, storq_error *err)
{
    char whole[256];
    snprintf(whole, sizeof whole, "%s", tok);
    char *f[5] = {0};
    int nf = 0;
    for (char *p = tok; p && nf < 5; nf++) {
        f[nf] = p;
        char *colon = nf < 4 ? strchr(p, ':') : NULL;
        if (colon)
            *colon = 0;
        p = colon ? colon + 1 : NULL;
    }
    int fields = form->with_rest ? 5 : 4;
    if (nf != fields || (form->with_rest && !*f[4]))
        return storq_fail(err, STORQ_ERR_USAGE, "--classes: '%s' is not a class; accepted: %s",
                          whole, form->form);
    if (!valid_name(f[0]))
        return storq_fail(err, STORQ_ERR_USAGE, "--classes: '%s' is not a class name; accepted: %s",
                          f[0], form->form);
    for (int i = 0; i < nseen; i++)
        if (!strcmp(seen[i].name, f[0]))
            return storq_fail(err, STORQ_ERR_USAGE, "--classes: class '%s' is given twice", f[0]);
    snprintf(c->name, sizeof c->name, "%s", f[0]);
    if (storq_number_real(f[1], &c->share) || !(c->share > 0.0 && c->share <= 1.0))
        return storq_fail(err, STORQ_ERR_USAGE,
                          "--classes: class '%s': share '%s' is not a number in (0, 1]", c->name,
                          f[1]);
    if (int_field(f[2], form->max_int, &c->a) || int_field(f[3], form->max_int, &c->b))
        return storq_fail(err, STORQ_ERR_USAGE,
                          "--classes: class '%s': %s '%s' and %s '%s' must be integers in 1 .. %llu",
                          c->name, form->label_a, f[2], form->label_b, f[3],
                          (unsigned long long)form->max_int);
    c->rest = form->with_rest ? f[4] : NULL;
    return STORQ_OK;
}

int storq_class_list_parse(const char *spec, const storq_class_form *form, char *buf,
                           size_t bufsize, storq_class_fields *out, int max, int *n,
                           storq_error *err)
{
    *n = 0;
    if (strlen(spec) >= bufsize)
        return storq_fail(err, STORQ_ERR_USAGE, "--classes: too long (%zu characters); accepted: "
                          "%s", strlen(spec), form->form);
    snprintf(buf, bufsize, "%s", spec);
    double sum = 0.0;
    char *save = NULL;
    for (char *tok = strtok_r(buf, ";|", &save); tok; tok = strtok_r(NULL, ";|", &save)) {
        tok = storq_trim(tok);
        if (!*tok)
            continue;
        if (*n == max)
            return storq_fail(err, STORQ_ERR_USAGE, "--classes: more than %d classes", max);
        STORQ_TRY(one_class(tok, form, out, *n, &out[*n], err));
        sum += out[*n].share;
        (*n)++;
    }
    if (*n == 0)
        return storq_fail(err, STORQ_ERR_USAGE, "--classes: '%s' names no class; accepted: %s",
                          spec, form->accepted_when_empty);
    if (fabs(sum - 1.0) > 1e-9)
        return storq_fail(err, STORQ_ERR_USAGE, "--classes: the shares sum to %.12g, not 1", sum);
    return STORQ_OK;
}
