#include "env_settings.h"

#include <stdlib.h>

#include "number.h"
#include "thread_cores.h"

static const char *const settings[] = {"STORQ_CHECKPOINT_INTERVAL", "STORQ_PROGRESS_INTERVAL"};

static int seconds(const char *text, double *out)
{
    return storq_number_real(text, out) == 0 && *out >= 0 ? 0 : -1;
}

int storq_env_check(storq_error *err)
{
    for (size_t i = 0; i < sizeof settings / sizeof settings[0]; i++) {
        const char *v = getenv(settings[i]);
        double s;
        if (v && seconds(v, &s))
            return storq_fail(err, STORQ_ERR_USAGE, "%s: '%.40s' is not a number of seconds "
                              ">= 0 (decimal, as in 5 or 0.5)", settings[i], v);
    }
    return storq_threads_check(err);
}

double storq_env_seconds(const char *name, double fallback)
{
    const char *v = getenv(name);
    double s;
    return v && !seconds(v, &s) ? s : fallback;
}
