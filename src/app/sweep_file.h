/* Sweep files: read an INI file into (section, key, value, line) entries, exactly as written.
 * Lines of any length; an indented line continues the value of the key above it; comments start
 * with ; or # (at a line's start, or after a blank); duplicate keys, keys outside a section, lines
 * that are neither `key = value` nor `[section]`, and control bytes (NUL...) are refused with
 * file:line. The grammar is written down in docs/sweep-files.md. What the keys mean is the
 * caller's business (run_spec.c). */
#ifndef STORQ_SWEEP_FILE_H
#define STORQ_SWEEP_FILE_H

#include <stddef.h>

#include "error.h"

/* The largest sweep file read (a list of a million values fits many times over). */
#define STORQ_SWEEP_FILE_MAX_BYTES (64u << 20)

typedef struct storq_sweep_entry {
    char *section;
    char *key;
    char *value; /* continuation lines joined with one blank; trimmed; comments removed */
    int line;    /* the line of `key =` (1-based) */
} storq_sweep_entry;

typedef struct storq_sweep_section {
    char *name;
    int line; /* of its first `[name]` header */
} storq_sweep_section;

typedef struct storq_sweep_file {
    const char *path;
    storq_sweep_entry *entries; /* in file order */
    size_t nentries;
    storq_sweep_section *sections; /* each name once, in order of first appearance */
    size_t nsections;
} storq_sweep_file;

/* Read and check the file's syntax. Usage errors name path:line. */
int storq_sweep_file_read(const char *path, storq_sweep_file *f, storq_error *err);
void storq_sweep_file_free(storq_sweep_file *f);

/* The entry for section/key, or NULL. */
const storq_sweep_entry *storq_sweep_file_find(const storq_sweep_file *f, const char *section,
                                               const char *key);
/* The line of section's first header, or 0. */
int storq_sweep_file_section_line(const storq_sweep_file *f, const char *section);

#endif
