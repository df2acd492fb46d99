/*
 * MPI_Ireduce, MPI_Iallreduce, MPI_Iscan, MPI_Iexscan,
 * MPI_Ireduce_scatter and MPI_Ireduce_scatter_block: the bindings of the
 * schedules in src/coll/nbc_tree.c and nbc_scan.c. Checks and staging as the
 * blocking reductions (coll_reduce.c, coll_reduce_scatter.c); the bound
 * operation lives in the call's state, since the schedule applies it later.
 */
#include <limits.h>
#include <stdlib.h>
#include "mpi/coll_nb.h"

static int check_red(const char *fn, struct rch_mpi_comm *c, int count, MPI_Datatype datatype,
                     MPI_Op op, const struct rch_mpi_type **t, struct rch_mpi_nb *nb)
{
    int err;
    if (count < 0)
        return rch_mpi_err(c->handle, MPI_ERR_COUNT, "%s: negative count %d in argument count", fn,
                           count);
    if ((err = rch_mpi_coll_check_type(fn, c, datatype, "datatype", t)) ||
        (err = rch_mpi_red_bind(fn, c, op, datatype, *t, 0, &nb->red)))
        return err;
    return rch_mpi_nb_hold(fn, c, nb, *t);
}

int PMPI_Ireduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                 int root, MPI_Comm comm, MPI_Request *request)
{
    static const char fn[] = "MPI_Ireduce";
    struct rch_mpi_comm *c;
    const struct rch_mpi_type *t;
    struct rch_mpi_nb *nb;
    struct rch_dev_req *greq = NULL;
    int err;

    if ((err = rch_mpi_coll_begin(fn, comm, &c)) || (err = rch_mpi_nb_check_request(fn, c, request)) ||
        (err = rch_mpi_coll_check_root(fn, c, root)))
        return err;
    if (!(nb = rch_mpi_nb_new(fn, c, &err)))
        return err;
    int is_root = c->rank == root;
    int in_place = is_root && sendbuf == MPI_IN_PLACE;
    if ((err = check_red(fn, c, count, datatype, op, &t, nb)) ||
        (!in_place && (err = rch_mpi_coll_check_buf(fn, c, sendbuf, count, datatype, "sendbuf",
                                                    "count", "datatype", NULL))) ||
        (is_root && ((err = rch_mpi_coll_check_buf(fn, c, recvbuf, count, datatype, "recvbuf",
                                                   "count", "datatype", NULL)) ||
                     (err = rch_mpi_coll_check_alias(fn, c, sendbuf, recvbuf,
                                                     count > 0 && t->size > 0)))) ||
        (!in_place && (err = rch_mpi_stage_in(fn, c, sendbuf, (size_t)count, t, &nb->s))) ||
        (is_root && (err = in_place ? rch_mpi_stage_in(fn, c, recvbuf, (size_t)count, t, &nb->r)
                                    : rch_mpi_stage_out(fn, c, recvbuf, (size_t)count, t, &nb->r))) ||
        !(greq = rch_mpi_nb_req(fn, c, nb, &err))) {
        rch_mpi_nb_free(nb);
        return err;
    }
    nb->rbuf = recvbuf;
    nb->rcount = (size_t)count;
    nb->rt = t;
    nb->unpack_r = is_root;
    rdmach_status_t st = rch_coll_ireduce(&c->coll, in_place ? RCH_COLL_IN_PLACE : nb->s.ptr, nb->r.ptr,
                                          (size_t)count * nb->red.per_elem, &nb->red.cop, root, greq);
    return rch_mpi_nb_started(fn, c, nb, greq, st, request);
}
#pragma weak MPI_Ireduce = PMPI_Ireduce

enum red_kind { RED_ALLREDUCE, RED_SCAN, RED_EXSCAN };

static int all_red(const char *fn, enum red_kind kind, const void *sendbuf, void *recvbuf, int count,
                   MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    struct rch_mpi_comm *c;
    const struct rch_mpi_type *t;
    struct rch_mpi_nb *nb;
    struct rch_dev_req *greq = NULL;
    int err;

    if ((err = rch_mpi_coll_begin(fn, comm, &c)) || (err = rch_mpi_nb_check_request(fn, c, request)))
        return err;
    if (!(nb = rch_mpi_nb_new(fn, c, &err)))
        return err;
    int in_place = sendbuf == MPI_IN_PLACE;
    if ((err = check_red(fn, c, count, datatype, op, &t, nb)) ||
        (!in_place && (err = rch_mpi_coll_check_buf(fn, c, sendbuf, count, datatype, "sendbuf",
                                                    "count", "datatype", NULL))) ||
        (err = rch_mpi_coll_check_buf(fn, c, recvbuf, count, datatype, "recvbuf", "count",
                                      "datatype", NULL)) ||
        (err = rch_mpi_coll_check_alias(fn, c, sendbuf, recvbuf, count > 0 && t->size > 0)) ||
        (!in_place && (err = rch_mpi_stage_in(fn, c, sendbuf, (size_t)count, t, &nb->s))) ||
        (err = in_place ? rch_mpi_stage_in(fn, c, recvbuf, (size_t)count, t, &nb->r)
                        : rch_mpi_stage_out(fn, c, recvbuf, (size_t)count, t, &nb->r)) ||
        !(greq = rch_mpi_nb_req(fn, c, nb, &err))) {
        rch_mpi_nb_free(nb);
        return err;
    }
    nb->rbuf = recvbuf;
    nb->rcount = (size_t)count;
    nb->rt = t;
    /* Exscan leaves rank 0's recvbuf alone (MPI: undefined). */
    nb->unpack_r = !(kind == RED_EXSCAN && c->rank == 0);
    const void *sb = in_place ? RCH_COLL_IN_PLACE : nb->s.ptr;
    size_t n = (size_t)count * nb->red.per_elem;
    rdmach_status_t st;
    switch (kind) {
    case RED_ALLREDUCE: st = rch_coll_iallreduce(&c->coll, sb, nb->r.ptr, n, &nb->red.cop, greq); break;
    case RED_SCAN:      st = rch_coll_iscan(&c->coll, sb, nb->r.ptr, n, &nb->red.cop, greq); break;
    default:            st = rch_coll_iexscan(&c->coll, sb, nb->r.ptr, n, &nb->red.cop, greq); break;
    }
    return rch_mpi_nb_started(fn, c, nb, greq, st, request);
}

int PMPI_Iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                    MPI_Comm comm, MPI_Request *request)
{
    return all_red("MPI_Iallreduce", RED_ALLREDUCE, sendbuf, recvbuf, count, datatype, op, comm,
                   request);
}
#pragma weak MPI_Iallreduce = PMPI_Iallreduce

int PMPI_Iscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               MPI_Comm comm, MPI_Request *request)
{
    return all_red("MPI_Iscan", RED_SCAN, sendbuf, recvbuf, count, datatype, op, comm, request);
}
#pragma weak MPI_Iscan = PMPI_Iscan

int PMPI_Iexscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                 MPI_Comm comm, MPI_Request *request)
{
    return all_red("MPI_Iexscan", RED_EXSCAN, sendbuf, recvbuf, count, datatype, op, comm, request);
}
#pragma weak MPI_Iexscan = PMPI_Iexscan

/* recvcounts == NULL: every block has `block` elements (the _block variant). */
static int ireduce_scatter(const char *fn, const void *sendbuf, void *recvbuf, const int *recvcounts,
                           int block, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                           MPI_Request *request)
{
    struct rch_mpi_comm *c;
    const struct rch_mpi_type *t;
    struct rch_mpi_nb *nb;
    struct rch_dev_req *greq = NULL;
    size_t total = 0, *counts = NULL;
    int err;

    if ((err = rch_mpi_coll_begin(fn, comm, &c)) || (err = rch_mpi_nb_check_request(fn, c, request)))
        return err;
    if (recvcounts) {
        if ((err = rch_mpi_coll_check_array(fn, c, recvcounts, c->size, "recvcounts", 1)))
            return err;
    } else if (block < 0) {
        return rch_mpi_err(comm, MPI_ERR_COUNT, "%s: negative count %d in argument recvcount", fn,
                           block);
    }
    for (int i = 0; i < c->size; i++)
        total += (size_t)(recvcounts ? recvcounts[i] : block);
    int mine = recvcounts ? recvcounts[c->rank] : block;
    int in_place = sendbuf == MPI_IN_PLACE;
    int total_int = total > (size_t)INT_MAX ? INT_MAX : (int)total;
    const char *countarg = recvcounts ? "recvcounts" : "recvcount";
    if (!(nb = rch_mpi_nb_new(fn, c, &err)))
        return err;
    if ((err = check_red(fn, c, 0, datatype, op, &t, nb)) ||
        (!in_place && (err = rch_mpi_coll_check_buf(fn, c, sendbuf, total_int, datatype, "sendbuf",
                                                    countarg, "datatype", NULL))) ||
        (err = rch_mpi_coll_check_buf(fn, c, recvbuf, in_place ? total_int : mine, datatype,
                                      "recvbuf", countarg, "datatype", NULL)) ||
        (err = rch_mpi_coll_check_alias(fn, c, sendbuf, recvbuf, total > 0 && t->size > 0)) ||
        !(counts = rch_mpi_nb_keep(fn, c, nb, (size_t)c->size * sizeof(size_t), &err)) ||
        (err = in_place ? rch_mpi_stage_in(fn, c, recvbuf, total, t, &nb->r)
                        : rch_mpi_stage_in(fn, c, sendbuf, total, t, &nb->s)) ||
        (!in_place && (err = rch_mpi_stage_out(fn, c, recvbuf, (size_t)mine, t, &nb->r))) ||
        !(greq = rch_mpi_nb_req(fn, c, nb, &err))) {
        rch_mpi_nb_free(nb);
        return err;
    }
    for (int i = 0; i < c->size; i++)
        counts[i] = (size_t)(recvcounts ? recvcounts[i] : block) * nb->red.per_elem;
    nb->rbuf = recvbuf;
    nb->rcount = (size_t)mine;   /* my block: the start of r */
    nb->rt = t;
    nb->unpack_r = 1;
    rdmach_status_t st = rch_coll_ireduce_scatter(&c->coll, in_place ? RCH_COLL_IN_PLACE : nb->s.ptr,
                                                  nb->r.ptr, counts, &nb->red.cop, greq);
    return rch_mpi_nb_started(fn, c, nb, greq, st, request);
}

int PMPI_Ireduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                         MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    static const char fn[] = "MPI_Ireduce_scatter";
    if (!recvcounts) {
        struct rch_mpi_comm *c;
        int err = rch_mpi_coll_begin(fn, comm, &c);
        return err ? err : rch_mpi_coll_check_array(fn, c, recvcounts, c->size, "recvcounts", 1);
    }
    return ireduce_scatter(fn, sendbuf, recvbuf, recvcounts, 0, datatype, op, comm, request);
}
#pragma weak MPI_Ireduce_scatter = PMPI_Ireduce_scatter

int PMPI_Ireduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                               MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                               MPI_Request *request)
{
    return ireduce_scatter("MPI_Ireduce_scatter_block", sendbuf, recvbuf, NULL, recvcount, datatype,
                           op, comm, request);
}
#pragma weak MPI_Ireduce_scatter_block = PMPI_Ireduce_scatter_block
