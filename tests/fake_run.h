/* A test-only model with one parameter n and the run description of a small sweep of it
 * (n = 10, 20, ...), for the io tests that write results files without running a kernel. */
#ifndef STORQ_TEST_FAKE_RUN_H
#define STORQ_TEST_FAKE_RUN_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "h5_writer.h"
#include "model.h"

static const storq_param_def fake_params[] = {
    {.name = "n", .type = STORQ_PARAM_INT, .def = "10", .min = 1, .max = 1e9, .unit = "servers",
     .doc = "number of servers"},
    {.name = NULL}}; /* end */

static const storq_model fake_model = {.name = "fake", .summary = "test-only model",
                                       .params = fake_params};

/* Point p has n = 10 (p + 1), its text included. */
static void fake_points(storq_params *points, size_t npoints)
{
    for (size_t p = 0; p < npoints; p++) {
        char text[32];
        snprintf(text, sizeof text, "%zu", 10 * (p + 1));
        points[p].model = &fake_model;
        points[p].n = 1;
        points[p].v = calloc(1, sizeof *points[p].v);
        points[p].v[0].i = 10 * (long long)(p + 1);
        points[p].v[0].s = strdup(text);
    }
}

static void fake_points_free(storq_params *points, size_t npoints)
{
    for (size_t p = 0; p < npoints; p++) {
        free(points[p].v[0].s);
        free(points[p].v);
    }
}

/* The run's description; config holds the equivalent sweep file (static storage). */
static storq_run_meta fake_meta(size_t replications, uint64_t seed, size_t task_index,
                                size_t task_count)
{
    static char config[256];
    snprintf(config, sizeof config,
             "[run]\nmodel = fake\nreplications = %zu\nseed = %llu\n\n[fake]\nn = 10 20\n",
             replications, (unsigned long long)seed);
    return (storq_run_meta){.command_line = "storq run fake.ini", .config_text = config,
                            .seed = seed, .replications = replications, .mpi_ranks = 1,
                            .omp_threads = 2, .task_index = task_index,
                            .task_count = task_count};
}

#endif
