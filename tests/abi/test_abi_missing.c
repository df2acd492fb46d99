/*
 * A program built with mpicc.mpich that references an MPI function rdmach
 * does not provide (MPI_File_open: MPI-IO is not part of rdmach), and
 * weakly references another (MPI_File_close, "use it if present").
 *
 *   test_abi_missing           never calls it
 *   test_abi_missing call      calls it after MPI_Init
 *
 * On rdmach the first form must not run: MPI_Init ends the job with
 * "undefined symbol: MPI_File_open" (exit code 127). With
 * RDMACH_ABI_CHECK=off it runs (lazy binding) and the second form dies in
 * the loader at the call. The weak reference never stops the program.
 */
#include <stdio.h>
#include <string.h>
#include <mpi.h>

#pragma weak MPI_File_close

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (argc > 1 && strcmp(argv[1], "call") == 0) {
        MPI_File fh;
        MPI_File_open(MPI_COMM_SELF, "/dev/null", MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
        printf("rank %d: MPI_File_open returned\n", rank);
    }
    if (rank == 0)
        printf("test_abi_missing: ran to the end (MPI_File_close is %s)\n",
               &MPI_File_close ? "present" : "absent");
    MPI_Finalize();
    return 0;
}
