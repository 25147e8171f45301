/* Request classes written as one string, NAME:SHARE:A:B[:REST] joined by '|' or ';' (the proxy's
 * NAME:SHARE:K:NMAX:LAW, the threads model's NAME:SHARE:N:K): split, names and numbers checked
 * with the one number grammar (src/toolkit/number.h), shares summing to 1. What A, B and REST mean, and
 * the checks between them, are the model's. */
#ifndef STORQ_CLASS_LIST_H
#define STORQ_CLASS_LIST_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"

#define STORQ_CLASS_NAME_MAX 16

typedef struct storq_class_fields {
    char name[STORQ_CLASS_NAME_MAX + 1];
    double share;
    uint64_t a, b;    /* the two integer fields, in the order written */
    const char *rest; /* everything after the fourth colon (a law), into the caller's buffer;
                         NULL for a form without it */
} storq_class_fields;

/* The form of a class list, for the messages: form (e.g. "NAME:SHARE:K:NMAX:LAW joined by ..."),
 * the names of the integer fields ("K", "NMAX"), their largest value, whether a REST field
 * follows them, and what an empty list is told is accepted ("none or " + form, or form). */
typedef struct storq_class_form {
    const char *form, *label_a, *label_b, *accepted_when_empty;
    uint64_t max_int;
    int with_rest;
} storq_class_form;

/* Parse spec into at most max classes (*n of them); buf (bufsize bytes) holds the copy the rest
 * fields point into. Usage errors name --classes, the class and the field. */
int storq_class_list_parse(const char *spec, const storq_class_form *form, char *buf,
                           size_t bufsize, storq_class_fields *out, int max, int *n,
                           storq_error *err);

#endif
