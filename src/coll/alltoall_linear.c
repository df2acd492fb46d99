/*
 * Alltoall(v) by posting everything at once ("linear", Open MPI's
 * basic_linear, MPICH's "scattered" without throttling).
 *
 * Idea: post the p - 1 receives, then the p - 1 sends (to rank + 1, rank + 2,
 * ... so that not everybody starts on the same rank), copy the self block,
 * wait for all. Nothing waits for a partner step by step, so a rank that is
 * descheduled (more ranks than cores) delays nobody's next step: every
 * message is in flight as soon as its sender runs once. In place, the send
 * blocks are first copied out of the receive buffer.
 *
 * Restrictions: none (any p; alltoall and alltoallv). p - 1 requests of each
 * kind outstanding, so it suits small and medium p and messages.
 * Cost: (p - 1) · alpha overlapped + (p - 1) · n · beta (all at once: the
 * network or memory sees p · (p - 1) concurrent messages).
 *
 *   p = 4, rank 0:   post recv 1 2 3 | send 1 2 3 | copy 0→0 | wait all
 */
#include "base/base.h"
#include "coll/alltoall_impl.h"

static rdmach_status_t linear(const struct rch_coll_comm *c, const struct rch_coll_args *a, int v)
{
    struct rch_coll_a2a x;
    struct rch_coll_batch b;
    int p = c->size, me = c->rank;
    rdmach_status_t st;

    rch_coll_a2a_init(&x, c, a, v);
    st = rch_coll_a2a_copy_send(&x);
    if (st != RDMACH_OK)
        goto out_fini;
    st = rch_coll_batch_init(&b, c, x.tag, 2 * (p - 1));
    if (st != RDMACH_OK)
        goto out_fini;
    for (int k = 1; k < p && st == RDMACH_OK; k++) {
        int from = (me - k + p) % p;
        st = rch_coll_batch_recv(&b, rch_coll_a2a_ptr(&x.recv, from),
                                 rch_coll_a2a_len(&x.recv, from), from);
    }
    for (int k = 1; k < p && st == RDMACH_OK; k++) {
        int to = (me + k) % p;
        st = rch_coll_batch_send(&b, rch_coll_a2a_ptr(&x.send, to), rch_coll_a2a_len(&x.send, to),
                                 to);
    }
    if (st == RDMACH_OK)
        st = rch_coll_a2a_copy_self(&x);
    if (st == RDMACH_OK)
        st = rch_coll_batch_wait(&b);
    rch_coll_batch_free(&b);
out_fini:
    rch_coll_a2a_fini(&x);
    return st;
}

static rdmach_status_t alltoall_linear(const struct rch_coll_comm *c, const struct rch_coll_args *a)
{
    return linear(c, a, 0);
}

static rdmach_status_t alltoallv_linear(const struct rch_coll_comm *c,
                                        const struct rch_coll_args *a)
{
    return linear(c, a, 1);
}

const struct rch_coll_algo rch_coll_alltoall_linear = {
    .name = "linear",
    .applies = rch_coll_always,
    .run = alltoall_linear,
};

const struct rch_coll_algo rch_coll_alltoallv_linear = {
    .name = "linear",
    .applies = rch_coll_always,
    .run = alltoallv_linear,
};
