/* Progress of a long run on stderr: a live line on a terminal, one line per interval in a log
 * (Slurm). Silent for the first few seconds so short runs stay quiet. */
#ifndef STORQ_PROGRESS_H
#define STORQ_PROGRESS_H

#include <stddef.h>
#include <stdint.h>

typedef struct storq_progress {
    int enabled, tty;
    double start, last, interval, quiet_for;
    double total_cost, done_cost; /* relative cost units of points */
    size_t points_total, points_done;
    uint64_t events; /* simulated by this process */
} storq_progress;

void storq_progress_start(storq_progress *p, int enabled, size_t points_total, double total_cost);
/* Called by the reporting process after each replication (thread-safe). */
void storq_progress_replication(storq_progress *p, size_t point_index, size_t rep_started,
                                size_t reps, double point_cost, uint64_t events);
void storq_progress_point_done(storq_progress *p, double point_cost);
void storq_progress_finish(storq_progress *p);

double storq_now(void);

#endif
