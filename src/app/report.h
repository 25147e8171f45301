/* Human-readable tables of results and theory on stdout. */
#ifndef STORQ_REPORT_H
#define STORQ_REPORT_H

#include <stdio.h>

#include "model.h"

/* One finished point: its parameters, scalar observables beside same-named theory, vectors beside
 * same-named theory (first rows), and one-number comparisons. */
void storq_report_point(FILE *out, size_t point_id, const storq_params *params,
                        const storq_summary *sim, const storq_theory *theory,
                        const storq_theory *comparison);

/* Theory arrays alone (`storq theory`): the one-number arrays among names[0..nnames) (every one
 * when names is NULL) as a table; with arrays set, then the longer ones in full, those that share
 * a grid as columns of one table. */
void storq_report_theory_select(FILE *out, const storq_theory *theory, char *const *names,
                                size_t nnames, int arrays);

void storq_report_params(FILE *out, const storq_params *params);

/* The steady-state check (docs/steady-state.md): when the point failed it, one warning on out
 * (stderr) naming the point, its headline observable (NULL: unnamed) and the numbers. Returns 1
 * when it warned. */
int storq_report_steady_state(FILE *out, size_t point_id, const storq_params *params,
                              const char *headline, const storq_summary *sim);

#endif
