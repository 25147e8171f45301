/* Help where people look for it: a model's parameters (`storq models MODEL`, `--help`), its
 * documentation page's summary (`storq help MODEL`), one command's usage (`storq help run`), and
 * the man page (`storq --man`, checked in as docs/storq.1), all from the same tables: the usage
 * text, the models' parameter definitions and the embedded docs/models/MODEL.md summaries. */
#ifndef STORQ_HELP_H
#define STORQ_HELP_H

#include <stdio.h>

#include "model.h"

/* The model's one-line summary and its parameters as a table. */
void storq_help_print_model(const storq_model *m, FILE *out);

/* `storq help TOPIC`: the usage of a command (run, theory, models, info, merge, convert, help) taken from
 * usage, or a model's page summary and parameters. Returns 0, or 2 (STORQ_ERR_USAGE) after a
 * message on stderr when TOPIC is neither. */
int storq_help_topic(const char *usage, const char *topic, FILE *out);

/* The man page, in roff: usage as the synopsis, then every model with its page summary and its
 * parameters. */
void storq_help_man(const char *usage, FILE *out);

#endif
