/* Starting and ending MPI for `storq run`. Started by a launcher (mpirun, srun), MPI starts as
 * usual. Started alone, Open MPI's singleton would first start a runtime daemon (2.5 s on a
 * workstation) although storq never spawns processes: it starts isolated instead, in a session
 * directory of its own, so concurrent runs on one machine never share (and never remove) one
 * another's. A user's own Open MPI settings stand. */
#ifndef STORQ_MPI_SESSION_H
#define STORQ_MPI_SESSION_H

/* The rank the launcher gave this process, from its environment, before MPI starts; 0 alone. */
int storq_launcher_rank(void);

/* MPI_Init_thread asking for MPI_THREAD_SERIALIZED; returns the level provided. */
int storq_mpi_session_start(void);

/* MPI_Finalize, then the removal of the session directory made by start, if any. */
void storq_mpi_session_end(void);

#endif
