/*
 * Waking a rank that sleeps in a device wait (dev.h: rch_dev_wake,
 * rch_dev_can_wake): for waits on memory another process writes, such as the
 * shared-memory barriers' flags. The channel that reaches the rank does it
 * (ops->wake: the shared-memory channel bumps the rank's futex if its
 * `sleeping` flag is up); the sleeper's side is in progress.c (the condition
 * is tested again after the channels are armed).
 */
#include "device/dev_impl.h"

static const struct rch_dev_chan *chan_of(int rank)
{
    if (!rch_dev.initialized || rank < 0 || rank >= rch_dev.size || rank == rch_dev.rank)
        return NULL;
    const struct rch_dev_chan *dc = rch_dev.peers[rank].dchan;
    if (!dc || !dc->ops->wake || dc->ops->wake == rch_rdma_no_wake)
        return NULL;
    return dc;
}

void rch_dev_wake(int rank)
{
    const struct rch_dev_chan *dc = chan_of(rank);
    if (dc)
        (void)dc->ops->wake(dc->chan, rank);
}

int rch_dev_can_wake(int rank)
{
    return chan_of(rank) != NULL;
}
