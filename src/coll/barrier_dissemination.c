/*
 * Barrier by dissemination (Hensgen, Finkel and Manber).
 *
 * Idea: in round k = 0, 1, ... each rank signals rank + 2^k and waits for
 * the signal of rank - 2^k (mod p). After ceil(lg p) rounds every rank has
 * heard, directly or through a chain, from every other rank, so none leaves
 * before all have arrived.
 *
 * Restrictions: none (any p, any channel, no root, no state). It is the
 * framework's fallback and the leaders' step of the hierarchical barrier.
 * Cost: ceil(lg p) · alpha; zero-byte messages.
 *
 *   p = 5     round 0 (+1)     round 1 (+2)     round 2 (+4)
 *             0→1 1→2 2→3      0→2 1→3 2→4      0→4 1→0 2→1
 *             3→4 4→0          3→0 4→1          3→2 4→3
 */
#include <stdint.h>
#include <stdio.h>
#include "coll/barrier.h"

rdmach_status_t rch_coll_barrier_dissem_run(const struct rch_coll_comm *c, int tag)
{
    char token = 0, sink;
    int p = c->size;
    for (int k = 1; k < p; k <<= 1) {
        int dst = (c->rank + k) % p;
        int src = (c->rank - k + p) % p;
        rdmach_status_t st = rch_coll_sendrecv(c, &token, 0, dst, &sink, 0, src, tag);
        if (st != RDMACH_OK)
            return st;
    }
    return RDMACH_OK;
}

/* As an algorithm of the collectives' lists (coll_algos.c). */
static rdmach_status_t barrier_dissemination(const struct rch_coll_comm *c,
                                             const struct rch_coll_args *a)
{
    (void)a;
    return rch_coll_barrier_dissem_run(c, RCH_COLL_TAG_BARRIER);
}

const struct rch_coll_algo rch_coll_barrier_dissemination = {
    .name = "dissemination",
    .applies = rch_coll_always,
    .run = barrier_dissemination,
};

/* As a backend of the barrier framework: its state is the communicator's
 * view (the framework's persistent copy); all the work is in wait. */
static int dissem_applies(const struct rch_coll_comm *c, char *why, size_t len)
{
    snprintf(why, len, "applies everywhere");
    return 1;
}

static rdmach_status_t dissem_init(const struct rch_coll_comm *c, void **state)
{
    *state = (void *)(uintptr_t)c;
    return RDMACH_OK;
}

static rdmach_status_t dissem_enter(void *state)
{
    return RDMACH_OK;
}

static rdmach_status_t dissem_wait(void *state)
{
    return rch_coll_barrier_dissem_run(state, RCH_COLL_TAG_BARRIER);
}

static void dissem_finalize(void *state)
{
}

const struct rch_coll_barrier_ops rch_coll_barrier_dissemination_ops = {
    .name = "dissemination",
    .summary = "ceil(lg p) rounds of zero-byte messages over any channel",
    .priority = 0,
    .applies = dissem_applies,
    .init = dissem_init,
    .enter = dissem_enter,
    .wait = dissem_wait,
    .finalize = dissem_finalize,
};
