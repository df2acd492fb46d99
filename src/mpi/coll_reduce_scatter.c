/*
 * MPI_Reduce_scatter and MPI_Reduce_scatter_block: the binding of
 * rch_coll_reduce_scatter. The input vector is sum(recvcounts) elements;
 * rank i gets the reduction of block i. In place the input is in recvbuf and
 * the result is left at its start. Checks and staging: coll_shape.c (shared
 * with MPI_Ireduce_scatter(_block)).
 */
#include <stdlib.h>
#include "mpi/coll_bind.h"
#include "mpi/intercoll.h"

/* recvcounts == NULL: every block has `block` elements (the _block
 * variant), or wide[i] (the large-count form's). */
static int reduce_scatter(const char *fn, const void *sendbuf, void *recvbuf, const int *recvcounts,
                          const MPI_Count *wide, int block, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    struct rch_mpi_comm *c;
    struct rch_mpi_coll_args a;
    struct rch_mpi_red red;
    struct rch_mpi_stage s = { 0 }, r = { 0 };
    size_t total, mine, *counts;
    int err;

    if ((err = rch_mpi_coll_begin(fn, comm, &c)) ||
        (err = rch_mpi_coll_check_reduce_scatter(fn, c, sendbuf, recvbuf, recvcounts, wide, block, datatype,
                                                 op, &red, &a, &total, &mine)))
        return err;
    counts = malloc((size_t)c->size * sizeof(*counts));
    if (!counts)
        return rch_mpi_coll_nomem(fn, c, (size_t)c->size * sizeof(*counts));
    for (int i = 0; i < c->size; i++)
        counts[i] = (wide ? (size_t)wide[i] : (size_t)(recvcounts ? recvcounts[i] : block)) * red.per_elem;
    /* in place the input is all of recvbuf; else recvbuf gets my block */
    if ((err = rch_mpi_stage_sendrecv(fn, c, a.in_place, 1, sendbuf, total, a.st, recvbuf,
                                      a.in_place ? total : mine, a.rt, &s, &r))) {
        free(counts);
        return err;
    }
    rdmach_status_t st = rch_coll_reduce_scatter(&c->coll, a.in_place ? RCH_COLL_IN_PLACE : s.ptr,
                                                 r.ptr, counts, &red.cop);
    free(counts);
    /* my block: the start of r */
    return rch_mpi_stage_end(fn, c, st, &s, &r, recvbuf, mine, a.rt, 1);
}

int rch_mpi_reduce_scatter_c(const char *fn, const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[],
                             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    struct rch_mpi_comm *ic = rch_mpi_inter_get(comm);
    if (ic)
        return rch_mpi_inter_reduce_scatter_c(fn, ic, sendbuf, recvbuf, recvcounts, datatype, op);
    return reduce_scatter(fn, sendbuf, recvbuf, NULL, recvcounts, 0, datatype, op, comm);
}

int PMPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                        MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    RCH_MPI_CS();
    struct rch_mpi_comm *ic = rch_mpi_inter_get(comm);
    if (ic)
        return rch_mpi_inter_reduce_scatter(NULL, ic, sendbuf, recvbuf, 0, recvcounts, datatype, op);
    static const char fn[] = "MPI_Reduce_scatter";
    if (!recvcounts) {
        struct rch_mpi_comm *c;
        int err = rch_mpi_coll_begin(fn, comm, &c);
        return err ? err : rch_mpi_coll_check_array(fn, c, recvcounts, c->size, "recvcounts", 1);
    }
    return reduce_scatter(fn, sendbuf, recvbuf, recvcounts, NULL, 0, datatype, op, comm);
}
#pragma weak MPI_Reduce_scatter = PMPI_Reduce_scatter

int PMPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    RCH_MPI_CS();
    struct rch_mpi_comm *ic = rch_mpi_inter_get(comm);
    if (ic)
        return rch_mpi_inter_reduce_scatter(NULL, ic, sendbuf, recvbuf, recvcount, NULL, datatype, op);
    return reduce_scatter("MPI_Reduce_scatter_block", sendbuf, recvbuf, NULL, NULL, recvcount, datatype,
                          op, comm);
}
#pragma weak MPI_Reduce_scatter_block = PMPI_Reduce_scatter_block
