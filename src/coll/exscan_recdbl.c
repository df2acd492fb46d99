/*
 * Exclusive scan by recursive doubling.
 *
 * Idea: as the inclusive scan (scan_recdbl.c), but the result only ever
 * takes groups received from lower partners, so it covers the ranks below
 * me; the first such group is copied rather than combined. Rank 0 never
 * receives from below and its receive buffer is left untouched (MPI leaves
 * it undefined).
 *
 * Restrictions: none.
 * Cost: ceil(lg p) · (alpha + n · beta + 2 · n · gamma).
 *
 *   p = 4   round 0: 0↔1 2↔3   result(1) = x0           result(3) = x2
 *           round 1: 0↔2 1↔3   result(2) = x0 x1        result(3) = (x0 x1) x2
 */
#include <stdlib.h>
#include "coll/coll_impl.h"

static rdmach_status_t exscan_recdbl(const struct rch_coll_comm *c, const struct rch_coll_args *a)
{
    const struct rch_coll_op *op = a->op;
    int p = c->size, rank = c->rank;
    size_t bytes = a->count * op->elem_size;
    void *partial = NULL, *tmp = NULL;
    int have = 0;                      /* does rbuf hold a result yet? */
    rdmach_status_t st;

    if (p == 1)
        return RDMACH_OK;
    st = rch_coll_alloc(&partial, bytes, "exscan");
    if (st != RDMACH_OK)
        return st;
    st = rch_coll_alloc(&tmp, bytes, "exscan");
    if (st != RDMACH_OK)
        goto out_free;
    if (bytes)
        memcpy(partial, a->sbuf == RCH_COLL_IN_PLACE ? a->rbuf : a->sbuf, bytes);

    for (int mask = 1; mask < p; mask <<= 1) {
        int dst = rank ^ mask;
        if (dst >= p)
            continue;
        st = rch_coll_sendrecv(c, partial, bytes, dst, tmp, bytes, dst, RCH_COLL_TAG_EXSCAN);
        if (st != RDMACH_OK)
            goto out_free;
        if (dst < rank) {
            rch_coll_op_before(op, tmp, partial, a->count);
            if (have) {
                rch_coll_op_before(op, tmp, a->rbuf, a->count);
            } else if (bytes) {
                memcpy(a->rbuf, tmp, bytes);
            }
            have = 1;
        } else {
            rch_coll_op_after(op, partial, tmp, a->count);
        }
    }

out_free:
    rch_coll_scratch_free(tmp);
    rch_coll_scratch_free(partial);
    return st;
}

const struct rch_coll_algo rch_coll_exscan_recdbl = {
    .name = "recdbl",
    .applies = rch_coll_always,
    .run = exscan_recdbl,
};
