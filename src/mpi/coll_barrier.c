/* MPI_Barrier: the binding of rch_coll_barrier. */
#include "mpi/coll_bind.h"

int PMPI_Barrier(MPI_Comm comm)
{
    RCH_MPI_CS();
    static const char fn[] = "MPI_Barrier";
    struct rch_mpi_comm *c;
    int err = rch_mpi_coll_begin(fn, comm, &c);
    if (err)
        return err;
    rdmach_status_t st = rch_coll_barrier(&c->coll);
    return st == RDMACH_OK ? MPI_SUCCESS : rch_mpi_coll_fail(fn, c, st);
}
#pragma weak MPI_Barrier = PMPI_Barrier
