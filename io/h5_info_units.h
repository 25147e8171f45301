/* `storq info`'s lines on the run's record of its units (docs/hdf5-schema.md, "The run's units"):
 * one line per session of /run/sessions, and below it one line per rank of /run/ranks. */
#ifndef STORQ_H5_INFO_UNITS_H
#define STORQ_H5_INFO_UNITS_H

#include <hdf5.h>
#include <stdio.h>

/* Print them on out (nothing for a file without /run/sessions); what cannot be read is left
 * out, as the record is no part of the results. */
void storq_info_units(hid_t file, FILE *out);

#endif
