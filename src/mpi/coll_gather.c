/*
 * MPI_Gather and MPI_Gatherv: the bindings of rch_coll_gather(v). The
 * receive arguments matter only at the root; MPI_IN_PLACE as the root's
 * sendbuf means its block is already in place in recvbuf. Checks and
 * staging: coll_shape.c (shared with MPI_Igather(v)).
 */
#include <stdlib.h>
#include "mpi/coll_bind.h"
#include "mpi/intercoll.h"

int PMPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    RCH_MPI_CS();
    struct rch_mpi_comm *ic = rch_mpi_inter_get(comm);
    if (ic)
        return rch_mpi_inter_gather("MPI_Gather", ic, sendbuf, sendcount, sendtype, recvbuf, recvcount, NULL, NULL,
                                    recvtype, NULL, root);
    static const char fn[] = "MPI_Gather";
    struct rch_mpi_comm *c;
    struct rch_mpi_coll_args a;
    struct rch_mpi_stage s = { 0 }, r = { 0 };
    int err;

    if ((err = rch_mpi_coll_begin(fn, comm, &c)) || (err = rch_mpi_coll_check_root(fn, c, root)) ||
        (err = rch_mpi_coll_check_gather(fn, c, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                         recvtype, root, &a)) ||
        (err = rch_mpi_stage_gather(fn, c, &a, sendbuf, sendcount, recvbuf, recvcount, &s, &r)))
        return err;
    rdmach_status_t st = rch_coll_gather(&c->coll, a.in_place ? RCH_COLL_IN_PLACE : s.ptr, r.ptr,
                                         a.block, root);
    return rch_mpi_stage_end(fn, c, st, &s, &r, recvbuf, (size_t)c->size * (size_t)recvcount, a.rt,
                             a.is_root);
}
#pragma weak MPI_Gather = PMPI_Gather

int rch_mpi_gatherv(const char *fn, const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                    const MPI_Datatype recvtypes[], int root, MPI_Comm comm)
{
    struct rch_mpi_comm *ic = rch_mpi_inter_get(comm);
    if (ic)
        return rch_mpi_inter_gather(fn, ic, sendbuf, sendcount, sendtype, recvbuf, 0, recvcounts, displs, recvtype,
                                    recvtypes, root);
    struct rch_mpi_comm *c;
    struct rch_mpi_coll_args a;
    struct rch_mpi_stage s = { 0 };
    struct rch_mpi_vstage v = { 0 };
    const struct rch_mpi_type **tv = NULL;
    int err;

    if ((err = rch_mpi_coll_begin(fn, comm, &c)) || (err = rch_mpi_coll_check_root(fn, c, root)) ||
        (recvtypes && !(tv = rch_mpi_coll_tv(fn, c, &err))))
        return err;
    if (!(err = rch_mpi_coll_check_gatherv(fn, c, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                                           recvtype, recvtypes, root, tv, &a)) &&
        !(err = rch_mpi_stage_gatherv(fn, c, &a, sendbuf, sendcount, recvbuf, recvcounts, displs, tv, &s, &v))) {
        rdmach_status_t st = rch_coll_gatherv(&c->coll, a.in_place ? RCH_COLL_IN_PLACE : s.ptr, a.block, v.base,
                                              v.counts, v.offs, root);
        rch_mpi_stage_free(&s);
        err = rch_mpi_vstage_end(fn, c, st, &v, a.is_root);
    }
    free(tv);
    return err;
}

int PMPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                 MPI_Comm comm)
{
    RCH_MPI_CS();
    return rch_mpi_gatherv("MPI_Gatherv", sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, NULL,
                           root, comm);
}
#pragma weak MPI_Gatherv = PMPI_Gatherv
