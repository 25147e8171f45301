/* Every model storq knows. Adding a model is one line here and one in kernels/models.h. */
#include "registry.h"

#include <stdio.h>
#include <string.h>

#include "models.h"

static const storq_model *const registry[] = {
    &storq_model_supermarket,
    &storq_model_cluster,
    &storq_model_forkjoin,
    &storq_model_proxy,
    &storq_model_threads,
    &storq_model_mmc,
};

const storq_model *const *storq_models(size_t *count)
{
    *count = sizeof registry / sizeof registry[0];
    return registry;
}

const storq_model *storq_model_find(const char *name)
{
    size_t n;
    const storq_model *const *models = storq_models(&n);
    for (size_t i = 0; i < n; i++)
        if (strcmp(models[i]->name, name) == 0)
            return models[i];
    return NULL;
}

void storq_model_names(char *buf, size_t size, const char *sep)
{
    size_t n, used = 0;
    const storq_model *const *models = storq_models(&n);
    buf[0] = '\0';
    for (size_t i = 0; i < n && used < size; i++) {
        int w = snprintf(buf + used, size - used, "%s%s", i ? sep : "", models[i]->name);
        used += w > 0 ? (size_t)w : 0;
    }
}
