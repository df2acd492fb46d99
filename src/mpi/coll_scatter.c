/*
 * MPI_Scatter and MPI_Scatterv: the bindings of rch_coll_scatter(v). The
 * send arguments matter only at the root; MPI_IN_PLACE as the root's recvbuf
 * means its block stays where it is in sendbuf.
 */
#include "mpi/coll_bind.h"

int PMPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    static const char fn[] = "MPI_Scatter";
    struct rch_mpi_comm *c;
    const struct rch_mpi_type *st_ = NULL, *rt = NULL;
    struct rch_mpi_stage s = { 0 }, r = { 0 };
    size_t block;
    int err;

    if ((err = rch_mpi_coll_begin(fn, comm, &c)) || (err = rch_mpi_coll_check_root(fn, c, root)))
        return err;
    int is_root = c->rank == root, p = c->size;
    int in_place = is_root && recvbuf == MPI_IN_PLACE;
    if (!in_place && (err = rch_mpi_coll_check_buf(fn, c, recvbuf, recvcount, recvtype, "recvbuf",
                                                   "recvcount", "recvtype", &rt)))
        return err;
    if (is_root) {
        if ((err = rch_mpi_coll_check_buf(fn, c, sendbuf, sendcount, sendtype, "sendbuf",
                                          "sendcount", "sendtype", &st_)) ||
            (err = rch_mpi_coll_check_alias(fn, c, sendbuf, recvbuf,
                                            sendcount > 0 && st_->size > 0)))
            return err;
        block = (size_t)sendcount * st_->size;
        if (!in_place &&
            (err = rch_mpi_coll_check_self(fn, c, block, (size_t)recvcount * rt->size, "root block")))
            return err;
        if ((err = rch_mpi_stage_in(fn, c, sendbuf, (size_t)p * (size_t)sendcount, st_, &s)))
            return err;
    } else {
        block = (size_t)recvcount * rt->size;
    }
    if (!in_place && (err = rch_mpi_stage_out(fn, c, recvbuf, (size_t)recvcount, rt, &r))) {
        rch_mpi_stage_free(&s);
        return err;
    }
    rdmach_status_t st = rch_coll_scatter(&c->coll, s.ptr, in_place ? RCH_COLL_IN_PLACE : r.ptr,
                                          block, root);
    rch_mpi_stage_free(&s);
    if (st != RDMACH_OK) {
        rch_mpi_stage_free(&r);
        return rch_mpi_coll_fail(fn, c, st);
    }
    if (!in_place)
        rch_mpi_stage_done(&r, recvbuf, (size_t)recvcount, rt);
    return MPI_SUCCESS;
}
#pragma weak MPI_Scatter = PMPI_Scatter

int PMPI_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                  MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                  int root, MPI_Comm comm)
{
    static const char fn[] = "MPI_Scatterv";
    struct rch_mpi_comm *c;
    const struct rch_mpi_type *st_ = NULL, *rt = NULL;
    struct rch_mpi_stage r = { 0 };
    struct rch_mpi_vstage v = { 0 };
    size_t rbytes;
    int err;

    if ((err = rch_mpi_coll_begin(fn, comm, &c)) || (err = rch_mpi_coll_check_root(fn, c, root)))
        return err;
    int is_root = c->rank == root;
    int in_place = is_root && recvbuf == MPI_IN_PLACE;
    if (!in_place && (err = rch_mpi_coll_check_buf(fn, c, recvbuf, recvcount, recvtype, "recvbuf",
                                                   "recvcount", "recvtype", &rt)))
        return err;
    if (is_root) {
        if ((err = rch_mpi_coll_check_array(fn, c, sendcounts, c->size, "sendcounts", 1)) ||
            (err = rch_mpi_coll_check_array(fn, c, displs, c->size, "displs", 0)) ||
            (err = rch_mpi_coll_check_type(fn, c, sendtype, "sendtype", &st_)))
            return err;
        for (int i = 0; i < c->size; i++)
            if (sendcounts[i] > 0 &&
                (err = rch_mpi_coll_check_buf(fn, c, sendbuf, sendcounts[i], sendtype, "sendbuf",
                                              "sendcounts[i]", "sendtype", NULL)))
                return err;
        if ((err = rch_mpi_coll_check_alias(fn, c, sendbuf, recvbuf, recvcount > 0 && rt && rt->size > 0)))
            return err;
        if (!in_place && (err = rch_mpi_coll_check_self(fn, c, (size_t)sendcounts[root] * st_->size,
                                                        (size_t)recvcount * rt->size, "root block")))
            return err;
        if ((err = rch_mpi_vstage_init(fn, c, (void *)sendbuf, c->size, sendcounts, displs, 1, st_,
                                       NULL, &v)))
            return err;
        rch_mpi_vstage_pack_all(&v);
    }
    rbytes = in_place ? (size_t)sendcounts[root] * st_->size : (size_t)recvcount * rt->size;
    if (!in_place && (err = rch_mpi_stage_out(fn, c, recvbuf, (size_t)recvcount, rt, &r))) {
        rch_mpi_vstage_free(&v);
        return err;
    }
    rdmach_status_t st = rch_coll_scatterv(&c->coll, v.base, v.counts, v.offs,
                                           in_place ? RCH_COLL_IN_PLACE : r.ptr, rbytes, root);
    rch_mpi_vstage_free(&v);
    if (st != RDMACH_OK) {
        rch_mpi_stage_free(&r);
        return rch_mpi_coll_fail(fn, c, st);
    }
    if (!in_place)
        rch_mpi_stage_done(&r, recvbuf, (size_t)recvcount, rt);
    return MPI_SUCCESS;
}
#pragma weak MPI_Scatterv = PMPI_Scatterv
