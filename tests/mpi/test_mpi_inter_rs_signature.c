/*
 * An intercommunicator MPI_Reduce_scatter whose two groups describe the
 * same vector with different datatypes, as MPI-4.1 allows (3.3.1 / 6.1:
 * the type signatures must match, not the datatypes): group A (world ranks
 * 0, 2) passes a contiguous type of 2 doubles, group B (world ranks 1, 3)
 * one of 3 doubles, so A's counts are 3/2 of B's. Run with
 * RDMACH_INTER_RS_CHUNK=7: the 60-double vector is beyond that threshold
 * and goes in a chain of chunks (src/mpi/intercoll_big.c), which must cut
 * both groups' vectors at the same doubles. A chunk of 7 elements of each
 * group's own type cut A at 14 doubles and B at 21: the chunks' messages
 * mismatched (a truncation error or wrong data).
 *
 * Every form that chains runs: MPI_Reduce_scatter, _c, _block, _block_c,
 * the non-blocking block form and the persistent _c form (started twice).
 * Each group gets the sum of the other group's vectors (MPI-4.1 6.10.1),
 * every double of which is checked against the formula below.
 */
#include "mpi_test.h"

#define TOTAL 60   /* doubles */

static int me, grp, lr;

/* Double d of the vector world rank `from` sends in run `run`. */
static double val(int run, int from, int d)
{
    return (double)(run * 100000 + (from + 1) * 1000 + d);
}

/* My block, `n` doubles from double `off`, against the other group's sum. */
static void check(const char *what, int run, const double *rb, int off, int n)
{
    for (int i = 0; i < n; i++) {
        int d = off + i;
        double w = val(run, !grp, d) + val(run, !grp + 2, d);
        CHECK(rb[i] == w, "%s: double %d of my block is %.0f, expected %.0f", what, i, rb[i], w);
    }
}

int main(int argc, char **argv)
{
    int p;
    double sb[TOTAL], rb[TOTAL];
    mt_init(&argc, &argv, &me, &p);
    CHECK(p == 4, "4 ranks");
    grp = me % 2;
    lr = me / 2;
    MPI_Comm local, ic;
    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, grp, me, &local));
    MPI_OK(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, !grp, 7, &ic));
    int k = grp ? 3 : 2;   /* doubles per element of my datatype */
    MPI_Datatype t;
    MPI_OK(MPI_Type_contiguous(k, MPI_DOUBLE, &t));
    MPI_OK(MPI_Type_commit(&t));
    /* my group's blocks in elements of t: A 13 + 17, B 5 + 15 (60 doubles) */
    static const int acounts[2] = { 13, 17 }, bcounts[2] = { 5, 15 };
    const int *ints = grp ? bcounts : acounts;
    MPI_Count wide[2] = { ints[0], ints[1] };
    int off = lr ? ints[0] * k : 0, mine = ints[lr] * k;
    int run = 0;

    for (int i = 0; i < TOTAL; i++)
        sb[i] = val(run, me, i);
    MPI_OK(MPI_Reduce_scatter(sb, rb, ints, t, MPI_SUM, ic));
    check("MPI_Reduce_scatter", run, rb, off, mine);

    run++;
    for (int i = 0; i < TOTAL; i++)
        sb[i] = val(run, me, i);
    MPI_OK(MPI_Reduce_scatter_c(sb, rb, wide, t, MPI_SUM, ic));
    check("MPI_Reduce_scatter_c", run, rb, off, mine);

    /* blocks of 30 doubles: A 15 elements each, B 10 */
    int block = TOTAL / 2 / k;
    run++;
    for (int i = 0; i < TOTAL; i++)
        sb[i] = val(run, me, i);
    MPI_OK(MPI_Reduce_scatter_block(sb, rb, block, t, MPI_SUM, ic));
    check("MPI_Reduce_scatter_block", run, rb, lr * TOTAL / 2, TOTAL / 2);

    run++;
    for (int i = 0; i < TOTAL; i++)
        sb[i] = val(run, me, i);
    MPI_OK(MPI_Reduce_scatter_block_c(sb, rb, (MPI_Count)block, t, MPI_SUM, ic));
    check("MPI_Reduce_scatter_block_c", run, rb, lr * TOTAL / 2, TOTAL / 2);

    MPI_Request req;
    run++;
    for (int i = 0; i < TOTAL; i++)
        sb[i] = val(run, me, i);
    MPI_OK(MPI_Ireduce_scatter_block(sb, rb, block, t, MPI_SUM, ic, &req));
    MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    check("MPI_Ireduce_scatter_block", run, rb, lr * TOTAL / 2, TOTAL / 2);

    MPI_OK(MPI_Reduce_scatter_init_c(sb, rb, wide, t, MPI_SUM, ic, MPI_INFO_NULL, &req));
    for (int start = 0; start < 2; start++) {
        run++;
        for (int i = 0; i < TOTAL; i++)
            sb[i] = val(run, me, i);
        MPI_OK(MPI_Start(&req));
        MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        check("MPI_Reduce_scatter_init_c", run, rb, off, mine);
    }
    MPI_OK(MPI_Request_free(&req));

    MPI_OK(MPI_Type_free(&t));
    MPI_OK(MPI_Comm_free(&ic));
    MPI_OK(MPI_Comm_free(&local));
    if (me == 0)
        printf("inter reduce_scatter over 2- and 3-double types: %d runs ok\n", run + 1);
    MPI_Finalize();
    return 0;
}
