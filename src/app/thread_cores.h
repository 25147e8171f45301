/* Threads that share a core: mpirun binds each rank to one core by default (up to 2 ranks), so
 * OMP_NUM_THREADS=2 under a plain `mpirun -np 1` runs both threads on one core, slower than one
 * thread alone. storq says so instead of running slowly in silence. */
#ifndef STORQ_THREAD_CORES_H
#define STORQ_THREAD_CORES_H

/* A warning (storq_warn: rank 0 only) when this process has more OpenMP threads than CPUs it may
 * run on (its affinity mask), naming the way to give each thread its own core. */
void storq_warn_shared_cores(void);

#endif
