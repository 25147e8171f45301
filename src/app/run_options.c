/* The run options flags and the [run] section share: see run_options.h. */
#include "run_options.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "number.h"
#include "value_list.h"

/* A count or seed, in the one number grammar (number.h): 1e3 is 1000, 0x10 and 1.5 are refused. */
int storq_runopt_count(const char *what, const char *text, unsigned long long min,
                       unsigned long long max, unsigned long long *out, storq_error *err)
{
    int negative;
    uint64_t v;
    if (storq_number_integer(text, &negative, &v) != 0 || (negative && v) || v < min || v > max)
        return storq_fail(err, STORQ_ERR_USAGE,
                          "%s: '%.60s' is not accepted; expected an "
                          "integer in [%llu, %llu]",
                          what, text, min, max);
    *out = v;
    return STORQ_OK;
}

int storq_runopt_bool(const char *what, const char *text, int *out, storq_error *err)
{
    if (!strcmp(text, "true") || !strcmp(text, "yes") || !strcmp(text, "1"))
        *out = 1;
    else if (!strcmp(text, "false") || !strcmp(text, "no") || !strcmp(text, "0"))
        *out = 0;
    else
        return storq_fail(err, STORQ_ERR_USAGE, "%s: '%s' is not accepted; expected true or false",
                          what, text);
    return STORQ_OK;
}

int storq_runopt_replications(storq_run_spec *spec, const char *what, const char *text,
                              storq_error *err)
{
    unsigned long long v = 0; /* set by parse_count on success; GCC cannot see it */
    STORQ_TRY(storq_runopt_count(what, text, 1, 1ull << 31, &v, err));
    spec->replications = (size_t)v;
    return STORQ_OK;
}

int storq_runopt_seed(storq_run_spec *spec, const char *what, const char *text, storq_error *err)
{
    unsigned long long v = 0; /* set by parse_count on success; GCC cannot see it */
    STORQ_TRY(storq_runopt_count(what, text, 0, UINT64_MAX, &v, err));
    spec->seed = v;
    return STORQ_OK;
}

int storq_runopt_output(storq_run_spec *spec, const char *text, storq_error *err)
{
    if (!*text)
        return storq_fail(err, STORQ_ERR_USAGE, "--output: empty file name");
    free(spec->output);
    spec->output = storq_spec_strdup(text, err);
    return spec->output ? STORQ_OK : STORQ_ERR_RUNTIME;
}

/* --task I/N: the run's points p with p % N == I, so that N array tasks share a sweep. */
int storq_runopt_task(storq_run_spec *spec, const char *text, storq_error *err)
{
    unsigned long long i = 0, n = 0;
    char part[64];
    const char *slash = strchr(text, '/');
    storq_error ignored = {0};
    int ok = slash && (size_t)(slash - text) < sizeof part;
    if (ok) {
        snprintf(part, sizeof part, "%.*s", (int)(slash - text), text);
        ok = !storq_runopt_count("", part, 0, STORQ_MAX_POINTS, &i, &ignored) &&
             !storq_runopt_count("", slash + 1, 1, STORQ_MAX_POINTS, &n, &ignored) && i < n;
    }
    if (!ok)
        return storq_fail(err, STORQ_ERR_USAGE,
                          "--task: '%.60s' is not accepted; expected I/N, "
                          "task I of N tasks with 0 <= I < N and 1 <= N <= %d (e.g. --task 0/4)",
                          text, STORQ_MAX_POINTS);
    spec->task_index = (size_t)i;
    spec->task_count = (size_t)n;
    return STORQ_OK;
}

/* A task's default file name: NAME.task-I-of-N.h5, so tasks sharing a directory never write the
 * same file. */
int storq_runopt_task_suffix(storq_run_spec *spec, storq_error *err)
{
    const char *out = spec->output;
    size_t stem = storq_ends_with(out, ".h5") ? strlen(out) - 3 : strlen(out);
    char buf[1100];
    int n = snprintf(buf, sizeof buf, "%.*s.task-%zu-of-%zu.h5", (int)stem, out, spec->task_index,
                     spec->task_count);
    if (n < 0 || (size_t)n >= sizeof buf)
        return storq_fail(err, STORQ_ERR_USAGE, "--output: '%s' is too long", out);
    return storq_runopt_output(spec, buf, err);
}

/* --precision REL[:OBSERVABLE]: REL a number in (0, 1). */
int storq_runopt_precision(storq_run_spec *spec, const char *what, const char *text,
                           storq_error *err)
{
    char rel_text[64];
    const char *colon = strchr(text, ':');
    size_t len = colon ? (size_t)(colon - text) : strlen(text);
    double rel = 0;
    if (len >= sizeof rel_text || (colon && !colon[1]))
        len = 0; /* refused below */
    snprintf(rel_text, sizeof rel_text, "%.*s", (int)len, text);
    if (storq_number_real(rel_text, &rel) != 0 || !(rel > 0 && rel < 1))
        return storq_fail(err, STORQ_ERR_USAGE,
                          "%s: '%.60s' is not accepted; expected REL or "
                          "REL:OBSERVABLE, REL in (0, 1) the target 95%% CI half-width over "
                          "|mean| (e.g. 0.01 or 0.01:mean_delay)",
                          what, text);
    spec->precision = rel;
    free(spec->precision_obs);
    spec->precision_obs = NULL;
    if (colon && !(spec->precision_obs = storq_spec_strdup(colon + 1, err)))
        return STORQ_ERR_RUNTIME;
    return storq_spec_where(&spec->precision_where, what, err);
}

int storq_runopt_max_replications(storq_run_spec *spec, const char *what, const char *text,
                                  storq_error *err)
{
    unsigned long long v = 0; /* set by parse_count on success; GCC cannot see it */
    STORQ_TRY(storq_runopt_count(what, text, 1, 1ull << 31, &v, err));
    spec->max_replications = (size_t)v;
    return storq_spec_where(&spec->max_replications_where, what, err);
}

/* --precision needs --max-replications, at least one batch (-r) of it. */
int storq_runopt_check_precision(const storq_run_spec *spec, storq_error *err)
{
    if (!spec->precision && spec->max_replications)
        return storq_fail(err, STORQ_ERR_USAGE,
                          "%s: applies with --precision only (without it "
                          "every point runs -r replications)",
                          spec->max_replications_where);
    if (!spec->precision)
        return STORQ_OK;
    if (!spec->max_replications)
        return storq_fail(err, STORQ_ERR_USAGE,
                          "%s: give --max-replications N too "
                          "(max_replications in a sweep file), the most replications a point "
                          "may take",
                          spec->precision_where);
    if (spec->max_replications < spec->replications)
        return storq_fail(err, STORQ_ERR_USAGE, "%s: %zu is below -r %zu, the batch size",
                          spec->max_replications_where, spec->max_replications, spec->replications);
    return STORQ_OK;
}

/* The zip group's names, each a parameter of the model, none twice, at least two. */
int storq_runopt_split_zip(const storq_run_spec *spec, const char *text, const char *what,
                           char ***names, size_t *n, storq_error *err)
{
    static const storq_param_def zip_def = {.name = "zip", .type = STORQ_PARAM_STRING};
    int rc = storq_split_values(&zip_def, text, names, n, err);
    if (rc) {
        storq_error located = {0};
        storq_fail(&located, rc, "%s: %s", what, err->msg + strlen("--zip: "));
        *err = located;
        return rc;
    }
    for (size_t i = 0; i < *n && !rc; i++) {
        if (!storq_param_find(spec->model->params, (*names)[i], NULL))
            rc = storq_fail(err, STORQ_ERR_USAGE, "%s: '%.60s' is not a parameter of model '%s'",
                            what, (*names)[i], spec->model->name);
        for (size_t j = 0; j < i && !rc; j++)
            if (!strcmp((*names)[i], (*names)[j]))
                rc = storq_fail(err, STORQ_ERR_USAGE, "%s: '%s' is named twice", what, (*names)[i]);
    }
    if (!rc && *n < 2)
        rc = storq_fail(err, STORQ_ERR_USAGE,
                        "%s: name at least two parameters, e.g. --zip "
                        "n,arrivals",
                        what);
    if (rc)
        storq_free_values(*names, *n);
    return rc;
}

int storq_runopt_zip(storq_run_spec *spec, const char *what, const char *text, storq_error *err)
{
    char **names;
    size_t n;
    STORQ_TRY(storq_runopt_split_zip(spec, text, what, &names, &n, err));
    storq_free_values(names, n);
    free(spec->zip_text);
    spec->zip_text = storq_spec_strdup(text, err);
    if (!spec->zip_text)
        return STORQ_ERR_RUNTIME;
    return storq_spec_where(&spec->zip_where, what, err);
}

int storq_runopt_schema(int *schema, const char *text, storq_error *err)
{
    if (!strcmp(text, "2") || !strcmp(text, "2.0"))
        *schema = 2;
    else if (!strcmp(text, "1") || !strcmp(text, "1.x"))
        *schema = 1;
    else
        return storq_fail(err, STORQ_ERR_USAGE, "--schema: '%.40s' is not a layout storq writes: "
                          "1 (a group a point, the default) or 2 (columnar: a row a point, named "
                          "dimensions)", text);
    return STORQ_OK;
}
