/*
 * MPI_Ialltoall, MPI_Ialltoallv, MPI_Ialltoallw: the bindings of the
 * one-round schedule of src/coll/nbc_linear.c. Checks and staging as the
 * blocking forms (coll_alltoall.c; the checks are the shared ones of
 * coll_shape.c): alltoallw's blocks are staged one by one and run as an
 * alltoallv of bytes; received blocks are unpacked when the request
 * completes.
 */
#include "mpi/coll_nb.h"
#include "mpi/intercoll.h"

int rch_mpi_ialltoall(const char *fn, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                      void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                      MPI_Request *request)
{
    struct rch_mpi_comm *ic = rch_mpi_inter_get(comm);
    if (ic)
        return rch_mpi_inter_ialltoallx(fn, ic, sendbuf, sendcount, NULL, NULL, sendtype, NULL, recvbuf,
                                        recvcount, NULL, NULL, recvtype, NULL, request);
    struct rch_mpi_comm *c;
    struct rch_mpi_coll_args a;
    struct rch_mpi_nb *nb;
    struct rch_dev_req *greq;
    int err;

    if ((err = rch_mpi_nb_begin(fn, comm, request, &c)) ||
        (err = rch_mpi_coll_check_alltoall(fn, c, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                           recvtype, &a)))
        return err;
    size_t n = (size_t)c->size * (size_t)recvcount;
    if (!(nb = rch_mpi_nb_new(fn, c, &err)))
        return err;
    if ((err = rch_mpi_stage_sendrecv(fn, c, a.in_place, 1, sendbuf,
                                      (size_t)c->size * (size_t)sendcount, a.st, recvbuf, n, a.rt,
                                      &nb->s, &nb->r)) ||
        (err = rch_mpi_nb_unpack_r(fn, c, nb, recvbuf, n, a.rt)) ||
        !(greq = rch_mpi_nb_req(fn, c, nb, &err)))
        return rch_mpi_nb_fail(nb, err);
    rdmach_status_t st = rch_coll_ialltoall(&c->coll, a.in_place ? RCH_COLL_IN_PLACE : nb->s.ptr,
                                            nb->r.ptr, a.block, greq);
    return rch_mpi_nb_started(fn, c, nb, greq, st, request);
}

int PMPI_Ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    RCH_MPI_CS();
    return rch_mpi_ialltoall("MPI_Ialltoall", sendbuf, sendcount, sendtype, recvbuf, recvcount,
                             recvtype, comm, request);
}
#pragma weak MPI_Ialltoall = PMPI_Ialltoall

/* Alltoallv (types NULL: sendtype/recvtype, displacements in extents) and
 * Alltoallw (per-block types, displacements in bytes; the callers checked
 * that the type arrays it needs are there). */
static int ialltoallvw(const char *fn, const void *sendbuf, const int *sendcounts, const int *sdispls,
                       MPI_Datatype sendtype, const MPI_Datatype *sendtypes, void *recvbuf,
                       const int *recvcounts, const int *rdispls, MPI_Datatype recvtype,
                       const MPI_Datatype *recvtypes, MPI_Comm comm, MPI_Request *request)
{
    struct rch_mpi_comm *c;
    struct rch_mpi_coll_args a;
    const struct rch_mpi_type **stv = NULL, **rtv = NULL;
    struct rch_mpi_nb *nb;
    struct rch_dev_req *greq;
    int w = recvtypes != NULL || sendtypes != NULL;
    int err;

    if ((err = rch_mpi_nb_begin(fn, comm, request, &c)))
        return err;
    int p = c->size;
    if (!(nb = rch_mpi_nb_new(fn, c, &err)))
        return err;
    if (w) {
        /* the type arrays live as long as the call's state: rv unpacks with them */
        if (!(stv = rch_mpi_nb_keep(fn, c, nb, 2 * (size_t)p * sizeof(*stv), &err)))
            return rch_mpi_nb_fail(nb, err);
        rtv = stv + p;
        for (int i = 0; i < 2 * p; i++)
            stv[i] = NULL;
    }
    if ((err = rch_mpi_coll_check_alltoallv(fn, c, sendbuf, sendcounts, sdispls, sendtype, sendtypes,
                                            recvbuf, recvcounts, rdispls, recvtype, recvtypes, stv,
                                            rtv, &a)))
        return rch_mpi_nb_fail(nb, err);
    for (int i = 0; i < p && !err; i++)
        err = rch_mpi_nb_hold(fn, c, nb, w ? rtv[i] : a.rt);
    const int *rcnt = NULL;
    if (err || !(rcnt = rch_mpi_nb_keep_ints(fn, c, nb, recvcounts, p, &err)) ||
        (err = rch_mpi_vstage_init(fn, c, recvbuf, p, rcnt, rdispls, !w, a.rt,
                                   (const struct rch_mpi_type *const *)rtv, &nb->rv)))
        return rch_mpi_nb_fail(nb, err);
    if (a.in_place) {
        rch_mpi_vstage_pack_all(&nb->rv);
    } else {
        if ((err = rch_mpi_vstage_init(fn, c, (void *)sendbuf, p, sendcounts, sdispls, !w, a.st,
                                       (const struct rch_mpi_type *const *)stv, &nb->sv)))
            return rch_mpi_nb_fail(nb, err);
        rch_mpi_vstage_pack_all(&nb->sv);
    }
    nb->unpack_rv = 1;
    if (!(greq = rch_mpi_nb_req(fn, c, nb, &err)))
        return rch_mpi_nb_fail(nb, err);
    rdmach_status_t st = rch_coll_ialltoallv(&c->coll, a.in_place ? RCH_COLL_IN_PLACE : nb->sv.base,
                                             nb->sv.counts, nb->sv.offs, nb->rv.base, nb->rv.counts,
                                             nb->rv.offs, greq);
    return rch_mpi_nb_started(fn, c, nb, greq, st, request);
}

int rch_mpi_ialltoallv(const char *fn, const void *sendbuf, const int sendcounts[],
                       const int sdispls[], MPI_Datatype sendtype, void *recvbuf,
                       const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                       MPI_Comm comm, MPI_Request *request)
{
    struct rch_mpi_comm *ic = rch_mpi_inter_get(comm);
    if (ic)
        return rch_mpi_inter_ialltoallx(fn, ic, sendbuf, 0, sendcounts, sdispls, sendtype, NULL, recvbuf, 0,
                                        recvcounts, rdispls, recvtype, NULL, request);
    return ialltoallvw(fn, sendbuf, sendcounts, sdispls, sendtype, NULL, recvbuf,
                       recvcounts, rdispls, recvtype, NULL, comm, request);
}

int PMPI_Ialltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                    MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[],
                    MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    RCH_MPI_CS();
    return rch_mpi_ialltoallv("MPI_Ialltoallv", sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                              recvcounts, rdispls, recvtype, comm, request);
}
#pragma weak MPI_Ialltoallv = PMPI_Ialltoallv

int rch_mpi_ialltoallw(const char *fn, const void *sendbuf, const int sendcounts[],
                       const int sdispls[], const MPI_Datatype sendtypes[], void *recvbuf,
                       const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[],
                       MPI_Comm comm, MPI_Request *request)
{
    struct rch_mpi_comm *ic = rch_mpi_inter_get(comm);
    if (ic && (!sendtypes || !recvtypes))
        return rch_mpi_err(comm, MPI_ERR_ARG, "%s: NULL pointer in argument %s", fn,
                           sendtypes ? "recvtypes" : "sendtypes");
    if (ic)
        return rch_mpi_inter_ialltoallx(fn, ic, sendbuf, 0, sendcounts, sdispls, MPI_DATATYPE_NULL, sendtypes,
                                        recvbuf, 0, recvcounts, rdispls, MPI_DATATYPE_NULL, recvtypes,
                                        request);
    if (!recvtypes || (sendbuf != MPI_IN_PLACE && !sendtypes)) {
        struct rch_mpi_comm *c;
        int err = rch_mpi_coll_begin(fn, comm, &c);
        return err ? err : rch_mpi_err(comm, MPI_ERR_ARG, "%s: NULL pointer in argument %s", fn,
                                       !recvtypes ? "recvtypes" : "sendtypes");
    }
    return ialltoallvw(fn, sendbuf, sendcounts, sdispls, MPI_DATATYPE_NULL, sendtypes, recvbuf,
                       recvcounts, rdispls, MPI_DATATYPE_NULL, recvtypes, comm, request);
}

int PMPI_Ialltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                    const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                    const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                    MPI_Request *request)
{
    RCH_MPI_CS();
    return rch_mpi_ialltoallw("MPI_Ialltoallw", sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
                              recvcounts, rdispls, recvtypes, comm, request);
}
#pragma weak MPI_Ialltoallw = PMPI_Ialltoallw
