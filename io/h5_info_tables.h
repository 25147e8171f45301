/* The tables `storq info` prints for one point, filled row by row from values, whatever layout
 * they were read from (h5_info.c: a 1.x point group; h5_info_columnar.c: a row of 2.0 columns),
 * so that both print the same text. */
#ifndef STORQ_H5_INFO_TABLES_H
#define STORQ_H5_INFO_TABLES_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "h5_info_hist.h"
#include "table.h"

typedef struct storq_info_tables {
    storq_table scalars, vectors, hists, comparisons;
} storq_info_tables;

/* "point 000002: R replications, E events, W s wall" */
void storq_info_point_line(FILE *out, uint64_t id, uint64_t reps, uint64_t events, double wall);

void storq_info_tables_init(storq_info_tables *t);
/* theory: the matching theory value(s) (as many as the observable's), or NULL for none. */
void storq_info_add_scalar(storq_info_tables *t, const char *name, double mean, double ci95,
                           const double *theory, const char *unit);
void storq_info_add_vector(storq_info_tables *t, const char *name, const char *shape,
                           const double *mean, size_t n, const double *theory, const char *unit);
void storq_info_add_histogram(storq_info_tables *t, const char *name, const storq_info_hist *h,
                              const char *unit);
/* A length-1 comparison array, as a name = value row. */
void storq_info_add_comparison(storq_info_tables *t, const char *name, double value,
                               const char *unit);
/* Print the tables that have rows (scalars, vectors, histograms, comparisons), and free them. */
void storq_info_tables_print(storq_info_tables *t, FILE *out);
void storq_info_tables_free(storq_info_tables *t);

#endif
