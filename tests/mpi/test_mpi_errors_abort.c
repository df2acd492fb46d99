/*
 * MPI_ERRORS_ABORT ends the processes of the object it is raised on only
 * (src/mpi/err_abort.c; under rdmachrun, which ends the ranks an abort
 * names). World is split into {0, 1} and {2, 3}. The argument says where
 * rank 2 raises an error:
 *   comm     on its half (a send to an invalid rank): ranks 2 and 3 end;
 *   win      on a window of its half (a put to an invalid rank): the same;
 *   session  on a session (an invalid pset index): rank 2 alone ends.
 * Rank 3, when it must end, waits for a message from rank 2 that never
 * comes (the job hangs if it is not ended); otherwise it lives on like
 * ranks 0 and 1. Rank 0 receives from rank 2 on world (MPI_ERRORS_RETURN)
 * until the receive fails because rank 2 is gone, then ranks 0 and 1 sum
 * over their half and rank 0 prints what it checked. The ctest wants
 * rdmachrun's report of the partial abort, that line and the abort's exit
 * code. The survivors cannot finalize (MPI_Finalize meets every rank of
 * world) and exit without it.
 */
#include <unistd.h>
#include "mpi_test.h"

int main(int argc, char **argv)
{
    int me, p;
    mt_init(&argc, &argv, &me, &p);
    CHECK(p == 4, "needs 4 ranks, not %d", p);
    MPI_Comm half;
    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, me / 2, me, &half));
    MPI_OK(MPI_Comm_set_errhandler(half, MPI_ERRORS_ABORT));
    /* Rank 2 raises its error only once every other rank has said it is
     * past this point: after a barrier it could leave before the others,
     * which would then find rank 2 or 3 gone inside the barrier. */
    if (me == 2)
        for (int k = 0; k < 3; k++)
            MPI_OK(MPI_Recv(NULL, 0, MPI_INT, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    else
        MPI_OK(MPI_Send(NULL, 0, MPI_INT, 2, 1, MPI_COMM_WORLD));
    const char *mode = argc > 1 ? argv[1] : "comm";
    int v = 0, alone = strcmp(mode, "session") == 0;
    MPI_Win win = MPI_WIN_NULL;
    if (strcmp(mode, "win") == 0) {
        MPI_OK(MPI_Win_create(&v, sizeof(v), sizeof(v), MPI_INFO_NULL, half, &win));
        MPI_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_ABORT));
        MPI_OK(MPI_Win_fence(0, win));
    }
    if (me == 2) {
        if (win != MPI_WIN_NULL) {
            MPI_Put(&v, 1, MPI_INT, 99, 0, 1, MPI_INT, win);   /* invalid rank: aborts ranks 2 and 3 */
        } else if (alone) {
            MPI_Session s;
            char name[64];
            int len = sizeof(name);
            MPI_OK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_ABORT, &s));
            MPI_Session_get_nth_pset(s, MPI_INFO_NULL, 1000, &len, name);   /* aborts rank 2 alone */
        } else {
            MPI_Send(&v, 1, MPI_INT, 99, 0, half);   /* invalid rank: aborts ranks 2 and 3 */
        }
        fprintf(stderr, "[rank 2] MPI_ERRORS_ABORT returned\n");
        _exit(3);
    }
    if (me == 3 && !alone) {
        MPI_Recv(&v, 1, MPI_INT, 0, 0, half, MPI_STATUS_IGNORE);   /* rank 2 sends nothing */
        fprintf(stderr, "[rank 3] was not ended with its communicator\n");
        _exit(3);
    }
    if (me == 3) {   /* not in the session: lives on until rank 2 is gone */
        int rc = MPI_Recv(&v, 1, MPI_INT, 2, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(rc != MPI_SUCCESS, "a receive from the aborted rank 2 succeeded");
        _exit(0);
    }
    if (me == 0) {
        int rc = MPI_Recv(&v, 1, MPI_INT, 2, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(rc != MPI_SUCCESS, "a receive from the aborted rank 2 succeeded");
    }
    int mine = me + 1, sum = 0;
    MPI_OK(MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, half));
    CHECK(sum == 3, "the sum over ranks 0 and 1 is %d, expected 3", sum);
    if (me == 0) {
        printf("errors_abort: ranks 0 and 1 continued after rank 2 was gone (sum %d)\n", sum);
        fflush(stdout);
    }
    _exit(0);
}
