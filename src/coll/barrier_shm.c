/*
 * Shared-memory barrier for the ranks of one node, in a segment they share.
 * Two algorithms, chosen at init by whether the node runs more ranks than
 * it has cores (the same answer on every rank of the node):
 *
 * 1. Ranks with a core each: dissemination over flags. Rank r owns one flag
 *    line per round; in round k it writes the barrier's epoch into its flag
 *    k and waits until the flag k of rank r - 2^k (mod p) holds that epoch
 *    (or a later one: that rank may already be in the next barrier). As the
 *    message-based dissemination barrier, after ceil(lg p) rounds every rank
 *    has heard from every other. Nothing is written by two ranks, so each
 *    round costs one cache-line transfer, and all of a round's transfers
 *    happen at once: 2 ranks need a single transfer each way.
 *
 *      p = 4, epoch e:  round 0: r writes f[r][0] = e, waits f[r-1][0] >= e
 *                       round 1: r writes f[r][1] = e, waits f[r-2][1] >= e
 *
 * 2. More ranks than cores: a sense-reversing counter. Each rank flips its
 *    private sense and adds one to the shared arrival count; the rank that
 *    brings it to p resets it and publishes its sense in the `sense` word,
 *    which releases every rank waiting for the word to equal its own sense.
 *    Waiters yield, then sleep in the device, and the last arrival wakes
 *    those asleep: one wake-up per rank per barrier, which is what a core
 *    shared by several ranks can afford (a chain of lg p wake-ups, as flags
 *    would need, costs more context switches).
 *
 * Waiting (barrier_seg.c) polls, then waits through the device: every
 * channel keeps progressing and its traffic ends a sleep too. A writer
 * wakes the ranks that wait for its word through the device, which makes a
 * system call only for a rank that sleeps, so the fast path has none.
 *
 * Restrictions: every rank of the communicator on one node.
 * Cost: flags ceil(lg p) · t_line; counter p · t_atomic + t_line (+ a wake-up).
 */
#include <stdio.h>
#include <stdlib.h>
#include "base/base.h"
#include "coll/barrier.h"

/* A word that ranks wait on, alone on its cache line (no false sharing with
 * another rank's words). */
struct shm_word {
    _Alignas(RCH_CACHELINE) uint32_t v;
};

/* The counter algorithm's words. */
struct shm_ctl {
    struct shm_word count;     /* arrivals of the current episode */
    struct shm_word sense;     /* released sense */
};

/* Segment: the counter words, then flags[p][rounds]. */
struct shm_seg {
    struct shm_ctl ctl;
    struct shm_word flag[];
};

struct shm_state {
    struct rch_coll_bar_seg seg;
    struct shm_seg *m;
    uint32_t p, me, rounds;
    int counter;               /* 1: the counter algorithm, 0: flags */
    uint32_t my_sense;         /* counter: the sense of the current episode */
    uint32_t epoch;            /* flags: barriers entered */
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
    s->p = (uint32_t)c->size;
    s->me = (uint32_t)c->rank;
    for (uint32_t k = 1; k < s->p; k <<= 1)
        s->rounds++;
    s->counter = rch_coll_bar_oversubscribed();
    size_t size = sizeof(struct shm_seg) + (size_t)s->p * s->rounds * sizeof(struct shm_word);
    /* one node: the node's local index of a rank is its comm rank */
    st = rch_coll_bar_waiter_init_node(&s->waiter, c, &n);
    if (st == RDMACH_OK)
        st = rch_coll_bar_seg_setup(&s->seg, c, &n, size, "shm");
    rch_coll_bar_nodes_free(&n);
    if (st != RDMACH_OK) {
        rch_coll_bar_waiter_free(&s->waiter);
        free(s);
        return st;
    }
    s->m = s->seg.base;        /* zeroed: sense 0 released, every flag at epoch 0 */
    *out = s;
    return RDMACH_OK;
}

static struct shm_word *flag(struct shm_state *s, uint32_t rank, uint32_t round)
{
    return &s->m->flag[rank * s->rounds + round];
}

static rdmach_status_t shm_enter(void *state)
{
    struct shm_state *s = state;
    if (!s->counter) {
        /* flags: round 0's write is the arrival; the rest happens in wait */
        struct shm_word *f = flag(s, s->me, 0);
        __atomic_store_n(&f->v, ++s->epoch, __ATOMIC_SEQ_CST);
        rch_coll_bar_wake_local(&s->waiter, (int)((s->me + 1) % s->p));   /* round 0's reader */
        return RDMACH_OK;
    }
    struct shm_ctl *ctl = &s->m->ctl;
    s->my_sense ^= 1u;
    if (__atomic_add_fetch(&ctl->count.v, 1, __ATOMIC_ACQ_REL) == s->p) {
        /* last: reset for the next episode, then release this one */
        __atomic_store_n(&ctl->count.v, 0, __ATOMIC_RELAXED);
        __atomic_store_n(&ctl->sense.v, s->my_sense, __ATOMIC_SEQ_CST);
        rch_coll_bar_wake_node(&s->waiter);
    }
    return RDMACH_OK;
}

static rdmach_status_t shm_wait(void *state)
{
    struct shm_state *s = state;
    if (s->counter)
        return rch_coll_bar_wait_value(&s->waiter, &s->m->ctl.sense.v, s->my_sense);
    for (uint32_t k = 0, d = 1; k < s->rounds; k++, d <<= 1) {
        if (k > 0) {
            struct shm_word *mine = flag(s, s->me, k);
            __atomic_store_n(&mine->v, s->epoch, __ATOMIC_SEQ_CST);
            rch_coll_bar_wake_local(&s->waiter, (int)((s->me + d) % s->p));   /* round k's reader */
        }
        struct shm_word *f = flag(s, (s->me + s->p - d) % s->p, k);
        rdmach_status_t st = rch_coll_bar_wait_epoch(&s->waiter, &f->v, s->epoch);
        if (st != RDMACH_OK)
            return st;
    }
    return RDMACH_OK;
}

static void shm_finalize(void *state)
{
    struct shm_state *s = state;
    rch_coll_bar_seg_release(&s->seg);
    rch_coll_bar_waiter_free(&s->waiter);
    free(s);
}

const struct rch_coll_barrier_ops rch_coll_barrier_shm_ops = {
    .name = "shm",
    .summary = "shared memory: dissemination over flags, or a sense-reversing counter with "
               "futex sleep when oversubscribed",
    .priority = 50,
    .applies = shm_applies,
    .init = shm_init,
    .enter = shm_enter,
    .wait = shm_wait,
    .finalize = shm_finalize,
};
