/* `storq theory` and `storq info`: their own options (--only, --format) are taken out of the
 * command line here, the rest is the model's parameters as for `storq run`.
 *
 * storq theory simulates nothing, so a load at or beyond capacity is not refused: the model is
 * prepared as for `storq run`, and when it refuses only because of the load (it accepts the
 * point with --allow-unstable), the refusal becomes one "unstable:" line and the arrays the model
 * still computes are printed (each model omits those that assume a steady state). */
#include "views.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "args.h"
#include "h5_info.h"
#include "memory_budget.h"
#include "point_list.h"
#include "params.h"
#include "report.h"
#include "run_spec.h"
#include "table.h"
#include "text_out.h"

/* ---- options ---- */

/* The value of option name at argv[*i] ("--name value" or "--name=value"), advancing *i past it;
 * NULL when argv[*i] is not that option. */
static const char *option_value(int argc, char **argv, int *i, const char *name, int *missing)
{
    size_t len = strlen(name);
    const char *a = argv[*i];
    if (strncmp(a, name, len) != 0)
        return NULL;
    if (a[len] == '=')
        return a + len + 1;
    if (a[len] != '\0')
        return NULL;
    if (*i + 1 >= argc) {
        *missing = 1;
        return NULL;
    }
    return argv[++*i];
}

static int parse_format(const char *text, storq_view_format *fmt, storq_error *err)
{
    if (!strcmp(text, "table"))
        *fmt = STORQ_VIEW_TABLE;
    else if (!strcmp(text, "csv"))
        *fmt = STORQ_VIEW_CSV;
    else if (!strcmp(text, "json"))
        *fmt = STORQ_VIEW_JSON;
    else
        return storq_fail(err, STORQ_ERR_USAGE,
                          "--format: '%s' is not one of table, csv, json", text);
    return STORQ_OK;
}

/* Take --format (and --only when only is not NULL) out of argv; rest gets the other arguments,
 * in order. */
static int take_options(int argc, char **argv, char **rest, int *nrest, const char **only,
                        storq_view_format *fmt, storq_error *err)
{
    *nrest = 0;
    *fmt = STORQ_VIEW_TABLE;
    const char *format = NULL; /* as given, to name it if given again */
    for (int i = 0; i < argc; i++) {
        int missing = 0;
        const char *v;
        if ((v = option_value(argc, argv, &i, "--format", &missing)) != NULL) {
            STORQ_TRY(storq_args_once("--format", -1, format, v, NULL, err));
            format = v;
            STORQ_TRY(parse_format(v, fmt, err));
        } else if (only && (v = option_value(argc, argv, &i, "--only", &missing)) != NULL) {
            if (!*v)
                return storq_fail(err, STORQ_ERR_USAGE, "--only: name at least one theory "
                                  "array (e.g. --only u,mean_queue_length)");
            STORQ_TRY(storq_args_once("--only", -1, *only, v,
                                      "the names are one list (--only A,B)", err));
            *only = v;
        } else if (missing) {
            return storq_fail(err, STORQ_ERR_USAGE, "%s needs a value", argv[i]);
        } else {
            rest[(*nrest)++] = argv[i];
        }
    }
    return STORQ_OK;
}

/* ---- theory: computing ---- */

typedef struct theory_point {
    storq_theory theory;
    char *unstable; /* the model's words for the load beyond capacity, or NULL */
} theory_point;

/* The refusal's reason without the advice `storq run` gives (model_kit.h: the model marks a
 * refusal of the load as such, and where its reason ends). */
static char *unstable_text(const storq_error *refusal)
{
    size_t len = refusal->unstable ? refusal->reason_len : strlen(refusal->msg);
    return strndup(refusal->msg, len);
}

static int compute_point(const storq_params *point, theory_point *tp, storq_error *err)
{
    const storq_model *m = point->model;
    storq_params p = *point; /* shallow: only allow_unstable differs */
    p.allow_unstable = 0;
    void *ctx = NULL;
    storq_error refusal = {0};
    int rc = m->prepare(&p, &ctx, &refusal);
    if (rc == STORQ_ERR_USAGE) {
        /* refused for the load alone when --allow-unstable lets it through; the warning that
         * would then print says what the line below says */
        storq_error again = {0};
        p.allow_unstable = 1;
        storq_warn_enable(0);
        int rc2 = m->prepare(&p, &ctx, &again);
        storq_warn_enable(1);
        if (rc2) {
            *err = refusal;
            return rc;
        }
        tp->unstable = unstable_text(&refusal);
        rc = tp->unstable ? STORQ_OK : STORQ_RUNTIME_FAIL(err, "out of memory");
    } else if (rc) {
        *err = refusal;
    }
    if (!rc && !m->theory)
        rc = storq_fail(err, STORQ_ERR_USAGE, "model '%s' has no analytic companions", m->name);
    if (!rc)
        rc = m->theory(ctx, &tp->theory, err);
    if (ctx)
        m->release(ctx);
    return rc;
}

/* ---- theory: --only ---- */

typedef struct name_list {
    char **names;
    size_t n;
} name_list;

static void name_list_free(name_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->names[i]);
    free(l->names);
    memset(l, 0, sizeof *l);
}

static int split_names(const char *text, name_list *l, storq_error *err)
{
    memset(l, 0, sizeof *l);
    for (const char *p = text;;) {
        size_t len = strcspn(p, ",");
        if (len > 0) {
            char **grown = realloc(l->names, (l->n + 1) * sizeof *grown);
            char *name = grown ? strndup(p, len) : NULL;
            if (grown)
                l->names = grown;
            if (!name)
                return STORQ_RUNTIME_FAIL(err, "out of memory");
            l->names[l->n++] = name;
        }
        if (!p[len])
            break;
        p += len + 1;
    }
    if (l->n == 0)
        return storq_fail(err, STORQ_ERR_USAGE, "--only: name at least one theory array");
    return STORQ_OK;
}

/* Whether array name is shown: every array without --only. */
static int selected(const name_list *only, const char *name)
{
    if (!only->n)
        return 1;
    for (size_t i = 0; i < only->n; i++)
        if (!strcmp(only->names[i], name))
            return 1;
    return 0;
}

/* A name --only asks for that no point has is a usage error naming the arrays there are. */
static int check_only(const name_list *only, const theory_point *tp, size_t np, storq_error *err)
{
    for (size_t i = 0; i < only->n; i++) {
        int found = 0;
        for (size_t p = 0; p < np && !found; p++)
            found = storq_theory_find(&tp[p].theory, only->names[i]) != NULL;
        if (found)
            continue;
        char names[700] = "";
        size_t used = 0;
        for (size_t p = 0; p < np; p++)
            for (size_t a = 0; a < tp[p].theory.n && used < sizeof names; a++) {
                const char *name = tp[p].theory.items[a].name;
                int seen = 0;
                for (size_t q = 0; q < p && !seen; q++)
                    seen = storq_theory_find(&tp[q].theory, name) != NULL;
                for (size_t b = 0; b < a && !seen; b++)
                    seen = !strcmp(tp[p].theory.items[b].name, name);
                if (!seen)
                    used += (size_t)snprintf(names + used, sizeof names - used, "%s%s",
                                             used ? ", " : "", name);
            }
        return storq_fail(err, STORQ_ERR_USAGE, "--only: '%s' is not a theory array here; %s%s",
                          only->names[i], used ? "there are: " : "there are none at this point",
                          names);
    }
    return STORQ_OK;
}

/* ---- theory: printing ---- */

/* What the unstable line adds to the model's words. */
static const char *unstable_note(const char *text)
{
    return strstr(text, "no steady state") ? " (theory arrays that assume one are omitted)"
                                           : " (no steady state; theory arrays that assume one "
                                             "are omitted)";
}

#define PREVIEW_HEAD 3 /* an abbreviated array: its first values, then "...", then its last */

static void add_preview(storq_table *t, const storq_array *a)
{
    char buf[256];
    size_t used = 0;
    const size_t head = a->len <= PREVIEW_HEAD + 2 ? a->len : PREVIEW_HEAD;
    buf[0] = '\0';
    for (size_t i = 0; i < head; i++)
        used += (size_t)snprintf(buf + used, sizeof buf - used, "%s%.6g", i ? " " : "",
                                 a->data[i]);
    if (head < a->len)
        snprintf(buf + used, sizeof buf - used, " ... %.6g (%zu more)", a->data[a->len - 1],
                 a->len - head - 1);
    storq_table_add(t, "%s", buf);
}

/* Arrays of length > 1 abbreviated, one a row. Returns the name of the first one, or NULL. */
static const char *print_array_summary(FILE *out, const storq_theory *th, const name_list *only)
{
    const char *first = NULL;
    storq_table t;
    storq_table_init(&t, 5, "l r l l  l", "  ");
    storq_table_min_width(&t, 0, 24);
    storq_table_header(&t, "array", "length", "unit", "values", "meaning", (char *)NULL);
    for (size_t i = 0; i < th->n; i++) {
        const storq_array *a = &th->items[i];
        if (a->len == 1 || !selected(only, a->name))
            continue;
        if (!first)
            first = a->name;
        storq_table_add(&t, "%s", a->name);
        storq_table_add(&t, "%zu", a->len);
        storq_table_add(&t, "%s", a->unit);
        add_preview(&t, a);
        storq_table_add(&t, "%s", a->desc);
    }
    if (storq_table_rows(&t) > 0) {
        fputc('\n', out);
        storq_table_print(&t, out);
    }
    storq_table_free(&t);
    return first;
}

static void print_theory_table(FILE *out, const storq_run_spec *spec, const theory_point *tp,
                               const name_list *only)
{
    const char *example = NULL;
    for (size_t p = 0; p < spec->npoints; p++) {
        if (p)
            fputc('\n', out);
        fprintf(out, "theory for ");
        storq_report_params(out, &spec->points[p]);
        if (tp[p].unstable)
            fprintf(out, "unstable: %s%s\n", tp[p].unstable, unstable_note(tp[p].unstable));
        if (tp[p].theory.n == 0)
            fprintf(out, "(no theory arrays at this point)\n");
        storq_report_theory_select(out, &tp[p].theory, only->n ? only->names : NULL, only->n,
                                   only->n ? 1 : 0);
        if (!only->n) {
            const char *first = print_array_summary(out, &tp[p].theory, only);
            if (!example)
                example = first;
        }
    }
    if (example)
        fprintf(out, "\n(arrays abbreviated: `%s --only %s` prints one in full, `--format csv` "
                "or `--format json` every value)\n", spec->command_line, example);
}

static void print_theory_csv(FILE *out, const storq_run_spec *spec, const theory_point *tp,
                             const name_list *only)
{
    const storq_param_def *defs = spec->model->params;
    fputs("point", out);
    for (size_t i = 0; defs[i].name; i++) {
        fputc(',', out);
        storq_csv_field(out, defs[i].name);
    }
    fputs(",array,index,value,unit\n", out);
    for (size_t p = 0; p < spec->npoints; p++) {
        const storq_params *pt = &spec->points[p];
        if (tp[p].unstable)
            fprintf(stderr, "storq: point %zu unstable: %s%s\n", p, tp[p].unstable,
                    unstable_note(tp[p].unstable));
        for (size_t a = 0; a < tp[p].theory.n; a++) {
            const storq_array *arr = &tp[p].theory.items[a];
            if (!selected(only, arr->name))
                continue;
            for (size_t i = 0; i < arr->len; i++) {
                fprintf(out, "%zu", p);
                for (size_t k = 0; k < pt->n; k++) {
                    fputc(',', out);
                    storq_csv_field(out, pt->v[k].s);
                }
                fputc(',', out);
                storq_csv_field(out, arr->name);
                fprintf(out, ",%zu,", i);
                storq_csv_number(out, arr->data[i]);
                fputc(',', out);
                storq_csv_field(out, arr->unit);
                fputc('\n', out);
            }
        }
    }
}

/* A parameter's value: a JSON number for numeric parameters, a string otherwise. */
static void json_param(FILE *out, const storq_param_def *def, const storq_param_value *v)
{
    if (def->type == STORQ_PARAM_INT)
        fprintf(out, "%lld", (long long)v->i);
    else if (def->type == STORQ_PARAM_REAL)
        storq_json_number(out, v->r);
    else
        storq_json_string(out, v->s);
}

static void print_theory_json(FILE *out, const storq_run_spec *spec, const theory_point *tp,
                              const name_list *only)
{
    const storq_param_def *defs = spec->model->params;
    fputs("{\"model\": ", out);
    storq_json_string(out, spec->model->name);
    fputs(", \"command\": ", out);
    storq_json_string(out, spec->command_line);
    fputs(", \"points\": [", out);
    for (size_t p = 0; p < spec->npoints; p++) {
        const storq_params *pt = &spec->points[p];
        fprintf(out, "%s\n  {\"point\": %zu, \"params\": {", p ? "," : "", p);
        for (size_t k = 0; k < pt->n; k++) {
            fputs(k ? ", " : "", out);
            storq_json_string(out, defs[k].name);
            fputs(": ", out);
            json_param(out, &defs[k], &pt->v[k]);
        }
        fputs("},\n   \"unstable\": ", out);
        if (tp[p].unstable)
            storq_json_string(out, tp[p].unstable);
        else
            fputs("null", out);
        fputs(",\n   \"theory\": {", out);
        int first = 1;
        for (size_t a = 0; a < tp[p].theory.n; a++) {
            const storq_array *arr = &tp[p].theory.items[a];
            if (!selected(only, arr->name))
                continue;
            fputs(first ? "\n    " : ",\n    ", out);
            first = 0;
            storq_json_string(out, arr->name);
            fputs(": {\"unit\": ", out);
            storq_json_string(out, arr->unit);
            fputs(", \"grid\": ", out);
            storq_json_string(out, arr->grid);
            fputs(", \"desc\": ", out);
            storq_json_string(out, arr->desc);
            fputs(", \"values\": [", out);
            for (size_t i = 0; i < arr->len; i++) {
                fputs(i ? ", " : "", out);
                storq_json_number(out, arr->data[i]);
            }
            fputs("]}", out);
        }
        fputs("}}", out);
    }
    fputs("\n]}\n", out);
}

int storq_view_theory(int argc, char **argv, int *parsed, int *help,
                      const storq_model **help_model, storq_error *err)
{
    *parsed = *help = 0;
    *help_model = NULL;
    char **rest = calloc((size_t)argc + 1, sizeof *rest);
    if (!rest)
        return STORQ_RUNTIME_FAIL(err, "out of memory");
    int nrest = 0;
    const char *only_text = NULL;
    storq_view_format fmt;
    name_list only = {0};
    storq_run_spec spec;
    memset(&spec, 0, sizeof spec);
    theory_point *tp = NULL;
    int rc = take_options(argc, argv, rest, &nrest, &only_text, &fmt, err);
    if (!rc && only_text)
        rc = split_names(only_text, &only, err);
    if (!rc)
        rc = storq_theory_spec_parse(nrest, rest, &spec, err);
    if (!rc && spec.help) {
        *help = 1;
        *help_model = spec.model;
        goto done;
    }
    *parsed = rc == 0;
    if (!rc)
        rc = storq_memory_budget_local(NULL, err);
    if (!rc)
        rc = storq_run_spec_expand(&spec, 1, err);
    if (!rc && !(tp = calloc(spec.npoints + 1, sizeof *tp)))
        rc = STORQ_RUNTIME_FAIL(err, "out of memory");
    /* every point first: an error prints nothing but its message */
    for (size_t p = 0; !rc && p < spec.npoints; p++)
        rc = compute_point(&spec.points[p], &tp[p], err);
    if (!rc)
        rc = check_only(&only, tp, spec.npoints, err);
    if (!rc && fmt == STORQ_VIEW_TABLE)
        print_theory_table(stdout, &spec, tp, &only);
    else if (!rc && fmt == STORQ_VIEW_CSV)
        print_theory_csv(stdout, &spec, tp, &only);
    else if (!rc)
        print_theory_json(stdout, &spec, tp, &only);
    fflush(stdout);
done:
    for (size_t p = 0; tp && p < spec.npoints; p++) {
        storq_theory_free(&tp[p].theory);
        free(tp[p].unstable);
    }
    free(tp);
    storq_run_spec_free(&spec);
    name_list_free(&only);
    free(rest);
    return rc;
}

/* ---- info ---- */

int storq_view_info(int argc, char **argv, storq_error *err)
{
    char **rest = calloc((size_t)argc + 1, sizeof *rest);
    if (!rest)
        return STORQ_RUNTIME_FAIL(err, "out of memory");
    int nrest = 0;
    storq_view_format fmt;
    int rc = take_options(argc, argv, rest, &nrest, NULL, &fmt, err);
    /* an option info does not take is named, not counted as a second file */
    for (int i = 0; !rc && i < nrest; i++)
        if (rest[i][0] == '-' && rest[i][1] && access(rest[i], F_OK) != 0)
            rc = storq_fail(err, STORQ_ERR_USAGE, "info: '%s' is not an option of info "
                            "(it takes --format table|csv|json) nor a file", rest[i]);
    if (!rc && nrest != 1)
        rc = storq_fail(err, STORQ_ERR_USAGE,
                        "usage: storq info FILE.h5 [--format table|csv|json] (one results file)");
    if (!rc)
        rc = storq_h5_info_format(rest[0], fmt, stdout, err);
    free(rest);
    return rc;
}
