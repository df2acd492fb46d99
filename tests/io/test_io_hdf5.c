/*
 * The acceptance of MPI-IO: Debian's parallel HDF5 built for MPICH
 * (libhdf5-mpich-dev), unchanged, on rdmach through libmpich.so.12. Built
 * with h5pcc.mpich. Four ranks write a 2-D dataset of ints, each a block of
 * rows by a hyperslab, once collectively (H5FD_MPIO_COLLECTIVE) and once
 * independently, then read the whole dataset back and check every element:
 * element (i, j) = i * 100 + j. The file is left for h5dump (run by ctest).
 *
 * Usage: test_io_hdf5 <file.h5>
 */
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <mpi.h>

#define ROWS 8
#define COLS 6

static int fail(int rank, const char *what)
{
    fprintf(stderr, "[rank %d] test_io_hdf5: %s failed\n", rank, what);
    MPI_Abort(MPI_COMM_WORLD, 1);
    return 1;
}

static void write_dataset(hid_t file, const char *name, int rank, int nprocs, H5FD_mpio_xfer_t mode)
{
    hsize_t dims[2] = { ROWS, COLS };
    hid_t space = H5Screate_simple(2, dims, NULL);
    hid_t dset = H5Dcreate2(file, name, H5T_NATIVE_INT, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (dset < 0)
        fail(rank, "H5Dcreate2");
    /* rank r: rows [r * ROWS / P, (r + 1) * ROWS / P) */
    hsize_t r0 = (hsize_t)rank * ROWS / nprocs, r1 = (hsize_t)(rank + 1) * ROWS / nprocs;
    hsize_t start[2] = { r0, 0 }, count[2] = { r1 - r0, COLS };
    int buf[ROWS * COLS];
    for (hsize_t i = 0; i < r1 - r0; i++)
        for (int j = 0; j < COLS; j++)
            buf[i * COLS + j] = (int)(r0 + i) * 100 + j;
    H5Sselect_hyperslab(space, H5S_SELECT_SET, start, NULL, count, NULL);
    hid_t mem = H5Screate_simple(2, count, NULL);
    hid_t xfer = H5Pcreate(H5P_DATASET_XFER);
    H5Pset_dxpl_mpio(xfer, mode);
    if (H5Dwrite(dset, H5T_NATIVE_INT, mem, space, xfer, buf) < 0)
        fail(rank, "H5Dwrite");
    H5Pclose(xfer);
    H5Sclose(mem);
    H5Sclose(space);
    H5Dclose(dset);
}

static void check_dataset(hid_t file, const char *name, int rank)
{
    int all[ROWS * COLS];
    hid_t dset = H5Dopen2(file, name, H5P_DEFAULT);
    hid_t xfer = H5Pcreate(H5P_DATASET_XFER);
    H5Pset_dxpl_mpio(xfer, H5FD_MPIO_COLLECTIVE);
    if (dset < 0 || H5Dread(dset, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, xfer, all) < 0)
        fail(rank, "H5Dread");
    for (int i = 0; i < ROWS; i++)
        for (int j = 0; j < COLS; j++)
            if (all[i * COLS + j] != i * 100 + j) {
                fprintf(stderr, "[rank %d] %s[%d][%d] = %d, expected %d\n", rank, name, i, j, all[i * COLS + j],
                        i * 100 + j);
                fail(rank, "the check of the values read back");
            }
    H5Pclose(xfer);
    H5Dclose(dset);
}

int main(int argc, char **argv)
{
    int rank, nprocs;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    if (argc < 2)
        return fail(rank, "usage: test_io_hdf5 <file.h5>");
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
    hid_t file = H5Fcreate(argv[1], H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    if (file < 0)
        fail(rank, "H5Fcreate");
    write_dataset(file, "collective", rank, nprocs, H5FD_MPIO_COLLECTIVE);
    write_dataset(file, "independent", rank, nprocs, H5FD_MPIO_INDEPENDENT);
    H5Fclose(file);
    file = H5Fopen(argv[1], H5F_ACC_RDONLY, fapl);
    if (file < 0)
        fail(rank, "H5Fopen");
    check_dataset(file, "collective", rank);
    check_dataset(file, "independent", rank);
    H5Fclose(file);
    H5Pclose(fapl);
    if (rank == 0)
        printf("test_io_hdf5: %d ranks wrote %dx%d ints by hyperslabs, collectively and independently; read back "
               "equal\n", nprocs, ROWS, COLS);
    MPI_Finalize();
    return 0;
}
