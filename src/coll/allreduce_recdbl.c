/*
 * Allreduce by recursive doubling, with a fold for non-powers of two.
 *
 * Idea: with p = 2^k, in round j every rank exchanges its partial result
 * with rank XOR 2^j and combines; after k rounds all hold the full result.
 * With p = 2^k + r, the first 2r ranks fold pairwise first (even sends to
 * odd, odd combines and takes part), the 2^k survivors run the doubling, and
 * each odd rank of a folded pair hands the result back to its even partner.
 *
 * Non-commutative operations: a survivor stands for a contiguous range of
 * ranks and ranges stay contiguous and ordered through the doubling, so
 * combining (lower partner's op higher partner's) keeps rank order.
 *
 * Restrictions: none.
 * Cost: (lg p + 2·[p not a power of 2]) · (alpha + n · beta + n · gamma).
 * Best for small and medium messages (large ones want reduce-scatter +
 * allgather, a later algorithm).
 *
 *   p = 6 (k = 2, r = 2):  fold   0→1 2→3          survivors 1 3 4 5
 *                          round0 1↔3  4↔5         (new ranks 0 1 2 3)
 *                          round1 1↔4  3↔5
 *                          unfold 1→0 3→2
 */
#include <stdlib.h>
#include "coll/coll_impl.h"

static rdmach_status_t allreduce_recdbl(const struct rch_coll_comm *c, const struct rch_coll_args *a)
{
    const struct rch_coll_op *op = a->op;
    int p = c->size, rank = c->rank;
    size_t bytes = a->count * op->elem_size;
    void *buf = a->rbuf, *tmp = NULL;
    int pof2 = 1, rem, newrank;
    rdmach_status_t st;

    if (a->sbuf != RCH_COLL_IN_PLACE && bytes)
        memcpy(buf, a->sbuf, bytes);
    if (p == 1)
        return RDMACH_OK;
    st = rch_coll_alloc(&tmp, bytes, "allreduce");
    if (st != RDMACH_OK)
        return st;

    while (pof2 * 2 <= p)
        pof2 *= 2;
    rem = p - pof2;

    /* Fold: of the first 2·rem ranks the even ones hand their data to the
     * odd neighbour above and sit out. */
    if (rank < 2 * rem) {
        if (rank % 2 == 0) {
            st = rch_coll_send(c, buf, bytes, rank + 1, RCH_COLL_TAG_ALLREDUCE);
            newrank = -1;
        } else {
            st = rch_coll_recv(c, tmp, bytes, rank - 1, RCH_COLL_TAG_ALLREDUCE);
            if (st == RDMACH_OK)
                rch_coll_op_before(op, tmp, buf, a->count);
            newrank = rank / 2;
        }
    } else {
        newrank = rank - rem;
    }
    if (st != RDMACH_OK)
        goto out_free;

    if (newrank >= 0) {
        for (int mask = 1; mask < pof2; mask <<= 1) {
            int newdst = newrank ^ mask;
            int dst = newdst < rem ? newdst * 2 + 1 : newdst + rem;
            st = rch_coll_sendrecv(c, buf, bytes, dst, tmp, bytes, dst, RCH_COLL_TAG_ALLREDUCE);
            if (st != RDMACH_OK)
                goto out_free;
            if (dst < rank)
                rch_coll_op_before(op, tmp, buf, a->count);
            else
                rch_coll_op_after(op, buf, tmp, a->count);
        }
    }

    /* Unfold: the odd rank of each folded pair returns the result. */
    if (rank < 2 * rem) {
        if (rank % 2)
            st = rch_coll_send(c, buf, bytes, rank - 1, RCH_COLL_TAG_ALLREDUCE);
        else
            st = rch_coll_recv(c, buf, bytes, rank + 1, RCH_COLL_TAG_ALLREDUCE);
    }

out_free:
    rch_coll_scratch_free(tmp);
    return st;
}

const struct rch_coll_algo rch_coll_allreduce_recdbl = {
    .name = "recdbl",
    .applies = rch_coll_always,
    .run = allreduce_recdbl,
};
