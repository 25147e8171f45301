/* The laws the cluster theory tests build their cavity queues from: a chunk law (storq_dist) and a
 * file-size law (storq_ddist) parsed from a spec, or exit 2 naming it (a test's own typo). */
#ifndef STORQ_TEST_CLUSTER_LAWS_H
#define STORQ_TEST_CLUSTER_LAWS_H

#include <stdio.h>
#include <stdlib.h>

#include "distribution.h"

static inline storq_dist cdist(const char *spec)
{
    storq_dist d;
    storq_error err;
    if (storq_dist_parse(spec, "chunk", &d, &err) != STORQ_OK) {
        fprintf(stderr, "cannot parse %s\n", spec);
        exit(2);
    }
    return d;
}

static inline storq_ddist ddist(const char *spec)
{
    storq_ddist d;
    storq_error err;
    if (storq_ddist_parse(spec, "size", &d, &err) != STORQ_OK) {
        fprintf(stderr, "cannot parse %s\n", spec);
        exit(2);
    }
    return d;
}

#endif
