/*
 * MPI_Reduce, MPI_Allreduce, MPI_Scan, MPI_Exscan: the bindings of the
 * reductions of src/coll over one vector. The operation is bound to the
 * datatype (op_bind.c); buffers of non-contiguous types are packed into
 * basic elements and unpacked after. Checks and staging: coll_shape.c
 * (shared with the non-blocking forms, coll_nb_red.c).
 */
#include "mpi/coll_bind.h"
#include "mpi/intercoll.h"

enum red_kind { RED_ALLREDUCE, RED_SCAN, RED_EXSCAN };

int PMPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                int root, MPI_Comm comm)
{
    RCH_MPI_CS();
    struct rch_mpi_comm *ic = rch_mpi_inter_get(comm);
    if (ic)
        return rch_mpi_inter_reduce(ic, sendbuf, recvbuf, count, datatype, op, root);
    static const char fn[] = "MPI_Reduce";
    struct rch_mpi_comm *c;
    struct rch_mpi_coll_args a;
    struct rch_mpi_red red;
    struct rch_mpi_stage s = { 0 }, r = { 0 };
    int err;

    if ((err = rch_mpi_coll_begin(fn, comm, &c)) || (err = rch_mpi_coll_check_root(fn, c, root)) ||
        (err = rch_mpi_coll_check_reduce(fn, c, sendbuf, recvbuf, count, datatype, op, root, &red,
                                         &a)) ||
        (err = rch_mpi_stage_sendrecv(fn, c, a.in_place, a.is_root, sendbuf, (size_t)count, a.st,
                                      recvbuf, (size_t)count, a.rt, &s, &r)))
        return err;
    rdmach_status_t st = rch_coll_reduce(&c->coll, a.in_place ? RCH_COLL_IN_PLACE : s.ptr, r.ptr,
                                         (size_t)count * red.per_elem, &red.cop, root);
    return rch_mpi_stage_end(fn, c, st, &s, &r, recvbuf, (size_t)count, a.rt, a.is_root);
}
#pragma weak MPI_Reduce = PMPI_Reduce

/* Allreduce, Scan, Exscan: every rank sends and receives; MPI_IN_PLACE as
 * sendbuf means the operand is in recvbuf. */
static int all_red(const char *fn, enum red_kind kind, const void *sendbuf, void *recvbuf, int count,
                   MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    struct rch_mpi_comm *c;
    struct rch_mpi_coll_args a;
    struct rch_mpi_red red;
    struct rch_mpi_stage s = { 0 }, r = { 0 };
    int err;

    if ((err = rch_mpi_coll_begin(fn, comm, &c)) ||
        (err = rch_mpi_coll_check_allreduce(fn, c, sendbuf, recvbuf, count, datatype, op, &red, &a)) ||
        (err = rch_mpi_stage_sendrecv(fn, c, a.in_place, 1, sendbuf, (size_t)count, a.st, recvbuf,
                                      (size_t)count, a.rt, &s, &r)))
        return err;
    const void *sb = a.in_place ? RCH_COLL_IN_PLACE : s.ptr;
    size_t n = (size_t)count * red.per_elem;
    rdmach_status_t st;
    switch (kind) {
    case RED_ALLREDUCE: st = rch_coll_allreduce(&c->coll, sb, r.ptr, n, &red.cop); break;
    case RED_SCAN:      st = rch_coll_scan(&c->coll, sb, r.ptr, n, &red.cop); break;
    default:            st = rch_coll_exscan(&c->coll, sb, r.ptr, n, &red.cop); break;
    }
    /* Exscan leaves rank 0's recvbuf alone (MPI: undefined): do not unpack
     * the untouched temporary over it. */
    return rch_mpi_stage_end(fn, c, st, &s, &r, recvbuf, (size_t)count, a.rt,
                             !(kind == RED_EXSCAN && c->rank == 0));
}

int PMPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                   MPI_Comm comm)
{
    RCH_MPI_CS();
    struct rch_mpi_comm *ic = rch_mpi_inter_get(comm);
    if (ic)
        return rch_mpi_inter_allreduce(ic, sendbuf, recvbuf, count, datatype, op);
    return all_red("MPI_Allreduce", RED_ALLREDUCE, sendbuf, recvbuf, count, datatype, op, comm);
}
#pragma weak MPI_Allreduce = PMPI_Allreduce

int PMPI_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
              MPI_Comm comm)
{
    RCH_MPI_CS();
    return all_red("MPI_Scan", RED_SCAN, sendbuf, recvbuf, count, datatype, op, comm);
}
#pragma weak MPI_Scan = PMPI_Scan

int PMPI_Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                MPI_Comm comm)
{
    RCH_MPI_CS();
    return all_red("MPI_Exscan", RED_EXSCAN, sendbuf, recvbuf, count, datatype, op, comm);
}
#pragma weak MPI_Exscan = PMPI_Exscan
