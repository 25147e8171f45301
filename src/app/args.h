/* The command line of `storq run` and `storq theory`, read in one pass over argv. Run options and
 * model parameters may come before or after the model name (or sweep file): every model
 * parameter takes a value (--name value or --name=value) and the run options are a fixed set, so
 * each argument's role is known without knowing the model. */
#ifndef STORQ_ARGS_H
#define STORQ_ARGS_H

#include <stddef.h>

#include "error.h"

typedef struct storq_arg_param {
    char *name;        /* without the leading "--" */
    const char *value; /* into argv */
} storq_arg_param;

typedef struct storq_args {
    const char *target; /* the model name or the sweep file; NULL when not given */
    /* run options, NULL when not given (the sweep file's [run] values then stand) */
    const char *replications, *seed, *output, *zip, *task, *precision, *max_replications,
        *memory_limit, *workers, *calibrate_from, *schema;
    int resume, quiet, allow_unstable, help, force, dry_run;
    storq_arg_param *params; /* model parameters, in the order given */
    size_t nparams;
} storq_args;

/* with_run_options = 0 (storq theory): only --allow-unstable and --help besides parameters. */
int storq_args_parse(int argc, char **argv, int with_run_options, storq_args *args,
                     storq_error *err);
void storq_args_free(storq_args *args);

/* An option or parameter given twice is refused (the last would win unseen, where a sweep file
 * refuses a key given twice): STORQ_OK while first is NULL, else the usage error "NAME is given
 * twice ('FIRST', then 'THEN'): give it once" and the advice, if any. name_len < 0: all of name. */
int storq_args_once(const char *name, int name_len, const char *first, const char *then,
                    const char *advice, storq_error *err);

/* "storq VERB ARGS...", each argument quoted for a POSIX shell where it needs it, so the line
 * stored in a results file can be pasted back. Returns NULL when out of memory. */
char *storq_command_line(const char *verb, int argc, char **argv);

#endif
