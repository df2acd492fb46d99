/* MPI_Barrier: the binding of rch_coll_barrier. */
#include "mpi/coll_bind.h"
#include "mpi/intercoll.h"

int PMPI_Barrier(MPI_Comm comm)
{
    RCH_MPI_CS();
    struct rch_mpi_comm *ic = rch_mpi_inter_get(comm);
    if (ic)
        return rch_mpi_inter_barrier(ic);
    static const char fn[] = "MPI_Barrier";
    struct rch_mpi_comm *c;
    int err = rch_mpi_coll_begin(fn, comm, &c);
    if (err)
        return err;
    rdmach_status_t st = rch_coll_barrier(&c->coll);
    return st == RDMACH_OK ? MPI_SUCCESS : rch_mpi_coll_fail(fn, c, st);
}
#pragma weak MPI_Barrier = PMPI_Barrier
