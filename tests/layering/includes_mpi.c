/* Must not compile in the toolkit or kernels layer: they have no MPI include path. */
#include <mpi.h>
int storq_layering_probe(void) { return MPI_SUCCESS; }
