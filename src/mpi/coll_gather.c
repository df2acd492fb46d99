/*
 * MPI_Gather and MPI_Gatherv: the bindings of rch_coll_gather(v). The
 * receive arguments matter only at the root; MPI_IN_PLACE as the root's
 * sendbuf means its block is already in place in recvbuf.
 */
#include "mpi/coll_bind.h"

int PMPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    static const char fn[] = "MPI_Gather";
    struct rch_mpi_comm *c;
    const struct rch_mpi_type *st_ = NULL, *rt = NULL;
    struct rch_mpi_stage s = { 0 }, r = { 0 };
    size_t block;
    int err;

    if ((err = rch_mpi_coll_begin(fn, comm, &c)) || (err = rch_mpi_coll_check_root(fn, c, root)))
        return err;
    int is_root = c->rank == root, p = c->size;
    int in_place = is_root && sendbuf == MPI_IN_PLACE;
    if (!in_place && (err = rch_mpi_coll_check_buf(fn, c, sendbuf, sendcount, sendtype, "sendbuf",
                                                   "sendcount", "sendtype", &st_)))
        return err;
    if (is_root) {
        if ((err = rch_mpi_coll_check_buf(fn, c, recvbuf, recvcount, recvtype, "recvbuf",
                                          "recvcount", "recvtype", &rt)) ||
            (err = rch_mpi_coll_check_alias(fn, c, sendbuf, recvbuf,
                                            recvcount > 0 && rt->size > 0)))
            return err;
        block = (size_t)recvcount * rt->size;
        if (!in_place &&
            (err = rch_mpi_coll_check_self(fn, c, (size_t)sendcount * st_->size, block, "root block")))
            return err;
    } else {
        block = (size_t)sendcount * st_->size;
    }

    if (!in_place && (err = rch_mpi_stage_in(fn, c, sendbuf, (size_t)sendcount, st_, &s)))
        return err;
    if (is_root) {
        size_t n = (size_t)p * (size_t)recvcount;
        if ((err = rch_mpi_stage_out(fn, c, recvbuf, n, rt, &r))) {
            rch_mpi_stage_free(&s);
            return err;
        }
        if (in_place && r.tmp)   /* the root's block goes into the staging copy */
            rch_mpi_pack_n((char *)recvbuf + (MPI_Aint)root * recvcount * rt->extent,
                           (size_t)recvcount, rt, (char *)r.tmp + (size_t)root * block);
    }
    rdmach_status_t st = rch_coll_gather(&c->coll, in_place ? RCH_COLL_IN_PLACE : s.ptr, r.ptr,
                                         block, root);
    rch_mpi_stage_free(&s);
    if (st != RDMACH_OK) {
        rch_mpi_stage_free(&r);
        return rch_mpi_coll_fail(fn, c, st);
    }
    if (is_root)
        rch_mpi_stage_done(&r, recvbuf, (size_t)p * (size_t)recvcount, rt);
    return MPI_SUCCESS;
}
#pragma weak MPI_Gather = PMPI_Gather

int PMPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                 MPI_Comm comm)
{
    static const char fn[] = "MPI_Gatherv";
    struct rch_mpi_comm *c;
    const struct rch_mpi_type *st_ = NULL, *rt = NULL;
    struct rch_mpi_stage s = { 0 };
    struct rch_mpi_vstage v = { 0 };
    size_t sbytes;
    int err;

    if ((err = rch_mpi_coll_begin(fn, comm, &c)) || (err = rch_mpi_coll_check_root(fn, c, root)))
        return err;
    int is_root = c->rank == root;
    int in_place = is_root && sendbuf == MPI_IN_PLACE;
    if (!in_place && (err = rch_mpi_coll_check_buf(fn, c, sendbuf, sendcount, sendtype, "sendbuf",
                                                   "sendcount", "sendtype", &st_)))
        return err;
    if (is_root) {
        if ((err = rch_mpi_coll_check_array(fn, c, recvcounts, c->size, "recvcounts", 1)) ||
            (err = rch_mpi_coll_check_array(fn, c, displs, c->size, "displs", 0)) ||
            (err = rch_mpi_coll_check_buf(fn, c, recvbuf, recvcounts[root], recvtype, "recvbuf",
                                          "recvcounts[root]", "recvtype", &rt)))
            return err;
        for (int i = 0; i < c->size; i++)
            if (!recvbuf && recvcounts[i] > 0 &&
                (err = rch_mpi_coll_check_buf(fn, c, recvbuf, recvcounts[i], recvtype, "recvbuf",
                                              "recvcounts[i]", "recvtype", NULL)))
                return err;
        if ((err = rch_mpi_coll_check_alias(fn, c, sendbuf, recvbuf, sendcount > 0 && st_ && st_->size > 0)))
            return err;
        if (!in_place && (err = rch_mpi_coll_check_self(fn, c, (size_t)sendcount * st_->size,
                                                        (size_t)recvcounts[root] * rt->size,
                                                        "root block")))
            return err;
    }
    sbytes = in_place ? (size_t)recvcounts[root] * rt->size : (size_t)sendcount * st_->size;

    if (!in_place && (err = rch_mpi_stage_in(fn, c, sendbuf, (size_t)sendcount, st_, &s)))
        return err;
    if (is_root) {
        if ((err = rch_mpi_vstage_init(fn, c, recvbuf, c->size, recvcounts, displs, 1, rt, NULL, &v))) {
            rch_mpi_stage_free(&s);
            return err;
        }
        if (in_place)
            rch_mpi_vstage_pack(&v, root);
    }
    rdmach_status_t st = rch_coll_gatherv(&c->coll, in_place ? RCH_COLL_IN_PLACE : s.ptr, sbytes,
                                          v.base, v.counts, v.offs, root);
    rch_mpi_stage_free(&s);
    if (st == RDMACH_OK && is_root)
        rch_mpi_vstage_unpack_all(&v);
    rch_mpi_vstage_free(&v);
    return st == RDMACH_OK ? MPI_SUCCESS : rch_mpi_coll_fail(fn, c, st);
}
#pragma weak MPI_Gatherv = PMPI_Gatherv
