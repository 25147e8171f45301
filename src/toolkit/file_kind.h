/* What a path is, checked before storq opens it: a FIFO blocks an open for reading until a writer
 * comes (and one for writing until a reader does), a device may do anything when opened, a
 * directory or socket cannot be read as a file. So every file storq reads or writes by name (a
 * sweep file, a trace, an input to info or merge, an output) is refused at once, as a usage error
 * naming the path and what it is, when it is not a regular file. Plain POSIX, in the toolkit:
 * traces are read there too. docs/guarantees.md, "Special files". */
#ifndef STORQ_FILE_KIND_H
#define STORQ_FILE_KIND_H

#include <sys/stat.h>

#include "error.h"

/* "a directory", "a FIFO", "a socket", "a character device", ... */
const char *storq_file_kind(mode_t mode);

/* Open an existing path for reading only if it is a regular file. stat() first, so a device or a
 * FIFO is never opened at all; then open with O_NONBLOCK and fstat() the descriptor, so a path
 * swapped for a FIFO in between neither blocks nor slips through. *fd is the open descriptor
 * (blocking again), or -1 when fd_out is NULL (check only). A path that does not exist or cannot
 * be opened is left to the caller's own message: STORQ_OK with *fd -1. The refusal: "LABEL: 'PATH'
 * is not a regular file but a FIFO; WHAT_FOR must be a regular file". */
int storq_open_regular(const char *path, const char *label, const char *what_for, int *fd_out,
                       storq_error *err);

/* An output path: fine when it does not exist or is a regular file (through a symbolic link
 * too); anything else is refused before a lock or a partial file is made beside it. */
/* 1 when paths a and b name the same file (equal, or the same device and inode). */
int storq_same_file(const char *a, const char *b);

int storq_check_output_kind(const char *path, const char *label, storq_error *err);

#endif
