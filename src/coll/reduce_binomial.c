/*
 * Reduce along a binomial tree.
 *
 * Idea: relative to the tree's root, a rank with bit 2^j clear receives the
 * partial result of the subtree rel + 2^j and combines it with its own, for
 * j = 0, 1, ...; at its lowest set bit it sends its partial result to its
 * parent and is done. Each child's subtree covers the ranks just above the
 * parent's, so combining as (mine op child's) keeps rank order.
 *
 * Non-commutative operations: the tree is rooted at rank 0 (so relative
 * order is rank order) and rank 0 sends the result to the real root.
 * Commutative operations use the tree rooted at the root.
 *
 * Restrictions: none.
 * Cost: ceil(lg p) · (alpha + n · beta + n · gamma) (+ one alpha + n · beta
 * for a non-commutative op with root != 0).
 *
 *   p = 6, rel ranks:  0 ←── 1        round 0: 1→0 3→2 5→4
 *                      0 ←── 2 ←── 3  round 1: 2→0
 *                      0 ←── 4 ←── 5  round 2: 4→0
 */
#include <stdlib.h>
#include "coll/coll_impl.h"

static rdmach_status_t reduce_binomial(const struct rch_coll_comm *c, const struct rch_coll_args *a)
{
    const struct rch_coll_op *op = a->op;
    int p = c->size, rank = c->rank, root = a->root;
    int troot = op->commutative ? root : 0;        /* root of the tree */
    int rel = (rank - troot + p) % p;
    size_t bytes = a->count * op->elem_size;
    void *acc = NULL, *tmp = NULL, *acc_mem = NULL;
    rdmach_status_t st;

    /* The accumulator: the root's receive buffer, a temporary elsewhere. */
    if (rank == root) {
        acc = a->rbuf;
    } else {
        st = rch_coll_alloc(&acc_mem, bytes, "reduce");
        if (st != RDMACH_OK)
            return st;
        acc = acc_mem;
    }
    if (a->sbuf != RCH_COLL_IN_PLACE && bytes)
        memcpy(acc, a->sbuf, bytes);
    st = rch_coll_alloc(&tmp, bytes, "reduce");
    if (st != RDMACH_OK)
        goto out_free;

    for (int mask = 1; mask < p; mask <<= 1) {
        if (rel & mask) {
            int parent = ((rel & ~mask) + troot) % p;
            st = rch_coll_send(c, acc, bytes, parent, RCH_COLL_TAG_REDUCE);
            break;
        }
        if ((rel | mask) < p) {
            int child = ((rel | mask) + troot) % p;
            st = rch_coll_recv(c, tmp, bytes, child, RCH_COLL_TAG_REDUCE);
            if (st != RDMACH_OK)
                break;
            rch_coll_op_after(op, acc, tmp, a->count);   /* child's ranks follow mine */
        }
    }
    if (st != RDMACH_OK)
        goto out_free;

    /* Non-commutative: the result is at rank 0; hand it to the root. */
    if (troot != root) {
        if (rank == troot)
            st = rch_coll_send(c, acc, bytes, root, RCH_COLL_TAG_REDUCE);
        else if (rank == root)
            st = rch_coll_recv(c, a->rbuf, bytes, troot, RCH_COLL_TAG_REDUCE);
    }

out_free:
    rch_coll_scratch_free(tmp);
    rch_coll_scratch_free(acc_mem);
    return st;
}

const struct rch_coll_algo rch_coll_reduce_binomial = {
    .name = "binomial",
    .applies = rch_coll_always,
    .run = reduce_binomial,
};
