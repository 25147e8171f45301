#include "help.h"

#include <stdio.h>
#include <string.h>

#include "error.h"
#include "model_docs.h"
#include "registry.h"
#include "storq_version.h"
#include "table.h"

static const char *const commands[] = {"run", "theory", "models", "info", "merge", "convert", "help", NULL};

static const char *type_name(const storq_param_def *d)
{
    return d->type == STORQ_PARAM_INT ? "int" : d->type == STORQ_PARAM_REAL ? "real" : "string";
}

/* What a parameter accepts, in words. */
static void accepted(const storq_param_def *d, char *buf, size_t size)
{
    if (d->laws)
        snprintf(buf, size, "a law: %s", storq_law_forms(d->laws));
    else if (d->type == STORQ_PARAM_STRING)
        snprintf(buf, size, "%s", d->choices ? d->choices : "see the model's page");
    else
        storq_param_describe_range(d, buf, size);
}

void storq_help_print_model(const storq_model *m, FILE *out)
{
    fprintf(out, "%s: %s\n\n", m->name, m->summary);
    storq_table t;
    storq_table_init(&t, 6, NULL, "  ");
    storq_table_header(&t, "parameter", "type", "default", "accepted", "unit", "meaning",
                       (char *)NULL);
    int laws = 0;
    for (const storq_param_def *d = m->params; d->name; d++) {
        char range[512];
        accepted(d, range, sizeof range);
        storq_table_add(&t, "%s", d->name);
        storq_table_add(&t, "%s", type_name(d));
        storq_table_add(&t, "%s", d->def ? d->def : "(required)");
        /* a law's forms (140 characters) would widen every row: listed below the table */
        storq_table_add(&t, "%s", d->laws ? "a law (below)" : range);
        storq_table_add(&t, "%s", d->unit ? d->unit : "");
        storq_table_add(&t, "%s", d->doc ? d->doc : "");
        laws |= d->laws != 0;
    }
    storq_table_print(&t, out);
    storq_table_free(&t);
    if (laws)
        fputc('\n', out);
    for (const storq_param_def *d = m->params; d->name; d++)
        if (d->laws)
            fprintf(out, "  --%s: %s\n", d->name, storq_law_forms(d->laws));
}

static const storq_model_doc *find_doc(const char *name)
{
    for (const storq_model_doc *d = storq_model_docs; d->name; d++)
        if (!strcmp(d->name, name))
            return d;
    return NULL;
}

/* The lines of usage that describe command: "  storq COMMAND ..." and the "  (...)" notes that
 * follow them. Returns the number of lines printed. */
static int command_usage(const char *usage, const char *command, FILE *out)
{
    char head[64];
    snprintf(head, sizeof head, "  storq %s", command);
    size_t hl = strlen(head);
    int printed = 0, in = 0;
    for (const char *line = usage; *line;) {
        size_t len = strcspn(line, "\n");
        if (!strncmp(line, head, hl) && (line[hl] == ' ' || line[hl] == '\n'))
            in = 1;
        else if (strncmp(line, "  (", 3))
            in = 0;
        if (in) {
            fprintf(out, "%.*s\n", (int)len, line);
            printed++;
        }
        line += len + (line[len] == '\n');
    }
    return printed;
}

/* text on lines of at most width characters, broken at blanks */
static void wrapped(const char *text, size_t width, FILE *out)
{
    while (*text) {
        size_t len = strlen(text), cut = len;
        if (len > width) {
            cut = width;
            while (cut > 0 && text[cut] != ' ')
                cut--;
            if (cut == 0)
                cut = strcspn(text, " ");
        }
        fprintf(out, "%.*s\n", (int)cut, text);
        text += cut;
        while (*text == ' ')
            text++;
    }
}

static void model_page(const storq_model *m, FILE *out)
{
    const storq_model_doc *doc = find_doc(m->name);
    if (doc) {
        fprintf(out, "%s\n\n", doc->title);
        if (*doc->source) {
            wrapped(doc->source, 100, out);
            fputc('\n', out);
        }
        fprintf(out, "%s\n", doc->summary);
    }
    storq_help_print_model(m, out);
    fprintf(out, "\nThe whole page: docs/models/%s.md in storq's sources. Run it: storq run %s "
            "[--param value ...]; its theory alone: storq theory %s.\n", m->name, m->name,
            m->name);
}

int storq_help_topic(const char *usage, const char *topic, FILE *out)
{
    for (const char *const *c = commands; *c; c++)
        if (!strcmp(topic, *c)) {
            fputs("usage:\n", out);
            command_usage(usage, topic, out);
            if (!strcmp(topic, "run") || !strcmp(topic, "theory"))
                fprintf(out, "(`storq %s MODEL --help` lists the model's parameters)\n", topic);
            return 0;
        }
    const storq_model *m = storq_model_find(topic);
    if (m) {
        model_page(m, out);
        return 0;
    }
    char known[256];
    storq_model_names(known, sizeof known, " ");
    fprintf(stderr, "storq: error: help: '%s' is neither a command nor a model; commands:", topic);
    for (const char *const *c = commands; *c; c++)
        fprintf(stderr, " %s", *c);
    fprintf(stderr, "; models: %s\n", known);
    return STORQ_ERR_USAGE;
}

/* ---- the man page ---- */

/* text as roff: a backslash and a minus escaped (options stay ASCII hyphens when copied), a line
 * that would start with a control character protected. */
static void roff_n(const char *text, size_t len, FILE *out)
{
    int line_start = 1;
    for (const char *p = text; p < text + len; p++) {
        if (line_start && (*p == '.' || *p == '\''))
            fputs("\\&", out);
        unsigned char c = (unsigned char)*p;
        size_t more = c >= 0xf0 ? 3 : c >= 0xe0 ? 2 : c >= 0xc0 ? 1 : 0;
        if (more && p + more < text + len) {
            /* UTF-8 (names such as Ulas with a cedilla) as a groff Unicode escape, so that
             * the page renders without preconv */
            unsigned long code = c & (0x3fu >> more);
            for (size_t i = 1; i <= more; i++)
                code = code << 6 | ((unsigned char)p[i] & 0x3fu);
            fprintf(out, "\\[u%04lX]", code);
            p += more;
        } else if (*p == '\\')
            fputs("\\e", out);
        else if (*p == '-')
            fputs("\\-", out);
        else
            fputc(*p, out);
        line_start = *p == '\n';
    }
}

static void roff(const char *text, FILE *out) { roff_n(text, strlen(text), out); }

/* Paragraphs of text (blank lines between them) as roff paragraphs. */
static void roff_paragraphs(const char *text, FILE *out)
{
    for (const char *line = text; *line;) {
        size_t len = strcspn(line, "\n");
        if (len == 0) {
            fputs(".PP\n", out);
        } else {
            roff_n(line, len, out);
            fputc('\n', out);
        }
        line += len + (line[len] == '\n');
    }
}

static void man_model(const storq_model *m, FILE *out)
{
    fprintf(out, ".SS %s\n", m->name);
    roff(m->summary, out);
    fputs(".\n.PP\n", out);
    const storq_model_doc *doc = find_doc(m->name);
    if (doc) {
        if (*doc->source) {
            roff(doc->source, out);
            fputs("\n.PP\n", out);
        }
        roff_paragraphs(doc->summary, out);
        fputs(".PP\n", out);
    }
    fputs("Parameters (\\fB\\-\\-name value\\fR or \\fB\\-\\-name=value\\fR on the command "
          "line, \\fBname = value\\fR in the model's section of a sweep file):\n", out);
    for (const storq_param_def *d = m->params; d->name; d++) {
        char range[512];
        accepted(d, range, sizeof range);
        fputs(".TP\n\\fB\\-\\-", out);
        roff(d->name, out);
        fprintf(out, "\\fR \\fI%s\\fR", type_name(d));
        if (d->def) {
            fputs(", default \\fB", out);
            roff(d->def, out);
            fputs("\\fR", out);
        } else {
            fputs(", required", out);
        }
        if (d->unit && *d->unit) {
            fputs(" (", out);
            roff(d->unit, out);
            fputs(")", out);
        }
        fputc('\n', out);
        roff(d->doc ? d->doc : "", out);
        fputs(". Accepted: ", out);
        roff(range, out);
        fputs(".\n", out);
    }
}

void storq_help_man(const char *usage, FILE *out)
{
    fputs(".\\\" Generated by `storq --man` (src/app/help.c) from the usage text, the models'\n"
          ".\\\" parameter tables and docs/models/*.md; do not edit: regenerate with\n"
          ".\\\" `cmake --build build --target man`.\n", out);
    fprintf(out, ".TH STORQ 1 \"\" \"storq %s\" \"User Commands\"\n", STORQ_VERSION);
    fputs(".SH NAME\nstorq \\- parallel Monte Carlo engine for queueing models of coded storage\n"
          ".SH SYNOPSIS\n.nf\n", out);
    roff(usage, out);
    fputs(".fi\n.SH DESCRIPTION\n"
          "storq simulates queueing models of coded and distributed storage, replication by "
          "replication, over MPI ranks and OpenMP threads, and writes every point of a sweep, "
          "with its confidence intervals and the model's analytic companions, to one HDF5 file. "
          "A run is given on the command line or as a sweep file (INI); the same seed gives the "
          "same file for any number of ranks and threads.\n"
          ".PP\n"
          "\\fBstorq help\\fR \\fIMODEL\\fR prints a model's summary and parameters, "
          "\\fBstorq help\\fR \\fICOMMAND\\fR a command's usage; \\fB\\-\\-help\\fR after "
          "\\fBrun\\fR or \\fBtheory\\fR and a model lists that model's parameters.\n"
          ".PP\n"
          "In a sweep file, relative paths (\\fBoutput\\fR in [run], \\fBtrace:\\fR\\fIPATH\\fR "
          "in a law) are read relative to the sweep file's directory; on the command line, "
          "relative to the current directory. Values given on the command line override the "
          "sweep file's.\n"
          ".SH MODELS\n", out);
    size_t n;
    const storq_model *const *models = storq_models(&n);
    for (size_t i = 0; i < n; i++)
        man_model(models[i], out);
    fputs(".SH SEE ALSO\n"
          ".BR mpirun (1),\n.BR sbatch (1),\n.BR h5dump (1).\n"
          ".PP\n"
          "In storq's sources: README.md; docs/sweep-files.md (the sweep-file grammar), "
          "docs/distributions.md (the laws), docs/hdf5-schema.md (the results file), "
          "docs/models/ (one page per model).\n", out);
}
