/*
 * bcast: MPI_Bcast latency (OSU osu_bcast style; the loop is in
 * bench_coll.h): Size bytes of MPI_BYTE from rank 0.
 *
 * The root fills its buffer with a pattern that depends on the byte's index
 * only, the others with a value that never occurs in it, so --validate sees
 * a byte that did not arrive (byte i is (i * 7 + 3) % 251).
 *
 * Output: "# Size  Avg Latency(us)  Min(us)  Max(us)  Iterations", one line
 * per size in bytes (default 1 B .. 1 MiB).
 */
#include "bench_coll.h"

static long bytes(long size, int nranks)
{
    (void)nranks;
    return size;
}

/* MPI_Bcast works in place: the send buffer is the root's only buffer. */
static char *root_buf;

static void run(char *sbuf, char *rbuf, long size)
{
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Bcast(rank == 0 ? sbuf : rbuf, (int)size, MPI_BYTE, 0, MPI_COMM_WORLD);
    root_buf = sbuf;
}

static void fill(char *sbuf, long size, int rank, int nranks)
{
    (void)nranks;
    for (long i = 0; i < size; i++)
        sbuf[i] = rank == 0 ? (char)((i * 7 + 3) % 251) : (char)0xff;
}

static long check(const char *rbuf, long size, int rank, int nranks)
{
    (void)nranks;
    const char *b = rank == 0 ? root_buf : rbuf;
    for (long i = 0; i < size; i++)
        if (b[i] != (char)((i * 7 + 3) % 251))
            return i;
    return -1;
}

int main(int argc, char **argv)
{
    static const struct coll_bench b = {
        .name = "bcast", .what = "MPI_Bcast of Size bytes (MPI_BYTE) from rank 0",
        .min_size = 1, .granule = 1, .sbuf_bytes = bytes, .rbuf_bytes = bytes,
        .run = run, .fill = fill, .check = check,
    };
    return coll_bench_main(&b, argc, argv);
}
