/* Must not compile in the toolkit or kernels layer: they have no HDF5 include path. */
#include <hdf5.h>
int storq_layering_probe(void) { return (int)H5P_DEFAULT; }
