/* An MPICH program: its libmpich PMI-1 client must work against rdmachrun. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, sum;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    printf("mpich_hello: rank %d of %d: allreduce sum %d\n", rank, size, sum);
    MPI_Finalize();
    return 0;
}
