/*
 * Which channel reaches which peer. The decision lives in src/rdma
 * (rdma/select.c, rch_rdma_select), where rdmach-info can ask it too:
 *
 *   peer on my node, RDMACH_SHM=on  -> shared memory
 *   otherwise                       -> the network channel (RDMACH_NET:
 *                                      verbs if an RDMA device is active,
 *                                      else libfabric), or none (sends fail
 *                                      with UNREACHABLE)
 *
 * "My node" is rch_boot.node_of, which honours RDMACH_VNODE_SIZE: ranks of
 * different pretend nodes never share memory even on one machine. Self-sends
 * never get here (the device's own loopback handles them).
 */
#include "base/log.h"
#include "device/dev_impl.h"
#include "rdma/select.h"

const struct rch_rdma_ops *rch_dev_select_default(const struct rch_boot_info *boot, int peer)
{
    char why[256];
    const struct rch_rdma_ops *ops = rch_rdma_select(boot, peer, why, sizeof(why));
    RCH_LOG(RCH_LOG_TRACE, "dev", "rank %d: %s", peer, why);
    return ops;
}
