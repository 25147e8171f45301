/* Model parameters: a declarative table per model (name, type, default, range, unit, doc), and the
 * values of one parameter point, checked against that table. */
#ifndef STORQ_PARAMS_H
#define STORQ_PARAMS_H

#include <stddef.h>
#include <stdint.h>

#include "distribution.h"
#include "error.h"

typedef enum storq_param_type {
    STORQ_PARAM_INT,
    STORQ_PARAM_REAL,
    STORQ_PARAM_STRING
} storq_param_type;

typedef struct storq_param_def {
    const char *name;
    storq_param_type type;
    const char *def;   /* default, as the user would type it; NULL means required */
    double min, max;   /* accepted range for numbers (inclusive unless min_open) */
    int min_open;      /* 1: the value must be > min */
    const char *unit;
    const char *choices; /* strings: "a|b|c" for a closed set; NULL: free text checked by prepare */
    const char *doc;
    storq_law_set laws; /* strings that are laws: which forms of the one grammar are accepted */
} storq_param_def;

typedef struct storq_param_value {
    int64_t i;
    double r;
    char *s; /* owned; the text for strings (and the original text for numbers) */
} storq_param_value;

struct storq_model;

typedef struct storq_params {
    const struct storq_model *model;
    size_t n;               /* number of parameters in the model's table */
    storq_param_value *v;   /* in table order */
    int allow_unstable;     /* --allow-unstable: warn instead of refusing loads >= capacity */
} storq_params;

/* Number of entries of a table terminated by {NULL}. */
size_t storq_param_count(const storq_param_def *defs);
const storq_param_def *storq_param_find(const storq_param_def *defs, const char *name, size_t *index);

/* "an integer in [1, 2147483647]", "a number > 0": the accepted range in words. */
void storq_param_describe_range(const storq_param_def *def, char *buf, size_t size);

/* Parse text for one parameter: type and range checked; usage error naming the parameter. */
int storq_param_parse(const storq_param_def *def, const char *text, storq_param_value *out,
                      storq_error *err);

/* Accessors for prepare(): the name must be in the model's table (a bug otherwise: aborts). */
int64_t storq_param_int(const storq_params *p, const char *name);
double storq_param_real(const storq_params *p, const char *name);
const char *storq_param_string(const storq_params *p, const char *name);

/* Every parameter of model at its default (a starting point for tests, benchmarks and tools). */
int storq_params_defaults(storq_params *p, const struct storq_model *model, storq_error *err);
/* Set one parameter by name from its text (type and range checked, as on the command line). */
int storq_params_set(storq_params *p, const char *name, const char *text, storq_error *err);

int storq_params_copy(storq_params *dst, const storq_params *src, storq_error *err);
void storq_params_free(storq_params *p);

/* Event times are absolute clock values held in doubles: near a clock value T a time is known
 * only to T 2^-52, so a point whose clock runs far beyond its shortest mean time (a rate of
 * 1e-12 against service times of 1) loses its service times in rounding. clock_max: how far the
 * clock runs (before the kernel rebases it, if it does); shortest: the shortest mean time the
 * point draws (a service, an interarrival time). Refused (usage error naming what) when
 * clock_max 2^-52 > 1e-3 shortest; a warning when it exceeds 1e-6 shortest. The criterion is
 * stated in docs/sweep-files.md#time-scales. */
int storq_check_time_resolution(const char *what, double clock_max, double shortest,
                                storq_error *err);

/* Blanks (isspace) cut off both ends of s, in place; returns the first kept character. For the
 * tokens of the parameters' list strings (classes, coupled policies). */
char *storq_trim(char *s);

/* Print a warning for the user (once, from the process that talks to the user). */
void storq_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Where warnings go: main() silences all ranks but 0. */
void storq_warn_enable(int enabled);

#endif
