/*
 * A program built with mpicc.mpich that references an MPI function rdmach
 * does not provide (MPIX_Query_hip_support: an MPICH extension for AMD GPUs
 * that rdmach has no reason to define), and weakly references another
 * (MPIX_Query_ze_support, "use it if present").
 *
 *   test_abi_missing           never calls it
 *   test_abi_missing call      calls it after MPI_Init
 *
 * On rdmach the first form must not run: MPI_Init ends the job with
 * "undefined symbol: MPIX_Query_hip_support" (exit code 127). With
 * RDMACH_ABI_CHECK=off it runs (lazy binding) and the second form dies in
 * the loader at the call. The weak reference never stops the program.
 */
#include <stdio.h>
#include <string.h>
#include <mpi.h>

#pragma weak MPIX_Query_ze_support

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (argc > 1 && strcmp(argv[1], "call") == 0) {
        MPIX_Query_hip_support();
        printf("rank %d: MPIX_Query_hip_support returned\n", rank);
    }
    if (rank == 0)
        printf("test_abi_missing: ran to the end (MPIX_Query_ze_support is %s)\n",
               &MPIX_Query_ze_support ? "present" : "absent");
    MPI_Finalize();
    return 0;
}
