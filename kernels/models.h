/* The kernels layer's one public header: the ops table of every model it holds. The program's
 * registry (src/app/registry.c) lists them by name; tests and benchmarks use them directly. */
#ifndef STORQ_MODELS_H
#define STORQ_MODELS_H

#include "model.h"

extern const storq_model storq_model_supermarket;
extern const storq_model storq_model_cluster;
extern const storq_model storq_model_forkjoin;
extern const storq_model storq_model_proxy;
extern const storq_model storq_model_threads;
extern const storq_model storq_model_mmc;

#endif
