/*
 * MPI_Alltoall, MPI_Alltoallv, MPI_Alltoallw: the bindings of
 * rch_coll_alltoall(v). Alltoallw has a datatype per block and byte
 * displacements; its blocks are staged one by one (coll_stage.c) and run as
 * an alltoallv of bytes. MPI_IN_PLACE as sendbuf: the blocks to send are in
 * recvbuf, laid out as the receive arguments say (which must then be
 * symmetric), and are replaced by the received ones.
 */
#include <stdlib.h>
#include "mpi/coll_bind.h"
#include "mpi/intercoll.h"

int PMPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    RCH_MPI_CS();
    struct rch_mpi_comm *ic = rch_mpi_inter_get(comm);
    if (ic)
        return rch_mpi_inter_alltoallx("MPI_Alltoall", ic, sendbuf, sendcount, NULL, NULL, sendtype, NULL, recvbuf,
                                       recvcount, NULL, NULL, recvtype, NULL);
    static const char fn[] = "MPI_Alltoall";
    struct rch_mpi_comm *c;
    const struct rch_mpi_type *st_ = NULL, *rt = NULL;
    struct rch_mpi_stage s = { 0 }, r = { 0 };
    int err;

    if ((err = rch_mpi_coll_begin(fn, comm, &c)))
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

    if (in_place) {
        err = rch_mpi_stage_in(fn, c, recvbuf, n, rt, &r);
    } else {
        err = rch_mpi_stage_in(fn, c, sendbuf, (size_t)p * (size_t)sendcount, st_, &s);
        if (!err && (err = rch_mpi_stage_out(fn, c, recvbuf, n, rt, &r)))
            rch_mpi_stage_free(&s);
    }
    if (err)
        return err;
    rdmach_status_t st = rch_coll_alltoall(&c->coll, in_place ? RCH_COLL_IN_PLACE : s.ptr, r.ptr,
                                           block);
    rch_mpi_stage_free(&s);
    if (st != RDMACH_OK) {
        rch_mpi_stage_free(&r);
        return rch_mpi_coll_fail(fn, c, st);
    }
    rch_mpi_stage_done(&r, recvbuf, n, rt);
    return MPI_SUCCESS;
}
#pragma weak MPI_Alltoall = PMPI_Alltoall

/* Checks of one side (send or receive) of alltoallv/w: counts, displs, and
 * the type(s) and the buffer for every block that carries data. */
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
    return rch_mpi_coll_check_blocks(fn, c, buf, c->size, counts, type, types, bufarg, cntarg, typarg, t, tv);
}

/* Alltoallv (types NULL: sendtype/recvtype, displacements in extents) and
 * Alltoallw (per-block types, displacements in bytes). */
static int alltoallvw(const char *fn, const void *sendbuf, const int *sendcounts, const int *sdispls,
                      MPI_Datatype sendtype, const MPI_Datatype *sendtypes, void *recvbuf,
                      const int *recvcounts, const int *rdispls, MPI_Datatype recvtype,
                      const MPI_Datatype *recvtypes, MPI_Comm comm)
{
    struct rch_mpi_comm *c;
    const struct rch_mpi_type *st_ = NULL, *rt = NULL, **stv = NULL, **rtv = NULL;
    struct rch_mpi_vstage sv = { 0 }, rv = { 0 };
    int w = recvtypes != NULL || sendtypes != NULL;
    int err;

    if ((err = rch_mpi_coll_begin(fn, comm, &c)))
        return err;
    int p = c->size, me = c->rank, in_place = sendbuf == MPI_IN_PLACE;
    if (w) {
        if ((!in_place && !sendtypes) || !recvtypes)
            return rch_mpi_err(comm, MPI_ERR_ARG, "%s: NULL pointer in argument %s", fn,
                               !recvtypes ? "recvtypes" : "sendtypes");
        stv = calloc(2 * (size_t)p, sizeof(*stv));
        if (!stv)
            return rch_mpi_coll_nomem(fn, c, 2 * (size_t)p * sizeof(*stv));
        rtv = stv + p;
    }
    if ((!in_place && (err = check_side(fn, c, sendbuf, sendcounts, sdispls, sendtype, sendtypes,
                                        &st_, stv, 1))) ||
        (err = check_side(fn, c, recvbuf, recvcounts, rdispls, recvtype, recvtypes, &rt, rtv, 0)))
        goto out_free;
    if (!in_place) {
        int data = 0;
        for (int i = 0; i < p; i++)
            data |= recvcounts[i] > 0;
        if ((err = rch_mpi_coll_check_alias(fn, c, sendbuf, recvbuf, data)))
            goto out_free;
        size_t s_me = (size_t)sendcounts[me] * (w ? stv[me] : st_)->size;
        size_t r_me = (size_t)recvcounts[me] * (w ? rtv[me] : rt)->size;
        if ((err = rch_mpi_coll_check_self(fn, c, s_me, r_me, "own block")))
            goto out_free;
    }

    if ((err = rch_mpi_vstage_init(fn, c, recvbuf, p, recvcounts, rdispls, !w, rt,
                                   (const struct rch_mpi_type *const *)rtv, &rv)))
        goto out_free;
    if (in_place) {
        rch_mpi_vstage_pack_all(&rv);
    } else {
        if ((err = rch_mpi_vstage_init(fn, c, (void *)sendbuf, p, sendcounts, sdispls, !w, st_,
                                       (const struct rch_mpi_type *const *)stv, &sv)))
            goto out_free_rv;
        rch_mpi_vstage_pack_all(&sv);
    }
    rdmach_status_t st = rch_coll_alltoallv(&c->coll, in_place ? RCH_COLL_IN_PLACE : sv.base,
                                            sv.counts, sv.offs, rv.base, rv.counts, rv.offs);
    if (st == RDMACH_OK)
        rch_mpi_vstage_unpack_all(&rv);
    else
        err = rch_mpi_coll_fail(fn, c, st);
    rch_mpi_vstage_free(&sv);
out_free_rv:
    rch_mpi_vstage_free(&rv);
out_free:
    free(stv);
    return err;
}

int PMPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                   MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                   const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    RCH_MPI_CS();
    struct rch_mpi_comm *ic = rch_mpi_inter_get(comm);
    if (ic)
        return rch_mpi_inter_alltoallx("MPI_Alltoallv", ic, sendbuf, 0, sendcounts, sdispls, sendtype, NULL, recvbuf, 0,
                                       recvcounts, rdispls, recvtype, NULL);
    return alltoallvw("MPI_Alltoallv", sendbuf, sendcounts, sdispls, sendtype, NULL, recvbuf,
                      recvcounts, rdispls, recvtype, NULL, comm);
}
#pragma weak MPI_Alltoallv = PMPI_Alltoallv

int PMPI_Alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                   const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                   const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    RCH_MPI_CS();
    struct rch_mpi_comm *ic = rch_mpi_inter_get(comm);
    if (ic)
        return rch_mpi_inter_alltoallx("MPI_Alltoallw", ic, sendbuf, 0, sendcounts, sdispls, MPI_DATATYPE_NULL,
                                       sendtypes, recvbuf, 0, recvcounts, rdispls, MPI_DATATYPE_NULL, recvtypes);
    static const char fn[] = "MPI_Alltoallw";
    if (!recvtypes || (sendbuf != MPI_IN_PLACE && !sendtypes)) {
        struct rch_mpi_comm *c;
        int err = rch_mpi_coll_begin(fn, comm, &c);
        return err ? err : rch_mpi_err(comm, MPI_ERR_ARG, "%s: NULL pointer in argument %s", fn,
                                       !recvtypes ? "recvtypes" : "sendtypes");
    }
    return alltoallvw(fn, sendbuf, sendcounts, sdispls, MPI_DATATYPE_NULL, sendtypes, recvbuf,
                      recvcounts, rdispls, MPI_DATATYPE_NULL, recvtypes, comm);
}
#pragma weak MPI_Alltoallw = PMPI_Alltoallw
