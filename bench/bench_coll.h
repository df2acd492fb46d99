/*
 * The timing loop of the collective benchmarks (alltoall.c, allreduce.c),
 * after the OSU Micro-Benchmarks' osu_alltoall / osu_allreduce:
 *
 *   for each size:
 *     (with --validate: one call on patterned data, checked on every rank)
 *     repeat warm-up + iterations times:
 *       t0 = MPI_Wtime(); <collective>; time += MPI_Wtime() - t0 (after warm-up)
 *       MPI_Barrier                       (not timed: ranks start together)
 *     latency of a rank = time / iterations; print the average over ranks,
 *     the minimum and the maximum (MPI_Reduce of the per-rank figures)
 *
 * --time S (a time budget per size, for comparisons with libraries that
 * take milliseconds per call when oversubscribed): the iterations are as
 * many as take about S seconds at the warm-up's pace (the slowest rank's,
 * so every rank runs the same count; the first warm-up call, which may set
 * things up, not counted), at least 10 and at most --iters.
 *
 * Plain MPI C: builds unchanged with any mpicc. Output follows bench_util.h:
 * '#' lines are headers, then "size avg_us min_us max_us iterations".
 */
#ifndef RDMACH_BENCH_COLL_H
#define RDMACH_BENCH_COLL_H

#include "bench_util.h"

#define COLL_LOOP_SMALL 1000
#define COLL_LOOP_LARGE 100
#define COLL_SKIP_SMALL 100
#define COLL_SKIP_LARGE 10

/* One benchmark: run() does one collective of `size` bytes (per block for
 * alltoall); fill() and check() (for --validate) prepare the send buffer and
 * return the first wrong byte of the result, or -1. */
struct coll_bench {
    const char *name;          /* "alltoall" */
    const char *what;          /* header line: what one call does */
    long min_size;             /* smallest meaningful size (allreduce: 4) */
    long granule;              /* sizes are rounded down to a multiple (allreduce: 4) */
    long (*sbuf_bytes)(long size, int nranks);
    long (*rbuf_bytes)(long size, int nranks);
    void (*run)(char *sbuf, char *rbuf, long size);
    void (*fill)(char *sbuf, long size, int rank, int nranks);
    long (*check)(const char *rbuf, long size, int rank, int nranks);
};

static inline int coll_bench_main(const struct coll_bench *b, int argc, char **argv)
{
    static const char *usage =
        "[--quick] [--min-size N] [--max-size N] [--sizes a,b,..] [--iters N] [--warmup N] "
        "[--time S] [--validate]\n  sizes take K/M/G suffixes (binary); --time S: per size, as many "
        "iterations as take about S seconds at the warm-up's pace (at least 10, at most --iters)";
    int rank, nranks, errors = 0;
    struct bench_opts o;
    long sizes[BENCH_MAX_SIZES];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    int rc = bench_parse(argc, argv, rank, usage,
                         BENCH_OPT_RANGE | BENCH_OPT_ITERS | BENCH_OPT_TIME | BENCH_OPT_VALIDATE, &o);
    if (rc != 0) {
        MPI_Finalize();
        return rc < 0 ? 2 : 0;
    }
    if (o.n_sizes == 0 && o.max_size == BENCH_MAX_SIZE_DEFAULT)
        o.max_size = 1L << 20;               /* OSU's collective default: up to 1 MiB */
    if (o.n_sizes == 0 && o.min_size < b->min_size)
        o.min_size = b->min_size;
    int n = bench_sizes(&o, sizes);
    long max = 0;
    for (int i = 0; i < n; i++) {
        sizes[i] -= sizes[i] % b->granule;
        if (sizes[i] > max)
            max = sizes[i];
    }
    char *sbuf = bench_alloc(b->sbuf_bytes(max, nranks));
    char *rbuf = bench_alloc(b->rbuf_bytes(max, nranks));
    if (!sbuf || !rbuf) {
        fprintf(stderr, "%s: rank %d cannot allocate %ld + %ld bytes\n", b->name, rank,
                b->sbuf_bytes(max, nranks), b->rbuf_bytes(max, nranks));
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (rank == 0) {
        char lib[256];
        bench_library(lib, sizeof(lib));
        printf("# rdmach bench %s: %s, %d ranks (OSU-style: average over ranks of the mean "
               "time per call)\n", b->name, b->what, nranks);
        bench_print_library_cpu(lib);
        printf("# %-10s%18s%14s%14s%12s\n", "Size", "Avg Latency(us)", "Min(us)", "Max(us)",
               "Iterations");
        fflush(stdout);
    }
    for (int i = 0; i < n; i++) {
        long size = sizes[i];
        long iters = bench_iters(&o, size, COLL_LOOP_SMALL, COLL_LOOP_LARGE);
        long skip = bench_warmup(&o, size, COLL_SKIP_SMALL, COLL_SKIP_LARGE);
        if (o.validate) {
            int bad = 0, all_bad = 0;
            b->fill(sbuf, size, rank, nranks);
            memset(rbuf, 0, (size_t)b->rbuf_bytes(size, nranks));
            b->run(sbuf, rbuf, size);
            long off = b->check(rbuf, size, rank, nranks);
            if (off >= 0) {
                fprintf(stderr, "%s: validation failed: size %ld, rank %d: wrong byte at offset "
                        "%ld\n", b->name, size, rank, off);
                bad = 1;
            }
            MPI_Allreduce(&bad, &all_bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
            errors += all_bad;
        }
        double t = 0.0, tw = 0.0;
        MPI_Barrier(MPI_COMM_WORLD);
        for (long it = 0; it < skip; it++) {
            double t0 = MPI_Wtime();
            b->run(sbuf, rbuf, size);
            MPI_Barrier(MPI_COMM_WORLD);
            if (it > 0)
                tw += MPI_Wtime() - t0;
        }
        if (o.seconds > 0.0) {
            double pace = skip > 1 ? tw / (double)(skip - 1) : 0.0, slowest = 0.0;
            MPI_Allreduce(&pace, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            long fit = slowest > 0.0 ? (long)(o.seconds / slowest) : iters;
            iters = fit < 10 ? 10 : fit < iters ? fit : iters;
        }
        for (long it = 0; it < iters; it++) {
            double t0 = MPI_Wtime();
            b->run(sbuf, rbuf, size);
            t += MPI_Wtime() - t0;
            MPI_Barrier(MPI_COMM_WORLD);
        }
        double lat = t * 1e6 / (double)iters, sum = 0, mn = 0, mx = 0;
        MPI_Reduce(&lat, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
        MPI_Reduce(&lat, &mn, 1, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
        MPI_Reduce(&lat, &mx, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        if (rank == 0) {
            printf("%-12ld%18.3f%14.3f%14.3f%12ld\n", size, sum / nranks, mn, mx, iters);
            fflush(stdout);
        }
    }
    if (rank == 0 && o.validate)
        printf("# validation: %s\n", errors ? "FAILED" : "passed");
    free(sbuf);
    free(rbuf);
    MPI_Finalize();
    return errors ? 1 : 0;
}

#endif /* RDMACH_BENCH_COLL_H */
