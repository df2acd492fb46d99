/*
 * allreduce: MPI_Allreduce latency (OSU osu_allreduce style; the loop is in
 * bench_coll.h): MPI_SUM over Size / 4 MPI_FLOATs.
 *
 * Values are small integers so every order of summation gives the same exact
 * float: --validate checks the result bit for bit (element i of rank r is
 * (r + i) % 7, so the sum is the sum over ranks of that).
 *
 * Output: "# Size  Avg Latency(us)  Min(us)  Max(us)  Iterations", one line
 * per size in bytes (default 4 B .. 1 MiB).
 */
#include "bench_coll.h"

static long bytes(long size, int nranks)
{
    (void)nranks;
    return size;
}

static void run(char *sbuf, char *rbuf, long size)
{
    MPI_Allreduce(sbuf, rbuf, (int)(size / 4), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
}

static void fill(char *sbuf, long size, int rank, int nranks)
{
    float *f = (float *)sbuf;
    (void)nranks;
    for (long i = 0; i < size / 4; i++)
        f[i] = (float)((rank + i) % 7);
}

static long check(const char *rbuf, long size, int rank, int nranks)
{
    const float *f = (const float *)rbuf;
    (void)rank;
    for (long i = 0; i < size / 4; i++) {
        float want = 0;
        for (int r = 0; r < nranks; r++)
            want += (float)((r + i) % 7);
        if (f[i] != want)
            return i * 4;
    }
    return -1;
}

int main(int argc, char **argv)
{
    static const struct coll_bench b = {
        .name = "allreduce", .what = "MPI_Allreduce, MPI_SUM of Size/4 MPI_FLOATs",
        .min_size = 4, .granule = 4, .sbuf_bytes = bytes, .rbuf_bytes = bytes,
        .run = run, .fill = fill, .check = check,
    };
    return coll_bench_main(&b, argc, argv);
}
