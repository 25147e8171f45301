/* `storq merge OUT IN...`: the files of a job array's tasks into one results file. */
#ifndef STORQ_H5_MERGE_H
#define STORQ_H5_MERGE_H

#include <stddef.h>
#include <stdio.h>

#include "error.h"

/* The complete points of job-array task files (or of any files of one run) into OUT, written as
 * OUT.partial and renamed only when it holds every point of the run. Usage errors (exit 2, no
 * file): an input that cannot be read or belongs to another run, a point in two inputs, OUT among
 * the inputs. Points that no input holds: OUT.partial is kept, they are listed on report and the
 * return is STORQ_ERR_RUNTIME. schema: the finished OUT's layout, 2 (columnar: written from
 * OUT.partial, as a run's, io/h5_convert.h) or 1 (OUT.partial renamed). */
int storq_h5_merge(const char *out_path, char *const *inputs, size_t ninputs,
                   const char *command_line, int schema, FILE *report, storq_error *err);

/* --resume's salvage (io/h5_writer.c): the complete points of one partial file into OUT, as above,
 * where the file's /run records (/run's header and attributes, /run/units, /run/ranks,
 * /run/sessions) may be unreadable (storq_h5_check_file_salvage): then OUT's /run holds the
 * config only and *records_lost is 1. */
int storq_h5_merge_salvage(const char *out_path, char *input, const char *command_line,
                           FILE *report, int *records_lost, storq_error *err);

#endif
