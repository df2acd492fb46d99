/*
 * hwsim: a faithful model of the two-state AND/OR hardware barrier
 * (barrier_twr.h), driven by the same toggle-write-read protocol as the
 * real parallel-port barrier (ppdev), so that protocol is exercised here.
 *
 * The model lives in a segment shared by the ranks of one node:
 *   out[i]  rank i's OUT wire (one cache line each)
 *   s       the unit's state S, i.e. every rank's IN wire
 *
 * Where the model's logic runs: in the settle step of whoever writes. A
 * write is the only event that can change the unit's inputs, so evaluating
 * the unit right after every write — by the writing rank, before it starts
 * reading — computes exactly what continuously evaluating hardware would:
 *
 *   settle: and = every out[i] == 1, or = some out[i] == 1
 *           if and: s = 1;  else if !or: s = 0;  (else s holds)
 *
 * Concurrent writers: each stores its OUT (seq_cst) before loading the
 * others' (seq_cst), so of two writers at least one sees the other's new
 * value: the last of the P writers always sees every wire agree and sets S.
 * Two evaluators may both set S to the same value (idempotent). A stale
 * evaluation cannot flip S back: S can move on to the next value only when
 * every rank has written it, and every rank still evaluating the previous
 * barrier has not.
 *
 * o_w is the seq_cst store of the OUT wire (it waits until the store is
 * visible, as a wire is driven), o_p(P) the evaluation over P wires (P cache
 * lines: it grows with P, as the unit's AND tree grows with lg P), o_r the
 * read of S that sees the toggle (the line moving from the last writer's
 * core). The model can also "interrupt": a rank that has polled for a while
 * sleeps (in the device, which keeps progressing) and the flipping settle
 * wakes it — what makes the model usable with more ranks than cores.
 *
 * Restrictions: every rank on one node. Not chosen automatically while shm
 * applies (it costs a P-wide evaluation per write); RDMACH_BARRIER=hwsim.
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include "base/base.h"
#include "coll/barrier.h"
#include "coll/barrier_twr.h"

struct wire_line {
    _Alignas(RCH_CACHELINE) uint32_t v;
};

struct hwsim_seg {
    _Alignas(RCH_CACHELINE) uint32_t s;          /* the unit's state: every IN wire */
    struct wire_line out[];                      /* [P] */
};

struct hwsim_state {
    struct rch_coll_bar_seg seg;
    struct hwsim_seg *m;
    int p, me;
    struct rch_coll_bar_waiter waiter;
    struct rch_coll_twr twr;
};

static rdmach_status_t hw_write(void *wire, unsigned out)
{
    struct hwsim_state *h = wire;
    __atomic_store_n(&h->m->out[h->me].v, out, __ATOMIC_SEQ_CST);
    return RDMACH_OK;
}

static int hw_settle(void *wire)
{
    struct hwsim_state *h = wire;
    unsigned and_ = 1, or_ = 0;
    for (int i = 0; i < h->p; i++) {
        unsigned v = __atomic_load_n(&h->m->out[i].v, __ATOMIC_SEQ_CST);
        and_ &= v;
        or_ |= v;
    }
    uint32_t s = __atomic_load_n(&h->m->s, __ATOMIC_SEQ_CST), next = s;
    if (and_)
        next = 1;
    else if (!or_)
        next = 0;
    if (next == s)
        return 0;
    __atomic_store_n(&h->m->s, next, __ATOMIC_SEQ_CST);
    rch_coll_bar_wake_node(&h->waiter);
    return 1;
}

static rdmach_status_t hw_read(void *wire, unsigned *in)
{
    struct hwsim_state *h = wire;
    *in = __atomic_load_n(&h->m->s, __ATOMIC_ACQUIRE);
    return RDMACH_OK;
}

/* Poll, then yield, then sleep until S flips (the shared waiting policy). */
static void hw_idle(void *wire, unsigned want, unsigned polls)
{
    struct hwsim_state *h = wire;
    const struct rch_coll_bar_waiter *w = &h->waiter;
    if (polls <= (unsigned)w->spin) {
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
        if (polls % (unsigned)w->progress_every == 0)
            rch_dev_progress();
        return;
    }
    if (polls <= (unsigned)w->spin + (unsigned)w->yield) {
        sched_yield();
        rch_dev_progress();
        return;
    }
    (void)rch_coll_bar_wait_value(w, &h->m->s, want);   /* fails only with the device */
}

static const struct rch_coll_twr_wire_ops hwsim_wire = {
    .name = "hwsim",
    .write = hw_write,
    .settle = hw_settle,
    .read = hw_read,
    .idle = hw_idle,
};

static int hwsim_applies(const struct rch_coll_comm *c, char *why, size_t len)
{
    int nnodes, ppn;
    rch_coll_bar_shape(c, &nnodes, &ppn);
    if (nnodes > 1) {
        snprintf(why, len, "the model's wires are in one node's memory; the communicator spans %d nodes",
                 nnodes);
        return 0;
    }
    if (c->size < 2) {
        snprintf(why, len, "a single rank has nobody to wait for");
        return 0;
    }
    snprintf(why, len, "model of %d wires in shared memory", c->size);
    return 1;
}

static rdmach_status_t hwsim_init(const struct rch_coll_comm *c, void **out)
{
    struct rch_coll_bar_nodes n;
    rdmach_status_t st = rch_coll_bar_nodes_init(&n, c);
    if (st != RDMACH_OK)
        return st;
    struct hwsim_state *h = calloc(1, sizeof(*h));
    if (!h) {
        rch_coll_bar_nodes_free(&n);
        return rch_base_err(RDMACH_ERR_NO_MEMORY, "barrier hwsim: no memory");
    }
    h->p = c->size;
    h->me = c->rank;
    size_t size = sizeof(struct hwsim_seg) + (size_t)h->p * sizeof(struct wire_line);
    st = rch_coll_bar_waiter_init_node(&h->waiter, c, &n);
    if (st == RDMACH_OK)
        st = rch_coll_bar_seg_setup(&h->seg, c, &n, size, "hwsim");
    rch_coll_bar_nodes_free(&n);
    if (st != RDMACH_OK) {
        rch_coll_bar_waiter_free(&h->waiter);
        free(h);
        return st;
    }
    h->m = h->seg.base;       /* zeroed: every OUT wire and S start at 0 */
    /* A rank that has polled and yielded sleeps in the device (which keeps
     * progressing every channel) until the flip of S wakes it. */
    rch_coll_twr_init(&h->twr, &hwsim_wire, h, h->p);
    *out = h;
    return RDMACH_OK;
}

static rdmach_status_t hwsim_enter(void *state)
{
    return rch_coll_twr_enter(&((struct hwsim_state *)state)->twr);
}

static rdmach_status_t hwsim_wait(void *state)
{
    return rch_coll_twr_wait(&((struct hwsim_state *)state)->twr);
}

static void hwsim_finalize(void *state)
{
    struct hwsim_state *h = state;
    rch_coll_bar_seg_release(&h->seg);
    rch_coll_bar_waiter_free(&h->waiter);
    free(h);
}

const struct rch_coll_barrier_ops rch_coll_barrier_hwsim_ops = {
    .name = "hwsim",
    .summary = "model of the two-state AND/OR hardware barrier (toggle-write-read), shared memory",
    .priority = 10,
    .applies = hwsim_applies,
    .init = hwsim_init,
    .enter = hwsim_enter,
    .wait = hwsim_wait,
    .finalize = hwsim_finalize,
};
