#include "run_spec.h"

#include <ctype.h>
#include <errno.h>
#include <ini.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "args.h"
#include "output_lock.h"
#include "registry.h"

#define DEFAULT_REPLICATIONS 10
#define DEFAULT_SEED 1
#define MAX_POINTS 1000000

/* ---- small string helpers ---- */

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

static char *xstrdup(const char *s, storq_error *err)
{
    char *d = strdup(s);
    if (!d)
        STORQ_RUNTIME_FAIL(err, "out of memory");
    return d;
}

static void free_values(char **values, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(values[i]);
    free(values);
}

/* A list item that continues a law's parameters rather than starting a value: a number (or a pmf
 * entry such as 4=0.5) after a value that names a law with parameters (name:...). */
static int continues_law(const char *prev, const char *item)
{
    return prev && strchr(prev, ':') && strchr("0123456789.+-", item[0]);
}

int storq_split_values(const storq_param_def *def, const char *text, char ***values,
                       size_t *nvalues, storq_error *err)
{
    char *copy = xstrdup(text, err);
    if (!copy)
        return STORQ_ERR_RUNTIME;
    size_t n = 0;
    char **out = calloc(strlen(text) / 2 + 2, sizeof *out); /* items are >= 1 char apart */
    if (!out) {
        free(copy);
        return STORQ_RUNTIME_FAIL(err, "out of memory");
    }
    int rc = STORQ_OK;
    char *save = NULL;
    for (char *tok = strtok_r(copy, ", \t", &save); tok && !rc;
         tok = strtok_r(NULL, ", \t", &save)) {
        if (continues_law(n ? out[n - 1] : NULL, tok)) {
            size_t len = strlen(out[n - 1]);
            char *grown = realloc(out[n - 1], len + strlen(tok) + 2);
            if (!grown) {
                rc = STORQ_RUNTIME_FAIL(err, "out of memory");
                break;
            }
            grown[len] = ',';
            strcpy(grown + len + 1, tok);
            out[n - 1] = grown;
        } else if (!(out[n] = xstrdup(tok, err))) {
            rc = STORQ_ERR_RUNTIME;
        } else {
            n++;
        }
    }
    free(copy);
    if (!rc && n == 0)
        rc = storq_fail(err, STORQ_ERR_USAGE, "--%s: no value given", def->name);
    if (rc) {
        free_values(out, n);
        return rc;
    }
    *values = out;
    *nvalues = n;
    return STORQ_OK;
}

/* ---- assignments ---- */

static int set_assignment(storq_run_spec *spec, const char *name, const char *text,
                          const char *where, storq_error *err)
{
    size_t idx;
    const storq_param_def *def = storq_param_find(spec->model->params, name, &idx);
    if (!def) {
        char accepted[1024] = "";
        for (const storq_param_def *d = spec->model->params; d->name; d++) {
            strncat(accepted, d->name, sizeof accepted - strlen(accepted) - 1);
            if (d[1].name)
                strncat(accepted, ", ", sizeof accepted - strlen(accepted) - 1);
        }
        return storq_fail(err, STORQ_ERR_USAGE, "%s%s: not a parameter of model '%s'; accepted: %s",
                          where, name, spec->model->name, accepted);
    }
    char **values;
    size_t n;
    STORQ_TRY(storq_split_values(def, text, &values, &n, err));
    /* Check every value now, so a typo in a long sweep fails before anything runs. */
    for (size_t i = 0; i < n; i++) {
        storq_param_value v;
        int rc = storq_param_parse(def, values[i], &v, err);
        free(v.s);
        if (rc) {
            free_values(values, n);
            return rc;
        }
    }
    storq_assignment *a = &spec->assign[idx];
    free_values(a->values, a->nvalues);
    a->values = values;
    a->nvalues = n;
    return STORQ_OK;
}

static int init_assignments(storq_run_spec *spec, storq_error *err)
{
    size_t np = storq_param_count(spec->model->params);
    spec->assign = calloc(np ? np : 1, sizeof *spec->assign);
    if (!spec->assign)
        return STORQ_RUNTIME_FAIL(err, "out of memory");
    for (size_t i = 0; i < np; i++) {
        spec->assign[i].name = xstrdup(spec->model->params[i].name, err);
        if (!spec->assign[i].name)
            return STORQ_ERR_RUNTIME;
    }
    return STORQ_OK;
}

static int check_required(const storq_run_spec *spec, storq_error *err)
{
    size_t np = storq_param_count(spec->model->params);
    for (size_t i = 0; i < np; i++) {
        const storq_param_def *d = &spec->model->params[i];
        if (spec->assign[i].nvalues)
            continue;
        if (!d->def)
            return storq_fail(err, STORQ_ERR_USAGE, "--%s is required for model '%s' (%s)",
                              d->name, spec->model->name, d->doc);
    }
    return STORQ_OK;
}

static int fill_defaults(storq_run_spec *spec, storq_error *err)
{
    STORQ_TRY(check_required(spec, err));
    size_t np = storq_param_count(spec->model->params);
    for (size_t i = 0; i < np; i++)
        if (!spec->assign[i].nvalues)
            STORQ_TRY(set_assignment(spec, spec->model->params[i].name, spec->model->params[i].def,
                                     "", err));
    return STORQ_OK;
}

/* Mark the zip group: parameters whose lists advance together (e.g. n and arrivals, so that
 * the run length grows with the system), which must be equally long. */
static int apply_zip(storq_run_spec *spec, storq_error *err)
{
    size_t np = storq_param_count(spec->model->params);
    spec->zipped = calloc(np ? np : 1, sizeof *spec->zipped);
    if (!spec->zipped)
        return STORQ_RUNTIME_FAIL(err, "out of memory");
    if (!spec->zip_text)
        return STORQ_OK;
    char *copy = xstrdup(spec->zip_text, err), *save = NULL;
    if (!copy)
        return STORQ_ERR_RUNTIME;
    size_t len = 0, members = 0;
    int rc = STORQ_OK;
    for (char *tok = strtok_r(copy, ", \t", &save); tok && !rc; tok = strtok_r(NULL, ", \t", &save)) {
        size_t idx;
        if (!storq_param_find(spec->model->params, tok, &idx)) {
            rc = storq_fail(err, STORQ_ERR_USAGE, "--zip: '%s' is not a parameter of model '%s'",
                            tok, spec->model->name);
            break;
        }
        size_t n = spec->assign[idx].nvalues;
        if (members && n != len)
            rc = storq_fail(err, STORQ_ERR_USAGE, "--zip: the zipped lists must be equally long; "
                            "'%s' has %zu values, the others %zu", tok, n, len);
        len = n;
        members++;
        spec->zipped[idx] = 1;
    }
    free(copy);
    if (!rc && members < 2)
        rc = storq_fail(err, STORQ_ERR_USAGE, "--zip: name at least two parameters, e.g. --zip n,arrivals");
    return rc;
}

/* The Cartesian product of the lists, last parameter varying fastest; the zip group is one
 * dimension, placed where its first member stands. */
static int expand_points(storq_run_spec *spec, storq_error *err)
{
    STORQ_TRY(apply_zip(spec, err));
    size_t np = storq_param_count(spec->model->params);
    size_t total = 1, zip_len = 0, zip_first = np;
    for (size_t i = 0; i < np; i++) {
        if (spec->zipped[i]) {
            if (zip_first < np)
                continue;
            zip_first = i;
            zip_len = spec->assign[i].nvalues;
        }
        total *= spec->assign[i].nvalues;
        if (total > MAX_POINTS)
            return storq_fail(err, STORQ_ERR_USAGE,
                              "the sweep has more than %d points; split it into several runs",
                              MAX_POINTS);
    }
    spec->points = calloc(total, sizeof *spec->points);
    if (!spec->points)
        return STORQ_RUNTIME_FAIL(err, "out of memory");
    spec->npoints = total;
    for (size_t p = 0; p < total; p++) {
        storq_params *pt = &spec->points[p];
        pt->model = spec->model;
        pt->n = np;
        pt->allow_unstable = spec->allow_unstable;
        pt->v = calloc(np ? np : 1, sizeof *pt->v);
        if (!pt->v)
            return STORQ_RUNTIME_FAIL(err, "out of memory");
        size_t rest = p, zip_pick = 0;
        for (size_t i = np; i-- > 0;) {
            if (spec->zipped[i] && i != zip_first)
                continue;
            size_t len = spec->zipped[i] ? zip_len : spec->assign[i].nvalues;
            size_t pick = rest % len;
            rest /= len;
            if (spec->zipped[i])
                zip_pick = pick;
            else
                STORQ_TRY(storq_param_parse(&spec->model->params[i], spec->assign[i].values[pick],
                                            &pt->v[i], err));
        }
        for (size_t i = 0; i < np; i++)
            if (spec->zipped[i])
                STORQ_TRY(storq_param_parse(&spec->model->params[i],
                                            spec->assign[i].values[zip_pick], &pt->v[i], err));
    }
    return STORQ_OK;
}

/* ---- config text: the run as an equivalent sweep file ---- */

static int append(char **buf, size_t *len, size_t *cap, const char *s, storq_error *err)
{
    size_t n = strlen(s);
    if (*len + n + 1 > *cap) {
        size_t c = *cap ? *cap : 256;
        while (*len + n + 1 > c)
            c *= 2;
        char *g = realloc(*buf, c);
        if (!g)
            return STORQ_RUNTIME_FAIL(err, "out of memory");
        *buf = g;
        *cap = c;
    }
    memcpy(*buf + *len, s, n + 1);
    *len += n;
    return STORQ_OK;
}

static int build_config_text(storq_run_spec *spec, storq_error *err)
{
    char *buf = NULL, line[512];
    size_t len = 0, cap = 0;
    snprintf(line, sizeof line, "[run]\nmodel = %s\nreplications = %zu\nseed = %llu\n",
             spec->model->name, spec->replications, (unsigned long long)spec->seed);
    STORQ_TRY(append(&buf, &len, &cap, line, err));
    if (spec->precision) {
        snprintf(line, sizeof line, "precision = %.17g%s%s\nmax_replications = %zu\n",
                 spec->precision, spec->precision_obs ? ":" : "",
                 spec->precision_obs ? spec->precision_obs : "", spec->max_replications);
        STORQ_TRY(append(&buf, &len, &cap, line, err));
    }
    if (spec->zip_text) {
        STORQ_TRY(append(&buf, &len, &cap, "zip = ", err));
        STORQ_TRY(append(&buf, &len, &cap, spec->zip_text, err));
        STORQ_TRY(append(&buf, &len, &cap, "\n", err));
    }
    snprintf(line, sizeof line, "\n[%s]\n", spec->model->name);
    STORQ_TRY(append(&buf, &len, &cap, line, err));
    size_t np = storq_param_count(spec->model->params);
    for (size_t i = 0; i < np; i++) {
        const storq_assignment *a = &spec->assign[i];
        STORQ_TRY(append(&buf, &len, &cap, a->name, err));
        STORQ_TRY(append(&buf, &len, &cap, " =", err));
        for (size_t j = 0; j < a->nvalues; j++) {
            STORQ_TRY(append(&buf, &len, &cap, j == 0 ? " " : ", ", err));
            STORQ_TRY(append(&buf, &len, &cap, a->values[j], err));
        }
        STORQ_TRY(append(&buf, &len, &cap, "\n", err));
    }
    spec->config_text = buf;
    return STORQ_OK;
}

/* ---- run options shared by flags and the [run] section ---- */

static int parse_count(const char *what, const char *text, unsigned long long min,
                       unsigned long long max, unsigned long long *out, storq_error *err)
{
    char *end = NULL;
    errno = 0;
    if (!text || !*text || *text == '-')
        goto bad;
    unsigned long long v = strtoull(text, &end, 10);
    if (*end || errno || v < min || v > max)
        goto bad;
    *out = v;
    return STORQ_OK;
bad:
    return storq_fail(err, STORQ_ERR_USAGE, "%s: '%s' is not accepted; expected an integer in [%llu, %llu]",
                      what, text ? text : "", min, max);
}

static int parse_bool(const char *what, const char *text, int *out, storq_error *err)
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

static int set_replications(storq_run_spec *spec, const char *what, const char *text, storq_error *err)
{
    unsigned long long v;
    STORQ_TRY(parse_count(what, text, 1, 1ull << 31, &v, err));
    spec->replications = (size_t)v;
    return STORQ_OK;
}

static int set_seed(storq_run_spec *spec, const char *what, const char *text, storq_error *err)
{
    unsigned long long v;
    STORQ_TRY(parse_count(what, text, 0, UINT64_MAX, &v, err));
    spec->seed = v;
    return STORQ_OK;
}

static int set_output(storq_run_spec *spec, const char *text, storq_error *err)
{
    if (!*text)
        return storq_fail(err, STORQ_ERR_USAGE, "--output: empty file name");
    free(spec->output);
    spec->output = xstrdup(text, err);
    return spec->output ? STORQ_OK : STORQ_ERR_RUNTIME;
}

/* --task I/N: the run's points p with p % N == I, so that N array tasks share a sweep. */
static int set_task(storq_run_spec *spec, const char *text, storq_error *err)
{
    unsigned long long i, n;
    char *end;
    const char *slash = strchr(text, '/');
    int ok = slash && isdigit((unsigned char)text[0]) && isdigit((unsigned char)slash[1]);
    if (ok) {
        errno = 0;
        i = strtoull(text, &end, 10);
        ok = end == slash && !errno;
    }
    if (ok) {
        n = strtoull(slash + 1, &end, 10);
        ok = !*end && !errno && n >= 1 && n <= MAX_POINTS && i < n;
    }
    if (!ok)
        return storq_fail(err, STORQ_ERR_USAGE, "--task: '%s' is not accepted; expected I/N, task I "
                          "of N tasks with 0 <= I < N and 1 <= N <= %d (e.g. --task 0/4)",
                          text, MAX_POINTS);
    spec->task_index = (size_t)i;
    spec->task_count = (size_t)n;
    return STORQ_OK;
}

/* A task's default file name: NAME.task-I-of-N.h5, so tasks sharing a directory never write the
 * same file. */
static int add_task_suffix(storq_run_spec *spec, storq_error *err)
{
    const char *out = spec->output;
    size_t stem = ends_with(out, ".h5") ? strlen(out) - 3 : strlen(out);
    char buf[1100];
    int n = snprintf(buf, sizeof buf, "%.*s.task-%zu-of-%zu.h5", (int)stem, out, spec->task_index,
                     spec->task_count);
    if (n < 0 || (size_t)n >= sizeof buf)
        return storq_fail(err, STORQ_ERR_USAGE, "--output: '%s' is too long", out);
    return set_output(spec, buf, err);
}

/* --precision REL[:OBSERVABLE]: REL a number in (0, 1). */
static int set_precision(storq_run_spec *spec, const char *what, const char *text,
                         storq_error *err)
{
    char *end;
    errno = 0;
    double rel = strtod(text, &end);
    if (end == text || errno || !(rel > 0 && rel < 1) || (*end && *end != ':') ||
        (*end == ':' && !end[1]))
        return storq_fail(err, STORQ_ERR_USAGE, "%s: '%s' is not accepted; expected REL or "
                          "REL:OBSERVABLE, REL in (0, 1) the target 95%% CI half-width over "
                          "|mean| (e.g. 0.01 or 0.01:mean_delay)", what, text);
    spec->precision = rel;
    free(spec->precision_obs);
    spec->precision_obs = NULL;
    if (*end == ':' && !(spec->precision_obs = xstrdup(end + 1, err)))
        return STORQ_ERR_RUNTIME;
    return STORQ_OK;
}

static int set_max_replications(storq_run_spec *spec, const char *what, const char *text,
                                storq_error *err)
{
    unsigned long long v;
    STORQ_TRY(parse_count(what, text, 1, 1ull << 31, &v, err));
    spec->max_replications = (size_t)v;
    return STORQ_OK;
}

/* --precision needs --max-replications, at least one batch (-r) of it. */
static int check_precision(const storq_run_spec *spec, storq_error *err)
{
    if (!spec->precision && spec->max_replications)
        return storq_fail(err, STORQ_ERR_USAGE, "--max-replications: applies with --precision "
                          "only (without it every point runs -r replications)");
    if (!spec->precision)
        return STORQ_OK;
    if (!spec->max_replications)
        return storq_fail(err, STORQ_ERR_USAGE, "--precision: give --max-replications N too, "
                          "the most replications a point may take");
    if (spec->max_replications < spec->replications)
        return storq_fail(err, STORQ_ERR_USAGE, "--max-replications: %zu is below -r %zu, the "
                          "batch size", spec->max_replications, spec->replications);
    return STORQ_OK;
}

static int set_zip(storq_run_spec *spec, const char *text, storq_error *err)
{
    free(spec->zip_text);
    spec->zip_text = xstrdup(text, err);
    return spec->zip_text ? STORQ_OK : STORQ_ERR_RUNTIME;
}

/* ---- sweep files (INI) ---- */

typedef struct sweep_ctx {
    storq_run_spec *spec;
    const char *path;
    storq_error *err;
    int pass; /* 1: find the model in [run]; 2: everything */
    int line;
} sweep_ctx;

static int sweep_handler(void *user, const char *section, const char *name, const char *value)
{
    sweep_ctx *c = user;
    storq_run_spec *spec = c->spec;
    char where[512];
    if (c->err->code)
        return 0;
    if (!strcmp(section, "run")) {
        snprintf(where, sizeof where, "%s: [run] %s", c->path, name);
        if (!strcmp(name, "model")) {
            if (c->pass == 1) {
                spec->model = storq_model_find(value);
                if (!spec->model)
                    storq_fail(c->err, STORQ_ERR_USAGE, "%s: unknown model '%s' (see `storq models`)",
                               where, value);
            }
        } else if (c->pass == 1) {
            return 1;
        } else if (!strcmp(name, "replications")) {
            set_replications(spec, where, value, c->err);
        } else if (!strcmp(name, "seed")) {
            set_seed(spec, where, value, c->err);
        } else if (!strcmp(name, "output")) {
            set_output(spec, value, c->err);
        } else if (!strcmp(name, "zip")) {
            set_zip(spec, value, c->err);
        } else if (!strcmp(name, "precision")) {
            set_precision(spec, where, value, c->err);
        } else if (!strcmp(name, "max_replications")) {
            set_max_replications(spec, where, value, c->err);
        } else if (!strcmp(name, "allow_unstable")) {
            int b = 0;
            if (!parse_bool(where, value, &b, c->err))
                spec->allow_unstable |= b;
        } else {
            storq_fail(c->err, STORQ_ERR_USAGE,
                       "%s: unknown key; accepted in [run]: model, replications, seed, output, zip, precision, "
                       "max_replications, allow_unstable",
                       where);
        }
        return c->err->code == 0;
    }
    if (c->pass == 1)
        return 1;
    if (!spec->model) {
        storq_fail(c->err, STORQ_ERR_USAGE, "%s: section [%s] comes before the model is known; "
                   "put `model = NAME` in [run]", c->path, section);
        return 0;
    }
    if (strcmp(section, spec->model->name) != 0) {
        storq_fail(c->err, STORQ_ERR_USAGE, "%s: unknown section [%s]; accepted: [run], [%s]",
                   c->path, section, spec->model->name);
        return 0;
    }
    snprintf(where, sizeof where, "%s: [%s] ", c->path, section);
    set_assignment(spec, name, value, where, c->err);
    return c->err->code == 0;
}

static int parse_sweep_file(const char *path, storq_run_spec *spec, storq_error *err)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return storq_fail(err, STORQ_ERR_USAGE, "%s: cannot read the sweep file: %s", path,
                          strerror(errno));
    sweep_ctx c = {spec, path, err, 1, 0};
    for (c.pass = 1; c.pass <= 2; c.pass++) {
        rewind(f);
        int rc = ini_parse_file(f, sweep_handler, &c);
        if (err->code)
            break;
        if (rc > 0) {
            storq_fail(err, STORQ_ERR_USAGE, "%s:%d: malformed line (expected `key = value` or `[section]`)",
                       path, rc);
            break;
        }
        if (c.pass == 1) {
            if (!spec->model) {
                storq_fail(err, STORQ_ERR_USAGE, "%s: no model; put `model = NAME` in a [run] section", path);
                break;
            }
            if (init_assignments(spec, err))
                break;
        }
    }
    fclose(f);
    return err->code;
}

/* ---- command line ---- */

/* The run options given as flags, over the sweep file's [run] values. */
static int apply_run_options(storq_run_spec *spec, const storq_args *a, storq_error *err)
{
    if (a->replications)
        STORQ_TRY(set_replications(spec, "--replications", a->replications, err));
    if (a->seed)
        STORQ_TRY(set_seed(spec, "--seed", a->seed, err));
    if (a->output)
        STORQ_TRY(set_output(spec, a->output, err));
    if (a->zip)
        STORQ_TRY(set_zip(spec, a->zip, err));
    if (a->task)
        STORQ_TRY(set_task(spec, a->task, err));
    if (a->precision)
        STORQ_TRY(set_precision(spec, "--precision", a->precision, err));
    if (a->max_replications)
        STORQ_TRY(set_max_replications(spec, "--max-replications", a->max_replications, err));
    spec->resume |= a->resume;
    spec->force |= a->force;
    spec->quiet |= a->quiet;
    spec->allow_unstable |= a->allow_unstable;
    return STORQ_OK;
}

static int default_output(storq_run_spec *spec, const char *target, storq_error *err)
{
    char buf[1024];
    if (ends_with(target, ".ini"))
        snprintf(buf, sizeof buf, "%.*s.h5", (int)(strlen(target) - 4), target);
    else
        snprintf(buf, sizeof buf, "%s.h5", spec->model->name);
    return set_output(spec, buf, err);
}

/* A finished result is never replaced, nor an unfinished run's partial file, unless --force says
 * so; the output must be a regular file path, and not the sweep file itself. */
static int check_output(const storq_run_spec *spec, const char *sweep, storq_error *err)
{
    struct stat st, sw;
    const char *out = spec->output;
    /* a run writing it now: name it, before any advice that would replace its file */
    STORQ_TRY(storq_output_lock_check(out, "--output", err));
    if (stat(out, &st) == 0) {
        if (!S_ISREG(st.st_mode))
            return storq_fail(err, STORQ_ERR_USAGE, "--output: '%s' exists and is not a regular "
                              "file; name a file path", out);
        if (sweep && stat(sweep, &sw) == 0 && sw.st_dev == st.st_dev && sw.st_ino == st.st_ino)
            return storq_fail(err, STORQ_ERR_USAGE, "--output: '%s' is the sweep file itself",
                              out);
        if (!spec->force)
            return storq_fail(err, STORQ_ERR_USAGE, "--output: '%s' exists (a finished result); "
                              "pass --force to replace it, or name another file", out);
    }
    char partial[1100];
    snprintf(partial, sizeof partial, "%s.partial", out);
    if (stat(partial, &st) == 0 && !spec->resume && !spec->force)
        return storq_fail(err, STORQ_ERR_USAGE, "--output: '%s' exists (an unfinished run): "
                          "--resume completes it, --force starts over", partial);
    return STORQ_OK;
}

static int parse_args(int argc, char **argv, storq_run_spec *spec, int with_run_options,
                      storq_error *err)
{
    memset(spec, 0, sizeof *spec);
    spec->replications = DEFAULT_REPLICATIONS;
    spec->seed = DEFAULT_SEED;
    spec->task_count = 1;
    storq_args a;
    int rc = storq_args_parse(argc, argv, with_run_options, &a, err);
    if (!rc && a.help) {
        /* usage asked for: the model, if one is named, is all the caller needs */
        spec->help = 1;
        spec->model = a.target ? storq_model_find(a.target) : NULL;
    } else if (!rc && !a.target) {
        rc = storq_fail(err, STORQ_ERR_USAGE, "name a model (see `storq models`)%s",
                        with_run_options ? " or a sweep file (.ini)" : "");
    } else if (!rc && with_run_options && ends_with(a.target, ".ini")) {
        rc = parse_sweep_file(a.target, spec, err);
    } else if (!rc) {
        spec->model = storq_model_find(a.target);
        if (!spec->model)
            rc = storq_fail(err, STORQ_ERR_USAGE, "unknown model '%s'%s (see `storq models`)",
                            a.target, with_run_options ? " and not a sweep file (.ini)" : "");
        else
            rc = init_assignments(spec, err);
    }
    if (!rc && !spec->help)
        rc = apply_run_options(spec, &a, err);
    /* Model parameters on the command line override the sweep file's. */
    for (size_t i = 0; !rc && !spec->help && i < a.nparams; i++)
        rc = set_assignment(spec, a.params[i].name, a.params[i].value, "--", err);
    if (!rc && !spec->help)
        rc = check_precision(spec, err);
    if (!rc && !spec->help)
        rc = fill_defaults(spec, err);
    if (!rc && !spec->help && with_run_options && !spec->output)
        rc = default_output(spec, a.target, err);
    /* -o names the file exactly; a default or [run] output name is shared by every task. */
    if (!rc && !spec->help && with_run_options && spec->task_count > 1 && !a.output)
        rc = add_task_suffix(spec, err);
    if (!rc && !spec->help && with_run_options)
        rc = check_output(spec, a.target && ends_with(a.target, ".ini") ? a.target : NULL, err);
    if (!rc && !spec->help)
        rc = expand_points(spec, err);
    if (!rc && !spec->help)
        rc = build_config_text(spec, err);
    storq_args_free(&a);
    return rc;
}

static int parse_with_command_line(int argc, char **argv, storq_run_spec *spec,
                                   int with_run_options, storq_error *err)
{
    STORQ_TRY(parse_args(argc, argv, spec, with_run_options, err));
    spec->command_line = storq_command_line(with_run_options ? "run" : "theory", argc, argv);
    return spec->command_line ? STORQ_OK : STORQ_RUNTIME_FAIL(err, "out of memory");
}

int storq_run_spec_parse(int argc, char **argv, storq_run_spec *spec, storq_error *err)
{
    return parse_with_command_line(argc, argv, spec, 1, err);
}

int storq_theory_spec_parse(int argc, char **argv, storq_run_spec *spec, storq_error *err)
{
    return parse_with_command_line(argc, argv, spec, 0, err);
}

void storq_run_spec_free(storq_run_spec *spec)
{
    if (!spec)
        return;
    size_t np = spec->model ? storq_param_count(spec->model->params) : 0;
    for (size_t i = 0; spec->assign && i < np; i++) {
        free(spec->assign[i].name);
        free_values(spec->assign[i].values, spec->assign[i].nvalues);
    }
    free(spec->assign);
    free(spec->zipped);
    free(spec->zip_text);
    free(spec->precision_obs);
    for (size_t p = 0; p < spec->npoints; p++)
        storq_params_free(&spec->points[p]);
    free(spec->points);
    free(spec->output);
    free(spec->config_text);
    free(spec->command_line);
    memset(spec, 0, sizeof *spec);
}
