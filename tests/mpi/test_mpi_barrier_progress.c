/*
 * A rank waiting in MPI_Barrier keeps serving what needs its progress: here,
 * one-sided accumulates that the target itself executes (RDMACH_RMA_PATH=am)
 * arriving over the network channel from another (pretend) node.
 *
 * Layout: 4 ranks, RDMACH_VNODE_SIZE=2, so nodes {0, 1} and {2, 3}; rank 2,
 * the origin, reaches ranks 0 and 1 only over the network channel. In each
 * phase a target T enters a barrier at once; the barrier cannot complete
 * before a gatekeeper G enters it, and G enters only once the origin has
 * finished ROUNDS rounds of MPI_Accumulate + MPI_Win_flush to T (the origin
 * tells G with a message). Each flush needs T's progress, so all of them
 * happen while T waits in the barrier:
 *
 *   phase  barrier of        T  G  T waits as
 *   shm    node {0, 1}       0  1  a shm-backend rank (counter or flags)
 *   member world (hier)      1  0  a hier member waiting for its leader
 *   leader world (hier)      0  1  a hier leader waiting for its member
 *
 * A barrier that progresses the device only now and then (say after each
 * timed sleep on its own futex) serves one flush per sleep: the phases then
 * take ROUNDS sleeps each, far beyond the ctest TIMEOUT, and the test fails
 * by timing out. No time is measured here. Afterwards T checks that every
 * accumulate landed, and the barrier backend is the one each phase is for.
 *
 * Usage: test_mpi_barrier_progress [rounds]
 */
#include <stdlib.h>
#include <string.h>
#include <rdmach.h>
#include "mpi_test.h"

#define TAG_DONE 77

static int rounds = 3000;

/* One phase: `origin` accumulates into `target`'s counter `rounds` times,
 * flushing each, then tells `gate`, which enters the barrier on `comm`
 * only then; every other rank of `comm` enters it at once. */
static void phase(int id, const char *name, MPI_Comm comm, const char *backend, MPI_Win win,
                  int *counter, int target, int gate, int origin)
{
    int me;
    MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &me));
    if (me == origin) {
        const int one = 1;
        for (int k = 0; k < rounds; k++) {
            MPI_OK(MPI_Accumulate(&one, 1, MPI_INT, target, id, 1, MPI_INT, MPI_SUM, win));
            MPI_OK(MPI_Win_flush(target, win));
        }
        MPI_OK(MPI_Send(NULL, 0, MPI_BYTE, gate, TAG_DONE, MPI_COMM_WORLD));
    }
    if (me == gate)
        MPI_OK(MPI_Recv(NULL, 0, MPI_BYTE, origin, TAG_DONE, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    if (comm != MPI_COMM_NULL) {
        MPI_OK(MPI_Barrier(comm));
        CHECK(strcmp(rdmach_barrier_backend(), backend) == 0,
              "phase %s: the barrier ran backend '%s', expected '%s'", name, rdmach_barrier_backend(), backend);
    }
    if (me == target) {
        MPI_OK(MPI_Win_sync(win));
        int got = __atomic_load_n(&counter[id], __ATOMIC_ACQUIRE);
        CHECK(got == rounds, "phase %s: %d accumulates of %d landed", name, got, rounds);
    }
    /* the next phase starts together (the world barrier is under test: not that) */
    int one = 1, all = 0;
    MPI_OK(MPI_Allreduce(&one, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
}

int main(int argc, char **argv)
{
    MPI_OK(MPI_Init(&argc, &argv));
    int size;
    MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &mt_rank));
    MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    if (argc > 1)
        rounds = atoi(argv[1]);
    CHECK(rounds > 0, "usage: %s [rounds > 0]", argv[0]);
    CHECK(size == 4, "run with 4 ranks (RDMACH_VNODE_SIZE=2), not %d", size);
    const char *vn = getenv("RDMACH_VNODE_SIZE");
    CHECK(vn && atoi(vn) == 2, "run with RDMACH_VNODE_SIZE=2 (the origin must be on another node)");

    /* the node as MPI sees it must be the pretend one */
    MPI_Comm shared;
    MPI_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &shared));
    int nlocal;
    MPI_OK(MPI_Comm_size(shared, &nlocal));
    CHECK(nlocal == 2, "MPI_COMM_TYPE_SHARED has %d ranks, expected 2 (RDMACH_VNODE_SIZE=2)", nlocal);
    MPI_Comm node;
    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, mt_rank / 2, mt_rank, &node));

    int *counter;
    MPI_Win win;
    /* a counter per phase */
    MPI_OK(MPI_Win_allocate(3 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &counter, &win));
    memset(counter, 0, 3 * sizeof(int));
    MPI_OK(MPI_Win_lock_all(0, win));
    /* A communicator's first barrier chooses and sets up its backend (with
     * messages): done here, so the phases wait in the backends' own waits. */
    MPI_OK(MPI_Barrier(node));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));

    phase(0, "shm", node, "shm", win, counter, 0, 1, 2);
    phase(1, "member", MPI_COMM_WORLD, "hier", win, counter, 1, 0, 2);
    phase(2, "leader", MPI_COMM_WORLD, "hier", win, counter, 0, 1, 2);

    MPI_OK(MPI_Win_unlock_all(win));
    MPI_OK(MPI_Win_free(&win));
    MPI_OK(MPI_Comm_free(&node));
    MPI_OK(MPI_Comm_free(&shared));
    if (mt_rank == 0)
        printf("barrier progress: 3 phases of %d accumulate+flush rounds served from inside MPI_Barrier\n",
               rounds);
    MPI_OK(MPI_Finalize());
    return 0;
}
