/* Which theory array of a point goes beside an observable (storq info; the rule the point report
 * of `storq run` follows too, src/app/report.c): the array whose `grid` attribute names the
 * observable and whose length is the observable's (the model declares it so when it writes the
 * array); failing that, an array of the observable's own name and length. */
#ifndef STORQ_H5_INFO_THEORY_H
#define STORQ_H5_INFO_THEORY_H

#include <hdf5.h>
#include <stddef.h>

/* The values (malloc'd, *values; NULL when none) of the theory array in group theory (< 0: none)
 * that goes with observable obs of len values; its name in name (size bytes). Returns 1 when
 * found, 0 otherwise. */
int storq_info_theory_for(hid_t theory, const char *obs, size_t len, double **values, char *name,
                          size_t size);

#endif
