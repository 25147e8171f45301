/* The model interface: an ops table plus a parameter schema, registered by name.
 * A model knows nothing of MPI, HDF5 or the command line. */
#ifndef STORQ_MODEL_H
#define STORQ_MODEL_H

#include "error.h"
#include "observables.h"
#include "params.h"
#include "rng.h"
#include "theory.h"

typedef struct storq_model {
    const char *name;
    const char *summary;
    const storq_param_def *params; /* terminated by {NULL} */

    /* Validate the point beyond per-parameter ranges (cross-checks, stability; usage errors) and
     * build the model's context: parsed distributions, constants, observable ids. */
    int (*prepare)(const storq_params *p, void **ctx, storq_error *err);
    void (*release)(void *ctx);
    /* Declare the observables (the same for every replication of the point). */
    int (*declare)(void *ctx, storq_observables *obs, storq_error *err);
    /* Run one replication with streams derived from key. Reentrant: threads call it at once. */
    int (*replicate)(const void *ctx, const storq_stream_key *key, storq_record *rec,
                     storq_error *err);
    /* Optional: analytic companions of the point. */
    int (*theory)(const void *ctx, storq_theory *out, storq_error *err);
    /* Optional: simulation against theory (e.g. distances to a fixed point), from the summary. */
    int (*compare)(const void *ctx, const storq_summary *sim, const storq_theory *theory,
                   storq_theory *out, storq_error *err);
    /* Optional: relative cost of one replication, to hand out the largest work first. */
    double (*cost)(const void *ctx);
    /* Optional: about how far the step count a replication passes to storq_stop_due (src/toolkit/stop.h)
     * goes, so that progress can count a replication in flight; an estimate is enough. */
    double (*steps)(const void *ctx);
    /* Optional: the name of the point's headline scalar observable (the one --precision targets
     * when no observable is named), or NULL when the point has none. */
    const char *(*headline)(const void *ctx);
    /* The headline's name when it is the same for every point (used when headline is NULL). */
    const char *headline_name;
    /* Optional, for models whose request classes are one string parameter `classes`
     * (NAME:F1:F2:...|NAME:...): the fields after the name, in order ("share:k:nmax:delay"), so
     * that `--class` (repeatable) and sweep-file [class.NAME] sections can build it. */
    const char *class_fields;
} storq_model;

#endif
