/*
 * Graph topologies: Graph_create and its inquiries (Graph_get,
 * Graphdims_get, Graph_neighbors(_count), Graph_map), and distributed graphs:
 * Dist_graph_create_adjacent, Dist_graph_create, Dist_graph_neighbors(_count).
 *
 * As for Cartesian grids, reorder is accepted and ignored: node i of the
 * graph is rank i of the old communicator.
 *
 * Dist_graph_create: each process may describe any edges; an edge s -> d
 * with weight w must end up as an out-edge at s and an in-edge at d. Every
 * process sends each edge it was given, as a record {kind, peer, weight},
 * to both ends (one all-to-all of record counts, one all-to-allv of records
 * over the new communicator). Each process keeps its records in the order
 * they arrive (by sending rank, then in the sender's order): deterministic,
 * as MPI asks.
 */
#include <stdlib.h>
#include <string.h>
#include "mpi/mpi_impl.h"

static struct rch_mpi_topo *get_kind(const char *fn, MPI_Comm comm, int kind, struct rch_mpi_comm **cp, int *err)
{
    *err = rch_mpi_check_init(fn);
    if (*err)
        return NULL;
    struct rch_mpi_comm *c = rch_mpi_comm_get(comm);
    if (!c) {
        *err = rch_mpi_comm_bad(fn, comm);
        return NULL;
    }
    if (!c->topo || c->topo->kind != kind) {
        *err = rch_mpi_err(comm, MPI_ERR_TOPOLOGY, "%s: communicator 0x%x in argument comm has no %s topology", fn, (unsigned)comm,
                           kind == MPI_GRAPH ? "graph" : "distributed graph");
        return NULL;
    }
    if (cp)
        *cp = c;
    return c->topo;
}

/* ---- Graph_create ---- */

int PMPI_Graph_create(MPI_Comm comm_old, int nnodes, const int indx[], const int edges[], int reorder,
                      MPI_Comm *comm_graph)
{
    RCH_MPI_CS();
    const char *fn = "MPI_Graph_create";
    int err = rch_mpi_check_init(fn);
    if (err)
        return err;
    struct rch_mpi_comm *p = rch_mpi_comm_get(comm_old);
    if (!p)
        return rch_mpi_comm_bad(fn, comm_old);
    if ((err = rch_mpi_intra_only(fn, p, "comm_old")))
        return err;
    if (!comm_graph)
        return rch_mpi_err(comm_old, MPI_ERR_ARG, "%s: argument comm_graph is NULL", fn);
    if (nnodes < 0)
        return rch_mpi_err(comm_old, MPI_ERR_ARG, "%s: negative nnodes %d", fn, nnodes);
    if (nnodes > p->size)
        return rch_mpi_err(comm_old, MPI_ERR_TOPOLOGY, "%s: nnodes %d is more than the communicator's %d processes",
                           fn, nnodes, p->size);
    if (nnodes == 0) {
        *comm_graph = MPI_COMM_NULL;
        return MPI_SUCCESS;
    }
    if (!indx)
        return rch_mpi_err(comm_old, MPI_ERR_ARG, "%s: argument index is NULL", fn);
    for (int i = 0; i < nnodes; i++)
        if (indx[i] < (i ? indx[i - 1] : 0))
            return rch_mpi_err(comm_old, MPI_ERR_ARG, "%s: index[%d] = %d is %s", fn, i, indx[i],
                               i ? "less than the entry before it" : "negative");
    int nedges = indx[nnodes - 1];
    if (nedges > 0 && !edges)
        return rch_mpi_err(comm_old, MPI_ERR_ARG, "%s: argument edges is NULL", fn);
    for (int e = 0; e < nedges; e++)
        if (edges[e] < 0 || edges[e] >= nnodes)
            return rch_mpi_err(comm_old, MPI_ERR_ARG, "%s: edges[%d] = %d is not a node (0 .. %d)", fn, e, edges[e],
                               nnodes - 1);
    int in = p->rank < nnodes;
    struct rch_mpi_topo *t = NULL;
    if (in) {
        t = calloc(1, sizeof(*t));
        int first = p->rank ? indx[p->rank - 1] : 0, deg = indx[p->rank] - first;
        if (t) {
            t->kind = MPI_GRAPH;
            t->nnodes = nnodes;
            t->nedges = nedges;
            t->index = malloc((size_t)nnodes * sizeof(int));
            t->edges = malloc((size_t)(nedges ? nedges : 1) * sizeof(int));
            t->in = malloc((size_t)(deg ? deg : 1) * sizeof(int));
            t->out = malloc((size_t)(deg ? deg : 1) * sizeof(int));
        }
        if (!t || !t->index || !t->edges || !t->in || !t->out) {
            rch_mpi_topo_free(t);
            return rch_mpi_err(comm_old, MPI_ERR_NO_MEM, "%s: out of memory", fn);
        }
        memcpy(t->index, indx, (size_t)nnodes * sizeof(int));
        if (nedges)
            memcpy(t->edges, edges, (size_t)nedges * sizeof(int));
        t->indegree = t->outdegree = deg;
        for (int k = 0; k < deg; k++)
            t->in[k] = t->out[k] = edges[first + k];
    }
    return rch_mpi_topo_comm(fn, p, in, t, comm_graph);
}
#pragma weak MPI_Graph_create = PMPI_Graph_create

int PMPI_Graph_map(MPI_Comm comm, int nnodes, const int indx[], const int edges[], int *newrank)
{
    RCH_MPI_CS();
    const char *fn = "MPI_Graph_map";
    int err = rch_mpi_check_init(fn);
    if (err)
        return err;
    struct rch_mpi_comm *c = rch_mpi_comm_get(comm);
    if (!c)
        return rch_mpi_comm_bad(fn, comm);
    if (!newrank)
        return rch_mpi_err(comm, MPI_ERR_ARG, "%s: argument newrank is NULL", fn);
    if (nnodes < 1 || nnodes > c->size)
        return rch_mpi_err(comm, MPI_ERR_ARG, "%s: nnodes %d is not in 1 .. %d (the communicator's size)", fn, nnodes,
                           c->size);
    *newrank = c->rank < nnodes ? c->rank : MPI_UNDEFINED;
    return MPI_SUCCESS;
}
#pragma weak MPI_Graph_map = PMPI_Graph_map

int PMPI_Graphdims_get(MPI_Comm comm, int *nnodes, int *nedges)
{
    RCH_MPI_CS();
    int err;
    struct rch_mpi_topo *t = get_kind("MPI_Graphdims_get", comm, MPI_GRAPH, NULL, &err);
    if (!t)
        return err;
    if (!nnodes || !nedges)
        return rch_mpi_err(comm, MPI_ERR_ARG, "MPI_Graphdims_get: argument %s is NULL", !nnodes ? "nnodes" : "nedges");
    *nnodes = t->nnodes;
    *nedges = t->nedges;
    return MPI_SUCCESS;
}
#pragma weak MPI_Graphdims_get = PMPI_Graphdims_get

int PMPI_Graph_get(MPI_Comm comm, int maxindex, int maxedges, int indx[], int edges[])
{
    RCH_MPI_CS();
    const char *fn = "MPI_Graph_get";
    int err;
    struct rch_mpi_topo *t = get_kind(fn, comm, MPI_GRAPH, NULL, &err);
    if (!t)
        return err;
    if (maxindex < 0 || maxedges < 0)
        return rch_mpi_err(comm, MPI_ERR_ARG, "%s: negative %s", fn, maxindex < 0 ? "maxindex" : "maxedges");
    if ((maxindex > 0 && !indx) || (maxedges > 0 && !edges))
        return rch_mpi_err(comm, MPI_ERR_ARG, "%s: argument %s is NULL", fn, maxindex > 0 && !indx ? "index" : "edges");
    int ni = maxindex < t->nnodes ? maxindex : t->nnodes, ne = maxedges < t->nedges ? maxedges : t->nedges;
    if (ni)
        memcpy(indx, t->index, (size_t)ni * sizeof(int));
    if (ne)
        memcpy(edges, t->edges, (size_t)ne * sizeof(int));
    return MPI_SUCCESS;
}
#pragma weak MPI_Graph_get = PMPI_Graph_get

int PMPI_Graph_neighbors_count(MPI_Comm comm, int rank, int *nneighbors)
{
    RCH_MPI_CS();
    const char *fn = "MPI_Graph_neighbors_count";
    int err;
    struct rch_mpi_topo *t = get_kind(fn, comm, MPI_GRAPH, NULL, &err);
    if (!t)
        return err;
    if (rank < 0 || rank >= t->nnodes)
        return rch_mpi_err(comm, MPI_ERR_RANK, "%s: invalid rank %d in argument rank (the graph has %d nodes)", fn,
                           rank, t->nnodes);
    if (!nneighbors)
        return rch_mpi_err(comm, MPI_ERR_ARG, "%s: argument nneighbors is NULL", fn);
    *nneighbors = t->index[rank] - (rank ? t->index[rank - 1] : 0);
    return MPI_SUCCESS;
}
#pragma weak MPI_Graph_neighbors_count = PMPI_Graph_neighbors_count

int PMPI_Graph_neighbors(MPI_Comm comm, int rank, int maxneighbors, int neighbors[])
{
    RCH_MPI_CS();
    const char *fn = "MPI_Graph_neighbors";
    int err;
    struct rch_mpi_topo *t = get_kind(fn, comm, MPI_GRAPH, NULL, &err);
    if (!t)
        return err;
    if (rank < 0 || rank >= t->nnodes)
        return rch_mpi_err(comm, MPI_ERR_RANK, "%s: invalid rank %d in argument rank (the graph has %d nodes)", fn,
                           rank, t->nnodes);
    int first = rank ? t->index[rank - 1] : 0, deg = t->index[rank] - first;
    if (maxneighbors < 0)
        return rch_mpi_err(comm, MPI_ERR_ARG, "%s: negative maxneighbors %d", fn, maxneighbors);
    if (maxneighbors > 0 && deg > 0 && !neighbors)
        return rch_mpi_err(comm, MPI_ERR_ARG, "%s: argument neighbors is NULL", fn);
    int n = deg < maxneighbors ? deg : maxneighbors;
    if (n)
        memcpy(neighbors, t->edges + first, (size_t)n * sizeof(int));
    return MPI_SUCCESS;
}
#pragma weak MPI_Graph_neighbors = PMPI_Graph_neighbors

/* ---- distributed graphs ---- */

/* A distributed-graph topology from this process's lists (weights NULL: unweighted). */
static struct rch_mpi_topo *dist_new(int indeg, const int *in, const int *inw, int outdeg, const int *out,
                                     const int *outw, int weighted)
{
    struct rch_mpi_topo *t = calloc(1, sizeof(*t));
    if (!t)
        return NULL;
    t->kind = MPI_DIST_GRAPH;
    t->indegree = indeg;
    t->outdegree = outdeg;
    t->weighted = weighted;
    size_t ni = (size_t)(indeg ? indeg : 1), no = (size_t)(outdeg ? outdeg : 1);
    t->in = malloc(ni * sizeof(int));
    t->out = malloc(no * sizeof(int));
    if (weighted) {
        t->inw = malloc(ni * sizeof(int));
        t->outw = malloc(no * sizeof(int));
    }
    if (!t->in || !t->out || (weighted && (!t->inw || !t->outw))) {
        rch_mpi_topo_free(t);
        return NULL;
    }
    if (indeg)
        memcpy(t->in, in, (size_t)indeg * sizeof(int));
    if (outdeg)
        memcpy(t->out, out, (size_t)outdeg * sizeof(int));
    for (int i = 0; weighted && i < indeg; i++)
        t->inw[i] = inw ? inw[i] : 1;
    for (int i = 0; weighted && i < outdeg; i++)
        t->outw[i] = outw ? outw[i] : 1;
    return t;
}

/* Checks a list of `n` neighbour ranks (named `arg`) against the communicator size. */
static int check_ranks(const char *fn, MPI_Comm comm, const char *arg, int n, const int *r, int size)
{
    if (n > 0 && !r)
        return rch_mpi_err(comm, MPI_ERR_ARG, "%s: argument %s is NULL", fn, arg);
    for (int i = 0; i < n; i++)
        if (r[i] < 0 || r[i] >= size)
            return rch_mpi_err(comm, MPI_ERR_RANK, "%s: invalid rank %d in %s[%d] (communicator size %d)", fn, r[i],
                               arg, i, size);
    return MPI_SUCCESS;
}

/* A weights argument: MPI_UNWEIGHTED, MPI_WEIGHTS_EMPTY (only for no edges)
 * or an array. */
static int check_weights(const char *fn, MPI_Comm comm, const char *arg, int n, const int *w)
{
    if (w == MPI_UNWEIGHTED)
        return MPI_SUCCESS;
    if (n > 0 && (!w || w == MPI_WEIGHTS_EMPTY))
        return rch_mpi_err(comm, MPI_ERR_ARG, "%s: argument %s is %s but there are %d edges", fn, arg,
                           w ? "MPI_WEIGHTS_EMPTY" : "NULL", n);
    for (int i = 0; i < n; i++)
        if (w[i] < 0)
            return rch_mpi_err(comm, MPI_ERR_ARG, "%s: %s[%d] = %d is negative", fn, arg, i, w[i]);
    return MPI_SUCCESS;
}

int PMPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[], const int sourceweights[],
                                    int outdegree, const int destinations[], const int destweights[], MPI_Info info,
                                    int reorder, MPI_Comm *comm_dist_graph)
{
    RCH_MPI_CS();
    const char *fn = "MPI_Dist_graph_create_adjacent";
    int err = rch_mpi_check_init(fn);
    if (err)
        return err;
    struct rch_mpi_comm *p = rch_mpi_comm_get(comm_old);
    if (!p)
        return rch_mpi_comm_bad(fn, comm_old);
    if ((err = rch_mpi_intra_only(fn, p, "comm_old")))
        return err;
    if (!comm_dist_graph)
        return rch_mpi_err(comm_old, MPI_ERR_ARG, "%s: argument comm_dist_graph is NULL", fn);
    if (indegree < 0 || outdegree < 0)
        return rch_mpi_err(comm_old, MPI_ERR_ARG, "%s: negative %s %d", fn, indegree < 0 ? "indegree" : "outdegree",
                           indegree < 0 ? indegree : outdegree);
    if ((err = check_ranks(fn, comm_old, "sources", indegree, sources, p->size)) ||
        (err = check_ranks(fn, comm_old, "destinations", outdegree, destinations, p->size)) ||
        (err = check_weights(fn, comm_old, "sourceweights", indegree, sourceweights)) ||
        (err = check_weights(fn, comm_old, "destweights", outdegree, destweights)) ||
        (err = rch_mpi_info_check(comm_old, fn, info)))
        return err;
    int weighted = sourceweights != MPI_UNWEIGHTED && destweights != MPI_UNWEIGHTED;
    struct rch_mpi_topo *t =
        dist_new(indegree, sources, weighted && indegree ? sourceweights : NULL, outdegree, destinations,
                 weighted && outdegree ? destweights : NULL, weighted);
    if (!t)
        return rch_mpi_err(comm_old, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    return rch_mpi_topo_comm(fn, p, 1, t, comm_dist_graph);
}
#pragma weak MPI_Dist_graph_create_adjacent = PMPI_Dist_graph_create_adjacent

/* One edge end as sent to a process: it is `kind` (0: an in-edge from peer,
 * 1: an out-edge to peer) with weight w. */
struct edge_rec {
    int kind, peer, w;
};

int PMPI_Dist_graph_create(MPI_Comm comm_old, int n, const int sources[], const int degrees[],
                           const int destinations[], const int weights[], MPI_Info info, int reorder,
                           MPI_Comm *comm_dist_graph)
{
    RCH_MPI_CS();
    const char *fn = "MPI_Dist_graph_create";
    int err = rch_mpi_check_init(fn);
    if (err)
        return err;
    struct rch_mpi_comm *p = rch_mpi_comm_get(comm_old);
    if (!p)
        return rch_mpi_comm_bad(fn, comm_old);
    if ((err = rch_mpi_intra_only(fn, p, "comm_old")))
        return err;
    if (!comm_dist_graph)
        return rch_mpi_err(comm_old, MPI_ERR_ARG, "%s: argument comm_dist_graph is NULL", fn);
    if (n < 0)
        return rch_mpi_err(comm_old, MPI_ERR_ARG, "%s: negative n %d", fn, n);
    if (n > 0 && !degrees)
        return rch_mpi_err(comm_old, MPI_ERR_ARG, "%s: argument degrees is NULL", fn);
    if ((err = check_ranks(fn, comm_old, "sources", n, sources, p->size)))
        return err;
    long long nedges = 0;
    for (int i = 0; i < n; i++) {
        if (degrees[i] < 0)
            return rch_mpi_err(comm_old, MPI_ERR_ARG, "%s: degrees[%d] = %d is negative", fn, i, degrees[i]);
        nedges += degrees[i];
    }
    if (nedges > (1 << 28))
        return rch_mpi_err(comm_old, MPI_ERR_ARG, "%s: %lld edges at one process is more than rdmach handles", fn, nedges);
    if ((err = check_ranks(fn, comm_old, "destinations", (int)nedges, destinations, p->size)) ||
        (err = check_weights(fn, comm_old, "weights", (int)nedges, weights)) ||
        (err = rch_mpi_info_check(comm_old, fn, info)))
        return err;

    /* The records for each process, counted then filled. */
    int size = p->size;
    int *scount = calloc((size_t)size * 4, sizeof(int));
    struct edge_rec *sbuf = malloc((size_t)(2 * nedges + 1) * sizeof(*sbuf));
    if (!scount || !sbuf) {
        free(scount);
        free(sbuf);
        return rch_mpi_err(comm_old, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    }
    int *sdispl = scount + size, *rcount = scount + 2 * size, *rdispl = scount + 3 * size;
    for (int i = 0, e = 0; i < n; i++)
        for (int k = 0; k < degrees[i]; k++, e++) {
            scount[sources[i]]++;
            scount[destinations[e]]++;
        }
    for (int r = 1; r < size; r++)
        sdispl[r] = sdispl[r - 1] + scount[r - 1];
    int *fill = calloc((size_t)size, sizeof(int));
    if (!fill) {
        free(scount);
        free(sbuf);
        return rch_mpi_err(comm_old, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    }
    int weighted = weights != MPI_UNWEIGHTED;
    for (int i = 0, e = 0; i < n; i++)
        for (int k = 0; k < degrees[i]; k++, e++) {
            int s = sources[i], d = destinations[e], w = weighted && weights ? weights[e] : 1;
            sbuf[sdispl[s] + fill[s]++] = (struct edge_rec){ 1, d, w };
            sbuf[sdispl[d] + fill[d]++] = (struct edge_rec){ 0, s, w };
        }
    free(fill);

    /* The new communicator first: the exchange runs on it. */
    MPI_Comm nc;
    err = rch_mpi_comm_split_common(fn, p, 0, p->rank, &nc, 0);
    if (err) {
        free(scount);
        free(sbuf);
        return err;
    }
    struct edge_rec *rbuf = NULL;
    MPI_Datatype rec = MPI_DATATYPE_NULL;
    int total = 0;
    err = PMPI_Allreduce(MPI_IN_PLACE, &weighted, 1, MPI_INT, MPI_MIN, nc);
    if (!err)
        err = PMPI_Alltoall(scount, 1, MPI_INT, rcount, 1, MPI_INT, nc);
    if (!err) {
        for (int r = 0; r < size; r++) {
            rdispl[r] = total;
            total += rcount[r];
        }
        rbuf = malloc((size_t)(total + 1) * sizeof(*rbuf));
        if (!rbuf)
            err = rch_mpi_err(comm_old, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    }
    if (!err)
        err = PMPI_Type_contiguous(3, MPI_INT, &rec);
    if (!err)
        err = PMPI_Type_commit(&rec);
    if (!err)
        err = PMPI_Alltoallv(sbuf, scount, sdispl, rec, rbuf, rcount, rdispl, rec, nc);
    if (rec != MPI_DATATYPE_NULL)
        PMPI_Type_free(&rec);
    free(sbuf);
    free(scount);
    struct rch_mpi_topo *t = NULL;
    if (!err) {
        int indeg = 0, outdeg = 0;
        for (int i = 0; i < total; i++) {
            if (rbuf[i].kind)
                outdeg++;
            else
                indeg++;
        }
        int *lists = malloc((size_t)(2 * (indeg + outdeg) + 1) * sizeof(int));
        if (lists) {
            int *in = lists, *inw = in + indeg, *out = inw + indeg, *outw = out + outdeg, a = 0, b = 0;
            for (int i = 0; i < total; i++) {
                if (rbuf[i].kind) {
                    out[b] = rbuf[i].peer;
                    outw[b++] = rbuf[i].w;
                } else {
                    in[a] = rbuf[i].peer;
                    inw[a++] = rbuf[i].w;
                }
            }
            t = dist_new(indeg, in, inw, outdeg, out, outw, weighted);
            free(lists);
        }
        if (!t)
            err = rch_mpi_err(comm_old, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    }
    free(rbuf);
    struct rch_mpi_comm *c = rch_mpi_comm_get(nc);
    if (err) {
        rch_mpi_comm_destroy(c);
        return err;
    }
    c->topo = t;
    *comm_dist_graph = nc;
    return MPI_SUCCESS;
}
#pragma weak MPI_Dist_graph_create = PMPI_Dist_graph_create

int PMPI_Dist_graph_neighbors_count(MPI_Comm comm, int *indegree, int *outdegree, int *weighted)
{
    RCH_MPI_CS();
    const char *fn = "MPI_Dist_graph_neighbors_count";
    int err;
    struct rch_mpi_topo *t = get_kind(fn, comm, MPI_DIST_GRAPH, NULL, &err);
    if (!t)
        return err;
    if (!indegree || !outdegree || !weighted)
        return rch_mpi_err(comm, MPI_ERR_ARG, "%s: argument %s is NULL", fn,
                           !indegree ? "indegree" : !outdegree ? "outdegree" : "weighted");
    *indegree = t->indegree;
    *outdegree = t->outdegree;
    *weighted = t->weighted;
    return MPI_SUCCESS;
}
#pragma weak MPI_Dist_graph_neighbors_count = PMPI_Dist_graph_neighbors_count

int PMPI_Dist_graph_neighbors(MPI_Comm comm, int maxindegree, int sources[], int sourceweights[], int maxoutdegree,
                              int destinations[], int destweights[])
{
    RCH_MPI_CS();
    const char *fn = "MPI_Dist_graph_neighbors";
    int err;
    struct rch_mpi_topo *t = get_kind(fn, comm, MPI_DIST_GRAPH, NULL, &err);
    if (!t)
        return err;
    if (maxindegree < 0 || maxoutdegree < 0)
        return rch_mpi_err(comm, MPI_ERR_ARG, "%s: %s %d is negative", fn,
                           maxindegree < 0 ? "maxindegree" : "maxoutdegree",
                           maxindegree < 0 ? maxindegree : maxoutdegree);
    /* MPI-4.1 8.5.5: with maxindegree or maxoutdegree below the degree, only
     * the first part of the full list is returned. */
    int nin = maxindegree < t->indegree ? maxindegree : t->indegree;
    int nout = maxoutdegree < t->outdegree ? maxoutdegree : t->outdegree;
    if ((nin > 0 && !sources) || (nout > 0 && !destinations))
        return rch_mpi_err(comm, MPI_ERR_ARG, "%s: argument %s is NULL", fn,
                           nin > 0 && !sources ? "sources" : "destinations");
    if (nin)
        memcpy(sources, t->in, (size_t)nin * sizeof(int));
    if (nout)
        memcpy(destinations, t->out, (size_t)nout * sizeof(int));
    /* Weights only for a weighted graph, and only into real arrays. */
    if (t->weighted && nin && sourceweights && sourceweights != MPI_UNWEIGHTED &&
        sourceweights != MPI_WEIGHTS_EMPTY)
        memcpy(sourceweights, t->inw, (size_t)nin * sizeof(int));
    if (t->weighted && nout && destweights && destweights != MPI_UNWEIGHTED &&
        destweights != MPI_WEIGHTS_EMPTY)
        memcpy(destweights, t->outw, (size_t)nout * sizeof(int));
    return MPI_SUCCESS;
}
#pragma weak MPI_Dist_graph_neighbors = PMPI_Dist_graph_neighbors
