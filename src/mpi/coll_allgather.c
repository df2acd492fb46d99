/*
 * MPI_Allgather and MPI_Allgatherv: the bindings of rch_coll_allgather(v).
 * MPI_IN_PLACE as sendbuf means each rank's block is already in place in
 * recvbuf.
 */
#include "mpi/coll_bind.h"

int PMPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    static const char fn[] = "MPI_Allgather";
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
        (err = rch_mpi_coll_check_self(fn, c, (size_t)sendcount * st_->size, block, "own block")))
        return err;

    if (!in_place && (err = rch_mpi_stage_in(fn, c, sendbuf, (size_t)sendcount, st_, &s)))
        return err;
    if ((err = rch_mpi_stage_out(fn, c, recvbuf, n, rt, &r))) {
        rch_mpi_stage_free(&s);
        return err;
    }
    if (in_place && r.tmp)
        rch_mpi_pack_n((char *)recvbuf + (MPI_Aint)c->rank * recvcount * rt->extent,
                       (size_t)recvcount, rt, (char *)r.tmp + (size_t)c->rank * block);
    rdmach_status_t st = rch_coll_allgather(&c->coll, in_place ? RCH_COLL_IN_PLACE : s.ptr, r.ptr,
                                            block);
    rch_mpi_stage_free(&s);
    if (st != RDMACH_OK) {
        rch_mpi_stage_free(&r);
        return rch_mpi_coll_fail(fn, c, st);
    }
    rch_mpi_stage_done(&r, recvbuf, n, rt);
    return MPI_SUCCESS;
}
#pragma weak MPI_Allgather = PMPI_Allgather

int PMPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm)
{
    static const char fn[] = "MPI_Allgatherv";
    struct rch_mpi_comm *c;
    const struct rch_mpi_type *st_ = NULL, *rt = NULL;
    struct rch_mpi_stage s = { 0 };
    struct rch_mpi_vstage v = { 0 };
    int err;

    if ((err = rch_mpi_coll_begin(fn, comm, &c)))
        return err;
    int in_place = sendbuf == MPI_IN_PLACE, me = c->rank;
    if ((!in_place && (err = rch_mpi_coll_check_buf(fn, c, sendbuf, sendcount, sendtype, "sendbuf",
                                                    "sendcount", "sendtype", &st_))) ||
        (err = rch_mpi_coll_check_array(fn, c, recvcounts, c->size, "recvcounts", 1)) ||
        (err = rch_mpi_coll_check_array(fn, c, displs, c->size, "displs", 0)) ||
        (err = rch_mpi_coll_check_type(fn, c, recvtype, "recvtype", &rt)))
        return err;
    for (int i = 0; i < c->size; i++)
        if (recvcounts[i] > 0 &&
            (err = rch_mpi_coll_check_buf(fn, c, recvbuf, recvcounts[i], recvtype, "recvbuf",
                                          "recvcounts[i]", "recvtype", NULL)))
            return err;
    if ((err = rch_mpi_coll_check_alias(fn, c, sendbuf, recvbuf, sendcount > 0 && st_ && st_->size > 0)))
        return err;
    if (!in_place && (err = rch_mpi_coll_check_self(fn, c, (size_t)sendcount * st_->size,
                                                    (size_t)recvcounts[me] * rt->size, "own block")))
        return err;

    if (!in_place && (err = rch_mpi_stage_in(fn, c, sendbuf, (size_t)sendcount, st_, &s)))
        return err;
    if ((err = rch_mpi_vstage_init(fn, c, recvbuf, c->size, recvcounts, displs, 1, rt, NULL, &v))) {
        rch_mpi_stage_free(&s);
        return err;
    }
    if (in_place)
        rch_mpi_vstage_pack(&v, me);
    rdmach_status_t st = rch_coll_allgatherv(&c->coll, in_place ? RCH_COLL_IN_PLACE : s.ptr, v.base,
                                             v.counts, v.offs);
    rch_mpi_stage_free(&s);
    if (st == RDMACH_OK)
        rch_mpi_vstage_unpack_all(&v);
    rch_mpi_vstage_free(&v);
    return st == RDMACH_OK ? MPI_SUCCESS : rch_mpi_coll_fail(fn, c, st);
}
#pragma weak MPI_Allgatherv = PMPI_Allgatherv
