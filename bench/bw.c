/*
 * bw: streaming bandwidth from rank 0 to rank 1 (OSU osu_bw style).
 *
 * For each size, rank 0 posts a window of 64 MPI_Isend, waits for them, and
 * waits for a 4-byte reply that rank 1 sends once its 64 MPI_Irecv have
 * completed; bandwidth = size x window x iterations / elapsed time, in MB/s
 * with MB = 10^6 bytes (as OSU prints it). Exactly two ranks.
 *
 *   rank 0:  Isend x64 ... Waitall  Recv(reply)      (x iterations)
 *   rank 1:  Irecv x64 ... Waitall  Send(reply)
 *
 * As in OSU, every message of a window uses the same send buffer and the same
 * receive buffer: the figure measures the library's transfer path, not the
 * memory footprint of 64 distinct buffers.
 *
 * Output: "# Size  Bandwidth (MB/s)" then one line per size.
 */
#include "bench_util.h"

#define BW_WINDOW 64
#define BW_LOOP_SMALL 100
#define BW_LOOP_LARGE 20
#define BW_SKIP_SMALL 10
#define BW_SKIP_LARGE 2
#define TAG_DATA 1
#define TAG_REPLY 2
#define TAG_CHECK 3

static const char *usage =
    "[--quick] [--min-size N] [--max-size N] [--sizes a,b,..] [--iters N] [--warmup N] "
    "[--validate]\n  sizes take K/M/G suffixes (binary); needs exactly 2 ranks";

/* One untimed message with a pattern, checked by rank 1; returns errors seen. */
static int validate_size(int rank, char *sbuf, char *rbuf, long size)
{
    int bad = 0;
    if (rank == 0) {
        bench_fill(sbuf, size, 0);
        MPI_Send(sbuf, (int)size, MPI_CHAR, 1, TAG_CHECK, MPI_COMM_WORLD);
        MPI_Recv(&bad, 1, MPI_INT, 1, TAG_CHECK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        MPI_Recv(rbuf, (int)size, MPI_CHAR, 0, TAG_CHECK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        long off = bench_check(rbuf, size, 0);
        if (off >= 0) {
            fprintf(stderr, "bw: validation failed: size %ld, rank 1 received a wrong byte at "
                    "offset %ld\n", size, off);
            bad = 1;
        }
        MPI_Send(&bad, 1, MPI_INT, 0, TAG_CHECK, MPI_COMM_WORLD);
    }
    return bad;
}

int main(int argc, char **argv)
{
    int errors = 0, exit_code = 0, n = 0;
    struct bench_opts o;
    long sizes[BENCH_MAX_SIZES];
    char *sbuf = NULL, *rbuf = NULL;
    MPI_Request req[BW_WINDOW];
    /* a real array, as in OSU: MPICH's MPI_STATUSES_IGNORE trips gcc's -Wstringop-overflow */
    MPI_Status stat[BW_WINDOW];
    int rank = bench_pair_start(&argc, &argv, "bw", usage, BENCH_OPT_RANGE | BENCH_OPT_ITERS | BENCH_OPT_VALIDATE,
                                "rdmach bench bw: streaming bandwidth, 2 ranks, window of " BENCH_STR(BW_WINDOW)
                                " messages then a reply; MB = 10^6 bytes",
                                "Bandwidth (MB/s)", &o, sizes, &n, &sbuf, &rbuf, &exit_code);
    if (rank < 0)
        return exit_code;

    for (int s = 0; s < n; s++) {
        long size = sizes[s];
        long iters = bench_iters(&o, size, BW_LOOP_SMALL, BW_LOOP_LARGE);
        long skip = bench_warmup(&o, size, BW_SKIP_SMALL, BW_SKIP_LARGE);
        int reply = 0;
        double t0 = 0.0;
        for (long i = 0; i < iters + skip; i++) {
            if (i == skip)
                t0 = MPI_Wtime();
            if (rank == 0) {
                for (int w = 0; w < BW_WINDOW; w++)
                    MPI_Isend(sbuf, (int)size, MPI_CHAR, 1, TAG_DATA, MPI_COMM_WORLD, &req[w]);
                MPI_Waitall(BW_WINDOW, req, stat);
                MPI_Recv(&reply, 1, MPI_INT, 1, TAG_REPLY, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                for (int w = 0; w < BW_WINDOW; w++)
                    MPI_Irecv(rbuf, (int)size, MPI_CHAR, 0, TAG_DATA, MPI_COMM_WORLD, &req[w]);
                MPI_Waitall(BW_WINDOW, req, stat);
                MPI_Send(&reply, 1, MPI_INT, 0, TAG_REPLY, MPI_COMM_WORLD);
            }
        }
        double t = MPI_Wtime() - t0;
        if (o.validate)
            errors += validate_size(rank, sbuf, rbuf, size);
        if (rank == 0) {
            double mb = (double)size / 1e6 * (double)iters * BW_WINDOW;
            printf("%-12ld%18.2f\n", size, t > 0.0 ? mb / t : 0.0);
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
