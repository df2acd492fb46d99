/*
 * MPI_Ireduce, MPI_Iallreduce, MPI_Iscan, MPI_Iexscan,
 * MPI_Ireduce_scatter and MPI_Ireduce_scatter_block: the bindings of the
 * schedules in src/coll/nbc_tree.c and nbc_scan.c. Checks and staging are the
 * blocking reductions' (coll_shape.c); the bound operation lives in the
 * call's state, since the schedule applies it later.
 */
#include "mpi/coll_nb.h"
#include "mpi/intercoll.h"

int rch_mpi_ireduce(const char *fn, const void *sendbuf, void *recvbuf, int count,
                    MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm, MPI_Request *request)
{
    struct rch_mpi_comm *ic = rch_mpi_inter_get(comm);
    if (ic)
        return rch_mpi_inter_ireduce(fn, ic, sendbuf, recvbuf, count, datatype, op, root, request);
    struct rch_mpi_comm *c;
    struct rch_mpi_coll_args a;
    struct rch_mpi_nb *nb;
    struct rch_dev_req *greq;
    int err;

    if ((err = rch_mpi_nb_begin(fn, comm, request, &c)) ||
        (err = rch_mpi_coll_check_root(fn, c, root)))
        return err;
    if (!(nb = rch_mpi_nb_new(fn, c, &err)))
        return err;
    /* every rank holds the datatype: the schedule applies the operation to
     * it at the inner nodes of the tree too */
    if ((err = rch_mpi_coll_check_reduce(fn, c, sendbuf, recvbuf, count, datatype, op, root,
                                         &nb->red, &a)) ||
        (err = rch_mpi_stage_sendrecv(fn, c, a.in_place, a.is_root, sendbuf, (size_t)count, a.st,
                                      recvbuf, (size_t)count, a.rt, &nb->s, &nb->r)) ||
        (err = rch_mpi_nb_unpack_r(fn, c, nb, recvbuf, (size_t)count, a.rt)) ||
        !(greq = rch_mpi_nb_req(fn, c, nb, &err)))
        return rch_mpi_nb_fail(nb, err);
    nb->unpack_r = a.is_root;
    rdmach_status_t st = rch_coll_ireduce(&c->coll, a.in_place ? RCH_COLL_IN_PLACE : nb->s.ptr,
                                          nb->r.ptr, (size_t)count * nb->red.per_elem, &nb->red.cop,
                                          root, greq);
    return rch_mpi_nb_started(fn, c, nb, greq, st, request);
}

int PMPI_Ireduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                 int root, MPI_Comm comm, MPI_Request *request)
{
    RCH_MPI_CS();
    return rch_mpi_ireduce("MPI_Ireduce", sendbuf, recvbuf, count, datatype, op, root, comm,
                           request);
}
#pragma weak MPI_Ireduce = PMPI_Ireduce

enum red_kind { RED_ALLREDUCE, RED_SCAN, RED_EXSCAN };

static int all_red(const char *fn, enum red_kind kind, const void *sendbuf, void *recvbuf, int count,
                   MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    struct rch_mpi_comm *c;
    struct rch_mpi_coll_args a;
    struct rch_mpi_nb *nb;
    struct rch_dev_req *greq;
    int err;

    if ((err = rch_mpi_nb_begin(fn, comm, request, &c)))
        return err;
    if (!(nb = rch_mpi_nb_new(fn, c, &err)))
        return err;
    if ((err = rch_mpi_coll_check_allreduce(fn, c, sendbuf, recvbuf, count, datatype, op, &nb->red,
                                            &a)) ||
        (err = rch_mpi_stage_sendrecv(fn, c, a.in_place, 1, sendbuf, (size_t)count, a.st, recvbuf,
                                      (size_t)count, a.rt, &nb->s, &nb->r)) ||
        (err = rch_mpi_nb_unpack_r(fn, c, nb, recvbuf, (size_t)count, a.rt)) ||
        !(greq = rch_mpi_nb_req(fn, c, nb, &err)))
        return rch_mpi_nb_fail(nb, err);
    /* Exscan leaves rank 0's recvbuf alone (MPI: undefined). */
    nb->unpack_r = !(kind == RED_EXSCAN && c->rank == 0);
    const void *sb = a.in_place ? RCH_COLL_IN_PLACE : nb->s.ptr;
    size_t n = (size_t)count * nb->red.per_elem;
    rdmach_status_t st;
    switch (kind) {
    case RED_ALLREDUCE: st = rch_coll_iallreduce(&c->coll, sb, nb->r.ptr, n, &nb->red.cop, greq); break;
    case RED_SCAN:      st = rch_coll_iscan(&c->coll, sb, nb->r.ptr, n, &nb->red.cop, greq); break;
    default:            st = rch_coll_iexscan(&c->coll, sb, nb->r.ptr, n, &nb->red.cop, greq); break;
    }
    return rch_mpi_nb_started(fn, c, nb, greq, st, request);
}

int rch_mpi_iallreduce(const char *fn, const void *sendbuf, void *recvbuf, int count,
                       MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    struct rch_mpi_comm *ic = rch_mpi_inter_get(comm);
    if (ic)
        return rch_mpi_inter_iallreduce(fn, ic, sendbuf, recvbuf, count, datatype, op, request);
    return all_red(fn, RED_ALLREDUCE, sendbuf, recvbuf, count, datatype, op, comm,
                   request);
}

int PMPI_Iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                    MPI_Comm comm, MPI_Request *request)
{
    RCH_MPI_CS();
    return rch_mpi_iallreduce("MPI_Iallreduce", sendbuf, recvbuf, count, datatype, op, comm,
                              request);
}
#pragma weak MPI_Iallreduce = PMPI_Iallreduce

int rch_mpi_iscan(const char *fn, const void *sendbuf, void *recvbuf, int count,
                  MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    return all_red(fn, RED_SCAN, sendbuf, recvbuf, count, datatype, op, comm, request);
}

int PMPI_Iscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               MPI_Comm comm, MPI_Request *request)
{
    RCH_MPI_CS();
    return rch_mpi_iscan("MPI_Iscan", sendbuf, recvbuf, count, datatype, op, comm, request);
}
#pragma weak MPI_Iscan = PMPI_Iscan

int rch_mpi_iexscan(const char *fn, const void *sendbuf, void *recvbuf, int count,
                    MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    return all_red(fn, RED_EXSCAN, sendbuf, recvbuf, count, datatype, op, comm, request);
}

int PMPI_Iexscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                 MPI_Comm comm, MPI_Request *request)
{
    RCH_MPI_CS();
    return rch_mpi_iexscan("MPI_Iexscan", sendbuf, recvbuf, count, datatype, op, comm, request);
}
#pragma weak MPI_Iexscan = PMPI_Iexscan

/* recvcounts == NULL: every block has `block` elements (the _block
 * variant), or wide[i] (the large-count form's). */
static int ireduce_scatter(const char *fn, const void *sendbuf, void *recvbuf, const int *recvcounts,
                           const MPI_Count *wide, int block, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                           MPI_Request *request)
{
    struct rch_mpi_comm *c;
    struct rch_mpi_coll_args a;
    struct rch_mpi_nb *nb;
    struct rch_dev_req *greq;
    size_t total, mine, *counts;
    int err;

    if ((err = rch_mpi_nb_begin(fn, comm, request, &c)))
        return err;
    if (!(nb = rch_mpi_nb_new(fn, c, &err)))
        return err;
    /* in place the input is all of recvbuf; else recvbuf gets my block,
     * which is the start of r */
    if ((err = rch_mpi_coll_check_reduce_scatter(fn, c, sendbuf, recvbuf, recvcounts, wide, block, datatype,
                                                 op, &nb->red, &a, &total, &mine)) ||
        !(counts = rch_mpi_nb_keep(fn, c, nb, (size_t)c->size * sizeof(size_t), &err)) ||
        (err = rch_mpi_stage_sendrecv(fn, c, a.in_place, 1, sendbuf, total, a.st, recvbuf,
                                      a.in_place ? total : mine, a.rt, &nb->s, &nb->r)) ||
        (err = rch_mpi_nb_unpack_r(fn, c, nb, recvbuf, mine, a.rt)) ||
        !(greq = rch_mpi_nb_req(fn, c, nb, &err)))
        return rch_mpi_nb_fail(nb, err);
    for (int i = 0; i < c->size; i++)
        counts[i] = (wide ? (size_t)wide[i] : (size_t)(recvcounts ? recvcounts[i] : block)) * nb->red.per_elem;
    rdmach_status_t st = rch_coll_ireduce_scatter(&c->coll, a.in_place ? RCH_COLL_IN_PLACE : nb->s.ptr,
                                                  nb->r.ptr, counts, &nb->red.cop, greq);
    return rch_mpi_nb_started(fn, c, nb, greq, st, request);
}

int rch_mpi_ireduce_scatter(const char *fn, const void *sendbuf, void *recvbuf,
                            const int recvcounts[], MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                            MPI_Request *request)
{
    struct rch_mpi_comm *ic = rch_mpi_inter_get(comm);
    if (ic)
        return recvcounts ? rch_mpi_inter_ireduce_scatter(fn, ic, sendbuf, recvbuf, 0, recvcounts, datatype, op,
                                                          request)
                          : rch_mpi_coll_check_array(fn, ic, recvcounts, ic->size, "recvcounts", 1);
    if (!recvcounts) {
        struct rch_mpi_comm *c;
        int err = rch_mpi_coll_begin(fn, comm, &c);
        return err ? err : rch_mpi_coll_check_array(fn, c, recvcounts, c->size, "recvcounts", 1);
    }
    return ireduce_scatter(fn, sendbuf, recvbuf, recvcounts, NULL, 0, datatype, op, comm, request);
}

int rch_mpi_ireduce_scatter_c(const char *fn, const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[],
                              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    struct rch_mpi_comm *ic = rch_mpi_inter_get(comm);
    if (ic)
        return rch_mpi_inter_ireduce_scatter_c(fn, ic, sendbuf, recvbuf, recvcounts, datatype, op, request);
    return ireduce_scatter(fn, sendbuf, recvbuf, NULL, recvcounts, 0, datatype, op, comm, request);
}

int PMPI_Ireduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                         MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    RCH_MPI_CS();
    return rch_mpi_ireduce_scatter("MPI_Ireduce_scatter", sendbuf, recvbuf, recvcounts, datatype,
                                   op, comm, request);
}
#pragma weak MPI_Ireduce_scatter = PMPI_Ireduce_scatter

int rch_mpi_ireduce_scatter_block(const char *fn, const void *sendbuf, void *recvbuf, int recvcount,
                                  MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                  MPI_Request *request)
{
    struct rch_mpi_comm *ic = rch_mpi_inter_get(comm);
    if (ic)
        return rch_mpi_inter_ireduce_scatter(fn, ic, sendbuf, recvbuf, recvcount, NULL, datatype, op,
                                             request);
    return ireduce_scatter(fn, sendbuf, recvbuf, NULL, NULL, recvcount, datatype,
                           op, comm, request);
}

int PMPI_Ireduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                               MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                               MPI_Request *request)
{
    RCH_MPI_CS();
    return rch_mpi_ireduce_scatter_block("MPI_Ireduce_scatter_block", sendbuf, recvbuf, recvcount,
                                         datatype, op, comm, request);
}
#pragma weak MPI_Ireduce_scatter_block = PMPI_Ireduce_scatter_block
