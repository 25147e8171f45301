/* Which run a results file holds, and which of its points are there: what `--resume` and
 * `storq merge` compare and collect (docs/hdf5-schema.md). */
#ifndef STORQ_H5_RUN_H
#define STORQ_H5_RUN_H

#include <hdf5.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

typedef struct storq_h5_run {
    char *model, *config;          /* root attribute model, /run/config */
    char *created, *git_commit;    /* NULL when absent */
    uint64_t seed, replications;
    size_t npoints;                /* rows of /points/index */
    size_t task_index, task_count; /* 0 and 1 when the file holds the whole run */
} storq_h5_run;

/* Create /run in a new file, its header sized ahead for what each session's end adds (the units,
 * ranks and sessions tables, their attributes): written in place, a write cut short there cannot
 * leave /run unreadable (see storq_h5u_create_sized_group). The writer and a salvage make it. */
int storq_h5_run_group_create(hid_t file, hid_t *run, storq_error *err);

/* Read the run of an open file that passed storq_schema_check. */
int storq_h5_run_read(hid_t file, storq_h5_run *run, storq_error *err);
void storq_h5_run_free(storq_h5_run *run);

/* 0 when a and b are the same run (model, seed, replications, /run/config text, number of
 * points); otherwise 1, with the first difference in buf worded with the two labels, e.g.
 * "seed 7 there, 8 here" or "config line 7: 'n = 10' in a.h5, 'n = 20' in b.h5". */
int storq_h5_run_differ(const storq_h5_run *a, const char *la, const storq_h5_run *b,
                        const char *lb, char *buf, size_t size);

/* "task 1/3", or "the whole run" for a count of 0 or 1. */
void storq_h5_run_task_text(size_t index, size_t count, char *buf, size_t size);

/* state[p] for each point p < npoints: 0 no group, 1 complete (status "complete"), 2 a group
 * without it (an interrupted write), which drop_incomplete deletes (file open read-write).
 * Groups of ids past npoints are ignored. */
int storq_h5_run_scan_points(hid_t file, size_t npoints, unsigned char *state,
                             int drop_incomplete, storq_error *err);

#endif
