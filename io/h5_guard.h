/* Reading a file HDF5 may crash on. HDF5 1.10 trusts its own metadata, and a damaged global heap,
 * B-tree or object header can make it read through a wild pointer (SIGSEGV). storq_h5_guard runs
 * fn(ctx, result, err) in a fork()ed child and sends back its return code, error and the size
 * bytes of result; a child that crashes becomes the usage error "PATH: object '/': damaged HDF5
 * structure: HDF5 crashed reading it (signal 11, ...): the file is damaged" (exit 2), so the
 * caller returns through its normal error path (merge and --resume remove their lock). What the
 * child printed to out stays printed; a child ended by SIGPIPE writing to out (its reader went
 * away, as in storq info F | head) ends this process by SIGPIPE too. Without fork (no process to
 * spare) fn runs here. A child that reads no further object (storq_h5_guard_beat) for
 * STORQ_CHECK_TIMEOUT seconds (600 by default) is stopped: "HDF5 read no further object of it in
 * 600 s", the file called damaged. */
#ifndef STORQ_H5_GUARD_H
#define STORQ_H5_GUARD_H

#include <stddef.h>
#include <stdio.h>

#include "error.h"

typedef int (*storq_guarded_fn)(void *ctx, void *result, storq_error *err);

int storq_h5_guard(storq_guarded_fn fn, void *ctx, void *result, size_t size, FILE *out,
                   const char *label, const char *path, storq_error *err);
/* Called for each object a guarded reader reads: the guard stops a child only when it has read
 * no further object for STORQ_CHECK_TIMEOUT seconds (HDF5 gone round a loop), however long the
 * whole file takes. A no-op outside a guarded child. */
void storq_h5_guard_beat(void);

#endif
