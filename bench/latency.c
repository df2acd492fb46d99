/*
 * latency: ping-pong between rank 0 and rank 1 (OSU osu_latency style).
 *
 * For each size, rank 0 sends a message and waits for the same size to come
 * back; the one-way latency is the elapsed time over 2 x iterations. Blocking
 * MPI_Send/MPI_Recv, the same buffers every time (hot in cache), after
 * warm-up round trips that are not timed. Exactly two ranks.
 *
 *   rank 0:  Send ---->  Recv <----          (x iterations)
 *   rank 1:  Recv <----  Send ---->
 *
 * Output: "# Size  Latency (us)" then one line per size.
 */
#include "bench_util.h"

#define LAT_LOOP_SMALL 10000
#define LAT_LOOP_LARGE 1000
#define LAT_SKIP_SMALL 100
#define LAT_SKIP_LARGE 10
#define TAG_PING 1
#define TAG_CHECK 2

static const char *usage =
    "[--quick] [--min-size N] [--max-size N] [--sizes a,b,..] [--iters N] [--warmup N] "
    "[--validate]\n  sizes take K/M/G suffixes (binary); needs exactly 2 ranks";

/* One untimed, verified round trip; returns the number of bad buffers seen. */
static int validate_size(int rank, char *sbuf, char *rbuf, long size)
{
    int bad = 0, peer_bad = 0;
    if (rank == 0) {
        bench_fill(sbuf, size, 0);
        MPI_Send(sbuf, (int)size, MPI_CHAR, 1, TAG_PING, MPI_COMM_WORLD);
        MPI_Recv(rbuf, (int)size, MPI_CHAR, 1, TAG_PING, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        long off = bench_check(rbuf, size, 1);
        if (off >= 0) {
            fprintf(stderr, "latency: validation failed: size %ld, rank 0 received a wrong byte "
                    "at offset %ld\n", size, off);
            bad = 1;
        }
        MPI_Recv(&peer_bad, 1, MPI_INT, 1, TAG_CHECK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        MPI_Recv(rbuf, (int)size, MPI_CHAR, 0, TAG_PING, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        long off = bench_check(rbuf, size, 0);
        if (off >= 0) {
            fprintf(stderr, "latency: validation failed: size %ld, rank 1 received a wrong byte "
                    "at offset %ld\n", size, off);
            bad = 1;
        }
        bench_fill(sbuf, size, 1);
        MPI_Send(sbuf, (int)size, MPI_CHAR, 0, TAG_PING, MPI_COMM_WORLD);
        MPI_Send(&bad, 1, MPI_INT, 0, TAG_CHECK, MPI_COMM_WORLD);
    }
    return bad + peer_bad;
}

int main(int argc, char **argv)
{
    int errors = 0, exit_code = 0, n = 0;
    struct bench_opts o;
    long sizes[BENCH_MAX_SIZES];
    char *sbuf = NULL, *rbuf = NULL;

    int rank = bench_pair_start(&argc, &argv, "latency", usage, BENCH_OPT_RANGE | BENCH_OPT_ITERS | BENCH_OPT_VALIDATE,
                                "rdmach bench latency: ping-pong, 2 ranks, one-way latency = round trip / 2",
                                "Latency (us)", &o, sizes, &n, &sbuf, &rbuf, &exit_code);
    if (rank < 0)
        return exit_code;

    for (int s = 0; s < n; s++) {
        long size = sizes[s];
        long iters = bench_iters(&o, size, LAT_LOOP_SMALL, LAT_LOOP_LARGE);
        long skip = bench_warmup(&o, size, LAT_SKIP_SMALL, LAT_SKIP_LARGE);
        double t0 = 0.0;
        for (long i = 0; i < iters + skip; i++) {
            if (i == skip)
                t0 = MPI_Wtime();
            if (rank == 0) {
                MPI_Send(sbuf, (int)size, MPI_CHAR, 1, TAG_PING, MPI_COMM_WORLD);
                MPI_Recv(rbuf, (int)size, MPI_CHAR, 1, TAG_PING, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(rbuf, (int)size, MPI_CHAR, 0, TAG_PING, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
                MPI_Send(sbuf, (int)size, MPI_CHAR, 0, TAG_PING, MPI_COMM_WORLD);
            }
        }
        double t = MPI_Wtime() - t0;
        if (o.validate)
            errors += validate_size(rank, sbuf, rbuf, size);
        if (rank == 0) {
            printf("%-12ld%18.3f\n", size, t * 1e6 / (2.0 * (double)iters));
            fflush(stdout);
        }
    }

    if (o.validate && rank == 0)
        printf("# validation: %s\n", errors ? "FAILED" : "passed");
    free(sbuf);
    free(rbuf);
    MPI_Finalize();
    return errors ? 1 : 0;
}
