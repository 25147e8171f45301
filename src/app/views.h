/* `storq theory` and `storq info`: what they print and in which format (table, csv, json). */
#ifndef STORQ_VIEWS_H
#define STORQ_VIEWS_H

#include "error.h"
#include "model.h"

/* `storq theory MODEL [--param value ...] [--only A,B] [--format table|csv|json]`. *parsed is set
 * when the command line was understood (a failure after that is not a usage slip). When --help
 * was asked for, prints nothing, sets *help and *help_model (the model named, or NULL). */
int storq_view_theory(int argc, char **argv, int *parsed, int *help,
                      const storq_model **help_model, storq_error *err);

/* `storq info FILE.h5 [--format table|csv|json]`. */
int storq_view_info(int argc, char **argv, storq_error *err);

#endif
