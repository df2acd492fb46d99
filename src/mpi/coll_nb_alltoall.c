/*
 * MPI_Ialltoall, MPI_Ialltoallv, MPI_Ialltoallw: the bindings of the
 * one-round schedule of src/coll/nbc_linear.c. Checks and staging as the
 * blocking forms (coll_alltoall.c): alltoallw's blocks are staged one by one
 * and run as an alltoallv of bytes; received blocks are unpacked when the
 * request completes.
 */
#include <stdlib.h>
#include "mpi/coll_nb.h"

static int nb_fail(struct rch_mpi_nb *nb, int err)
{
    rch_mpi_nb_free(nb);
    return err;
}

int PMPI_Ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    static const char fn[] = "MPI_Ialltoall";
    struct rch_mpi_comm *c;
    const struct rch_mpi_type *st_ = NULL, *rt = NULL;
    struct rch_mpi_nb *nb;
    struct rch_dev_req *greq;
    int err;

    if ((err = rch_mpi_coll_begin(fn, comm, &c)) || (err = rch_mpi_nb_check_request(fn, c, request)))
        return err;
    int p = c->size, in_place = sendbuf == MPI_IN_PLACE;
    if ((!in_place && (err = rch_mpi_coll_check_buf(fn, c, sendbuf, sendcount, sendtype, "sendbuf",
                                                    "sendcount", "sendtype", &st_))) ||
        (err = rch_mpi_coll_check_buf(fn, c, recvbuf, recvcount, recvtype, "recvbuf", "recvcount",
                                      "recvtype", &rt)) ||
        (err = rch_mpi_coll_check_alias(fn, c, sendbuf, recvbuf, recvcount > 0 && rt->size > 0)))
        return err;
    size_t block = (size_t)recvcount * rt->size, n = (size_t)p * (size_t)recvcount;
    if (!in_place &&
        (err = rch_mpi_coll_check_self(fn, c, (size_t)sendcount * st_->size, block, "block size")))
        return err;
    if (!(nb = rch_mpi_nb_new(fn, c, &err)))
        return err;
    if (in_place)
        err = rch_mpi_stage_in(fn, c, recvbuf, n, rt, &nb->r);
    else if (!(err = rch_mpi_stage_in(fn, c, sendbuf, (size_t)p * (size_t)sendcount, st_, &nb->s)))
        err = rch_mpi_stage_out(fn, c, recvbuf, n, rt, &nb->r);
    if (err || (err = rch_mpi_nb_hold(fn, c, nb, rt)))
        return nb_fail(nb, err);
    nb->rbuf = recvbuf;
    nb->rcount = n;
    nb->rt = rt;
    nb->unpack_r = 1;
    if (!(greq = rch_mpi_nb_req(fn, c, nb, &err)))
        return nb_fail(nb, err);
    rdmach_status_t st = rch_coll_ialltoall(&c->coll, in_place ? RCH_COLL_IN_PLACE : nb->s.ptr,
                                            nb->r.ptr, block, greq);
    return rch_mpi_nb_started(fn, c, nb, greq, st, request);
}
#pragma weak MPI_Ialltoall = PMPI_Ialltoall

/* Checks of one side of alltoallv/w (as coll_alltoall.c's). */
static int check_side(const char *fn, struct rch_mpi_comm *c, const void *buf, const int *counts,
                      const int *displs, MPI_Datatype type, const MPI_Datatype *types,
                      const struct rch_mpi_type **t, const struct rch_mpi_type **tv, int is_send)
{
    const char *bufarg = is_send ? "sendbuf" : "recvbuf";
    const char *cntarg = is_send ? "sendcounts" : "recvcounts";
    const char *dsparg = is_send ? "sdispls" : "rdispls";
    const char *typarg = is_send ? (types ? "sendtypes" : "sendtype") : (types ? "recvtypes" : "recvtype");
    int err;
    if ((err = rch_mpi_coll_check_array(fn, c, counts, c->size, cntarg, 1)) ||
        (err = rch_mpi_coll_check_array(fn, c, displs, c->size, dsparg, 0)))
        return err;
    if (types) {
        for (int i = 0; i < c->size; i++)
            if ((err = rch_mpi_coll_check_type(fn, c, types[i], typarg, &tv[i])))
                return err;
    } else if ((err = rch_mpi_coll_check_type(fn, c, type, typarg, t))) {
        return err;
    }
    for (int i = 0; i < c->size; i++)
        if (counts[i] > 0 &&
            (err = rch_mpi_coll_check_buf(fn, c, buf, counts[i], types ? types[i] : type, bufarg,
                                          cntarg, typarg, NULL)))
            return err;
    return MPI_SUCCESS;
}

static int ialltoallvw(const char *fn, const void *sendbuf, const int *sendcounts, const int *sdispls,
                       MPI_Datatype sendtype, const MPI_Datatype *sendtypes, void *recvbuf,
                       const int *recvcounts, const int *rdispls, MPI_Datatype recvtype,
                       const MPI_Datatype *recvtypes, MPI_Comm comm, MPI_Request *request)
{
    struct rch_mpi_comm *c;
    const struct rch_mpi_type *st_ = NULL, *rt = NULL, **stv = NULL, **rtv = NULL;
    struct rch_mpi_nb *nb;
    struct rch_dev_req *greq;
    int w = recvtypes != NULL || sendtypes != NULL;
    int err;

    if ((err = rch_mpi_coll_begin(fn, comm, &c)) || (err = rch_mpi_nb_check_request(fn, c, request)))
        return err;
    int p = c->size, me = c->rank, in_place = sendbuf == MPI_IN_PLACE;
    if (w && ((!in_place && !sendtypes) || !recvtypes))
        return rch_mpi_err(comm, MPI_ERR_ARG, "%s: NULL pointer in argument %s", fn,
                           !recvtypes ? "recvtypes" : "sendtypes");
    if (!(nb = rch_mpi_nb_new(fn, c, &err)))
        return err;
    if (w) {
        /* the type arrays live as long as the call's state: rv unpacks with them */
        if (!(stv = rch_mpi_nb_keep(fn, c, nb, 2 * (size_t)p * sizeof(*stv), &err)))
            return nb_fail(nb, err);
        rtv = stv + p;
        for (int i = 0; i < 2 * p; i++)
            stv[i] = NULL;
    }
    if ((!in_place && (err = check_side(fn, c, sendbuf, sendcounts, sdispls, sendtype, sendtypes,
                                        &st_, stv, 1))) ||
        (err = check_side(fn, c, recvbuf, recvcounts, rdispls, recvtype, recvtypes, &rt, rtv, 0)))
        return nb_fail(nb, err);
    if (!in_place) {
        int data = 0;
        for (int i = 0; i < p; i++)
            data |= recvcounts[i] > 0;
        size_t s_me = (size_t)sendcounts[me] * (w ? stv[me] : st_)->size;
        size_t r_me = (size_t)recvcounts[me] * (w ? rtv[me] : rt)->size;
        if ((err = rch_mpi_coll_check_alias(fn, c, sendbuf, recvbuf, data)) ||
            (err = rch_mpi_coll_check_self(fn, c, s_me, r_me, "own block")))
            return nb_fail(nb, err);
    }
    for (int i = 0; i < p && !err; i++)
        err = rch_mpi_nb_hold(fn, c, nb, w ? rtv[i] : rt);
    const int *rcnt = NULL;
    if (err || !(rcnt = rch_mpi_nb_keep_ints(fn, c, nb, recvcounts, p, &err)) ||
        (err = rch_mpi_vstage_init(fn, c, recvbuf, p, rcnt, rdispls, !w, rt,
                                   (const struct rch_mpi_type *const *)rtv, &nb->rv)))
        return nb_fail(nb, err);
    if (in_place) {
        rch_mpi_vstage_pack_all(&nb->rv);
    } else {
        if ((err = rch_mpi_vstage_init(fn, c, (void *)sendbuf, p, sendcounts, sdispls, !w, st_,
                                       (const struct rch_mpi_type *const *)stv, &nb->sv)))
            return nb_fail(nb, err);
        rch_mpi_vstage_pack_all(&nb->sv);
    }
    nb->unpack_rv = 1;
    if (!(greq = rch_mpi_nb_req(fn, c, nb, &err)))
        return nb_fail(nb, err);
    rdmach_status_t st = rch_coll_ialltoallv(&c->coll, in_place ? RCH_COLL_IN_PLACE : nb->sv.base,
                                             nb->sv.counts, nb->sv.offs, nb->rv.base, nb->rv.counts,
                                             nb->rv.offs, greq);
    return rch_mpi_nb_started(fn, c, nb, greq, st, request);
}

int PMPI_Ialltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                    MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[],
                    MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    return ialltoallvw("MPI_Ialltoallv", sendbuf, sendcounts, sdispls, sendtype, NULL, recvbuf,
                       recvcounts, rdispls, recvtype, NULL, comm, request);
}
#pragma weak MPI_Ialltoallv = PMPI_Ialltoallv

int PMPI_Ialltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                    const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                    const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                    MPI_Request *request)
{
    static const char fn[] = "MPI_Ialltoallw";
    if (!recvtypes || (sendbuf != MPI_IN_PLACE && !sendtypes)) {
        struct rch_mpi_comm *c;
        int err = rch_mpi_coll_begin(fn, comm, &c);
        return err ? err : rch_mpi_err(comm, MPI_ERR_ARG, "%s: NULL pointer in argument %s", fn,
                                       !recvtypes ? "recvtypes" : "sendtypes");
    }
    return ialltoallvw(fn, sendbuf, sendcounts, sdispls, MPI_DATATYPE_NULL, sendtypes, recvbuf,
                       recvcounts, rdispls, MPI_DATATYPE_NULL, recvtypes, comm, request);
}
#pragma weak MPI_Ialltoallw = PMPI_Ialltoallw
