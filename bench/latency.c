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
    int rank, nranks, errors = 0;
    struct bench_opts o;
    long sizes[BENCH_MAX_SIZES];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);

    int rc = bench_parse(argc, argv, rank, usage,
                         BENCH_OPT_RANGE | BENCH_OPT_ITERS | BENCH_OPT_VALIDATE, &o);
    if (rc != 0) {
        MPI_Finalize();
        return rc < 0 ? 2 : 0;
    }
    if (nranks != 2) {
        if (rank == 0)
            fprintf(stderr, "latency: needs exactly 2 ranks, got %d\n", nranks);
        MPI_Finalize();
        return 2;
    }

    int n = bench_sizes(&o, sizes);
    long max = 0;
    for (int i = 0; i < n; i++)
        max = sizes[i] > max ? sizes[i] : max;
    char *sbuf = bench_alloc(max), *rbuf = bench_alloc(max);
    if (!sbuf || !rbuf) {
        fprintf(stderr, "latency: rank %d cannot allocate 2 x %ld bytes\n", rank, max);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }

    if (rank == 0) {
        char lib[256];
        bench_library(lib, sizeof(lib));
        printf("# rdmach bench latency: ping-pong, 2 ranks, one-way latency = round trip / 2\n");
        printf("# library: %s\n", lib);
        printf("# %-10s%18s\n", "Size", "Latency (us)");
        fflush(stdout);
    }

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
