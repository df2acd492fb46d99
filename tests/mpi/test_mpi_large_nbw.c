/*
 * MPI_Neighbor_alltoallw_c, MPI_Ineighbor_alltoallw_c and
 * MPI_Neighbor_alltoallw_init_c (src/mpi/large_nbw.c) with byte
 * displacements beyond 2^31 and a count beyond INT_MAX, on a ring of
 * three edges per rank: to rank + 1, to rank - 1 and to itself.
 *   edge 0: 16 MPI_BYTE;
 *   edge 1: one vector of 4 MPI_INT at stride 2 ints, received as 4
 *           contiguous MPI_INT (per-edge datatypes: the receiver gets the
 *           ints packed, MPI-4.1 5.1.1);
 *   edge 2: 2^31 + 5 elements of a type of size 0 (a contiguous type of
 *           none), at even ranks only: a count no int holds.
 * Even ranks put their blocks 2^31 + 64 k bytes into sparse buffers (the
 * large form); odd ranks near the start (the int form), so both forms meet
 * on every edge when the size is even. Every received byte is computed
 * from who sent it and on which edge and round; the bytes around each
 * block must stay 0. The persistent request is started twice, the send data
 * changed between the starts. The int forms, with the same far byte
 * displacements, likewise. Then the errors: a negative count, an
 * uncommitted datatype, a NULL array, each naming its argument.
 */
#include <sys/mman.h>
#include "mpi_test.h"

#define BIG ((MPI_Count)1 << 31)
#define BLK 16
#define NEAR(k) (64 * (MPI_Aint)(k) + 64)
#define FAR(k) (BIG + NEAR(k))

static int me, p;
static unsigned char *sbuf, *rbuf;
static MPI_Datatype vec, none;

static MPI_Aint at(int rank, int k)
{
    return rank % 2 ? NEAR(k) : FAR(k);
}

/* Byte j of what from sends on edge e in round. */
static unsigned char bytev(int from, int e, int round, int j)
{
    return (unsigned char)(1 + from * 29 + e * 7 + round * 3 + j);
}

static void put(int round)
{
    unsigned char *b = sbuf + at(me, 0);
    for (int j = 0; j < BLK; j++)
        b[j] = bytev(me, 0, round, j);
    int *v = (int *)(sbuf + at(me, 1));   /* ints 0, 2, 4, 6 go; 1, 3, 5 do not */
    for (int i = 0; i < 7; i++)
        v[i] = i % 2 ? -1 : bytev(me, 1, round, i / 2);
}

static void expect(const char *what, int round)
{
    int from[2] = { (me + p - 1) % p, (me + 1) % p };
    unsigned char *b = rbuf + at(me, 0);
    for (int j = 0; j < BLK; j++)
        CHECK(b[j] == bytev(from[0], 0, round, j), "%s round %d: byte %d from rank %d is %u, expected %u", what,
              round, j, from[0], b[j], bytev(from[0], 0, round, j));
    CHECK(b[-1] == 0 && b[BLK] == 0, "%s: wrote around block 0", what);
    memset(b, 0, BLK);
    int *v = (int *)(rbuf + at(me, 1));
    for (int i = 0; i < 4; i++)
        CHECK(v[i] == bytev(from[1], 1, round, i), "%s round %d: int %d from rank %d is %d, expected %d", what,
              round, i, from[1], v[i], bytev(from[1], 1, round, i));
    CHECK(((unsigned char *)v)[-1] == 0 && v[4] == 0, "%s: wrote around block 1", what);
    memset(v, 0, 4 * sizeof(int));
}

static void args(MPI_Count *sc, MPI_Aint *sd, MPI_Datatype *st, MPI_Count *rc, MPI_Aint *rd, MPI_Datatype *rt)
{
    MPI_Count self = me % 2 ? 0 : BIG + 5;
    MPI_Count s[3] = { BLK, 1, self }, r[3] = { BLK, 4, self };
    MPI_Datatype s_t[3] = { MPI_BYTE, vec, none }, r_t[3] = { MPI_BYTE, MPI_INT, none };
    for (int e = 0; e < 3; e++) {
        sc[e] = s[e], rc[e] = r[e], st[e] = s_t[e], rt[e] = r_t[e];
        sd[e] = rd[e] = at(me, e);
    }
}

static void wait_expect(MPI_Request *rq, const char *what, int round)
{
    MPI_OK(MPI_Wait(rq, MPI_STATUS_IGNORE));
    expect(what, round);
}

/* Two starts of a persistent request, rounds round and round + 1 (the send
 * data changed in between), then its release. */
static void persistent(MPI_Request *rq, const char *what, int round)
{
    for (int r = round; r < round + 2; r++) {
        put(r);
        MPI_OK(MPI_Start(rq));
        wait_expect(rq, what, r);
    }
    MPI_OK(MPI_Request_free(rq));
}

static void forms(MPI_Comm ring)
{
    MPI_Count sc[3], rc[3];
    MPI_Aint sd[3], rd[3];
    MPI_Datatype st[3], rt[3];
    MPI_Request rq;
    args(sc, sd, st, rc, rd, rt);
    put(0);
    MPI_OK(MPI_Neighbor_alltoallw_c(sbuf, sc, sd, st, rbuf, rc, rd, rt, ring));
    expect("Neighbor_alltoallw_c", 0);
    put(1);
    MPI_OK(MPI_Ineighbor_alltoallw_c(sbuf, sc, sd, st, rbuf, rc, rd, rt, ring, &rq));
    wait_expect(&rq, "Ineighbor_alltoallw_c", 1);
    put(2);
    MPI_OK(MPI_Neighbor_alltoallw_init_c(sbuf, sc, sd, st, rbuf, rc, rd, rt, ring, MPI_INFO_NULL, &rq));
    persistent(&rq, "Neighbor_alltoallw_init_c", 2);
}

/* The int forms: MPI_Aint byte displacements beyond 2^31 at even ranks
 * (MPI-3.1 already; the neighbourhood staging holds int ones). */
static void int_forms(MPI_Comm ring)
{
    MPI_Count sc[3], rc[3];
    MPI_Aint sd[3], rd[3];
    MPI_Datatype st[3], rt[3];
    MPI_Request rq;
    args(sc, sd, st, rc, rd, rt);
    int sci[3] = { (int)sc[0], (int)sc[1], 0 }, rci[3] = { (int)rc[0], (int)rc[1], 0 };
    put(4);
    MPI_OK(MPI_Neighbor_alltoallw(sbuf, sci, sd, st, rbuf, rci, rd, rt, ring));
    expect("Neighbor_alltoallw", 4);
    put(5);
    MPI_OK(MPI_Ineighbor_alltoallw(sbuf, sci, sd, st, rbuf, rci, rd, rt, ring, &rq));
    wait_expect(&rq, "Ineighbor_alltoallw", 5);
    MPI_OK(MPI_Neighbor_alltoallw_init(sbuf, sci, sd, st, rbuf, rci, rd, rt, ring, MPI_INFO_NULL, &rq));
    persistent(&rq, "Neighbor_alltoallw_init", 6);
}

/* On a graph of this process alone (a failing call leaves no peer waiting). */
static void errors(void)
{
    MPI_Comm g;
    int self[3] = { 0, 0, 0 };
    MPI_OK(MPI_Dist_graph_create_adjacent(MPI_COMM_SELF, 3, self, MPI_UNWEIGHTED, 3, self, MPI_UNWEIGHTED,
                                          MPI_INFO_NULL, 0, &g));
    MPI_Comm_set_errhandler(g, MPI_ERRORS_RETURN);
    MPI_Count sc[3], rc[3];
    MPI_Aint sd[3], rd[3];
    MPI_Datatype st[3], rt[3], loose;
    MPI_Request rq;
    args(sc, sd, st, rc, rd, rt);
    rc[1] = -BIG - 3;
    mt_expect_error(MPI_Neighbor_alltoallw_c(sbuf, sc, sd, st, rbuf, rc, rd, rt, g), MPI_ERR_COUNT, "recvcounts[1]",
                 "Neighbor_alltoallw_c recvcounts[1] = -2^31 - 3");
    args(sc, sd, st, rc, rd, rt);
    MPI_OK(MPI_Type_contiguous(4, MPI_INT, &loose));
    st[1] = loose, sc[1] = BIG + 1;
    mt_expect_error(MPI_Ineighbor_alltoallw_c(sbuf, sc, sd, st, rbuf, rc, rd, rt, g, &rq), MPI_ERR_TYPE, "sendcounts",
                 "Ineighbor_alltoallw_c uncommitted sendtypes[1]");
    MPI_OK(MPI_Type_free(&loose));
    args(sc, sd, st, rc, rd, rt);
    mt_expect_error(MPI_Neighbor_alltoallw_init_c(sbuf, sc, NULL, st, rbuf, rc, rd, rt, g, MPI_INFO_NULL, &rq),
                 MPI_ERR_ARG, "sdispls", "Neighbor_alltoallw_init_c sdispls NULL");
    MPI_OK(MPI_Comm_free(&g));
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, &me, &p);
    const size_t len = (size_t)FAR(4) + 64;
    sbuf = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    rbuf = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    CHECK(sbuf != MAP_FAILED && rbuf != MAP_FAILED, "no address space for 2 x %zu bytes", len);
    MPI_OK(MPI_Type_vector(4, 1, 2, MPI_INT, &vec));
    MPI_OK(MPI_Type_commit(&vec));
    MPI_OK(MPI_Type_contiguous(0, MPI_INT, &none));
    MPI_OK(MPI_Type_commit(&none));
    int out[3] = { (me + 1) % p, (me + p - 1) % p, me }, in[3] = { (me + p - 1) % p, (me + 1) % p, me };
    MPI_Comm ring;
    MPI_OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 3, in, MPI_UNWEIGHTED, 3, out, MPI_UNWEIGHTED,
                                          MPI_INFO_NULL, 0, &ring));
    MPI_Comm_set_errhandler(ring, MPI_ERRORS_RETURN);
    forms(ring);
    int_forms(ring);
    MPI_OK(MPI_Comm_free(&ring));
    errors();
    MPI_OK(MPI_Type_free(&vec));
    MPI_OK(MPI_Type_free(&none));
    munmap(sbuf, len);
    munmap(rbuf, len);
    MPI_Finalize();
    if (me == 0)
        printf("large_nbw: %d ranks ok\n", p);
    return 0;
}
