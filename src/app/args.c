#include "args.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int is(const char *a, const char *x, const char *y)
{
    return !strcmp(a, x) || (y && !strcmp(a, y));
}

/* A run option that takes a value: where to store it, or NULL when a is not one. */
static const char **valued_option(storq_args *args, const char *a)
{
    if (is(a, "-r", "--replications"))
        return &args->replications;
    if (is(a, "--seed", NULL))
        return &args->seed;
    if (is(a, "-o", "--output"))
        return &args->output;
    if (is(a, "--zip", NULL))
        return &args->zip;
    if (is(a, "--task", NULL))
        return &args->task;
    if (is(a, "--precision", NULL))
        return &args->precision;
    if (is(a, "--max-replications", NULL))
        return &args->max_replications;
    if (is(a, "--memory-limit", NULL))
        return &args->memory_limit;
    if (is(a, "--workers", NULL))
        return &args->workers;
    if (is(a, "--calibrate-from", NULL))
        return &args->calibrate_from;
    if (is(a, "--schema", NULL))
        return &args->schema;
    return NULL;
}

/* A run option without a value: its flag, or NULL. */
static int *flag_option(storq_args *args, const char *a, int with_run_options)
{
    if (is(a, "--help", "-h"))
        return &args->help;
    if (is(a, "--allow-unstable", NULL))
        return &args->allow_unstable;
    if (!with_run_options)
        return NULL;
    if (is(a, "--resume", NULL))
        return &args->resume;
    if (is(a, "--force", NULL))
        return &args->force;
    if (is(a, "--quiet", "-q"))
        return &args->quiet;
    if (is(a, "--dry-run", NULL))
        return &args->dry_run;
    return NULL;
}

int storq_args_once(const char *name, int name_len, const char *first, const char *then,
                    const char *advice, storq_error *err)
{
    if (!first)
        return STORQ_OK;
    return storq_fail(err, STORQ_ERR_USAGE, "%.*s is given twice ('%s', then '%s'): give it "
                      "once%s%s", name_len < 0 ? (int)strlen(name) : name_len, name, first, then,
                      advice ? "; " : "", advice ? advice : "");
}

static int add_param(storq_args *args, const char *name, size_t len, const char *value,
                     storq_error *err)
{
    /* `--n 10 --n 20` would run n = 20 only; --class is the one that repeats (one class each) */
    for (size_t i = 0; i < args->nparams; i++)
        if (strlen(args->params[i].name) == len && !strncmp(args->params[i].name, name, len) &&
            strcmp(args->params[i].name, "class")) {
            char option[80], advice[128];
            snprintf(option, sizeof option, "--%.*s", (int)len, name);
            snprintf(advice, sizeof advice, "several values are one list (%s A,B)", option);
            return storq_args_once(option, -1, args->params[i].value, value, advice, err);
        }
    storq_arg_param *grown = realloc(args->params, (args->nparams + 1) * sizeof *grown);
    if (!grown)
        return STORQ_RUNTIME_FAIL(err, "out of memory");
    args->params = grown;
    char *copy = strndup(name, len);
    if (!copy)
        return STORQ_RUNTIME_FAIL(err, "out of memory");
    args->params[args->nparams++] = (storq_arg_param){.name = copy, .value = value};
    return STORQ_OK;
}

/* A word that reads as an option, not a value: `-o --force` must not write a file named
 * --force. Negative numbers (-1, -.5) stay values. */
static int looks_like_option(const char *v)
{
    return v[0] == '-' && (v[1] == '-' || (v[1] >= 'a' && v[1] <= 'z') ||
                           (v[1] >= 'A' && v[1] <= 'Z'));
}

/* Store a run option's value, refusing what cannot be one. */
static int set_value(storq_args *args, const char **slot, const char *option, const char *v,
                     storq_error *err)
{
    if (looks_like_option(v))
        return storq_fail(err, STORQ_ERR_USAGE, "%s needs a value, not the option '%s' (a "
                          "value that starts with '-' is given as %s=VALUE)", option, v,
                          !strcmp(option, "-o")   ? "--output"
                          : !strcmp(option, "-r") ? "--replications"
                                                  : option);
    STORQ_TRY(storq_args_once(option, -1, *slot, v, NULL, err));
    if (slot == &args->output && !strcmp(v, "-"))
        return storq_fail(err, STORQ_ERR_USAGE, "%s -: the results are an HDF5 file, which "
                          "cannot be streamed to standard output; name a file (e.g. -o "
                          "out.h5)", option);
    *slot = v;
    return STORQ_OK;
}

/* --name=value of a run option: its slot (the value after '='), or NULL. */
static const char **valued_option_eq(storq_args *args, const char *a, const char *eq)
{
    char name[32];
    size_t len = (size_t)(eq - a);
    if (len >= sizeof name)
        return NULL;
    memcpy(name, a, len);
    name[len] = '\0';
    return valued_option(args, name);
}

static int parse(int argc, char **argv, int with_run_options, storq_args *args,
                 storq_error *err)
{
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        int *flag = flag_option(args, a, with_run_options);
        const char **slot = with_run_options ? valued_option(args, a) : NULL;
        const char *eq = !strncmp(a, "--", 2) ? strchr(a, '=') : NULL;
        const char **eq_slot = eq && with_run_options ? valued_option_eq(args, a, eq) : NULL;
        /* storq theory takes no run options: say so, rather than take --quiet for a parameter
         * that needs a value */
        if (!with_run_options && !flag &&
            (flag_option(args, a, 1) || valued_option(args, a) ||
             (eq && valued_option_eq(args, a, eq))))
            return storq_fail(err, STORQ_ERR_USAGE, "%.*s: an option of `storq run`, not of "
                              "this command (it takes the model's parameters, --only and "
                              "--format)", eq ? (int)(eq - a) : (int)strlen(a), a);
        if (flag) {
            *flag = 1;
        } else if (slot) {
            if (i + 1 < argc && is(argv[i + 1], "--help", "-h"))
                continue; /* `-o --help mmc`: --help is read next, and the model after it */
            if (i + 1 >= argc)
                return storq_fail(err, STORQ_ERR_USAGE, "%s needs a value", a);
            STORQ_TRY(set_value(args, slot, a, argv[++i], err));
        } else if (eq_slot) {
            /* --output=x: what follows '=' is the value, whatever it looks like */
            STORQ_TRY(storq_args_once(a, (int)(eq - a), *eq_slot, eq + 1, NULL, err));
            if (eq_slot == &args->output && !strcmp(eq + 1, "-"))
                return set_value(args, eq_slot, "--output", "-", err);
            *eq_slot = eq + 1;
        } else if (!strncmp(a, "--", 2) && a[2]) {
            if (eq) {
                STORQ_TRY(add_param(args, a + 2, (size_t)(eq - a - 2), eq + 1, err));
            } else {
                if (i + 1 >= argc || !strncmp(argv[i + 1], "--", 2))
                    return storq_fail(err, STORQ_ERR_USAGE, "%s needs a value", a);
                STORQ_TRY(add_param(args, a + 2, strlen(a + 2), argv[i + 1], err));
                i++;
            }
        } else if (!args->target && a[0] != '-') {
            args->target = a;
        } else {
            return storq_fail(err, STORQ_ERR_USAGE,
                              "unexpected argument '%s' (parameters are given as --name value)",
                              a);
        }
    }
    return STORQ_OK;
}

int storq_args_parse(int argc, char **argv, int with_run_options, storq_args *args,
                     storq_error *err)
{
    memset(args, 0, sizeof *args);
    int help = 0;
    for (int i = 0; i < argc; i++)
        help |= is(argv[i], "--help", "-h");
    storq_error ignored = {0};
    int rc = parse(argc, argv, with_run_options, args, help ? &ignored : err);
    /* --help anywhere asks for help: what stands around it (`--n --help`, `-o --help`) is not
     * checked, only the model named, if any, is used. */
    if (help) {
        args->help = 1;
        return STORQ_OK;
    }
    return rc;
}

void storq_args_free(storq_args *args)
{
    for (size_t i = 0; i < args->nparams; i++)
        free(args->params[i].name);
    free(args->params);
    memset(args, 0, sizeof *args);
}

/* Characters a POSIX shell leaves alone in a word. */
static int shell_safe(const char *s)
{
    if (!*s)
        return 0;
    for (; *s; s++)
        if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                    "@%+=:,./_-", *s))
            return 0;
    return 1;
}

char *storq_command_line(const char *verb, int argc, char **argv)
{
    size_t len = strlen("storq ") + strlen(verb) + 1;
    for (int i = 0; i < argc; i++)
        len += 4 * strlen(argv[i]) + 3; /* each ' becomes '\'' */
    char *out = malloc(len), *p = out;
    if (!out)
        return NULL;
    p += sprintf(p, "storq %s", verb);
    for (int i = 0; i < argc; i++) {
        *p++ = ' ';
        if (shell_safe(argv[i])) {
            p = stpcpy(p, argv[i]);
            continue;
        }
        *p++ = '\'';
        for (const char *s = argv[i]; *s; s++)
            p = *s == '\'' ? stpcpy(p, "'\\''") : (*p = *s, p + 1);
        *p++ = '\'';
    }
    *p = '\0';
    return out;
}
