/*
 * A collective in which some processes call the large-count (_c) form and
 * the others the int form (MPI-4.1 matches calls by type signature, not by
 * binding; MPICH and Open MPI accept it): odd ranks call the _c form, even
 * ranks the int form, and every rank is the root once, so the root is one
 * or the other. Blocking and non-blocking gatherv, scatterv, allgatherv,
 * alltoallv, alltoallw, reduce_scatter and the neighbourhood
 * allgatherv/alltoallv/alltoallw on a periodic ring. Element j of the block
 * rank f sends to rank t is val(f, t, j); the receive buffers keep a gap
 * of one element before every block, which must stay -1.
 * Gatherv on an intercommunicator too, the root in either group.
 * Then one rank alone passes values beyond INT_MAX (displacements 2^31 + a
 * few elements into a sparse buffer) to a _c form while the others call the
 * int form: gatherv and scatterv at the root, allgatherv and alltoallv.
 */
#include <limits.h>
#include <sys/mman.h>
#include "mpi_test.h"

#define MAXP 8
#define NB 2       /* 0: blocking, 1: non-blocking */

static int me, p;

static int val(int from, int to, int j)
{
    return 1000 * from + 10 * to + j;
}

static int cnt(int from, int to)
{
    return 1 + (from + 2 * to) % 3;
}

static int use_c(int rank)
{
    return rank % 2;
}

static void wait_nb(int nb, MPI_Request *r)
{
    if (nb)
        MPI_OK(MPI_Wait(r, MPI_STATUS_IGNORE));
}

/* Blocks of count(i) at displs with a gap of one before each; returns the
 * total length. */
static int layout(int n, const int *count, int *displs, MPI_Count *cc, MPI_Aint *cd)
{
    int at = 0;
    for (int i = 0; i < n; i++) {
        displs[i] = at + 1;
        cc[i] = count[i];
        cd[i] = displs[i];
        at += count[i] + 1;
    }
    return at;
}

/* buf[n blocks at displs] holds val(from(i), to(i), j); the gaps hold -1. */
static void check_blocks(const char *what, const int *buf, int len, int n, const int *count, const int *displs,
                         const int *from, const int *to)
{
    int k = 0;
    for (int i = 0; i < n; i++) {
        for (; k < displs[i]; k++)
            CHECK(buf[k] == -1, "%s: gap element %d is %d", what, k, buf[k]);
        for (int j = 0; j < count[i]; j++, k++)
            CHECK(buf[k] == val(from[i], to[i], j), "%s: block %d element %d is %d, expected %d", what, i, j,
                  buf[k], val(from[i], to[i], j));
    }
    CHECK(k == len, "%s: layout of %d elements, %d checked", what, len, k);
}

static void clear(int *buf, int len)
{
    for (int i = 0; i < len; i++)
        buf[i] = -1;
}

static void gatherv(int nb, int root)
{
    int count[MAXP], displs[MAXP], from[MAXP], to[MAXP], sbuf[4], rbuf[64];
    MPI_Count cc[MAXP];
    MPI_Aint cd[MAXP];
    MPI_Request r = MPI_REQUEST_NULL;
    for (int i = 0; i < p; i++)
        count[i] = cnt(i, root), from[i] = i, to[i] = root;
    int len = layout(p, count, displs, cc, cd);
    for (int j = 0; j < count[me]; j++)
        sbuf[j] = val(me, root, j);
    clear(rbuf, len);
    if (use_c(me) && nb)
        MPI_OK(MPI_Igatherv_c(sbuf, count[me], MPI_INT, rbuf, cc, cd, MPI_INT, root, MPI_COMM_WORLD, &r));
    else if (use_c(me))
        MPI_OK(MPI_Gatherv_c(sbuf, count[me], MPI_INT, rbuf, cc, cd, MPI_INT, root, MPI_COMM_WORLD));
    else if (nb)
        MPI_OK(MPI_Igatherv(sbuf, count[me], MPI_INT, rbuf, count, displs, MPI_INT, root, MPI_COMM_WORLD, &r));
    else
        MPI_OK(MPI_Gatherv(sbuf, count[me], MPI_INT, rbuf, count, displs, MPI_INT, root, MPI_COMM_WORLD));
    wait_nb(nb, &r);
    if (me == root)
        check_blocks(nb ? "igatherv" : "gatherv", rbuf, len, p, count, displs, from, to);
}

static void scatterv(int nb, int root)
{
    int count[MAXP], displs[MAXP], sbuf[64], rbuf[5], one = 1;
    MPI_Count cc[MAXP];
    MPI_Aint cd[MAXP];
    MPI_Request r = MPI_REQUEST_NULL;
    for (int i = 0; i < p; i++)
        count[i] = cnt(root, i);
    int len = layout(p, count, displs, cc, cd);
    clear(sbuf, len);
    for (int i = 0; i < p; i++)
        for (int j = 0; j < count[i]; j++)
            sbuf[displs[i] + j] = val(root, i, j);
    clear(rbuf, 5);
    if (use_c(me) && nb)
        MPI_OK(MPI_Iscatterv_c(sbuf, cc, cd, MPI_INT, rbuf + 1, count[me], MPI_INT, root, MPI_COMM_WORLD, &r));
    else if (use_c(me))
        MPI_OK(MPI_Scatterv_c(sbuf, cc, cd, MPI_INT, rbuf + 1, count[me], MPI_INT, root, MPI_COMM_WORLD));
    else if (nb)
        MPI_OK(MPI_Iscatterv(sbuf, count, displs, MPI_INT, rbuf + 1, count[me], MPI_INT, root, MPI_COMM_WORLD, &r));
    else
        MPI_OK(MPI_Scatterv(sbuf, count, displs, MPI_INT, rbuf + 1, count[me], MPI_INT, root, MPI_COMM_WORLD));
    wait_nb(nb, &r);
    check_blocks(nb ? "iscatterv" : "scatterv", rbuf, count[me] + 1, 1, &count[me], &one, &root, &me);
}

static void allgatherv(int nb)
{
    int count[MAXP], displs[MAXP], from[MAXP], to[MAXP], sbuf[4], rbuf[64];
    MPI_Count cc[MAXP];
    MPI_Aint cd[MAXP];
    MPI_Request r = MPI_REQUEST_NULL;
    for (int i = 0; i < p; i++)
        count[i] = cnt(i, 0), from[i] = i, to[i] = 0;
    int len = layout(p, count, displs, cc, cd);
    for (int j = 0; j < count[me]; j++)
        sbuf[j] = val(me, 0, j);
    clear(rbuf, len);
    if (use_c(me) && nb)
        MPI_OK(MPI_Iallgatherv_c(sbuf, count[me], MPI_INT, rbuf, cc, cd, MPI_INT, MPI_COMM_WORLD, &r));
    else if (use_c(me))
        MPI_OK(MPI_Allgatherv_c(sbuf, count[me], MPI_INT, rbuf, cc, cd, MPI_INT, MPI_COMM_WORLD));
    else if (nb)
        MPI_OK(MPI_Iallgatherv(sbuf, count[me], MPI_INT, rbuf, count, displs, MPI_INT, MPI_COMM_WORLD, &r));
    else
        MPI_OK(MPI_Allgatherv(sbuf, count[me], MPI_INT, rbuf, count, displs, MPI_INT, MPI_COMM_WORLD));
    wait_nb(nb, &r);
    check_blocks(nb ? "iallgatherv" : "allgatherv", rbuf, len, p, count, displs, from, to);
}

/* Alltoallv (w 0) or alltoallw (w 1, byte displacements) over comm, whose
 * n peers are peer[] in WORLD ranks; neighbor: the neighbourhood forms. */
static void alltoallx(int nb, int w, int neighbor, MPI_Comm comm, int n, const int *peer)
{
    int sc[MAXP], sd[MAXP], rc[MAXP], rd[MAXP], from[MAXP], to[MAXP], sbuf[64], rbuf[64];
    MPI_Count scc[MAXP], rcc[MAXP];
    MPI_Aint scd[MAXP], rcd[MAXP];
    MPI_Datatype types[MAXP];
    MPI_Request r = MPI_REQUEST_NULL;
    for (int i = 0; i < n; i++) {
        sc[i] = cnt(me, peer[i]), rc[i] = cnt(peer[i], me), from[i] = peer[i], to[i] = me;
        types[i] = MPI_INT;
    }
    int slen = layout(n, sc, sd, scc, scd), rlen = layout(n, rc, rd, rcc, rcd);
    clear(sbuf, slen);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < sc[i]; j++)
            sbuf[sd[i] + j] = val(me, peer[i], j);
    clear(rbuf, rlen);
    if (w) {
        for (int i = 0; i < n; i++)
            scd[i] *= (MPI_Aint)sizeof(int), rcd[i] *= (MPI_Aint)sizeof(int);
    }
    /* the int forms' byte displacements: alltoallw's int, neighbour alltoallw's MPI_Aint */
    MPI_Aint sdb[MAXP], rdb[MAXP];
    int sdw[MAXP], rdw[MAXP];
    for (int i = 0; i < n; i++)
        sdb[i] = sdw[i] = (int)scd[i], rdb[i] = rdw[i] = (int)rcd[i];
    int c = use_c(me);
    if (!neighbor && !w) {
        if (c)
            MPI_OK(nb ? MPI_Ialltoallv_c(sbuf, scc, scd, MPI_INT, rbuf, rcc, rcd, MPI_INT, comm, &r)
                      : MPI_Alltoallv_c(sbuf, scc, scd, MPI_INT, rbuf, rcc, rcd, MPI_INT, comm));
        else
            MPI_OK(nb ? MPI_Ialltoallv(sbuf, sc, sd, MPI_INT, rbuf, rc, rd, MPI_INT, comm, &r)
                      : MPI_Alltoallv(sbuf, sc, sd, MPI_INT, rbuf, rc, rd, MPI_INT, comm));
    } else if (!neighbor) {
        if (c)
            MPI_OK(nb ? MPI_Ialltoallw_c(sbuf, scc, scd, types, rbuf, rcc, rcd, types, comm, &r)
                      : MPI_Alltoallw_c(sbuf, scc, scd, types, rbuf, rcc, rcd, types, comm));
        else
            MPI_OK(nb ? MPI_Ialltoallw(sbuf, sc, sdw, types, rbuf, rc, rdw, types, comm, &r)
                      : MPI_Alltoallw(sbuf, sc, sdw, types, rbuf, rc, rdw, types, comm));
    } else if (!w) {
        if (c)
            MPI_OK(nb ? MPI_Ineighbor_alltoallv_c(sbuf, scc, scd, MPI_INT, rbuf, rcc, rcd, MPI_INT, comm, &r)
                      : MPI_Neighbor_alltoallv_c(sbuf, scc, scd, MPI_INT, rbuf, rcc, rcd, MPI_INT, comm));
        else
            MPI_OK(nb ? MPI_Ineighbor_alltoallv(sbuf, sc, sd, MPI_INT, rbuf, rc, rd, MPI_INT, comm, &r)
                      : MPI_Neighbor_alltoallv(sbuf, sc, sd, MPI_INT, rbuf, rc, rd, MPI_INT, comm));
    } else {
        if (c)
            MPI_OK(nb ? MPI_Ineighbor_alltoallw_c(sbuf, scc, scd, types, rbuf, rcc, rcd, types, comm, &r)
                      : MPI_Neighbor_alltoallw_c(sbuf, scc, scd, types, rbuf, rcc, rcd, types, comm));
        else
            MPI_OK(nb ? MPI_Ineighbor_alltoallw(sbuf, sc, sdb, types, rbuf, rc, rdb, types, comm, &r)
                      : MPI_Neighbor_alltoallw(sbuf, sc, sdb, types, rbuf, rc, rdb, types, comm));
    }
    wait_nb(nb, &r);
    static const char *names[2][2][2] = { { { "alltoallv", "ialltoallv" }, { "alltoallw", "ialltoallw" } },
                                          { { "neighbor_alltoallv", "ineighbor_alltoallv" },
                                            { "neighbor_alltoallw", "ineighbor_alltoallw" } } };
    check_blocks(names[neighbor][w][nb], rbuf, rlen, n, rc, rd, from, to);
}

static void neighbor_allgatherv(int nb, MPI_Comm ring, const int *peer)
{
    int count[2], displs[2], from[2], to[2], sbuf[4], rbuf[16];
    MPI_Count cc[2];
    MPI_Aint cd[2];
    MPI_Request r = MPI_REQUEST_NULL;
    for (int i = 0; i < 2; i++)
        count[i] = cnt(peer[i], 0), from[i] = peer[i], to[i] = 0;
    int len = layout(2, count, displs, cc, cd);
    for (int j = 0; j < cnt(me, 0); j++)
        sbuf[j] = val(me, 0, j);
    clear(rbuf, len);
    if (use_c(me))
        MPI_OK(nb ? MPI_Ineighbor_allgatherv_c(sbuf, cnt(me, 0), MPI_INT, rbuf, cc, cd, MPI_INT, ring, &r)
                  : MPI_Neighbor_allgatherv_c(sbuf, cnt(me, 0), MPI_INT, rbuf, cc, cd, MPI_INT, ring));
    else
        MPI_OK(nb ? MPI_Ineighbor_allgatherv(sbuf, cnt(me, 0), MPI_INT, rbuf, count, displs, MPI_INT, ring, &r)
                  : MPI_Neighbor_allgatherv(sbuf, cnt(me, 0), MPI_INT, rbuf, count, displs, MPI_INT, ring));
    wait_nb(nb, &r);
    check_blocks(nb ? "ineighbor_allgatherv" : "neighbor_allgatherv", rbuf, len, 2, count, displs, from, to);
}

/* Block i of the vector (cnt(i, 0) elements) goes to rank i; element j of
 * rank f's block i is val(f, i, j), so rank i gets their sum over f. */
static void reduce_scatter(int nb)
{
    int count[MAXP], sbuf[64], rbuf[4], at = 0;
    MPI_Count cc[MAXP];
    MPI_Request r = MPI_REQUEST_NULL;
    for (int i = 0; i < p; i++) {
        count[i] = cc[i] = cnt(i, 0);
        for (int j = 0; j < count[i]; j++)
            sbuf[at++] = val(me, i, j);
    }
    clear(rbuf, 4);
    if (use_c(me))
        MPI_OK(nb ? MPI_Ireduce_scatter_c(sbuf, rbuf, cc, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r)
                  : MPI_Reduce_scatter_c(sbuf, rbuf, cc, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    else
        MPI_OK(nb ? MPI_Ireduce_scatter(sbuf, rbuf, count, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r)
                  : MPI_Reduce_scatter(sbuf, rbuf, count, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    wait_nb(nb, &r);
    for (int j = 0; j < count[me]; j++) {
        int sum = 0;
        for (int f = 0; f < p; f++)
            sum += val(f, me, j);
        CHECK(rbuf[j] == sum, "%s: element %d is %d, expected %d", nb ? "ireduce_scatter" : "reduce_scatter", j,
              rbuf[j], sum);
    }
    CHECK(rbuf[count[me]] == -1, "reduce_scatter: element past the block is %d", rbuf[count[me]]);
}

/* On an intercommunicator of the lower and upper halves of WORLD, each
 * group's rank 0 gathers the other group's blocks (MPI_ROOT; its other
 * ranks MPI_PROC_NULL), blocking then non-blocking. */
static void inter_gatherv(void)
{
    int low = me < p / 2, lsize = low ? p / 2 : p - p / 2, rsize = p - lsize, lrank = low ? me : me - p / 2;
    int base = low ? p / 2 : 0;   /* the remote group's first WORLD rank */
    MPI_Comm half, inter;
    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, low, me, &half));
    MPI_OK(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, low ? p / 2 : 0, 7, &inter));
    MPI_OK(MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN));
    for (int nb = 0; nb < NB; nb++)
        for (int g = 0; g < 2; g++) {   /* g 1: the lower group's rank 0 gathers */
            int gathering = g == low, rootw = g ? 0 : p / 2;
            int root = gathering ? (lrank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
            int count[MAXP], displs[MAXP], from[MAXP], to[MAXP], sbuf[4], rbuf[64], len = 0;
            MPI_Count cc[MAXP];
            MPI_Aint cd[MAXP];
            MPI_Request r = MPI_REQUEST_NULL;
            for (int i = 0; i < rsize; i++)
                count[i] = cnt(base + i, rootw), from[i] = base + i, to[i] = rootw;
            if (gathering)
                len = layout(rsize, count, displs, cc, cd);
            for (int j = 0; j < cnt(me, rootw); j++)
                sbuf[j] = val(me, rootw, j);
            clear(rbuf, 64);
            int sc = gathering ? 0 : cnt(me, rootw);
            if (use_c(me))
                MPI_OK(nb ? MPI_Igatherv_c(sbuf, sc, MPI_INT, rbuf, cc, cd, MPI_INT, root, inter, &r)
                          : MPI_Gatherv_c(sbuf, sc, MPI_INT, rbuf, cc, cd, MPI_INT, root, inter));
            else
                MPI_OK(nb ? MPI_Igatherv(sbuf, sc, MPI_INT, rbuf, count, displs, MPI_INT, root, inter, &r)
                          : MPI_Gatherv(sbuf, sc, MPI_INT, rbuf, count, displs, MPI_INT, root, inter));
            wait_nb(nb, &r);
            if (root == MPI_ROOT)
                check_blocks(nb ? "inter igatherv" : "inter gatherv", rbuf, len, rsize, count, displs, from, to);
        }
    MPI_OK(MPI_Comm_free(&inter));
    MPI_OK(MPI_Comm_free(&half));
}

/* The far part: blocks of FB chars at FAR(i) of a sparse buffer, char
 * element j of the block from f to t cval(f, t, j); the FB bytes after each
 * block stay 0. */
#define BIG ((MPI_Aint)1 << 31)
#define FAR(i) (BIG + 2 * FB * (MPI_Aint)(i))
#define FB 4

static unsigned char *far;

static unsigned char cval(int from, int to, int j)
{
    return (unsigned char)(1 + from * 32 + to * 4 + j);
}

static void far_check(const char *what, int n, const int *from, const int *to)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < 2 * FB; j++) {
            unsigned char want = j < FB ? cval(from[i], to[i], j) : 0;
            CHECK(far[FAR(i) + j] == want, "%s: byte %d of block %d is %d, expected %d", what, j, i,
                  far[FAR(i) + j], want);
        }
    memset(far + FAR(0), 0, (size_t)(2 * FB * n));
}

static void far_blocks(MPI_Count *cc, MPI_Aint *cd, int n)
{
    for (int i = 0; i < n; i++)
        cc[i] = FB, cd[i] = FAR(i);
}

/* Rank p - 1 is the root and calls the _c form with displacements beyond
 * INT_MAX; the others call the int form. */
static void far_rooted(void)
{
    int root = p - 1, from[MAXP], to[MAXP];
    MPI_Count cc[MAXP];
    MPI_Aint cd[MAXP];
    unsigned char small[FB];
    far_blocks(cc, cd, p);
    for (int j = 0; j < FB; j++)
        small[j] = cval(me, root, j);
    if (me == root)
        MPI_OK(MPI_Gatherv_c(small, FB, MPI_CHAR, far, cc, cd, MPI_CHAR, root, MPI_COMM_WORLD));
    else
        MPI_OK(MPI_Gatherv(small, FB, MPI_CHAR, NULL, NULL, NULL, MPI_CHAR, root, MPI_COMM_WORLD));
    for (int i = 0; i < p; i++)
        from[i] = i, to[i] = root;
    if (me == root)
        far_check("far gatherv", p, from, to);

    if (me == root)
        for (int i = 0; i < p; i++)
            for (int j = 0; j < FB; j++)
                far[FAR(i) + j] = cval(root, i, j);
    memset(small, 0, FB);
    if (me == root)
        MPI_OK(MPI_Scatterv_c(far, cc, cd, MPI_CHAR, small, FB, MPI_CHAR, root, MPI_COMM_WORLD));
    else
        MPI_OK(MPI_Scatterv(NULL, NULL, NULL, MPI_CHAR, small, FB, MPI_CHAR, root, MPI_COMM_WORLD));
    for (int j = 0; j < FB; j++)
        CHECK(small[j] == cval(root, me, j), "far scatterv: byte %d is %d, expected %d", j, small[j],
              cval(root, me, j));
    if (me == root)
        memset(far + FAR(0), 0, (size_t)(2 * FB * p));
}

/* Rank 0 calls the _c form with displacements beyond INT_MAX, the others
 * the int form with the same blocks near the start of a small buffer. */
static void far_all(void)
{
    int count[MAXP], displs[MAXP], from[MAXP], to[MAXP];
    MPI_Count cc[MAXP];
    MPI_Aint cd[MAXP];
    unsigned char small[FB], sbuf[2 * FB * MAXP], rbuf[2 * FB * MAXP];
    far_blocks(cc, cd, p);
    for (int i = 0; i < p; i++)
        count[i] = FB, displs[i] = 2 * FB * i, from[i] = i, to[i] = 0;
    for (int j = 0; j < FB; j++)
        small[j] = cval(me, 0, j);
    memset(rbuf, 0, sizeof(rbuf));
    if (me == 0)
        MPI_OK(MPI_Allgatherv_c(small, FB, MPI_CHAR, far, cc, cd, MPI_CHAR, MPI_COMM_WORLD));
    else
        MPI_OK(MPI_Allgatherv(small, FB, MPI_CHAR, rbuf, count, displs, MPI_CHAR, MPI_COMM_WORLD));
    if (me == 0)
        far_check("far allgatherv", p, from, to);
    else
        for (int i = 0; i < p; i++)
            for (int j = 0; j < FB; j++)
                CHECK(rbuf[displs[i] + j] == cval(i, 0, j), "far allgatherv at %d: block %d byte %d is %d", me,
                      i, j, rbuf[displs[i] + j]);

    /* alltoallv: rank 0 sends from and receives to far blocks */
    for (int i = 0; i < p; i++)
        for (int j = 0; j < FB; j++)
            sbuf[displs[i] + j] = cval(me, i, j);
    memset(rbuf, 0, sizeof(rbuf));
    if (me == 0) {
        /* sent from far blocks too, given from their own buffer (the same one
         * for both sides is aliasing) */
        unsigned char *send = far + FAR(p);
        for (int i = 0; i < p; i++)
            memcpy(send + FAR(i), sbuf + displs[i], FB);
        MPI_OK(MPI_Alltoallv_c(send, cc, cd, MPI_CHAR, far, cc, cd, MPI_CHAR, MPI_COMM_WORLD));
        for (int i = 0; i < p; i++)
            from[i] = i, to[i] = 0;
        far_check("far alltoallv", p, from, to);
    } else {
        MPI_OK(MPI_Alltoallv(sbuf, count, displs, MPI_CHAR, rbuf, count, displs, MPI_CHAR, MPI_COMM_WORLD));
        for (int i = 0; i < p; i++)
            for (int j = 0; j < FB; j++)
                CHECK(rbuf[displs[i] + j] == cval(i, me, j), "far alltoallv at %d: block %d byte %d is %d", me, i,
                      j, rbuf[displs[i] + j]);
    }
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, &me, &p);
    CHECK(p <= MAXP, "at most %d ranks", MAXP);
    int peer[MAXP], ring[2], dims = p, periods = 1;
    MPI_Comm cart;
    for (int i = 0; i < p; i++)
        peer[i] = i;
    MPI_OK(MPI_Cart_create(MPI_COMM_WORLD, 1, &dims, &periods, 0, &cart));
    MPI_OK(MPI_Comm_set_errhandler(cart, MPI_ERRORS_RETURN));
    MPI_OK(MPI_Cart_shift(cart, 0, 1, &ring[0], &ring[1]));
    for (int nb = 0; nb < NB; nb++) {
        for (int root = 0; root < p; root++) {
            gatherv(nb, root);
            scatterv(nb, root);
        }
        allgatherv(nb);
        reduce_scatter(nb);
        for (int w = 0; w < 2; w++) {
            alltoallx(nb, w, 0, MPI_COMM_WORLD, p, peer);
            alltoallx(nb, w, 1, cart, 2, ring);
        }
        neighbor_allgatherv(nb, cart, ring);
    }
    MPI_OK(MPI_Comm_free(&cart));
    if (p > 1)
        inter_gatherv();
    size_t len = (size_t)(FAR(p) + FAR(p));
    far = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    CHECK(far != MAP_FAILED, "no sparse buffer of %zu bytes", len);
    far_rooted();
    far_all();
    munmap(far, len);
    if (me == 0)
        printf("large_mix: %d ranks, _c on odd ranks: v/w collectives, reduce_scatter, neighbourhood, inter gatherv, far "
               "displacements on one rank: ok\n", p);
    MPI_Finalize();
    return 0;
}
