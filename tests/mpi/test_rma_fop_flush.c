/*
 * Passive-target fetch-and-op under contention (MPI-4.0 §12.3.4, §12.5.4):
 * every rank but 0 adds 1 to one MPI_LONG counter in rank 0's window with
 * MPI_Fetch_and_op(MPI_SUM), then MPI_Win_flush, argv[1] times, inside one
 * MPI_Win_lock_all epoch, while rank 0 waits in MPI_Barrier (a passive
 * target: only its progress answers). Accumulate operations are atomic per
 * element, so the values fetched by all origins together are exactly
 * 0, 1, ..., total - 1, each once, and the counter ends at total.
 *
 * Over tcp (RDMACH_VNODE_SIZE=1) each flush is a round trip through the
 * target's wait (the path of test_conf_rma_atomics_np3_tcp's stalls). Those
 * came from the network channel arming its wait after the provider had
 * moved a packet into the ring (a 100 ms sleep each time); whether a round
 * trip hits that depends on preemption between the last poll and the arm,
 * so this test only rarely met it: net_wait_arm_after_progress (tests/net)
 * is the deterministic regression test of that fix.
 */
#include "mpi_test.h"

int main(int argc, char **argv)
{
    int me, np;
    mt_init(&argc, &argv, &me, &np);
    int n = argc > 1 ? atoi(argv[1]) : 1000;
    CHECK(np >= 2 && n > 0, "needs 2 or more ranks and a positive count (np %d, n %d)", np, n);
    long counter = 0;
    MPI_Win win;
    MPI_OK(MPI_Win_create(&counter, me == 0 ? sizeof(long) : 0, sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    long *got = calloc((size_t)n, sizeof(long));
    CHECK(got != NULL, "no memory");
    MPI_OK(MPI_Win_lock_all(0, win));
    if (me != 0) {
        const long one = 1;
        for (int i = 0; i < n; i++) {
            MPI_OK(MPI_Fetch_and_op(&one, &got[i], MPI_LONG, 0, 0, MPI_SUM, win));
            MPI_OK(MPI_Win_flush(0, win));
        }
    }
    MPI_OK(MPI_Win_unlock_all(win));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));

    long total = (long)n * (np - 1);
    long *all = me == 0 ? malloc(sizeof(long) * (size_t)n * (size_t)np) : NULL;
    MPI_OK(MPI_Gather(got, n, MPI_LONG, all, n, MPI_LONG, 0, MPI_COMM_WORLD));
    if (me == 0) {
        CHECK(counter == total, "the counter is %ld after %ld additions of 1", counter, total);
        unsigned char *seen = calloc((size_t)total, 1);
        CHECK(seen != NULL, "no memory");
        for (int r = 1; r < np; r++)
            for (int i = 0; i < n; i++) {
                long v = all[(size_t)r * (size_t)n + (size_t)i];
                CHECK(v >= 0 && v < total && !seen[v], "rank %d's fetch %d returned %ld (%s)", r, i, v,
                      v < 0 || v >= total ? "outside 0..total-1" : "fetched twice: not atomic");
                seen[v] = 1;
            }
        /* each origin's own fetches increase: its flushes order them */
        for (int r = 1; r < np; r++) {
            const long *v = all + (size_t)r * (size_t)n;
            for (int i = 1; i < n; i++)
                CHECK(v[i] > v[i - 1], "rank %d: fetch %d (%ld) not after fetch %d (%ld)", r, i, v[i], i - 1, v[i - 1]);
        }
        printf("rma_fop_flush: %d origins x %d fetch-and-op + flush: the %ld fetched values are 0..%ld once each\n",
               np - 1, n, total, total - 1);
        free(seen);
    }
    free(all);
    free(got);
    MPI_OK(MPI_Win_free(&win));
    MPI_Finalize();
    return 0;
}
