#include "interrupt.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "error.h"
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
    /* A run or merge whose report's reader went away (storq run ... | head, a pager quit) goes
     * on: its result is the file, not the report (main.c says the report was cut short). */
    signal(SIGPIPE, SIG_IGN);
}

int storq_interrupted(void) { return storq_stop_signal(); }

/* ---- the watchdog ---- */

static struct {
    double grace;
    void (*cleanup)(void *);
    void *arg;
    pthread_t thread;
    int running;
    atomic_int done;
} dog;

static void *watch(void *unused)
{
    (void)unused;
    while (!atomic_load(&dog.done) && !storq_stop_signal()) {
        const struct timespec nap = {0, 20000000};
        nanosleep(&nap, NULL);
    }
    for (double waited = 0; !atomic_load(&dog.done) && waited < dog.grace; waited += 0.02) {
        const struct timespec nap = {0, 20000000};
        nanosleep(&nap, NULL);
    }
    if (atomic_load(&dog.done))
        return NULL;
    if (dog.cleanup)
        dog.cleanup(dog.arg);
    _exit(STORQ_STOPPED);
}

int storq_interrupt_watchdog(double grace, void (*cleanup)(void *), void *arg)
{
    dog.grace = grace;
    dog.cleanup = cleanup;
    dog.arg = arg;
    atomic_store(&dog.done, 0);
    dog.running = pthread_create(&dog.thread, NULL, watch, NULL) == 0;
    return dog.running ? 0 : -1;
}

void storq_interrupt_watchdog_end(void)
{
    atomic_store(&dog.done, 1);
    if (dog.running)
        pthread_join(dog.thread, NULL);
    dog.running = 0;
}
