/*
 * MPI_Reduce, MPI_Allreduce, MPI_Scan, MPI_Exscan: the bindings of the
 * reductions of src/coll over one vector. The operation is bound to the
 * datatype (op_bind.c); buffers of non-contiguous types are packed into
 * basic elements and unpacked after.
 */
#include "mpi/coll_bind.h"

enum red_kind { RED_ALLREDUCE, RED_SCAN, RED_EXSCAN };

/* The common checks of a reduction: count, datatype, op. */
static int check_red(const char *fn, struct rch_mpi_comm *c, int count, MPI_Datatype datatype,
                     MPI_Op op, const struct rch_mpi_type **t, struct rch_mpi_red *red)
{
    int err;
    if (count < 0)
        return rch_mpi_err(c->handle, MPI_ERR_COUNT, "%s: negative count %d in argument count", fn,
                           count);
    if ((err = rch_mpi_coll_check_type(fn, c, datatype, "datatype", t)))
        return err;
    return rch_mpi_red_bind(fn, c, op, datatype, *t, 0, red);
}

int PMPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                int root, MPI_Comm comm)
{
    static const char fn[] = "MPI_Reduce";
    struct rch_mpi_comm *c;
    const struct rch_mpi_type *t;
    struct rch_mpi_red red;
    struct rch_mpi_stage s = { 0 }, r = { 0 };
    int err;

    if ((err = rch_mpi_coll_begin(fn, comm, &c)) || (err = rch_mpi_coll_check_root(fn, c, root)) ||
        (err = check_red(fn, c, count, datatype, op, &t, &red)))
        return err;
    int is_root = c->rank == root;
    int in_place = is_root && sendbuf == MPI_IN_PLACE;
    if (!in_place &&
        (err = rch_mpi_coll_check_buf(fn, c, sendbuf, count, datatype, "sendbuf", "count",
                                      "datatype", NULL)))
        return err;
    if (is_root &&
        ((err = rch_mpi_coll_check_buf(fn, c, recvbuf, count, datatype, "recvbuf", "count",
                                       "datatype", NULL)) ||
         (err = rch_mpi_coll_check_alias(fn, c, sendbuf, recvbuf, count > 0 && t->size > 0))))
        return err;

    if (!in_place && (err = rch_mpi_stage_in(fn, c, sendbuf, (size_t)count, t, &s)))
        return err;
    if (is_root) {
        err = in_place ? rch_mpi_stage_in(fn, c, recvbuf, (size_t)count, t, &r)
                       : rch_mpi_stage_out(fn, c, recvbuf, (size_t)count, t, &r);
        if (err) {
            rch_mpi_stage_free(&s);
            return err;
        }
    }
    rdmach_status_t st = rch_coll_reduce(&c->coll, in_place ? RCH_COLL_IN_PLACE : s.ptr, r.ptr,
                                         (size_t)count * red.per_elem, &red.cop, root);
    rch_mpi_stage_free(&s);
    if (st != RDMACH_OK) {
        rch_mpi_stage_free(&r);
        return rch_mpi_coll_fail(fn, c, st);
    }
    if (is_root)
        rch_mpi_stage_done(&r, recvbuf, (size_t)count, t);
    return MPI_SUCCESS;
}
#pragma weak MPI_Reduce = PMPI_Reduce

/* Allreduce, Scan, Exscan: every rank sends and receives; MPI_IN_PLACE as
 * sendbuf means the operand is in recvbuf. */
static int all_red(const char *fn, enum red_kind kind, const void *sendbuf, void *recvbuf, int count,
                   MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    struct rch_mpi_comm *c;
    const struct rch_mpi_type *t;
    struct rch_mpi_red red;
    struct rch_mpi_stage s = { 0 }, r = { 0 };
    int err;

    if ((err = rch_mpi_coll_begin(fn, comm, &c)) ||
        (err = check_red(fn, c, count, datatype, op, &t, &red)))
        return err;
    int in_place = sendbuf == MPI_IN_PLACE;
    if ((!in_place && (err = rch_mpi_coll_check_buf(fn, c, sendbuf, count, datatype, "sendbuf",
                                                    "count", "datatype", NULL))) ||
        (err = rch_mpi_coll_check_buf(fn, c, recvbuf, count, datatype, "recvbuf", "count",
                                      "datatype", NULL)) ||
        (err = rch_mpi_coll_check_alias(fn, c, sendbuf, recvbuf, count > 0 && t->size > 0)))
        return err;

    if (!in_place && (err = rch_mpi_stage_in(fn, c, sendbuf, (size_t)count, t, &s)))
        return err;
    err = in_place ? rch_mpi_stage_in(fn, c, recvbuf, (size_t)count, t, &r)
                   : rch_mpi_stage_out(fn, c, recvbuf, (size_t)count, t, &r);
    if (err) {
        rch_mpi_stage_free(&s);
        return err;
    }
    const void *sb = in_place ? RCH_COLL_IN_PLACE : s.ptr;
    size_t n = (size_t)count * red.per_elem;
    rdmach_status_t st;
    switch (kind) {
    case RED_ALLREDUCE: st = rch_coll_allreduce(&c->coll, sb, r.ptr, n, &red.cop); break;
    case RED_SCAN:      st = rch_coll_scan(&c->coll, sb, r.ptr, n, &red.cop); break;
    default:            st = rch_coll_exscan(&c->coll, sb, r.ptr, n, &red.cop); break;
    }
    rch_mpi_stage_free(&s);
    if (st != RDMACH_OK) {
        rch_mpi_stage_free(&r);
        return rch_mpi_coll_fail(fn, c, st);
    }
    /* Exscan leaves rank 0's recvbuf alone (MPI: undefined): do not unpack
     * the untouched temporary over it. */
    if (kind == RED_EXSCAN && c->rank == 0)
        rch_mpi_stage_free(&r);
    else
        rch_mpi_stage_done(&r, recvbuf, (size_t)count, t);
    return MPI_SUCCESS;
}

int PMPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                   MPI_Comm comm)
{
    return all_red("MPI_Allreduce", RED_ALLREDUCE, sendbuf, recvbuf, count, datatype, op, comm);
}
#pragma weak MPI_Allreduce = PMPI_Allreduce

int PMPI_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
              MPI_Comm comm)
{
    return all_red("MPI_Scan", RED_SCAN, sendbuf, recvbuf, count, datatype, op, comm);
}
#pragma weak MPI_Scan = PMPI_Scan

int PMPI_Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                MPI_Comm comm)
{
    return all_red("MPI_Exscan", RED_EXSCAN, sendbuf, recvbuf, count, datatype, op, comm);
}
#pragma weak MPI_Exscan = PMPI_Exscan
