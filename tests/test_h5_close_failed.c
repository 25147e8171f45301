/* A results file HDF5 cannot close (io/h5_library.h): a dataset of 300 chunks, past what HDF5
 * 1.10.8 can index in a storq file (h5_util.h, STORQ_H5U_CHUNKS_MAX), makes its flush and close
 * fail, as a write of /run/units did before its chunks were bounded. HDF5 then holds a half-freed
 * file, and its end (at MPI_Finalize, or at exit) crashed: the process must end as storq's `run`
 * ends it, with HDF5 started before MPI and not ended after the failed close, and exit normally
 * (ctest sees a crash as a failure). */
#include <hdf5.h>
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

#include "check.h"
#include "fake_run.h"
#include "h5_library.h"
#include "h5_writer.h"

#define NPOINTS 1

int main(int argc, char **argv)
{
    if (argc > 1 && chdir(argv[1]) != 0) {
        perror(argv[1]);
        return 1;
    }
    storq_h5_library_start();
    MPI_Init(NULL, NULL);
    storq_params points[NPOINTS];
    fake_points(points, NPOINTS);
    const char *final = "test_h5_close_failed.h5";
    remove(final);
    remove("test_h5_close_failed.h5.partial");
    storq_run_meta meta = fake_meta(1, 1, 0, 1);
    storq_error err = {0};
    storq_h5_file *f = NULL;
    CHECK(storq_h5_create(final, &meta, &fake_model, points, NPOINTS, &f, &err) == STORQ_OK);
    hid_t file = f ? storq_h5_file_id(f) : -1;
    hsize_t n = 300, chunk = 1;
    hid_t space = H5Screate_simple(1, &n, NULL), dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, 1, &chunk);
    hid_t d = file >= 0 ? H5Dcreate2(file, "many_chunks", H5T_STD_I32LE, space, H5P_DEFAULT,
                                     dcpl, H5P_DEFAULT)
                        : -1;
    static int values[300];
    herr_t written = d >= 0 ? H5Dwrite(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, values)
                            : -1;
    if (d >= 0)
        H5Dclose(d);
    H5Pclose(dcpl);
    H5Sclose(space);
    /* the failure this test is about: if this HDF5 can index 300 such chunks, it tests nothing */
    CHECK(d >= 0 && (written < 0 || H5Fflush(file, H5F_SCOPE_GLOBAL) < 0));
    H5Eclear2(H5E_DEFAULT);
    storq_h5_close(&f);
    fake_points_free(points, NPOINTS);
    int rc = check_report("test_h5_close_failed");
    storq_h5_library_end();
    MPI_Finalize();
    return rc;
}
