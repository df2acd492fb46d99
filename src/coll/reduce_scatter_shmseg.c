/*
 * Reduce-scatter within a node through the node segment's large area.
 *
 * Idea: the whole input vector is cut in chunks of a large row; in each
 * phase every rank deposits a chunk in its row, arrives at the phase's
 * synchronisation, and reduces the part of the chunk that falls in its own
 * block over all p rows, in rank order (r = v0 op (v1 op (... op v(p-1))):
 * any operation, the same bits as the other shmseg reductions), straight
 * into its receive buffer. The next chunk goes to the other parity, so one
 * synchronisation per chunk suffices (nodeseg.h).
 *
 * In place the input is the receive buffer and the result goes to its
 * start: element x of my block lands at x, at or before its input position
 * displ + x, whose chunk is deposited by then.
 *
 * Restrictions: one node, collective state for the segment, an element no
 * larger than a row. Cost per chunk of n bytes: t_sync + n β (deposit) +
 * (p reads of my share of the chunk) · β + γ.
 */
#include <string.h>
#include "base/base.h"
#include "coll/coll_impl.h"
#include "coll/nodeseg.h"

static int shmseg_applies(const struct rch_coll_comm *c, const struct rch_coll_args *a)
{
    return c->size == 1 ||
           (rch_coll_nodeseg_usable(c) &&
            a->op->elem_size <= (size_t)c->size * rch_coll_nodeseg_slot(c->size));
}

static rdmach_status_t reduce_scatter_shmseg(const struct rch_coll_comm *c, const struct rch_coll_args *a)
{
    const struct rch_coll_op *op = a->op;
    int p = c->size, me = c->rank;
    size_t es = op->elem_size, total = 0, lo = 0;
    unsigned char *rbuf = a->rbuf;
    const unsigned char *in = a->sbuf == RCH_COLL_IN_PLACE ? rbuf : a->sbuf;
    struct rch_coll_nodeseg *s;
    for (int r = 0; r < p; r++) {
        if (r == me)
            lo = total;
        total += a->counts[r];
    }
    size_t hi = lo + a->counts[me];          /* my block: elements [lo, hi) */
    if (p == 1) {
        if (in != rbuf && total)
            memcpy(rbuf, in, total * es);
        return RDMACH_OK;
    }
    rdmach_status_t st = rch_coll_nodeseg_big_get(c, &s);
    if (st != RDMACH_OK)
        return st;
    if (!s)
        return rch_coll_reduce_scatter_reduce_scatterv.run(c, a);

    size_t chunk = s->arow / es;
    size_t chunks = total ? (total + chunk - 1) / chunk : 1;   /* a 0-count call still checks */
    for (size_t k = 0; k < chunks; k++) {
        int b = rch_coll_nodeseg_parity(s);
        size_t first = k * chunk, n = total - first < chunk ? total - first : chunk;
        if (n)
            rch_coll_nodeseg_copy(s, rch_coll_nodeseg_arow(s, b, me), in + first * es, n * es);
        st = rch_coll_nodeseg_phase(s, RCH_COLL_REDUCE_SCATTER, (uint32_t)es, total, k == 0,
                                    "reduce_scatter");
        if (st != RDMACH_OK)
            return st;
        size_t from = first > lo ? first : lo, to = first + n < hi ? first + n : hi;
        if (from >= to)
            continue;
        size_t off = (from - first) * es, len = to - from;
        rch_coll_nodeseg_reduce_rows(s, b, off, len, rbuf + (from - lo) * es, op);
    }
    return RDMACH_OK;
}

const struct rch_coll_algo rch_coll_reduce_scatter_shmseg = {
    .name = "shmseg",
    .applies = shmseg_applies,
    .run = reduce_scatter_shmseg,
    .nodeseg = 1,
};
