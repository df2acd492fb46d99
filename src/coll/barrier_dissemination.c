/*
 * Barrier by dissemination (Hensgen, Finkel and Manber).
 *
 * Idea: in round k = 0, 1, ... each rank signals rank + 2^k and waits for
 * the signal of rank - 2^k (mod p). After ceil(lg p) rounds every rank has
 * heard, directly or through a chain, from every other rank, so none leaves
 * before all have arrived.
 *
 * Restrictions: none (any p, no root).
 * Cost: ceil(lg p) · alpha; zero-byte messages.
 *
 *   p = 5     round 0 (+1)     round 1 (+2)     round 2 (+4)
 *             0→1 1→2 2→3      0→2 1→3 2→4      0→4 1→0 2→1
 *             3→4 4→0          3→0 4→1          3→2 4→3
 */
#include "coll/coll_impl.h"

static rdmach_status_t barrier_dissemination(const struct rch_coll_comm *c,
                                             const struct rch_coll_args *a)
{
    (void)a;
    char token = 0, sink;
    int p = c->size;
    for (int k = 1; k < p; k <<= 1) {
        int dst = (c->rank + k) % p;
        int src = (c->rank - k + p) % p;
        rdmach_status_t st = rch_coll_sendrecv(c, &token, 0, dst, &sink, 0, src, RCH_COLL_TAG_BARRIER);
        if (st != RDMACH_OK)
            return st;
    }
    return RDMACH_OK;
}

const struct rch_coll_algo rch_coll_barrier_dissemination = {
    .name = "dissemination",
    .applies = rch_coll_always,
    .run = barrier_dissemination,
};
