/*
 * Iscan and Iexscan as a chain.
 *
 * Idea: rank r receives the reduction of ranks 0..r-1 from r - 1, combines
 * it with its own operand (the prefix first: rank order holds for
 * non-commutative operations) and passes 0..r on to r + 1. Exscan's result
 * at r is what it received; rank 0 only sends its operand.
 *
 * Restrictions: none. Cost: (p - 1)(alpha + n beta + n gamma) end to end —
 * a chain, fine for a non-blocking call that overlaps computation, not what
 * a blocking scan should use (scan_recdbl.c).
 *
 *   0 ──x0──► 1 ──x0·x1──► 2 ──x0·x1·x2──► 3
 */
#include "coll/nbc_impl.h"

static rdmach_status_t finish(struct rch_nbc_sched *s, rdmach_status_t st, struct rch_dev_req *req)
{
    if (st != RDMACH_OK) {
        rch_nbc_free(s);
        return st;
    }
    return rch_nbc_start(s, req);
}

rdmach_status_t rch_coll_iscan(const struct rch_coll_comm *c, const void *sbuf, void *rbuf,
                               size_t count, const struct rch_coll_op *op, struct rch_dev_req *req)
{
    struct rch_nbc_sched *s;
    rdmach_status_t st = rch_nbc_create(c, "iscan", op, &s);
    if (st != RDMACH_OK)
        return st;
    size_t n = count * op->elem_size;
    int me = c->rank, p = c->size;
    if (sbuf != RCH_COLL_IN_PLACE)
        st = rch_nbc_copy(s, rbuf, sbuf, n);
    if (st == RDMACH_OK)
        st = rch_nbc_round(s);
    if (st == RDMACH_OK && me > 0) {
        void *prefix = rch_nbc_tmp(s, n, &st);
        if (st == RDMACH_OK)
            st = rch_nbc_recv(s, prefix, n, me - 1, 0);
        if (st == RDMACH_OK)
            st = rch_nbc_reduce(s, prefix, rbuf, count, 1);
        if (st == RDMACH_OK)
            st = rch_nbc_round(s);
    }
    if (st == RDMACH_OK && me < p - 1)
        st = rch_nbc_send(s, rbuf, n, me + 1, 0);
    return finish(s, st, req);
}

rdmach_status_t rch_coll_iexscan(const struct rch_coll_comm *c, const void *sbuf, void *rbuf,
                                 size_t count, const struct rch_coll_op *op, struct rch_dev_req *req)
{
    struct rch_nbc_sched *s;
    rdmach_status_t st = rch_nbc_create(c, "iexscan", op, &s);
    if (st != RDMACH_OK)
        return st;
    size_t n = count * op->elem_size;
    int me = c->rank, p = c->size;
    const void *mine = sbuf;
    if (sbuf == RCH_COLL_IN_PLACE) {
        /* the operand is in rbuf, which the received prefix replaces */
        void *copy = rch_nbc_tmp(s, n, &st);
        if (st == RDMACH_OK)
            st = rch_nbc_copy(s, copy, rbuf, n);
        if (st == RDMACH_OK)
            st = rch_nbc_round(s);
        mine = copy;
    }
    if (st == RDMACH_OK && me == 0 && p > 1)
        st = rch_nbc_send(s, mine, n, 1, 0);
    if (st == RDMACH_OK && me > 0) {
        st = rch_nbc_recv(s, rbuf, n, me - 1, 0);
        void *next = NULL;
        if (st == RDMACH_OK && me < p - 1) {
            next = rch_nbc_tmp(s, n, &st);
            if (st == RDMACH_OK)
                st = rch_nbc_copy(s, next, mine, n);
            if (st == RDMACH_OK)
                st = rch_nbc_reduce(s, rbuf, next, count, 1);
        }
        if (st == RDMACH_OK)
            st = rch_nbc_round(s);
        if (st == RDMACH_OK && next)
            st = rch_nbc_send(s, next, n, me + 1, 0);
    }
    return finish(s, st, req);
}
