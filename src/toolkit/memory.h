/* One memory budget for every point: what its observables and its per-replication state need is
 * estimated before it runs, with overflow-checked sizes, and checked against one limit, so a point
 * that would not fit is refused with a message naming the parameters instead of failing (or
 * swapping) half way through a run. */
#ifndef STORQ_MEMORY_H
#define STORQ_MEMORY_H

#include <stddef.h>

#include "error.h"

/* The budget of one rank, and the replications it runs at once (its threads). The program sets it
 * once before any point is prepared (src/app/memory_budget.c: --memory-limit, STORQ_MEMORY_LIMIT,
 * or the node's available memory shared by its ranks); source says where it came from, for the
 * messages; `storq theory` sets the node's budget too (src/app/views.c). Unset (a test calling a
 * kernel directly): 8 GiB for one replication. */
void storq_memory_set_budget(size_t rank_bytes, unsigned in_flight, const char *source);

/* The bytes one replication in flight may hold: the rank's budget over its replications at once. */
size_t storq_memory_limit(void);

/* A size in bytes, or with a K, M, G or T suffix (powers of 1024): 512M, 1.5G, 4096. Returns -1
 * for anything else (empty, negative, zero, trailing text). */
int storq_memory_parse_size(const char *text, size_t *bytes);

/* n * size and a + b, saturating at SIZE_MAX instead of wrapping. */
size_t storq_bytes_mul(size_t n, size_t size);
size_t storq_bytes_add(size_t a, size_t b);

/* STORQ_OK when the bytes of one replication in flight fit its share of the budget, else a usage
 * error: "WHAT need X GiB FOR; at most Y GiB are allowed (SOURCE)", where what names the
 * parameters (e.g. "--m: 10^9 servers") and for what the memory holds (e.g. "for per-server
 * arrays per replication (and thread)"). */
int storq_memory_check(size_t bytes, const char *what, const char *for_what, storq_error *err);

/* The same against the whole rank's budget, for what a rank holds once (a point's table of
 * replications). */
int storq_memory_check_rank(size_t bytes, const char *what, const char *for_what,
                            storq_error *err);

#endif
