/*
 * Alltoall(v) by pairwise exchange (the "original" alltoall of rdmach's
 * design, before the node-aware ones).
 *
 * Idea: in step k = 1 .. p-1 each rank sends its block for rank + k and
 * receives the block from rank - k (mod p), both at once; its own block is a
 * local copy. Every pair meets exactly once and each step is a permutation,
 * so no rank is a hot spot. In place, the blocks to send are first copied
 * out of the receive buffer.
 *
 * Restrictions: none (any p; alltoall and alltoallv).
 * Cost: (p - 1) · (alpha + n · beta). Small messages on many ranks prefer
 * Bruck (lg p messages; a later algorithm).
 *
 *   p = 4   step 1: 0→1 1→2 2→3 3→0
 *           step 2: 0→2 1→3 2→0 3→1
 *           step 3: 0→3 1→0 2→1 3→2
 */
#include <stdlib.h>
#include "base/base.h"
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

static rdmach_status_t pairwise(const struct rch_coll_comm *c, const void *sbuf, const size_t *scounts,
                                const size_t *sdispls, unsigned char *rbuf, const size_t *rcounts,
                                const size_t *rdispls, size_t bytes, int tag)
{
    int p = c->size, rank = c->rank;
    unsigned char *copy = NULL;
    const unsigned char *src;
    rdmach_status_t st = RDMACH_OK;

    if (sbuf == RCH_COLL_IN_PLACE) {
        /* Send what the receive buffer holds now: copy its used span out. */
        size_t span = 0;
        for (int i = 0; i < p; i++) {
            size_t end = blk_off(rdispls, bytes, i) + blk_len(rcounts, bytes, i);
            if (blk_len(rcounts, bytes, i) && end > span)
                span = end;
        }
        st = rch_coll_alloc((void **)&copy, span, rch_coll_tag_name(tag));
        if (st != RDMACH_OK)
            return st;
        if (span)
            memcpy(copy, rbuf, span);
        src = copy;
        scounts = rcounts;
        sdispls = rdispls;
    } else {
        src = sbuf;
    }

    size_t self_s = blk_len(scounts, bytes, rank), self_r = blk_len(rcounts, bytes, rank);
    if (self_s != self_r) {
        st = rch_base_err(self_s > self_r ? RDMACH_ERR_TRUNCATE : RDMACH_ERR_INVALID_ARG,
                          "%s: rank %d sends %zu bytes to itself but expects %zu",
                          rch_coll_tag_name(tag), rank, self_s, self_r);
        goto out_free;
    }
    if (self_s)
        memcpy(rbuf + blk_off(rdispls, bytes, rank), src + blk_off(sdispls, bytes, rank), self_s);

    for (int k = 1; k < p; k++) {
        int dst = (rank + k) % p, from = (rank - k + p) % p;
        st = rch_coll_sendrecv(c, src + blk_off(sdispls, bytes, dst), blk_len(scounts, bytes, dst),
                               dst, rbuf + blk_off(rdispls, bytes, from),
                               blk_len(rcounts, bytes, from), from, tag);
        if (st != RDMACH_OK)
            break;
    }

out_free:
    rch_coll_scratch_free(copy);
    return st;
}

static rdmach_status_t alltoall_pairwise(const struct rch_coll_comm *c, const struct rch_coll_args *a)
{
    return pairwise(c, a->sbuf, NULL, NULL, a->rbuf, NULL, NULL, a->bytes, RCH_COLL_TAG_ALLTOALL);
}

static rdmach_status_t alltoallv_pairwise(const struct rch_coll_comm *c, const struct rch_coll_args *a)
{
    return pairwise(c, a->sbuf, a->scounts, a->sdispls, a->rbuf, a->rcounts, a->rdispls, 0,
                    RCH_COLL_TAG_ALLTOALLV);
}

const struct rch_coll_algo rch_coll_alltoall_pairwise = {
    .name = "pairwise",
    .applies = rch_coll_always,
    .run = alltoall_pairwise,
};

const struct rch_coll_algo rch_coll_alltoallv_pairwise = {
    .name = "pairwise",
    .applies = rch_coll_always,
    .run = alltoallv_pairwise,
};
