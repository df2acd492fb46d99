/*
 * verbs_perf: MPI latency and bandwidth between 2 ranks, reported the way
 * perftest (ib_write_lat, ib_write_bw) reports its own, so the two stand side
 * by side in the rdma guest's measurement table (tests/verbs/measure-rdmach).
 *
 *   latency    ITERS ping-pongs of LAT_BYTES with MPI_Send/MPI_Recv, each
 *              round trip timed on rank 0 as perftest times its own: one
 *              timestamp as each iteration starts, a round trip = the time
 *              to the next (so one clock read an iteration, not two, is on
 *              the path); one-way = round trip / 2;
 *              lat_min, lat_typical (the median, as perftest's t_typical),
 *              lat_avg in us
 *   bandwidth  WINDOWS windows of 64 MPI_Isend of BW_BYTES (64 MPI_Irecv on
 *              rank 1), each closed by a 4-byte reply, each window timed on
 *              rank 0; bw_peak (the best window), bw_avg (all bytes over all
 *              windows' time), MB/s = 2^20 bytes/s as perftest prints them
 *
 * Why per-sample figures: under qemu TCG on a shared host the guest is
 * descheduled now and then for milliseconds; an average then says more
 * about the host's load than about the library (ib_write_lat shows a
 * typical 10 us next to an average of over 1 ms), and perftest's typical
 * figure is a median. bench/latency and bench/bw report averages only.
 *
 * Usage: verbs_perf <transport> [lat_bytes lat_iters bw_bytes bw_windows]
 * (lat_iters 0: no latency part; bw_windows 0: no bandwidth part)
 * Prints "MEASURE <transport> rdmach_mpi_lat|rdmach_mpi_bw <bytes> <metric> <value> <unit>".
 * Every received byte of the first exchange of each kind is checked.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>
#include "../mpi/mpi_test.h"

#define WINDOW 64
#define WARMUP 100
#define MIB 1048576.0

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void fill(unsigned char *b, size_t n, int seed)
{
    for (size_t i = 0; i < n; i++)
        b[i] = (unsigned char)(i * 7 + (size_t)seed);
}

static int check(const unsigned char *b, size_t n, int seed)
{
    for (size_t i = 0; i < n; i++)
        if (b[i] != (unsigned char)(i * 7 + (size_t)seed))
            return 0;
    return 1;
}

static void latency(const char *t, int bytes, int iters)
{
    unsigned char *s = malloc((size_t)bytes + 1), *r = malloc((size_t)bytes + 1);
    double *rtt = malloc(sizeof(double) * ((size_t)iters + 1));
    CHECK(s && r && rtt, "no memory");
    int peer = 1 - mt_rank;
    for (int i = -WARMUP; i < iters; i++) {
        if (i == -WARMUP)
            fill(s, (size_t)bytes, mt_rank);
        if (mt_rank == 0) {
            if (i >= 0)
                rtt[i] = MPI_Wtime();   /* one timestamp an iteration, as perftest's */
            MPI_OK(MPI_Send(s, bytes, MPI_BYTE, peer, 1, MPI_COMM_WORLD));
            MPI_OK(MPI_Recv(r, bytes, MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        } else {
            MPI_OK(MPI_Recv(r, bytes, MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            MPI_OK(MPI_Send(s, bytes, MPI_BYTE, peer, 1, MPI_COMM_WORLD));
        }
        if (i == -WARMUP)
            CHECK(check(r, (size_t)bytes, peer), "latency: wrong bytes received");
    }
    if (mt_rank == 0) {
        rtt[iters] = MPI_Wtime();
        for (int i = 0; i < iters; i++)
            rtt[i] = rtt[i + 1] - rtt[i];
        qsort(rtt, (size_t)iters, sizeof(double), cmp_double);
        double sum = 0;
        for (int i = 0; i < iters; i++)
            sum += rtt[i];
        double med = iters % 2 ? rtt[iters / 2] : (rtt[iters / 2 - 1] + rtt[iters / 2]) / 2;
        printf("MEASURE %s rdmach_mpi_lat %d lat_min %.2f us\n", t, bytes, rtt[0] / 2 * 1e6);
        printf("MEASURE %s rdmach_mpi_lat %d lat_typical %.2f us\n", t, bytes, med / 2 * 1e6);
        printf("MEASURE %s rdmach_mpi_lat %d lat_avg %.2f us\n", t, bytes, sum / iters / 2 * 1e6);
        fflush(stdout);
    }
    free(s);
    free(r);
    free(rtt);
}

static void bandwidth(const char *t, int bytes, int windows)
{
    unsigned char *buf = malloc((size_t)bytes);
    CHECK(buf, "no memory");
    int peer = 1 - mt_rank, ack = 0;
    MPI_Request req[WINDOW];
    double best = 0, total = 0;
    for (int w = -2; w < windows; w++) {   /* two windows of warm-up */
        if (w == -2 && mt_rank == 0)
            fill(buf, (size_t)bytes, 3);
        double t0 = MPI_Wtime();
        for (int k = 0; k < WINDOW; k++) {
            if (mt_rank == 0)
                MPI_OK(MPI_Isend(buf, bytes, MPI_BYTE, peer, 2, MPI_COMM_WORLD, &req[k]));
            else
                MPI_OK(MPI_Irecv(buf, bytes, MPI_BYTE, peer, 2, MPI_COMM_WORLD, &req[k]));
        }
        MPI_OK(MPI_Waitall(WINDOW, req, MPI_STATUSES_IGNORE));
        if (mt_rank == 0) {
            MPI_OK(MPI_Recv(&ack, 1, MPI_INT, peer, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            CHECK(ack == 1, "bandwidth: rank 1 found wrong bytes");
        } else {
            ack = w == -2 ? check(buf, (size_t)bytes, 3) : 1;
            MPI_OK(MPI_Send(&ack, 1, MPI_INT, peer, 3, MPI_COMM_WORLD));
        }
        double dt = MPI_Wtime() - t0;
        if (w >= 0) {
            total += dt;
            double rate = (double)bytes * WINDOW / dt / MIB;
            if (rate > best)
                best = rate;
        }
    }
    if (mt_rank == 0) {
        printf("MEASURE %s rdmach_mpi_bw %d bw_peak %.2f MB/s\n", t, bytes, best);
        printf("MEASURE %s rdmach_mpi_bw %d bw_avg %.2f MB/s\n", t, bytes,
               (double)bytes * WINDOW * windows / total / MIB);
        fflush(stdout);
    }
    free(buf);
}

int main(int argc, char **argv)
{
    int size;
    MPI_OK(MPI_Init(&argc, &argv));
    MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &mt_rank));
    MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    CHECK(size == 2, "run on 2 ranks");
    CHECK(argc == 2 || argc == 6, "usage: verbs_perf <transport> [lat_bytes lat_iters bw_bytes bw_windows]");
    const char *t = argv[1];
    int lat_bytes = argc == 6 ? atoi(argv[2]) : 8, lat_iters = argc == 6 ? atoi(argv[3]) : 5000;
    int bw_bytes = argc == 6 ? atoi(argv[4]) : 65536, bw_windows = argc == 6 ? atoi(argv[5]) : 20;
    CHECK(lat_bytes >= 0 && lat_iters >= 0 && bw_bytes > 0 && bw_windows >= 0 && lat_iters + bw_windows > 0,
          "bad sizes or counts");
    if (lat_iters > 0)
        latency(t, lat_bytes, lat_iters);
    if (bw_windows > 0)
        bandwidth(t, bw_bytes, bw_windows);
    MPI_OK(MPI_Finalize());
    return 0;
}
