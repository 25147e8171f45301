/* A finished point as a tree (io/point_tree.h): the same objects, attributes and values that
 * storq_h5_write_point gives its 1.x point group (checksums aside), built from the run's results
 * without HDF5. The record the partial file's log keeps, and what the 2.0 writer reads. */
#ifndef STORQ_POINT_RECORD_H
#define STORQ_POINT_RECORD_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "h5_writer.h"
#include "model.h"
#include "observables.h"
#include "params.h"
#include "point_tree.h"
#include "theory.h"

/* The layout (/layouts/NAME) a histogram's bin_edges links to: the parameters its edges are a
 * function of. */
void storq_point_layout_name(const storq_obs_def *def, char *buf, size_t size);

/* An observable's kind as the file names it ("scalar", "vector", "histogram"). */
const char *storq_point_kind_name(storq_obs_kind kind);
/* The shape of one replication's value of def (after the replication axis, if any): its rank. */
int storq_point_value_shape(const storq_obs_def *def, uint64_t *dims);
/* The sum of every replication's histogram sum, added in replication order (reproducible). */
double storq_point_hist_sum(const storq_obs_def *def, const storq_point_result *res);

int storq_point_record_build(const storq_model *model, const storq_params *params,
                             const storq_point_result *res, const storq_summary *summary,
                             const storq_theory *theory, const storq_theory *comparison,
                             double wall_seconds, const storq_point_precision *precision,
                             storq_pt_node **tree, storq_error *err);

#endif
