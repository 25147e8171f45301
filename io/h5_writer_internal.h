/* Internal to the results-file writer (h5_writer.c: the file's life; h5_point_writer.c: one
 * point): what an open results file carries. Not part of io's interface. */
#ifndef STORQ_H5_WRITER_INTERNAL_H
#define STORQ_H5_WRITER_INTERNAL_H

#include <hdf5.h>
#include <stddef.h>

#include "h5_writer.h"
#include "output_lock.h"

struct storq_h5_file {
    hid_t file;
    char *final_path;
    char *partial_path;
    const storq_model *model;
    size_t nparams;
    storq_output_lock *lock; /* NAME.lock, held from before the partial is touched to the end */
    int write_failed;        /* a point's write failed: what HDF5 still holds stays off the disk */
    int replace;             /* --force: the final rename may replace a file of that name */
    int schema;              /* of the finished file: 1 or 2 (storq_run_meta) */
};

#endif
