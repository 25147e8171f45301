/* Replication-level checkpoints: while a point is unfinished, the replications already in are
 * kept in OUT.h5.partial (/checkpoints/NNNNNN), so a job killed or stopped loses only the
 * replications in flight and --resume reruns only the missing ones (docs/hdf5-schema.md,
 * "Checkpoints"). Written by rank 0, the file's one writer, every few seconds and when a run
 * stops. The file states format_version 1.2 exactly while it holds a checkpoint; --resume
 * (storq_h5_resume) removes stale ones: those of complete points and writes cut short. */
#ifndef STORQ_H5_CHECKPOINT_H
#define STORQ_H5_CHECKPOINT_H

#include <stddef.h>

#include "error.h"
#include "h5_writer.h"
#include "observables.h"

/* Write (replacing any earlier one) the checkpoint of point p: done[r] != 0 for each replication
 * in, res's rows of those replications (its other rows must be zeros, as
 * storq_point_result_init leaves them), the merged counts, min/max and events of those
 * replications, and the worker-seconds spent on them. Written under a temporary name and renamed,
 * so a kill leaves the previous checkpoint intact; raises the stated version to 1.2; flushes. */
int storq_h5_write_checkpoint(storq_h5_file *f, size_t point, const storq_point_result *res,
                              const unsigned char *done, double seconds, storq_error *err);

/* Remove point p's checkpoint, if any (after the point is written complete); with the last one,
 * /checkpoints goes and the stated version returns to 1.0 (1.1 for a task's file). Flushes when
 * it removed anything. */
int storq_h5_drop_checkpoint(storq_h5_file *f, size_t point, storq_error *err);

/* On resume: read point p's checkpoint into res (initialised by the caller with the point's
 * observables and the run's replications, all zeros): the rows of the replications in, counts,
 * min/max and events; done (res->replications bytes) gets 1 for each replication in, 0 for the
 * others, and *seconds the worker-seconds. Returns 1 when one was read, 0 when the point has none
 * (or only a write cut short), or minus a status with err set: a checkpoint whose shapes do not
 * match the point's observables and replications is a runtime error naming file and point. */
int storq_h5_read_checkpoint(storq_h5_file *f, size_t point, storq_point_result *res,
                             unsigned char *done, double *seconds, storq_error *err);

#endif
