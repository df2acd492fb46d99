/*
 * Process topologies by the letter of MPI 4.0 chapter 8: row-major
 * Cartesian numbering, Cart_shift at the edges of open and periodic
 * dimensions (MPI_PROC_NULL off an open edge), Cart_rank wrapping periodic
 * coordinates, Cart_sub (and the zero-dimensional result of keeping no
 * dimension: a communicator of the calling process alone, at every rank,
 * MPI 4.1 8.5.7), Cart_get/Cartdim_get, Cart_map, the standard's graph
 * example (8.5.3) with Graph_get/Graphdims_get/Graph_neighbors,
 * Dist_graph_create and _adjacent with their neighbour queries (order as
 * given, weights), Topo_test, Comm_dup keeping the topology, and the
 * error classes of queries on the wrong kind of communicator. Any number
 * of ranks.
 */
#include "mpi_test.h"

static int size, rank;

/* The expected row-major rank of coords in a grid (-1 off an open edge). */
static int rank_of(int nd, const int *dims, const int *periods, const int *coords)
{
    int r = 0;
    for (int d = 0; d < nd; d++) {
        int c = coords[d];
        if (periods[d])
            c = ((c % dims[d]) + dims[d]) % dims[d];
        else if (c < 0 || c >= dims[d])
            return -1;
        r = r * dims[d] + c;
    }
    return r;
}

/* MPI 4.1 8.5.7: MPI_Cart_sub's newcomm is the "communicator containing the
 * subgrid that includes the calling process", and if all entries of
 * remain_dims are false, or comm already has a zero-dimensional topology,
 * newcomm has a zero-dimensional Cartesian topology. Every process is then
 * a subgrid of its own: each one (not only rank 0, as MPICH 4.2 has it)
 * gets a communicator of one process, itself, congruent to MPI_COMM_SELF. */
static void zero_dim_sub(MPI_Comm sub)
{
    CHECK(sub != MPI_COMM_NULL, "Cart_sub keeping no dimension gave MPI_COMM_NULL at rank %d", rank);
    int cmp, sr, nd, r, st;
    MPI_OK(MPI_Comm_compare(sub, MPI_COMM_SELF, &cmp));
    CHECK(cmp == MPI_CONGRUENT, "Cart_sub keeping no dimension: compared with MPI_COMM_SELF %d", cmp);
    MPI_OK(MPI_Comm_rank(sub, &sr));
    CHECK(sr == 0, "rank %d in a zero-dimensional grid", sr);
    /* the queries of a grid with no dimension: nothing to write */
    MPI_OK(MPI_Cart_get(sub, 0, NULL, NULL, NULL));
    MPI_OK(MPI_Cart_coords(sub, 0, 0, NULL));
    MPI_OK(MPI_Cart_rank(sub, NULL, &r));
    CHECK(r == 0, "Cart_rank in a zero-dimensional grid %d", r);
    int sum = 0, one = 1;
    MPI_OK(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, sub));
    CHECK(sum == 1, "Allreduce over a zero-dimensional grid: %d", sum);
    /* Cart_sub of a zero-dimensional communicator: zero-dimensional again */
    MPI_Comm again;
    MPI_OK(MPI_Cart_sub(sub, NULL, &again));
    CHECK(again != MPI_COMM_NULL, "Cart_sub of a zero-dimensional grid gave MPI_COMM_NULL");
    MPI_OK(MPI_Cartdim_get(again, &nd));
    MPI_OK(MPI_Topo_test(again, &st));
    MPI_OK(MPI_Comm_compare(again, MPI_COMM_SELF, &cmp));
    CHECK(nd == 0 && st == MPI_CART && cmp == MPI_CONGRUENT,
          "Cart_sub of a zero-dimensional grid: ndims %d topo %d compare %d", nd, st, cmp);
    MPI_OK(MPI_Comm_free(&again));
}

/* The same from a one-dimensional grid over all processes. */
static void cart_sub_1d_none(void)
{
    int dims[1] = { size }, periods[1] = { 0 }, remain[1] = { 0 };
    MPI_Comm c, sub;
    MPI_OK(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &c));
    MPI_OK(MPI_Cart_sub(c, remain, &sub));
    int nd;
    MPI_OK(MPI_Cartdim_get(sub, &nd));
    CHECK(nd == 0, "Cart_sub of a 1-D grid keeping nothing: ndims %d", nd);
    zero_dim_sub(sub);
    MPI_OK(MPI_Comm_free(&sub));
    MPI_OK(MPI_Comm_free(&c));
}

static void cart(void)
{
    int dims[3] = { 0, 0, 0 }, periods[3] = { 1, 0, 1 };
    MPI_OK(MPI_Dims_create(size, 3, dims));
    MPI_Comm c;
    MPI_OK(MPI_Cart_create(MPI_COMM_WORLD, 3, dims, periods, 0, &c));
    int st, nd, cr;
    MPI_OK(MPI_Topo_test(c, &st));
    CHECK(st == MPI_CART, "Topo_test of a Cartesian communicator %d", st);
    MPI_OK(MPI_Cartdim_get(c, &nd));
    CHECK(nd == 3, "Cartdim_get %d", nd);
    MPI_OK(MPI_Comm_rank(c, &cr));
    int gd[3], gp[3], gc[3], coords[3];
    MPI_OK(MPI_Cart_get(c, 3, gd, gp, gc));
    MPI_OK(MPI_Cart_coords(c, cr, 3, coords));
    /* row-major: the last dimension varies fastest */
    int want[3] = { cr / (dims[1] * dims[2]), (cr / dims[2]) % dims[1], cr % dims[2] };
    for (int d = 0; d < 3; d++) {
        CHECK(gd[d] == dims[d] && (gp[d] != 0) == periods[d], "Cart_get dim %d: %d %d", d, gd[d], gp[d]);
        CHECK(gc[d] == want[d] && coords[d] == want[d], "coords[%d] of rank %d: get %d, coords %d, expected %d", d,
              cr, gc[d], coords[d], want[d]);
    }
    int r;
    MPI_OK(MPI_Cart_rank(c, coords, &r));
    CHECK(r == cr, "Cart_rank(own coords) %d, expected %d", r, cr);
    /* periodic dimensions wrap in Cart_rank */
    int wrap[3] = { coords[0] - dims[0], coords[1], coords[2] + 2 * dims[2] };
    MPI_OK(MPI_Cart_rank(c, wrap, &r));
    CHECK(r == cr, "Cart_rank(wrapped coords) %d, expected %d", r, cr);
    int off[3] = { coords[0], dims[1], coords[2] };
    int cl = mt_class(MPI_Cart_rank(c, off, &r));
    CHECK(cl == MPI_ERR_RANK || cl == MPI_ERR_ARG, "Cart_rank off an open dimension: class %d", cl);
    /* Cart_shift: every dimension, displacements -3..3 */
    for (int d = 0; d < 3; d++)
        for (int disp = -3; disp <= 3; disp++) {
            int src, dst, t[3];
            MPI_OK(MPI_Cart_shift(c, d, disp, &src, &dst));
            memcpy(t, coords, sizeof(t));
            t[d] += disp;
            int wd = rank_of(3, dims, periods, t);
            memcpy(t, coords, sizeof(t));
            t[d] -= disp;
            int ws = rank_of(3, dims, periods, t);
            CHECK(dst == (wd < 0 ? MPI_PROC_NULL : wd) && src == (ws < 0 ? MPI_PROC_NULL : ws),
                  "Cart_shift(dim %d, disp %d) at coords (%d,%d,%d): src %d dst %d, expected %d %d", d, disp,
                  coords[0], coords[1], coords[2], src, dst, ws, wd);
        }
    /* a shift along a dimension that is not there */
    int s1, s2;
    cl = mt_class(MPI_Cart_shift(c, 3, 1, &s1, &s2));
    CHECK(cl == MPI_ERR_ARG || cl == MPI_ERR_DIMS, "Cart_shift direction 3 of 3: class %d", cl);

    /* Cart_sub keeping dimensions 0 and 2: rank order and periods follow */
    int remain[3] = { 1, 0, 1 };
    MPI_Comm sub;
    MPI_OK(MPI_Cart_sub(c, remain, &sub));
    int sn, sr, sd[2], sp[2], sc[2];
    MPI_OK(MPI_Comm_size(sub, &sn));
    MPI_OK(MPI_Comm_rank(sub, &sr));
    MPI_OK(MPI_Cart_get(sub, 2, sd, sp, sc));
    CHECK(sn == dims[0] * dims[2] && sr == coords[0] * dims[2] + coords[2], "Cart_sub: size %d rank %d", sn, sr);
    CHECK(sd[0] == dims[0] && sd[1] == dims[2] && sp[0] == 1 && sp[1] == 1 && sc[0] == coords[0] &&
          sc[1] == coords[2], "Cart_sub's grid");
    /* the members are those with my coordinate in the dropped dimension */
    int *all = malloc(sizeof(int) * (size_t)sn), me = rank;
    MPI_OK(MPI_Allgather(&me, 1, MPI_INT, all, 1, MPI_INT, sub));
    for (int i = 0; i < sn; i++) {
        int t[3] = { i / dims[2], coords[1], i % dims[2] };
        CHECK(all[i] == rank_of(3, dims, periods, t), "Cart_sub rank %d is world %d", i, all[i]);
    }
    free(all);
    MPI_OK(MPI_Comm_free(&sub));
    /* keeping nothing: a zero-dimensional Cartesian communicator of one process */
    int none[3] = { 0, 0, 0 };
    MPI_OK(MPI_Cart_sub(c, none, &sub));
    MPI_OK(MPI_Comm_size(sub, &sn));
    MPI_OK(MPI_Cartdim_get(sub, &nd));
    MPI_OK(MPI_Topo_test(sub, &st));
    CHECK(sn == 1 && nd == 0 && st == MPI_CART, "Cart_sub(no dims): size %d ndims %d topo %d", sn, nd, st);
    zero_dim_sub(sub);
    MPI_OK(MPI_Comm_free(&sub));
    /* Comm_dup keeps the topology */
    MPI_Comm d;
    MPI_OK(MPI_Comm_dup(c, &d));
    MPI_OK(MPI_Cartdim_get(d, &nd));
    CHECK(nd == 3, "a duplicate's Cartdim %d", nd);
    MPI_OK(MPI_Comm_free(&d));
    MPI_OK(MPI_Comm_free(&c));

    /* a grid smaller than the communicator: the rest get MPI_COMM_NULL */
    int one[1] = { size > 1 ? size - 1 : 1 }, p0[1] = { 0 };
    MPI_OK(MPI_Cart_create(MPI_COMM_WORLD, 1, one, p0, 0, &c));
    CHECK((c == MPI_COMM_NULL) == (rank >= one[0]), "Cart_create of %d of %d: rank %d got %s", one[0], size, rank,
          c == MPI_COMM_NULL ? "MPI_COMM_NULL" : "a communicator");
    if (c != MPI_COMM_NULL)
        MPI_OK(MPI_Comm_free(&c));
    int m;
    MPI_OK(MPI_Cart_map(MPI_COMM_WORLD, 1, one, p0, &m));
    CHECK(m == (rank < one[0] ? rank : MPI_UNDEFINED), "Cart_map gave %d", m);
    /* a grid larger than the communicator is erroneous */
    int toobig[1] = { size + 1 };
    cl = mt_class(MPI_Cart_create(MPI_COMM_WORLD, 1, toobig, p0, 0, &c));
    CHECK(cl == MPI_ERR_ARG || cl == MPI_ERR_TOPOLOGY || cl == MPI_ERR_DIMS, "grid of %d on %d: class %d", size + 1,
          size, cl);
    /* zero dimensions: one process */
    MPI_OK(MPI_Cart_create(MPI_COMM_WORLD, 0, NULL, NULL, 0, &c));
    CHECK((c == MPI_COMM_NULL) == (rank != 0), "Cart_create(ndims 0) at rank %d", rank);
    if (c != MPI_COMM_NULL) {
        MPI_OK(MPI_Comm_size(c, &sn));
        CHECK(sn == 1, "zero-dimensional grid of size %d", sn);
        /* Cart_sub of it (remain_dims may be NULL: it has no entry) */
        MPI_OK(MPI_Cart_sub(c, NULL, &sub));
        zero_dim_sub(sub);
        MPI_OK(MPI_Comm_free(&sub));
        MPI_OK(MPI_Comm_free(&c));
    }
    cart_sub_1d_none();
}

/* MPI 4.0 8.5.3's example: 4 nodes, 0: 1 3, 1: 0, 2: 3, 3: 0 2. */
static void graph(void)
{
    int index[4] = { 2, 3, 4, 6 }, edges[6] = { 1, 3, 0, 3, 0, 2 };
    int nn = size < 4 ? size : 4;
    if (nn < 4)
        return;
    MPI_Comm g;
    MPI_OK(MPI_Graph_create(MPI_COMM_WORLD, 4, index, edges, 0, &g));
    CHECK((g == MPI_COMM_NULL) == (rank >= 4), "Graph_create of 4 nodes at rank %d", rank);
    int m;
    MPI_OK(MPI_Graph_map(MPI_COMM_WORLD, 4, index, edges, &m));
    CHECK(m == (rank < 4 ? rank : MPI_UNDEFINED), "Graph_map gave %d", m);
    if (g == MPI_COMM_NULL)
        return;
    int st, nnodes, nedges;
    MPI_OK(MPI_Topo_test(g, &st));
    CHECK(st == MPI_GRAPH, "Topo_test of a graph %d", st);
    MPI_OK(MPI_Graphdims_get(g, &nnodes, &nedges));
    CHECK(nnodes == 4 && nedges == 6, "Graphdims_get %d %d", nnodes, nedges);
    int gi[4], ge[6];
    MPI_OK(MPI_Graph_get(g, 4, 6, gi, ge));
    CHECK(memcmp(gi, index, sizeof(gi)) == 0 && memcmp(ge, edges, sizeof(ge)) == 0, "Graph_get differs");
    int cnt, nb[4];
    MPI_OK(MPI_Graph_neighbors_count(g, rank, &cnt));
    int lo = rank ? index[rank - 1] : 0;
    CHECK(cnt == index[rank] - lo, "Graph_neighbors_count %d", cnt);
    MPI_OK(MPI_Graph_neighbors(g, rank, 4, nb));
    for (int i = 0; i < cnt; i++)
        CHECK(nb[i] == edges[lo + i], "neighbour %d is %d, expected %d", i, nb[i], edges[lo + i]);
    int cl = mt_class(MPI_Cart_coords(g, 0, 1, nb));
    CHECK(cl == MPI_ERR_TOPOLOGY, "Cart_coords on a graph: class %d", cl);
    int dd;
    cl = mt_class(MPI_Cartdim_get(g, &dd));
    CHECK(cl == MPI_ERR_TOPOLOGY, "Cartdim_get on a graph: class %d", cl);
    cl = mt_class(MPI_Graph_neighbors_count(g, 4, &cnt));
    CHECK(cl == MPI_ERR_RANK || cl == MPI_ERR_ARG, "Graph_neighbors_count of rank 4: class %d", cl);
    MPI_OK(MPI_Comm_free(&g));
}

static void dist_graph(void)
{
    /* adjacent: sources left and left-left, destinations right, weighted */
    int l1 = (rank + size - 1) % size, l2 = (rank + size - 2) % size, r1 = (rank + 1) % size;
    int src[2] = { l1, l2 }, sw[2] = { 10, 20 }, dst[1] = { r1 }, dw[1] = { 30 };
    MPI_Comm g;
    MPI_OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, src, sw, 1, dst, dw, MPI_INFO_NULL, 0, &g));
    int st, in, out, weighted;
    MPI_OK(MPI_Topo_test(g, &st));
    CHECK(st == MPI_DIST_GRAPH, "Topo_test of a distributed graph %d", st);
    MPI_OK(MPI_Dist_graph_neighbors_count(g, &in, &out, &weighted));
    CHECK(in == 2 && out == 1 && weighted, "neighbors_count %d %d %d", in, out, weighted);
    int s[2], w1[2], d[1], w2[1];
    MPI_OK(MPI_Dist_graph_neighbors(g, 2, s, w1, 1, d, w2));
    CHECK(s[0] == l1 && s[1] == l2 && w1[0] == 10 && w1[1] == 20 && d[0] == r1 && w2[0] == 30,
          "Dist_graph_neighbors: sources %d %d (%d %d), destination %d (%d)", s[0], s[1], w1[0], w1[1], d[0], w2[0]);
    MPI_OK(MPI_Comm_free(&g));
    MPI_OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, src, MPI_UNWEIGHTED, 1, dst, MPI_UNWEIGHTED,
                                          MPI_INFO_NULL, 0, &g));
    MPI_OK(MPI_Dist_graph_neighbors_count(g, &in, &out, &weighted));
    CHECK(in == 1 && out == 1 && !weighted, "unweighted neighbors_count %d %d %d", in, out, weighted);
    MPI_OK(MPI_Comm_free(&g));

    /* Dist_graph_create: rank 0 names every edge i -> (i + 1) % size; the others none */
    int n = rank == 0 ? size : 0;
    int *sources = malloc(sizeof(int) * (size_t)(size + 1)), *degrees = malloc(sizeof(int) * (size_t)(size + 1));
    int *dests = malloc(sizeof(int) * (size_t)(size + 1));
    for (int i = 0; i < size; i++) {
        sources[i] = i;
        degrees[i] = 1;
        dests[i] = (i + 1) % size;
    }
    MPI_OK(MPI_Dist_graph_create(MPI_COMM_WORLD, n, sources, degrees, dests, MPI_UNWEIGHTED, MPI_INFO_NULL, 0,
                                 &g));
    MPI_OK(MPI_Dist_graph_neighbors_count(g, &in, &out, &weighted));
    CHECK(in == 1 && out == 1 && !weighted, "Dist_graph_create: counts %d %d %d", in, out, weighted);
    MPI_OK(MPI_Dist_graph_neighbors(g, 1, s, MPI_UNWEIGHTED, 1, d, MPI_UNWEIGHTED));
    CHECK(s[0] == l1 && d[0] == r1, "Dist_graph_create: source %d destination %d", s[0], d[0]);
    int cl = mt_class(MPI_Graph_neighbors_count(g, 0, &in));
    CHECK(cl == MPI_ERR_TOPOLOGY, "Graph_neighbors_count on a distributed graph: class %d", cl);
    MPI_OK(MPI_Comm_free(&g));
    free(sources);
    free(degrees);
    free(dests);

    /* a communicator without topology */
    MPI_OK(MPI_Topo_test(MPI_COMM_WORLD, &st));
    CHECK(st == MPI_UNDEFINED, "Topo_test of world %d", st);
    cl = mt_class(MPI_Dist_graph_neighbors_count(MPI_COMM_WORLD, &in, &out, &weighted));
    CHECK(cl == MPI_ERR_TOPOLOGY, "Dist_graph_neighbors_count on world: class %d", cl);
    int sh, sh2;
    cl = mt_class(MPI_Cart_shift(MPI_COMM_WORLD, 0, 1, &sh, &sh2));
    CHECK(cl == MPI_ERR_TOPOLOGY, "Cart_shift on world: class %d", cl);
}

/* Arguments the standard rules out, each with the class naming the fault. */
static void topo_errors(void)
{
    MPI_Comm c = MPI_COMM_NULL;
    int cl;
    /* a graph of more nodes than processes */
    int *idx = malloc(sizeof(int) * (size_t)(size + 1)), edge0[1] = { 0 };
    for (int i = 0; i <= size; i++)
        idx[i] = 0;
    cl = mt_class(MPI_Graph_create(MPI_COMM_WORLD, size + 1, idx, edge0, 0, &c));
    CHECK(cl == MPI_ERR_ARG || cl == MPI_ERR_TOPOLOGY, "Graph_create of %d nodes on %d: class %d", size + 1, size,
          cl);
    free(idx);
    /* an edge to a node that does not exist */
    int index2[1] = { 1 }, bad_edge[1] = { 1 };
    cl = mt_class(MPI_Graph_create(MPI_COMM_WORLD, 1, index2, bad_edge, 0, &c));
    CHECK(cl == MPI_ERR_ARG || cl == MPI_ERR_TOPOLOGY || cl == MPI_ERR_RANK, "Graph_create edge to node 1 of 1: "
          "class %d", cl);
    /* a distributed-graph neighbour outside the communicator */
    int out_of_range[1] = { size };
    cl = mt_class(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, out_of_range, MPI_UNWEIGHTED, 0, NULL,
                                                 MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &c));
    CHECK(cl == MPI_ERR_ARG || cl == MPI_ERR_RANK || cl == MPI_ERR_TOPOLOGY,
          "Dist_graph_create_adjacent with source %d: class %d", size, cl);
    /* negative degree */
    cl = mt_class(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, -1, NULL, MPI_UNWEIGHTED, 0, NULL, MPI_UNWEIGHTED,
                                                 MPI_INFO_NULL, 0, &c));
    CHECK(cl == MPI_ERR_ARG, "Dist_graph_create_adjacent with indegree -1: class %d", cl);
    /* a non-positive dimension */
    int zero[1] = { 0 }, p0[1] = { 0 };
    cl = mt_class(MPI_Cart_create(MPI_COMM_WORLD, 1, zero, p0, 0, &c));
    CHECK(cl == MPI_ERR_DIMS || cl == MPI_ERR_ARG, "Cart_create with dims 0: class %d", cl);
    /* Cart_coords into fewer dimensions than the grid has, of a rank outside it */
    int dims[2] = { 1, size }, per[2] = { 0, 0 }, co[2];
    MPI_OK(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, per, 0, &c));
    cl = mt_class(MPI_Cart_coords(c, 0, 1, co));
    CHECK(cl == MPI_ERR_ARG || cl == MPI_ERR_DIMS, "Cart_coords with maxdims 1 of 2: class %d", cl);
    cl = mt_class(MPI_Cart_coords(c, size, 2, co));
    CHECK(cl == MPI_ERR_RANK, "Cart_coords of rank %d: class %d", size, cl);
    /* Cart_sub on a graph-less, cart-less communicator */
    int keep[1] = { 1 };
    MPI_Comm sub;
    cl = mt_class(MPI_Cart_sub(MPI_COMM_WORLD, keep, &sub));
    CHECK(cl == MPI_ERR_TOPOLOGY, "Cart_sub of world: class %d", cl);
    MPI_OK(MPI_Comm_free(&c));
    CHECK(c == MPI_COMM_NULL, "Comm_free of a Cartesian communicator left the handle");
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, &rank, &size);
    cart();
    graph();
    dist_graph();
    topo_errors();
    MPI_Finalize();
    if (rank == 0)
        printf("test_conf_topo: %d ranks ok\n", size);
    return 0;
}
