/*
 * An origin that dies midway through a put or accumulate of a struct type
 * carried as PUTP/ACCP packets (src/device/rma_pat.c): the target must not
 * hang in its epoch, must report the dead origin (MPI_ERR_PROC_ABORTED
 * naming rank 1), must have applied whole repetitions in order and nothing
 * else, and its accumulate lock must be free for the live ranks after.
 *
 * ARGS put|acc fence|pscw|lockall. Rank 0's window (MPI_Win_create) holds
 * win[i] = i. The map: NS structs {int at 0; int[2] at 3}, extent 6 ints
 * (blocks that repeat: PUTP/ACCP). Rank 1 (the victim) opens the epoch
 * (fence; MPI_Win_start on {0}; MPI_Win_lock_all), issues one
 * MPI_Put (values 100000 + packed index) or MPI_Accumulate(MPI_SUM, 1 to
 * each int) of the NS structs, and calls _exit before closing the epoch:
 * the packets it sent before it went arrive, the rest never do. Rank 0
 * waits in its epoch (the closing fence; MPI_Win_wait after
 * MPI_Win_post; with lockall, a receive from rank 1): the call must fail
 * with MPI_ERR_PROC_ABORTED naming rank 1. Then rank 2, which has seen the
 * death, accumulates 2 into each selected int (ACCP, under rank 0's
 * accumulate lock, taken in rank 0's progress: its MPI_T counter
 * rma_pattern_packets must grow, so the map is one that travels as
 * PUTP/ACCP) with a shared lock, and
 * rank 0 checks every int: the first k structs (0 < k < NS: the packets
 * that fit the channel's ring before the send queue held the rest, so the
 * death cut the operation short) carry rank 1's values, the others rank 0's, all
 * plus rank 2's 2; the ints outside the map are untouched (MPI-4.1 12.3.2).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "mpi_test.h"

enum { NS = 1 << 18, EXT = 6, TAG = 9, TARGET = 0, VICTIM = 1, LIVE = 2 };

static const int pos[3] = { 0, 3, 4 };      /* the struct's ints, from its start */

static void struct_type(MPI_Datatype *t)
{
    int bl[2] = { 1, 2 };
    MPI_Aint dp[2] = { 0, 3 * sizeof(int) };
    MPI_Datatype ty[2] = { MPI_INT, MPI_INT }, raw, one;
    MPI_OK(MPI_Type_create_struct(2, bl, dp, ty, &raw));
    MPI_OK(MPI_Type_create_resized(raw, 0, EXT * sizeof(int), &one));
    MPI_OK(MPI_Type_contiguous(NS, one, t));
    MPI_OK(MPI_Type_commit(t));
    MPI_OK(MPI_Type_free(&raw));
    MPI_OK(MPI_Type_free(&one));
}

static int put_value(long e, int j)
{
    return (int)(100000 + 3 * e + j);
}

/* The victim: one operation of the whole map, then gone with the epoch open. */
static void victim(MPI_Win win, MPI_Datatype t, int acc, const char *epoch, MPI_Group g0)
{
    int *v = malloc(sizeof(int) * 3 * NS);
    CHECK(v != NULL, "no memory");
    for (long e = 0; e < NS; e++)
        for (int j = 0; j < 3; j++)
            v[3 * e + j] = acc ? 1 : put_value(e, j);
    if (strcmp(epoch, "pscw") == 0)
        MPI_OK(MPI_Win_start(g0, 0, win));
    else if (strcmp(epoch, "lockall") == 0)
        MPI_OK(MPI_Win_lock_all(0, win));
    if (acc)
        MPI_OK(MPI_Accumulate(v, 3 * NS, MPI_INT, TARGET, 0, 1, t, MPI_SUM, win));
    else
        MPI_OK(MPI_Put(v, 3 * NS, MPI_INT, TARGET, 0, 1, t, win));
    _exit(0);
}

/* Rank 0: how many structs rank 1's operation reached, all in order. */
static long check_target(const int *mem, int acc)
{
    long k = 0;
    while (k < NS && mem[k * EXT] == (acc ? (int)(k * EXT) + 1 : put_value(k, 0)) + 2)
        k++;
    for (long e = 0; e < NS; e++)
        for (int i = 0; i < EXT; i++) {
            long at = e * EXT + i;
            int j = i == 0 ? 0 : i - 2;
            int mapped = i == pos[0] || i == pos[1] || i == pos[2];
            int want = !mapped ? (int)at : (e < k ? (acc ? (int)at + 1 : put_value(e, j)) : (int)at) + 2;
            CHECK(mem[at] == want, "int %d of struct %ld (of %d; rank 1's reached %ld): %d, expected %d", i, e, NS,
                  k, mem[at], want);
        }
    return k;
}

int main(int argc, char **argv)
{
    int rank, size;
    mt_init(&argc, &argv, &rank, &size);
    CHECK(size == 3 && argc == 3, "run on 3 ranks with ARGS put|acc fence|pscw|lockall");
    int acc = strcmp(argv[1], "acc") == 0;
    const char *epoch = argv[2];
    int *mem = calloc((size_t)NS * EXT, sizeof(int));
    CHECK(mem != NULL, "no memory");
    for (long i = 0; i < (long)NS * EXT; i++)
        mem[i] = (int)i;
    MPI_Win win;
    MPI_OK(MPI_Win_create(mem, rank == TARGET ? (MPI_Aint)NS * EXT * (MPI_Aint)sizeof(int) : 0, sizeof(int),
                          MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    MPI_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    MPI_Datatype t;
    struct_type(&t);
    MPI_Group world, g0, g1;
    MPI_OK(MPI_Comm_group(MPI_COMM_WORLD, &world));
    int r0 = TARGET, r1 = VICTIM;
    MPI_OK(MPI_Group_incl(world, 1, &r0, &g0));
    MPI_OK(MPI_Group_incl(world, 1, &r1, &g1));
    MPI_Comm live;      /* ranks 0 and 2, made while all live */
    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, rank == VICTIM ? MPI_UNDEFINED : 0, rank, &live));
    int fence = strcmp(epoch, "fence") == 0;
    if (fence)
        MPI_OK(MPI_Win_fence(0, win));
    if (rank == TARGET && strcmp(epoch, "pscw") == 0)
        MPI_OK(MPI_Win_post(g1, 0, win));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == VICTIM)
        victim(win, t, acc, epoch, g0);

    int rc, x = 0;
    if (rank == LIVE && fence)
        rc = MPI_Win_fence(0, win);
    else if (rank == TARGET && fence)
        rc = MPI_Win_fence(0, win);
    else if (rank == TARGET && strcmp(epoch, "pscw") == 0)
        rc = MPI_Win_wait(win);
    else
        rc = MPI_Recv(&x, 1, MPI_INT, VICTIM, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    char text[MPI_MAX_ERROR_STRING] = "";
    int len = 0;
    MPI_Error_string(rc, text, &len);
    CHECK(mt_class(rc) == MPI_ERR_PROC_ABORTED && strstr(text, "rank 1") != NULL,
          "%s %s: the epoch's end with rank 1 dead returned class %d: %s", argv[1], epoch, mt_class(rc), text);
    if (rank == LIVE && fence) {     /* also learn of the death by a receive: none posted later fails */
        rc = MPI_Recv(&x, 1, MPI_INT, VICTIM, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(mt_class(rc) == MPI_ERR_PROC_ABORTED, "rank 2's receive from the dead rank 1: class %d", mt_class(rc));
    }
    if (rank == LIVE) {
        int *two = malloc(sizeof(int) * 3 * NS);
        CHECK(two != NULL, "no memory");
        for (long i = 0; i < 3L * NS; i++)
            two[i] = 2;
        struct mt_counter pat;
        mt_counter_open(&pat, "rma_pattern_packets");
        unsigned long long before = mt_counter_read(&pat);
        MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, TARGET, 0, win));
        MPI_OK(MPI_Accumulate(two, 3 * NS, MPI_INT, TARGET, 0, 1, t, MPI_SUM, win));
        MPI_OK(MPI_Win_unlock(TARGET, win));
        CHECK(mt_counter_read(&pat) > before, "the map did not travel as ACCP packets: the test tests nothing");
        mt_counter_close(&pat);
        MPI_OK(MPI_Send(&x, 1, MPI_INT, 0, TAG, live));
    } else {
        MPI_OK(MPI_Recv(&x, 1, MPI_INT, 1, TAG, live, MPI_STATUS_IGNORE));
        long k = check_target(mem, acc);
        CHECK(k > 0 && k < NS, "rank 1's %s reached %ld of %d structs: it did not die midway", argv[1], k, NS);
        printf("pattern_death: %s %s: rank 0's epoch failed (%s); rank 1's operation reached %ld of %d structs; "
               "PASS\n", argv[1], epoch, text, k, NS);
    }
    fflush(stdout);
    /* a rank of the window's group is gone: its collective free cannot complete */
    MPI_OK(MPI_Barrier(live));
    _exit(0);
}
