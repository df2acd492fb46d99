/*
 * An origin that dies holding a target's accumulate lock
 * (src/device/rma_acclock.c): rank 1 accumulates into rank 0's
 * MPI_Win_create window by single-copy read-modify-write (rma_ops.c, rmw)
 * and _exits between its read and its write (RDMACH_RMA_RMW_DIE=2),
 * the lock taken. Ranks 0 and 2 learn of it by a receive from rank 1, which
 * must fail with MPI_ERR_PROC_ABORTED naming rank 1; then rank 0 (to its
 * own memory, under its own lock) and rank 2 (single-copy rmw, its MPI_T
 * counter rma_single_copy_rmw must grow) accumulate 3 and 2 into every
 * element. Without the take-over both spin on the lock for ever.
 * ARGS packet: rank 2 accumulates through a vector type of 1-int blocks
 * instead (ACCV packets, rma_vec.c: no rmw), which rank 0 applies inside
 * its progress while it waits for rank 2's word, before its own
 * accumulate: the waiter on the dead holder is then a packet handler.
 * Rank 0's window holds win[i] = i, so after: win[i] = i + 5 for i > 0;
 * win[0], which rank 1 was adding 1000 to, is 5 (its write never happened)
 * or 1005 (whole), nothing else (MPI-4.1 12.7: a failed process's
 * operation's effect is undefined, later ones must work). All within
 * LIMIT_S of the death.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "mpi_test.h"

enum { N = 64, TAG = 5, TARGET = 0, VICTIM = 1, LIVE = 2, LIMIT_S = 10 };

int main(int argc, char **argv)
{
    int rank, size;
    setenv("RDMACH_RMA_RMW_DIE", "2", 1);     /* world rank 1 */
    mt_init(&argc, &argv, &rank, &size);
    CHECK(size == 3, "run on 3 ranks");
    int packet = argc > 1 && strcmp(argv[1], "packet") == 0;
    int *mem = calloc(N, sizeof(int));
    CHECK(mem != NULL, "no memory");
    for (int i = 0; i < N; i++)
        mem[i] = i;
    MPI_Win win;
    MPI_OK(MPI_Win_create(mem, rank == TARGET ? N * (MPI_Aint)sizeof(int) : 0, sizeof(int), MPI_INFO_NULL,
                          MPI_COMM_WORLD, &win));
    MPI_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    MPI_Comm live;
    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, rank == VICTIM ? MPI_UNDEFINED : 0, rank, &live));
    MPI_OK(MPI_Win_lock_all(0, win));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    int x = 0, add = 1000;
    if (rank == VICTIM) {
        MPI_OK(MPI_Accumulate(&add, 1, MPI_INT, TARGET, 0, 1, MPI_INT, MPI_SUM, win));
        MPI_OK(MPI_Win_flush(TARGET, win));
        /* still here: the accumulate was no single-copy rmw; rank 0 says so */
        MPI_OK(MPI_Send(&x, 1, MPI_INT, TARGET, TAG, MPI_COMM_WORLD));
        MPI_OK(MPI_Win_unlock_all(win));
        MPI_Finalize();
        return 0;
    }
    int rc = MPI_Recv(&x, 1, MPI_INT, VICTIM, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    double t0 = MPI_Wtime();
    char text[MPI_MAX_ERROR_STRING] = "";
    int len = 0;
    MPI_Error_string(rc, text, &len);
    CHECK(mt_class(rc) == MPI_ERR_PROC_ABORTED && strstr(text, "rank 1") != NULL,
          "the receive from rank 1 (dead in its accumulate, or no single-copy rmw) returned class %d: %s",
          mt_class(rc), text);
    int v[N];
    for (int i = 0; i < N; i++)
        v[i] = rank == TARGET ? 3 : 2;
    struct mt_counter rmw;
    mt_counter_open(&rmw, "rma_single_copy_rmw");
    unsigned long long before = mt_counter_read(&rmw);
    if (rank == TARGET && packet)      /* rank 2's ACCV applied here, in this wait's progress */
        MPI_OK(MPI_Recv(&x, 1, MPI_INT, 1, TAG, live, MPI_STATUS_IGNORE));   /* rank 2 */
    if (rank == LIVE && packet) {
        MPI_Datatype every_other;
        MPI_OK(MPI_Type_vector(N / 2, 1, 2, MPI_INT, &every_other));
        MPI_OK(MPI_Type_commit(&every_other));
        for (int d = 0; d < 2; d++)
            MPI_OK(MPI_Accumulate(v, N / 2, MPI_INT, TARGET, d, 1, every_other, MPI_SUM, win));
        MPI_OK(MPI_Type_free(&every_other));
    } else {
        MPI_OK(MPI_Accumulate(v, N, MPI_INT, TARGET, 0, N, MPI_INT, MPI_SUM, win));
    }
    MPI_OK(MPI_Win_flush(TARGET, win));
    if (rank == LIVE && packet)
        MPI_OK(MPI_Send(&x, 1, MPI_INT, 0, TAG, live));   /* rank 0 */
    if (rank == LIVE)
        CHECK(packet ? mt_counter_read(&rmw) == before : mt_counter_read(&rmw) > before,
              "rank 2's accumulate was %sa single-copy rmw: the test tests nothing", packet ? "" : "not ");
    mt_counter_close(&rmw);
    MPI_OK(MPI_Win_unlock_all(win));
    MPI_OK(MPI_Barrier(live));
    double dt = MPI_Wtime() - t0;
    CHECK(dt < LIMIT_S, "the accumulates after the death took %.1f s", dt);
    if (rank == TARGET) {
        CHECK(mem[0] == 5 || mem[0] == 1005, "element 0: %d, expected 5 or 1005", mem[0]);
        for (int i = 1; i < N; i++)
            CHECK(mem[i] == i + 5, "element %d: %d, expected %d", i, mem[i], i + 5);
        printf("acc_lock_death %s: receive failed (%s); lock taken over; element 0 %d; %.3f s; PASS\n",
               packet ? "packet" : "rmw", text, mem[0], dt);
    }
    fflush(stdout);
    MPI_OK(MPI_Barrier(live));
    _exit(0);   /* a rank of the window's group is gone: its collective free cannot complete */
}
