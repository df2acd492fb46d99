/*
 * MPI_Scatter and MPI_Scatterv: the bindings of rch_coll_scatter(v). The
 * send arguments matter only at the root; MPI_IN_PLACE as the root's recvbuf
 * means its block stays where it is in sendbuf. Checks and staging:
 * coll_shape.c (shared with MPI_Iscatter(v)).
 */
#include <stdlib.h>
#include "mpi/coll_bind.h"
#include "mpi/intercoll.h"

int PMPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    RCH_MPI_CS();
    struct rch_mpi_comm *ic = rch_mpi_inter_get(comm);
    if (ic)
        return rch_mpi_inter_scatter("MPI_Scatter", ic, sendbuf, sendcount, NULL, NULL, sendtype, NULL, recvbuf,
                                     recvcount, recvtype, root);
    static const char fn[] = "MPI_Scatter";
    struct rch_mpi_comm *c;
    struct rch_mpi_coll_args a;
    struct rch_mpi_stage s = { 0 }, r = { 0 };
    int err;

    if ((err = rch_mpi_coll_begin(fn, comm, &c)) || (err = rch_mpi_coll_check_root(fn, c, root)) ||
        (err = rch_mpi_coll_check_scatter(fn, c, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                          recvtype, root, &a)) ||
        (err = rch_mpi_stage_scatter(fn, c, &a, sendbuf, sendcount, recvbuf, recvcount, &s, &r)))
        return err;
    rdmach_status_t st = rch_coll_scatter(&c->coll, s.ptr, a.in_place ? RCH_COLL_IN_PLACE : r.ptr,
                                          a.block, root);
    return rch_mpi_stage_end(fn, c, st, &s, &r, recvbuf, (size_t)recvcount, a.rt, !a.in_place);
}
#pragma weak MPI_Scatter = PMPI_Scatter

int rch_mpi_scatterv(const char *fn, const void *sendbuf, const int sendcounts[], const int displs[],
                     MPI_Datatype sendtype, const MPI_Datatype sendtypes[], void *recvbuf, int recvcount,
                     MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    struct rch_mpi_comm *ic = rch_mpi_inter_get(comm);
    if (ic)
        return rch_mpi_inter_scatter(fn, ic, sendbuf, 0, sendcounts, displs, sendtype, sendtypes, recvbuf,
                                     recvcount, recvtype, root);
    struct rch_mpi_comm *c;
    struct rch_mpi_coll_args a;
    struct rch_mpi_stage r = { 0 };
    struct rch_mpi_vstage v = { 0 };
    const struct rch_mpi_type **tv = NULL;
    int err;

    if ((err = rch_mpi_coll_begin(fn, comm, &c)) || (err = rch_mpi_coll_check_root(fn, c, root)) ||
        (sendtypes && !(tv = rch_mpi_coll_tv(fn, c, &err))))
        return err;
    if (!(err = rch_mpi_coll_check_scatterv(fn, c, sendbuf, sendcounts, displs, sendtype, sendtypes, recvbuf,
                                            recvcount, recvtype, root, tv, &a)) &&
        !(err = rch_mpi_stage_scatterv(fn, c, &a, sendbuf, sendcounts, displs, tv, recvbuf, recvcount, &v, &r))) {
        rdmach_status_t st = rch_coll_scatterv(&c->coll, v.base, v.counts, v.offs,
                                               a.in_place ? RCH_COLL_IN_PLACE : r.ptr, a.block, root);
        rch_mpi_vstage_free(&v);
        err = rch_mpi_stage_end(fn, c, st, NULL, &r, recvbuf, (size_t)recvcount, a.rt, !a.in_place);
    }
    free(tv);
    return err;
}

int PMPI_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                  MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                  int root, MPI_Comm comm)
{
    RCH_MPI_CS();
    return rch_mpi_scatterv("MPI_Scatterv", sendbuf, sendcounts, displs, sendtype, NULL, recvbuf, recvcount,
                            recvtype, root, comm);
}
#pragma weak MPI_Scatterv = PMPI_Scatterv
