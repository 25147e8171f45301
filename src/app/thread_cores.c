#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include "thread_cores.h"

#include <omp.h>
#include <sched.h>
#include <stdlib.h>
#include <unistd.h>

#include "params.h"

static long thread_limit(void)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN), limit = STORQ_THREADS_MAX;
    if (cpus > 0 && cpus * STORQ_THREADS_PER_CPU < limit)
        limit = cpus * STORQ_THREADS_PER_CPU;
    return limit;
}

/* OMP_NUM_THREADS as OpenMP reads it: positive integers, comma-separated (one per nesting level;
 * spaces around them allowed). */
static int omp_threads_valid(const char *v)
{
    const char *p = v;
    for (;;) {
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p < '1' || *p > '9')
            return 0;
        while (*p >= '0' && *p <= '9')
            p++;
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p == '\0')
            return 1;
        if (*p++ != ',')
            return 0;
    }
}

int storq_threads_check(storq_error *err)
{
    /* the runtime ignores a value it cannot read and starts a thread per CPU, unannounced */
    const char *v = getenv("OMP_NUM_THREADS");
    if (v && *v && !omp_threads_valid(v)) /* empty: as if unset, as shells often leave it */
        return storq_fail(err, STORQ_ERR_USAGE, "OMP_NUM_THREADS: '%.40s' is not a number of "
                          "threads (a positive integer, as in 2; OpenMP would ignore it and start "
                          "one thread per CPU)", v);
    const long threads = omp_get_max_threads(), limit = thread_limit();
    if (threads <= limit)
        return STORQ_OK;
    return storq_fail(err, STORQ_ERR_USAGE, "OMP_NUM_THREADS: %ld threads per process is over "
                      "storq's limit of %ld (%d per CPU on this machine's %ld, at most %d); set "
                      "OMP_NUM_THREADS to the cores each rank has", threads, limit,
                      STORQ_THREADS_PER_CPU, sysconf(_SC_NPROCESSORS_ONLN), STORQ_THREADS_MAX);
}

void storq_warn_shared_cores(void)
{
    if (omp_get_max_threads() > thread_limit())
        return; /* refused by storq_threads_check: one message */
    /* With OMP_PROC_BIND the runtime has already bound this thread to its first place: the
     * places (made from the CPUs the process was given) are what the threads spread over. */
    int cpus, threads = omp_get_max_threads();
    cpu_set_t mask;
    if (omp_get_proc_bind() != omp_proc_bind_false)
        cpus = omp_get_num_places();
    else if (sched_getaffinity(0, sizeof mask, &mask) == 0)
        cpus = CPU_COUNT(&mask);
    else
        return; /* unknown: say nothing */
    if (threads <= cpus)
        return;
    if (cpus >= sysconf(_SC_NPROCESSORS_ONLN)) /* not bound: more threads than the machine has */
        storq_warn("%d OpenMP threads on %d CPUs: they take turns; set OMP_NUM_THREADS=%d", threads,
                   cpus, cpus);
    else
        storq_warn("%d OpenMP threads on %d CPU%s (what rank 0 is bound to): they take turns. Give "
                   "each rank as many cores as threads: mpirun --map-by slot:PE=%d (or --bind-to "
                   "none), srun --cpus-per-task=%d; or set OMP_NUM_THREADS=%d",
                   threads, cpus, cpus == 1 ? "" : "s", threads, threads, cpus);
}
