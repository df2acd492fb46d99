/*
 * The non-blocking and persistent v-collectives' _c forms with count and
 * displacement arrays beyond INT_MAX (src/mpi/large_nbv.c):
 * MPI_Igatherv_c, MPI_Iscatterv_c, MPI_Iallgatherv_c,
 * MPI_Ineighbor_allgatherv_c, MPI_Ineighbor_alltoallv_c and their _init_c
 * forms (each persistent request started twice), and the blocking
 * MPI_Neighbor_allgatherv_c, MPI_Neighbor_alltoallv_c and
 * MPI_Reduce_scatter_c, on MPI_COMM_WORLD, on a
 * periodic ring and on an intercommunicator. Blocks of 16 bytes land
 * 2^31 + 64 r bytes into a sparse buffer; every byte is computed from who
 * sent it to whom, and the bytes around each block must stay 0. Rank 0 alone
 * gives far displacements in one allgatherv (the others run the int form
 * against it). Then MPI_Ireduce_scatter_c and the errors: a displacement
 * whose bytes overflow (MPI_ERR_ARG), negative counts beside counts beyond
 * INT_MAX (MPI_ERR_COUNT), each naming the array entry.
 */
#include <sys/mman.h>
#include "mpi_test.h"

#define MAXP 16
#define BIG ((MPI_Count)1 << 31)
#define FAR(r) (BIG + 64 * (MPI_Aint)(r))
#define BLK 16

static int me, p;
static unsigned char *buf;

static unsigned char bytev(int from, int to, int j)
{
    return (unsigned char)(1 + from * 16 + to * 4 + j);
}

static void expect_class(int rc, int cls, const char *what)
{
    CHECK(mt_class(rc) == cls, "%s: error class %d, expected %d", what, mt_class(rc), cls);
}

/* Block r at FAR(at + r) holds bytev(from[r], to[r], j); the bytes around
 * it are 0. The blocks are cleared after. */
static void check_far(const char *what, int at, int n, const int *from, const int *to)
{
    for (int r = 0; r < n; r++) {
        unsigned char *b = buf + FAR(at + r);
        for (int j = 0; j < BLK; j++)
            CHECK(b[j] == bytev(from[r], to[r], j), "%s: byte %d of block %d is %u, expected %u", what, j, r, b[j],
                  bytev(from[r], to[r], j));
        CHECK(b[-1] == 0 && b[BLK] == 0, "%s: wrote around block %d", what, r);
        memset(b, 0, BLK);
    }
}

static void put_far(int at, int from, int to)
{
    for (int j = 0; j < BLK; j++)
        buf[FAR(at) + j] = bytev(from, to, j);
}

static void fill(unsigned char *b, int from, int to)
{
    for (int j = 0; j < BLK; j++)
        b[j] = bytev(from, to, j);
}

/* Start (round 0: the non-blocking form made it) and wait. */
static void run(MPI_Request *r, int round)
{
    if (round)
        MPI_OK(MPI_Start(r));
    MPI_OK(MPI_Wait(r, MPI_STATUS_IGNORE));
}

static void persist_free(MPI_Request *r)
{
    MPI_OK(MPI_Request_free(r));
}

/* Gatherv to root r (world: rank p - 1; inter: MPI_ROOT), n blocks from
 * from[] at FAR(0..n-1); in place at an intracommunicator's root in round 1. */
static void gatherv(MPI_Comm comm, int root, int is_root, int n, const int *from, int to)
{
    MPI_Count cnt[MAXP];
    MPI_Aint dsp[MAXP];
    unsigned char mine[BLK];
    int inter, tos[MAXP];
    MPI_Comm_test_inter(comm, &inter);
    for (int r = 0; r < n; r++)
        cnt[r] = BLK, dsp[r] = FAR(r), tos[r] = to;
    fill(mine, me, to);
    MPI_Request rq = MPI_REQUEST_NULL;
    for (int round = 0; round < 3; round++) {
        int in_place = !inter && is_root && round == 1;
        if (in_place)
            put_far(root, me, to);
        const void *sb = in_place ? MPI_IN_PLACE : mine;
        if (round == 0)
            MPI_OK(MPI_Igatherv_c(sb, BLK, MPI_BYTE, buf, cnt, dsp, MPI_BYTE, root, comm, &rq));
        else if (round == 1)
            MPI_OK(MPI_Gatherv_init_c(sb, BLK, MPI_BYTE, buf, cnt, dsp, MPI_BYTE, root, comm, MPI_INFO_NULL, &rq));
        run(&rq, round);
        if (is_root)
            check_far(round ? "Gatherv_init_c" : "Igatherv_c", 0, n, from, tos);
        if (in_place)
            put_far(root, me, to);   /* round 2 restarts the in-place request */
    }
    persist_free(&rq);
    if (!inter && is_root)
        memset(buf + FAR(root), 0, BLK);
}

/* Scatterv from root: block r (to to[r]) at FAR(r). */
static void scatterv(MPI_Comm comm, int root, int is_root, int n, const int *to, int from, int myself)
{
    MPI_Count cnt[MAXP];
    MPI_Aint dsp[MAXP];
    MPI_Request rq = MPI_REQUEST_NULL;
    for (int r = 0; r < n; r++)
        cnt[r] = BLK, dsp[r] = FAR(r);
    for (int round = 0; round < 3; round++) {
        unsigned char got[BLK + 2];
        memset(got, 0, sizeof(got));
        for (int r = 0; is_root && r < n; r++)
            put_far(r, me, to[r]);
        if (round == 0)
            MPI_OK(MPI_Iscatterv_c(buf, cnt, dsp, MPI_BYTE, got + 1, BLK, MPI_BYTE, root, comm, &rq));
        else if (round == 1)
            MPI_OK(MPI_Scatterv_init_c(buf, cnt, dsp, MPI_BYTE, got + 1, BLK, MPI_BYTE, root, comm, MPI_INFO_NULL,
                                       &rq));
        run(&rq, round);
        for (int j = 0; myself >= 0 && j < BLK; j++)
            CHECK(got[1 + j] == bytev(from, myself, j), "%s: byte %d is %u", round ? "Scatterv_init_c" : "Iscatterv_c",
                  j, got[1 + j]);
        CHECK(got[0] == 0 && got[BLK + 1] == 0, "Iscatterv_c: wrote around the block");
        for (int r = 0; is_root && r < n; r++)
            memset(buf + FAR(r), 0, BLK);
    }
    persist_free(&rq);
}

/* Allgatherv: n blocks from from[] at FAR(r) (near: at 64 r in buf2). */
static void allgatherv(MPI_Comm comm, int n, const int *from, int near_here)
{
    MPI_Count cnt[MAXP];
    MPI_Aint dsp[MAXP];
    unsigned char mine[BLK], near[64 * MAXP];
    int tos[MAXP];
    for (int r = 0; r < n; r++)
        cnt[r] = BLK, dsp[r] = near_here ? 64 * r : FAR(r), tos[r] = 0;
    fill(mine, me, 0);
    unsigned char *rb = near_here ? near : buf;
    MPI_Request rq = MPI_REQUEST_NULL;
    for (int round = 0; round < 3; round++) {
        memset(near, 0, sizeof(near));
        if (round == 0)
            MPI_OK(MPI_Iallgatherv_c(mine, BLK, MPI_BYTE, rb, cnt, dsp, MPI_BYTE, comm, &rq));
        else if (round == 1)
            MPI_OK(MPI_Allgatherv_init_c(mine, BLK, MPI_BYTE, rb, cnt, dsp, MPI_BYTE, comm, MPI_INFO_NULL, &rq));
        run(&rq, round);
        if (!near_here) {
            check_far(round ? "Allgatherv_init_c" : "Iallgatherv_c", 0, n, from, tos);
            continue;
        }
        for (int r = 0; r < n; r++)
            for (int j = 0; j < BLK; j++)
                CHECK(near[64 * r + j] == bytev(from[r], 0, j), "Iallgatherv_c near: byte %d of block %d", j, r);
    }
    persist_free(&rq);
}

/* On a periodic ring: in-neighbours (left, right), out-neighbours the same. */
static void neighbors(void)
{
    MPI_Comm ring;
    int dims[1] = { p }, per[1] = { 1 }, left = (me + p - 1) % p, right = (me + 1) % p;
    MPI_OK(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, per, 0, &ring));
    MPI_Count cnt[2] = { BLK, BLK };
    MPI_Aint dsp[2] = { FAR(0), FAR(1) }, sdsp[2] = { FAR(10), FAR(11) };
    unsigned char mine[BLK];
    fill(mine, me, 0);
    MPI_Request rq = MPI_REQUEST_NULL;
    int from[2] = { left, right }, zero[2] = { 0, 0 }, slot[2] = { 1, 0 };
    for (int round = 0; round < 3; round++) {
        if (round == 0)
            MPI_OK(MPI_Ineighbor_allgatherv_c(mine, BLK, MPI_BYTE, buf, cnt, dsp, MPI_BYTE, ring, &rq));
        else if (round == 1)
            MPI_OK(MPI_Neighbor_allgatherv_init_c(mine, BLK, MPI_BYTE, buf, cnt, dsp, MPI_BYTE, ring, MPI_INFO_NULL,
                                                  &rq));
        run(&rq, round);
        check_far(round ? "Neighbor_allgatherv_init_c" : "Ineighbor_allgatherv_c", 0, 2, from, zero);
    }
    persist_free(&rq);
    MPI_OK(MPI_Neighbor_allgatherv_c(mine, BLK, MPI_BYTE, buf, cnt, dsp, MPI_BYTE, ring));
    check_far("Neighbor_allgatherv_c", 0, 2, from, zero);
    /* out-block k (k = 0: to the left) is bytev(me, k); the left neighbour's
     * block 1 arrives in slot 0, the right's block 0 in slot 1 */
    for (int round = 0; round < 3; round++) {
        put_far(10, me, 0);
        put_far(11, me, 1);
        if (round == 0)
            MPI_OK(MPI_Ineighbor_alltoallv_c(buf, cnt, sdsp, MPI_BYTE, buf, cnt, dsp, MPI_BYTE, ring, &rq));
        else if (round == 1)
            MPI_OK(MPI_Neighbor_alltoallv_init_c(buf, cnt, sdsp, MPI_BYTE, buf, cnt, dsp, MPI_BYTE, ring,
                                                 MPI_INFO_NULL, &rq));
        run(&rq, round);
        check_far(round ? "Neighbor_alltoallv_init_c" : "Ineighbor_alltoallv_c", 0, 2, from, slot);
        memset(buf + FAR(10), 0, 64 + BLK);
    }
    persist_free(&rq);
    put_far(10, me, 0);
    put_far(11, me, 1);
    MPI_OK(MPI_Neighbor_alltoallv_c(buf, cnt, sdsp, MPI_BYTE, buf, cnt, dsp, MPI_BYTE, ring));
    check_far("Neighbor_alltoallv_c", 0, 2, from, slot);
    memset(buf + FAR(10), 0, 64 + BLK);
    MPI_OK(MPI_Comm_free(&ring));
}

static void world(void)
{
    int from[MAXP], tos[MAXP];
    for (int r = 0; r < p; r++)
        from[r] = r, tos[r] = r;
    gatherv(MPI_COMM_WORLD, p - 1, me == p - 1, p, from, p - 1);
    scatterv(MPI_COMM_WORLD, 0, me == 0, p, tos, 0, me);
    allgatherv(MPI_COMM_WORLD, p, from, 0);
    allgatherv(MPI_COMM_WORLD, p, from, me != 0);   /* only rank 0's arrays beyond an int */
    neighbors();
}

/* Even against odd ranks; the odd group's rank 0 is root for the others. */
static void inter(void)
{
    int color = me % 2, lrank = me / 2, rsize = color ? (p + 1) / 2 : p / 2, from[MAXP], tos[MAXP];
    MPI_Comm local, ic;
    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, color, me, &local));
    MPI_OK(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, 1 - color, 81, &ic));
    for (int r = 0; r < rsize; r++)
        from[r] = 2 * r + 1 - color, tos[r] = r;
    int root = color == 1 ? (lrank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0, is_root = root == MPI_ROOT;
    gatherv(ic, root, is_root, rsize, from, 1);
    scatterv(ic, root, is_root, rsize, tos, 1, color == 0 ? lrank : -1);
    allgatherv(ic, rsize, from, 0);
    MPI_OK(MPI_Comm_free(&ic));
    MPI_OK(MPI_Comm_free(&local));
}

/* Rank i gets block i of i + 1 ints of the sum; element e of every send
 * buffer is 1000 rank + e. */
static void reduce_scatter(void)
{
    MPI_Count cnt[MAXP];
    int sb[MAXP * (MAXP + 1) / 2], got[MAXP], off = 0;
    for (int r = 0; r < p; r++) {
        cnt[r] = r + 1;
        if (r < me)
            off += r + 1;
    }
    for (int e = 0; e < p * (p + 1) / 2; e++)
        sb[e] = 1000 * me + e;
    MPI_Request rq;
    MPI_OK(MPI_Ireduce_scatter_c(sb, got, cnt, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq));
    MPI_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    for (int k = 0; k <= me; k++)
        CHECK(got[k] == 1000 * p * (p - 1) / 2 + p * (off + k), "Ireduce_scatter_c: element %d is %d", k, got[k]);
    memset(got, 0, sizeof(got));
    MPI_OK(MPI_Reduce_scatter_c(sb, got, cnt, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    for (int k = 0; k <= me; k++)
        CHECK(got[k] == 1000 * p * (p - 1) / 2 + p * (off + k), "Reduce_scatter_c: element %d is %d", k, got[k]);
    if (p < 2)
        return;
    /* a negative count beside one beyond INT_MAX: an error at every rank */
    cnt[0] = BIG + 1;
    cnt[1] = -5;
    expect_class(MPI_Ireduce_scatter_c(sb, got, cnt, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq), MPI_ERR_COUNT,
                 "Ireduce_scatter_c recvcounts[1] = -5");
    expect_class(MPI_Reduce_scatter_init_c(sb, got, cnt, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &rq),
                 MPI_ERR_COUNT, "Reduce_scatter_init_c recvcounts[1] = -5");
    char msg[MPI_MAX_ERROR_STRING];
    int len, rc = MPI_Reduce_scatter_c(sb, got, cnt, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    expect_class(rc, MPI_ERR_COUNT, "Reduce_scatter_c recvcounts[1] = -5");
    MPI_Error_string(rc, msg, &len);
    CHECK(strstr(msg, "recvcounts[1]") != NULL, "the error names recvcounts[1]: %s", msg);
}

/* On a graph of this process alone with two edges to itself, so that a
 * failing call leaves no peer waiting. */
static void errors(void)
{
    MPI_Comm g;
    int self[2] = { 0, 0 };
    MPI_OK(MPI_Dist_graph_create_adjacent(MPI_COMM_SELF, 2, self, MPI_UNWEIGHTED, 2, self, MPI_UNWEIGHTED,
                                          MPI_INFO_NULL, 0, &g));
    MPI_Comm_set_errhandler(g, MPI_ERRORS_RETURN);
    MPI_Count one[2] = { 1, 1 }, bigneg[2] = { BIG + 1, -5 }, neg[2] = { 1, -BIG - 5 };
    MPI_Aint near[2] = { 0, 1 }, over[2] = { 0, INT64_MAX / 2 }, far[2] = { FAR(0), FAR(1) };
    MPI_Request rq;
    char msg[MPI_MAX_ERROR_STRING];
    int len, rc;
    rc = MPI_Ineighbor_alltoallv_c(buf, one, near, MPI_BYTE, buf, one, over, MPI_INT, g, &rq);
    expect_class(rc, MPI_ERR_ARG, "Ineighbor_alltoallv_c rdispls[1] = 2^62 ints");
    MPI_Error_string(rc, msg, &len);
    CHECK(strstr(msg, "rdispls[1]") != NULL, "the error names rdispls[1]: %s", msg);
    rc = MPI_Neighbor_alltoallv_init_c(buf, bigneg, far, MPI_BYTE, buf, one, far, MPI_BYTE, g, MPI_INFO_NULL, &rq);
    expect_class(rc, MPI_ERR_COUNT, "Neighbor_alltoallv_init_c sendcounts 2^31 + 1, -5");
    MPI_Error_string(rc, msg, &len);
    CHECK(strstr(msg, "sendcounts[1]") != NULL, "the error names sendcounts[1]: %s", msg);
    rc = MPI_Ineighbor_allgatherv_c(buf, 1, MPI_BYTE, buf, neg, far, MPI_BYTE, g, &rq);
    expect_class(rc, MPI_ERR_COUNT, "Ineighbor_allgatherv_c recvcounts[1] = -2^31 - 5");
    MPI_Error_string(rc, msg, &len);
    CHECK(strstr(msg, "recvcounts[1]") != NULL, "the error names recvcounts[1]: %s", msg);
    MPI_OK(MPI_Comm_free(&g));
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, &me, &p);
    CHECK(p <= MAXP, "at most %d ranks", MAXP);
    const size_t len = (size_t)FAR(MAXP) + 64;
    buf = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    CHECK(buf != MAP_FAILED, "no address space for %zu bytes", len);
    world();
    if (p > 1)
        inter();
    reduce_scatter();
    errors();
    munmap(buf, len);
    MPI_Finalize();
    if (me == 0)
        printf("large_nbv: %d ranks ok\n", p);
    return 0;
}
