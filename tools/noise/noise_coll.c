/* rdmach-noise --coll (see noise_coll.h). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>
#include "device/noise.h"
#include "noise_coll.h"
#include "noise_report.h"

/* A batch lasts about 5 ms, several periods of usual noise, so that its
 * mean includes the noise's share rather than depending on whether a detour
 * happened to fall in it. */
enum { BATCH_NS = 5000000, BATCH_MIN = 10, BATCH_MAX = 200000 };

struct coll_case {
    const char *name;
    int count;      /* doubles; 0: barrier */
};

static const struct coll_case cases[] = {
    { "barrier", 0 }, { "allreduce 8 B", 1 }, { "allreduce 4 KiB", 512 },
};

/* One batch: the slowest rank's mean time per call, in ns (on rank 0). */
static int64_t batch(const struct coll_case *c, int calls, double *in, double *out)
{
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int i = 0; i < calls; i++) {
        if (c->count)
            MPI_Allreduce(in, out, c->count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        else
            MPI_Barrier(MPI_COMM_WORLD);
    }
    double t = (MPI_Wtime() - t0) / calls, tmax;
    MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    return (int64_t)(tmax * 1e9);
}

int noise_coll_run(int rank, int size, int reps)
{
    const struct rch_dev_noise_cfg *cfg = rch_dev_noise_config();
    int settings = cfg ? 2 : 1;
    uint64_t injected[2] = { 0, 0 }; /* detours on this rank during the batches of each setting */
    double in[512], out[512];
    int64_t *t[2] = { malloc((size_t)reps * sizeof(int64_t)), malloc((size_t)reps * sizeof(int64_t)) };
    if (!t[0] || !t[1]) {
        fprintf(stderr, "rdmach-noise: rank %d: no memory\n", rank);
        free(t[0]);
        free(t[1]);
        return 1;
    }
    for (int i = 0; i < 512; i++)
        in[i] = rank + i;
    if (rank == 0) {
        printf("rdmach-noise --coll: %d ranks, %d batches of ~%.0f ms per case and setting; "
               "a batch's figure is the slowest rank's mean time per call\n", size, reps, BATCH_NS * 1e-6);
        noise_print_injected(stdout);
        printf("%-16s %-9s %7s %10s %10s %10s %10s %8s\n", "collective", "noise", "calls", "min_us", "median_us",
               "mean_us", "p99_us", "mean x");
    }
    for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
        /* warm-up (connections, buffers), then the fastest of a few short
         * batches sizes the batches */
        int64_t warm = batch(&cases[k], BATCH_MIN, in, out);
        for (int i = 0; i < 5; i++) {
            int64_t w = batch(&cases[k], BATCH_MIN, in, out);
            warm = w < warm ? w : warm;
        }
        int calls = (int)(warm > 0 ? BATCH_NS / warm : BATCH_MAX);
        calls = calls < BATCH_MIN ? BATCH_MIN : calls > BATCH_MAX ? BATCH_MAX : calls;
        MPI_Bcast(&calls, 1, MPI_INT, 0, MPI_COMM_WORLD);
        for (int r = 0; r < reps; r++)
            for (int s = 0; s < settings; s++) {
                int on = settings == 2 && (s + r) % 2 == 0;
                rch_dev_noise_enable(on);
                uint64_t c0 = rch_dev_noise_count();
                t[on][r] = batch(&cases[k], calls, in, out);
                injected[on] += rch_dev_noise_count() - c0;
            }
        rch_dev_noise_enable(1);
        if (rank != 0)
            continue;
        struct noise_dist d[2];
        for (int s = 0; s < settings; s++)
            noise_dist_of(t[s], (size_t)reps, &d[s]);
        for (int s = 0; s < settings; s++)
            printf("%-16s %-9s %7d %10.2f %10.2f %10.2f %10.2f %8.2f\n", cases[k].name, s ? "injected" : "off",
                   calls, d[s].min * 1e-3, d[s].p50 * 1e-3, d[s].mean * 1e-3, d[s].p99 * 1e-3, d[s].mean / d[0].mean);
    }
    if (rank == 0 && !cfg)
        printf("(set RDMACH_NOISE, e.g. 1ms,50us, to compare with injected noise)\n");
    unsigned long long sum[2], mine[2] = { injected[0], injected[1] };
    MPI_Reduce(mine, sum, 2, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0 && cfg)
        printf("detours injected over all ranks: %llu during the batches with noise, %llu during those without\n",
               sum[1], sum[0]);
    free(t[0]);
    free(t[1]);
    return 0;
}
