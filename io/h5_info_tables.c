#include "h5_info_tables.h"

#include <inttypes.h>

#define PREVIEW 4 /* leading values shown for each vector */

void storq_info_point_line(FILE *out, uint64_t id, uint64_t reps, uint64_t events, double wall)
{
    fprintf(out, "\npoint %06" PRIu64 ": %" PRIu64 " replications, %" PRIu64
                 " events, %.3f s wall\n", id, reps, events, wall);
}

void storq_info_tables_init(storq_info_tables *t)
{
    storq_table_init(&t->scalars, 5, NULL, "    ");
    storq_table_title(&t->scalars, "  scalars:");
    storq_table_header(&t->scalars, "scalar", "mean", "ci95", "theory", "unit", (char *)NULL);
    storq_table_init(&t->vectors, 5, NULL, "    ");
    storq_table_title(&t->vectors, "  vectors:");
    storq_table_header(&t->vectors, "vector", "shape", "mean (first values)",
                       "theory (grid or name)", "unit", (char *)NULL);
    storq_table_init(&t->hists, 11, NULL, "    ");
    storq_table_title(&t->hists, "  histograms: (quantiles read off the bins, within the "
                      "resolution; <x: below the first bin edge x, >=x: beyond the last)");
    storq_table_header(&t->hists, "histogram", "count", "mean", "min", "p50", "p90", "p99",
                       "p99.9", "max", "resolution", "unit", (char *)NULL);
    storq_table_init(&t->comparisons, 3, NULL, "    ");
    storq_table_title(&t->comparisons, "  comparison:");
}

static void preview_text(const double *v, size_t n, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n && i < PREVIEW && used < size; i++)
        used += (size_t)snprintf(buf + used, size - used, "%s%.4g", i ? " " : "", v[i]);
    if (n > PREVIEW && used < size)
        snprintf(buf + used, size - used, " ... (%zu more)", n - PREVIEW);
}

void storq_info_add_scalar(storq_info_tables *t, const char *name, double mean, double ci95,
                           const double *theory, const char *unit)
{
    storq_table_add(&t->scalars, "%s", name);
    storq_table_add(&t->scalars, "%.6g", mean);
    storq_table_add(&t->scalars, "+- %.3g", ci95);
    if (theory)
        storq_table_add(&t->scalars, "%.6g", theory[0]);
    else
        storq_table_add(&t->scalars, "%s", "");
    storq_table_add(&t->scalars, "%s", unit);
}

void storq_info_add_vector(storq_info_tables *t, const char *name, const char *shape,
                           const double *mean, size_t n, const double *theory, const char *unit)
{
    char sim[256], theo[256] = "";
    preview_text(mean, n, sim, sizeof sim);
    if (theory)
        preview_text(theory, n, theo, sizeof theo);
    storq_table_add(&t->vectors, "%s", name);
    storq_table_add(&t->vectors, "%s", shape);
    storq_table_add(&t->vectors, "%s", sim);
    storq_table_add(&t->vectors, "%s", theo[0] ? theo : "-");
    storq_table_add(&t->vectors, "%s", unit);
}

void storq_info_add_histogram(storq_info_tables *t, const char *name, const storq_info_hist *h,
                              const char *unit)
{
    char text[64];
    storq_table_add(&t->hists, "%s", name);
    storq_table_add(&t->hists, "%" PRIu64, h->count);
    storq_table_add(&t->hists, "%.6g", h->mean);
    storq_table_add(&t->hists, "%.6g", h->min);
    for (int i = 0; i < STORQ_INFO_NQUANTILES; i++) {
        storq_info_quantile_text(h, i, text, sizeof text);
        storq_table_add(&t->hists, "%s", text);
    }
    storq_table_add(&t->hists, "%.6g", h->max);
    storq_info_resolution_text(h, text, sizeof text);
    storq_table_add(&t->hists, "%s", text);
    storq_table_add(&t->hists, "%s", unit);
}

void storq_info_add_comparison(storq_info_tables *t, const char *name, double value,
                               const char *unit)
{
    storq_table_add(&t->comparisons, "%s", name);
    storq_table_add(&t->comparisons, "%.6g", value);
    storq_table_add(&t->comparisons, "%s", unit);
}

static void print_section(FILE *out, storq_table *t)
{
    if (storq_table_rows(t) > 0)
        storq_table_print(t, out);
    storq_table_free(t);
}

void storq_info_tables_print(storq_info_tables *t, FILE *out)
{
    print_section(out, &t->scalars);
    print_section(out, &t->vectors);
    print_section(out, &t->hists);
    print_section(out, &t->comparisons);
}

void storq_info_tables_free(storq_info_tables *t)
{
    storq_table_free(&t->scalars);
    storq_table_free(&t->vectors);
    storq_table_free(&t->hists);
    storq_table_free(&t->comparisons);
}
