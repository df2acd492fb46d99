/*
 * rdmach-sim-probe: the measurements `rdmach-sim calibrate` fits LogGOPS
 * parameters to, run on 2 ranks of the real library (rdmachrun -n 2; with
 * RDMACH_VNODE_SIZE=1 the pair talks over the network channel). Rank 0
 * prints one line per figure, each the minimum over repetitions (the
 * machine's own noise only ever adds):
 *   post NS          one MPI_Isend of 0 bytes, posting only        -> o
 *   stream B NS      per message of B bytes in a window of 64      -> g (B = 0), G (large B)
 *   pingpong B NS    round trip of B bytes (the fastest single one) -> L, O
 *   reduce B NS      MPI_Reduce_local of B bytes of doubles (SUM)  -> gamma
 *   eager B          the largest message sent eagerly to rank 1
 *
 * With --coll (any number of ranks; run it with RDMACH_BARRIER=dissemination):
 *   coll COLL ALGO B MIN_NS MEDIAN_NS   one call of every algorithm of
 *                    barrier, allreduce, bcast and alltoall (forced), the
 *                    slowest rank's time, over 30 calls each after a barrier
 * which `rdmach-sim validate` compares with its predictions.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>
#include "base/tunables.h"
#include "coll/coll.h"

enum { WINDOW = 64, REPS = 15 };

/* Each round trip timed alone: on a shared machine the minimum is the
 * channel's, a mean would be the scheduler's. */
static double pingpong(int me, char *buf, int bytes, int iters)
{
    double best = 1e30;
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < iters * REPS; i++) {
        double t0 = MPI_Wtime();
        if (me == 0) {
            MPI_Send(buf, bytes, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
            MPI_Recv(buf, bytes, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(buf, bytes, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(buf, bytes, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
        }
        double t = MPI_Wtime() - t0;
        best = t < best ? t : best;
    }
    return best * 1e9;
}

/* Rank 0 streams a window of messages, rank 1 acknowledges the window. */
static double stream(int me, char *buf, int bytes, double *post)
{
    MPI_Request rq[WINDOW];
    double best = 1e30, best_post = 1e30;
    for (int r = 0; r < REPS; r++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        if (me == 0) {
            for (int i = 0; i < WINDOW; i++)
                MPI_Isend(buf, bytes, MPI_BYTE, 1, 2, MPI_COMM_WORLD, &rq[i]);
            double tp = (MPI_Wtime() - t0) / WINDOW;
            best_post = tp < best_post ? tp : best_post;
            MPI_Waitall(WINDOW, rq, MPI_STATUSES_IGNORE);
            MPI_Recv(NULL, 0, MPI_BYTE, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            for (int i = 0; i < WINDOW; i++)
                MPI_Irecv(buf + (size_t)i * (size_t)bytes, bytes, MPI_BYTE, 0, 2, MPI_COMM_WORLD, &rq[i]);
            MPI_Waitall(WINDOW, rq, MPI_STATUSES_IGNORE);
            MPI_Send(NULL, 0, MPI_BYTE, 0, 3, MPI_COMM_WORLD);
        }
        double t = (MPI_Wtime() - t0) / WINDOW;
        best = t < best ? t : best;
    }
    if (post)
        *post = best_post * 1e9;
    return best * 1e9;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void one_call(enum rch_coll_id id, char *s, char *r, int bytes, int p)
{
    switch (id) {
    case RCH_COLL_BARRIER: MPI_Barrier(MPI_COMM_WORLD); break;
    case RCH_COLL_BCAST: MPI_Bcast(s, bytes, MPI_BYTE, 0, MPI_COMM_WORLD); break;
    case RCH_COLL_ALLREDUCE: MPI_Allreduce(s, r, bytes / 8, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); break;
    default: MPI_Alltoall(s, bytes, MPI_BYTE, r, bytes, MPI_BYTE, MPI_COMM_WORLD); break;
    }
    (void)p;
}

static int coll_mode(int me, int p)
{
    static const enum rch_coll_id ids[] = { RCH_COLL_BARRIER, RCH_COLL_ALLREDUCE, RCH_COLL_BCAST, RCH_COLL_ALLTOALL };
    static const int sizes[] = { 8, 1024, 65536 };
    enum { CALLS = 30 };
    char *s = calloc(1, (size_t)p * 65536), *r = calloc(1, (size_t)p * 65536);
    if (!s || !r)
        MPI_Abort(MPI_COMM_WORLD, 1);
    for (size_t k = 0; k < sizeof(ids) / sizeof(ids[0]); k++) {
        enum rch_coll_id id = ids[k];
        int nalgo = id == RCH_COLL_BARRIER ? 1 : rch_coll_algo_count(id);
        for (int a = 0; a < nalgo; a++) {
            const char *name = id == RCH_COLL_BARRIER ? "dissemination" : rch_coll_algo_name(id, a);
            if (strstr(name, "shmseg") || (id != RCH_COLL_BARRIER && rch_coll_force(id, name) != RDMACH_OK))
                continue;
            for (size_t z = 0; z < (id == RCH_COLL_BARRIER ? 1 : sizeof(sizes) / sizeof(sizes[0])); z++) {
                double t[CALLS];
                for (int w = 0; w < 3; w++)
                    one_call(id, s, r, sizes[z], p);
                if (id != RCH_COLL_BARRIER && strcmp(rch_coll_last_algo(id), name) != 0)
                    break;           /* it does not apply here: the selection ran another */
                for (int c = 0; c < CALLS; c++) {
                    MPI_Barrier(MPI_COMM_WORLD);
                    double t0 = MPI_Wtime();
                    one_call(id, s, r, sizes[z], p);
                    double mine = MPI_Wtime() - t0;
                    MPI_Allreduce(&mine, &t[c], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
                }
                qsort(t, CALLS, sizeof(double), cmp_d);
                if (me == 0)
                    printf("coll %s %s %d %.0f %.0f\n", rch_coll_name(id), name, id == RCH_COLL_BARRIER ? 0 : sizes[z],
                           t[0] * 1e9, t[CALLS / 2] * 1e9);
            }
            if (id != RCH_COLL_BARRIER)
                rch_coll_force(id, NULL);
        }
    }
    fflush(stdout);
    free(s);
    free(r);
    return 0;
}

int main(int argc, char **argv)
{
    int me, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc > 1 && !strcmp(argv[1], "--coll")) {
        int rc = coll_mode(me, size);
        MPI_Finalize();
        return rc;
    }
    if (size != 2) {
        if (me == 0)
            fprintf(stderr, "rdmach-sim-probe: run it on 2 ranks (rdmachrun -n 2)\n");
        MPI_Finalize();
        return 2;
    }
    static const int sizes[] = { 0, 64, 1024, 4096, 16384, 65536, 262144, 1048576 };
    size_t big = (size_t)WINDOW * 1048576;
    char *buf = calloc(1, big);
    if (!buf)
        MPI_Abort(MPI_COMM_WORLD, 1);
    double post;
    stream(me, buf, 0, &post);                     /* warm-up: connections */
    double s0 = stream(me, buf, 0, &post);
    if (me == 0)
        printf("post %.1f\nstream 0 %.1f\n", post, s0);
    for (size_t i = 1; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        double s = stream(me, buf, sizes[i], NULL);
        if (me == 0)
            printf("stream %d %.1f\n", sizes[i], s);
    }
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        double t = pingpong(me, buf, sizes[i], sizes[i] >= 262144 ? 5 : 50);
        if (me == 0)
            printf("pingpong %d %.1f\n", sizes[i], t);
    }
    if (me == 0) {
        int n = 1 << 17;
        double *a = (double *)buf, *b = a + n, best = 1e30;
        for (int r = 0; r < REPS; r++) {
            double t0 = MPI_Wtime();
            MPI_Reduce_local(a, b, n, MPI_DOUBLE, MPI_SUM);
            double t = MPI_Wtime() - t0;
            best = t < best ? t : best;
        }
        printf("reduce %zu %.1f\n", (size_t)n * sizeof(double), best * 1e9);
        /* the library's eager limit towards rank 1 (shm: its tunable; the
         * network channel's 64 KiB slots over tcp, docs of RDMACH_NET_SLOT_SIZE) */
        printf("eager %zu\n", rch_tun.vnode_size == 1 ? (size_t)65536 : rch_tun.shm_eager_max);
        fflush(stdout);
    }
    free(buf);
    MPI_Finalize();
    return 0;
}
