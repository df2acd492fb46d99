/*
 * Which channel reaches which peer, and why: the one place that decides
 * (the device calls it for every peer at init; rdmach-info prints it).
 *
 *   peer on my node (rch_boot.node_of, honouring RDMACH_VNODE_SIZE):
 *       shared memory, unless RDMACH_SHM=off -> the network channel
 *   peer on another node:
 *       the network channel: RDMACH_NET=verbs or ofi if set; otherwise
 *       verbs when an RDMA device with an active port is present, else
 *       libfabric (RDMACH_OFI_PROVIDER picks its provider)
 *   none usable: NULL (sends to that peer fail with UNREACHABLE)
 *
 * The network choice is made once per process (it probes devices and
 * libfabric) and is the same for every peer.
 */
#ifndef RCH_RDMA_SELECT_H
#define RCH_RDMA_SELECT_H

#include <stddef.h>
#include "rdma/channel.h"

/* The channel for `peer` (not this rank), or NULL; `why` (may be NULL)
 * receives one line saying why. */
const struct rch_rdma_ops *rch_rdma_select(const struct rch_boot_info *boot, int peer, char *why, size_t whylen);

/* The network channel this process uses between nodes (NULL: none), with
 * the reason. Cached after the first call. */
const struct rch_rdma_ops *rch_rdma_select_net(const char **why);

/* Forget the cached network choice (tests that change RDMACH_NET). */
void rch_rdma_select_reset(void);

#endif
