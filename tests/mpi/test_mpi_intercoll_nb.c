/*
 * Non-blocking and persistent collectives on an intercommunicator (MPI-4.1
 * 6.12, 6.13 with the rooted semantics of 6.2.2): the even world ranks
 * (group A) against the odd ones (group B). Every call runs twice: as
 * MPI_I<collective> + MPI_Wait, then as MPI_<collective>_init started twice
 * (the receive buffers spoiled between the starts, so the second run must
 * deliver again). Then several calls outstanding at once, between blocking
 * collectives on the same intercommunicator, a non-commutative reduction
 * (the order v0 op v1 op ... of the remote group), and the argument errors.
 * Every expected value is computed from the layout: rank i of group A is
 * world rank 2i, of group B world rank 2i + 1. With one process only the
 * errors that need no intercommunicator are checked.
 */
#include "mpi_test.h"

#define MAXP 16

static int wrank, wsize, color, nA, nB, lsize, rsize, lrank, mode;
static MPI_Request rq;

/* Start the call in the current mode (0: non-blocking, 1: persistent). */
#define ISSUE(nbname, initname, ...)                                                      \
    MPI_OK(mode ? MPI_##initname(__VA_ARGS__, MPI_INFO_NULL, &rq) : MPI_##nbname(__VA_ARGS__, &rq))

/* Complete rq; a persistent one is started twice, rbuf (bytes) spoiled
 * between the runs. */
static void run(void *rbuf, size_t bytes)
{
    if (!mode) {
        MPI_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
        CHECK(rq == MPI_REQUEST_NULL, "the wait left the request");
        return;
    }
    MPI_OK(MPI_Start(&rq));
    MPI_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    if (rbuf)
        memset(rbuf, 0xA5, bytes);
    MPI_OK(MPI_Start(&rq));
    MPI_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    CHECK(rq != MPI_REQUEST_NULL, "the wait freed a persistent request");
    MPI_OK(MPI_Request_free(&rq));
}

static int world_of(int g, int i)
{
    return 2 * i + g;
}

static int sum_world(int g, int n)
{
    int s = 0;
    for (int i = 0; i < n; i++)
        s += world_of(g, i);
    return s;
}

static void expect_class(int rc, int cls, const char *what)
{
    CHECK(mt_class(rc) == cls, "%s: error class %d, expected %d", what, mt_class(rc), cls);
}

static void test_rooted(MPI_Comm ic)
{
    int rgrp = 1 - color;
    /* Bcast of a strided vector from A's rank 0, then from B's last rank. */
    MPI_Datatype vec;
    MPI_OK(MPI_Type_vector(3, 1, 2, MPI_INT, &vec));
    MPI_OK(MPI_Type_commit(&vec));
    for (int from = 0; from < 2; from++) {
        int rootrank = from == 0 ? 0 : nB - 1;
        int root = color == from ? (lrank == rootrank ? MPI_ROOT : MPI_PROC_NULL) : rootrank;
        int b[6] = { -1, -1, -1, -1, -1, -1 };
        if (root == MPI_ROOT)
            for (int i = 0; i < 6; i++)
                b[i] = 100 * from + i;
        ISSUE(Ibcast, Bcast_init, b, 1, vec, root, ic);
        if (mode) {   /* run() by hand: the gaps of the vector must stay -1 */
            MPI_OK(MPI_Start(&rq));
            MPI_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
            for (int i = 0; color != from && i < 6; i += 2)
                b[i] = -7;
            MPI_OK(MPI_Start(&rq));
            MPI_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
            MPI_OK(MPI_Request_free(&rq));
        } else {
            run(NULL, 0);
        }
        for (int i = 0; color != from && i < 6; i++)
            CHECK(b[i] == (i % 2 ? -1 : 100 * from + i), "bcast from group %d: b[%d] = %d", from, i, b[i]);
        if (root == MPI_PROC_NULL)
            CHECK(b[0] == -1, "bcast touched a MPI_PROC_NULL buffer");
    }
    /* Reduce to A's rank 0: the sum of B's world ranks. */
    int root = color == 0 ? (lrank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
    int v = wrank, r = -1;
    ISSUE(Ireduce, Reduce_init, &v, &r, 1, MPI_INT, MPI_SUM, root, ic);
    run(root == MPI_ROOT ? &r : NULL, sizeof(r));
    if (root == MPI_ROOT)
        CHECK(r == sum_world(1, nB), "reduce: %d, expected %d", r, sum_world(1, nB));
    else
        CHECK(r == -1, "reduce wrote a non-root's recvbuf: %d", r);
    /* Gather and Gatherv (reversed displacements) to B's rank 0. */
    root = color == 1 ? (lrank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
    int g[MAXP], cnt[MAXP], dsp[MAXP];
    for (int i = 0; i < rsize; i++) {
        g[i] = -1;
        cnt[i] = 1;
        dsp[i] = rsize - 1 - i;
    }
    ISSUE(Igather, Gather_init, &v, 1, MPI_INT, g, 1, MPI_INT, root, ic);
    run(root == MPI_ROOT ? g : NULL, (size_t)rsize * sizeof(int));
    for (int i = 0; root == MPI_ROOT && i < rsize; i++)
        CHECK(g[i] == world_of(rgrp, i), "gather: g[%d] = %d", i, g[i]);
    ISSUE(Igatherv, Gatherv_init, &v, 1, MPI_INT, g, cnt, dsp, MPI_INT, root, ic);
    run(root == MPI_ROOT ? g : NULL, (size_t)rsize * sizeof(int));
    for (int i = 0; root == MPI_ROOT && i < rsize; i++)
        CHECK(g[rsize - 1 - i] == world_of(rgrp, i), "gatherv: g[%d] = %d", rsize - 1 - i, g[rsize - 1 - i]);
    /* Scatter and Scatterv from B's rank 0 to A. */
    for (int i = 0; root == MPI_ROOT && i < rsize; i++)
        g[i] = 1000 + i;
    r = -1;
    ISSUE(Iscatter, Scatter_init, g, 1, MPI_INT, &r, 1, MPI_INT, root, ic);
    run(color == 0 ? &r : NULL, sizeof(r));
    if (color == 0)
        CHECK(r == 1000 + lrank, "scatter: %d", r);
    ISSUE(Iscatterv, Scatterv_init, g, cnt, dsp, MPI_INT, &r, 1, MPI_INT, root, ic);
    run(color == 0 ? &r : NULL, sizeof(r));
    if (color == 0)
        CHECK(r == 1000 + (nA - 1 - lrank), "scatterv: %d", r);
    MPI_OK(MPI_Type_free(&vec));
}

static void test_all(MPI_Comm ic)
{
    int rgrp = 1 - color, v = wrank, r = -1;
    ISSUE(Ibarrier, Barrier_init, ic);
    run(NULL, 0);
    ISSUE(Iallreduce, Allreduce_init, &v, &r, 1, MPI_INT, MPI_SUM, ic);
    run(&r, sizeof(r));
    CHECK(r == sum_world(rgrp, rsize), "allreduce: %d, expected the remote sum %d", r, sum_world(rgrp, rsize));
    int a[4 * MAXP * MAXP], b[4 * MAXP * MAXP];
    ISSUE(Iallgather, Allgather_init, &v, 1, MPI_INT, a, 1, MPI_INT, ic);
    run(a, (size_t)rsize * sizeof(int));
    for (int i = 0; i < rsize; i++)
        CHECK(a[i] == world_of(rgrp, i), "allgather: a[%d] = %d", i, a[i]);
    int two[2] = { wrank, -wrank }, cnt[MAXP], dsp[MAXP], sdsp[MAXP];
    for (int i = 0; i < rsize; i++) {
        cnt[i] = 2;
        dsp[i] = 2 * (rsize - 1 - i);
    }
    ISSUE(Iallgatherv, Allgatherv_init, two, 2, MPI_INT, a, cnt, dsp, MPI_INT, ic);
    run(a, 2 * (size_t)rsize * sizeof(int));
    for (int i = 0; i < rsize; i++)
        CHECK(a[dsp[i]] == world_of(rgrp, i) && a[dsp[i] + 1] == -world_of(rgrp, i), "allgatherv: block %d", i);
    /* Alltoall: block j to remote j is 1000 * me + j. */
    for (int j = 0; j < rsize; j++)
        b[j] = 1000 * wrank + j;
    ISSUE(Ialltoall, Alltoall_init, b, 1, MPI_INT, a, 1, MPI_INT, ic);
    run(a, (size_t)rsize * sizeof(int));
    for (int j = 0; j < rsize; j++)
        CHECK(a[j] == 1000 * world_of(rgrp, j) + lrank, "alltoall: from %d got %d", j, a[j]);
    for (int j = 0; j < rsize; j++) {
        cnt[j] = 1;
        sdsp[j] = j;
        dsp[j] = rsize - 1 - j;
    }
    ISSUE(Ialltoallv, Alltoallv_init, b, cnt, sdsp, MPI_INT, a, cnt, dsp, MPI_INT, ic);
    run(a, (size_t)rsize * sizeof(int));
    for (int j = 0; j < rsize; j++)
        CHECK(a[rsize - 1 - j] == 1000 * world_of(rgrp, j) + lrank, "alltoallv: from %d", j);
    MPI_Datatype ty[MAXP];
    for (int j = 0; j < rsize; j++) {
        ty[j] = MPI_INT;
        sdsp[j] = j * (int)sizeof(int);
        dsp[j] = (rsize - 1 - j) * (int)sizeof(int);
    }
    ISSUE(Ialltoallw, Alltoallw_init, b, cnt, sdsp, ty, a, cnt, dsp, ty, ic);
    run(a, (size_t)rsize * sizeof(int));
    for (int j = 0; j < rsize; j++)
        CHECK(a[rsize - 1 - j] == 1000 * world_of(rgrp, j) + lrank, "alltoallw: from %d", j);
    /* Reduce_scatter_block: both groups reduce nA * nB elements (element k of
     * world rank w is w + k); my group's rank i gets block i of the remote
     * sum, sum(remote world ranks) + rsize * k. */
    int total = nA * nB, rc = total / lsize;
    for (int k = 0; k < total; k++)
        b[k] = wrank + k;
    ISSUE(Ireduce_scatter_block, Reduce_scatter_block_init, b, a, rc, MPI_INT, MPI_SUM, ic);
    run(a, (size_t)rc * sizeof(int));
    for (int k = 0; k < rc; k++) {
        int e = lrank * rc + k;
        CHECK(a[k] == sum_world(rgrp, rsize) + rsize * e, "reduce_scatter_block: a[%d] = %d", k, a[k]);
    }
    /* Reduce_scatter, uneven: rank 0 takes two blocks of rc and the last
     * rank none (with two or more), the others one each. */
    for (int i = 0; i < lsize; i++)
        cnt[i] = rc;
    if (lsize > 1) {
        cnt[0] += rc;
        cnt[lsize - 1] = 0;
    }
    ISSUE(Ireduce_scatter, Reduce_scatter_init, b, a, cnt, MPI_INT, MPI_SUM, ic);
    run(a, (size_t)cnt[lrank] * sizeof(int));
    int first = lrank == 0 ? 0 : lrank * rc + rc;
    for (int k = 0; k < cnt[lrank]; k++)
        CHECK(a[k] == sum_world(rgrp, rsize) + rsize * (first + k), "reduce_scatter: a[%d] = %d", k, a[k]);
}

/* x -> a x + b as (a, b); (u op v) is u after v: u(v(x)), associative and
 * not commutative, so the result shows the order of the operands. */
static void compose(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    int *u = in, *v = inout;
    for (int i = 0; i < *len; i++, u += 2, v += 2) {
        int a = u[0] * v[0], b = u[0] * v[1] + u[1];
        v[0] = a;
        v[1] = b;
    }
}

/* Several calls outstanding at once, completed in another order, with
 * blocking collectives between them. */
static void test_overlap(MPI_Comm ic)
{
    int rgrp = 1 - color;
    MPI_Op op;
    MPI_OK(MPI_Op_create(compose, 0, &op));
    MPI_Request r[4];
    int mine[2] = { 2, wrank + 1 }, red[2] = { 0, 0 }, sum = -1, bsum = -1, bc = -1;
    MPI_OK(MPI_Iallreduce(mine, red, 1, MPI_2INT, op, ic, &r[0]));
    MPI_OK(MPI_Ibarrier(ic, &r[1]));
    int root = color == 0 ? (lrank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
    if (root == MPI_ROOT)
        bc = 4242;
    MPI_OK(MPI_Ibcast(&bc, 1, MPI_INT, root, ic, &r[2]));
    MPI_OK(MPI_Allreduce(&wrank, &bsum, 1, MPI_INT, MPI_SUM, ic));
    MPI_OK(MPI_Iallreduce(&wrank, &sum, 1, MPI_INT, MPI_SUM, ic, &r[3]));
    MPI_OK(MPI_Wait(&r[3], MPI_STATUS_IGNORE));
    MPI_OK(MPI_Waitall(3, r, MPI_STATUSES_IGNORE));
    CHECK(sum == sum_world(rgrp, rsize) && bsum == sum, "overlapped allreduce: %d and %d, expected %d", sum, bsum,
          sum_world(rgrp, rsize));
    if (color == 1)
        CHECK(bc == 4242, "overlapped bcast: %d", bc);
    int ea = 1, eb = 0;   /* v0 op (v1 op (... op v(q-1))) of the remote group */
    for (int i = rsize - 1; i >= 0; i--) {
        eb = 2 * eb + world_of(rgrp, i) + 1;
        ea *= 2;
    }
    CHECK(red[0] == ea && red[1] == eb, "non-commutative allreduce: (%d, %d), expected (%d, %d)", red[0], red[1],
          ea, eb);
    /* the same with Reduce to B's rank 0 */
    root = color == 1 ? (lrank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
    red[0] = red[1] = 0;
    MPI_OK(MPI_Ireduce(mine, red, 1, MPI_2INT, op, root, ic, &r[0]));
    MPI_OK(MPI_Wait(&r[0], MPI_STATUS_IGNORE));
    if (root == MPI_ROOT)
        CHECK(red[0] == ea && red[1] == eb, "non-commutative reduce: (%d, %d), expected (%d, %d)", red[0], red[1],
              ea, eb);
    MPI_OK(MPI_Op_free(&op));
    /* A persistent request freed while it runs completes all the same. */
    int x = wrank, y = -1;
    MPI_OK(MPI_Allreduce_init(&x, &y, 1, MPI_INT, MPI_SUM, ic, MPI_INFO_NULL, &r[0]));
    MPI_OK(MPI_Start(&r[0]));
    MPI_OK(MPI_Request_free(&r[0]));
    MPI_OK(MPI_Barrier(ic));
    MPI_OK(MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, ic));
    CHECK(y == sum_world(rgrp, rsize), "allreduce after a freed persistent one: %d", y);
}

/* Comm_idup of an intercommunicator: a working intercommunicator with the
 * same groups. */
static void test_idup(MPI_Comm ic)
{
    MPI_Comm d;
    MPI_Request r;
    MPI_OK(MPI_Comm_idup(ic, &d, &r));
    MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    int flag, n, v = wrank, s = -1;
    MPI_OK(MPI_Comm_test_inter(d, &flag));
    MPI_OK(MPI_Comm_remote_size(d, &n));
    CHECK(flag && n == rsize, "idup: inter %d, remote size %d", flag, n);
    MPI_OK(MPI_Iallreduce(&v, &s, 1, MPI_INT, MPI_SUM, d, &r));
    MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    CHECK(s == sum_world(1 - color, rsize), "allreduce on the idup: %d", s);
    MPI_OK(MPI_Comm_free(&d));
}

static void test_errors(MPI_Comm ic)
{
    int v = 0, x = 0, cnt[MAXP] = { 0 };
    MPI_Request r = MPI_REQUEST_NULL;
    expect_class(MPI_Ibarrier(MPI_COMM_NULL, &r), MPI_ERR_COMM, "ibarrier on MPI_COMM_NULL");
    expect_class(MPI_Barrier_init(MPI_COMM_NULL, MPI_INFO_NULL, &r), MPI_ERR_COMM, "barrier_init on MPI_COMM_NULL");
    if (ic == MPI_COMM_NULL)
        return;
    expect_class(MPI_Ibarrier(ic, NULL), MPI_ERR_ARG, "ibarrier with a NULL request");
    expect_class(MPI_Bcast_init(&v, 1, MPI_INT, 0, ic, MPI_INFO_NULL, NULL), MPI_ERR_ARG,
                 "bcast_init with a NULL request");
    expect_class(MPI_Ibcast(&v, 1, MPI_INT, rsize, ic, &r), MPI_ERR_ROOT, "ibcast root = remote size");
    expect_class(MPI_Bcast_init(&v, 1, MPI_INT, rsize, ic, MPI_INFO_NULL, &r), MPI_ERR_ROOT,
                 "bcast_init root = remote size");
    expect_class(MPI_Ireduce(&v, &x, 1, MPI_INT, MPI_SUM, -7, ic, &r), MPI_ERR_ROOT, "ireduce root = -7");
    expect_class(MPI_Igather(&v, 1, MPI_INT, &x, 1, MPI_INT, -7, ic, &r), MPI_ERR_ROOT, "igather root = -7");
    expect_class(MPI_Ibcast(MPI_IN_PLACE, 1, MPI_INT, MPI_ROOT, ic, &r), MPI_ERR_BUFFER, "ibcast of MPI_IN_PLACE");
    expect_class(MPI_Iallreduce(MPI_IN_PLACE, &x, 1, MPI_INT, MPI_SUM, ic, &r), MPI_ERR_BUFFER,
                 "iallreduce in place");
    expect_class(MPI_Iallreduce(&v, &x, -1, MPI_INT, MPI_SUM, ic, &r), MPI_ERR_COUNT, "iallreduce count -1");
    expect_class(MPI_Iallreduce(&v, &x, 1, MPI_INT, MPI_OP_NULL, ic, &r), MPI_ERR_OP, "iallreduce MPI_OP_NULL");
    expect_class(MPI_Iallgather(&v, 1, MPI_DATATYPE_NULL, &x, 1, MPI_INT, ic, &r), MPI_ERR_TYPE,
                 "iallgather sendtype MPI_DATATYPE_NULL");
    expect_class(MPI_Ireduce_scatter(&v, &x, NULL, MPI_INT, MPI_SUM, ic, &r), MPI_ERR_ARG,
                 "ireduce_scatter recvcounts NULL");
    cnt[0] = -1;
    expect_class(MPI_Ireduce_scatter(&v, &x, cnt, MPI_INT, MPI_SUM, ic, &r), MPI_ERR_COUNT,
                 "ireduce_scatter recvcounts[0] = -1");
    expect_class(MPI_Ialltoallw(&v, cnt, cnt, NULL, &x, cnt, cnt, NULL, ic, &r), MPI_ERR_ARG,
                 "ialltoallw sendtypes NULL");
    expect_class(MPI_Iscan(&v, &x, 1, MPI_INT, MPI_SUM, ic, &r), MPI_ERR_COMM, "iscan on an intercommunicator");
    expect_class(MPI_Exscan_init(&v, &x, 1, MPI_INT, MPI_SUM, ic, MPI_INFO_NULL, &r), MPI_ERR_COMM,
                 "exscan_init on an intercommunicator");
    expect_class(MPI_Allreduce_init(&v, &x, 1, MPI_INT, MPI_SUM, ic, (MPI_Info)0x1234, &r), MPI_ERR_INFO,
                 "allreduce_init with a bad info");
    CHECK(r == MPI_REQUEST_NULL, "a failed call set the request");
    /* a failed _init leaves no persistent mode behind: the next call runs */
    x = -1;
    MPI_OK(MPI_Iallreduce(&wrank, &x, 1, MPI_INT, MPI_SUM, ic, &r));
    MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    CHECK(x == sum_world(1 - color, rsize), "iallreduce after the errors: %d", x);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, &wrank, &wsize);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    if (wsize < 2 || wsize > MAXP) {
        test_errors(MPI_COMM_NULL);
        MPI_Finalize();
        printf("intercoll_nb: errors without an intercommunicator ok\n");
        return 0;
    }
    color = wrank % 2;
    nA = (wsize + 1) / 2;
    nB = wsize / 2;
    lsize = color ? nB : nA;
    rsize = color ? nA : nB;
    lrank = wrank / 2;
    MPI_Comm local, ic;
    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, color, wrank, &local));
    MPI_OK(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, 1 - color, 78, &ic));
    MPI_OK(MPI_Comm_set_errhandler(ic, MPI_ERRORS_RETURN));
    for (mode = 0; mode < 2; mode++) {
        test_rooted(ic);
        test_all(ic);
    }
    test_overlap(ic);
    test_idup(ic);
    test_errors(ic);
    MPI_OK(MPI_Comm_free(&ic));
    MPI_OK(MPI_Comm_free(&local));
    MPI_Finalize();
    if (wrank == 0)
        printf("intercoll_nb: %d + %d ranks: non-blocking and persistent ok\n", nA, nB);
    return 0;
}
