/*
 * Process topologies, the common part: the topology object attached to a
 * communicator (copy, free), its neighbour lists (for the neighbourhood
 * collectives) and Topo_test. The constructors and inquiries of each kind
 * are in topo_cart.c and topo_graph.c.
 *
 * Ownership: a communicator owns its topology (c->topo); Comm_dup gives the
 * duplicate its own copy, rch_mpi_comm_destroy frees it. Every array in the
 * object is its own allocation (NULL when empty).
 */
#include <stdlib.h>
#include <string.h>
#include "mpi/mpi_impl.h"

int rch_mpi_topo_comm(const char *fn, struct rch_mpi_comm *p, int in, struct rch_mpi_topo *t, MPI_Comm *newcomm)
{
    int err = rch_mpi_comm_split_common(fn, p, in ? 0 : MPI_UNDEFINED, p->rank, newcomm, 0);
    if (err || !in) {
        rch_mpi_topo_free(t);
        return err;
    }
    rch_mpi_comm_get(*newcomm)->topo = t;
    return MPI_SUCCESS;
}

void rch_mpi_topo_free(struct rch_mpi_topo *t)
{
    if (!t)
        return;
    free(t->in);
    free(t->out);
    free(t->inw);
    free(t->outw);
    free(t->dims);
    free(t->periods);
    free(t->coords);
    free(t->index);
    free(t->edges);
    free(t);
}

/* A copy of n ints into *dst (NULL for n == 0 or src NULL); 0, or -1 if out of memory. */
static int copy_ints(int **dst, const int *src, int n)
{
    *dst = NULL;
    if (!src || n <= 0)
        return 0;
    *dst = malloc((size_t)n * sizeof(int));
    if (!*dst)
        return -1;
    memcpy(*dst, src, (size_t)n * sizeof(int));
    return 0;
}

struct rch_mpi_topo *rch_mpi_topo_dup(const struct rch_mpi_topo *t)
{
    struct rch_mpi_topo *d = calloc(1, sizeof(*d));
    if (!d)
        return NULL;
    *d = *t;
    d->in = d->out = d->inw = d->outw = d->dims = d->periods = d->coords = d->index = d->edges = NULL;
    if (copy_ints(&d->in, t->in, t->indegree) || copy_ints(&d->out, t->out, t->outdegree) ||
        copy_ints(&d->inw, t->inw, t->indegree) || copy_ints(&d->outw, t->outw, t->outdegree) ||
        copy_ints(&d->dims, t->dims, t->ndims) || copy_ints(&d->periods, t->periods, t->ndims) ||
        copy_ints(&d->coords, t->coords, t->ndims) || copy_ints(&d->index, t->index, t->nnodes) ||
        copy_ints(&d->edges, t->edges, t->nedges)) {
        rch_mpi_topo_free(d);
        return NULL;
    }
    return d;
}

int rch_mpi_topo_neighbors(const char *fn, struct rch_mpi_comm *c, int *indegree, const int **in,
                           int *outdegree, const int **out)
{
    if (!c->topo)
        return rch_mpi_err(c->handle, MPI_ERR_TOPOLOGY,
                           "%s: communicator 0x%x in argument comm has no topology (create it with MPI_Cart_create, "
                           "MPI_Graph_create or MPI_Dist_graph_create)", fn, (unsigned)c->handle);
    *indegree = c->topo->indegree;
    *in = c->topo->in;
    *outdegree = c->topo->outdegree;
    *out = c->topo->out;
    return MPI_SUCCESS;
}

int PMPI_Topo_test(MPI_Comm comm, int *status)
{
    RCH_MPI_CS();
    int err = rch_mpi_check_init("MPI_Topo_test");
    if (err)
        return err;
    struct rch_mpi_comm *c = rch_mpi_comm_get(comm);
    if (!c)
        return rch_mpi_comm_bad("MPI_Topo_test", comm);
    if (!status)
        return rch_mpi_err(comm, MPI_ERR_ARG, "MPI_Topo_test: argument status is NULL");
    *status = c->topo ? c->topo->kind : MPI_UNDEFINED;
    return MPI_SUCCESS;
}
#pragma weak MPI_Topo_test = PMPI_Topo_test
