/* One memory budget for every point: what its observables and its per-replication state need is
 * estimated before it runs, with overflow-checked sizes, and checked against one limit, so a point
 * that would not fit is refused with a message naming the parameters instead of failing (or
 * swapping) half way through a run. */
#ifndef STORQ_MEMORY_H
#define STORQ_MEMORY_H

#include <stddef.h>

#include "error.h"

/* The limit in bytes: STORQ_MEMORY_LIMIT (bytes, or with a K, M, G or T suffix) from the
 * environment, else 8 GiB. One replication's state on one thread is held to it, and so is a
 * point's table of per-replication values. */
size_t storq_memory_limit(void);

/* n * size and a + b, saturating at SIZE_MAX instead of wrapping. */
size_t storq_bytes_mul(size_t n, size_t size);
size_t storq_bytes_add(size_t a, size_t b);

/* STORQ_OK when bytes fit the limit, else a usage error: "WHAT need X GiB FOR; at most Y GiB are
 * allowed (STORQ_MEMORY_LIMIT)", where what names the parameters (e.g. "--m: 10^9 servers") and
 * for what the memory holds (e.g. "for per-server arrays per replication (and thread)"). */
int storq_memory_check(size_t bytes, const char *what, const char *for_what, storq_error *err);

#endif
