#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include "thread_cores.h"

#include <omp.h>
#include <sched.h>
#include <unistd.h>

#include "params.h"

static long thread_limit(void)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN), limit = STORQ_THREADS_MAX;
    if (cpus > 0 && cpus * STORQ_THREADS_PER_CPU < limit)
        limit = cpus * STORQ_THREADS_PER_CPU;
    return limit;
}

int storq_threads_check(storq_error *err)
{
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
