/*
 * Allgather by recursive doubling.
 *
 * Idea: in round j each rank exchanges all the blocks it has — the 2^j
 * blocks of its aligned group — with rank XOR 2^j, doubling what it holds.
 * Blocks go straight to their final place in the receive buffer.
 *
 * Restrictions: p a power of two (otherwise the ring applies).
 * Cost: lg p · alpha + (p - 1) · n · beta. Fewest messages: small blocks.
 *
 *   p = 4:  round 0  0↔1 [0]/[1]      2↔3 [2]/[3]
 *           round 1  0↔2 [0 1]/[2 3]  1↔3 [0 1]/[2 3]
 */
#include "coll/coll_impl.h"

static int allgather_recdbl_applies(const struct rch_coll_comm *c, const struct rch_coll_args *a)
{
    (void)a;
    return rch_coll_is_pow2(c->size);
}

static rdmach_status_t allgather_recdbl(const struct rch_coll_comm *c, const struct rch_coll_args *a)
{
    int p = c->size, rank = c->rank;
    size_t bytes = a->bytes;
    unsigned char *rbuf = a->rbuf;

    if (a->sbuf != RCH_COLL_IN_PLACE && bytes)
        memcpy(rbuf + (size_t)rank * bytes, a->sbuf, bytes);
    for (int mask = 1; mask < p; mask <<= 1) {
        int dst = rank ^ mask;
        size_t mine = (size_t)(rank & ~(mask - 1)) * bytes;
        size_t theirs = (size_t)(dst & ~(mask - 1)) * bytes;
        rdmach_status_t st = rch_coll_sendrecv(c, rbuf + mine, (size_t)mask * bytes, dst,
                                               rbuf + theirs, (size_t)mask * bytes, dst,
                                               RCH_COLL_TAG_ALLGATHER);
        if (st != RDMACH_OK)
            return st;
    }
    return RDMACH_OK;
}

const struct rch_coll_algo rch_coll_allgather_recdbl = {
    .name = "recdbl",
    .applies = allgather_recdbl_applies,
    .run = allgather_recdbl,
};
