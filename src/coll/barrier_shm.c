/*
 * Shared-memory barrier: a sense-reversing counter barrier in a segment
 * shared by the ranks of one node.
 *
 * Idea: each rank keeps a private sense that flips every barrier. Entering,
 * it adds one to the shared arrival counter; the rank that brings it to p
 * (the last to arrive) resets the counter and publishes its sense in the
 * shared `sense` word, which releases everyone waiting for the word to
 * equal their own sense. The counter is reset before the release, so a rank
 * that leaves and enters the next barrier at once counts into a fresh
 * episode; the flipping sense means the word never has to be reset.
 *
 * Waiting (barrier_seg.c): poll, yield, then sleep on the `sense` word as a
 * futex. The releaser issues FUTEX_WAKE only if `sleepers` says someone
 * sleeps, so a barrier among ranks that each have a core costs no system
 * call at all; on an oversubscribed node the waiters yield their core to
 * the ranks still on their way and then sleep.
 *
 * Restrictions: every rank of the communicator on one node (shared memory).
 * Cost: one atomic add per rank on a shared line, one store and p - 1 cache
 * line transfers to release: about 2 · t_line + p · t_atomic, no messages.
 *
 *   r0 ─┐ fetch_add                     ┌─► r0 sees sense == s, leaves
 *   r1 ─┼─► count: 0 1 2 3 → 0 ; sense := s ─► r1 ...
 *   r2 ─┤        (r3 is last)           ├─► r2 ...
 *   r3 ─┘                               └─► r3 leaves at once
 */
#include <stdio.h>
#include <stdlib.h>
#include "base/base.h"
#include "coll/barrier.h"

/* The segment: each word on its own cache line (no false sharing between
 * the counter that arrivals hammer and the word waiters poll). */
struct shm_ctl {
    _Alignas(RCH_CACHELINE) uint32_t count;     /* arrivals of the current episode */
    _Alignas(RCH_CACHELINE) uint32_t sense;     /* released sense (the futex word) */
    _Alignas(RCH_CACHELINE) uint32_t sleepers;  /* ranks asleep on `sense` */
};

struct shm_state {
    struct rch_coll_bar_seg seg;
    struct shm_ctl *ctl;
    uint32_t p;
    uint32_t my_sense;         /* private: the sense of the current episode */
    struct rch_coll_bar_waiter waiter;
};

static int shm_applies(const struct rch_coll_comm *c, char *why, size_t len)
{
    int nnodes, ppn;
    rch_coll_bar_shape(c, &nnodes, &ppn);
    if (c->size < 2) {
        snprintf(why, len, "a single rank has nobody to wait for");
        return 0;
    }
    if (nnodes > 1) {
        snprintf(why, len, "the communicator spans %d nodes", nnodes);
        return 0;
    }
    snprintf(why, len, "all %d ranks share one node's memory", c->size);
    return 1;
}

static rdmach_status_t shm_init(const struct rch_coll_comm *c, void **out)
{
    struct rch_coll_bar_nodes n;
    rdmach_status_t st = rch_coll_bar_nodes_init(&n, c);
    if (st != RDMACH_OK)
        return st;
    struct shm_state *s = calloc(1, sizeof(*s));
    if (!s) {
        rch_coll_bar_nodes_free(&n);
        return rch_base_err(RDMACH_ERR_NO_MEMORY, "barrier shm: no memory");
    }
    st = rch_coll_bar_seg_setup(&s->seg, c, &n, sizeof(struct shm_ctl), "shm");
    rch_coll_bar_nodes_free(&n);
    if (st != RDMACH_OK) {
        free(s);
        return st;
    }
    s->ctl = s->seg.base;
    s->p = (uint32_t)c->size;
    s->my_sense = 0;            /* the segment starts zeroed: sense 0 is "released" */
    rch_coll_bar_waiter_init(&s->waiter);
    *out = s;
    return RDMACH_OK;
}

static rdmach_status_t shm_enter(void *state)
{
    struct shm_state *s = state;
    s->my_sense ^= 1u;
    if (__atomic_add_fetch(&s->ctl->count, 1, __ATOMIC_ACQ_REL) == s->p) {
        /* last: reset for the next episode, then release this one */
        __atomic_store_n(&s->ctl->count, 0, __ATOMIC_RELAXED);
        __atomic_store_n(&s->ctl->sense, s->my_sense, __ATOMIC_SEQ_CST);
        rch_coll_bar_wake(&s->ctl->sense, &s->ctl->sleepers);
    }
    return RDMACH_OK;
}

static rdmach_status_t shm_wait(void *state)
{
    struct shm_state *s = state;
    rch_coll_bar_wait_value(&s->waiter, &s->ctl->sense, s->my_sense, &s->ctl->sleepers);
    return RDMACH_OK;
}

static void shm_finalize(void *state)
{
    struct shm_state *s = state;
    rch_coll_bar_seg_release(&s->seg);
    free(s);
}

const struct rch_coll_barrier_ops rch_coll_barrier_shm_ops = {
    .name = "shm",
    .summary = "sense-reversing counter in shared memory, futex sleep when oversubscribed",
    .priority = 50,
    .applies = shm_applies,
    .init = shm_init,
    .enter = shm_enter,
    .wait = shm_wait,
    .finalize = shm_finalize,
};
