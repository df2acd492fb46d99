/*
 * The entry points of coll.h: check what the layer itself relies on (the
 * MPI binding has already checked the user's arguments and reports those in
 * MPI's terms), fill the arguments and run the selected algorithm.
 */
#include "base/base.h"
#include "coll/barrier.h"
#include "coll/coll_impl.h"

static rdmach_status_t check_comm(const struct rch_coll_comm *c, const char *fn)
{
    if (!c || c->size < 1 || c->rank < 0 || c->rank >= c->size || !c->world_of)
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "%s: invalid communicator view", fn);
    return RDMACH_OK;
}

static rdmach_status_t check_root(const struct rch_coll_comm *c, int root, const char *fn)
{
    rdmach_status_t st = check_comm(c, fn);
    if (st == RDMACH_OK && (root < 0 || root >= c->size))
        st = rch_base_err(RDMACH_ERR_INVALID_ARG, "%s: root %d is not a rank of the communicator "
                          "(size %d)", fn, root, c->size);
    return st;
}

static rdmach_status_t check_op(const struct rch_coll_comm *c, const struct rch_coll_op *op,
                                const char *fn)
{
    rdmach_status_t st = check_comm(c, fn);
    if (st == RDMACH_OK && (!op || !op->fn || op->elem_size == 0))
        st = rch_base_err(RDMACH_ERR_INVALID_ARG, "%s: invalid reduction operation", fn);
    return st;
}

/* The barrier framework (barrier_select.c) chooses a backend per communicator. */
rdmach_status_t rch_coll_barrier(const struct rch_coll_comm *c)
{
    rdmach_status_t st = check_comm(c, "barrier");
    return st != RDMACH_OK ? st : rch_coll_barrier_run(c);
}

rdmach_status_t rch_coll_bcast(const struct rch_coll_comm *c, void *buf, size_t bytes, int root)
{
    struct rch_coll_args a = { .rbuf = buf, .bytes = bytes, .root = root };
    rdmach_status_t st = check_root(c, root, "bcast");
    return st != RDMACH_OK ? st : rch_coll_run(RCH_COLL_BCAST, c, &a);
}

rdmach_status_t rch_coll_reduce(const struct rch_coll_comm *c, const void *sbuf, void *rbuf,
                                size_t count, const struct rch_coll_op *op, int root)
{
    struct rch_coll_args a = { .sbuf = sbuf, .rbuf = rbuf, .count = count, .op = op, .root = root };
    rdmach_status_t st = check_root(c, root, "reduce");
    if (st == RDMACH_OK)
        st = check_op(c, op, "reduce");
    return st != RDMACH_OK ? st : rch_coll_run(RCH_COLL_REDUCE, c, &a);
}

rdmach_status_t rch_coll_allreduce(const struct rch_coll_comm *c, const void *sbuf, void *rbuf,
                                   size_t count, const struct rch_coll_op *op)
{
    struct rch_coll_args a = { .sbuf = sbuf, .rbuf = rbuf, .count = count, .op = op };
    rdmach_status_t st = check_op(c, op, "allreduce");
    return st != RDMACH_OK ? st : rch_coll_run(RCH_COLL_ALLREDUCE, c, &a);
}

rdmach_status_t rch_coll_gather(const struct rch_coll_comm *c, const void *sbuf, void *rbuf,
                                size_t bytes, int root)
{
    struct rch_coll_args a = { .sbuf = sbuf, .rbuf = rbuf, .bytes = bytes, .root = root };
    rdmach_status_t st = check_root(c, root, "gather");
    return st != RDMACH_OK ? st : rch_coll_run(RCH_COLL_GATHER, c, &a);
}

rdmach_status_t rch_coll_gatherv(const struct rch_coll_comm *c, const void *sbuf, size_t sbytes,
                                 void *rbuf, const size_t *rcounts, const size_t *rdispls, int root)
{
    struct rch_coll_args a = { .sbuf = sbuf, .rbuf = rbuf, .bytes = sbytes, .rcounts = rcounts,
                               .rdispls = rdispls, .root = root };
    rdmach_status_t st = check_root(c, root, "gatherv");
    if (st == RDMACH_OK && c->rank == root && (!rcounts || !rdispls))
        st = rch_base_err(RDMACH_ERR_INVALID_ARG, "gatherv: the root needs counts and displacements");
    return st != RDMACH_OK ? st : rch_coll_run(RCH_COLL_GATHERV, c, &a);
}

rdmach_status_t rch_coll_scatter(const struct rch_coll_comm *c, const void *sbuf, void *rbuf,
                                 size_t bytes, int root)
{
    struct rch_coll_args a = { .sbuf = sbuf, .rbuf = rbuf, .bytes = bytes, .root = root };
    rdmach_status_t st = check_root(c, root, "scatter");
    return st != RDMACH_OK ? st : rch_coll_run(RCH_COLL_SCATTER, c, &a);
}

rdmach_status_t rch_coll_scatterv(const struct rch_coll_comm *c, const void *sbuf,
                                  const size_t *scounts, const size_t *sdispls,
                                  void *rbuf, size_t rbytes, int root)
{
    struct rch_coll_args a = { .sbuf = sbuf, .scounts = scounts, .sdispls = sdispls, .rbuf = rbuf,
                               .bytes = rbytes, .root = root };
    rdmach_status_t st = check_root(c, root, "scatterv");
    if (st == RDMACH_OK && c->rank == root && (!scounts || !sdispls))
        st = rch_base_err(RDMACH_ERR_INVALID_ARG, "scatterv: the root needs counts and displacements");
    return st != RDMACH_OK ? st : rch_coll_run(RCH_COLL_SCATTERV, c, &a);
}

rdmach_status_t rch_coll_allgather(const struct rch_coll_comm *c, const void *sbuf, void *rbuf,
                                   size_t bytes)
{
    struct rch_coll_args a = { .sbuf = sbuf, .rbuf = rbuf, .bytes = bytes };
    rdmach_status_t st = check_comm(c, "allgather");
    return st != RDMACH_OK ? st : rch_coll_run(RCH_COLL_ALLGATHER, c, &a);
}

rdmach_status_t rch_coll_allgatherv(const struct rch_coll_comm *c, const void *sbuf, void *rbuf,
                                    const size_t *rcounts, const size_t *rdispls)
{
    struct rch_coll_args a = { .sbuf = sbuf, .rbuf = rbuf, .rcounts = rcounts, .rdispls = rdispls };
    rdmach_status_t st = check_comm(c, "allgatherv");
    if (st == RDMACH_OK && (!rcounts || !rdispls))
        st = rch_base_err(RDMACH_ERR_INVALID_ARG, "allgatherv: counts and displacements are needed");
    return st != RDMACH_OK ? st : rch_coll_run(RCH_COLL_ALLGATHERV, c, &a);
}

rdmach_status_t rch_coll_alltoall(const struct rch_coll_comm *c, const void *sbuf, void *rbuf,
                                  size_t bytes)
{
    struct rch_coll_args a = { .sbuf = sbuf, .rbuf = rbuf, .bytes = bytes };
    rdmach_status_t st = check_comm(c, "alltoall");
    return st != RDMACH_OK ? st : rch_coll_run(RCH_COLL_ALLTOALL, c, &a);
}

rdmach_status_t rch_coll_alltoallv(const struct rch_coll_comm *c, const void *sbuf,
                                   const size_t *scounts, const size_t *sdispls, void *rbuf,
                                   const size_t *rcounts, const size_t *rdispls)
{
    struct rch_coll_args a = { .sbuf = sbuf, .scounts = scounts, .sdispls = sdispls, .rbuf = rbuf,
                               .rcounts = rcounts, .rdispls = rdispls };
    rdmach_status_t st = check_comm(c, "alltoallv");
    if (st == RDMACH_OK && (!rcounts || !rdispls ||
                            (sbuf != RCH_COLL_IN_PLACE && (!scounts || !sdispls))))
        st = rch_base_err(RDMACH_ERR_INVALID_ARG, "alltoallv: counts and displacements are needed");
    return st != RDMACH_OK ? st : rch_coll_run(RCH_COLL_ALLTOALLV, c, &a);
}

rdmach_status_t rch_coll_reduce_scatter(const struct rch_coll_comm *c, const void *sbuf, void *rbuf,
                                        const size_t *counts, const struct rch_coll_op *op)
{
    struct rch_coll_args a = { .sbuf = sbuf, .rbuf = rbuf, .counts = counts, .op = op };
    rdmach_status_t st = check_op(c, op, "reduce_scatter");
    if (st == RDMACH_OK && !counts)
        st = rch_base_err(RDMACH_ERR_INVALID_ARG, "reduce_scatter: counts are needed");
    return st != RDMACH_OK ? st : rch_coll_run(RCH_COLL_REDUCE_SCATTER, c, &a);
}

rdmach_status_t rch_coll_scan(const struct rch_coll_comm *c, const void *sbuf, void *rbuf,
                              size_t count, const struct rch_coll_op *op)
{
    struct rch_coll_args a = { .sbuf = sbuf, .rbuf = rbuf, .count = count, .op = op };
    rdmach_status_t st = check_op(c, op, "scan");
    return st != RDMACH_OK ? st : rch_coll_run(RCH_COLL_SCAN, c, &a);
}

rdmach_status_t rch_coll_exscan(const struct rch_coll_comm *c, const void *sbuf, void *rbuf,
                                size_t count, const struct rch_coll_op *op)
{
    struct rch_coll_args a = { .sbuf = sbuf, .rbuf = rbuf, .count = count, .op = op };
    rdmach_status_t st = check_op(c, op, "exscan");
    return st != RDMACH_OK ? st : rch_coll_run(RCH_COLL_EXSCAN, c, &a);
}
