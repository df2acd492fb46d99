/*
 * MPI_Igather(v), MPI_Iscatter(v), MPI_Iallgather(v): the bindings of the
 * one-round schedules of src/coll/nbc_linear.c. Checks and staging are the
 * blocking forms' (coll_shape.c), into the call's state; what is received
 * is unpacked when the request completes.
 */
#include "mpi/coll_nb.h"
#include "mpi/intercoll.h"

int rch_mpi_igather(const char *fn, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                    void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                    MPI_Request *request)
{
    struct rch_mpi_comm *ic = rch_mpi_inter_get(comm);
    if (ic)
        return rch_mpi_inter_igather(fn, ic, sendbuf, sendcount, sendtype, recvbuf, recvcount, NULL, NULL,
                                     recvtype, NULL, root, request);
    struct rch_mpi_comm *c;
    struct rch_mpi_coll_args a;
    struct rch_mpi_nb *nb;
    struct rch_dev_req *greq;
    int err;

    if ((err = rch_mpi_nb_begin(fn, comm, request, &c)) ||
        (err = rch_mpi_coll_check_root(fn, c, root)) ||
        (err = rch_mpi_coll_check_gather(fn, c, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                         recvtype, root, &a)))
        return err;
    if (!(nb = rch_mpi_nb_new(fn, c, &err)))
        return err;
    if ((err = rch_mpi_stage_gather(fn, c, &a, sendbuf, sendcount, recvbuf, recvcount, &nb->s,
                                    &nb->r)) ||
        (a.is_root && (err = rch_mpi_nb_unpack_r(fn, c, nb, recvbuf,
                                                 (size_t)c->size * (size_t)recvcount, a.rt))) ||
        !(greq = rch_mpi_nb_req(fn, c, nb, &err)))
        return rch_mpi_nb_fail(nb, err);
    rdmach_status_t st = rch_coll_igather(&c->coll, a.in_place ? RCH_COLL_IN_PLACE : nb->s.ptr,
                                          nb->r.ptr, a.block, root, greq);
    return rch_mpi_nb_started(fn, c, nb, greq, st, request);
}

int PMPI_Igather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request)
{
    RCH_MPI_CS();
    return rch_mpi_igather("MPI_Igather", sendbuf, sendcount, sendtype, recvbuf, recvcount,
                           recvtype, root, comm, request);
}
#pragma weak MPI_Igather = PMPI_Igather

int rch_mpi_igatherv(const char *fn, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                     void *recvbuf, const int recvcounts[], const int displs[],
                     MPI_Datatype recvtype, const MPI_Datatype recvtypes[], int root, MPI_Comm comm,
                     MPI_Request *request)
{
    struct rch_mpi_comm *ic = rch_mpi_inter_get(comm);
    if (ic)
        return rch_mpi_inter_igather(fn, ic, sendbuf, sendcount, sendtype, recvbuf, 0, recvcounts, displs,
                                     recvtype, recvtypes, root, request);
    struct rch_mpi_comm *c;
    struct rch_mpi_coll_args a;
    struct rch_mpi_nb *nb;
    struct rch_dev_req *greq;
    const struct rch_mpi_type **tv = NULL;
    const int *cnt = NULL;
    int err;

    if ((err = rch_mpi_nb_begin(fn, comm, request, &c)) ||
        (err = rch_mpi_coll_check_root(fn, c, root)))
        return err;
    if (!(nb = rch_mpi_nb_new(fn, c, &err)))
        return err;
    /* at the root the unpacking at completion reads the counts and types: kept */
    if ((recvtypes && !(tv = rch_mpi_nb_keep_tv(fn, c, nb, &err))) ||
        (err = rch_mpi_coll_check_gatherv(fn, c, sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                                          displs, recvtype, recvtypes, root, tv, &a)) ||
        (a.is_root && (!(cnt = rch_mpi_nb_keep_ints(fn, c, nb, recvcounts, c->size, &err)) ||
                       (err = rch_mpi_nb_hold_v(fn, c, nb, a.rt, tv, c->size)))) ||
        (err = rch_mpi_stage_gatherv(fn, c, &a, sendbuf, sendcount, recvbuf, cnt, displs, tv, &nb->s,
                                     &nb->rv)) ||
        !(greq = rch_mpi_nb_req(fn, c, nb, &err)))
        return rch_mpi_nb_fail(nb, err);
    nb->unpack_rv = a.is_root;
    rdmach_status_t st = rch_coll_igatherv(&c->coll, a.in_place ? RCH_COLL_IN_PLACE : nb->s.ptr,
                                           a.block, nb->rv.base, nb->rv.counts, nb->rv.offs, root,
                                           greq);
    return rch_mpi_nb_started(fn, c, nb, greq, st, request);
}

int PMPI_Igatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                  MPI_Comm comm, MPI_Request *request)
{
    RCH_MPI_CS();
    return rch_mpi_igatherv("MPI_Igatherv", sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                            displs, recvtype, NULL, root, comm, request);
}
#pragma weak MPI_Igatherv = PMPI_Igatherv

int rch_mpi_iscatter(const char *fn, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                     void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                     MPI_Request *request)
{
    struct rch_mpi_comm *ic = rch_mpi_inter_get(comm);
    if (ic)
        return rch_mpi_inter_iscatter(fn, ic, sendbuf, sendcount, NULL, NULL, sendtype, NULL, recvbuf,
                                      recvcount, recvtype, root, request);
    struct rch_mpi_comm *c;
    struct rch_mpi_coll_args a;
    struct rch_mpi_nb *nb;
    struct rch_dev_req *greq;
    int err;

    if ((err = rch_mpi_nb_begin(fn, comm, request, &c)) ||
        (err = rch_mpi_coll_check_root(fn, c, root)) ||
        (err = rch_mpi_coll_check_scatter(fn, c, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                          recvtype, root, &a)))
        return err;
    if (!(nb = rch_mpi_nb_new(fn, c, &err)))
        return err;
    if ((err = rch_mpi_stage_scatter(fn, c, &a, sendbuf, sendcount, recvbuf, recvcount, &nb->s,
                                     &nb->r)) ||
        (!a.in_place && (err = rch_mpi_nb_unpack_r(fn, c, nb, recvbuf, (size_t)recvcount, a.rt))) ||
        !(greq = rch_mpi_nb_req(fn, c, nb, &err)))
        return rch_mpi_nb_fail(nb, err);
    rdmach_status_t st = rch_coll_iscatter(&c->coll, nb->s.ptr,
                                           a.in_place ? RCH_COLL_IN_PLACE : nb->r.ptr, a.block, root,
                                           greq);
    return rch_mpi_nb_started(fn, c, nb, greq, st, request);
}

int PMPI_Iscatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request)
{
    RCH_MPI_CS();
    return rch_mpi_iscatter("MPI_Iscatter", sendbuf, sendcount, sendtype, recvbuf, recvcount,
                            recvtype, root, comm, request);
}
#pragma weak MPI_Iscatter = PMPI_Iscatter

int rch_mpi_iscatterv(const char *fn, const void *sendbuf, const int sendcounts[],
                      const int displs[], MPI_Datatype sendtype, const MPI_Datatype sendtypes[],
                      void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                      MPI_Request *request)
{
    struct rch_mpi_comm *ic = rch_mpi_inter_get(comm);
    if (ic)
        return rch_mpi_inter_iscatter(fn, ic, sendbuf, 0, sendcounts, displs, sendtype, sendtypes, recvbuf,
                                      recvcount, recvtype, root, request);
    struct rch_mpi_comm *c;
    struct rch_mpi_coll_args a;
    struct rch_mpi_nb *nb;
    struct rch_dev_req *greq;
    const struct rch_mpi_type **tv = NULL;
    int err;

    if ((err = rch_mpi_nb_begin(fn, comm, request, &c)) ||
        (err = rch_mpi_coll_check_root(fn, c, root)))
        return err;
    if (!(nb = rch_mpi_nb_new(fn, c, &err)))
        return err;
    /* the send blocks are packed now, and again at every start of a
     * persistent request (coll_persist.c holds their types) */
    if ((sendtypes && !(tv = rch_mpi_nb_keep_tv(fn, c, nb, &err))) ||
        (err = rch_mpi_coll_check_scatterv(fn, c, sendbuf, sendcounts, displs, sendtype, sendtypes, recvbuf,
                                           recvcount, recvtype, root, tv, &a)) ||
        (err = rch_mpi_stage_scatterv(fn, c, &a, sendbuf, sendcounts, displs, tv, recvbuf, recvcount,
                                      &nb->sv, &nb->r)) ||
        (!a.in_place && (err = rch_mpi_nb_unpack_r(fn, c, nb, recvbuf, (size_t)recvcount, a.rt))) ||
        !(greq = rch_mpi_nb_req(fn, c, nb, &err)))
        return rch_mpi_nb_fail(nb, err);
    rdmach_status_t st = rch_coll_iscatterv(&c->coll, nb->sv.base, nb->sv.counts, nb->sv.offs,
                                            a.in_place ? RCH_COLL_IN_PLACE : nb->r.ptr, a.block, root,
                                            greq);
    return rch_mpi_nb_started(fn, c, nb, greq, st, request);
}

int PMPI_Iscatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                   MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                   int root, MPI_Comm comm, MPI_Request *request)
{
    RCH_MPI_CS();
    return rch_mpi_iscatterv("MPI_Iscatterv", sendbuf, sendcounts, displs, sendtype, NULL, recvbuf,
                             recvcount, recvtype, root, comm, request);
}
#pragma weak MPI_Iscatterv = PMPI_Iscatterv

int rch_mpi_iallgather(const char *fn, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                       void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                       MPI_Request *request)
{
    struct rch_mpi_comm *ic = rch_mpi_inter_get(comm);
    if (ic)
        return rch_mpi_inter_iallgather(fn, ic, sendbuf, sendcount, sendtype, recvbuf, recvcount, NULL, NULL,
                                        recvtype, NULL, request);
    struct rch_mpi_comm *c;
    struct rch_mpi_coll_args a;
    struct rch_mpi_nb *nb;
    struct rch_dev_req *greq;
    int err;

    if ((err = rch_mpi_nb_begin(fn, comm, request, &c)) ||
        (err = rch_mpi_coll_check_allgather(fn, c, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                            recvtype, &a)))
        return err;
    if (!(nb = rch_mpi_nb_new(fn, c, &err)))
        return err;
    if ((err = rch_mpi_stage_gather(fn, c, &a, sendbuf, sendcount, recvbuf, recvcount, &nb->s,
                                    &nb->r)) ||
        (err = rch_mpi_nb_unpack_r(fn, c, nb, recvbuf, (size_t)c->size * (size_t)recvcount, a.rt)) ||
        !(greq = rch_mpi_nb_req(fn, c, nb, &err)))
        return rch_mpi_nb_fail(nb, err);
    rdmach_status_t st = rch_coll_iallgather(&c->coll, a.in_place ? RCH_COLL_IN_PLACE : nb->s.ptr,
                                             nb->r.ptr, a.block, greq);
    return rch_mpi_nb_started(fn, c, nb, greq, st, request);
}

int PMPI_Iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    RCH_MPI_CS();
    return rch_mpi_iallgather("MPI_Iallgather", sendbuf, sendcount, sendtype, recvbuf, recvcount,
                              recvtype, comm, request);
}
#pragma weak MPI_Iallgather = PMPI_Iallgather

int rch_mpi_iallgatherv(const char *fn, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                        void *recvbuf, const int recvcounts[], const int displs[],
                        MPI_Datatype recvtype, const MPI_Datatype recvtypes[], MPI_Comm comm,
                        MPI_Request *request)
{
    struct rch_mpi_comm *ic = rch_mpi_inter_get(comm);
    if (ic)
        return rch_mpi_inter_iallgather(fn, ic, sendbuf, sendcount, sendtype, recvbuf, 0, recvcounts, displs,
                                        recvtype, recvtypes, request);
    struct rch_mpi_comm *c;
    struct rch_mpi_coll_args a;
    struct rch_mpi_nb *nb;
    struct rch_dev_req *greq;
    const struct rch_mpi_type **tv = NULL;
    const int *cnt;
    int err;

    if ((err = rch_mpi_nb_begin(fn, comm, request, &c)))
        return err;
    if (!(nb = rch_mpi_nb_new(fn, c, &err)))
        return err;
    /* the unpacking at completion reads the counts and types: kept */
    if ((recvtypes && !(tv = rch_mpi_nb_keep_tv(fn, c, nb, &err))) ||
        (err = rch_mpi_coll_check_allgatherv(fn, c, sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                                             displs, recvtype, recvtypes, tv, &a)) ||
        !(cnt = rch_mpi_nb_keep_ints(fn, c, nb, recvcounts, c->size, &err)) ||
        (err = rch_mpi_nb_hold_v(fn, c, nb, a.rt, tv, c->size)) ||
        (err = rch_mpi_stage_gatherv(fn, c, &a, sendbuf, sendcount, recvbuf, cnt, displs, tv, &nb->s,
                                     &nb->rv)) ||
        !(greq = rch_mpi_nb_req(fn, c, nb, &err)))
        return rch_mpi_nb_fail(nb, err);
    nb->unpack_rv = 1;
    rdmach_status_t st = rch_coll_iallgatherv(&c->coll, a.in_place ? RCH_COLL_IN_PLACE : nb->s.ptr,
                                              nb->rv.base, nb->rv.counts, nb->rv.offs, greq);
    return rch_mpi_nb_started(fn, c, nb, greq, st, request);
}

int PMPI_Iallgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                     const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                     MPI_Request *request)
{
    RCH_MPI_CS();
    return rch_mpi_iallgatherv("MPI_Iallgatherv", sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                               displs, recvtype, NULL, comm, request);
}
#pragma weak MPI_Iallgatherv = PMPI_Iallgatherv
