/*
 * A rank that dies in the middle of a PUTW (src/device/rma_putw.c: the
 * target reads the origin's data through the shared-memory pipeline and
 * scatters it chunk by chunk): the survivor must not hang, must see the
 * death as MPI_ERR_PROC_ABORTED naming the dead rank, and must go on with
 * its live peers, with the right data.
 *
 * Rank 0's window memory comes from MPI_Win_allocate_shared (so the other
 * ranks can watch it), exposed again by MPI_Win_create: puts to that window
 * are puts to memory the device does not map at the origin, hence PUTW. The
 * map: a vector of N blocks of 1 int, stride 2 (4 MiB, 64 pipeline chunks).
 *
 * ARGS origin: rank 1 (the victim) holds a shared lock on rank 0, starts an
 * MPI_Rput of the vector and calls MPI_Test until it sees, in rank 0's
 * memory, the first int of the map written and the last not (the target
 * has scattered some chunks and not all), then _exits. Rank 0, blocked in
 * MPI_Recv from rank 1, must get MPI_ERR_PROC_ABORTED naming rank 1, and
 * its MPI_T counter rma_putw_reads_lost must have grown (the death hit the
 * read in flight, not a put that had ended). The ints of the map written
 * must be a prefix of it, with rank 1's values (chunks are scattered in
 * order), the others untouched.
 *
 * ARGS target: rank 0 (the victim) is the target: it watches its own memory
 * while progressing (MPI_Iprobe) and _exits when the first int of the map
 * is written and the last not. Rank 1, the origin, must get an error
 * naming rank 0 from MPI_Win_unlock (the PUTW never answered), not hang.
 *
 * Then the two live ranks put the vector to each other's window by PUTW
 * (rma_putw_packets must grow) and read it back: every int checked.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "mpi_test.h"

enum { N = 1 << 20, TAG = 5 };

static int put_val(int rank, long k)
{
    return (int)(9 * k + 1000 * rank + 5);
}

static int orig_val(long i)
{
    return -(int)(i + 1);
}

/* Rank `from`'s vector into `to`'s window by PUTW, then got back and checked. */
static void live_pair(MPI_Win win, MPI_Datatype vec, int me, int from, int to, MPI_Comm live)
{
    struct mt_counter putw;
    mt_counter_open(&putw, "rma_putw_packets");
    unsigned long long before = mt_counter_read(&putw);
    int *buf = malloc(sizeof(int) * (size_t)N);
    CHECK(buf != NULL, "no memory");
    if (me == from) {
        for (long k = 0; k < N; k++)
            buf[k] = put_val(me, k);
        MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, to, 0, win));   /* the dead origin held a shared lock */
        MPI_OK(MPI_Put(buf, N, MPI_INT, to, 0, 1, vec, win));
        MPI_OK(MPI_Win_unlock(to, win));
        CHECK(mt_counter_read(&putw) > before, "the put of 4 MiB to a live rank sent no PUTW");
        memset(buf, 0, sizeof(int) * (size_t)N);
        MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, to, 0, win));
        MPI_OK(MPI_Get(buf, N, MPI_INT, to, 0, 1, vec, win));
        MPI_OK(MPI_Win_unlock(to, win));
        for (long k = 0; k < N; k++)
            CHECK(buf[k] == put_val(me, k), "the put to rank %d read back: int %ld is %d", to, k, buf[k]);
    }
    MPI_OK(MPI_Barrier(live));
    mt_counter_close(&putw);
    free(buf);
}

int main(int argc, char **argv)
{
    int me, np;
    mt_init(&argc, &argv, &me, &np);
    CHECK(np == 3 && argc > 1 && (strcmp(argv[1], "origin") == 0 || strcmp(argv[1], "target") == 0),
          "run on 3 ranks with ARGS origin|target");
    int origin_dies = strcmp(argv[1], "origin") == 0;
    int victim = origin_dies ? 1 : 0;
    MPI_Aint bytes = 2 * (MPI_Aint)N * (MPI_Aint)sizeof(int);
    int *mine = NULL;
    MPI_Win shwin;
    MPI_OK(MPI_Win_allocate_shared(bytes, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mine, &shwin));
    int *view0 = NULL, du;
    MPI_Aint sz;
    MPI_OK(MPI_Win_shared_query(shwin, 0, &sz, &du, &view0));
    for (long i = 0; i < 2L * N; i++)
        mine[i] = orig_val(i);
    MPI_Win win;
    MPI_OK(MPI_Win_create(mine, bytes, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    MPI_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    MPI_Datatype vec;
    MPI_OK(MPI_Type_vector(N, 1, 2, MPI_INT, &vec));
    MPI_OK(MPI_Type_commit(&vec));
    MPI_Comm live;
    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, me == victim ? MPI_UNDEFINED : 0, me, &live));
    struct mt_counter lost;
    if (me == 0 && origin_dies)
        mt_counter_open(&lost, "rma_putw_reads_lost");
    int *src = malloc(sizeof(int) * (size_t)N);
    CHECK(src != NULL, "no memory");
    for (long k = 0; k < N; k++)
        src[k] = put_val(1, k);
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));

    volatile int *w0 = view0;
    if (me == 1) {                       /* the origin of the PUTW to rank 0 */
        MPI_Request rq;
        MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
        MPI_OK(MPI_Rput(src, N, MPI_INT, 0, 0, 1, vec, win, &rq));
        if (origin_dies) {
            for (;;) {
                int done = 0;
                MPI_OK(MPI_Test(&rq, &done, MPI_STATUS_IGNORE));
                if (w0[0] == put_val(1, 0) && w0[2L * (N - 1)] == orig_val(2L * (N - 1)))
                    _exit(0);            /* the target has scattered part of the put */
                CHECK(!done, "the put completed before any chunk was seen half way: raise N");
            }
        }
        int rc = MPI_Win_unlock(0, win);
        char text[MPI_MAX_ERROR_STRING] = "";
        int len = 0;
        MPI_Error_string(rc, text, &len);
        CHECK(rc != MPI_SUCCESS && strstr(text, "rank 0") != NULL,
              "MPI_Win_unlock of the dead target returned class %d: %s", mt_class(rc), text);
        printf("putw_death target: rank 1's unlock failed (%s)\n", text);
        fflush(stdout);
    } else if (me == 0 && !origin_dies) {    /* the target that dies half way */
        for (;;) {
            int flag;
            MPI_OK(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
            if (w0[0] == put_val(1, 0) && w0[2L * (N - 1)] == orig_val(2L * (N - 1)))
                _exit(0);
        }
    }
    /* every live rank learns of the death by a receive from the victim */
    int x = 0;
    int rc = MPI_Recv(&x, 1, MPI_INT, victim, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    char text[MPI_MAX_ERROR_STRING] = "", want[16];
    int len = 0;
    MPI_Error_string(rc, text, &len);
    snprintf(want, sizeof(want), "rank %d", victim);
    CHECK(mt_class(rc) == MPI_ERR_PROC_ABORTED && strstr(text, want) != NULL,
          "the receive from the dead rank %d returned class %d: %s", victim, mt_class(rc), text);
    if (me == 0 && origin_dies) {        /* the PUTW's target survived */
        unsigned long long n = mt_counter_read(&lost);
        CHECK(n > 0, "rma_putw_reads_lost did not grow: no PUTW read was in flight when rank 1 died");
        mt_counter_close(&lost);
        long k = 0;
        while (k < N && mine[2 * k] == put_val(1, k))
            k++;
        CHECK(k > 0 && k < N, "%ld of %d ints of the dead origin's put arrived: not half way", k, N);
        for (long i = 0; i < 2L * N; i++)
            CHECK(i % 2 == 0 && i / 2 < k ? mine[i] == put_val(1, i / 2) : mine[i] == orig_val(i),
                  "window int %ld is %d after the origin died with %ld ints scattered", i, mine[i], k);
        printf("putw_death origin: rank 0 saw rank 1 die with %ld of %d ints in place; %llu read(s) lost\n", k, N,
               n);
        fflush(stdout);
    }
    /* the live ranks: a PUTW each way, checked */
    int a = origin_dies ? 0 : 1, b = 2;
    live_pair(win, vec, me, a, b, live);
    live_pair(win, vec, me, b, a, live);
    if (me == a)
        printf("putw_death %s: PASS\n", argv[1]);
    fflush(stdout);
    /* a rank of the windows' group is gone: their collective frees cannot complete */
    MPI_OK(MPI_Barrier(live));
    _exit(0);
}
