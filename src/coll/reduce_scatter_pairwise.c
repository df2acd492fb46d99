/*
 * Reduce-scatter by pairwise exchange.
 *
 * Idea: in step k = 1 .. p-1 each rank sends block (rank + k) of its input to
 * rank + k and receives from rank - k that rank's contribution to its own
 * block, combining as it goes. Contributions arrive in no particular rank
 * order, hence commutative operations only.
 *
 * Restrictions: commutative operations (otherwise reduce + scatterv applies).
 * Cost: (p - 1) · alpha + (n - n/p) · (beta + gamma) per rank; every rank
 * works on its own block in parallel.
 *
 *   p = 3, blocks b0 b1 b2:   step 1: 0→1 [b1]  1→2 [b2]  2→0 [b0]
 *                             step 2: 0→2 [b2]  1→0 [b0]  2→1 [b1]
 */
#include <stdlib.h>
#include "coll/coll_impl.h"

static int reduce_scatter_pairwise_applies(const struct rch_coll_comm *c,
                                           const struct rch_coll_args *a)
{
    (void)c;
    return a->op->commutative;
}

static rdmach_status_t reduce_scatter_pairwise(const struct rch_coll_comm *c,
                                               const struct rch_coll_args *a)
{
    const struct rch_coll_op *op = a->op;
    size_t es = op->elem_size;
    int p = c->size, rank = c->rank;
    const unsigned char *in = a->sbuf == RCH_COLL_IN_PLACE ? a->rbuf : a->sbuf;
    size_t *disp = NULL;
    void *acc, *tmp = NULL, *acc_mem = NULL;
    size_t mine = a->counts[rank];
    rdmach_status_t st;

    st = rch_coll_alloc((void **)&disp, (size_t)p * sizeof(*disp), "reduce_scatter");
    if (st != RDMACH_OK)
        return st;
    disp[0] = 0;
    for (int i = 1; i < p; i++)
        disp[i] = disp[i - 1] + a->counts[i - 1];

    /* In place the input blocks of the others are still being sent from the
     * receive buffer, so the result is built aside and copied at the end. */
    if (a->sbuf == RCH_COLL_IN_PLACE) {
        st = rch_coll_alloc(&acc_mem, mine * es, "reduce_scatter");
        if (st != RDMACH_OK)
            goto out_free;
        acc = acc_mem;
    } else {
        acc = a->rbuf;
    }
    if (mine)
        memcpy(acc, in + disp[rank] * es, mine * es);
    st = rch_coll_alloc(&tmp, mine * es, "reduce_scatter");
    if (st != RDMACH_OK)
        goto out_free;

    for (int k = 1; k < p; k++) {
        int dst = (rank + k) % p, from = (rank - k + p) % p;
        st = rch_coll_sendrecv(c, in + disp[dst] * es, a->counts[dst] * es, dst, tmp, mine * es, from,
                               RCH_COLL_TAG_REDUCE_SCATTER);
        if (st != RDMACH_OK)
            goto out_free;
        rch_coll_op_before(op, tmp, acc, mine);
    }
    if (acc != a->rbuf && mine)
        memcpy(a->rbuf, acc, mine * es);

out_free:
    rch_coll_scratch_free(tmp);
    rch_coll_scratch_free(acc_mem);
    rch_coll_scratch_free(disp);
    return st;
}

const struct rch_coll_algo rch_coll_reduce_scatter_pairwise = {
    .name = "pairwise",
    .applies = reduce_scatter_pairwise_applies,
    .run = reduce_scatter_pairwise,
};
