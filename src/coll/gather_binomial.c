/*
 * Gather along a binomial tree.
 *
 * Idea: relative to the root, rank rel collects the blocks of its subtree
 * rel .. rel + min(lowbit(rel), p - rel) - 1 in a temporary buffer (children
 * rel + 2^j append theirs at offset 2^j blocks), then sends them all to its
 * parent in one message. The root receives blocks in relative order and
 * rotates them into rank order.
 *
 * Restrictions: equal block sizes (gather, not gatherv).
 * Cost: lg p · alpha + (p - 1) · n · beta at the root; intermediate ranks
 * forward data, so large blocks prefer the linear algorithm.
 *
 *   p = 6, rel ranks:  1→0 [1]   3→2 [3]   5→4 [5]
 *                      2→0 [2 3]
 *                      4→0 [4 5]           root: [0 1 2 3 4 5] rotated
 */
#include <stdlib.h>
#include "coll/coll_impl.h"

static rdmach_status_t gather_binomial(const struct rch_coll_comm *c, const struct rch_coll_args *a)
{
    int p = c->size, rank = c->rank, root = a->root;
    int rel = (rank - root + p) % p;
    size_t bytes = a->bytes;
    int sub = p;                       /* blocks in my subtree, me included */
    unsigned char *tmp = NULL;
    const void *mine = a->sbuf;
    rdmach_status_t st = RDMACH_OK;

    if (rel)
        sub = (rel & -rel) < p - rel ? (rel & -rel) : p - rel;
    if (rank == root && mine == RCH_COLL_IN_PLACE)
        mine = (unsigned char *)a->rbuf + (size_t)root * bytes;

    /* A leaf sends its block straight from its buffer. */
    if (sub == 1 && rank != root)
        return rch_coll_send(c, mine, bytes, ((rel & (rel - 1)) + root) % p, RCH_COLL_TAG_GATHER);

    /* Root 0 collects in place: relative order is rank order. */
    if (rank == root && root == 0) {
        tmp = a->rbuf;
    } else {
        st = rch_coll_alloc((void **)&tmp, (size_t)sub * bytes, "gather");
        if (st != RDMACH_OK)
            return st;
    }
    if (tmp != mine && bytes)
        memcpy(tmp, mine, bytes);

    for (int mask = 1; mask < p; mask <<= 1) {
        if (rel & mask) {
            int parent = ((rel & ~mask) + root) % p;
            st = rch_coll_send(c, tmp, (size_t)sub * bytes, parent, RCH_COLL_TAG_GATHER);
            break;
        }
        if (rel + mask < p) {
            int child = rel + mask;
            int n = mask < p - child ? mask : p - child;
            st = rch_coll_recv(c, tmp + (size_t)mask * bytes, (size_t)n * bytes, (child + root) % p,
                               RCH_COLL_TAG_GATHER);
            if (st != RDMACH_OK)
                break;
        }
    }

    if (st == RDMACH_OK && rank == root && tmp != a->rbuf) {
        for (int i = 0; i < p; i++)
            if (bytes)
                memcpy((unsigned char *)a->rbuf + (size_t)((i + root) % p) * bytes,
                       tmp + (size_t)i * bytes, bytes);
    }
    if (tmp != a->rbuf)
        rch_coll_scratch_free(tmp);
    return st;
}

const struct rch_coll_algo rch_coll_gather_binomial = {
    .name = "binomial",
    .applies = rch_coll_always,
    .run = gather_binomial,
};
