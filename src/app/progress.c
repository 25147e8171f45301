#include "progress.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "env_settings.h"

double storq_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

double storq_thread_cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

double storq_progress_interval(void)
{
    return storq_env_seconds("STORQ_PROGRESS_INTERVAL", isatty(2) ? 0.5 : 30.0);
}

void storq_progress_start(storq_progress *p, int enabled, size_t points_total, size_t reps_total,
                          double total_cost, int open_ended)
{
    memset(p, 0, sizeof *p);
    p->enabled = enabled;
    p->tty = isatty(2);
    p->start = p->last = storq_now();
    p->interval = storq_progress_interval();
    /* a terminal's line after a short while; a log's first line after one interval */
    p->quiet_for = p->tty ? 3.0 : p->interval;
    p->points_total = points_total;
    p->reps_total = reps_total;
    p->total_cost = total_cost;
    p->open_ended = open_ended;
}

void storq_progress_replication(storq_progress *p)
{
#pragma omp atomic update
    p->reps_done++;
}

void storq_progress_point_done(storq_progress *p)
{
#pragma omp atomic update
    p->points_done++;
}

int storq_progress_due(const storq_progress *p)
{
    if (!p->enabled)
        return 0;
    double last, now = storq_now();
#pragma omp atomic read
    last = p->last;
    return now - p->start >= p->quiet_for && now - last >= p->interval;
}

/* 1234567 -> "1.23M": counts of events read at a glance. */
static void count_text(char *out, size_t size, double x)
{
    static const char unit[] = " kMGTPE";
    int u = 0;
    while (x >= 999.5 && u < 6) {
        x /= 1000.0;
        u++;
    }
    if (u == 0)
        snprintf(out, size, "%.0f", x);
    else
        snprintf(out, size, "%.3g%c", x, unit[u]);
}

/* Seconds as h:mm:ss or m:ss, as progress meters show them. */
static void time_text(char *out, size_t size, double s)
{
    long t = s < 0 ? 0 : (long)(s + 0.5);
    if (t >= 3600)
        snprintf(out, size, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
    else
        snprintf(out, size, "%ld:%02ld", t / 60, t % 60);
}

static int terminal_columns(void)
{
    struct winsize ws;
    return ioctl(2, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 20 ? ws.ws_col : 80;
}

/* Caller holds storq_progress. */
static void print_line(storq_progress *p, double now, double work, uint64_t events, int final)
{
    double elapsed = now - p->start;
    size_t points_done, reps_done;
#pragma omp atomic read
    points_done = p->points_done;
#pragma omp atomic read
    reps_done = p->reps_done;
    char ev[32], rate[32], el[32], eta[32] = "?";
    count_text(ev, sizeof ev, (double)events);
    count_text(rate, sizeof rate, elapsed > 0 ? (double)events / elapsed : 0.0);
    time_text(el, sizeof el, elapsed);
    /* the measured rate of work (cost units per second) over what is left of it */
    double frac = p->total_cost > 0 ? work / p->total_cost : 0.0;
    if (frac > 1e-4 && frac < 1.0 && elapsed > 0)
        time_text(eta, sizeof eta, elapsed * (1.0 - frac) / frac);
    else if (frac >= 1.0 && !p->open_ended)
        snprintf(eta, sizeof eta, "0:00");
    char reps[64], line[256];
    if (p->open_ended) /* --precision: the first batches are planned, more may follow */
        snprintf(reps, sizeof reps, "%zu (first batches %zu)", reps_done, p->reps_total);
    else
        snprintf(reps, sizeof reps, "%zu/%zu", reps_done, p->reps_total);
    if (final)
        snprintf(line, sizeof line, "storq: points %zu/%zu, reps %s, %s events, %s ev/s, done in %s",
                 points_done, p->points_total, reps, ev, rate, el);
    else
        snprintf(line, sizeof line, "storq: points %zu/%zu, reps %s, %s events, %s ev/s, "
                 "elapsed %s, ETA %s", points_done, p->points_total, reps, ev, rate, el, eta);
    if (!p->tty) {
        fprintf(stderr, "%s\n", line);
    } else {
        int cols = terminal_columns();
        int len = (int)strlen(line);
        if (len > cols - 1)
            len = cols - 1; /* a wrapped line could not be rewritten in place */
        int pad = p->shown && p->width > len ? p->width - len : 0;
        fprintf(stderr, "\r%.*s%*s%s", len, line, pad, "", final ? "\n" : "");
        p->width = len;
        p->shown = !final;
    }
    fflush(stderr);
}

void storq_progress_show(storq_progress *p, double work, uint64_t events)
{
#pragma omp critical(storq_progress)
    if (storq_progress_due(p)) {
        double now = storq_now();
#pragma omp atomic write
        p->last = now;
        print_line(p, now, work, events, 0);
    }
}

void storq_progress_clear(storq_progress *p)
{
#pragma omp critical(storq_progress)
    if (p->enabled && p->tty && p->shown) {
        fprintf(stderr, "\r%*s\r", p->width, "");
        fflush(stderr);
        p->shown = 0;
    }
}

void storq_progress_finish(storq_progress *p, uint64_t events)
{
#pragma omp critical(storq_progress)
    {
        double now = storq_now();
        if (p->enabled && (p->shown || now - p->start >= p->quiet_for))
            print_line(p, now, p->total_cost, events, 1);
    }
}
