/* Values as the user writes them, for the run specification's files (run_spec.c,
 * run_options.c, classes.c): one parameter's list split into values, and the small string helpers
 * they share. */
#ifndef STORQ_VALUE_LIST_H
#define STORQ_VALUE_LIST_H

#include <stddef.h>

#include "error.h"
#include "params.h"

/* Split a list value, the same rule for every parameter: values are separated by commas or
 * blanks, and a law's own numbers follow its colon, separated by commas too ("shexp:0.1,5, exp:2"
 * is two values; "pmf:1=0.5,4=0.5" one): an item that is a number (or K=P) continues the law
 * before it. Coupled policies are written with '+' (BR+BS+WF), never with commas. */
int storq_split_values(const storq_param_def *def, const char *text, char ***values,
                       size_t *nvalues, storq_error *err);
void storq_free_values(char **values, size_t n);

int storq_ends_with(const char *s, const char *suffix);
/* strdup, out of memory a runtime error. */
char *storq_spec_strdup(const char *s, storq_error *err);
/* Where a run option came from, for its messages: "--zip" or "FILE:LINE: [run] zip". */
int storq_spec_where(char **slot, const char *what, storq_error *err);

#endif
