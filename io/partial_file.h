/* NAME.partial, then rename: the final name never holds an incomplete file. Used by the results
 * writer (`storq run`) and by `storq merge`. Plain POSIX: no HDF5 here. */
#ifndef STORQ_PARTIAL_FILE_H
#define STORQ_PARTIAL_FILE_H

#include <stdint.h>

#include "error.h"

/* final_path + ".partial" (malloc'd; NULL when out of memory). */
char *storq_partial_name(const char *final_path);

/* Create partial empty, replacing an old one, so the writer starts from a clean slate. Refuses
 * (usage error, "LABEL: ...") a final_path that is a directory or a place that is not writable:
 * errno says why far more clearly than HDF5's error stack. */
int storq_partial_create(const char *final_path, const char *partial, const char *label,
                         storq_error *err);

/* Before a write of about `bytes` (a generous estimate): allocate that much disk space past the
 * end of partial (Linux fallocate, keeping the size), so that a full disk or quota is a clean
 * error here ("No space left on device writing X (WHAT needs up to N MB); free some space
 * first") and never a write failing inside HDF5, which leaves the file's metadata half written.
 * Where the file system cannot allocate ahead (NFS, say), its free space is compared instead. */
int storq_partial_reserve(const char *partial, uint64_t bytes, const char *what,
                          storq_error *err);

/* Free what storq_partial_reserve allocated past the end of the (closed) file. */
void storq_partial_trim(const char *partial);

/* Under the output lock, before the partial is touched: without replace (--force), a final_path
 * that exists now (written by a run that finished after this one's first look) is refused, a
 * usage error. */
int storq_partial_check_final(const char *final_path, int replace, const char *label,
                              storq_error *err);

/* The closed partial file to disk, renamed to final_path, and the rename to disk. Without
 * replace, the rename never replaces a file that appeared meanwhile (renameat2 RENAME_NOREPLACE,
 * or link + unlink where that is not supported): a usage error, the partial kept. */
int storq_partial_commit(const char *partial, const char *final_path, int replace,
                         storq_error *err);

#endif
