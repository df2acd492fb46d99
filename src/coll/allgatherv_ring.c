/*
 * Allgather(v) around a ring.
 *
 * Idea: in step i = 0 .. p-2 each rank passes to its right neighbour the
 * block it received in the previous step (its own block first) and receives
 * the next one from its left neighbour. Blocks go straight to their final
 * place; each link carries every block once.
 *
 * Restrictions: none (any p, blocks of any sizes: allgather and allgatherv).
 * Cost: (p - 1) · alpha + (p - 1) · n · beta, bandwidth-optimal; the choice
 * for large blocks and for non-powers of two.
 *
 *   p = 4   step 0: 0→1 [0]  1→2 [1]  2→3 [2]  3→0 [3]
 *           step 1: 0→1 [3]  1→2 [0]  2→3 [1]  3→0 [2]
 *           step 2: 0→1 [2]  1→2 [3]  2→3 [0]  3→0 [1]
 */
#include "coll/coll_impl.h"

/* Block i: counts/displs, or (NULL) equal blocks of `bytes` in rank order. */
static size_t blk_len(const size_t *counts, size_t bytes, int i)
{
    return counts ? counts[i] : bytes;
}

static size_t blk_off(const size_t *displs, size_t bytes, int i)
{
    return displs ? displs[i] : (size_t)i * bytes;
}

static rdmach_status_t ring(const struct rch_coll_comm *c, const void *sbuf, unsigned char *rbuf,
                            size_t bytes, const size_t *counts, const size_t *displs, int tag)
{
    int p = c->size, rank = c->rank;
    int left = (rank - 1 + p) % p, right = (rank + 1) % p;

    if (sbuf != RCH_COLL_IN_PLACE && blk_len(counts, bytes, rank))
        memcpy(rbuf + blk_off(displs, bytes, rank), sbuf, blk_len(counts, bytes, rank));
    for (int i = 0; i < p - 1; i++) {
        int sb = (rank - i + p) % p, rb = (rank - i - 1 + p) % p;
        rdmach_status_t st = rch_coll_sendrecv(c, rbuf + blk_off(displs, bytes, sb),
                                               blk_len(counts, bytes, sb), right,
                                               rbuf + blk_off(displs, bytes, rb),
                                               blk_len(counts, bytes, rb), left, tag);
        if (st != RDMACH_OK)
            return st;
    }
    return RDMACH_OK;
}

static rdmach_status_t allgather_ring(const struct rch_coll_comm *c, const struct rch_coll_args *a)
{
    return ring(c, a->sbuf, a->rbuf, a->bytes, NULL, NULL, RCH_COLL_TAG_ALLGATHER);
}

static rdmach_status_t allgatherv_ring(const struct rch_coll_comm *c, const struct rch_coll_args *a)
{
    return ring(c, a->sbuf, a->rbuf, 0, a->rcounts, a->rdispls, RCH_COLL_TAG_ALLGATHERV);
}

const struct rch_coll_algo rch_coll_allgather_ring = {
    .name = "ring",
    .applies = rch_coll_always,
    .run = allgather_ring,
};

const struct rch_coll_algo rch_coll_allgatherv_ring = {
    .name = "ring",
    .applies = rch_coll_always,
    .run = allgatherv_ring,
};
