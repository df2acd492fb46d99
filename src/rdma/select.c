/* Channel selection per peer (select.h). */
#include <stdio.h>
#include <string.h>
#include "rdmach_config.h"
#include "base/base.h"
#include "base/log.h"
#include "base/tunables.h"
#include "rdma/select.h"

/* The verbs channel is built when libibverbs and librdmacm are found. */
#define SELECT_HAVE_VERBS RDMACH_HAVE_VERBS
#define SELECT_HAVE_OFI RDMACH_HAVE_OFI

static int net_decided;
static const struct rch_rdma_ops *net_ops;
static char net_why[320];

void rch_rdma_select_reset(void)
{
    net_decided = 0;
    net_ops = NULL;
    net_why[0] = '\0';
}

/* Try one network channel: its query() says whether it can run here. */
static int try_net(const struct rch_rdma_ops *ops, const char *reason)
{
    rdmach_status_t st = ops->query();
    if (st == RDMACH_OK) {
        char tried[sizeof(net_why)];
        snprintf(tried, sizeof(tried), "%s", net_why);
        net_ops = ops;
        snprintf(net_why, sizeof(net_why), "%s%s%.200s%s", reason, tried[0] ? " (" : "", tried, tried[0] ? ")" : "");
        return 1;
    }
    size_t n = strlen(net_why);
    /* the channels' messages name themselves ("verbs: ...", "ofi: ...") */
    snprintf(net_why + n, sizeof(net_why) - n, "%s%s", n ? "; " : "", rdmach_last_error());
    return 0;
}

const struct rch_rdma_ops *rch_rdma_select_net(const char **why)
{
    if (!net_decided) {
        net_decided = 1;
        net_ops = NULL;
        net_why[0] = '\0';
        switch (rch_tun.net) {
        case RCH_NET_VERBS:
#if SELECT_HAVE_VERBS
            try_net(&rch_rdma_verbs_ops, "verbs (RDMACH_NET=verbs)");
#else
            snprintf(net_why, sizeof(net_why), "RDMACH_NET=verbs, but this rdmach was built without libibverbs/librdmacm");
#endif
            break;
        case RCH_NET_OFI:
#if SELECT_HAVE_OFI
            try_net(&rch_rdma_ofi_ops, "libfabric (RDMACH_NET=ofi)");
#else
            snprintf(net_why, sizeof(net_why), "RDMACH_NET=ofi, but this rdmach was built without libfabric");
#endif
            break;
        default: {
            int done = 0;
#if SELECT_HAVE_VERBS
            done = try_net(&rch_rdma_verbs_ops, "verbs: an RDMA device with an active port is present");
#endif
#if SELECT_HAVE_OFI
            if (!done)
                done = try_net(&rch_rdma_ofi_ops, "libfabric");
#endif
            if (!done && net_why[0] == '\0')
                snprintf(net_why, sizeof(net_why), "built without any network channel");
            break;
        }
        }
        if (net_ops)
            RCH_DEBUG("select", "network channel: %s", net_why);
        else
            RCH_DEBUG("select", "no network channel: %s", net_why);
    }
    if (why)
        *why = net_why;
    return net_ops;
}

const struct rch_rdma_ops *rch_rdma_select(const struct rch_boot_info *boot, int peer, char *why, size_t whylen)
{
    char dummy[8];
    if (why == NULL) {
        why = dummy;
        whylen = sizeof(dummy);
    }
    int same = boot->node_of != NULL && boot->node_of[peer] == boot->node;
    if (same && rch_tun.shm) {
        snprintf(why, whylen, "shm: same node %d%s", boot->node,
                 rch_tun.vnode_size ? " (RDMACH_VNODE_SIZE)" : "");
        return &rch_rdma_shm_ops;
    }
    const char *nwhy;
    const struct rch_rdma_ops *ops = rch_rdma_select_net(&nwhy);
    const char *where = same ? "same node, but RDMACH_SHM=off" : "another node";
    if (ops)
        snprintf(why, whylen, "%s: %s; %s", ops->name, where, nwhy);
    else
        snprintf(why, whylen, "none: %s; no network channel (%s)", where, nwhy);
    return ops;
}
