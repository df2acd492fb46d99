/*
 * barrier: MPI_Barrier latency, OSU style (osu_barrier): after untimed
 * warm-up barriers, every rank times a loop of barriers; the latency is the
 * loop's time over its iterations, and the average, least and largest over
 * the ranks are printed.
 *
 * Plain MPI C: builds unchanged with rdmach's mpicc, mpicc.mpich and
 * mpicc.openmpi (bench_util.h). Built against rdmach (mpi.h defines
 * RDMACH_MPI) it also prints the barrier backend that ran, and when that is
 * `hwsim` — the model of the two-state AND/OR hardware barrier, chosen with
 * RDMACH_BARRIER=hwsim — a second, instrumented loop measures the model's
 * parameters and the printout compares the measured t_b with the model
 *     t_b = o_w + o_p(P) + o_r
 * built from them (o_w: writing the OUT wire; o_p(P): the model settling
 * over P wires after the last write; o_r: the read that sees IN toggle).
 * The comparison is a benchmark figure, not a test: timing depends on the
 * machine and its load. With more ranks than cores a rank's wait includes
 * being scheduled, which the model does not have; the printout says so.
 *
 * Output: "# ..." header lines, then "0 <avg us> <min us> <max us> <iters>"
 * (the leading 0 is the message size column of the other programs).
 */
#include "bench_util.h"
#include <unistd.h>
#ifdef RDMACH_MPI
#include <rdmach.h>
#endif

static const char *usage = "[--quick] [--iters N] [--warmup N] [--time S]\n"
                           "  default 10000 timed barriers after 1000 warm-up ones;\n"
                           "  --time S: as many as take about S seconds at the warm-up's pace\n"
                           "  (at least 10, at most --iters)";

/* Time `iters` barriers; the per-barrier latency in us, averaged over ranks,
 * with the least and largest rank's. */
static void timed(long iters, int nranks, double *avg, double *min, double *max)
{
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (long i = 0; i < iters; i++)
        MPI_Barrier(MPI_COMM_WORLD);
    double us = (MPI_Wtime() - t0) * 1e6 / (double)iters, sum = 0.0;
    MPI_Allreduce(&us, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&us, min, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&us, max, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    *avg = sum / nranks;
}

#ifdef RDMACH_MPI
static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The per-barrier time of `iters` barriers timed in chunks of CHUNK: the
 * median chunk (a chunk in which a rank was descheduled does not count). */
#define CHUNK 64
static double median_chunks(long iters)
{
    long n = iters / CHUNK > 0 ? iters / CHUNK : 1;
    double *c = malloc((size_t)n * sizeof(double));
    if (!c)
        return 0.0;
    MPI_Barrier(MPI_COMM_WORLD);
    for (long k = 0; k < n; k++) {
        double t0 = MPI_Wtime();
        for (int i = 0; i < CHUNK; i++)
            MPI_Barrier(MPI_COMM_WORLD);
        c[k] = (MPI_Wtime() - t0) * 1e6 / CHUNK;
    }
    qsort(c, (size_t)n, sizeof(double), cmp_double);
    double m = c[n / 2];
    free(c);
    return m;
}

/* The hwsim model's parameters, combined over the ranks, and the check. */
static void hwsim_model(long iters, int rank, int nranks, double t_b_mean)
{
    struct rdmach_barrier_model m;
    double t_b = median_chunks(iters), t_b_all = 0.0;
    MPI_Allreduce(&t_b, &t_b_all, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    t_b = t_b_all / nranks;
    rdmach_barrier_model_measure(1);
    MPI_Barrier(MPI_COMM_WORLD);
    for (long i = 0; i < iters; i++)
        MPI_Barrier(MPI_COMM_WORLD);
    rdmach_barrier_model_measure(0);
    rdmach_barrier_model_get(&m);
    /* sums, and the ranks' medians (settle: only ranks that flipped) */
    double mine[11] = { (double)m.barriers, (double)m.flips, m.write_ns, m.settle_ns, m.read_ns,
                        m.barrier_ns, m.write_med_ns, m.flips ? m.settle_med_ns : 0.0,
                        m.read_med_ns, m.flips ? 1.0 : 0.0, m.barrier_med_ns };
    double all[11];
    MPI_Allreduce(mine, all, 11, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (rank != 0)
        return;
    if (all[0] == 0 || all[1] == 0 || all[9] == 0) {
        printf("# hwsim: no model parameters were measured\n");
        return;
    }
    double o_w = all[6] / nranks / 1e3, o_p = all[7] / all[9] / 1e3, o_r = all[8] / nranks / 1e3;
    double pred = o_w + o_p + o_r, ratio = t_b / pred;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    printf("# hwsim model, P = %d: medians over %.0f barriers x ranks (%.0f settles flipped the state)\n",
           nranks, all[0], all[1]);
    printf("#   o_w     write OUT                      %8.4f us   (mean %.4f)\n", o_w,
           all[2] / all[0] / 1e3);
    printf("#   o_p(P)  the model settles, P = %-3d     %8.4f us   (mean %.4f)\n", nranks, o_p,
           all[3] / all[1] / 1e3);
    printf("#   o_r     the read that sees IN toggle   %8.4f us   (mean %.4f)\n", o_r,
           all[4] / all[0] / 1e3);
    printf("#   predicted t_b = o_w + o_p(P) + o_r     %8.4f us\n", pred);
    printf("#   measured  t_b                          %8.4f us   (median of %d-barrier chunks; the "
           "timed loop's mean %.4f; instrumented barriers: median %.4f)\n", t_b, CHUNK, t_b_mean,
           all[10] / nranks / 1e3);
    printf("#   measured / predicted = %.3f: %s 20%%%s\n", ratio,
           ratio >= 0.8 && ratio <= 1.2 ? "within" : "NOT within",
           nranks > cores ? "  (more ranks than cores: a rank's wait includes being scheduled, "
                            "which the model does not have)" : "");
}
#endif

int main(int argc, char **argv)
{
    struct bench_opts o;
    int rank, nranks;
    char lib[128];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    int rc = bench_parse(argc, argv, rank, usage, BENCH_OPT_ITERS | BENCH_OPT_TIME, &o);
    if (rc != 0) {
        MPI_Finalize();
        return rc < 0 ? 2 : 0;
    }
    long iters = bench_iters(&o, 0, 10000, 10000);
    long warmup = bench_warmup(&o, 0, 1000, 1000);
    bench_library(lib, sizeof(lib));
    /* the first barrier may set things up: not part of the pace */
    if (warmup > 0)
        MPI_Barrier(MPI_COMM_WORLD);
    double tw = MPI_Wtime();
    for (long i = 1; i < warmup; i++)
        MPI_Barrier(MPI_COMM_WORLD);
    tw = MPI_Wtime() - tw;
    if (o.seconds > 0.0) {
        /* A time budget: libraries whose barrier takes milliseconds when
         * oversubscribed (busy-polling ones) run few, fast ones many. Every
         * rank takes the slowest rank's pace, so all run the same count. */
        double pace = warmup > 1 ? tw / (double)(warmup - 1) : 0.0, slowest = 0.0;
        MPI_Allreduce(&pace, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        long fit = slowest > 0.0 ? (long)(o.seconds / slowest) : iters;
        iters = fit < 10 ? 10 : fit < iters ? fit : iters;
    }
    double avg, min, max;
    timed(iters, nranks, &avg, &min, &max);
    if (rank == 0) {
        printf("# barrier: MPI_Barrier latency, %d ranks, %ld iterations\n", nranks, iters);
        bench_print_library_cpu(lib);
#ifdef RDMACH_MPI
        printf("# rdmach barrier backend: %s\n", rdmach_barrier_backend());
#endif
        printf("# Size  Avg Latency(us)  Min(us)  Max(us)  Iterations\n");
        printf("0 %.3f %.3f %.3f %ld\n", avg, min, max, iters);
        fflush(stdout);
    }
#ifdef RDMACH_MPI
    if (strcmp(rdmach_barrier_backend(), "hwsim") == 0)
        hwsim_model(iters, rank, nranks, avg);
#endif
    MPI_Finalize();
    return 0;
}
