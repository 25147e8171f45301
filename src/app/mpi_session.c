#include "mpi_session.h"

#include <limits.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static char session_dir[PATH_MAX];

static const char *launcher_variable(void)
{
    static const char *const names[] = {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (getenv(names[i]))
            return getenv(names[i]);
    return NULL;
}

int storq_launcher_rank(void)
{
    const char *v = launcher_variable();
    return v ? atoi(v) : 0;
}

int storq_mpi_session_start(void)
{
    if (!launcher_variable() && !getenv("OMPI_MCA_ess_singleton_isolated")) {
        setenv("OMPI_MCA_ess_singleton_isolated", "1", 1);
        /* isolated singletons all name their session "job family 0": give each its own base */
        const char *tmp = getenv("TMPDIR");
        snprintf(session_dir, sizeof session_dir, "%s/storq-mpi.XXXXXX", tmp && *tmp ? tmp : "/tmp");
        if (!getenv("OMPI_MCA_orte_tmpdir_base") && mkdtemp(session_dir))
            setenv("OMPI_MCA_orte_tmpdir_base", session_dir, 1);
        else
            session_dir[0] = '\0';
    }
    int provided;
    MPI_Init_thread(NULL, NULL, MPI_THREAD_SERIALIZED, &provided);
    return provided;
}

void storq_mpi_session_end(void)
{
    MPI_Finalize();
    if (session_dir[0])
        rmdir(session_dir); /* Open MPI has removed what it put inside */
}
