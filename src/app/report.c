#include "report.h"

#include <math.h>
#include <string.h>

#include "steady_state.h"
#include "table.h"

#define MAX_VECTOR_ROWS 16
/* Fixed minimum widths keep the columns of one point's tables under those of the next. */
#define NAME_WIDTH 26
#define AXIS_WIDTH 10
#define MEAN_WIDTH 14
#define CI_WIDTH 12
#define THEORY_WIDTH 14

void storq_report_params(FILE *out, const storq_params *params)
{
    const storq_param_def *defs = params->model->params;
    for (size_t i = 0; i < params->n; i++)
        fprintf(out, "%s%s=%s", i ? " " : "", defs[i].name, params->v[i].s);
    fputc('\n', out);
}

static const char *unit_or_blank(const char *u) { return u && *u ? u : ""; }

/* The theory array shown beside observable def: the one the model declared for it (its grid
 * names def and it has def's length), else one of def's own name and length; the rule storq
 * info follows too (io/h5_info_theory.h). */
static const storq_array *theory_for(const storq_theory *theory, const storq_obs_def *def)
{
    for (size_t i = 0; theory && i < theory->n; i++)
        if (!strcmp(theory->items[i].grid, def->name) && theory->items[i].len == def->length)
            return &theory->items[i];
    const storq_array *same = storq_theory_find(theory, def->name);
    return same && same->len == def->length ? same : NULL;
}

/* The name column the scalars and the comparisons share (they print apart, vectors between). */
static size_t name_width(const storq_summary *sim, const storq_theory *comparison)
{
    size_t w = NAME_WIDTH;
    const storq_observables *obs = sim->schema;
    for (size_t d = 0; d < obs->ndefs; d++)
        if (obs->defs[d].kind == STORQ_OBS_SCALAR && strlen(obs->defs[d].name) > w)
            w = strlen(obs->defs[d].name);
    for (size_t i = 0; comparison && i < comparison->n; i++)
        if (comparison->items[i].len == 1 && strlen(comparison->items[i].name) > w)
            w = strlen(comparison->items[i].name);
    return w;
}

static void report_scalars(FILE *out, const storq_summary *sim, const storq_theory *theory,
                           size_t width)
{
    storq_table t;
    storq_table_init(&t, 5, "l r r r  l", "  ");
    storq_table_min_width(&t, 0, width);
    storq_table_min_width(&t, 1, MEAN_WIDTH);
    storq_table_min_width(&t, 2, CI_WIDTH);
    storq_table_min_width(&t, 3, THEORY_WIDTH);
    storq_table_header(&t, "observable", "mean", "ci95", "theory", "unit", (char *)NULL);
    const storq_observables *obs = sim->schema;
    for (size_t d = 0; d < obs->ndefs; d++) {
        const storq_obs_def *def = &obs->defs[d];
        if (def->kind != STORQ_OBS_SCALAR || storq_steady_is_half(def->name))
            continue; /* the halves show as the steady-state check's comparisons */
        const storq_array *th = theory_for(theory, def);
        size_t j = def->value_offset;
        storq_table_add(&t, "%s", def->name);
        storq_table_add(&t, "%.6g", sim->mean[j]);
        storq_table_add(&t, "%.3g", sim->ci95[j]);
        if (th && th->len == 1)
            storq_table_add(&t, "%.6g", th->data[0]);
        else
            storq_table_add(&t, "%s", "");
        storq_table_add(&t, "%s", unit_or_blank(def->unit));
    }
    if (storq_table_rows(&t) > 0)
        storq_table_print(&t, out);
    storq_table_free(&t);
}

static void report_vector(FILE *out, const storq_obs_def *def, const storq_summary *sim,
                          const storq_array *t)
{
    storq_table v;
    storq_table_init(&v, 4, "r r r r", "  ");
    storq_table_min_width(&v, 0, AXIS_WIDTH);
    storq_table_min_width(&v, 1, MEAN_WIDTH);
    storq_table_min_width(&v, 2, CI_WIDTH);
    storq_table_min_width(&v, 3, THEORY_WIDTH);
    storq_table_title(&v, "  %s (%s): %s", def->name, def->desc,
                      t ? "simulation beside theory" : "simulation");
    storq_table_header(&v, def->axis_name[0] ? def->axis_name : "index", "mean", "ci95",
                       t ? "theory" : "", (char *)NULL);
    size_t i = 0;
    for (; i < def->length && i < MAX_VECTOR_ROWS; i++) {
        double m = sim->mean[def->value_offset + i];
        double th = t && i < t->len ? t->data[i] : NAN;
        if (i > 1 && fabs(m) < 1e-6 && (!t || fabs(th) < 1e-6))
            break;
        storq_table_add(&v, "%g", def->axis ? def->axis[i] : (double)i);
        storq_table_add(&v, "%.6g", m);
        storq_table_add(&v, "%.3g", sim->ci95[def->value_offset + i]);
        if (t)
            storq_table_add(&v, "%.6g", th);
        else
            storq_table_add(&v, "%s", "");
    }
    storq_table_print(&v, out);
    storq_table_free(&v);
    if (i < def->length) /* the rest is in the results file: say so, and how much */
        fprintf(out, "  ... %zu more %s (%s %g to %g%s), in the results file\n", def->length - i,
                !strcmp(def->axis_name, "level") ? "levels" : "rows",
                def->axis_name[0] ? def->axis_name : "index",
                def->axis ? def->axis[i] : (double)i,
                def->axis ? def->axis[def->length - 1] : (double)(def->length - 1),
                i < MAX_VECTOR_ROWS ? ", below 1e-6" : "");
}

/* One-number comparisons (distances, errors) under the scalars' name column. */
static void report_comparisons(FILE *out, const storq_theory *comparison, size_t width)
{
    storq_table t;
    storq_table_init(&t, 3, "l r  l", "  ");
    storq_table_min_width(&t, 0, width);
    storq_table_min_width(&t, 1, MEAN_WIDTH);
    for (size_t i = 0; comparison && i < comparison->n; i++) {
        const storq_array *c = &comparison->items[i];
        if (c->len != 1)
            continue;
        storq_table_add(&t, "%s", c->name);
        storq_table_add(&t, "%.6g", c->data[0]);
        storq_table_add(&t, "%s", c->desc);
    }
    storq_table_print(&t, out);
    storq_table_free(&t);
}

void storq_report_point(FILE *out, size_t point_id, const storq_params *params,
                        const storq_summary *sim, const storq_theory *theory,
                        const storq_theory *comparison)
{
    fprintf(out, "point %zu (%zu replications): ", point_id, sim->replications);
    storq_report_params(out, params);
    const size_t width = name_width(sim, comparison);
    report_scalars(out, sim, theory, width);
    const storq_observables *obs = sim->schema;
    char rest[512] = "";
    size_t used = 0, nrest = 0;
    for (size_t d = 0; d < obs->ndefs; d++) {
        const storq_obs_def *def = &obs->defs[d];
        const storq_array *t = def->kind == STORQ_OBS_VECTOR ? theory_for(theory, def) : NULL;
        /* Vectors with a theory companion; the others (and matrices, histograms) are named. */
        if (def->kind == STORQ_OBS_VECTOR && def->cols == 1 && t) {
            report_vector(out, def, sim, t);
        } else if (def->kind != STORQ_OBS_SCALAR) {
            nrest++;
            if (used + strlen(def->name) + 8 < sizeof rest)
                used += (size_t)snprintf(rest + used, sizeof rest - used, "%s%s",
                                         used ? ", " : "", def->name);
        }
    }
    if (nrest)
        fprintf(out, "  in the results file only (storq info): %s%s\n", rest,
                used && nrest > 0 && strlen(rest) + 8 >= sizeof rest ? ", ..." : "");
    report_comparisons(out, comparison, width);
    fputc('\n', out);
    fflush(out);
}

int storq_report_steady_state(FILE *out, size_t point_id, const storq_params *params,
                              const char *headline, const storq_summary *sim)
{
    storq_steady_check c;
    if (!storq_steady_check_summary(sim, &c) || !c.warn)
        return 0;
    const storq_param_def *defs = params->model->params;
    fprintf(out, "storq: warning: point %zu (", point_id);
    for (size_t i = 0; i < params->n; i++)
        fprintf(out, "%s%s=%s", i ? " " : "", defs[i].name, params->v[i].s);
    fprintf(out,
            "): not in steady state: %s is %.6g over the first half of the measured window and "
            "%.6g over the second (drift %.4g +- %.2g, |t| = %.3g > %.3g at %zu replications), "
            "so its mean is biased: lengthen --warmup (docs/steady-state.md)\n",
            headline ? headline : "the headline observable", c.first, c.second, c.drift,
            c.stderr_, fabs(c.t), c.quantile, c.replications);
    fflush(out);
    return 1;
}

/* Whether name is among names (every name when names is NULL). */
static int among(const char *name, char *const *names, size_t n)
{
    if (!names)
        return 1;
    for (size_t i = 0; i < n; i++)
        if (!strcmp(names[i], name))
            return 1;
    return 0;
}

void storq_report_theory_select(FILE *out, const storq_theory *theory, char *const *names,
                                size_t nnames, int arrays)
{
    storq_table numbers;
    storq_table_init(&numbers, 4, "l r l  l", "  ");
    storq_table_min_width(&numbers, 0, 24);
    storq_table_min_width(&numbers, 1, 16);
    for (size_t i = 0; i < theory->n; i++) {
        const storq_array *a = &theory->items[i];
        if (a->len != 1 || !among(a->name, names, nnames))
            continue;
        storq_table_add(&numbers, "%s", a->name);
        storq_table_add(&numbers, "%.10g", a->data[0]);
        storq_table_add(&numbers, "%s", unit_or_blank(a->unit));
        storq_table_add(&numbers, "%s", a->desc);
    }
    storq_table_print(&numbers, out);
    storq_table_free(&numbers);
    if (!arrays)
        return;
    /* Arrays that share a grid print as columns of one table, in full. */
    int printed[256] = {0};
    for (size_t i = 0; i < theory->n && i < 256; i++) {
        const storq_array *a = &theory->items[i];
        if (a->len == 1 || printed[i] || !among(a->name, names, nnames))
            continue;
        size_t cols[16], nc = 0;
        for (size_t j = i; j < theory->n && j < 256 && nc < 16; j++) {
            const storq_array *b = &theory->items[j];
            if (!printed[j] && b->len == a->len && strcmp(b->grid, a->grid) == 0 &&
                among(b->name, names, nnames)) {
                cols[nc++] = j;
                printed[j] = 1;
            }
        }
        storq_table grid;
        storq_table_init(&grid, nc + 1, "r r", "  ");
        storq_table_min_width(&grid, 0, 8);
        storq_table_add(&grid, "index");
        for (size_t c = 0; c < nc; c++) {
            storq_table_min_width(&grid, c + 1, 16);
            storq_table_add(&grid, "%s", theory->items[cols[c]].name);
        }
        storq_table_end_header(&grid);
        for (size_t r = 0; r < a->len; r++) {
            storq_table_add(&grid, "%zu", r);
            for (size_t c = 0; c < nc; c++)
                storq_table_add(&grid, "%.10g", theory->items[cols[c]].data[r]);
        }
        fputc('\n', out);
        storq_table_print(&grid, out);
        storq_table_free(&grid);
    }
    fflush(out);
}
