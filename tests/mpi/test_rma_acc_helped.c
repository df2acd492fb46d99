/*
 * A large contiguous accumulate to a rank of this node in MPI_Win_create
 * memory is a read-modify-write by single copy (src/device/rma_ops.c rmw);
 * from RDMACH_SHM_CMA_SPLIT (256 KiB) the shared-memory channel may share
 * the copy with the target (shm_coop.c) and complete it later. That must not
 * turn the target to packets for the window's life: after the first
 * accumulate, every further one of 1 MiB is still applied by single copy
 * (the MPI_T counter rma_single_copy_rmw of the origin grows by one each;
 * with RDMACH_RMA_PATH=am, packets, by none). The target waits in
 * MPI_Barrier meanwhile, so its progress can help with the copies. The window is checked against win[i] = i +
 * ITERS * (3i + 1), the MPI_SUM of its initial values and ITERS
 * contributions 3i + 1 (MPI-4.1 section 12.3.4).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mpi_test.h"

enum { ITERS = 16, N = (1 << 20) / (int)sizeof(long long) };

int main(int argc, char **argv)
{
    int me, p;
    mt_init(&argc, &argv, &me, &p);
    struct mt_counter by_copy;
    mt_counter_open(&by_copy, "rma_single_copy_rmw");

    long long *win = malloc(sizeof(long long) * N), *src = malloc(sizeof(long long) * N);
    CHECK(win && src, "no memory");
    for (int i = 0; i < N; i++) {
        win[i] = i;
        src[i] = 3LL * i + 1;
    }
    MPI_Win w;
    MPI_OK(MPI_Win_create(win, (MPI_Aint)sizeof(long long) * N, sizeof(long long), MPI_INFO_NULL,
                          MPI_COMM_WORLD, &w));
    int target = p - 1;
    unsigned long long rmw = 0;
    if (me == 0 && target != 0) {
        MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, target, 0, w));
        MPI_OK(MPI_Accumulate(src, N, MPI_LONG_LONG, target, 0, N, MPI_LONG_LONG, MPI_SUM, w));
        MPI_OK(MPI_Win_flush(target, w));
        unsigned long long before = mt_counter_read(&by_copy);
        for (int it = 1; it < ITERS; it++) {
            MPI_OK(MPI_Accumulate(src, N, MPI_LONG_LONG, target, 0, N, MPI_LONG_LONG, MPI_SUM, w));
            MPI_OK(MPI_Win_flush(target, w));
        }
        rmw = mt_counter_read(&by_copy) - before;
        MPI_OK(MPI_Win_unlock(target, w));
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (me == target && target != 0) {
        for (int i = 0; i < N; i++) {
            long long want = i + (long long)ITERS * (3LL * i + 1);
            CHECK(win[i] == want, "win[%d] = %lld, want %lld", i, win[i], want);
        }
    }
    /* RDMACH_VNODE_SIZE=1: the target is on another (pretend) node, no
     * single copy; RDMACH_RMA_PATH=am: packets. */
    const char *path = getenv("RDMACH_RMA_PATH");
    int am = path && strcmp(path, "am") == 0;
    if (me == 0 && target != 0 && getenv("RDMACH_VNODE_SIZE") == NULL && (am || path == NULL))
        CHECK(rmw == (am ? 0u : (unsigned)ITERS - 1),
              "%llu of %d accumulates of %zu bytes after the first applied by single copy, want %d", rmw,
              ITERS - 1, N * sizeof(long long), am ? 0 : ITERS - 1);
    MPI_OK(MPI_Win_free(&w));
    mt_counter_close(&by_copy);
    if (me == 0)
        printf("rma_acc_helped: %d ranks, %llu of %d accumulates of %zu bytes after the first applied by "
               "single copy\n", p, rmw, ITERS - 1, N * sizeof(long long));
    free(win);
    free(src);
    MPI_Finalize();
    return 0;
}
