/* MPI_Bcast: the binding of rch_coll_bcast. */
#include "mpi/coll_bind.h"
#include "mpi/intercoll.h"

int PMPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
    RCH_MPI_CS();
    struct rch_mpi_comm *ic = rch_mpi_inter_get(comm);
    if (ic)
        return rch_mpi_inter_bcast(ic, buffer, count, datatype, root);
    static const char fn[] = "MPI_Bcast";
    struct rch_mpi_comm *c;
    const struct rch_mpi_type *t;
    struct rch_mpi_stage s;
    int err;

    if ((err = rch_mpi_coll_begin(fn, comm, &c)) || (err = rch_mpi_coll_check_root(fn, c, root)) ||
        (err = rch_mpi_coll_check_buf(fn, c, buffer, count, datatype, "buffer", "count", "datatype",
                                      &t)))
        return err;
    if (c->size == 1)
        return MPI_SUCCESS;
    err = c->rank == root ? rch_mpi_stage_in(fn, c, buffer, (size_t)count, t, &s)
                          : rch_mpi_stage_out(fn, c, buffer, (size_t)count, t, &s);
    if (err)
        return err;
    rdmach_status_t st = rch_coll_bcast(&c->coll, s.ptr, (size_t)count * t->size, root);
    return rch_mpi_stage_end(fn, c, st, NULL, &s, buffer, (size_t)count, t, c->rank != root);
}
#pragma weak MPI_Bcast = PMPI_Bcast
