/*
 * MPI_Request_free on an active persistent intercommunicator
 * MPI_Reduce_scatter_init_c whose vector goes in a chain of chunks
 * (src/mpi/intercoll_big.c; run with RDMACH_INTER_RS_CHUNK=1000, so a
 * vector of 12293 bytes is 13 chunks). MPI-4.1 3.7.3: freeing an active
 * request lets its operation complete; the program learns of it only
 * through a later operation that depends on it.
 *
 * Group A is world ranks 0 and 1 (recvcounts 5000 and 7293), group B world
 * rank 2 (recvcount 12293); MPI_BYTE with MPI_BXOR, so each group gets the
 * XOR of the other group's vectors (MPI-4.1 6.10.1). In run 1 group A
 * starts its request and frees it before group B has started (a world
 * barrier holds B back), so A's chain is running when freed and needs B's
 * data for every chunk; B then starts, waits and checks every byte of its
 * result, which needs all of A's chunks. Run 2 swaps the groups' parts. A
 * blocking MPI_Reduce_scatter on the intercommunicator follows, checked
 * everywhere: a chain cut short would have left messages it mismatches.
 * Under RDMACH_SANITIZE=address a chain never freed is a leak.
 */
#include "mpi_test.h"

#define TOTAL 12293
static const MPI_Count acounts[2] = { 5000, 7293 }, bcounts[1] = { TOTAL };
static const int aints[2] = { 5000, 7293 }, bints[1] = { TOTAL };

static int me, grp, lr;

/* Byte g of the vector world rank `from` sends in run `tag`. */
static unsigned char val(int tag, int from, int g)
{
    return (unsigned char)(1 + (tag * 37 + from * 11 + g * 5 + g / 1000) % 251);
}

static void fill(unsigned char *sb, int tag)
{
    for (int g = 0; g < TOTAL; g++)
        sb[g] = val(tag, me, g);
}

/* My block of run `tag`'s result against the other group's XOR. */
static void check(const char *what, int tag, const unsigned char *rb)
{
    int off = grp || lr == 0 ? 0 : aints[0], n = grp ? TOTAL : aints[lr];
    for (int i = 0; i < n; i++) {
        int g = off + i;
        unsigned char w = grp ? val(tag, 0, g) ^ val(tag, 1, g) : val(tag, 2, g);
        CHECK(rb[i] == w, "%s: element %d is %d, expected %d", what, i, rb[i], w);
    }
}

int main(int argc, char **argv)
{
    int p;
    /* a run's buffers are its own: a freed call's are never reused (MPI-4.1 3.7.3) */
    static unsigned char sbs[3][TOTAL], rbs[3][TOTAL];
    mt_init(&argc, &argv, &me, &p);
    CHECK(p == 3, "3 ranks");
    grp = me == 2;
    lr = grp ? 0 : me;
    MPI_Comm local, ic;
    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, grp, me, &local));
    MPI_OK(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, grp ? 0 : 2, 7, &ic));
    const MPI_Count *cnt = grp ? bcounts : acounts;

    for (int tag = 1; tag <= 2; tag++) {
        int frees = grp == tag - 1;   /* run 1: group A frees, run 2: group B */
        MPI_Request req;
        unsigned char *sb = sbs[tag - 1], *rb = rbs[tag - 1];
        fill(sb, tag);
        MPI_OK(MPI_Reduce_scatter_init_c(sb, rb, cnt, MPI_BYTE, MPI_BXOR, ic, MPI_INFO_NULL, &req));
        if (frees) {
            MPI_OK(MPI_Start(&req));
            MPI_OK(MPI_Request_free(&req));
            CHECK(req == MPI_REQUEST_NULL, "MPI_Request_free sets the handle to MPI_REQUEST_NULL");
        }
        MPI_OK(MPI_Barrier(MPI_COMM_WORLD));   /* the freed chain cannot have ended: it needs the others' data */
        if (!frees) {
            MPI_OK(MPI_Start(&req));
            MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
            check("after the other group freed its request", tag, rb);
            MPI_OK(MPI_Request_free(&req));
        }
        MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    }

    fill(sbs[2], 3);
    MPI_OK(MPI_Reduce_scatter(sbs[2], rbs[2], grp ? bints : aints, MPI_BYTE, MPI_BXOR, ic));
    check("the blocking call after", 3, rbs[2]);

    MPI_OK(MPI_Comm_free(&ic));
    MPI_OK(MPI_Comm_free(&local));
    MPI_Finalize();
    if (me == 0)
        printf("inter_rs_free: a freed active chain of 13 chunks completes, either group freeing\n");
    return 0;
}
