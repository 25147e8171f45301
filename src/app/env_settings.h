/* The run's settings from the environment, in seconds: STORQ_CHECKPOINT_INTERVAL (default 5) and
 * STORQ_PROGRESS_INTERVAL (default 0.5 on a terminal, 30 in a log). Read with the one number
 * grammar (src/toolkit/number.h); a malformed value is refused before anything runs, not taken as 0. */
#ifndef STORQ_ENV_SETTINGS_H
#define STORQ_ENV_SETTINGS_H

#include "error.h"

/* A usage error naming the variable when one is set but not a number of seconds >= 0, or when
 * OMP_NUM_THREADS is absurd (storq_threads_check). */
int storq_env_check(storq_error *err);

/* The variable's seconds, or fallback when it is unset (or malformed: storq_env_check refuses
 * that first). */
double storq_env_seconds(const char *name, double fallback);

#endif
