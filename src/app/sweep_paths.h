/* Relative paths in a sweep file -- `output` in [run], `trace:PATH` in a law, also inside a
 * model's `classes` and [class.NAME] sections -- name files beside the sweep file, wherever storq
 * runs from: a sweep file and its data move together. Values given on the command line are left
 * alone (the shell's current directory is theirs), and so is an absolute path. */
#ifndef STORQ_SWEEP_PATHS_H
#define STORQ_SWEEP_PATHS_H

#include "model.h"
#include "params.h"

/* The directory of the sweep file at path, "" for the current one ("s.ini"); with absolute, as an
 * absolute path (realpath; the directory as given if that fails). malloc'ed; NULL out of memory. */
char *storq_sweep_dir(const char *path, int absolute);

/* path in dir: unchanged when dir is "" or path is absolute. malloc'ed; NULL out of memory. */
char *storq_path_in_dir(const char *dir, const char *path);

/* One value of parameter def of model m, read from a sweep file in dir, with its traces in dir:
 * trace:REL of a law parameter, and the trace law of each class of `classes` (the class field
 * that names a law parameter, the last one). Other values come back unchanged. malloc'ed; NULL out
 * of memory. */
char *storq_value_in_dir(const storq_model *m, const storq_param_def *def, const char *dir,
                         const char *value);

#endif
