/*
 * rdmach-tune --p2p: measure the large-message strategies of the shared-
 * memory channel between ranks 0 and 1 (same node) on this machine and
 * write the thresholds as `tunable` lines of a tuning file (docs/TUNING.md):
 *
 *   SHM_CMA_FROM  rendezvous messages of at least this size go by single
 *                 copy (process_vm_readv) instead of the two-copy pipeline
 *   SHM_NT_FROM   the pipeline copies messages of at least this size into
 *                 the receive buffer with streaming stores (0: never)
 *
 * Per size, three variants (pipeline; pipeline with streaming stores; single
 * copy), each timed as `reps` runs of a ping-pong and of a window of
 * WINDOW messages then a reply (bench/bw's pattern), interleaved so that
 * noise hits all alike; a variant's figure is its best run, and its score
 * at a size the sum of its ping-pong and window times. The receiver decides
 * how a rendezvous moves (it reads rch_tun on every get), so both ranks set
 * the variant before each run. A threshold is the measured size from which
 * the variant loses least over all sizes (tune_pick.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/tunables.h"
#include "boot/boot.h"
#include "mpi/mpi_impl.h"
#include "tune_p2p.h"
#include "tune_pick.h"

#define WINDOW 16
enum { PIPE, PIPE_NT, CMA, NVAR };
static const char *const var_name[NVAR] = { "pipeline", "pipeline+nt", "single copy" };

static void set_variant(int v)
{
    rch_tun.shm_cma_from = v == CMA ? 0 : (size_t)1 << 30;
    rch_tun.shm_nt_from = v == PIPE_NT ? 1 : 0;
}

/* One run: ping-pong and window time per message, in seconds. */
static void run(char *s, char *r, long size, int me, int iters, double *pp, double *win)
{
    MPI_Request q[WINDOW];
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int i = 0; i < iters && me < 2; i++) {
        if (me == 0) {
            MPI_Send(s, (int)size, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
            MPI_Recv(r, (int)size, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(r, (int)size, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(s, (int)size, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
        }
    }
    *pp = (MPI_Wtime() - t0) / (2.0 * iters);
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    for (int i = 0; i < iters && me < 2; i++) {
        for (int k = 0; k < WINDOW; k++) {
            if (me == 0)
                MPI_Isend(s, (int)size, MPI_BYTE, 1, 2, MPI_COMM_WORLD, &q[k]);
            else
                MPI_Irecv(r, (int)size, MPI_BYTE, 0, 2, MPI_COMM_WORLD, &q[k]);
        }
        MPI_Waitall(WINDOW, q, MPI_STATUSES_IGNORE);
        if (me == 0)
            MPI_Recv(r, 1, MPI_BYTE, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        else
            MPI_Send(s, 1, MPI_BYTE, 0, 3, MPI_COMM_WORLD);
    }
    *win = (MPI_Wtime() - t0) / ((double)WINDOW * iters);
    /* rank 0's figures for everyone */
    double both[2] = { *pp, *win };
    MPI_Bcast(both, 2, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    *pp = both[0];
    *win = both[1];
}

int rch_tune_p2p(const long *sizes, int nsizes, int reps, const char *out, int me, int p)
{
    if (p < 2 || rch_boot.node_of[0] != rch_boot.node_of[1]) {
        if (me == 0)
            fprintf(stderr, "rdmach-tune --p2p: needs ranks 0 and 1 on one node (%s)\n",
                    p < 2 ? "run it with 2 ranks" : "they are on different nodes");
        return 2;
    }
    if (rch_tun.cma == RCH_CMA_OFF || rch_tun.shm_get != RCH_SHM_GET_AUTO) {
        if (me == 0)
            fprintf(stderr, "rdmach-tune --p2p: RDMACH_CMA=off or RDMACH_SHM_GET set: there is "
                    "no choice to measure\n");
        return 2;
    }
    long max = sizes[nsizes - 1];
    char *s = malloc((size_t)max), *r = malloc((size_t)max);
    double (*score)[NVAR] = calloc((size_t)nsizes, sizeof(*score));
    double (*pp)[NVAR] = calloc((size_t)nsizes, sizeof(*pp)), (*win)[NVAR] = calloc((size_t)nsizes, sizeof(*win));
    if (!s || !r || !score || !pp || !win) {
        fprintf(stderr, "rdmach-tune --p2p: rank %d: no memory for %ld-byte buffers\n", me, max);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    memset(s, me + 1, (size_t)max);
    memset(r, 0, (size_t)max);
    size_t keep_from = rch_tun.shm_cma_from, keep_nt = rch_tun.shm_nt_from;
    struct rch_boot_machine m;
    rch_boot_machine_caches(&m);
    if (me == 0)
        printf("rdmach-tune --p2p: ranks 0 and 1 of one node; L2 %zu KiB, L%d %zu KiB, %d cpus; "
               "sizes %ld .. %ld bytes, best of %d runs\n", m.l2 >> 10, m.llc_level, m.llc >> 10, m.cpus,
               sizes[0], max, reps);
    for (int i = 0; i < nsizes; i++) {
        int iters = sizes[i] >= (1L << 24) ? 4 : sizes[i] >= (1L << 20) ? 20 : 200;
        for (int v = 0; v < NVAR; v++)
            pp[i][v] = win[i][v] = 1e30;
        for (int k = 0; k < reps; k++)
            for (int v = 0; v < NVAR; v++) {
                double a, b;
                set_variant(v);
                run(s, r, sizes[i], me, k == 0 ? 2 : iters, &a, &b);   /* run 0 warms up */
                if (k == 0 && reps > 1)
                    continue;
                pp[i][v] = a < pp[i][v] ? a : pp[i][v];
                win[i][v] = b < win[i][v] ? b : win[i][v];
            }
        for (int v = 0; v < NVAR; v++)
            score[i][v] = pp[i][v] + win[i][v];
        if (me == 0) {
            printf("  %10ld B", sizes[i]);
            for (int v = 0; v < NVAR; v++)
                printf("   %s %8.1f us %7.0f MB/s", var_name[v], pp[i][v] * 1e6, sizes[i] / win[i][v] / 1e6);
            printf("\n");
            fflush(stdout);
        }
    }

    const int pipes[] = { PIPE, PIPE_NT };
    int cma_i = rch_tune_pick_from(&score[0][0], nsizes, NVAR, CMA, pipes, 2);
    const int plain[] = { PIPE };
    int nt_i = rch_tune_pick_from(&score[0][0], cma_i, NVAR, PIPE_NT, plain, 1);
    size_t cma_from = cma_i < nsizes ? (size_t)sizes[cma_i] : (size_t)1 << 30;
    size_t nt_from = nt_i < cma_i ? (size_t)sizes[nt_i] : 0;
    int rc = 0;
    if (me == 0) {
        FILE *f = fopen(out, "w");
        if (!f) {
            fprintf(stderr, "rdmach-tune: cannot write %s: %s\n", out, strerror(errno));
            rc = 1;
        } else {
            fprintf(f, "# rdmach tuning file (docs/TUNING.md), written by rdmach-tune --p2p\n");
            fprintf(f, "# machine: L2 %zu KiB, L%d %zu KiB, %d cpus\n", m.l2 >> 10, m.llc_level,
                    m.llc >> 10, m.cpus);
            fprintf(f, "# size (bytes)   ping-pong us and window MB/s: pipeline | pipeline+nt | single copy\n");
            for (int i = 0; i < nsizes; i++) {
                fprintf(f, "# %10ld", sizes[i]);
                for (int v = 0; v < NVAR; v++)
                    fprintf(f, "  %8.1f %7.0f", pp[i][v] * 1e6, sizes[i] / win[i][v] / 1e6);
                fprintf(f, "\n");
            }
            fprintf(f, "rdmach-tuning 1\n");
            fprintf(f, "tunable SHM_CMA_FROM %zu\n", cma_from);
            fprintf(f, "tunable SHM_NT_FROM %zu\n", nt_from);
            if (fclose(f) != 0) {
                fprintf(stderr, "rdmach-tune: writing %s failed: %s\n", out, strerror(errno));
                rc = 1;
            } else if (rch_base_tun_file(out) != RDMACH_OK) {
                fprintf(stderr, "rdmach-tune: the file written does not load back: %s\n",
                        rdmach_last_error());
                rc = 1;
            } else {
                printf("single copy from %zu bytes, streaming stores %s%zu; wrote %s: use it with "
                       "RDMACH_TUNING_FILE=%s\n", cma_from, nt_from ? "from " : "never ", nt_from,
                       out, out);
            }
        }
    }
    /* (loading it back set them) */
    rch_tun.shm_cma_from = keep_from;
    rch_tun.shm_nt_from = keep_nt;
    MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
    free(s);
    free(r);
    free(score);
    free(pp);
    free(win);
    return rc;
}
