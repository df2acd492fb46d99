/* The program every install test builds: the last rank prints the sum of all
 * ranks (n(n-1)/2 for n ranks), the MPI version and whose library it ran on. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, sum, version, subversion, len;
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Get_version(&version, &subversion);
    MPI_Get_library_version(lib, &len);
    if (rank == size - 1)
        printf("hello: rank %d of %d, sum %d, MPI %d.%d, library %.6s\n", rank, size, sum, version,
               subversion, lib);
    MPI_Finalize();
    return 0;
}
