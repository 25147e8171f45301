#include "run_spec.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "args.h"
#include "classes.h"
#include "number.h"
#include "file_kind.h"
#include "output_lock.h"
#include "registry.h"
#include "run_options.h"
#include "sweep_file.h"
#include "sweep_paths.h"
#include "value_list.h"

#define DEFAULT_REPLICATIONS 10
#define DEFAULT_SEED 1

/* ---- assignments ---- */

/* dir: the directory of the sweep file text was read from, whose relative trace paths name files
 * there (sweep_paths.h); NULL for the command line and the defaults. */
static int set_assignment(storq_run_spec *spec, const char *name, const char *text,
                          const char *where, const char *dir, storq_error *err)
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
    for (size_t i = 0; dir && i < n; i++) {
        char *in_dir = storq_value_in_dir(spec->model, def, dir, values[i]);
        if (!in_dir) {
            storq_free_values(values, n);
            return STORQ_RUNTIME_FAIL(err, "out of memory");
        }
        free(values[i]);
        values[i] = in_dir;
    }
    /* Check every value now, so a typo in a long sweep fails before anything runs. */
    for (size_t i = 0; i < n; i++) {
        storq_param_value v;
        int rc = storq_param_parse(def, values[i], &v, err);
        free(v.s);
        if (rc) {
            storq_free_values(values, n);
            return rc;
        }
    }
    storq_assignment *a = &spec->assign[idx];
    storq_free_values(a->values, a->nvalues);
    a->values = values;
    a->nvalues = n;
    a->line = 0; /* the sweep file's reader sets its own */
    a->from_command_line = 0; /* parse_args marks the command line's own */
    return STORQ_OK;
}

static int init_assignments(storq_run_spec *spec, storq_error *err)
{
    size_t np = storq_param_count(spec->model->params);
    spec->assign = calloc(np ? np : 1, sizeof *spec->assign);
    if (!spec->assign)
        return STORQ_RUNTIME_FAIL(err, "out of memory");
    for (size_t i = 0; i < np; i++) {
        spec->assign[i].name = storq_spec_strdup(spec->model->params[i].name, err);
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
                                     "", NULL, err));
    return STORQ_OK;
}

/* " (line N)", " (on the command line)" or "": where a parameter's values came from */
static void where_given(const storq_assignment *a, char *buf, size_t size)
{
    if (a->line)
        snprintf(buf, size, " (line %d)", a->line);
    else if (a->from_command_line)
        snprintf(buf, size, " (on the command line)");
    else
        buf[0] = '\0';
}

/* Mark the zip group: parameters whose lists advance together (e.g. n and arrivals, so that
 * the run length grows with the system), which must be equally long. The names were checked
 * when the group was given (set_zip). */
static int apply_zip(storq_run_spec *spec, storq_error *err)
{
    size_t np = storq_param_count(spec->model->params);
    spec->zipped = calloc(np ? np : 1, sizeof *spec->zipped);
    if (!spec->zipped)
        return STORQ_RUNTIME_FAIL(err, "out of memory");
    if (!spec->zip_text)
        return STORQ_OK;
    char **names;
    size_t n;
    STORQ_TRY(storq_runopt_split_zip(spec, spec->zip_text, spec->zip_where, &names, &n, err));
    const storq_assignment *first = NULL;
    int rc = STORQ_OK;
    for (size_t i = 0; i < n && !rc; i++) {
        size_t idx = 0;
        storq_param_find(spec->model->params, names[i], &idx);
        const storq_assignment *a = &spec->assign[idx];
        spec->zipped[idx] = 1;
        if (!first) {
            first = a;
        } else if (a->nvalues != first->nvalues) {
            char la[40], lf[40];
            where_given(a, la, sizeof la);
            where_given(first, lf, sizeof lf);
            /* a sweep file's zip group overridden in part from the command line: say how */
            int partly = a->from_command_line != first->from_command_line;
            rc = storq_fail(err, STORQ_ERR_USAGE, "%s: the zipped lists must be equally long; "
                            "'%s'%s has %zu value%s, '%s'%s %zu%s", spec->zip_where, a->name,
                            la, a->nvalues, a->nvalues == 1 ? "" : "s", first->name, lf,
                            first->nvalues,
                            partly ? " (a command line that changes one zipped list gives the "
                                     "others too, or --zip names another group)"
                                   : "");
        }
    }
    storq_free_values(names, n);
    return rc;
}

/* The number of points: the Cartesian product of the lists' lengths, the zip group counting as one
 * list. The points themselves are built later (src/app/point_list.c), once the memory budget is
 * known and their size checked against it. */
static int count_points(storq_run_spec *spec, storq_error *err)
{
    STORQ_TRY(apply_zip(spec, err));
    size_t np = storq_param_count(spec->model->params), total = 1;
    int zip_seen = 0;
    for (size_t i = 0; i < np; i++) {
        if (spec->zipped[i] && zip_seen++)
            continue;
        total *= spec->assign[i].nvalues;
        if (total > STORQ_MAX_POINTS)
            return storq_fail(err, STORQ_ERR_USAGE,
                              "the sweep has more than %d points; split it into several runs",
                              STORQ_MAX_POINTS);
    }
    spec->npoints = total;
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

/* ---- sweep files ---- */

/* A sweep-file error's place, "FILE:LINE: [SECTION] KEY", in front of the message; a message
 * about the parameter as a flag ("--n: ...") has the flag replaced by it. */
static int locate(storq_error *err, const char *key, const char *where)
{
    if (err->code != STORQ_ERR_USAGE)
        return err->code;
    const char *rest = err->msg;
    size_t k = strlen(key);
    if (!strncmp(rest, "--", 2) && !strncmp(rest + 2, key, k) && rest[2 + k] == ':')
        rest += 3 + k + (rest[3 + k] == ' ');
    char msg[2 * sizeof err->msg + 8];
    snprintf(msg, sizeof msg, "%s: %s", where, rest);
    size_t len = strlen(msg);
    if (len >= sizeof err->msg)
        len = sizeof err->msg - 1;
    memcpy(err->msg, msg, len);
    err->msg[len] = '\0';
    return err->code;
}

/* Where a sweep file's relative paths point (sweep_paths.h): its directory as given, for the
 * output (opened from here), and as an absolute path, for traces (their path is stored in the
 * results file's /run/config and compared by --resume, which may run from another directory). */
typedef struct sweep_dirs {
    char *given, *absolute;
} sweep_dirs;

static int set_output_in_dir(storq_run_spec *spec, const char *dir, const char *value,
                             storq_error *err)
{
    if (!*value)
        return storq_runopt_output(spec, value, err); /* refused, as -o "" */
    char *path = storq_path_in_dir(dir, value);
    int rc = path ? storq_runopt_output(spec, path, err) : STORQ_RUNTIME_FAIL(err, "out of memory");
    free(path);
    return rc;
}

static int apply_run_entry(storq_run_spec *spec, const storq_sweep_entry *e, const char *where,
                           const sweep_dirs *dirs, storq_error *err)
{
    const char *key = e->key, *value = e->value;
    if (!strcmp(key, "model"))
        return STORQ_OK; /* read first */
    if (!strcmp(key, "replications"))
        return storq_runopt_replications(spec, where, value, err);
    if (!strcmp(key, "seed"))
        return storq_runopt_seed(spec, where, value, err);
    if (!strcmp(key, "output"))
        return set_output_in_dir(spec, dirs->given, value, err) ? locate(err, "output", where)
                                                                 : STORQ_OK;
    if (!strcmp(key, "zip"))
        return storq_runopt_zip(spec, where, value, err);
    if (!strcmp(key, "precision"))
        return storq_runopt_precision(spec, where, value, err);
    if (!strcmp(key, "max_replications"))
        return storq_runopt_max_replications(spec, where, value, err);
    if (!strcmp(key, "allow_unstable")) {
        int b = 0;
        STORQ_TRY(storq_runopt_bool(where, value, &b, err));
        spec->allow_unstable |= b;
        return STORQ_OK;
    }
    return storq_fail(err, STORQ_ERR_USAGE, "%s: unknown key; accepted in [run]: model, "
                      "replications, seed, output, zip, precision, max_replications, "
                      "allow_unstable", where);
}

/* [class.NAME] sections: together they are the model's `classes`, given one class at a time. */
static int apply_class_sections(const storq_sweep_file *f, storq_run_spec *spec,
                                const sweep_dirs *dirs, storq_error *err)
{
    char *classes;
    int line;
    STORQ_TRY(storq_classes_from_sections(spec->model, f, &classes, &line, err));
    if (!classes)
        return STORQ_OK;
    const storq_sweep_entry *listed = storq_sweep_file_find(f, spec->model->name, "classes");
    int rc = STORQ_OK;
    if (listed) {
        rc = storq_fail(err, STORQ_ERR_USAGE, "%s:%d: [%s] classes: the classes are also given as "
                        "[class.NAME] sections (line %d); give them one way", f->path,
                        listed->line, spec->model->name, line);
    } else {
        char where[1024];
        snprintf(where, sizeof where, "%s:%d: [class.*]", f->path, line);
        if (set_assignment(spec, "classes", classes, "--", dirs->absolute, err)) {
            rc = locate(err, "classes", where);
        } else {
            size_t idx;
            storq_param_find(spec->model->params, "classes", &idx);
            spec->assign[idx].line = line;
        }
    }
    free(classes);
    return rc;
}

/* The model first (from [run]), then every section and key in file order. */
static int apply_sweep_file(const storq_sweep_file *f, storq_run_spec *spec,
                            const sweep_dirs *dirs, storq_error *err)
{
    char where[1024];
    const storq_sweep_entry *m = storq_sweep_file_find(f, "run", "model");
    if (!m) {
        /* names are lower case: [RUN] or Model = is the model missed, not a missing one */
        for (size_t i = 0; i < f->nsections; i++)
            if (!strcasecmp(f->sections[i].name, "run") && strcmp(f->sections[i].name, "run"))
                return storq_fail(err, STORQ_ERR_USAGE, "%s:%d: [%.60s]: unknown section; "
                                  "section names are lower case: [run]", f->path,
                                  f->sections[i].line, f->sections[i].name);
        for (size_t i = 0; i < f->nentries; i++)
            if (!strcmp(f->entries[i].section, "run") && !strcasecmp(f->entries[i].key, "model"))
                return storq_fail(err, STORQ_ERR_USAGE, "%s:%d: [run] %.60s: unknown key; keys "
                                  "are lower case: model", f->path, f->entries[i].line,
                                  f->entries[i].key);
        int line = storq_sweep_file_section_line(f, "run");
        return storq_fail(err, STORQ_ERR_USAGE, "%s:%d: [run] model: missing; put `model = NAME` "
                          "in %s [run] section", f->path, line ? line : 1,
                          line ? "the" : "a");
    }
    spec->model = storq_model_find(m->value);
    if (!spec->model)
        return storq_fail(err, STORQ_ERR_USAGE, "%s:%d: [run] model: unknown model '%.60s' (see "
                          "`storq models`)", f->path, m->line, m->value);
    for (size_t i = 0; i < f->nsections; i++) {
        const char *name = f->sections[i].name;
        if (strcmp(name, "run") && strcmp(name, spec->model->name) &&
            !(storq_is_class_section(name) && spec->model->class_fields))
            return storq_fail(err, STORQ_ERR_USAGE, "%s:%d: [%.60s]: unknown section; accepted: "
                              "[run], [%s] (the model's parameters)%s", f->path,
                              f->sections[i].line, name, spec->model->name,
                              spec->model->class_fields ? ", [class.NAME] (a request class)" : "");
    }
    STORQ_TRY(init_assignments(spec, err));
    for (size_t i = 0; i < f->nentries; i++) {
        const storq_sweep_entry *e = &f->entries[i];
        snprintf(where, sizeof where, "%s:%d: [%s] %s", f->path, e->line, e->section, e->key);
        if (!strcmp(e->section, "run")) {
            STORQ_TRY(apply_run_entry(spec, e, where, dirs, err));
            continue;
        }
        if (storq_is_class_section(e->section))
            continue; /* below, all classes at once */
        if (set_assignment(spec, e->key, e->value, "--", dirs->absolute, err))
            return locate(err, e->key, where);
        size_t idx;
        storq_param_find(spec->model->params, e->key, &idx);
        spec->assign[idx].line = e->line;
    }
    return apply_class_sections(f, spec, dirs, err);
}

static int parse_sweep_file(const char *path, storq_run_spec *spec, storq_error *err)
{
    storq_sweep_file f;
    STORQ_TRY(storq_sweep_file_read(path, &f, err));
    sweep_dirs dirs = {storq_sweep_dir(path, 0), storq_sweep_dir(path, 1)};
    int rc = dirs.given && dirs.absolute ? apply_sweep_file(&f, spec, &dirs, err)
                                         : STORQ_RUNTIME_FAIL(err, "out of memory");
    free(dirs.given);
    free(dirs.absolute);
    storq_sweep_file_free(&f);
    return rc;
}

/* ---- command line ---- */

/* The model --help describes: the one named, the sweep file's, or none. A name that is neither is
 * refused, as without --help. */
static int help_model(const char *target, int with_run_options, storq_run_spec *spec,
                      storq_error *err)
{
    if (!target)
        return STORQ_OK;
    if (with_run_options && storq_ends_with(target, ".ini")) {
        storq_sweep_file f;
        STORQ_TRY(storq_sweep_file_read(target, &f, err));
        const storq_sweep_entry *m = storq_sweep_file_find(&f, "run", "model");
        spec->model = m ? storq_model_find(m->value) : NULL;
        int rc = STORQ_OK;
        if (m && !spec->model)
            rc = storq_fail(err, STORQ_ERR_USAGE, "%s:%d: [run] model: unknown model '%.60s' "
                            "(see `storq models`)", f.path, m->line, m->value);
        storq_sweep_file_free(&f);
        return rc;
    }
    spec->model = storq_model_find(target);
    if (!spec->model)
        return storq_fail(err, STORQ_ERR_USAGE, "unknown model '%s'%s (see `storq models`)",
                          target, with_run_options ? " and not a sweep file (.ini)" : "");
    return STORQ_OK;
}

/* The run options given as flags, over the sweep file's [run] values. */
static int apply_run_options(storq_run_spec *spec, const storq_args *a, storq_error *err)
{
    if (a->replications)
        STORQ_TRY(storq_runopt_replications(spec, "-r/--replications", a->replications, err));
    if (a->seed)
        STORQ_TRY(storq_runopt_seed(spec, "--seed", a->seed, err));
    if (a->output)
        STORQ_TRY(storq_runopt_output(spec, a->output, err));
    if (a->zip)
        STORQ_TRY(storq_runopt_zip(spec, "--zip", a->zip, err));
    if (a->task)
        STORQ_TRY(storq_runopt_task(spec, a->task, err));
    if (a->precision)
        STORQ_TRY(storq_runopt_precision(spec, "--precision", a->precision, err));
    if (a->max_replications)
        STORQ_TRY(storq_runopt_max_replications(spec, "--max-replications", a->max_replications,
                                                err));
    if (a->schema)
        STORQ_TRY(storq_runopt_schema(&spec->schema, a->schema, err));
    spec->memory_limit = a->memory_limit;
    spec->workers = a->workers;
    spec->calibrate_from = a->calibrate_from;
    spec->resume |= a->resume;
    spec->force |= a->force;
    spec->quiet |= a->quiet;
    spec->allow_unstable |= a->allow_unstable;
    return STORQ_OK;
}

static int default_output(storq_run_spec *spec, const char *target, storq_error *err)
{
    char buf[1024];
    if (storq_ends_with(target, ".ini"))
        snprintf(buf, sizeof buf, "%.*s.h5", (int)(strlen(target) - 4), target);
    else
        snprintf(buf, sizeof buf, "%s.h5", spec->model->name);
    return storq_runopt_output(spec, buf, err);
}

/* A finished result is never replaced, nor an unfinished run's partial file, unless --force says
 * so; the output must be a regular file path, and not the sweep file itself. */
static int check_output(const storq_run_spec *spec, const char *sweep, storq_error *err)
{
    struct stat st, sw;
    const char *out = spec->output;
    /* a run writing it now: name it, before any advice that would replace its file */
    STORQ_TRY(storq_check_output_kind(out, "--output", err));
    STORQ_TRY(storq_output_lock_check(out, "--output", err));
    if (stat(out, &st) == 0) {
        if (sweep && stat(sweep, &sw) == 0 && sw.st_dev == st.st_dev && sw.st_ino == st.st_ino)
            return storq_fail(err, STORQ_ERR_USAGE, "--output: '%s' is the sweep file itself",
                              out);
        if (!spec->force)
            return storq_fail(err, STORQ_ERR_USAGE, "--output: '%s' exists (a finished result); "
                              "pass --force to replace it, or name another file", out);
    }
    char partial[1100];
    snprintf(partial, sizeof partial, "%s.partial", out);
    /* not a partial file storq could replace (a directory, a FIFO): never removed (--resume
     * names it in its own words when it opens it) */
    if (!spec->resume && lstat(partial, &st) == 0 && !S_ISREG(st.st_mode))
        return storq_fail(err, STORQ_ERR_USAGE, "--output: '%s', where this run would keep its "
                          "unfinished work, exists and is not a regular file but %s; remove it "
                          "or name another output", partial, storq_file_kind(st.st_mode));
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
    spec->dry_run = !rc && a.dry_run; /* set first: main() reports a dry run's errors itself */
    if (!rc && a.help) {
        /* usage asked for: the model, if one is named, is all the caller needs */
        spec->help = 1;
        rc = help_model(a.target, with_run_options, spec, err);
    } else if (!rc && !a.target) {
        rc = storq_fail(err, STORQ_ERR_USAGE, "name a model (see `storq models`)%s",
                        with_run_options ? " or a sweep file (.ini)" : "");
    } else if (!rc && with_run_options && storq_ends_with(a.target, ".ini")) {
        rc = parse_sweep_file(a.target, spec, err);
    } else if (!rc) {
        spec->model = storq_model_find(a.target);
        if (!spec->model) {
            char known[256];
            storq_model_names(known, sizeof known, ", ");
            rc = storq_fail(err, STORQ_ERR_USAGE, "unknown model '%s'%s; models: %s (`storq "
                            "models` describes them)", a.target,
                            with_run_options ? " and not a sweep file (.ini)" : "", known);
        } else {
            rc = init_assignments(spec, err);
        }
    }
    if (!rc && !spec->help)
        rc = apply_run_options(spec, &a, err);
    /* Model parameters on the command line override the sweep file's; --class values are one
     * parameter, `classes`, together. */
    for (size_t i = 0; !rc && !spec->help && i < a.nparams; i++)
        if (strcmp(a.params[i].name, "class") || !spec->model->class_fields) {
            rc = set_assignment(spec, a.params[i].name, a.params[i].value, "--", NULL, err);
            size_t idx;
            if (!rc && storq_param_find(spec->model->params, a.params[i].name, &idx))
                spec->assign[idx].from_command_line = 1;
        }
    char *classes = NULL;
    if (!rc && !spec->help)
        rc = storq_classes_from_flags(spec->model, &a, &classes, err);
    if (!rc && classes)
        rc = set_assignment(spec, "classes", classes, "--", NULL, err);
    free(classes);
    if (!rc && !spec->help)
        rc = storq_runopt_check_precision(spec, err);
    if (!rc && !spec->help)
        rc = fill_defaults(spec, err);
    if (!rc && !spec->help && with_run_options && !spec->output)
        rc = default_output(spec, a.target, err);
    /* -o names the file exactly; a default or [run] output name is shared by every task. */
    if (!rc && !spec->help && with_run_options && spec->task_count > 1 && !a.output)
        rc = storq_runopt_task_suffix(spec, err);
    /* A dry run writes nothing, so the output file is not its business. */
    if (!rc && !spec->help && with_run_options && !spec->dry_run)
        rc = check_output(spec, a.target && storq_ends_with(a.target, ".ini") ? a.target : NULL,
                          err);
    if (!rc && !spec->help)
        rc = count_points(spec, err);
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

void storq_run_spec_print_run(const storq_run_spec *spec, FILE *out)
{
    fprintf(out, "run: model=%s replications=%zu seed=%llu points=%zu", spec->model->name,
            spec->replications, (unsigned long long)spec->seed, spec->npoints);
    if (spec->precision)
        fprintf(out, " precision=%.17g max_replications=%zu", spec->precision,
                spec->max_replications);
    if (spec->task_count > 1)
        fprintf(out, " task=%zu/%zu", spec->task_index, spec->task_count);
    fprintf(out, " output=%s\n", spec->output); /* last: a file name may hold blanks */
}

void storq_run_spec_print(const storq_run_spec *spec, FILE *out)
{
    size_t np = storq_param_count(spec->model->params);
    storq_run_spec_print_run(spec, out);
    for (size_t p = spec->task_index; p < spec->npoints; p += spec->task_count) {
        fprintf(out, "point %zu:", p);
        for (size_t i = 0; i < np; i++)
            fprintf(out, " %s=%s", spec->model->params[i].name, spec->points[p].v[i].s);
        fputc('\n', out);
    }
}

void storq_run_spec_free(storq_run_spec *spec)
{
    if (!spec)
        return;
    size_t np = spec->model ? storq_param_count(spec->model->params) : 0;
    for (size_t i = 0; spec->assign && i < np; i++) {
        free(spec->assign[i].name);
        storq_free_values(spec->assign[i].values, spec->assign[i].nvalues);
    }
    free(spec->assign);
    free(spec->zipped);
    free(spec->zip_text);
    free(spec->zip_where);
    free(spec->precision_where);
    free(spec->max_replications_where);
    free(spec->precision_obs);
    for (size_t p = 0; spec->points && p < spec->npoints; p++)
        storq_params_free(&spec->points[p]);
    free(spec->points);
    free(spec->output);
    free(spec->config_text);
    free(spec->command_line);
    memset(spec, 0, sizeof *spec);
}
