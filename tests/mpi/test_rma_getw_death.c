/*
 * An origin that dies while the target's GETW answer (src/device/rma_getw.c)
 * is in flight: the target must free nothing the channel still holds, see
 * the death as MPI_ERR_PROC_ABORTED naming that origin only, and go on
 * serving gets and puts with its live ranks, with the right data.
 *
 * Rank 0 (the target) exposes win[i] = 3 i + 1 (MPI_Win_create, 2 N ints).
 * Rank 1 (the victim) starts MPI_Rget of a vector of N blocks of 1 int,
 * stride 2 (one GETW of 4 MiB, written a chunk at a time into its buffer),
 * and calls _exit as soon as its progress has seen the first chunk land
 * (out[0] == 1) while the last has not (out[N - 1] == 0): the target has
 * started the answer and has not finished it. Rank 0, blocked in an
 * MPI_Recv from rank 1, must get MPI_ERR_PROC_ABORTED naming rank 1. Then
 * rank 2 (alive), once it too has seen the death, gets the same vector three times from rank 0 (the chunk
 * buffers the dead answer left to the spares), and rank 0 puts a vector
 * into rank 2's window and gets it back: every int is checked against the
 * values the map selects (MPI-4.1 12.3.2). Under the ASan build a chunk
 * buffer touched after it was freed ends rank 0 with a report.
 *
 * ARGS lost: the chunks go by the channel's two-copy pipeline
 * (RDMACH_CMA_REFUSE_WRITE=on, rma_getw_death.cmake), which only the
 * victim's progress drains, so when the victim leaves most of them are
 * still queued in rank 0's channel: rank 0's MPI_T counter
 * rma_getw_writes_lost must have grown, which shows the death hit chunk
 * writes in flight (not a race that let the answer finish first). Without
 * it (RDMACH_SHM_CMA_SPLIT small: chunks shared with the victim's
 * progress, shm_coop.c) whether any write was in flight when the victim
 * went is timing, and only the outcome is checked.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "mpi_test.h"

enum { N = 1 << 20, TAG = 7, GETS = 3, TARGET = 0, VICTIM = 1, LIVE = 2 };

static int expect_at(long i)
{
    return (int)(3 * i + 1);
}

/* The victim: leave once the answer has begun and before it has ended. */
static void victim(MPI_Win win, MPI_Datatype vec, int lost_mode)
{
    volatile int *out = calloc(N, sizeof(int));
    CHECK(out != NULL, "no memory");
    MPI_Request rq;
    MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, TARGET, 0, win));   /* held to its death: shared */
    MPI_OK(MPI_Rget((int *)out, N, MPI_INT, TARGET, 0, 1, vec, win, &rq));
    double t0 = MPI_Wtime();
    for (;;) {
        int done = 0;
        MPI_OK(MPI_Test(&rq, &done, MPI_STATUS_IGNORE));
        if (out[0] == expect_at(0) && ((out[N - 1] == 0 && !done) || !lost_mode))
            _exit(0);        /* with the GETW's answer half written (lost), or as it comes */
        CHECK(!done, "the get completed before any chunk was seen half way: raise N");
        CHECK(MPI_Wtime() - t0 < 20, "no chunk of the GETW came in 20 s");
    }
}

static void check_vector(const int *out, int rank_of, const char *what)
{
    for (long k = 0; k < N; k++)
        CHECK(out[k] == (rank_of == TARGET ? expect_at(2 * k) : (int)(5 * k + 2)),
              "%s: int %ld is %d", what, k, out[k]);
}

/* Rank 2: GETS gets of the vector from rank 0, each checked. */
static void live_gets(MPI_Win win, MPI_Datatype vec, int *out)
{
    for (int g = 0; g < GETS; g++) {
        memset(out, 0, sizeof(int) * N);
        MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, TARGET, 0, win));
        MPI_OK(MPI_Get(out, N, MPI_INT, TARGET, 0, 1, vec, win));
        MPI_OK(MPI_Win_unlock(TARGET, win));
        check_vector(out, TARGET, "rank 2's get from rank 0");
    }
}

/* Rank 0: a put of the vector into rank 2's window, then a get of it back. */
static void target_put_get(MPI_Win win, MPI_Datatype vec, int *out)
{
    for (long k = 0; k < N; k++)
        out[k] = (int)(5 * k + 2);
    MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, LIVE, 0, win));
    MPI_OK(MPI_Put(out, N, MPI_INT, LIVE, 0, 1, vec, win));
    MPI_OK(MPI_Win_unlock(LIVE, win));
    memset(out, 0, sizeof(int) * N);
    MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, LIVE, 0, win));
    MPI_OK(MPI_Get(out, N, MPI_INT, LIVE, 0, 1, vec, win));
    MPI_OK(MPI_Win_unlock(LIVE, win));
    check_vector(out, LIVE, "rank 0's put to rank 2 read back");
}

int main(int argc, char **argv)
{
    int rank, size;
    mt_init(&argc, &argv, &rank, &size);
    CHECK(size == 3, "run on 3 ranks");
    int lost_mode = argc > 1 && strcmp(argv[1], "lost") == 0;
    int *mem = calloc(2 * (size_t)N, sizeof(int)), *out = calloc(N, sizeof(int));
    CHECK(mem && out, "no memory");
    if (rank == TARGET)
        for (long i = 0; i < 2L * N; i++)
            mem[i] = expect_at(i);
    MPI_Win win;
    MPI_OK(MPI_Win_create(mem, rank == VICTIM ? 0 : 2 * (MPI_Aint)N * (MPI_Aint)sizeof(int), sizeof(int),
                          MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    MPI_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    MPI_Datatype vec;
    MPI_OK(MPI_Type_vector(N, 1, 2, MPI_INT, &vec));
    MPI_OK(MPI_Type_commit(&vec));
    MPI_Comm live;      /* ranks 0 and 2, made while all live */
    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, rank == VICTIM ? MPI_UNDEFINED : 0, rank, &live));
    struct mt_counter lost;
    if (rank == TARGET)
        mt_counter_open(&lost, "rma_getw_writes_lost");
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == VICTIM)
        victim(win, vec, lost_mode);

    int x = 0, verdict = 0;
    if (rank == TARGET) {
        unsigned long long before = mt_counter_read(&lost);
        int rc = MPI_Recv(&x, 1, MPI_INT, VICTIM, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        char text[MPI_MAX_ERROR_STRING] = "";
        int len = 0;
        MPI_Error_string(rc, text, &len);
        CHECK(mt_class(rc) == MPI_ERR_PROC_ABORTED && strstr(text, "rank 1") != NULL,
              "the receive from the dead origin returned class %d: %s", mt_class(rc), text);
        unsigned long long n = mt_counter_read(&lost) - before;
        CHECK(!lost_mode || n > 0, "rma_getw_writes_lost did not grow: no chunk write was in flight");
        printf("getw_death: rank 0: the receive from rank 1 failed (%s); %llu chunk writes lost\n", text, n);
        fflush(stdout);
        mt_counter_close(&lost);
        MPI_OK(MPI_Send(&x, 1, MPI_INT, 1, TAG, live));          /* rank 2 may start */
        MPI_OK(MPI_Recv(&verdict, 1, MPI_INT, 1, TAG, live, MPI_STATUS_IGNORE));
        target_put_get(win, vec, out);
        MPI_OK(MPI_Send(&x, 1, MPI_INT, 1, TAG, live));          /* done with rank 2's window */
        printf("getw_death: PASS\n");
    } else {
        /* the death fails every receive posted at the time (ANY_SOURCE ones, and
         * maybe those of a communicator the device has no map of): learn of it first */
        int rc = MPI_Recv(&x, 1, MPI_INT, VICTIM, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(mt_class(rc) == MPI_ERR_PROC_ABORTED, "rank 2's receive from the dead rank 1: class %d", mt_class(rc));
        MPI_OK(MPI_Recv(&x, 1, MPI_INT, 0, TAG, live, MPI_STATUS_IGNORE));
        live_gets(win, vec, out);
        MPI_OK(MPI_Send(&verdict, 1, MPI_INT, 0, TAG, live));
        MPI_OK(MPI_Recv(&x, 1, MPI_INT, 0, TAG, live, MPI_STATUS_IGNORE));
    }
    fflush(stdout);
    /* a rank of the window's group is gone: its collective free cannot complete */
    MPI_OK(MPI_Barrier(live));
    _exit(0);
}
