#include "stop.h"

#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <time.h>

static volatile sig_atomic_t stop_signal = 0;

void storq_stop_request(int signal)
{
    stop_signal = signal;
}

int storq_stop_signal(void)
{
    return (int)stop_signal;
}

static storq_poll_fn poll_fn = NULL;
static void *poll_arg = NULL;
static double poll_interval = 1.0;
static _Thread_local double poll_last = 0.0; /* per thread: no shared state on the hot path */

void storq_poll_install(storq_poll_fn fn, void *arg, double interval_seconds)
{
    poll_arg = arg;
    poll_interval = interval_seconds;
    poll_fn = fn;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static _Thread_local double deadline = 0.0; /* storq_stop_deadline; 0: none */

void storq_stop_deadline(double seconds)
{
    deadline = seconds > 0 ? now() + seconds : 0.0;
}

static atomic_uint_least64_t steps_total = 0;
static _Thread_local uint64_t steps_current = 0; /* the thread's replication, at its last tick */

void storq_steps_begin(void)
{
    steps_current = 0;
}

uint64_t storq_steps_current(void)
{
    return steps_current;
}

uint64_t storq_steps_total(void)
{
    return (uint64_t)atomic_load_explicit(&steps_total, memory_order_relaxed);
}

int storq_tick(uint64_t events)
{
    /* once per STORQ_STOP_EVERY steps: one relaxed atomic add, shared by the process's threads */
    if (events > steps_current) {
        atomic_fetch_add_explicit(&steps_total, events - steps_current, memory_order_relaxed);
        steps_current = events;
    } else if (events < steps_current) {
        steps_current = events; /* a replication begun without storq_steps_begin */
    }
    if (poll_fn) {
        double t = now();
        if (t - poll_last >= poll_interval) {
            poll_last = t;
            poll_fn(poll_arg);
        }
    }
    /* the clock is read only while a limit is set: a run's own replications never pay for it */
    if (deadline > 0 && !stop_signal && now() >= deadline)
        return STORQ_STOP_DEADLINE;
    return (int)stop_signal;
}

int storq_stopped(storq_error *err)
{
    return storq_fail(err, STORQ_STOPPED, "stopped by signal %d before the run was complete",
                      storq_stop_signal());
}
