/* `storq convert IN.h5 OUT.h5`: a finished schema 1.x results file rewritten in schema 2.0's
 * columnar layout (docs/hdf5-schema-2.md): one dataset per quantity with the point as its first
 * dimension, HDF5 dimension scales for netCDF and xarray, row checksums. */
#ifndef STORQ_H5_CONVERT_H
#define STORQ_H5_CONVERT_H

#include <hdf5.h>
#include <stdint.h>
#include <stdio.h>

#include "error.h"

/* Convert in_path (checked whole first: a damaged file is refused) to out_path, written as
 * out_path.partial and renamed when complete (replacing out_path only with replace; the caller
 * holds out_path's lock and checked it may be written). Usage errors (exit 2, nothing left
 * behind): out_path is in_path, in_path is not a storq file, is already 2.0, or is unfinished (a
 * .partial, checkpoints, interrupted or missing points). One line on report when done. */
int storq_h5_convert(const char *in_path, const char *out_path, int replace, FILE *report,
                     storq_error *err);

/* A run's or merge's own 1.x partial file, open as in, every point of it complete and checked by
 * its writer, finished as the 2.0 file final_path: written as final_path.finishing (as many bytes
 * as the partial holds reserved on disk first: a full disk fails before HDF5 writes), then renamed (replacing final_path only with replace). The
 * partial is left as it is: the caller removes it once this succeeded, and keeps it otherwise (a
 * --resume finishes it again). */
int storq_h5_finish_columnar(hid_t in, const char *in_path, const char *final_path, int replace,
                             storq_error *err);
/* final_path.finishing (malloc'd). */
char *storq_h5_finishing_name(const char *final_path);

#endif
