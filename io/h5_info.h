/* `storq info FILE`: what a results file holds, as text tables. */
#ifndef STORQ_H5_INFO_H
#define STORQ_H5_INFO_H

#include <stdio.h>

#include "error.h"
#include "text_out.h"

/* Print the root attributes, the index with each point's status, and each complete point's
 * observables and comparisons on out. Usage errors for a path that is not a storq file this
 * storq reads (see storq_schema_open). */
int storq_h5_info(const char *path, FILE *out, storq_error *err);

/* The same file in format fmt: STORQ_VIEW_TABLE is storq_h5_info; STORQ_VIEW_CSV one row per
 * complete point (its id, replications, parameters, then each scalar observable's mean, stderr
 * and ci95, each histogram's count, mean and quantiles, each one-number theory and comparison
 * array), the columns the union over the points, a blank cell where a point has no such value;
 * STORQ_VIEW_JSON one object with the root attributes and a list of those points
 * (io/h5_info_formats.c). */
int storq_h5_info_format(const char *path, storq_view_format fmt, FILE *out, storq_error *err);

/* The usage error info ends with, after printing, when n point groups could not be read. */
int storq_info_unreadable(const char *path, size_t n, storq_error *err);

#endif
