/*
 * MPI_ERRORS_ABORT on a communicator ends the processes of that
 * communicator only (src/mpi/err_abort.c; under rdmachrun, which ends the
 * ranks an abort names). World is split into {0, 1} and {2, 3}, both halves
 * with MPI_ERRORS_ABORT: rank 2 sends to an invalid rank on its half, rank
 * 3 waits for a message from rank 2 that never comes (it must be ended, or
 * the job hangs). Ranks 0 and 1 must live on: rank 0 receives from rank 2
 * on world (MPI_ERRORS_RETURN) until the receive fails because rank 2 is
 * gone, then both sum over their half and rank 0 prints what it checked.
 * The ctest wants rdmachrun's report of the partial abort, that line and
 * the abort's exit code. The survivors cannot finalize (MPI_Finalize meets
 * every rank of world) and exit without it.
 */
#include <unistd.h>
#include "mpi_test.h"

int main(int argc, char **argv)
{
    int me, p;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    mt_rank = me;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CHECK(p == 4, "needs 4 ranks, not %d", p);
    MPI_Comm half;
    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, me / 2, me, &half));
    MPI_OK(MPI_Comm_set_errhandler(half, MPI_ERRORS_ABORT));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    int v = 0;
    if (me == 2) {
        MPI_Send(&v, 1, MPI_INT, 99, 0, half);   /* invalid rank: aborts ranks 2 and 3 */
        fprintf(stderr, "[rank 2] MPI_ERRORS_ABORT returned\n");
        _exit(3);
    }
    if (me == 3) {
        MPI_Recv(&v, 1, MPI_INT, 0, 0, half, MPI_STATUS_IGNORE);   /* rank 2 sends nothing */
        fprintf(stderr, "[rank 3] was not ended with its communicator\n");
        _exit(3);
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
