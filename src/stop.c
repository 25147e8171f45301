#include "stop.h"

#include <signal.h>

static volatile sig_atomic_t stop_signal = 0;

void storq_stop_request(int signal)
{
    stop_signal = signal;
}

int storq_stop_signal(void)
{
    return (int)stop_signal;
}

int storq_stopped(storq_error *err)
{
    return storq_fail(err, STORQ_STOPPED, "stopped by signal %d before the run was complete",
                      storq_stop_signal());
}
