/* HDF5's start and end in `storq run` (src/app/main.c). Started after MPI, HDF5 ends itself in
 * MPI_Finalize (a hook it puts on MPI_COMM_SELF) and closes there whatever is still open; a file
 * whose close failed is half freed in HDF5 1.10.8 (a flush that cannot be done: a full disk, a
 * metadata block it cannot encode), and that end then crashes (SIGSEGV, exit 139) after storq
 * has reported the failure. Started before MPI, without its atexit hook, HDF5 ends when storq
 * ends it: before MPI_Finalize, and not at all once a close failed (the process's exit frees
 * what it held; the file on disk keeps what was written before the failure). */
#ifndef STORQ_H5_LIBRARY_H
#define STORQ_H5_LIBRARY_H

/* Before MPI_Init: HDF5 started, with no hook in MPI nor at exit. */
void storq_h5_library_start(void);

/* A file could not be closed: HDF5 must not be ended (see above). */
void storq_h5_library_close_failed(void);

/* Before MPI_Finalize: HDF5 ended (every object still open closed), unless a close failed. */
void storq_h5_library_end(void);

#endif
