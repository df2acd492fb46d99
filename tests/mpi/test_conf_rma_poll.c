/*
 * Passive target progress (MPI-4.0 §12.7, "Progress"): a rank that waits for
 * another by polling its own window with one-sided calls must still let the
 * other's lock and accumulate reach it. The last rank polls a flag in its
 * window, the others add 1 to it (MPI_Win_lock + MPI_Accumulate(MPI_SUM) +
 * MPI_Win_unlock, as OpenCoarrays' atomic_define does; an exclusive lock,
 * or a shared one while the poller holds lock_all), each poll being
 *   lock     MPI_Win_lock(EXCLUSIVE, self) + MPI_Fetch_and_op(MPI_NO_OP) +
 *            MPI_Win_unlock (OpenCoarrays' atomic_ref)
 *   sync     under MPI_Win_lock_all: MPI_Win_sync, a load, MPI_Win_flush(self)
 *            (its event_wait)
 *   fetch    under MPI_Win_lock_all: MPI_Fetch_and_op(MPI_NO_OP, self) +
 *            MPI_Win_flush(self)
 * and no other MPI call. Across nodes the lock and the accumulate travel as
 * packets that only the polling rank's own progress serves. A poll that has
 * not seen every flag after 10 s fails the test instead of hanging it.
 */
#include "mpi_test.h"

static int me, np;

static int poll_once(MPI_Win win, int *base, int mode)
{
    int v = 0;
    if (mode == 0) {
        MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, me, 0, win));
        MPI_OK(MPI_Fetch_and_op(NULL, &v, MPI_INT, me, 0, MPI_NO_OP, win));
        MPI_OK(MPI_Win_unlock(me, win));
    } else if (mode == 1) {
        MPI_OK(MPI_Win_sync(win));
        v = *(volatile int *)base;
        MPI_OK(MPI_Win_flush(me, win));
    } else {
        MPI_OK(MPI_Fetch_and_op(NULL, &v, MPI_INT, me, 0, MPI_NO_OP, win));
        MPI_OK(MPI_Win_flush(me, win));
    }
    return v;
}

int main(int argc, char **argv)
{
    static const char *mode_name[3] = { "lock", "sync", "fetch" };
    mt_init(&argc, &argv, &me, &np);
    CHECK(np >= 2, "needs 2 ranks or more");
    int poller = np - 1, *base;
    MPI_Win win;
    MPI_OK(MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
    for (int mode = 0; mode < 3; mode++) {
        *base = 0;
        MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
        if (me == poller) {
            if (mode > 0)
                MPI_OK(MPI_Win_lock_all(0, win));
            double t0 = MPI_Wtime();
            long polls = 0;
            int v = 0;
            while ((v = poll_once(win, base, mode)) < np - 1 && MPI_Wtime() - t0 < 10)
                polls++;
            if (mode > 0)
                MPI_OK(MPI_Win_unlock_all(win));
            CHECK(v == np - 1, "%s polls: %d of %d flags seen after %.1f s and %ld polls", mode_name[mode], v, np - 1,
                  MPI_Wtime() - t0, polls);
        } else {
            int one = 1;
            /* shared under the poller's lock_all (also shared): no conflict */
            MPI_OK(MPI_Win_lock(mode ? MPI_LOCK_SHARED : MPI_LOCK_EXCLUSIVE, poller, 0, win));
            MPI_OK(MPI_Accumulate(&one, 1, MPI_INT, poller, 0, 1, MPI_INT, MPI_SUM, win));
            MPI_OK(MPI_Win_unlock(poller, win));
        }
        MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    }
    MPI_OK(MPI_Win_free(&win));
    if (me == 0)
        printf("conf_rma_poll: %d ranks: a rank polling its own window serves the others' locks: ok\n", np);
    MPI_Finalize();
    return 0;
}
