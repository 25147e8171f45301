/* Progress of a long run on stderr, printed by rank 0: on a terminal one live line rewritten in
 * place (\r) and ended by a newline when the run ends; in a log (Slurm's output) one full line
 * every STORQ_PROGRESS_INTERVAL seconds (default 30). A line says the points and replications
 * done, the events simulated and their rate, and the time left: the work done in the cost units
 * of model->cost (replications in flight count by their share of the model's steps) against the
 * work of the whole run. A terminal's line starts after 3 s, a log's after one interval, so
 * short runs stay quiet; --quiet silences it. */
#ifndef STORQ_PROGRESS_H
#define STORQ_PROGRESS_H

#include <stddef.h>
#include <stdint.h>

typedef struct storq_progress {
    int enabled, tty;
    int shown;             /* a live line is on the terminal */
    int open_ended;        /* --precision: replications beyond the first batches may follow */
    double start, last, interval, quiet_for;
    double total_cost;     /* the work of the replications planned (first batches) */
    size_t points_total, points_done, reps_total, reps_done;
    int width;             /* the length of the live line last printed */
} storq_progress;

/* The interval between lines: STORQ_PROGRESS_INTERVAL, else 0.5 s on a terminal, 30 s in a log. */
double storq_progress_interval(void);
void storq_progress_start(storq_progress *p, int enabled, size_t points_total, size_t reps_total,
                          double total_cost, int open_ended);
/* Rank 0 took in a replication; finished a point (any thread). */
void storq_progress_replication(storq_progress *p);
void storq_progress_point_done(storq_progress *p);
/* Nonzero when a line is due: cheap, so the caller gathers the figures only then. */
int storq_progress_due(const storq_progress *p);
/* Print the line if it is still due (any thread; one prints): work in cost units and events,
 * all ranks together. */
void storq_progress_show(storq_progress *p, double work, uint64_t events);
/* Erase the live line before other output (a point's table) reaches the terminal. */
void storq_progress_clear(storq_progress *p);
void storq_progress_finish(storq_progress *p, uint64_t events);

double storq_now(void);
/* CPU seconds the calling thread has used: what counts as work in a unit (docs/architecture.md,
 * "Measuring itself"). */
double storq_thread_cpu(void);

#endif
