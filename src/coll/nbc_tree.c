/*
 * Ibcast, Ireduce, Iallreduce, Ireduce_scatter(_block) as schedules over
 * binomial trees.
 *
 * Idea: with ranks renumbered v = (rank - root) mod p, rank v's parent is v
 * with its lowest set bit cleared and its children are v + 2^j for every
 * 2^j below that bit. Broadcast: receive from the parent, then send to every
 * child in one round. Reduction: receive every child's partial result in
 * one round, fold them in in order of increasing 2^j (the subtree of
 * v + 2^j holds the ranks right after v's own), send to the parent.
 * Allreduce is a reduction to 0 followed by a broadcast from 0;
 * reduce_scatter a reduction of the whole vector to 0 followed by rank 0
 * sending each rank its block.
 *
 * Restrictions: non-commutative operations reduce over the tree rooted at
 * rank 0 (v = rank, so the folding order is rank order) and rank 0 then
 * sends the result to the root if that is another rank.
 * Cost: bcast and reduce ceil(lg p) (alpha + n beta) on the critical path
 * (a rank's sends to its children go out together); allreduce twice that;
 * reduce_scatter lg p (alpha + n beta) + (p - 1)(alpha + n/p beta) at rank 0.
 *
 *   p = 6, root 0:   0 ── 1          bcast: 0→{4,2,1}, 2→3, 4→5
 *                    ├── 2 ── 3      reduce: the arrows reversed, each
 *                    └── 4 ── 5      parent folding its children in order
 */
#include <stdint.h>
#include "coll/nbc_impl.h"

rdmach_status_t rch_nbc_add_bcast(struct rch_nbc_sched *s, void *buf, size_t bytes, int root)
{
    const struct rch_coll_comm *c = rch_nbc_comm(s);
    int p = c->size, v = (c->rank - root + p) % p, mask = 1;
    rdmach_status_t st = RDMACH_OK;
    for (; mask < p; mask <<= 1)
        if (v & mask) {
            st = rch_nbc_recv(s, buf, bytes, (v - mask + root) % p, 0);
            break;
        }
    if (st == RDMACH_OK)
        st = rch_nbc_round(s);
    for (mask >>= 1; mask > 0 && st == RDMACH_OK; mask >>= 1)
        if (v + mask < p)
            st = rch_nbc_send(s, buf, bytes, (v + mask + root) % p, 0);
    return st == RDMACH_OK ? rch_nbc_round(s) : st;
}

rdmach_status_t rch_nbc_add_reduce(struct rch_nbc_sched *s, void *acc, size_t count, int troot)
{
    const struct rch_coll_comm *c = rch_nbc_comm(s);
    int p = c->size, v = (c->rank - troot + p) % p, mask = 1;
    size_t bytes = count * rch_nbc_elem_size(s);
    rdmach_status_t st = RDMACH_OK;
    for (; mask < p && !(v & mask) && st == RDMACH_OK; mask <<= 1) {
        if (v + mask >= p)
            continue;
        void *tmp = rch_nbc_tmp(s, bytes, &st);
        if (st == RDMACH_OK)
            st = rch_nbc_recv(s, tmp, bytes, (v + mask + troot) % p, 0);
        if (st == RDMACH_OK)
            st = rch_nbc_reduce(s, tmp, acc, count, 0);
    }
    if (st == RDMACH_OK)
        st = rch_nbc_round(s);
    if (st == RDMACH_OK && v != 0)
        st = rch_nbc_send(s, acc, bytes, (v - mask + troot) % p, 0);
    return st == RDMACH_OK ? rch_nbc_round(s) : st;
}

static rdmach_status_t finish(struct rch_nbc_sched *s, rdmach_status_t st, struct rch_dev_req *req)
{
    if (st != RDMACH_OK) {
        rch_nbc_free(s);
        return st;
    }
    return rch_nbc_start(s, req);
}

rdmach_status_t rch_coll_ibcast(const struct rch_coll_comm *c, void *buf, size_t bytes, int root,
                                struct rch_dev_req *req)
{
    struct rch_nbc_sched *s;
    rdmach_status_t st = rch_nbc_create(c, "ibcast", NULL, &s);
    if (st != RDMACH_OK)
        return st;
    return finish(s, rch_nbc_add_bcast(s, buf, bytes, root), req);
}

rdmach_status_t rch_coll_ireduce(const struct rch_coll_comm *c, const void *sbuf, void *rbuf,
                                 size_t count, const struct rch_coll_op *op, int root,
                                 struct rch_dev_req *req)
{
    struct rch_nbc_sched *s;
    rdmach_status_t st = rch_nbc_create(c, "ireduce", op, &s);
    if (st != RDMACH_OK)
        return st;
    size_t n = count * op->elem_size;
    int troot = op->commutative ? root : 0, me = c->rank;
    /* acc: the root's rbuf when it is the tree's root, scratch otherwise */
    void *acc = me == root && me == troot ? rbuf : rch_nbc_tmp(s, n, &st);
    const void *mine = sbuf == RCH_COLL_IN_PLACE ? rbuf : sbuf;
    if (st == RDMACH_OK)
        st = rch_nbc_copy(s, acc, mine, n);
    if (st == RDMACH_OK)
        st = rch_nbc_round(s);
    if (st == RDMACH_OK)
        st = rch_nbc_add_reduce(s, acc, count, troot);
    if (st == RDMACH_OK && troot != root) {
        if (me == troot)
            st = rch_nbc_send(s, acc, n, root, 1);
        else if (me == root)
            st = rch_nbc_recv(s, rbuf, n, troot, 1);
    }
    return finish(s, st, req);
}

rdmach_status_t rch_coll_iallreduce(const struct rch_coll_comm *c, const void *sbuf, void *rbuf,
                                    size_t count, const struct rch_coll_op *op,
                                    struct rch_dev_req *req)
{
    struct rch_nbc_sched *s;
    rdmach_status_t st = rch_nbc_create(c, "iallreduce", op, &s);
    if (st != RDMACH_OK)
        return st;
    size_t n = count * op->elem_size;
    /* rbuf is the accumulator everywhere: what it holds is sent up the tree
     * before the broadcast overwrites it */
    if (sbuf != RCH_COLL_IN_PLACE)
        st = rch_nbc_copy(s, rbuf, sbuf, n);
    if (st == RDMACH_OK)
        st = rch_nbc_round(s);
    if (st == RDMACH_OK)
        st = rch_nbc_add_reduce(s, rbuf, count, 0);
    if (st == RDMACH_OK)
        st = rch_nbc_add_bcast(s, rbuf, n, 0);
    return finish(s, st, req);
}

rdmach_status_t rch_coll_ireduce_scatter(const struct rch_coll_comm *c, const void *sbuf, void *rbuf,
                                         const size_t *counts, const struct rch_coll_op *op,
                                         struct rch_dev_req *req)
{
    struct rch_nbc_sched *s;
    rdmach_status_t st = rch_nbc_create(c, "ireduce_scatter", op, &s);
    if (st != RDMACH_OK)
        return st;
    size_t es = op->elem_size, total = 0;
    int p = c->size, me = c->rank;
    for (int i = 0; i < p; i++)
        total += counts[i];
    unsigned char *acc = rch_nbc_tmp(s, total * es, &st);
    if (st == RDMACH_OK)
        st = rch_nbc_copy(s, acc, sbuf == RCH_COLL_IN_PLACE ? rbuf : sbuf, total * es);
    if (st == RDMACH_OK)
        st = rch_nbc_round(s);
    if (st == RDMACH_OK)
        st = rch_nbc_add_reduce(s, acc, total, 0);
    if (st == RDMACH_OK && me == 0) {
        size_t off = 0;
        for (int i = 0; i < p && st == RDMACH_OK; i++) {
            if (i != 0)
                st = rch_nbc_send(s, acc + off * es, counts[i] * es, i, 1);
            off += counts[i];
        }
        if (st == RDMACH_OK)
            st = rch_nbc_copy(s, rbuf, acc, counts[0] * es);
    } else if (st == RDMACH_OK) {
        st = rch_nbc_recv(s, rbuf, counts[me] * es, 0, 1);
    }
    return finish(s, st, req);
}
