/*
 * bcast: MPI_Bcast latency (OSU osu_bcast style; the loop is in
 * bench_coll.h): Size bytes of MPI_BYTE from rank 0.
 *
 * The root fills its buffer with a pattern that depends on the byte's index
 * only (byte i is (i * 7 + 3) % 251); --validate checks every other rank's
 * buffer, zeroed before the call, against it.
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

/* MPI_Bcast has one buffer: the root's is sbuf, the others' rbuf. The rank
 * is read once, not in the timed call. */
static int me = -1;

static void run(char *sbuf, char *rbuf, long size)
{
    if (me < 0)
        MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Bcast(me == 0 ? sbuf : rbuf, (int)size, MPI_BYTE, 0, MPI_COMM_WORLD);
}

static void fill(char *sbuf, long size, int rank, int nranks)
{
    (void)nranks;
    for (long i = 0; i < size && rank == 0; i++)
        sbuf[i] = (char)((i * 7 + 3) % 251);
}

static long check(const char *rbuf, long size, int rank, int nranks)
{
    (void)nranks;
    for (long i = 0; i < size && rank != 0; i++)
        if (rbuf[i] != (char)((i * 7 + 3) % 251))
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
