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
 * receives one line "<channel>: <reason>". */
const struct rch_rdma_ops *rch_rdma_select(const struct rch_boot_info *boot, int peer, char *why, size_t whylen);

/* The same decision (rch_rdma_select is this plus the channel's name in
 * front): `why` receives only the reason, e.g. "different nodes 0 and 1
 * (RDMACH_VNODE_SIZE=2 made them different nodes); no RDMA device (...),
 * libfabric provider tcp". The provider/device is named once
 * rch_rdma_select_probe() has opened the network channel. */
const struct rch_rdma_ops *rch_rdma_select_explain(const struct rch_boot_info *boot, int peer, char *why,
                                                   size_t whylen);

/* The network channel this process uses between nodes (NULL: none), with
 * the reason. Cached after the first call. */
const struct rch_rdma_ops *rch_rdma_select_net(const char **why);

/* Forget the cached network choice (tests that change RDMACH_NET). */
void rch_rdma_select_reset(void);

/* What a channel would be here, learnt by opening it with no peers exactly
 * as the device opens it (ops->query, ops->open, ops->caps, ops->close; no
 * connection, no shared-memory segment). For tools (rdmach-info): the
 * device opens its channels itself. */
struct rch_rdma_probe {
    const struct rch_rdma_ops *ops;
    rdmach_status_t status;        /* OK, or why it cannot open (message in `detail`) */
    char label[64];                /* "shm", "verbs siw0", "ofi tcp" */
    char detail[256];              /* the provider's own description, or the error */
    struct rch_rdma_caps caps;     /* valid when status is OK */
};
rdmach_status_t rch_rdma_select_probe(const struct rch_rdma_ops *ops, const struct rch_boot_info *boot,
                                      struct rch_rdma_probe *out);

#endif
