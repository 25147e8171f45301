/* Threads that share a core: mpirun binds each rank to one core by default (up to 2 ranks), so
 * OMP_NUM_THREADS=2 under a plain `mpirun -np 1` runs both threads on one core, slower than one
 * thread alone. storq says so instead of running slowly in silence. */
#ifndef STORQ_THREAD_CORES_H
#define STORQ_THREAD_CORES_H

#include "error.h"

/* Threads per CPU, and in all, beyond which OMP_NUM_THREADS is a mistake (100000 crashed the
 * OpenMP runtime): refused rather than run. */
#define STORQ_THREADS_PER_CPU 64
#define STORQ_THREADS_MAX 4096

/* STORQ_ERR_USAGE when this process has more OpenMP threads than min(STORQ_THREADS_MAX,
 * STORQ_THREADS_PER_CPU x the machine's online CPUs). */
int storq_threads_check(storq_error *err);

/* A warning (storq_warn: rank 0 only) when this process has more OpenMP threads than CPUs it may
 * run on (its affinity mask), naming the way to give each thread its own core. */
void storq_warn_shared_cores(void);

#endif
