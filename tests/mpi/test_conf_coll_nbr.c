/*
 * Neighbourhood collectives (MPI-4.0 §8.6) on the topologies
 * test_mpi_neighbor leaves out, blocking and I*, against results computed
 * from the neighbour lists:
 *   - MPI_Graph_create: a ring with every edge listed twice (with 1 or 2
 *     ranks a neighbour appears several times; the j-th edge from s to me
 *     pairs with the j-th edge from me to s, §8.6);
 *   - a 2D non-periodic Cartesian grid: corner and edge ranks have
 *     MPI_PROC_NULL neighbours in both dimensions, whose blocks stay
 *     untouched;
 *   - zero counts, also of datatypes that are MPI_DATATYPE_NULL or not
 *     committed (MPICH checks a datatype only with a count > 0), in every
 *     form (v, w, persistent, large-count), and the errors: MPI_ERR_TOPOLOGY
 *     on a communicator without a topology, MPI_ERR_COUNT, MPI_ERR_TYPE,
 *     MPI_ERR_COMM.
 */
#include "mpi_test.h"

#define UNTOUCHED (-7)
#define K 3   /* ints per block */

static int me, np;
static MPI_Request rq_;

static int dat(int from, int block, int i)
{
    return 100000 * (from + 1) + 100 * block + i;
}

static void finish(int nb, int rc, const char *what)
{
    CHECK(rc == MPI_SUCCESS, "%s%s returned class %d", nb ? "I: " : "", what, mt_class(rc));
    if (nb)
        MPI_OK(MPI_Wait(&rq_, MPI_STATUS_IGNORE));
}
#define NCOLL(nb, name, iname, ...) \
    finish(nb, (nb) ? MPI_##iname(__VA_ARGS__, &rq_) : MPI_##name(__VA_ARGS__), #name)

/* The block index at which `s` sent what arrives at my receive index k:
 * the j-th edge s -> me pairs with the j-th edge me <- s. */
static int sender_block(const int *mine, int k, const int *theirs, int ntheirs)
{
    int j = 0;
    for (int q = 0; q < k; q++)
        j += mine[q] == mine[k];
    for (int m = 0; m < ntheirs; m++)
        if (theirs[m] == me && j-- == 0)
            return m;
    return -1;
}

/* One topology: my sources (= destinations: both kinds here are symmetric)
 * and, for each, the sender's own list (to find the block it sent me). */
/* Zero counts of datatypes a count of 0 does not examine (MPICH):
 * MPI_DATATYPE_NULL and an uncommitted type, in every form; n edges, zc and
 * zd n zeros. */
static void empty_types(MPI_Comm comm, int nb, int n, const int *zc, const int *zd)
{
    MPI_Datatype unc, *tv = malloc(sizeof(MPI_Datatype) * (size_t)(n + 1));
    MPI_Aint *zw = calloc((size_t)n + 1, sizeof(MPI_Aint));
    MPI_Count *zcc = calloc((size_t)n + 1, sizeof(MPI_Count));
    MPI_Request r;
    MPI_OK(MPI_Type_contiguous(2, MPI_INT, &unc));
    for (int i = 0; i < n; i++)
        tv[i] = i % 2 ? unc : MPI_DATATYPE_NULL;
    NCOLL(nb, Neighbor_alltoall, Ineighbor_alltoall, NULL, 0, MPI_DATATYPE_NULL, NULL, 0, unc, comm);
    NCOLL(nb, Neighbor_allgather, Ineighbor_allgather, NULL, 0, unc, NULL, 0, MPI_DATATYPE_NULL, comm);
    NCOLL(nb, Neighbor_allgatherv, Ineighbor_allgatherv, NULL, 0, MPI_DATATYPE_NULL, NULL, zc, zd, unc, comm);
    NCOLL(nb, Neighbor_alltoallv, Ineighbor_alltoallv, NULL, zc, zd, unc, NULL, zc, zd, MPI_DATATYPE_NULL, comm);
    NCOLL(nb, Neighbor_alltoallw, Ineighbor_alltoallw, NULL, zc, zw, tv, NULL, zc, zw, tv, comm);
    NCOLL(nb, Neighbor_alltoall_c, Ineighbor_alltoall_c, NULL, 0, MPI_DATATYPE_NULL, NULL, 0, unc, comm);
    NCOLL(nb, Neighbor_alltoallv_c, Ineighbor_alltoallv_c, NULL, zcc, zw, unc, NULL, zcc, zw, MPI_DATATYPE_NULL,
          comm);
    MPI_OK(MPI_Neighbor_alltoallw_init(NULL, zc, zw, tv, NULL, zc, zw, tv, comm, MPI_INFO_NULL, &r));
    MPI_OK(MPI_Start(&r));
    MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    MPI_OK(MPI_Request_free(&r));
    /* with data they are checked (every rank fails alike) */
    int rc = MPI_Neighbor_alltoall(zw, 1, unc, NULL, 0, MPI_INT, comm);
    CHECK(mt_class(rc) == MPI_ERR_TYPE, "Neighbor_alltoall of 1 uncommitted: class %d", mt_class(rc));
    MPI_OK(MPI_Type_free(&unc));
    free(tv);
    free(zw);
    free(zcc);
}

static void run(MPI_Comm comm, int n, const int *nbr, int (*list_of)(int rank, int *out), const char *topo)
{
    int *sb = malloc(sizeof(int) * K * (size_t)(n + 1)), *rb = malloc(sizeof(int) * K * (size_t)(n + 1));
    int *ag = malloc(sizeof(int) * K * (size_t)(n + 1));
    int theirs[64];
    for (int nb = 0; nb < 2; nb++) {
        for (int b = 0; b < n; b++)
            for (int i = 0; i < K; i++) {
                sb[K * b + i] = dat(me, b, i);
                rb[K * b + i] = ag[K * b + i] = UNTOUCHED;
            }
        int mine[K];
        for (int i = 0; i < K; i++)
            mine[i] = dat(me, 99, i);
        NCOLL(nb, Neighbor_alltoall, Ineighbor_alltoall, sb, K, MPI_INT, rb, K, MPI_INT, comm);
        NCOLL(nb, Neighbor_allgather, Ineighbor_allgather, mine, K, MPI_INT, ag, K, MPI_INT, comm);
        for (int k = 0; k < n; k++) {
            int s = nbr[k];
            for (int i = 0; i < K; i++) {
                int want = UNTOUCHED, wantg = UNTOUCHED;
                if (s != MPI_PROC_NULL) {
                    int nt = list_of(s, theirs);
                    int m = sender_block(nbr, k, theirs, nt);
                    CHECK(m >= 0, "%s: rank %d does not list me", topo, s);
                    want = dat(s, m, i);
                    wantg = dat(s, 99, i);
                }
                CHECK(rb[K * k + i] == want, "%s Neighbor_alltoall: block %d (from %d) [%d] = %d, expected %d", topo, k,
                      s, i, rb[K * k + i], want);
                CHECK(ag[K * k + i] == wantg, "%s Neighbor_allgather: block %d (from %d) [%d] = %d, expected %d", topo,
                      k, s, i, ag[K * k + i], wantg);
            }
        }
        /* zero counts: nothing moves, no buffer needed */
        NCOLL(nb, Neighbor_alltoall, Ineighbor_alltoall, NULL, 0, MPI_INT, NULL, 0, MPI_INT, comm);
        NCOLL(nb, Neighbor_allgather, Ineighbor_allgather, NULL, 0, MPI_INT, NULL, 0, MPI_INT, comm);
        int *zc = calloc((size_t)n + 1, sizeof(int)), *zd = calloc((size_t)n + 1, sizeof(int));
        NCOLL(nb, Neighbor_alltoallv, Ineighbor_alltoallv, sb, zc, zd, MPI_INT, rb, zc, zd, MPI_INT, comm);
        empty_types(comm, nb, n, zc, zd);
        free(zc);
        free(zd);
    }
    /* errors, the same on every rank */
    int rc = MPI_Neighbor_alltoall(sb, -1, MPI_INT, rb, K, MPI_INT, comm);
    CHECK(mt_class(rc) == MPI_ERR_COUNT, "%s Neighbor_alltoall count -1: class %d", topo, mt_class(rc));
    rc = MPI_Ineighbor_allgather(sb, K, MPI_DATATYPE_NULL, rb, K, MPI_INT, comm, &rq_);
    CHECK(mt_class(rc) == MPI_ERR_TYPE, "%s Ineighbor_allgather MPI_DATATYPE_NULL: class %d", topo, mt_class(rc));
    free(sb);
    free(rb);
    free(ag);
}

/* the graph: a ring, each edge twice: i-1, i+1, i-1, i+1 */
static int ring_of(int r, int *out)
{
    out[0] = out[2] = (r - 1 + np) % np;
    out[1] = out[3] = (r + 1) % np;
    return 4;
}

static int dims[2];
/* the grid's neighbours: -1 and +1 in dimension 0, then in dimension 1 */
static int grid_of(int r, int *out)
{
    int c[2] = { r / dims[1], r % dims[1] };
    for (int d = 0; d < 2; d++)
        for (int s = 0; s < 2; s++) {
            int cc[2] = { c[0], c[1] };
            cc[d] += s ? 1 : -1;
            out[2 * d + s] = cc[d] < 0 || cc[d] >= dims[d] ? MPI_PROC_NULL : cc[0] * dims[1] + cc[1];
        }
    return 4;
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, &me, &np);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);

    /* MPI_Graph_create: index[] and edges[] of the whole ring */
    int *index = malloc(sizeof(int) * (size_t)np), *edges = malloc(sizeof(int) * 4 * (size_t)np);
    for (int r = 0; r < np; r++) {
        ring_of(r, edges + 4 * r);
        index[r] = 4 * (r + 1);
    }
    MPI_Comm graph;
    MPI_OK(MPI_Graph_create(MPI_COMM_WORLD, np, index, edges, 0, &graph));
    MPI_Comm_set_errhandler(graph, MPI_ERRORS_RETURN);
    int nn, nbr[64];
    MPI_OK(MPI_Graph_neighbors_count(graph, me, &nn));
    CHECK(nn == 4, "Graph_neighbors_count %d", nn);
    MPI_OK(MPI_Graph_neighbors(graph, me, 4, nbr));
    int want[4];
    ring_of(me, want);
    CHECK(memcmp(nbr, want, sizeof(want)) == 0, "Graph_neighbors not in the order given");
    run(graph, 4, nbr, ring_of, "graph");
    MPI_OK(MPI_Comm_free(&graph));

    /* 2D non-periodic grid */
    dims[0] = dims[1] = 0;
    MPI_OK(MPI_Dims_create(np, 2, dims));
    int periods[2] = { 0, 0 };
    MPI_Comm cart;
    MPI_OK(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart));
    MPI_Comm_set_errhandler(cart, MPI_ERRORS_RETURN);
    for (int d = 0; d < 2; d++)
        MPI_OK(MPI_Cart_shift(cart, d, 1, &nbr[2 * d], &nbr[2 * d + 1]));
    grid_of(me, want);
    CHECK(memcmp(nbr, want, sizeof(want)) == 0, "Cart_shift neighbours differ from the grid's");
    run(cart, 4, nbr, grid_of, "cart");
    MPI_OK(MPI_Comm_free(&cart));

    /* no topology */
    int a[4], b[4 * 64];
    int rc = MPI_Neighbor_allgather(a, 1, MPI_INT, b, 1, MPI_INT, MPI_COMM_WORLD);
    CHECK(mt_class(rc) == MPI_ERR_TOPOLOGY, "Neighbor_allgather without a topology: class %d", mt_class(rc));
    rc = MPI_Ineighbor_alltoall(a, 1, MPI_INT, b, 1, MPI_INT, MPI_COMM_WORLD, &rq_);
    CHECK(mt_class(rc) == MPI_ERR_TOPOLOGY, "Ineighbor_alltoall without a topology: class %d", mt_class(rc));
    rc = MPI_Neighbor_alltoall(a, 1, MPI_INT, b, 1, MPI_INT, MPI_COMM_NULL);
    CHECK(mt_class(rc) == MPI_ERR_COMM, "Neighbor_alltoall MPI_COMM_NULL: class %d", mt_class(rc));
    free(index);
    free(edges);
    MPI_Finalize();
    if (me == 0)
        printf("conf_coll_nbr: %d ranks: graph (repeated edges) and 2D non-periodic cart, blocking and I*, "
               "zero counts (of any datatype), errors: ok\n", np);
    return 0;
}
