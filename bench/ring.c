/*
 * ring: N ranks pass a token around a ring, 0 -> 1 -> ... -> N-1 -> 0.
 *
 * Rank 0 sends the token to its right neighbour and waits for it to come back
 * from its left one; every other rank receives from the left and forwards to
 * the right. One trip around is a round; the per-hop latency is the time of a
 * round over N. With more ranks than cores (4 ranks on 2 cores) every hop
 * needs the receiving process to be running, so this measures how well a
 * library waits: busy polling starves the rank that holds the token, yielding
 * or blocking lets it run.
 *
 *        +--> 1 --+
 *        |        v
 *        0        2        (token: 8 B by default, then larger sizes)
 *        ^        |
 *        +--- 3 <-+
 *
 * Each size runs for a time budget (--time, default 0.5 s; 0.1 s with
 * --quick) after a few untimed warm-up rounds. The tag says whether another
 * round follows (TAG_GO) or this is the last one (TAG_STOP): only rank 0 looks
 * at the clock and the token tells the others, so no collective is needed.
 *
 * Output: the ranks and where they run, then "# Size  Per-hop latency (us)
 * Round trip (us)  Rounds", then the total time.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* sched_getcpu */
#endif
#include "bench_util.h"

#if defined(__linux__)
#include <sched.h>
#endif

#define TAG_GO    1
#define TAG_STOP  2
#define TAG_INFO  3
#define RING_MAX_ROUNDS 1000000L
#define RING_WARMUP 10L

static const char *usage =
    "[--quick] [--sizes a,b,..] [--time SECONDS] [--warmup ROUNDS]\n"
    "  default sizes 8,1K,64K,1M (K/M/G suffixes are binary); needs at least 2 ranks";

struct rank_info {
    int rank;
    int cpu;
    char host[MPI_MAX_PROCESSOR_NAME];
};

static int current_cpu(void)
{
#if defined(__linux__)
    return sched_getcpu();
#else
    return -1;
#endif
}

/* Rank 0 collects every rank's host and cpu over point-to-point and prints them. */
static void print_layout(int rank, int nranks)
{
    struct rank_info me;
    int len = 0;
    memset(&me, 0, sizeof(me));
    me.rank = rank;
    me.cpu = current_cpu();
    MPI_Get_processor_name(me.host, &len);
    me.host[sizeof(me.host) - 1] = '\0';
    if (rank != 0) {
        MPI_Send(&me, (int)sizeof(me), MPI_BYTE, 0, TAG_INFO, MPI_COMM_WORLD);
        return;
    }
    printf("# %6s  %-24s %s\n", "rank", "host", "cpu (at start)");
    for (int r = 0; r < nranks; r++) {
        struct rank_info ri = me;
        if (r != 0)
            MPI_Recv(&ri, (int)sizeof(ri), MPI_BYTE, r, TAG_INFO, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        ri.host[sizeof(ri.host) - 1] = '\0';
        if (ri.cpu >= 0)
            printf("# %6d  %-24s %d\n", ri.rank, ri.host, ri.cpu);
        else
            printf("# %6d  %-24s %s\n", ri.rank, ri.host, "?");
    }
}

/*
 * Pass the token until rank 0 decides to stop: after max_rounds, or once
 * `budget` seconds have passed (0: stop after max_rounds). Returns the number
 * of rounds and, on rank 0, the elapsed time in *secs.
 */
static long run_rounds(int rank, int nranks, char *buf, long size, double budget,
                       long max_rounds, double *secs)
{
    int right = (rank + 1) % nranks, left = (rank + nranks - 1) % nranks;
    long rounds = 0;
    double t0 = MPI_Wtime();
    if (rank == 0) {
        int last;
        do {
            last = rounds + 1 >= max_rounds || (budget > 0.0 && MPI_Wtime() - t0 >= budget);
            MPI_Send(buf, (int)size, MPI_CHAR, right, last ? TAG_STOP : TAG_GO, MPI_COMM_WORLD);
            MPI_Recv(buf, (int)size, MPI_CHAR, left, MPI_ANY_TAG, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
            rounds++;
        } while (!last);
    } else {
        MPI_Status st;
        do {
            MPI_Recv(buf, (int)size, MPI_CHAR, left, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
            MPI_Send(buf, (int)size, MPI_CHAR, right, st.MPI_TAG, MPI_COMM_WORLD);
            rounds++;
        } while (st.MPI_TAG == TAG_GO);
    }
    *secs = MPI_Wtime() - t0;
    return rounds;
}

int main(int argc, char **argv)
{
    int rank, nranks;
    struct bench_opts o;
    long sizes[BENCH_MAX_SIZES];

    MPI_Init(&argc, &argv);
    double t_start = MPI_Wtime();
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);

    int rc = bench_parse(argc, argv, rank, usage,
                         BENCH_OPT_TIME, &o);
    if (rc != 0) {
        MPI_Finalize();
        return rc < 0 ? 2 : 0;
    }
    if (nranks < 2) {
        if (rank == 0)
            fprintf(stderr, "ring: needs at least 2 ranks, got %d (try: -n 4)\n", nranks);
        MPI_Finalize();
        return 2;
    }
    int n = o.n_sizes;
    if (n > 0) {
        memcpy(sizes, o.sizes, (size_t)n * sizeof(long));
    } else {
        sizes[0] = 8; sizes[1] = 1L << 10; sizes[2] = 64L << 10; sizes[3] = 1L << 20;
        n = 4;
    }
    double budget = o.seconds > 0.0 ? o.seconds : (o.quick ? 0.1 : 0.5);
    long warmup = o.warmup >= 0 ? o.warmup : (o.quick ? 2 : RING_WARMUP);
    long max = 0;
    for (int i = 0; i < n; i++)
        max = sizes[i] > max ? sizes[i] : max;
    char *buf = bench_alloc(max);
    if (!buf) {
        fprintf(stderr, "ring: rank %d cannot allocate %ld bytes\n", rank, max);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }

    if (rank == 0) {
        char lib[256];
        bench_library(lib, sizeof(lib));
        printf("# rdmach bench ring: %d ranks pass a token around the ring 0 -> 1 -> ... -> %d "
               "-> 0\n", nranks, nranks - 1);
        bench_print_library_cpu(lib);
    }
    print_layout(rank, nranks);
    if (rank == 0) {
        printf("# each size: %ld warm-up rounds, then rounds for %.2f s; per-hop = round / %d\n",
               warmup, budget, nranks);
        printf("# %-10s%22s%18s%12s\n", "Size", "Per-hop latency (us)", "Round trip (us)",
               "Rounds");
        fflush(stdout);
    }

    for (int s = 0; s < n; s++) {
        double secs = 0.0;
        if (warmup > 0)
            run_rounds(rank, nranks, buf, sizes[s], 0.0, warmup, &secs);
        long rounds = run_rounds(rank, nranks, buf, sizes[s], budget, RING_MAX_ROUNDS, &secs);
        if (rank == 0) {
            double round_us = secs * 1e6 / (double)rounds;
            printf("%-12ld%22.3f%18.3f%12ld\n", sizes[s], round_us / nranks, round_us, rounds);
            fflush(stdout);
        }
    }

    if (rank == 0)
        printf("# total time: %.2f s for %d sizes on %d ranks (from MPI_Init to the last round)\n",
               MPI_Wtime() - t_start, n, nranks);
    free(buf);
    MPI_Finalize();
    return 0;
}
