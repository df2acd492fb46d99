/*
 * Inclusive scan by recursive doubling.
 *
 * Idea: each rank keeps `partial`, the reduction over its aligned group of
 * 2^j ranks, and its result over the ranks of that group up to itself. In
 * round j it exchanges `partial` with rank XOR 2^j: from a lower partner the
 * received group precedes everything it has (result = recv op result,
 * partial = recv op partial); from a higher partner only `partial` grows
 * (partial op recv). Groups stay contiguous, so rank order is kept for
 * non-commutative operations.
 *
 * Restrictions: none.
 * Cost: ceil(lg p) · (alpha + n · beta + 2 · n · gamma).
 *
 *   p = 4   round 0: 0↔1 2↔3   result(1) = x0 x1        result(3) = x2 x3
 *           round 1: 0↔2 1↔3   result(2) = (x0 x1) x2   result(3) = (x0 x1) x2 x3
 */
#include <stdlib.h>
#include "coll/coll_impl.h"

static rdmach_status_t scan_recdbl(const struct rch_coll_comm *c, const struct rch_coll_args *a)
{
    const struct rch_coll_op *op = a->op;
    int p = c->size, rank = c->rank;
    size_t bytes = a->count * op->elem_size;
    void *partial = NULL, *tmp = NULL;
    rdmach_status_t st;

    if (a->sbuf != RCH_COLL_IN_PLACE && bytes)
        memcpy(a->rbuf, a->sbuf, bytes);
    if (p == 1)
        return RDMACH_OK;
    st = rch_coll_alloc(&partial, bytes, "scan");
    if (st != RDMACH_OK)
        return st;
    st = rch_coll_alloc(&tmp, bytes, "scan");
    if (st != RDMACH_OK)
        goto out_free;
    if (bytes)
        memcpy(partial, a->rbuf, bytes);

    for (int mask = 1; mask < p; mask <<= 1) {
        int dst = rank ^ mask;
        if (dst >= p)
            continue;
        st = rch_coll_sendrecv(c, partial, bytes, dst, tmp, bytes, dst, RCH_COLL_TAG_SCAN);
        if (st != RDMACH_OK)
            goto out_free;
        if (dst < rank) {
            rch_coll_op_before(op, tmp, partial, a->count);
            rch_coll_op_before(op, tmp, a->rbuf, a->count);
        } else {
            rch_coll_op_after(op, partial, tmp, a->count);
        }
    }

out_free:
    rch_coll_scratch_free(tmp);
    rch_coll_scratch_free(partial);
    return st;
}

const struct rch_coll_algo rch_coll_scan_recdbl = {
    .name = "recdbl",
    .applies = rch_coll_always,
    .run = scan_recdbl,
};
