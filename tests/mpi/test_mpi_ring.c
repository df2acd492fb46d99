/*
 * A token goes around a ring of all ranks N times in total (argument,
 * default 10000 hops); each rank checks it receives exactly the values that
 * are its turn. With more ranks than cores this measures how waiting ranks
 * give the core to the one that has work. Prints the time per hop.
 */
#include "mpi_test.h"

int main(int argc, char **argv)
{
    int size;
    MPI_OK(MPI_Init(&argc, &argv));
    MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &mt_rank));
    MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    long hops = argc > 1 ? atol(argv[1]) : 10000;
    CHECK(hops >= 1 && size >= 2, "hops %ld, size %d", hops, size);
    int left = (mt_rank + size - 1) % size, right = (mt_rank + 1) % size;

    /* Hop h carries the value h (1..hops) from rank (h-1)%size to h%size. */
    long mine = 0;
    for (long h = 1; h <= hops; h++)
        mine += h % size == mt_rank;
    double t0 = MPI_Wtime();
    if (mt_rank == 0) {
        long v = 1;
        MPI_OK(MPI_Send(&v, 1, MPI_LONG, right, 0, MPI_COMM_WORLD));
    }
    long expect = mt_rank == 0 ? size : mt_rank;
    for (long k = 0; k < mine; k++) {
        long v;
        MPI_OK(MPI_Recv(&v, 1, MPI_LONG, left, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(v == expect, "received %ld, expected %ld", v, expect);
        expect += size;
        if (v < hops) {
            v++;
            MPI_OK(MPI_Send(&v, 1, MPI_LONG, right, 0, MPI_COMM_WORLD));
        }
    }
    double t = MPI_Wtime() - t0;
    if (mt_rank == hops % size)
        printf("ring: %ld hops on %d ranks in %.3f s (%.2f us per hop)\n", hops, size, t, t / (double)hops * 1e6);
    MPI_OK(MPI_Finalize());
    return 0;
}
