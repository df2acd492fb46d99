/*
 * MPI_Igather(v), MPI_Iscatter(v), MPI_Iallgather(v): the bindings of the
 * one-round schedules of src/coll/nbc_linear.c. Checks and staging as the
 * blocking forms (coll_gather.c, coll_scatter.c, coll_allgather.c); what is
 * received is unpacked when the request completes.
 */
#include "mpi/coll_nb.h"

/* A call that fails after its state exists: release it, report err. */
static int nb_fail(struct rch_mpi_nb *nb, int err)
{
    rch_mpi_nb_free(nb);
    return err;
}

int PMPI_Igather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request)
{
    static const char fn[] = "MPI_Igather";
    struct rch_mpi_comm *c;
    const struct rch_mpi_type *st_ = NULL, *rt = NULL;
    struct rch_mpi_nb *nb;
    struct rch_dev_req *greq;
    size_t block;
    int err;

    if ((err = rch_mpi_coll_begin(fn, comm, &c)) || (err = rch_mpi_nb_check_request(fn, c, request)) ||
        (err = rch_mpi_coll_check_root(fn, c, root)))
        return err;
    int is_root = c->rank == root, p = c->size;
    int in_place = is_root && sendbuf == MPI_IN_PLACE;
    if (!in_place && (err = rch_mpi_coll_check_buf(fn, c, sendbuf, sendcount, sendtype, "sendbuf",
                                                   "sendcount", "sendtype", &st_)))
        return err;
    if (is_root) {
        if ((err = rch_mpi_coll_check_buf(fn, c, recvbuf, recvcount, recvtype, "recvbuf",
                                          "recvcount", "recvtype", &rt)) ||
            (err = rch_mpi_coll_check_alias(fn, c, sendbuf, recvbuf, recvcount > 0 && rt->size > 0)))
            return err;
        block = (size_t)recvcount * rt->size;
        if (!in_place &&
            (err = rch_mpi_coll_check_self(fn, c, (size_t)sendcount * st_->size, block, "root block")))
            return err;
    } else {
        block = (size_t)sendcount * st_->size;
    }
    if (!(nb = rch_mpi_nb_new(fn, c, &err)))
        return err;
    if (!in_place && (err = rch_mpi_stage_in(fn, c, sendbuf, (size_t)sendcount, st_, &nb->s)))
        return nb_fail(nb, err);
    if (is_root) {
        size_t n = (size_t)p * (size_t)recvcount;
        if ((err = rch_mpi_stage_out(fn, c, recvbuf, n, rt, &nb->r)) ||
            (err = rch_mpi_nb_hold(fn, c, nb, rt)))
            return nb_fail(nb, err);
        if (in_place && nb->r.tmp)
            rch_mpi_pack_n((char *)recvbuf + (MPI_Aint)root * recvcount * rt->extent,
                           (size_t)recvcount, rt, (char *)nb->r.tmp + (size_t)root * block);
        nb->rbuf = recvbuf;
        nb->rcount = n;
        nb->rt = rt;
        nb->unpack_r = 1;
    }
    if (!(greq = rch_mpi_nb_req(fn, c, nb, &err)))
        return nb_fail(nb, err);
    rdmach_status_t st = rch_coll_igather(&c->coll, in_place ? RCH_COLL_IN_PLACE : nb->s.ptr,
                                          nb->r.ptr, block, root, greq);
    return rch_mpi_nb_started(fn, c, nb, greq, st, request);
}
#pragma weak MPI_Igather = PMPI_Igather

int PMPI_Igatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                  MPI_Comm comm, MPI_Request *request)
{
    static const char fn[] = "MPI_Igatherv";
    struct rch_mpi_comm *c;
    const struct rch_mpi_type *st_ = NULL, *rt = NULL;
    struct rch_mpi_nb *nb;
    struct rch_dev_req *greq;
    int err;

    if ((err = rch_mpi_coll_begin(fn, comm, &c)) || (err = rch_mpi_nb_check_request(fn, c, request)) ||
        (err = rch_mpi_coll_check_root(fn, c, root)))
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
        if ((err = rch_mpi_coll_check_alias(fn, c, sendbuf, recvbuf,
                                            sendcount > 0 && st_ && st_->size > 0)))
            return err;
        if (!in_place && (err = rch_mpi_coll_check_self(fn, c, (size_t)sendcount * st_->size,
                                                        (size_t)recvcounts[root] * rt->size,
                                                        "root block")))
            return err;
    }
    size_t sbytes = in_place ? (size_t)recvcounts[root] * rt->size : (size_t)sendcount * st_->size;
    if (!(nb = rch_mpi_nb_new(fn, c, &err)))
        return err;
    if (!in_place && (err = rch_mpi_stage_in(fn, c, sendbuf, (size_t)sendcount, st_, &nb->s)))
        return nb_fail(nb, err);
    if (is_root) {
        const int *cnt = rch_mpi_nb_keep_ints(fn, c, nb, recvcounts, c->size, &err);
        if (!cnt || (err = rch_mpi_nb_hold(fn, c, nb, rt)) ||
            (err = rch_mpi_vstage_init(fn, c, recvbuf, c->size, cnt, displs, 1, rt, NULL, &nb->rv)))
            return nb_fail(nb, err);
        if (in_place)
            rch_mpi_vstage_pack(&nb->rv, root);
        nb->unpack_rv = 1;
    }
    if (!(greq = rch_mpi_nb_req(fn, c, nb, &err)))
        return nb_fail(nb, err);
    rdmach_status_t st = rch_coll_igatherv(&c->coll, in_place ? RCH_COLL_IN_PLACE : nb->s.ptr, sbytes,
                                           nb->rv.base, nb->rv.counts, nb->rv.offs, root, greq);
    return rch_mpi_nb_started(fn, c, nb, greq, st, request);
}
#pragma weak MPI_Igatherv = PMPI_Igatherv

int PMPI_Iscatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request)
{
    static const char fn[] = "MPI_Iscatter";
    struct rch_mpi_comm *c;
    const struct rch_mpi_type *st_ = NULL, *rt = NULL;
    struct rch_mpi_nb *nb;
    struct rch_dev_req *greq;
    size_t block;
    int err;

    if ((err = rch_mpi_coll_begin(fn, comm, &c)) || (err = rch_mpi_nb_check_request(fn, c, request)) ||
        (err = rch_mpi_coll_check_root(fn, c, root)))
        return err;
    int is_root = c->rank == root, p = c->size;
    int in_place = is_root && recvbuf == MPI_IN_PLACE;
    if (!in_place && (err = rch_mpi_coll_check_buf(fn, c, recvbuf, recvcount, recvtype, "recvbuf",
                                                   "recvcount", "recvtype", &rt)))
        return err;
    if (is_root) {
        if ((err = rch_mpi_coll_check_buf(fn, c, sendbuf, sendcount, sendtype, "sendbuf",
                                          "sendcount", "sendtype", &st_)) ||
            (err = rch_mpi_coll_check_alias(fn, c, sendbuf, recvbuf, sendcount > 0 && st_->size > 0)))
            return err;
        block = (size_t)sendcount * st_->size;
        if (!in_place &&
            (err = rch_mpi_coll_check_self(fn, c, block, (size_t)recvcount * rt->size, "root block")))
            return err;
    } else {
        block = (size_t)recvcount * rt->size;
    }
    if (!(nb = rch_mpi_nb_new(fn, c, &err)))
        return err;
    if (is_root && (err = rch_mpi_stage_in(fn, c, sendbuf, (size_t)p * (size_t)sendcount, st_, &nb->s)))
        return nb_fail(nb, err);
    if (!in_place) {
        if ((err = rch_mpi_stage_out(fn, c, recvbuf, (size_t)recvcount, rt, &nb->r)) ||
            (err = rch_mpi_nb_hold(fn, c, nb, rt)))
            return nb_fail(nb, err);
        nb->rbuf = recvbuf;
        nb->rcount = (size_t)recvcount;
        nb->rt = rt;
        nb->unpack_r = 1;
    }
    if (!(greq = rch_mpi_nb_req(fn, c, nb, &err)))
        return nb_fail(nb, err);
    rdmach_status_t st = rch_coll_iscatter(&c->coll, nb->s.ptr, in_place ? RCH_COLL_IN_PLACE : nb->r.ptr,
                                           block, root, greq);
    return rch_mpi_nb_started(fn, c, nb, greq, st, request);
}
#pragma weak MPI_Iscatter = PMPI_Iscatter

int PMPI_Iscatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                   MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                   int root, MPI_Comm comm, MPI_Request *request)
{
    static const char fn[] = "MPI_Iscatterv";
    struct rch_mpi_comm *c;
    const struct rch_mpi_type *st_ = NULL, *rt = NULL;
    struct rch_mpi_nb *nb;
    struct rch_dev_req *greq;
    int err;

    if ((err = rch_mpi_coll_begin(fn, comm, &c)) || (err = rch_mpi_nb_check_request(fn, c, request)) ||
        (err = rch_mpi_coll_check_root(fn, c, root)))
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
    }
    size_t rbytes = in_place ? (size_t)sendcounts[root] * st_->size : (size_t)recvcount * rt->size;
    if (!(nb = rch_mpi_nb_new(fn, c, &err)))
        return err;
    if (is_root) {
        if ((err = rch_mpi_vstage_init(fn, c, (void *)sendbuf, c->size, sendcounts, displs, 1, st_,
                                       NULL, &nb->sv)))
            return nb_fail(nb, err);
        rch_mpi_vstage_pack_all(&nb->sv);
    }
    if (!in_place) {
        if ((err = rch_mpi_stage_out(fn, c, recvbuf, (size_t)recvcount, rt, &nb->r)) ||
            (err = rch_mpi_nb_hold(fn, c, nb, rt)))
            return nb_fail(nb, err);
        nb->rbuf = recvbuf;
        nb->rcount = (size_t)recvcount;
        nb->rt = rt;
        nb->unpack_r = 1;
    }
    if (!(greq = rch_mpi_nb_req(fn, c, nb, &err)))
        return nb_fail(nb, err);
    rdmach_status_t st = rch_coll_iscatterv(&c->coll, nb->sv.base, nb->sv.counts, nb->sv.offs,
                                            in_place ? RCH_COLL_IN_PLACE : nb->r.ptr, rbytes, root, greq);
    return rch_mpi_nb_started(fn, c, nb, greq, st, request);
}
#pragma weak MPI_Iscatterv = PMPI_Iscatterv

int PMPI_Iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    static const char fn[] = "MPI_Iallgather";
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
        (err = rch_mpi_coll_check_self(fn, c, (size_t)sendcount * st_->size, block, "own block")))
        return err;
    if (!(nb = rch_mpi_nb_new(fn, c, &err)))
        return err;
    if ((!in_place && (err = rch_mpi_stage_in(fn, c, sendbuf, (size_t)sendcount, st_, &nb->s))) ||
        (err = rch_mpi_stage_out(fn, c, recvbuf, n, rt, &nb->r)) ||
        (err = rch_mpi_nb_hold(fn, c, nb, rt)))
        return nb_fail(nb, err);
    if (in_place && nb->r.tmp)
        rch_mpi_pack_n((char *)recvbuf + (MPI_Aint)c->rank * recvcount * rt->extent,
                       (size_t)recvcount, rt, (char *)nb->r.tmp + (size_t)c->rank * block);
    nb->rbuf = recvbuf;
    nb->rcount = n;
    nb->rt = rt;
    nb->unpack_r = 1;
    if (!(greq = rch_mpi_nb_req(fn, c, nb, &err)))
        return nb_fail(nb, err);
    rdmach_status_t st = rch_coll_iallgather(&c->coll, in_place ? RCH_COLL_IN_PLACE : nb->s.ptr,
                                             nb->r.ptr, block, greq);
    return rch_mpi_nb_started(fn, c, nb, greq, st, request);
}
#pragma weak MPI_Iallgather = PMPI_Iallgather

int PMPI_Iallgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                     const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                     MPI_Request *request)
{
    static const char fn[] = "MPI_Iallgatherv";
    struct rch_mpi_comm *c;
    const struct rch_mpi_type *st_ = NULL, *rt = NULL;
    struct rch_mpi_nb *nb;
    struct rch_dev_req *greq;
    int err;

    if ((err = rch_mpi_coll_begin(fn, comm, &c)) || (err = rch_mpi_nb_check_request(fn, c, request)))
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
    if (!(nb = rch_mpi_nb_new(fn, c, &err)))
        return err;
    const int *cnt = NULL;
    if ((!in_place && (err = rch_mpi_stage_in(fn, c, sendbuf, (size_t)sendcount, st_, &nb->s))) ||
        !(cnt = rch_mpi_nb_keep_ints(fn, c, nb, recvcounts, c->size, &err)) ||
        (err = rch_mpi_nb_hold(fn, c, nb, rt)) ||
        (err = rch_mpi_vstage_init(fn, c, recvbuf, c->size, cnt, displs, 1, rt, NULL, &nb->rv)))
        return nb_fail(nb, err);
    if (in_place)
        rch_mpi_vstage_pack(&nb->rv, me);
    nb->unpack_rv = 1;
    if (!(greq = rch_mpi_nb_req(fn, c, nb, &err)))
        return nb_fail(nb, err);
    rdmach_status_t st = rch_coll_iallgatherv(&c->coll, in_place ? RCH_COLL_IN_PLACE : nb->s.ptr,
                                              nb->rv.base, nb->rv.counts, nb->rv.offs, greq);
    return rch_mpi_nb_started(fn, c, nb, greq, st, request);
}
#pragma weak MPI_Iallgatherv = PMPI_Iallgatherv
