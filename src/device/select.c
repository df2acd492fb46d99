/*
 * Which channel reaches which peer. One place, so the network issue can
 * extend it (and move it into src/rdma): today shared memory within a node,
 * nothing between nodes.
 *
 *   peer on my node, RDMACH_SHM=on  -> shared memory
 *   otherwise                       -> none (sends fail with UNREACHABLE)
 *
 * "My node" is rch_boot.node_of, which honours RDMACH_VNODE_SIZE: ranks of
 * different pretend nodes never share memory even on one machine. Self-sends
 * never get here (the device's own loopback handles them).
 */
#include "base/tunables.h"
#include "device/dev_impl.h"

const struct rch_rdma_ops *rch_dev_select_default(const struct rch_boot_info *boot, int peer)
{
    if (boot->node_of != NULL && boot->node_of[peer] == boot->node && rch_tun.shm)
        return &rch_rdma_shm_ops;
    return NULL;
}
