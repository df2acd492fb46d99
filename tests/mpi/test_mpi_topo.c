/*
 * Process topologies on 4+ ranks: Dims_create (balanced, fixed entries,
 * errors), Cartesian grids (coords <-> rank for every rank, Cart_get,
 * Cart_shift checked by exchanging with the neighbours it names, periodic
 * wrap, Cart_sub, a grid smaller than the communicator, Comm_dup keeps the
 * topology), graphs (Graph_create and its inquiries), distributed graphs
 * (Dist_graph_create_adjacent weighted and unweighted, Dist_graph_create
 * with the edges described by their sources and all by rank 0), Topo_test,
 * and the errors of using the wrong kind.
 */
#include "mpi_test.h"

static int size;

static void test_dims_create(void)
{
    static const struct {
        int nnodes, ndims, in[3], out[3];
    } cases[] = {
        { 6, 2, { 0, 0 }, { 3, 2 } },
        { 12, 2, { 0, 0 }, { 4, 3 } },
        { 16, 3, { 0, 0, 0 }, { 4, 2, 2 } },
        { 7, 2, { 0, 0 }, { 7, 1 } },
        { 12, 2, { 0, 3 }, { 4, 3 } },
        { 24, 3, { 0, 2, 0 }, { 4, 2, 3 } },
        { 1, 3, { 0, 0, 0 }, { 1, 1, 1 } },
    };
    for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        int d[3];
        memcpy(d, cases[i].in, sizeof(d));
        MPI_OK(MPI_Dims_create(cases[i].nnodes, cases[i].ndims, d));
        for (int k = 0; k < cases[i].ndims; k++)
            CHECK(d[k] == cases[i].out[k], "Dims_create(%d, %d) case %u: dims[%d] = %d, expected %d",
                  cases[i].nnodes, cases[i].ndims, i, k, d[k], cases[i].out[k]);
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int d[2] = { 2, 0 };
    CHECK(mt_class(MPI_Dims_create(7, 2, d)) == MPI_ERR_DIMS, "7 nodes with a fixed 2");
    int e[2] = { 0, -1 };
    CHECK(mt_class(MPI_Dims_create(4, 2, e)) == MPI_ERR_DIMS, "negative entry");
    CHECK(mt_class(MPI_Dims_create(0, 2, d)) == MPI_ERR_ARG, "0 nodes");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

static void test_cart(void)
{
    int dims[2] = { 0, 0 }, periods[2] = { 1, 0 };
    MPI_OK(MPI_Dims_create(size, 2, dims));
    MPI_Comm cart;
    MPI_OK(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 1, &cart));
    CHECK(cart != MPI_COMM_NULL, "every rank is in a full grid");
    int st, nd, r, coords[2];
    MPI_OK(MPI_Topo_test(cart, &st));
    CHECK(st == MPI_CART, "Topo_test = %d", st);
    MPI_OK(MPI_Topo_test(MPI_COMM_WORLD, &st));
    CHECK(st == MPI_UNDEFINED, "Topo_test(world) = %d", st);
    MPI_OK(MPI_Cartdim_get(cart, &nd));
    CHECK(nd == 2, "Cartdim_get = %d", nd);
    MPI_OK(MPI_Comm_rank(cart, &r));
    CHECK(r == mt_rank, "no reordering: rank %d", r);
    /* Row-major: rank = c0 * dims[1] + c1, for every rank. */
    for (int q = 0; q < size; q++) {
        int back;
        MPI_OK(MPI_Cart_coords(cart, q, 2, coords));
        CHECK(coords[0] == q / dims[1] && coords[1] == q % dims[1], "coords of %d: (%d, %d)", q, coords[0], coords[1]);
        MPI_OK(MPI_Cart_rank(cart, coords, &back));
        CHECK(back == q, "Cart_rank(coords of %d) = %d", q, back);
    }
    int gd[2], gp[2], gc[2];
    MPI_OK(MPI_Cart_get(cart, 2, gd, gp, gc));
    CHECK(gd[0] == dims[0] && gd[1] == dims[1] && gp[0] == 1 && gp[1] == 0 && gc[0] == r / dims[1] &&
          gc[1] == r % dims[1], "Cart_get");
    /* Periodic dimension 0 wraps; dimension 1 is bounded. */
    int wrap[2] = { gc[0] + dims[0], gc[1] }, w;
    MPI_OK(MPI_Cart_rank(cart, wrap, &w));
    CHECK(w == r, "wrapped coords give %d", w);
    /* Shift: send my rank to dest, receive from source; what arrives is the source's rank. */
    for (int dir = 0; dir < 2; dir++) {
        int src, dst, got = -7;
        MPI_OK(MPI_Cart_shift(cart, dir, 1, &src, &dst));
        int want_dst = dir == 0 ? ((gc[0] + 1) % dims[0]) * dims[1] + gc[1]
                                : (gc[1] + 1 < dims[1] ? r + 1 : MPI_PROC_NULL);
        int want_src = dir == 0 ? ((gc[0] + dims[0] - 1) % dims[0]) * dims[1] + gc[1]
                                : (gc[1] > 0 ? r - 1 : MPI_PROC_NULL);
        CHECK(src == want_src && dst == want_dst, "shift dir %d: (%d, %d), expected (%d, %d)", dir, src, dst, want_src,
              want_dst);
        MPI_OK(MPI_Sendrecv(&r, 1, MPI_INT, dst, 3, &got, 1, MPI_INT, src, 3, cart, MPI_STATUS_IGNORE));
        CHECK(src == MPI_PROC_NULL ? got == -7 : got == src, "shift dir %d: received %d from %d", dir, got, src);
    }
    /* A duplicate keeps the topology. */
    MPI_Comm dup;
    MPI_OK(MPI_Comm_dup(cart, &dup));
    MPI_OK(MPI_Topo_test(dup, &st));
    MPI_OK(MPI_Cart_coords(dup, r, 2, coords));
    CHECK(st == MPI_CART && coords[0] == gc[0] && coords[1] == gc[1], "dup's topology");
    MPI_OK(MPI_Comm_free(&dup));
    /* Cart_sub keeping dimension 1: my row, rank = my column. */
    int keep[2] = { 0, 1 }, sr, sn;
    MPI_Comm row;
    MPI_OK(MPI_Cart_sub(cart, keep, &row));
    MPI_OK(MPI_Comm_rank(row, &sr));
    MPI_OK(MPI_Comm_size(row, &sn));
    MPI_OK(MPI_Cartdim_get(row, &nd));
    CHECK(sn == dims[1] && sr == gc[1] && nd == 1, "row: rank %d of %d, %d dims", sr, sn, nd);
    int sum = 0;
    MPI_OK(MPI_Allreduce(&mt_rank, &sum, 1, MPI_INT, MPI_SUM, row));
    int want = 0;
    for (int c = 0; c < dims[1]; c++)
        want += gc[0] * dims[1] + c;
    CHECK(sum == want, "row sum %d, expected %d", sum, want);
    MPI_OK(MPI_Comm_free(&row));

    /* Errors: wrong kind, out of range. */
    MPI_Comm_set_errhandler(cart, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int bad[2] = { 0, dims[1] };
    CHECK(mt_class(MPI_Cart_rank(cart, bad, &w)) == MPI_ERR_ARG, "coords past the bounded dimension");
    CHECK(mt_class(MPI_Cart_coords(cart, size, 2, coords)) == MPI_ERR_RANK, "coords of rank %d", size);
    CHECK(mt_class(MPI_Cart_shift(cart, 2, 1, &w, &w)) == MPI_ERR_ARG, "shift in direction 2");
    CHECK(mt_class(MPI_Cartdim_get(MPI_COMM_WORLD, &nd)) == MPI_ERR_TOPOLOGY, "Cartdim_get(world)");
    int in, out, wt;
    CHECK(mt_class(MPI_Dist_graph_neighbors_count(cart, &in, &out, &wt)) == MPI_ERR_TOPOLOGY,
          "dist-graph inquiry on a grid");
    int big[2] = { size, 2 };
    MPI_Comm none;
    CHECK(mt_class(MPI_Cart_create(MPI_COMM_WORLD, 2, big, periods, 0, &none)) == MPI_ERR_TOPOLOGY,
          "a grid larger than the communicator");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_OK(MPI_Comm_free(&cart));

    /* A 1-D grid of size - 1: the last rank is left out. */
    int d1 = size - 1, p1 = 0;
    MPI_OK(MPI_Cart_create(MPI_COMM_WORLD, 1, &d1, &p1, 0, &cart));
    if (mt_rank == size - 1) {
        CHECK(cart == MPI_COMM_NULL, "the rank outside the grid got a communicator");
    } else {
        MPI_OK(MPI_Comm_size(cart, &sn));
        CHECK(sn == size - 1, "1-D grid size %d", sn);
        MPI_OK(MPI_Comm_free(&cart));
    }
}

static void test_graph(void)
{
    /* A ring as a graph: node i's neighbours are i-1 and i+1. */
    int index[64], edges[128];
    for (int i = 0; i < size; i++) {
        index[i] = 2 * (i + 1);
        edges[2 * i] = (i + size - 1) % size;
        edges[2 * i + 1] = (i + 1) % size;
    }
    MPI_Comm g;
    MPI_OK(MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 0, &g));
    int st, nn, ne, cnt, nb[2];
    MPI_OK(MPI_Topo_test(g, &st));
    MPI_OK(MPI_Graphdims_get(g, &nn, &ne));
    CHECK(st == MPI_GRAPH && nn == size && ne == 2 * size, "graph: kind %d, %d nodes, %d edges", st, nn, ne);
    MPI_OK(MPI_Graph_neighbors_count(g, mt_rank, &cnt));
    MPI_OK(MPI_Graph_neighbors(g, mt_rank, 2, nb));
    CHECK(cnt == 2 && nb[0] == edges[2 * mt_rank] && nb[1] == edges[2 * mt_rank + 1], "my neighbours");
    int gi[64], ge[128];
    MPI_OK(MPI_Graph_get(g, size, 2 * size, gi, ge));
    CHECK(memcmp(gi, index, (size_t)size * sizeof(int)) == 0 && memcmp(ge, edges, 2 * (size_t)size * sizeof(int)) == 0,
          "Graph_get");
    MPI_OK(MPI_Comm_free(&g));
    /* Bad edges are rejected before anything is created. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    edges[0] = size;
    CHECK(mt_class(MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 0, &g)) == MPI_ERR_ARG, "edge to node %d", size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

static void test_dist_graph(void)
{
    int left = (mt_rank + size - 1) % size, right = (mt_rank + 1) % size;
    /* Adjacent, weighted: I receive from left (weight = its rank), send to right. */
    int src[1] = { left }, sw[1] = { left + 100 }, dst[1] = { right }, dw[1] = { mt_rank + 100 };
    MPI_Comm g;
    MPI_OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, src, sw, 1, dst, dw, MPI_INFO_NULL, 0, &g));
    int st, in, out, wt, s[4], sws[4], d[4], dws[4];
    MPI_OK(MPI_Topo_test(g, &st));
    MPI_OK(MPI_Dist_graph_neighbors_count(g, &in, &out, &wt));
    CHECK(st == MPI_DIST_GRAPH && in == 1 && out == 1 && wt, "adjacent: kind %d in %d out %d weighted %d", st, in, out,
          wt);
    MPI_OK(MPI_Dist_graph_neighbors(g, 4, s, sws, 4, d, dws));
    CHECK(s[0] == left && sws[0] == left + 100 && d[0] == right && dws[0] == mt_rank + 100, "adjacent lists");
    MPI_OK(MPI_Comm_free(&g));
    /* Unweighted. */
    MPI_OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, src, MPI_UNWEIGHTED, 1, dst, MPI_UNWEIGHTED, MPI_INFO_NULL,
                                          0, &g));
    MPI_OK(MPI_Dist_graph_neighbors_count(g, &in, &out, &wt));
    CHECK(in == 1 && out == 1 && !wt, "unweighted: in %d out %d weighted %d", in, out, wt);
    MPI_OK(MPI_Comm_free(&g));

    /* General: edges r -> r+1 (weight 10r+1) and r -> r+2 (weight 10r+2),
     * first each described by its source, then all by rank 0. */
    for (int variant = 0; variant < 2; variant++) {
        int n = 0, sources[64], degrees[64], dests[128], weights[128];
        if (variant == 0) {
            n = 1;
            sources[0] = mt_rank;
            degrees[0] = 2;
            dests[0] = (mt_rank + 1) % size;
            dests[1] = (mt_rank + 2) % size;
            weights[0] = 10 * mt_rank + 1;
            weights[1] = 10 * mt_rank + 2;
        } else if (mt_rank == 0) {
            n = size;
            for (int r = 0; r < size; r++) {
                sources[r] = r;
                degrees[r] = 2;
                dests[2 * r] = (r + 1) % size;
                dests[2 * r + 1] = (r + 2) % size;
                weights[2 * r] = 10 * r + 1;
                weights[2 * r + 1] = 10 * r + 2;
            }
        }
        MPI_OK(MPI_Dist_graph_create(MPI_COMM_WORLD, n, sources, degrees, dests, n ? weights : MPI_WEIGHTS_EMPTY,
                                     MPI_INFO_NULL, 0, &g));
        MPI_OK(MPI_Dist_graph_neighbors_count(g, &in, &out, &wt));
        CHECK(in == 2 && out == 2 && wt, "variant %d: in %d out %d weighted %d", variant, in, out, wt);
        MPI_OK(MPI_Dist_graph_neighbors(g, 4, s, sws, 4, d, dws));
        /* In-edges come from r-1 (weight 10(r-1)+1) and r-2 (10(r-2)+2), in some order. */
        int m1 = (mt_rank + size - 1) % size, m2 = (mt_rank + size - 2) % size;
        for (int i = 0; i < 2; i++)
            CHECK((s[i] == m1 && sws[i] == 10 * m1 + 1) || (s[i] == m2 && sws[i] == 10 * m2 + 2),
                  "variant %d: in-edge %d from %d weight %d", variant, i, s[i], sws[i]);
        CHECK(s[0] != s[1] || m1 == m2, "variant %d: the same in-edge twice", variant);
        for (int i = 0; i < 2; i++)
            CHECK((d[i] == (mt_rank + 1) % size && dws[i] == 10 * mt_rank + 1) ||
                      (d[i] == (mt_rank + 2) % size && dws[i] == 10 * mt_rank + 2),
                  "variant %d: out-edge %d to %d weight %d", variant, i, d[i], dws[i]);
        /* The lists are what the neighbourhood exchange would use: check them
         * by point-to-point messages along the out-edges. */
        int got[2] = { -1, -1 };
        MPI_Request rq[4];
        for (int i = 0; i < 2; i++)
            MPI_OK(MPI_Irecv(&got[i], 1, MPI_INT, s[i], 11, g, &rq[i]));
        for (int i = 0; i < 2; i++)
            MPI_OK(MPI_Isend(&mt_rank, 1, MPI_INT, d[i], 11, g, &rq[2 + i]));
        MPI_OK(MPI_Waitall(4, rq, MPI_STATUSES_IGNORE));
        CHECK(got[0] == s[0] && got[1] == s[1], "variant %d: messages from my in-neighbours", variant);
        MPI_OK(MPI_Comm_free(&g));
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int badsrc[1] = { size };
    CHECK(mt_class(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, badsrc, MPI_UNWEIGHTED, 0, NULL, MPI_UNWEIGHTED,
                                                  MPI_INFO_NULL, 0, &g)) == MPI_ERR_RANK,
          "in-neighbour %d", size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv)
{
    MPI_OK(MPI_Init(&argc, &argv));
    MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &mt_rank));
    MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    CHECK(size >= 4 && size <= 64, "run on 4 to 64 ranks");
    test_dims_create();
    test_cart();
    test_graph();
    test_dist_graph();
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (mt_rank == 0)
        printf("test_mpi_topo: OK on %d ranks\n", size);
    MPI_OK(MPI_Finalize());
    return 0;
}
