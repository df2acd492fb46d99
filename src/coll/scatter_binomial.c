/*
 * Scatter along a binomial tree (the gather tree, run backwards).
 *
 * Idea: relative to the root, rank rel receives from its parent the blocks
 * of its whole subtree, rel .. rel + min(lowbit(rel), p - rel) - 1, keeps
 * the first and sends each child rel + 2^j (largest first) the blocks of
 * that child's subtree. The root first rotates its buffer into relative
 * order (unless it is rank 0).
 *
 * Restrictions: equal block sizes (scatter, not scatterv).
 * Cost: lg p · alpha + (p - 1) · n · beta at the root; intermediate ranks
 * forward data, so large blocks prefer the linear algorithm.
 *
 *   p = 6, rel ranks:  0→4 [4 5]   0→2 [2 3]   0→1 [1]
 *                      4→5 [5]     2→3 [3]
 */
#include <stdlib.h>
#include "coll/coll_impl.h"

static rdmach_status_t scatter_binomial(const struct rch_coll_comm *c, const struct rch_coll_args *a)
{
    int p = c->size, rank = c->rank, root = a->root;
    int rel = (rank - root + p) % p;
    size_t bytes = a->bytes;
    int sub = p, mask = 1;
    const unsigned char *blocks = NULL;   /* my subtree's blocks, relative order */
    unsigned char *mem = NULL;
    rdmach_status_t st = RDMACH_OK;

    if (rel)
        sub = (rel & -rel) < p - rel ? (rel & -rel) : p - rel;

    if (rank == root) {
        if (root == 0) {
            blocks = a->sbuf;
        } else {
            st = rch_coll_alloc((void **)&mem, (size_t)p * bytes, "scatter");
            if (st != RDMACH_OK)
                return st;
            for (int i = 0; i < p && bytes; i++)
                memcpy(mem + (size_t)i * bytes,
                       (const unsigned char *)a->sbuf + (size_t)((i + root) % p) * bytes, bytes);
            blocks = mem;
        }
        while (mask < p)
            mask <<= 1;
    } else {
        int parent = ((rel & (rel - 1)) + root) % p;
        if (sub == 1)   /* a leaf receives its block in place */
            return rch_coll_recv(c, a->rbuf, bytes, parent, RCH_COLL_TAG_SCATTER);
        st = rch_coll_alloc((void **)&mem, (size_t)sub * bytes, "scatter");
        if (st != RDMACH_OK)
            return st;
        st = rch_coll_recv(c, mem, (size_t)sub * bytes, parent, RCH_COLL_TAG_SCATTER);
        if (st != RDMACH_OK)
            goto out_free;
        blocks = mem;
        mask = rel & -rel;
    }

    for (mask >>= 1; mask > 0; mask >>= 1) {
        if (rel + mask < p) {
            int child = rel + mask;
            int n = mask < p - child ? mask : p - child;
            st = rch_coll_send(c, blocks + (size_t)mask * bytes, (size_t)n * bytes,
                               (child + root) % p, RCH_COLL_TAG_SCATTER);
            if (st != RDMACH_OK)
                goto out_free;
        }
    }
    if (a->rbuf != RCH_COLL_IN_PLACE && bytes)
        memcpy(a->rbuf, blocks, bytes);

out_free:
    rch_coll_scratch_free(mem);
    return st;
}

const struct rch_coll_algo rch_coll_scatter_binomial = {
    .name = "binomial",
    .applies = rch_coll_always,
    .run = scatter_binomial,
};
