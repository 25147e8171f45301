#include "wait.h"

#include <time.h>

#define SPIN_SECONDS 1e-4
#define FIRST_NAP_NS 50000L
#define LONGEST_NAP_NS 10000000L

int storq_mpi_wait(MPI_Request *req, MPI_Status *status)
{
    double start = MPI_Wtime();
    long nap = 0;
    for (;;) {
        int done = 0;
        int rc = MPI_Test(req, &done, status);
        if (rc != MPI_SUCCESS || done)
            return rc;
        if (MPI_Wtime() - start < SPIN_SECONDS)
            continue;
        nap = nap == 0 ? FIRST_NAP_NS : nap * 2 < LONGEST_NAP_NS ? nap * 2 : LONGEST_NAP_NS;
        struct timespec t = {0, nap};
        nanosleep(&t, NULL);
    }
}
