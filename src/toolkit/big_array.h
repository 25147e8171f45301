/* Large zeroed arrays of per-server state, backed by transparent huge pages where the system has
 * them: a random access into hundreds of megabytes then misses the TLB far less often (one entry
 * maps 2 MiB instead of 4 KiB). Small arrays are plain cache-line-aligned allocations. */
#ifndef STORQ_BIG_ARRAY_H
#define STORQ_BIG_ARRAY_H

#include <stddef.h>

/* Arrays of at least this many bytes are laid out in huge pages. */
#define STORQ_HUGE_PAGE ((size_t)2 << 20)

/* The bytes an array of `bytes` really takes (what a memory estimate counts): rounded up to a
 * 64-byte cache line, and to whole huge pages from STORQ_HUGE_PAGE on. Saturates at SIZE_MAX. */
size_t storq_big_array_bytes(size_t bytes);

/* A zeroed array of storq_big_array_bytes(bytes) bytes, aligned to a cache line (to a huge page
 * when it has one or more), or NULL. Free it with free(). Huge pages are asked for before the
 * memory is first touched (the kernel only backs untouched ranges with them); where they cannot
 * be had, the array is an ordinary one. */
void *storq_big_array_zeroed(size_t bytes);

#endif
