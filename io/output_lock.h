/* NAME.lock: one writer of NAME (and of NAME.partial) at a time, for `storq run` and `storq merge`.
 * Taken before the partial file is touched, released after its rename (or its close, when it
 * stays for --resume). Plain POSIX, no HDF5: a lock file made with link(2), which is atomic on
 * local and network file systems alike, holding who took it (host, pid, the process's start, the
 * Slurm job and its restart count, when). Why not fcntl/flock on the partial itself: HDF5 opens
 * and closes its own descriptors of the file (closing any one of them drops a process's fcntl
 * locks), locks it itself, and flock is unreliable or off on NFS and Lustre; a lock file also
 * says who holds it. docs/architecture.md, "Output files". */
#ifndef STORQ_OUTPUT_LOCK_H
#define STORQ_OUTPUT_LOCK_H

#include "error.h"

typedef struct storq_output_lock storq_output_lock;

/* Take final_path + ".lock" for this process. Refuses (usage error, "LABEL: ...") when a live
 * run holds it, naming its host and pid; or when the holder runs on another host (storq cannot
 * tell whether it is alive: the message says when to remove the lock by hand). A stale lock (its
 * holder on this host has ended; or an earlier incarnation of this Slurm job, requeued) is taken
 * over with a warning on stderr. *out is NULL on failure. */
int storq_output_lock_take(const char *final_path, const char *label, storq_output_lock **out,
                           storq_error *err);

/* Remove the lock file if it is still this process's, and free. Accepts NULL. */
void storq_output_lock_release(storq_output_lock **lock);

/* Without taking it: a usage error naming the holder when a run that is (or may be) alive holds
 * final_path's lock; STORQ_OK when none does or it is stale. */
int storq_output_lock_check(const char *final_path, const char *label, storq_error *err);

#endif
