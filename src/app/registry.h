/* The registry: every model storq knows, by name. */
#ifndef STORQ_REGISTRY_H
#define STORQ_REGISTRY_H

#include <stddef.h>

#include "model.h"

const storq_model *storq_model_find(const char *name);
const storq_model *const *storq_models(size_t *count);

#endif
