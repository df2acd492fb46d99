/*
 * A program built with mpicc.mpich that references an MPI function rdmach
 * does not provide (MPI_T_init_thread: the MPI_T tool interface is not part
 * of rdmach), and weakly references another (MPI_T_finalize, "use it if
 * present").
 *
 *   test_abi_missing           never calls it
 *   test_abi_missing call      calls it after MPI_Init
 *
 * On rdmach the first form must not run: MPI_Init ends the job with
 * "undefined symbol: MPI_T_init_thread" (exit code 127). With
 * RDMACH_ABI_CHECK=off it runs (lazy binding) and the second form dies in
 * the loader at the call. The weak reference never stops the program.
 */
#include <stdio.h>
#include <string.h>
#include <mpi.h>

#pragma weak MPI_T_finalize

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (argc > 1 && strcmp(argv[1], "call") == 0) {
        int provided;
        MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
        printf("rank %d: MPI_T_init_thread returned\n", rank);
    }
    if (rank == 0)
        printf("test_abi_missing: ran to the end (MPI_T_finalize is %s)\n",
               &MPI_T_finalize ? "present" : "absent");
    MPI_Finalize();
    return 0;
}
