/*
 * persist: a persistent collective against its blocking form, in the same
 * run: MPI_Allreduce of one double (8 bytes, MPI_SUM) against
 * MPI_Allreduce_init once, then MPI_Start + MPI_Wait per operation (MPI 4.0).
 * Two persistent requests: one built before the communicator's first
 * collective ("early", as a library that sets up its requests at start-up),
 * one after a first blocking allreduce ("late", as in a time-step loop).
 *
 * The three loops alternate in rounds (blocking, early, late, blocking, ...)
 * so a change of the machine's load hits all; a round's time per operation
 * is the slowest rank's, and each form's figure is the median over the
 * rounds. The ratios persistent / blocking are printed with the CPU model: a
 * benchmark figure, not a test (timing depends on the machine and its load).
 *
 * Output: "# ..." header lines, then
 *   "<bytes> <blocking us> <early us> <late us> <early ratio> <late ratio>
 *    <rounds> <iters/round>"
 */
#include "bench_util.h"
#include <stdio.h>
#include <string.h>

static const char *usage = "[--quick] [--iters N]\n"
                           "  default 21 rounds of 2000 operations per form (--quick: 5 of 200)";

/* us per operation of `iters` operations, the slowest rank's. */
static double round_us(MPI_Request *req, long iters)
{
    double in = 1.0, out = 0.0;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (long i = 0; i < iters; i++) {
        if (req) {
            MPI_Start(req);
            MPI_Wait(req, MPI_STATUS_IGNORE);
        } else {
            MPI_Allreduce(&in, &out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        }
    }
    double us = (MPI_Wtime() - t0) * 1e6 / (double)iters, max = 0.0;
    MPI_Allreduce(&us, &max, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return max;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    int rank, nranks;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    struct bench_opts o;
    if (bench_parse(argc, argv, rank, usage, BENCH_OPT_ITERS, &o) != 0) {
        MPI_Finalize();
        return 1;
    }
    int rounds = o.quick ? 5 : 21;
    long iters = o.iters > 0 ? o.iters : o.quick ? 200 : 2000;
    double in = 1.0, out = 0.0, out2 = 0.0;
    MPI_Request early, late;
    double blk[64], per_e[64], per_l[64];
    if (rounds > 64)
        rounds = 64;
    MPI_Allreduce_init(&in, &out2, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &early);
    /* Warm-up: the communicator's first allreduce, then the late request. */
    round_us(NULL, iters / 4 + 1);
    MPI_Allreduce_init(&in, &out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &late);
    round_us(&early, iters / 4 + 1);
    round_us(&late, iters / 4 + 1);
    for (int r = 0; r < rounds; r++) {
        blk[r] = round_us(NULL, iters);
        per_e[r] = round_us(&early, iters);
        per_l[r] = round_us(&late, iters);
    }
    MPI_Request_free(&early);
    MPI_Request_free(&late);
    qsort(blk, (size_t)rounds, sizeof(double), cmp_double);
    qsort(per_e, (size_t)rounds, sizeof(double), cmp_double);
    qsort(per_l, (size_t)rounds, sizeof(double), cmp_double);
    if (rank == 0) {
        char cpu[128], lib[256];
        bench_cpu_model(cpu, sizeof(cpu));
        bench_library(lib, sizeof(lib));
        printf("# persist: MPI_Allreduce vs MPI_Allreduce_init + MPI_Start/MPI_Wait, 1 double, MPI_SUM\n");
        printf("# early: the request built before the first allreduce; late: after it\n");
        printf("# library: %s\n# cpu: %s\n# ranks: %d\n", lib, cpu, nranks);
        printf("# bytes blocking_us early_us late_us early_ratio late_ratio rounds iters\n");
        double b = blk[rounds / 2], e = per_e[rounds / 2], l = per_l[rounds / 2];
        printf("8 %.3f %.3f %.3f %.3f %.3f %d %ld\n", b, e, l, b > 0 ? e / b : 0.0, b > 0 ? l / b : 0.0, rounds,
               iters);
    }
    MPI_Finalize();
    return 0;
}
