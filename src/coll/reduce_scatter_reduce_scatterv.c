/*
 * Reduce-scatter as reduce of the whole vector to rank 0, then scatterv.
 *
 * Idea: reuse the selected reduce (which keeps rank order for
 * non-commutative operations) and scatterv algorithms. The fallback that
 * applies to every operation.
 *
 * Restrictions: none.
 * Cost: that of reduce on n elements plus scatterv of n (binomial reduce +
 * linear scatterv: lg p · (alpha + n · (beta + gamma)) + (p - 1) · alpha + n · beta).
 *
 *   reduce [b0 b1 b2] → 0,  then 0 → 1 [b1], 0 → 2 [b2]
 */
#include <stdlib.h>
#include "coll/coll_impl.h"

static rdmach_status_t reduce_scatter_reduce_scatterv(const struct rch_coll_comm *c,
                                                      const struct rch_coll_args *a)
{
    const struct rch_coll_op *op = a->op;
    size_t es = op->elem_size;
    int p = c->size, rank = c->rank;
    int in_place = a->sbuf == RCH_COLL_IN_PLACE;
    size_t total = 0, *scounts = NULL, *sdispls = NULL;
    void *full = NULL;               /* rank 0: the reduced vector */
    void *full_mem = NULL;
    rdmach_status_t st;

    for (int i = 0; i < p; i++)
        total += a->counts[i];

    /* Rank 0 reduces into its receive buffer when that holds the whole
     * vector (in place), into a temporary otherwise. */
    if (rank == 0) {
        if (in_place) {
            full = a->rbuf;
        } else {
            st = rch_coll_alloc(&full_mem, total * es, "reduce_scatter");
            if (st != RDMACH_OK)
                return st;
            full = full_mem;
        }
    }
    struct rch_coll_args r = {
        .sbuf = in_place && rank != 0 ? a->rbuf : a->sbuf,
        .rbuf = full,
        .count = total,
        .op = op,
        .root = 0,
    };
    st = rch_coll_run(RCH_COLL_REDUCE, c, &r);
    if (st != RDMACH_OK)
        goto out_free;

    st = rch_coll_alloc((void **)&scounts, 2 * (size_t)p * sizeof(size_t), "reduce_scatter");
    if (st != RDMACH_OK)
        goto out_free;
    sdispls = scounts + p;
    size_t off = 0;
    for (int i = 0; i < p; i++) {
        scounts[i] = a->counts[i] * es;
        sdispls[i] = off;
        off += scounts[i];
    }
    struct rch_coll_args s = {
        .sbuf = full,
        .scounts = scounts,
        .sdispls = sdispls,
        /* rank 0's block is at the start of the reduced vector: in place it
         * is already where it belongs */
        .rbuf = rank == 0 && in_place ? RCH_COLL_IN_PLACE : a->rbuf,
        .bytes = a->counts[rank] * es,
        .root = 0,
    };
    st = rch_coll_run(RCH_COLL_SCATTERV, c, &s);

out_free:
    rch_coll_scratch_free(scounts);
    rch_coll_scratch_free(full_mem);
    return st;
}

const struct rch_coll_algo rch_coll_reduce_scatter_reduce_scatterv = {
    .name = "reduce_scatterv",
    .applies = rch_coll_always,
    .run = reduce_scatter_reduce_scatterv,
};
