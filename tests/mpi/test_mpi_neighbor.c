/*
 * Neighbourhood collectives, blocking and non-blocking, on
 *   - a 2D periodic Cartesian grid (MPI_Dims_create): with 2 or 4 ranks a
 *     dimension has size 1 or 2, so a rank's -1 and +1 neighbours are the
 *     same rank and only the tags keep its two blocks apart;
 *   - a 1D non-periodic Cartesian line: the end ranks have MPI_PROC_NULL
 *     neighbours whose blocks must stay untouched;
 *   - a random distributed graph (MPI_Dist_graph_create_adjacent) with
 *     self-loops and repeated edges, which pair in the order listed.
 * Every received block is checked against the data its sender put in the
 * block meant for this rank: allgather(v), alltoall(v), alltoallw (byte
 * displacements), each non-blocking one outstanding together with the
 * others, then the blocking ones.
 *
 * Usage: test_mpi_neighbor [graph-rounds]   (default 3)
 */
#include <stdint.h>
#include "mpi_test.h"

#define SENT ((int)0x5a5a5a5a)
#define MAXDEG 64
#define K 5                      /* ints per block (alltoall, allgather) */

static int me, np;

/* The data rank `who` sends in its out-block j (element e). */
static int dat(int who, int j, int e)
{
    return (who + 1) * 100000 + j * 100 + e;
}

/* The v variants' count of out-block j of `who`: 0..3, zero included. */
static int vcount(int who, int j)
{
    return (who * 7 + j * 3) % 4;
}

struct topo {
    const char *name;
    int indeg, outdeg;
    int in[MAXDEG], out[MAXDEG];
    /* for receive block i: the sender's out-block index that targets me */
    int src_block[MAXDEG];
};

/* What block i must hold after an exchange where sender s filled its out
 * block b with `per` ints (dat(s, b, e)); PROC_NULL: untouched. */
static void check_block(const struct topo *t, const char *what, const int *got, int i, int n)
{
    int s = t->in[i], b = t->src_block[i];
    for (int e = 0; e < n; e++) {
        int want = s == MPI_PROC_NULL ? SENT : dat(s, b, e);
        CHECK(got[e] == want, "%s %s: block %d (from rank %d, its block %d) int %d is %d, expected %d",
              t->name, what, i, s, b, e, got[e], want);
    }
}

enum { A_GATHER, A_GATHERV, A_TOALL, A_TOALLV, A_TOALLW, NOPS };

/* Run the five exchanges on comm (non-blocking together, or blocking) and
 * check every block. */
static void exchange(MPI_Comm comm, const struct topo *t, int nonblocking)
{
    static int sbuf[NOPS][MAXDEG * K + 8], rbuf[NOPS][MAXDEG * K + 8];
    int scnt[MAXDEG], sdsp[MAXDEG], rcnt[MAXDEG], rdsp[MAXDEG];
    MPI_Aint sdb[MAXDEG], rdb[MAXDEG];
    MPI_Datatype types_s[MAXDEG], types_r[MAXDEG];
    int wcnt_s[MAXDEG], wcnt_r[MAXDEG];
    MPI_Request req[NOPS];
    const char *mode = nonblocking ? "(non-blocking)" : "(blocking)";

    for (int o = 0; o < NOPS; o++)
        for (int x = 0; x < MAXDEG * K + 8; x++) {
            sbuf[o][x] = SENT;
            rbuf[o][x] = SENT;
        }
    /* allgather(v): one block, the same for every out-neighbour: block "0" */
    for (int e = 0; e < K; e++)
        sbuf[A_GATHER][e] = sbuf[A_GATHERV][e] = dat(me, 0, e);
    /* alltoall(v/w): out-block j at j*K */
    for (int j = 0; j < t->outdeg; j++)
        for (int e = 0; e < K; e++)
            sbuf[A_TOALL][j * K + e] = sbuf[A_TOALLV][j * K + e] = sbuf[A_TOALLW][j * K + e] =
                dat(me, j, e);
    for (int j = 0; j < t->outdeg; j++) {
        scnt[j] = vcount(me, j);
        sdsp[j] = j * K;
        sdb[j] = (MPI_Aint)(j * K) * (MPI_Aint)sizeof(int);
        types_s[j] = MPI_INT;
        wcnt_s[j] = scnt[j];
    }
    /* receive layouts: block i at i*K (v: count from the sender's formula) */
    int gv_cnt[MAXDEG];
    for (int i = 0; i < t->indeg; i++) {
        int s = t->in[i];
        rcnt[i] = s == MPI_PROC_NULL ? 0 : vcount(s, t->src_block[i]);
        gv_cnt[i] = s == MPI_PROC_NULL ? 0 : vcount(s, 0);
        rdsp[i] = i * K;
        rdb[i] = (MPI_Aint)(i * K) * (MPI_Aint)sizeof(int);
        types_r[i] = MPI_INT;
        wcnt_r[i] = rcnt[i];
    }
    int gv_send = vcount(me, 0);
    if (nonblocking) {
        MPI_OK(MPI_Ineighbor_allgather(sbuf[A_GATHER], K, MPI_INT, rbuf[A_GATHER], K, MPI_INT, comm,
                                       &req[A_GATHER]));
        MPI_OK(MPI_Ineighbor_allgatherv(sbuf[A_GATHERV], gv_send, MPI_INT, rbuf[A_GATHERV], gv_cnt, rdsp,
                                        MPI_INT, comm, &req[A_GATHERV]));
        MPI_OK(MPI_Ineighbor_alltoall(sbuf[A_TOALL], K, MPI_INT, rbuf[A_TOALL], K, MPI_INT, comm,
                                      &req[A_TOALL]));
        MPI_OK(MPI_Ineighbor_alltoallv(sbuf[A_TOALLV], scnt, sdsp, MPI_INT, rbuf[A_TOALLV], rcnt, rdsp,
                                       MPI_INT, comm, &req[A_TOALLV]));
        MPI_OK(MPI_Ineighbor_alltoallw(sbuf[A_TOALLW], wcnt_s, sdb, types_s, rbuf[A_TOALLW], wcnt_r, rdb,
                                       types_r, comm, &req[A_TOALLW]));
        MPI_OK(MPI_Waitall(NOPS, req, MPI_STATUSES_IGNORE));
    } else {
        MPI_OK(MPI_Neighbor_allgather(sbuf[A_GATHER], K, MPI_INT, rbuf[A_GATHER], K, MPI_INT, comm));
        MPI_OK(MPI_Neighbor_allgatherv(sbuf[A_GATHERV], gv_send, MPI_INT, rbuf[A_GATHERV], gv_cnt, rdsp,
                                       MPI_INT, comm));
        MPI_OK(MPI_Neighbor_alltoall(sbuf[A_TOALL], K, MPI_INT, rbuf[A_TOALL], K, MPI_INT, comm));
        MPI_OK(MPI_Neighbor_alltoallv(sbuf[A_TOALLV], scnt, sdsp, MPI_INT, rbuf[A_TOALLV], rcnt, rdsp,
                                      MPI_INT, comm));
        MPI_OK(MPI_Neighbor_alltoallw(sbuf[A_TOALLW], wcnt_s, sdb, types_s, rbuf[A_TOALLW], wcnt_r, rdb,
                                      types_r, comm));
    }
    char what[64];
    for (int i = 0; i < t->indeg; i++) {
        /* allgather: every block is the sender's block 0 */
        struct topo g = *t;
        g.src_block[i] = 0;
        snprintf(what, sizeof(what), "neighbor_allgather %s", mode);
        check_block(&g, what, &rbuf[A_GATHER][i * K], i, K);
        snprintf(what, sizeof(what), "neighbor_allgatherv %s", mode);
        check_block(&g, what, &rbuf[A_GATHERV][i * K], i, gv_cnt[i]);
        snprintf(what, sizeof(what), "neighbor_alltoall %s", mode);
        check_block(t, what, &rbuf[A_TOALL][i * K], i, K);
        snprintf(what, sizeof(what), "neighbor_alltoallv %s", mode);
        check_block(t, what, &rbuf[A_TOALLV][i * K], i, rcnt[i]);
        snprintf(what, sizeof(what), "neighbor_alltoallw %s", mode);
        check_block(t, what, &rbuf[A_TOALLW][i * K], i, rcnt[i]);
        /* the v variants leave the rest of their block alone */
        for (int e = rcnt[i]; e < K; e++)
            CHECK(rbuf[A_TOALLV][i * K + e] == SENT, "%s: alltoallv wrote past block %d", t->name, i);
    }
}

/* A Cartesian communicator: lists from MPI_Cart_shift, and for receive
 * block 2d (from the -1 neighbour) the sender's block 2d+1 and vice versa. */
static void cart(int ndims, const int *dims, const int *periods, const char *name)
{
    MPI_Comm c;
    struct topo t = { .name = name };
    MPI_OK(MPI_Cart_create(MPI_COMM_WORLD, ndims, dims, periods, 0, &c));
    for (int d = 0; d < ndims; d++) {
        int src, dst;
        MPI_OK(MPI_Cart_shift(c, d, 1, &src, &dst));
        t.in[2 * d] = t.out[2 * d] = src;
        t.in[2 * d + 1] = t.out[2 * d + 1] = dst;
        t.src_block[2 * d] = 2 * d + 1;
        t.src_block[2 * d + 1] = 2 * d;
    }
    t.indeg = t.outdeg = 2 * ndims;
    exchange(c, &t, 1);
    exchange(c, &t, 0);
    MPI_OK(MPI_Comm_free(&c));
}

/* A random distributed graph every rank derives from the same seed. */
static void graph(int round)
{
    static int outs[64][MAXDEG / 2], nout[64];
    uint64_t seed = 0xabcdef12ull + (uint64_t)round * 31u;
    struct topo t = { .name = "dist graph" };
    for (int i = 0; i < np; i++) {
        nout[i] = (int)(mt_next(&seed) % 5);                    /* 0..4 edges, repeats allowed */
        for (int k = 0; k < nout[i]; k++)
            outs[i][k] = (int)(mt_next(&seed) % (uint64_t)np);   /* self-loops allowed */
    }
    t.outdeg = nout[me];
    for (int k = 0; k < nout[me]; k++)
        t.out[k] = outs[me][k];
    /* in-lists in sender order, each sender's edges in its own order: the
     * k-th message from s to me pairs with my k-th edge from s */
    for (int s = 0; s < np; s++)
        for (int k = 0; k < nout[s]; k++)
            if (outs[s][k] == me) {
                CHECK(t.indeg < MAXDEG, "too many in-edges");
                t.in[t.indeg] = s;
                t.src_block[t.indeg] = k;
                t.indeg++;
            }
    MPI_Comm g;
    MPI_OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, t.indeg, t.in, MPI_UNWEIGHTED, t.outdeg,
                                          t.out, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &g));
    exchange(g, &t, 1);
    exchange(g, &t, 0);
    MPI_OK(MPI_Comm_free(&g));
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 3;
    MPI_OK(MPI_Init(&argc, &argv));
    MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &me));
    MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &np));
    mt_rank = me;
    CHECK(np <= 64, "at most 64 ranks");

    int dims[2] = { 0, 0 }, periods[2] = { 1, 1 };
    MPI_OK(MPI_Dims_create(np, 2, dims));
    cart(2, dims, periods, "2D periodic grid");
    int line[1] = { np }, open_[1] = { 0 };
    cart(1, line, open_, "1D open line");
    for (int r = 0; r < rounds; r++)
        graph(r);

    /* a communicator without a topology: MPI_ERR_TOPOLOGY */
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int x = 0, y[4];
    int rc = MPI_Neighbor_allgather(&x, 1, MPI_INT, y, 1, MPI_INT, MPI_COMM_WORLD);
    CHECK(mt_class(rc) == MPI_ERR_TOPOLOGY, "neighbor_allgather on world gave class %d", mt_class(rc));
    MPI_Request rq;
    rc = MPI_Ineighbor_alltoall(&x, 1, MPI_INT, y, 1, MPI_INT, MPI_COMM_WORLD, &rq);
    CHECK(mt_class(rc) == MPI_ERR_TOPOLOGY, "ineighbor_alltoall on world gave class %d", mt_class(rc));

    if (me == 0)
        printf("test_mpi_neighbor: %d ranks (grid %d x %d), %d graphs: ok\n", np, dims[0], dims[1],
               rounds);
    MPI_OK(MPI_Finalize());
    return 0;
}
