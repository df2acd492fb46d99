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
 * 2. More ranks than cores: every rank waits for all. Rank r stores the
 *    epoch in its round-0 flag line (which also holds the core it is bound
 *    to) and waits until every rank's flag holds that epoch or a later one
 *    (rch_coll_bar_wait_all). While only ranks bound to other cores are
 *    missing it polls, since they are running or will be handed their core
 *    by a rank of theirs; when a rank of its own core is missing it yields
 *    to it; after a few yields it sleeps in the device, and the arrival
 *    that completes the epoch wakes the node. With 4 ranks on 2 cores that
 *    is one hand-off per core and barrier (a counter, polled with a yield
 *    after each look, costs two: 3.6 against ~2 us here).
 *
 * Waiting (barrier_seg.c) polls, then waits through the device: every
 * channel keeps progressing and its traffic ends a sleep too. A writer
 * wakes the ranks that wait for its word through the device, which makes a
 * system call only for a rank that sleeps, so the fast path has none.
 *
 * Restrictions: every rank of the communicator on one node.
 * Cost: flags ceil(lg p) · t_line; all-wait p · t_line per look (+ a hand-off
 * per core-mate, a wake-up per sleeper).
 */
#include <stdio.h>
#include <stdlib.h>
#include "base/base.h"
#include "coll/barrier.h"

/* A word that ranks wait on, alone on its cache line (no false sharing with
 * another rank's words); core1 (round 0 only) is 1 + the owner's core. */
struct shm_word {
    _Alignas(RCH_CACHELINE) uint32_t v;
    int32_t core1;
};


struct shm_state {
    struct rch_coll_bar_seg seg;
    struct shm_word *m;        /* the segment: flags[p][rounds] */
    uint32_t p, me, rounds;
    int all;                   /* 1: every rank waits for all (oversubscribed), 0: dissemination */
    uint32_t epoch;            /* barriers entered */
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
    s->all = rch_coll_bar_oversubscribed();
    size_t size = (size_t)s->p * s->rounds * sizeof(struct shm_word);
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
    s->m = s->seg.base;        /* zeroed: every flag at epoch 0, every core unknown */
    /* read by the others from their first barrier on, which this rank's
     * first arrival (seq_cst, later) precedes */
    __atomic_store_n(&s->m[s->me * s->rounds].core1, s->waiter.core1, __ATOMIC_RELAXED);
    *out = s;
    return RDMACH_OK;
}

static struct shm_word *flag(struct shm_state *s, uint32_t rank, uint32_t round)
{
    return &s->m[rank * s->rounds + round];
}

static rdmach_status_t shm_enter(void *state)
{
    struct shm_state *s = state;
    struct shm_word *f = flag(s, s->me, 0);
    ++s->epoch;
    if (s->all) {
        rch_coll_bar_arrive_all(&s->waiter, &f->v, &s->m[0].v,
                                (size_t)s->rounds * sizeof(struct shm_word), (int)s->p, s->epoch);
        return RDMACH_OK;
    }
    /* flags: round 0's write is the arrival; the rest happens in wait */
    rch_coll_bar_post(&s->waiter, &f->v, s->epoch, (int)((s->me + 1) % s->p));   /* round 0's reader */
    return RDMACH_OK;
}

static rdmach_status_t shm_wait(void *state)
{
    struct shm_state *s = state;
    if (s->all)
        return rch_coll_bar_wait_all(&s->waiter, &s->m[0].v, &s->m[0].core1,
                                     (size_t)s->rounds * sizeof(struct shm_word), (int)s->p, s->epoch);
    for (uint32_t k = 0, d = 1; k < s->rounds; k++, d <<= 1) {
        if (k > 0) {
            struct shm_word *mine = flag(s, s->me, k);
            rch_coll_bar_post(&s->waiter, &mine->v, s->epoch, (int)((s->me + d) % s->p));   /* round k's reader */
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
    .summary = "shared memory: dissemination over flags, or (oversubscribed) every rank waits "
               "for all, yielding only to ranks of its own core, then a futex sleep",
    .priority = 50,
    .applies = shm_applies,
    .init = shm_init,
    .enter = shm_enter,
    .wait = shm_wait,
    .finalize = shm_finalize,
};
