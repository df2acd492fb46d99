/*
 * Broadcast along a binomial tree.
 *
 * Idea: ranks are renumbered relative to the root (rel = rank - root mod p).
 * A rank receives once, from rel minus its lowest set bit, then sends to
 * rel + 2^j for every 2^j below that bit, largest first, so the subtrees
 * that need longest are served first.
 *
 * Restrictions: none.
 * Cost: ceil(lg p) · (alpha + n · beta) on the critical path; good for small
 * messages (large ones want scatter + allgather, a later algorithm).
 *
 *   p = 8, rel ranks:   0 ──→ 4 ──→ 6 ──→ 7
 *                       │     └───→ 5
 *                       ├──→ 2 ──→ 3
 *                       └──→ 1
 */
#include "coll/coll_impl.h"

static rdmach_status_t bcast_binomial(const struct rch_coll_comm *c, const struct rch_coll_args *a)
{
    int p = c->size, root = a->root;
    int rel = (c->rank - root + p) % p;
    int mask = 1;
    rdmach_status_t st;

    while (mask < p) {
        if (rel & mask) {
            int src = (rel - mask + root) % p;
            st = rch_coll_recv(c, a->rbuf, a->bytes, src, RCH_COLL_TAG_BCAST);
            if (st != RDMACH_OK)
                return st;
            break;
        }
        mask <<= 1;
    }
    for (mask >>= 1; mask > 0; mask >>= 1) {
        if (rel + mask < p) {
            int dst = (rel + mask + root) % p;
            st = rch_coll_send(c, a->rbuf, a->bytes, dst, RCH_COLL_TAG_BCAST);
            if (st != RDMACH_OK)
                return st;
        }
    }
    return RDMACH_OK;
}

const struct rch_coll_algo rch_coll_bcast_binomial = {
    .name = "binomial",
    .applies = rch_coll_always,
    .run = bcast_binomial,
};
