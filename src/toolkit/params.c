#include "params.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "number.h"

/* Time resolution (storq_check_time_resolution): the share of the shortest mean time that a
 * double's rounding of the clock may reach. */
#define STORQ_TIME_RESOLUTION_REFUSE 1e-3
#define STORQ_TIME_RESOLUTION_WARN 1e-6

size_t storq_param_count(const storq_param_def *defs)
{
    size_t n = 0;
    while (defs && defs[n].name)
        n++;
    return n;
}

const storq_param_def *storq_param_find(const storq_param_def *defs, const char *name, size_t *index)
{
    for (size_t i = 0; defs && defs[i].name; i++) {
        if (strcmp(defs[i].name, name) == 0) {
            if (index)
                *index = i;
            return &defs[i];
        }
    }
    return NULL;
}

/* "[min, max]" or "(min, max]" in words a user can read. */
void storq_param_describe_range(const storq_param_def *def, char *buf, size_t size)
{
    const char *kind = def->type == STORQ_PARAM_INT ? "an integer" : "a number";
    /* Integers print in full: "[1, 2147483647]" reads better than "[1, 2.14748e+09]". */
    const char *fmt = def->type == STORQ_PARAM_INT ? "%.0f" : "%g";
    char lo[64], hi[64];
    snprintf(lo, sizeof lo, fmt, def->min);
    snprintf(hi, sizeof hi, fmt, def->max);
    if (isinf(def->max) || def->max >= 1e300)
        snprintf(buf, size, "%s %s %s", kind, def->min_open ? ">" : ">=", lo);
    else
        snprintf(buf, size, "%s in %c%s, %s]", kind, def->min_open ? '(' : '[', lo, hi);
}

static int check_choice(const storq_param_def *def, const char *text, storq_error *err)
{
    const char *c = def->choices;
    size_t len = strlen(text);
    while (c && *c) {
        const char *bar = strchr(c, '|');
        size_t n = bar ? (size_t)(bar - c) : strlen(c);
        if (n == len && strncmp(c, text, n) == 0)
            return STORQ_OK;
        c = bar ? bar + 1 : NULL;
    }
    char accepted[256];
    snprintf(accepted, sizeof accepted, "%s", def->choices);
    for (char *p = accepted; *p; p++)
        if (*p == '|')
            *p = ',';
    return storq_fail(err, STORQ_ERR_USAGE, "--%s: '%s' is not accepted; choose one of: %s",
                      def->name, text, accepted);
}

int storq_param_parse(const storq_param_def *def, const char *text, storq_param_value *out,
                      storq_error *err)
{
    char range[128];
    storq_param_describe_range(def, range, sizeof range);
    out->i = 0;
    out->r = 0.0;
    out->s = NULL;
    if (def->type == STORQ_PARAM_STRING) {
        if (def->choices)
            STORQ_TRY(check_choice(def, text, err));
    } else {
        double x;
        if (def->type == STORQ_PARAM_INT) {
            /* The one number grammar (number.h): 1e6 and 2.5e3 are integers, 1.5 and 0x10 not. */
            int negative;
            uint64_t mag;
            int rc = storq_number_integer(text, &negative, &mag);
            if (rc == -1 || rc == -2)
                return storq_fail(err, STORQ_ERR_USAGE, "--%s: '%s' is not an integer; expected %s",
                                  def->name, text, range);
            if (rc == -3 || mag > (uint64_t)INT64_MAX)
                return storq_fail(err, STORQ_ERR_USAGE, "--%s: %s is out of range; expected %s",
                                  def->name, text, range);
            out->i = negative ? -(int64_t)mag : (int64_t)mag;
            x = (double)out->i;
        } else if (storq_number_real(text, &x) != 0) {
            if (storq_number_valid(text))
                return storq_fail(err, STORQ_ERR_USAGE, "--%s: %s is beyond what a double holds "
                                  "(about 2.2e-308 to 1.8e308); expected %s", def->name, text,
                                  range);
            return storq_fail(err, STORQ_ERR_USAGE, "--%s: '%s' is not a number (decimal, as in "
                              "0.5 or 2e-3); expected %s", def->name, text, range);
        }
        int low = def->min_open ? !(x > def->min) : !(x >= def->min);
        if (low || x > def->max)
            return storq_fail(err, STORQ_ERR_USAGE, "--%s: %s is out of range; expected %s",
                              def->name, text, range);
        out->r = x;
    }
    out->s = strdup(text);
    if (!out->s)
        return STORQ_RUNTIME_FAIL(err, "out of memory");
    return STORQ_OK;
}

static const storq_param_value *lookup(const storq_params *p, const char *name)
{
    size_t i;
    if (!storq_param_find(p->model->params, name, &i) || i >= p->n) {
        fprintf(stderr, "storq: internal error: model '%s' has no parameter '%s'\n",
                p->model->name, name);
        abort();
    }
    return &p->v[i];
}

int64_t storq_param_int(const storq_params *p, const char *name) { return lookup(p, name)->i; }
double storq_param_real(const storq_params *p, const char *name) { return lookup(p, name)->r; }
const char *storq_param_string(const storq_params *p, const char *name) { return lookup(p, name)->s; }

int storq_params_defaults(storq_params *p, const storq_model *model, storq_error *err)
{
    memset(p, 0, sizeof *p);
    p->model = model;
    p->n = storq_param_count(model->params);
    p->v = calloc(p->n ? p->n : 1, sizeof *p->v);
    if (!p->v)
        return STORQ_RUNTIME_FAIL(err, "out of memory");
    for (size_t i = 0; i < p->n; i++)
        STORQ_TRY(storq_param_parse(&model->params[i], model->params[i].def, &p->v[i], err));
    return STORQ_OK;
}

int storq_params_set(storq_params *p, const char *name, const char *text, storq_error *err)
{
    size_t i;
    const storq_param_def *d = storq_param_find(p->model->params, name, &i);
    if (!d)
        return storq_fail(err, STORQ_ERR_USAGE, "--%s: not a parameter of model '%s'", name,
                          p->model->name);
    storq_param_value v;
    STORQ_TRY(storq_param_parse(d, text, &v, err));
    free(p->v[i].s);
    p->v[i] = v;
    return STORQ_OK;
}

int storq_params_copy(storq_params *dst, const storq_params *src, storq_error *err)
{
    *dst = *src;
    dst->v = calloc(src->n ? src->n : 1, sizeof *dst->v);
    if (!dst->v)
        return STORQ_RUNTIME_FAIL(err, "out of memory");
    for (size_t i = 0; i < src->n; i++) {
        dst->v[i] = src->v[i];
        dst->v[i].s = src->v[i].s ? strdup(src->v[i].s) : NULL;
        if (src->v[i].s && !dst->v[i].s)
            return STORQ_RUNTIME_FAIL(err, "out of memory");
    }
    return STORQ_OK;
}

void storq_params_free(storq_params *p)
{
    if (!p || !p->v)
        return;
    for (size_t i = 0; i < p->n; i++)
        free(p->v[i].s);
    free(p->v);
    p->v = NULL;
    p->n = 0;
}

int storq_check_time_resolution(const char *what, double clock_max, double shortest,
                                storq_error *err)
{
    const double resolution = clock_max * 0x1p-52, share = resolution / shortest;
    if (!isfinite(share) || share > STORQ_TIME_RESOLUTION_REFUSE)
        return storq_fail(err, STORQ_ERR_USAGE, "%s: event times reach about %.3g time units "
                          "while the shortest mean time is %.3g; a double holds times near "
                          "%.3g only to %.3g, %.2g of that shortest time (above %g is refused: "
                          "results would be rounding). Rescale time (all rates by one factor) "
                          "or shorten the run", what, clock_max, shortest, clock_max,
                          resolution, share, STORQ_TIME_RESOLUTION_REFUSE);
    if (share > STORQ_TIME_RESOLUTION_WARN)
        storq_warn("%s: event times reach about %.3g time units while the shortest mean time is "
                   "%.3g; a double holds them only to %.2g of that time (warned above %g, "
                   "refused above %g)", what, clock_max, shortest, share,
                   STORQ_TIME_RESOLUTION_WARN, STORQ_TIME_RESOLUTION_REFUSE);
    return STORQ_OK;
}

static int warnings_enabled = 1;

void storq_warn_enable(int enabled) { warnings_enabled = enabled; }

void storq_warn(const char *fmt, ...)
{
    if (!warnings_enabled)
        return;
    va_list ap;
    va_start(ap, fmt);
    fputs("storq: warning: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

char *storq_trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    size_t len = strlen(s);
    while (len && isspace((unsigned char)s[len - 1]))
        s[--len] = 0;
    return s;
}
