/*
 * MPI_Reduce_scatter and MPI_Reduce_scatter_block: the binding of
 * rch_coll_reduce_scatter. The input vector is sum(recvcounts) elements;
 * rank i gets the reduction of block i. In place the input is in recvbuf and
 * the result is left at its start.
 */
#include <limits.h>
#include <stdlib.h>
#include "mpi/coll_bind.h"

/* recvcounts == NULL: every block has `block` elements (the _block variant). */
static int reduce_scatter(const char *fn, const void *sendbuf, void *recvbuf, const int *recvcounts,
                          int block, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    struct rch_mpi_comm *c;
    const struct rch_mpi_type *t;
    struct rch_mpi_red red;
    struct rch_mpi_stage s = { 0 }, r = { 0 };
    size_t total = 0, *counts;
    int err;

    if ((err = rch_mpi_coll_begin(fn, comm, &c)))
        return err;
    if (recvcounts) {
        if ((err = rch_mpi_coll_check_array(fn, c, recvcounts, c->size, "recvcounts", 1)))
            return err;
    } else if (block < 0) {
        return rch_mpi_err(comm, MPI_ERR_COUNT, "%s: negative count %d in argument recvcount", fn,
                           block);
    }
    for (int i = 0; i < c->size; i++)
        total += (size_t)(recvcounts ? recvcounts[i] : block);
    int mine = recvcounts ? recvcounts[c->rank] : block;
    int in_place = sendbuf == MPI_IN_PLACE;
    int total_int = total > (size_t)INT_MAX ? INT_MAX : (int)total;   /* for the NULL checks */
    const char *countarg = recvcounts ? "recvcounts" : "recvcount";

    if ((err = rch_mpi_coll_check_type(fn, c, datatype, "datatype", &t)) ||
        (err = rch_mpi_red_bind(fn, c, op, datatype, t, 0, &red)) ||
        (!in_place && (err = rch_mpi_coll_check_buf(fn, c, sendbuf, total_int, datatype, "sendbuf",
                                                    countarg, "datatype", NULL))) ||
        (err = rch_mpi_coll_check_buf(fn, c, recvbuf, in_place ? total_int : mine, datatype,
                                      "recvbuf", countarg, "datatype", NULL)) ||
        (err = rch_mpi_coll_check_alias(fn, c, sendbuf, recvbuf, total > 0 && t->size > 0)))
        return err;

    counts = malloc((size_t)c->size * sizeof(*counts));
    if (!counts)
        return rch_mpi_coll_nomem(fn, c, (size_t)c->size * sizeof(*counts));
    for (int i = 0; i < c->size; i++)
        counts[i] = (size_t)(recvcounts ? recvcounts[i] : block) * red.per_elem;

    if (in_place) {
        err = rch_mpi_stage_in(fn, c, recvbuf, total, t, &r);
    } else {
        err = rch_mpi_stage_in(fn, c, sendbuf, total, t, &s);
        if (!err && (err = rch_mpi_stage_out(fn, c, recvbuf, (size_t)mine, t, &r)))
            rch_mpi_stage_free(&s);
    }
    if (err) {
        free(counts);
        return err;
    }
    rdmach_status_t st = rch_coll_reduce_scatter(&c->coll, in_place ? RCH_COLL_IN_PLACE : s.ptr,
                                                 r.ptr, counts, &red.cop);
    free(counts);
    rch_mpi_stage_free(&s);
    if (st != RDMACH_OK) {
        rch_mpi_stage_free(&r);
        return rch_mpi_coll_fail(fn, c, st);
    }
    rch_mpi_stage_done(&r, recvbuf, (size_t)mine, t);   /* my block: the start of r */
    return MPI_SUCCESS;
}

int PMPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                        MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    static const char fn[] = "MPI_Reduce_scatter";
    if (!recvcounts) {
        struct rch_mpi_comm *c;
        int err = rch_mpi_coll_begin(fn, comm, &c);
        return err ? err : rch_mpi_coll_check_array(fn, c, recvcounts, c->size, "recvcounts", 1);
    }
    return reduce_scatter(fn, sendbuf, recvbuf, recvcounts, 0, datatype, op, comm);
}
#pragma weak MPI_Reduce_scatter = PMPI_Reduce_scatter

int PMPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    return reduce_scatter("MPI_Reduce_scatter_block", sendbuf, recvbuf, NULL, recvcount, datatype,
                          op, comm);
}
#pragma weak MPI_Reduce_scatter_block = PMPI_Reduce_scatter_block
