#include "interrupt.h"

#include <signal.h>
#include <string.h>

#include "stop.h"

static void on_signal(int sig) { storq_stop_request(sig); }

void storq_interrupt_install(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGUSR1, &sa, NULL);
}

int storq_interrupted(void) { return storq_stop_signal(); }
