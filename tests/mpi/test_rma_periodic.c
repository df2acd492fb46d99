/*
 * MPI_Put and MPI_Accumulate (MPI_SUM) with an indexed target datatype whose
 * blocks repeat with a period (MPI-4.0 §12.3.2-12.3.4: the target buffer is
 * the target datatype's map at the displacement), to MPI_Win_create memory of
 * rank (r + 1) % np in fence epochs. Block lengths cycle 1, 2, 3 ints and the
 * gaps 1, 2 ints (period 6 blocks), with the last block cut short (argv[1]
 * ints in all, not a multiple of the pattern's 6), and a map of the same
 * blocks with one of them moved (no period) as a control. Every int of the
 * window is checked: the type's ints get the origin's values (put) or their
 * sums (accumulate), the gaps and what lies past the map keep theirs.
 */
#include "mpi_test.h"

static int me, np;

/* The pattern's blocks for n ints: lengths and displacements (ints); *span:
 * ints up to the end of the last block. `moved`: block 5 one int later
 * (into its gap), which breaks the period. */
static int make_map(long n, int moved, int **len, int **disp, long *span)
{
    int *bl = malloc(sizeof(int) * (size_t)n), *dp = malloc(sizeof(int) * (size_t)n);
    CHECK(bl && dp, "no memory");
    long total = 0, pos = 0;
    int nb = 0;
    for (int b = 0; total < n; b++, nb++) {
        bl[b] = b % 3 + 1;
        if (total + bl[b] > n)
            bl[b] = (int)(n - total);
        dp[b] = (int)pos + (moved && b == 5);
        pos += bl[b] + b % 2 + 1;
        total += bl[b];
    }
    *len = bl;
    *disp = dp;
    *span = pos + 2;
    return nb;
}

static void one(long n, int moved, int acc)
{
    int *bl, *dp;
    long span;
    int nb = make_map(n, moved, &bl, &dp, &span);
    MPI_Datatype t;
    MPI_OK(MPI_Type_indexed(nb, bl, dp, MPI_INT, &t));
    MPI_OK(MPI_Type_commit(&t));
    int *mem = malloc(sizeof(int) * (size_t)span), *src = malloc(sizeof(int) * (size_t)n);
    int *expect = malloc(sizeof(int) * (size_t)span);
    CHECK(mem && src && expect, "no memory");
    int from = (me + np - 1) % np;
    for (long i = 0; i < span; i++)
        mem[i] = expect[i] = (int)(1000000 * me + i);
    for (long i = 0; i < n; i++)
        src[i] = (int)(7 * i + me + 1);
    /* what rank `from` does to my window, from the map itself */
    long k = 0;
    for (int b = 0; b < nb; b++)
        for (int e = 0; e < bl[b]; e++, k++) {
            int v = (int)(7 * k + from + 1);
            expect[dp[b] + e] = acc ? expect[dp[b] + e] + v : v;
        }
    MPI_Win w;
    MPI_OK(MPI_Win_create(mem, (MPI_Aint)(sizeof(int) * (size_t)span), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD,
                          &w));
    MPI_OK(MPI_Win_fence(0, w));
    int to = (me + 1) % np;
    if (acc)
        MPI_OK(MPI_Accumulate(src, (int)n, MPI_INT, to, 0, 1, t, MPI_SUM, w));
    else
        MPI_OK(MPI_Put(src, (int)n, MPI_INT, to, 0, 1, t, w));
    MPI_OK(MPI_Win_fence(0, w));
    for (long i = 0; i < span; i++)
        CHECK(mem[i] == expect[i], "%s of %ld ints (%s map): window int %ld is %d, expected %d",
              acc ? "accumulate" : "put", n, moved ? "aperiodic" : "periodic", i, mem[i], expect[i]);
    MPI_OK(MPI_Win_free(&w));
    MPI_OK(MPI_Type_free(&t));
    free(mem);
    free(src);
    free(expect);
    free(bl);
    free(dp);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    mt_rank = me;
    long n = argc > 1 ? atol(argv[1]) : 65540;
    int cases = 0;
    for (int moved = 0; moved < 2; moved++)
        for (int acc = 0; acc < 2; acc++, cases++)
            one(n, moved, acc);
    if (me == 0)
        printf("rma_periodic: %d ranks, %ld ints, put and accumulate, periodic and aperiodic maps (%d cases): ok\n",
               np, n, cases);
    MPI_Finalize();
    return 0;
}
