#include "progress.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "env_settings.h"

double storq_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void storq_progress_start(storq_progress *p, int enabled, size_t points_total, double total_cost)
{
    p->enabled = enabled;
    p->tty = isatty(2);
    p->start = p->last = storq_now();
    /* A live line refreshes often; a log file gets a line every 30 s unless told otherwise. */
    p->interval = storq_env_seconds("STORQ_PROGRESS_INTERVAL", p->tty ? 0.5 : 30.0);
    p->quiet_for = 3.0;
    p->points_total = points_total;
    p->points_done = 0;
    p->total_cost = total_cost > 0 ? total_cost : 1.0;
    p->done_cost = 0.0;
    p->events = 0;
}

static void print_line(storq_progress *p, double now, size_t point_index, size_t rep_started,
                       size_t reps, double partial_cost)
{
    double elapsed = now - p->start;
    double frac = (p->done_cost + partial_cost) / p->total_cost;
    char eta[32] = "?";
    if (frac > 0.01 && frac <= 1.0)
        snprintf(eta, sizeof eta, "%.0f s", elapsed * (1.0 - frac) / frac);
    fprintf(stderr, "%sstorq: %zu/%zu points done; point %zu: %zu/%zu replications started; "
            "%.3g events/s here; %.0f s elapsed, about %s left%s",
            p->tty ? "\r" : "", p->points_done, p->points_total, point_index, rep_started, reps,
            elapsed > 0 ? (double)p->events / elapsed : 0.0, elapsed, eta, p->tty ? "   " : "\n");
    fflush(stderr);
}

void storq_progress_replication(storq_progress *p, size_t point_index, size_t rep_started,
                                size_t reps, double point_cost, uint64_t events)
{
#pragma omp critical(storq_progress)
    {
        p->events += events;
        double now = storq_now();
        if (p->enabled && now - p->start >= p->quiet_for && now - p->last >= p->interval) {
            p->last = now;
            double partial = reps ? point_cost * (double)rep_started / (double)reps : 0.0;
            print_line(p, now, point_index, rep_started, reps, partial);
        }
    }
}

void storq_progress_point_done(storq_progress *p, double point_cost)
{
    p->points_done++;
    p->done_cost += point_cost;
}

void storq_progress_finish(storq_progress *p)
{
    double elapsed = storq_now() - p->start;
    if (p->enabled && elapsed >= p->quiet_for)
        fprintf(stderr, "%sstorq: %zu/%zu points done in %.1f s\n", p->tty ? "\r" : "",
                p->points_done, p->points_total, elapsed);
}
