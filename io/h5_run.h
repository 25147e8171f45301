/* Which run a results file holds, and which of its points are there: what `--resume` and
 * `storq merge` compare and collect (docs/hdf5-schema.md). */
#ifndef STORQ_H5_RUN_H
#define STORQ_H5_RUN_H

#include <hdf5.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

typedef struct h5r_run {
    char *model, *config;          /* root attribute model, /run/config */
    char *created, *git_commit;    /* NULL when absent */
    uint64_t seed, replications;
    size_t npoints;                /* rows of /points/index */
    size_t task_index, task_count; /* 0 and 1 when the file holds the whole run */
    int32_t version[2];            /* format_version */
} h5r_run;

/* Read the run of an open file. Usage errors, worded "LABEL: PATH is not a storq results file"
 * or "... has format version 2.0; this storq reads 1.x". */
int h5r_read(hid_t file, const char *path, const char *label, h5r_run *run, storq_error *err);
void h5r_free(h5r_run *run);

/* 0 when a and b are the same run (model, seed, replications, /run/config text, number of
 * points); otherwise 1, with the first difference in buf worded with the two labels, e.g.
 * "seed 7 there, 8 here" or "config line 7: 'n = 10' in a.h5, 'n = 20' in b.h5". */
int h5r_differ(const h5r_run *a, const char *la, const h5r_run *b, const char *lb, char *buf,
               size_t size);

/* "task 1/3", or "the whole run" for a count of 0 or 1. */
void h5r_task_text(size_t index, size_t count, char *buf, size_t size);

/* 1 when the group loc/name has status "complete", 0 when it lacks it (an interrupted write),
 * -1 when it cannot be opened. */
int h5r_group_complete(hid_t loc, const char *name);

/* state[p] for each point p < npoints: 0 no group, 1 complete (status "complete"), 2 a group
 * without it (an interrupted write), which drop_incomplete deletes (file open read-write).
 * Groups of ids past npoints are ignored. */
int h5r_scan_points(hid_t file, size_t npoints, unsigned char *state, int drop_incomplete,
                    storq_error *err);

#endif
