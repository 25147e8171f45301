#include "report.h"

#include <math.h>
#include <string.h>

#define MAX_VECTOR_ROWS 16

void storq_report_params(FILE *out, const storq_params *params)
{
    const storq_param_def *defs = params->model->params;
    for (size_t i = 0; i < params->n; i++)
        fprintf(out, "%s%s=%s", i ? " " : "", defs[i].name, params->v[i].s);
    fputc('\n', out);
}

static const char *unit_or_blank(const char *u) { return u && *u ? u : ""; }

/* The name column: 26 characters, or wider when a scalar's or a comparison's name is longer. */
static int name_width(const storq_summary *sim, const storq_theory *comparison)
{
    size_t w = 26;
    const storq_observables *obs = sim->schema;
    for (size_t d = 0; d < obs->ndefs; d++)
        if (obs->defs[d].kind == STORQ_OBS_SCALAR && strlen(obs->defs[d].name) > w)
            w = strlen(obs->defs[d].name);
    for (size_t i = 0; comparison && i < comparison->n; i++)
        if (comparison->items[i].len == 1 && strlen(comparison->items[i].name) > w)
            w = strlen(comparison->items[i].name);
    return (int)w;
}

static void report_scalars(FILE *out, const storq_summary *sim, const storq_theory *theory,
                           int width)
{
    const storq_observables *obs = sim->schema;
    int header = 0;
    for (size_t d = 0; d < obs->ndefs; d++) {
        const storq_obs_def *def = &obs->defs[d];
        if (def->kind != STORQ_OBS_SCALAR)
            continue;
        if (!header) {
            fprintf(out, "  %-*s %14s %12s %14s  %s\n", width, "observable", "mean", "ci95",
                    "theory", "unit");
            header = 1;
        }
        const storq_array *t = storq_theory_find(theory, def->name);
        char th[32] = "";
        if (t && t->len == 1)
            snprintf(th, sizeof th, "%.6g", t->data[0]);
        size_t j = def->value_offset;
        fprintf(out, "  %-*s %14.6g %12.3g %14s  %s\n", width, def->name, sim->mean[j], sim->ci95[j], th,
                unit_or_blank(def->unit));
    }
}

static void report_vector(FILE *out, const storq_obs_def *def, const storq_summary *sim,
                          const storq_array *t)
{
    fprintf(out, "  %s (%s): %s\n", def->name, def->desc, t ? "simulation beside theory" : "simulation");
    fprintf(out, "  %10s %14s %12s %14s\n", def->axis_name[0] ? def->axis_name : "index",
            "mean", "ci95", t ? "theory" : "");
    for (size_t i = 0; i < def->length && i < MAX_VECTOR_ROWS; i++) {
        double m = sim->mean[def->value_offset + i];
        double th = t && i < t->len ? t->data[i] : NAN;
        if (i > 1 && fabs(m) < 1e-6 && (!t || fabs(th) < 1e-6))
            break;
        char ax[32], ths[32] = "";
        snprintf(ax, sizeof ax, "%g", def->axis ? def->axis[i] : (double)i);
        if (t)
            snprintf(ths, sizeof ths, "%.6g", th);
        fprintf(out, "  %10s %14.6g %12.3g %14s\n", ax, m, sim->ci95[def->value_offset + i], ths);
    }
}

void storq_report_point(FILE *out, size_t point_id, const storq_params *params,
                        const storq_summary *sim, const storq_theory *theory,
                        const storq_theory *comparison)
{
    fprintf(out, "point %zu (%zu replications): ", point_id, sim->replications);
    storq_report_params(out, params);
    const int width = name_width(sim, comparison);
    report_scalars(out, sim, theory, width);
    const storq_observables *obs = sim->schema;
    for (size_t d = 0; d < obs->ndefs; d++) {
        const storq_obs_def *def = &obs->defs[d];
        const storq_array *t = storq_theory_find(theory, def->name);
        /* Vectors with a theory companion; matrices are in the file. */
        if (def->kind == STORQ_OBS_VECTOR && def->cols == 1 && t)
            report_vector(out, def, sim, t);
    }
    for (size_t i = 0; comparison && i < comparison->n; i++) {
        const storq_array *c = &comparison->items[i];
        if (c->len == 1)
            fprintf(out, "  %-*s %14.6g  %s\n", width, c->name, c->data[0], c->desc);
    }
    fputc('\n', out);
    fflush(out);
}

void storq_report_theory(FILE *out, const storq_params *params, const storq_theory *theory)
{
    fprintf(out, "theory for ");
    storq_report_params(out, params);
    for (size_t i = 0; i < theory->n; i++) {
        const storq_array *a = &theory->items[i];
        if (a->len == 1)
            fprintf(out, "  %-24s %16.10g %s  %s\n", a->name, a->data[0], unit_or_blank(a->unit),
                    a->desc);
    }
    /* Arrays that share a grid print as columns of one table. */
    int printed[256] = {0};
    for (size_t i = 0; i < theory->n && i < 256; i++) {
        const storq_array *a = &theory->items[i];
        if (a->len == 1 || printed[i])
            continue;
        size_t cols[16], nc = 0;
        for (size_t j = i; j < theory->n && j < 256 && nc < 16; j++) {
            const storq_array *b = &theory->items[j];
            if (!printed[j] && b->len == a->len && strcmp(b->grid, a->grid) == 0) {
                cols[nc++] = j;
                printed[j] = 1;
            }
        }
        fprintf(out, "\n  %8s", "index");
        for (size_t c = 0; c < nc; c++)
            fprintf(out, " %16s", theory->items[cols[c]].name);
        fputc('\n', out);
        for (size_t r = 0; r < a->len; r++) {
            fprintf(out, "  %8zu", r);
            for (size_t c = 0; c < nc; c++)
                fprintf(out, " %16.10g", theory->items[cols[c]].data[r]);
            fputc('\n', out);
        }
    }
    fflush(out);
}
