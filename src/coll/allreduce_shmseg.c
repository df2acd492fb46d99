/*
 * Allreduce through the node's shared segment ("shmseg").
 *
 * Idea: every rank deposits its vector in its row of the node segment,
 * arrives at ONE node-wide synchronisation (nodeseg.h: the data area is
 * double-buffered by phase parity, so no second one is needed before the
 * next call), then reduces all p vectors itself, in rank order:
 *
 *   r = v0 op (v1 op (... op v(p-1)))
 *
 * Every rank computes the same expression in the same order, so every rank
 * gets the same bits, and for floating point the result does not depend on
 * timing or on which rank asks (non-commutative operations are fine: the
 * order is rank order). Vectors longer than a row are cut in chunks of a
 * row's whole elements, one phase each; in place works because a phase
 * deposits its chunk before it writes the result over it.
 *
 * A vector of at most 32 bytes travels in the rank's header line, the line
 * the others wait on (no extra cache-line transfer).
 *
 * Restrictions: every rank of the communicator on one node, a communicator
 * with collective state, an element no larger than a row. Meant for small
 * vectors (the tuning table's rows): every rank does the whole reduction.
 * Cost: one synchronisation + n · beta (deposit) + p · n · beta (read)
 * + (p - 1) · n · gamma, per row of n.
 *
 *   p = 3:   row[0] = v0   row[1] = v1   row[2] = v2   ─ sync ─
 *            every rank: r = v2; r = v1 op r; r = v0 op r
 */
#include "base/base.h"
#include "coll/coll_impl.h"
#include "coll/nodeseg.h"

static int shmseg_applies(const struct rch_coll_comm *c, const struct rch_coll_args *a)
{
    if (c->size == 1)
        return 1;
    return rch_coll_nodeseg_usable(c) &&
           a->op->elem_size <= (size_t)c->size * rch_coll_nodeseg_slot(c->size) &&
           a->op->elem_size <= UINT32_MAX;
}

static rdmach_status_t allreduce_shmseg(const struct rch_coll_comm *c, const struct rch_coll_args *a)
{
    const struct rch_coll_op *op = a->op;
    int p = c->size, me = c->rank;
    size_t es = op->elem_size, count = a->count;
    unsigned char *rbuf = a->rbuf;
    const unsigned char *sbuf = a->sbuf == RCH_COLL_IN_PLACE ? rbuf : a->sbuf;
    struct rch_coll_nodeseg *s;

    if (p == 1) {
        rch_coll_allreduce_copy(a);
        return RDMACH_OK;
    }
    rdmach_status_t st = rch_coll_nodeseg_get(c, &s);
    if (st != RDMACH_OK)
        return st;
    if (!s)    /* the segment could not be made (agreed): the message-based way */
        return rch_coll_allreduce_recdbl.run(c, a);

    size_t chunk = s->row / es;                      /* elements per phase (>= 1: applies) */
    size_t phases = count ? (count + chunk - 1) / chunk : 1;   /* a 0-count call still checks */
    for (size_t ph = 0; ph < phases; ph++) {
        size_t first = ph * chunk, n = count - first < chunk ? count - first : chunk;
        size_t len = n * es;
        int b = rch_coll_nodeseg_parity(s);
        struct rch_coll_nodeseg_hdr *h = rch_coll_nodeseg_hdr(s, b, me);
        h->coll = RCH_COLL_ALLREDUCE;
        h->elem = (uint32_t)es;
        h->size = count;
        /* a small vector travels in the header line (same choice everywhere,
         * or the check below fails before anything is read) */
        int inl = phases == 1 && len <= RCH_NODESEG_INLINE;
        rch_coll_nodeseg_copy(s, inl ? h->inl : rch_coll_nodeseg_row(s, b, me), sbuf + first * es, len);
        st = rch_coll_nodeseg_sync(s);
        if (st == RDMACH_OK && ph == 0)
            st = rch_coll_nodeseg_check(s, b, "allreduce");
        if (st != RDMACH_OK)
            return st;
        if (!len)
            continue;
        unsigned char *acc = rbuf + first * es;
        rch_coll_nodeseg_copy(s, acc, inl ? rch_coll_nodeseg_hdr(s, b, p - 1)->inl : rch_coll_nodeseg_row(s, b, p - 1),
                              len);
        for (int r = p - 2; r >= 0; r--)
            op->fn(inl ? rch_coll_nodeseg_hdr(s, b, r)->inl : rch_coll_nodeseg_row(s, b, r), acc, n,
                   op->arg);
    }
    return RDMACH_OK;
}

const struct rch_coll_algo rch_coll_allreduce_shmseg = {
    .name = "shmseg",
    .applies = shmseg_applies,
    .run = allreduce_shmseg,
    .nodeseg = 1,
};
