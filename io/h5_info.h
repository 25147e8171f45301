/* `storq info FILE`: what a results file holds, as text tables. */
#ifndef STORQ_H5_INFO_H
#define STORQ_H5_INFO_H

#include <stdio.h>

#include "error.h"

/* Print the root attributes, the index with each point's status, and each complete point's
 * observables and comparisons on out. Usage errors for a path that is not a storq file this
 * storq reads (see storq_schema_open). */
int storq_h5_info(const char *path, FILE *out, storq_error *err);

#endif
