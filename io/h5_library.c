/* HDF5's start and end in `storq run`: see h5_library.h. */
#include "h5_library.h"

#include <hdf5.h>

static int close_failed;

void storq_h5_library_start(void)
{
    H5dont_atexit(); /* only before the library starts */
    H5open();
}

void storq_h5_library_close_failed(void)
{
    close_failed = 1;
}

void storq_h5_library_end(void)
{
    if (!close_failed)
        H5close();
}
