/*
 * alltoall: MPI_Alltoall latency (OSU osu_alltoall style; the loop is in
 * bench_coll.h). Every rank sends `size` bytes (MPI_CHAR) to every rank,
 * itself included: p blocks out and p in per call.
 *
 *   rank r, block q of the send buffer  ---->  rank q, block r of the receive buffer
 *
 * With rdmach, RDMACH_ALLTOALL=<algorithm> forces one algorithm (bench/
 * alltoall-algos runs them all), RDMACH_COLL_VNODE_SIZE or RDMACH_VNODE_SIZE
 * gives it several nodes.
 *
 * Output: "# Size  Avg Latency(us)  Min(us)  Max(us)  Iterations", one line
 * per block size (default 1 B .. 1 MiB).
 */
#include "bench_coll.h"

static long bytes_all(long size, int nranks)
{
    return size * nranks;
}

static void run(char *sbuf, char *rbuf, long size)
{
    MPI_Alltoall(sbuf, (int)size, MPI_CHAR, rbuf, (int)size, MPI_CHAR, MPI_COMM_WORLD);
}

/* Block q of rank r's send buffer: the pattern of (size, seed r * 1024 + q). */
static void fill(char *sbuf, long size, int rank, int nranks)
{
    for (int q = 0; q < nranks; q++)
        bench_fill(sbuf + (long)q * size, size, rank * 1024 + q);
}

static long check(const char *rbuf, long size, int rank, int nranks)
{
    for (int q = 0; q < nranks; q++) {
        long off = bench_check(rbuf + (long)q * size, size, q * 1024 + rank);
        if (off >= 0)
            return (long)q * size + off;
    }
    return -1;
}

int main(int argc, char **argv)
{
    static const struct coll_bench b = {
        .name = "alltoall", .what = "MPI_Alltoall of Size bytes per block (MPI_CHAR)",
        .min_size = 1, .granule = 1, .sbuf_bytes = bytes_all, .rbuf_bytes = bytes_all,
        .run = run, .fill = fill, .check = check,
    };
    return coll_bench_main(&b, argc, argv);
}
