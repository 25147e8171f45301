/* The registry: every model storq knows, by name. */
#ifndef STORQ_REGISTRY_H
#define STORQ_REGISTRY_H

#include <stddef.h>

#include "model.h"

const storq_model *storq_model_find(const char *name);
const storq_model *const *storq_models(size_t *count);
/* The models' names joined by sep ("supermarket, cluster, ..."), for messages; cut to size. */
void storq_model_names(char *buf, size_t size, const char *sep);

#endif
