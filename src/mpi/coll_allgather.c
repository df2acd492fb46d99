/*
 * MPI_Allgather and MPI_Allgatherv: the bindings of rch_coll_allgather(v).
 * MPI_IN_PLACE as sendbuf means each rank's block is already in place in
 * recvbuf. Checks and staging: coll_shape.c (the gather shapes with every
 * rank a root; shared with MPI_Iallgather(v)).
 */
#include <stdlib.h>
#include "mpi/coll_bind.h"
#include "mpi/intercoll.h"

int PMPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    RCH_MPI_CS();
    struct rch_mpi_comm *ic = rch_mpi_inter_get(comm);
    if (ic)
        return rch_mpi_inter_allgather("MPI_Allgather", ic, sendbuf, sendcount, sendtype, recvbuf, recvcount, NULL,
                                       NULL, recvtype, NULL);
    static const char fn[] = "MPI_Allgather";
    struct rch_mpi_comm *c;
    struct rch_mpi_coll_args a;
    struct rch_mpi_stage s = { 0 }, r = { 0 };
    int err;

    if ((err = rch_mpi_coll_begin(fn, comm, &c)) ||
        (err = rch_mpi_coll_check_allgather(fn, c, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                            recvtype, &a)) ||
        (err = rch_mpi_stage_gather(fn, c, &a, sendbuf, sendcount, recvbuf, recvcount, &s, &r)))
        return err;
    rdmach_status_t st = rch_coll_allgather(&c->coll, a.in_place ? RCH_COLL_IN_PLACE : s.ptr, r.ptr,
                                            a.block);
    return rch_mpi_stage_end(fn, c, st, &s, &r, recvbuf, (size_t)c->size * (size_t)recvcount, a.rt,
                             1);
}
#pragma weak MPI_Allgather = PMPI_Allgather

int rch_mpi_allgatherv(const char *fn, const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                       const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                       const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    struct rch_mpi_comm *ic = rch_mpi_inter_get(comm);
    if (ic)
        return rch_mpi_inter_allgather(fn, ic, sendbuf, sendcount, sendtype, recvbuf, 0, recvcounts, displs,
                                       recvtype, recvtypes);
    struct rch_mpi_comm *c;
    struct rch_mpi_coll_args a;
    struct rch_mpi_stage s = { 0 };
    struct rch_mpi_vstage v = { 0 };
    const struct rch_mpi_type **tv = NULL;
    int err;

    if ((err = rch_mpi_coll_begin(fn, comm, &c)) || (recvtypes && !(tv = rch_mpi_coll_tv(fn, c, &err))))
        return err;
    if (!(err = rch_mpi_coll_check_allgatherv(fn, c, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                                              recvtype, recvtypes, tv, &a)) &&
        !(err = rch_mpi_stage_gatherv(fn, c, &a, sendbuf, sendcount, recvbuf, recvcounts, displs, tv, &s, &v))) {
        rdmach_status_t st = rch_coll_allgatherv(&c->coll, a.in_place ? RCH_COLL_IN_PLACE : s.ptr, v.base,
                                                 v.counts, v.offs);
        rch_mpi_stage_free(&s);
        err = rch_mpi_vstage_end(fn, c, st, &v, 1);
    }
    free(tv);
    return err;
}

int PMPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm)
{
    RCH_MPI_CS();
    return rch_mpi_allgatherv("MPI_Allgatherv", sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                              recvtype, NULL, comm);
}
#pragma weak MPI_Allgatherv = PMPI_Allgatherv
