/*
 * MPI_MAXLOC and MPI_MINLOC one-sided accumulates on every C pair type
 * (MPI-4.0 §6.9.4, §12.3.4): MPI_FLOAT_INT, MPI_DOUBLE_INT, MPI_LONG_INT,
 * MPI_2INT, MPI_SHORT_INT, MPI_LONG_DOUBLE_INT, as the C structs the
 * standard gives them (MPI_SHORT_INT has padding between its fields, MPI_
 * LONG_DOUBLE_INT after them).
 *
 *   - every rank accumulates (MAXLOC in one fence epoch, MINLOC in the next)
 *     N elements into every rank's window, whose own contents count too; the
 *     result is computed here from the definition: the better value, the
 *     smaller index on a tie;
 *   - MPI_Get_accumulate and MPI_Raccumulate through a target datatype with
 *     gaps (every other element), MPI_Fetch_and_op on one element, under a
 *     lock: the old contents come back, the untouched elements stay;
 *   - a datatype with no data: the accumulate is a no-op, an invalid
 *     operation still MPI_ERR_OP.
 *
 * Mode "fence_dead" (run through expect_fail.sh): rank 1 leaves without
 * MPI_Finalize and rank 0's MPI_Win_fence must fail naming MPI_Win_fence.
 */
#include <unistd.h>
#include "mpi_test.h"

#define N 6

static int me, np;

/* the value rank r gives element k: small, with ties between ranks */
static int val(int r, int k)
{
    return (r * 7 + k * 3) % 5 - 2;
}

#define PAIR_TEST(NAME, MPIT, V)                                                                    \
    struct NAME { V v; int i; };                                                                    \
    static void set_##NAME(struct NAME *e, int v, int i)                                            \
    {                                                                                               \
        memset(e, 0, sizeof(*e));                                                                   \
        e->v = (V)v;                                                                                \
        e->i = i;                                                                                   \
    }                                                                                               \
    /* element k of a window after everyone's accumulate of (val(r, k), r) */                       \
    static struct NAME expect_##NAME(int k, int maxloc)                                             \
    {                                                                                               \
        struct NAME best;                                                                           \
        set_##NAME(&best, 0, 1000 + k);                                                             \
        for (int r = 0; r < np; r++) {                                                              \
            V v = (V)val(r, k);                                                                     \
            if ((maxloc ? v > best.v : v < best.v) || (v == best.v && r < best.i))                  \
                set_##NAME(&best, val(r, k), r);                                                    \
        }                                                                                           \
        return best;                                                                                \
    }                                                                                               \
    static void test_##NAME(void)                                                                   \
    {                                                                                               \
        const char *tn = #MPIT;                                                                     \
        struct NAME *mem, org[N], res[N], now[N];                                                   \
        MPI_Win win;                                                                                \
        MPI_OK(MPI_Win_allocate((MPI_Aint)sizeof(struct NAME) * N, (int)sizeof(struct NAME),        \
                                MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));                        \
        MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);                                             \
        for (int pass = 0; pass < 2; pass++) {                                                      \
            MPI_Op op = pass == 0 ? MPI_MAXLOC : MPI_MINLOC;                                        \
            MPI_OK(MPI_Win_fence(0, win));                                                          \
            for (int k = 0; k < N; k++)                                                             \
                set_##NAME(&mem[k], 0, 1000 + k);                                                   \
            MPI_OK(MPI_Win_fence(0, win));                                                          \
            for (int k = 0; k < N; k++)                                                             \
                set_##NAME(&org[k], val(me, k), me);                                                \
            for (int t = 0; t < np; t++)                                                            \
                MPI_OK(MPI_Accumulate(org, N, MPIT, t, 0, N, MPIT, op, win));                       \
            MPI_OK(MPI_Win_fence(0, win));                                                          \
            for (int k = 0; k < N; k++) {                                                           \
                struct NAME e = expect_##NAME(k, pass == 0);                                        \
                CHECK(mem[k].v == e.v && mem[k].i == e.i, "%s %s element %d: (%g, %d), expected "   \
                      "(%g, %d)", tn, pass ? "MINLOC" : "MAXLOC", k, (double)mem[k].v, mem[k].i,    \
                      (double)e.v, e.i);                                                            \
            }                                                                                       \
        }                                                                                           \
        MPI_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));                                             \
        /* one rank at a time: Get_accumulate over every other element of the next rank */        \
        int to = (me + 1) % np;                                                                     \
        MPI_Datatype every2;                                                                        \
        MPI_OK(MPI_Type_vector(N / 2, 1, 2, MPIT, &every2));                                        \
        MPI_OK(MPI_Type_commit(&every2));                                                           \
        for (int turn = 0; turn < np; turn++) {                                                     \
            if (turn == me) {                                                                       \
                MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, to, 0, win));                               \
                MPI_OK(MPI_Get(now, N, MPIT, to, 0, N, MPIT, win));                                 \
                MPI_OK(MPI_Win_flush(to, win));                                                     \
                for (int k = 0; k < N / 2; k++)                                                     \
                    set_##NAME(&org[k], -50 - k, 500 + me);                                         \
                memset(res, 0x5a, sizeof(res));                                                     \
                MPI_OK(MPI_Get_accumulate(org, N / 2, MPIT, res, N / 2, MPIT, to, 0, 1, every2,     \
                                          MPI_MINLOC, win));                                        \
                MPI_OK(MPI_Win_flush(to, win));                                                     \
                for (int k = 0; k < N / 2; k++)                                                     \
                    CHECK(res[k].v == now[2 * k].v && res[k].i == now[2 * k].i,                     \
                          "%s Get_accumulate: result %d is not the old element %d", tn, k, 2 * k);  \
                for (int k = 0; k < N / 2; k++)                                                     \
                    set_##NAME(&now[2 * k], -50 - k, 500 + me);                                     \
                /* MAXLOC of a smaller value changes nothing; of the same value, a smaller index */ \
                MPI_Request rq;                                                                     \
                for (int k = 0; k < N / 2; k++)                                                     \
                    set_##NAME(&org[k], -50 - k, k == 1 ? 7 : 900);                                 \
                MPI_OK(MPI_Raccumulate(org, N / 2, MPIT, to, 0, 1, every2, MPI_MAXLOC, win, &rq));  \
                MPI_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));                                           \
                if (500 + me > 7)                                                                   \
                    now[2].i = 7;                                                                   \
                struct NAME one, old;                                                               \
                set_##NAME(&one, 100, 3);                                                           \
                MPI_OK(MPI_Fetch_and_op(&one, &old, MPIT, to, 1, MPI_MAXLOC, win));                 \
                MPI_OK(MPI_Win_flush(to, win));                                                     \
                CHECK(old.v == now[1].v && old.i == now[1].i, "%s Fetch_and_op: not the old value", \
                      tn);                                                                          \
                now[1] = one;                                                                       \
                struct NAME got[N];                                                                 \
                MPI_OK(MPI_Get(got, N, MPIT, to, 0, N, MPIT, win));                                 \
                MPI_OK(MPI_Win_unlock(to, win));                                                    \
                for (int k = 0; k < N; k++)                                                         \
                    CHECK(got[k].v == now[k].v && got[k].i == now[k].i, "%s element %d after the "  \
                          "locked operations: (%g, %d), expected (%g, %d)", tn, k, (double)got[k].v,\
                          got[k].i, (double)now[k].v, now[k].i);                                    \
            }                                                                                       \
            MPI_OK(MPI_Barrier(MPI_COMM_WORLD));                                                    \
        }                                                                                           \
        MPI_OK(MPI_Type_free(&every2));                                                             \
        MPI_OK(MPI_Win_free(&win));                                                                 \
    }

PAIR_TEST(float_int, MPI_FLOAT_INT, float)
PAIR_TEST(double_int, MPI_DOUBLE_INT, double)
PAIR_TEST(long_int, MPI_LONG_INT, long)
PAIR_TEST(two_int, MPI_2INT, int)
PAIR_TEST(short_int, MPI_SHORT_INT, short)
PAIR_TEST(long_double_int, MPI_LONG_DOUBLE_INT, long double)

/* §12.3: a datatype with no data moves nothing, whatever the operation;
 * an invalid operation is still MPI_ERR_OP. */
static void test_empty_type(void)
{
    int *mem;
    MPI_Win win;
    MPI_OK(MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    MPI_Datatype empty;
    MPI_OK(MPI_Type_contiguous(0, MPI_INT, &empty));
    MPI_OK(MPI_Type_commit(&empty));
    for (int k = 0; k < 4; k++)
        mem[k] = 10 * me + k;
    int org[4] = { -1, -1, -1, -1 }, res[4] = { 77, 77, 77, 77 };
    int to = (me + 1) % np;
    MPI_OK(MPI_Win_fence(0, win));
    MPI_OK(MPI_Accumulate(org, 1, empty, to, 0, 1, empty, MPI_SUM, win));
    MPI_OK(MPI_Accumulate(org, 3, empty, to, 0, 2, empty, MPI_REPLACE, win));
    MPI_OK(MPI_Get_accumulate(org, 1, empty, res, 1, empty, to, 0, 1, empty, MPI_MAXLOC, win));
    MPI_OK(MPI_Get_accumulate(NULL, 0, MPI_INT, res, 1, empty, to, 0, 1, empty, MPI_NO_OP, win));
    int rc = MPI_Accumulate(org, 1, empty, to, 0, 1, empty, (MPI_Op)0x12345, win);
    CHECK(mt_class(rc) == MPI_ERR_OP, "Accumulate of an empty type with an invalid op: class %d", mt_class(rc));
    MPI_OK(MPI_Win_fence(0, win));
    for (int k = 0; k < 4; k++)
        CHECK(mem[k] == 10 * me + k && res[k] == 77, "an accumulate of no data changed element %d", k);
    MPI_OK(MPI_Type_free(&empty));
    MPI_OK(MPI_Win_free(&win));
}

/* A fence that cannot complete (rank 1 is gone) fails as MPI_Win_fence. */
static void fence_dead(void)
{
    int *mem;
    MPI_Win win;
    MPI_OK(MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (me == 1)
        _exit(0);
    MPI_Win_fence(0, win);   /* MPI_ERRORS_ARE_FATAL: prints the message, ends the job */
    fprintf(stderr, "conf_rma_loc: MPI_Win_fence returned without rank 1\n");
    exit(1);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    mt_rank = me;
    if (argc > 1 && strcmp(argv[1], "fence_dead") == 0)
        fence_dead();
    test_float_int();
    test_double_int();
    test_long_int();
    test_two_int();
    test_short_int();
    test_long_double_int();
    test_empty_type();
    MPI_Finalize();
    if (me == 0)
        printf("conf_rma_loc: %d ranks: MAXLOC/MINLOC accumulates on 6 pair types, empty types: ok\n", np);
    return 0;
}
