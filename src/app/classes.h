/* Request classes given one at a time -- `--class NAME:F1:F2:...` (repeatable) on the command line,
 * `[class.NAME]` sections in a sweep file -- assembled into the one string parameter `classes`
 * (NAME:F1:F2:...|NAME:...) of the models that have classes (storq_model.class_fields). */
#ifndef STORQ_CLASSES_H
#define STORQ_CLASSES_H

#include "args.h"
#include "error.h"
#include "model.h"
#include "sweep_file.h"

/* 1 when section names a class section ("class.NAME"). */
int storq_is_class_section(const char *section);

/* The --class values joined by '|', in the order given, into *classes (malloc'ed; NULL when no
 * --class was given). Refused: --class for a model without classes, --class with --classes. */
int storq_classes_from_flags(const storq_model *m, const storq_args *a, char **classes,
                             storq_error *err);

/* The [class.NAME] sections, in file order, into *classes (NULL when there are none) and the
 * line of the first into *line. Each section gives every field of m->class_fields once, one value
 * each (a sweep over classes lists whole classes in `classes`); errors name file:line. */
int storq_classes_from_sections(const storq_model *m, const storq_sweep_file *f, char **classes,
                                int *line, storq_error *err);

#endif
