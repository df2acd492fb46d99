/*
 * Allreduce as reduce to rank 0 followed by broadcast from rank 0.
 *
 * Idea: reuse the selected reduce and bcast algorithms. Simple and valid for
 * every operation; the reference the faster algorithms are tested against.
 *
 * Restrictions: none.
 * Cost: that of reduce plus that of bcast (binomial: 2·lg p · (alpha + n · beta)).
 *
 *   reduce:  1→0 3→2 2→0      bcast:  0→2 0→1 2→3
 */
#include "coll/coll_impl.h"

static rdmach_status_t allreduce_reduce_bcast(const struct rch_coll_comm *c,
                                              const struct rch_coll_args *a)
{
    size_t bytes = a->count * a->op->elem_size;
    struct rch_coll_args r = {
        .sbuf = (c->rank == 0 || a->sbuf != RCH_COLL_IN_PLACE) ? a->sbuf : a->rbuf,
        .rbuf = a->rbuf,
        .count = a->count,
        .op = a->op,
        .root = 0,
    };
    rdmach_status_t st = rch_coll_run(RCH_COLL_REDUCE, c, &r);
    if (st != RDMACH_OK)
        return st;
    struct rch_coll_args b = { .rbuf = a->rbuf, .bytes = bytes, .root = 0 };
    return rch_coll_run(RCH_COLL_BCAST, c, &b);
}

const struct rch_coll_algo rch_coll_allreduce_reduce_bcast = {
    .name = "reduce_bcast",
    .applies = rch_coll_always,
    .run = allreduce_reduce_bcast,
};
