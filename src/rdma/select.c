/* Channel selection per peer (select.h). */
#include <stdio.h>
#include <string.h>
#include "rdmach_config.h"
#include "base/base.h"
#include "base/log.h"
#include "base/tunables.h"
#include "rdma/select.h"
#include "rdma/net/net.h"   /* the network channels' provider description (probe) */
#include "rdma/net/net_dyn.h"

/* The verbs channel is built when libibverbs and librdmacm are found. */
#define SELECT_HAVE_VERBS RDMACH_HAVE_VERBS
#define SELECT_HAVE_OFI RDMACH_HAVE_OFI

/* The network decision: made once, kept as its parts so that a later probe
 * (rch_rdma_select_probe) can name the device/provider in the reason. */
static int net_decided;
static const struct rch_rdma_ops *net_ops;
static char net_base[320];      /* why this channel (or why none) */
static char net_tried[320];     /* what the channels that could not run said */
static char net_what[64];       /* after a probe: the device ("siw0") or provider ("tcp") */
static char net_why[800];       /* the composed reason (rch_rdma_select_net) */

void rch_rdma_select_reset(void)
{
    net_decided = 0;
    net_ops = NULL;
    net_base[0] = net_tried[0] = net_what[0] = net_why[0] = '\0';
}

static void compose_net_why(void)
{
    const char *ofi_var = rch_tun.ofi_provider[0] ? " (RDMACH_OFI_PROVIDER)" : "";
#if SELECT_HAVE_VERBS
    if (net_ops == &rch_rdma_verbs_ops) {
        /* "an active RDMA device siw0", "RDMACH_NET=verbs forced it: RDMA device siw0" */
        snprintf(net_why, sizeof(net_why), "%s%s%s", net_base,
                 !net_what[0] ? "" : rch_tun.net == RCH_NET_VERBS ? ": RDMA device " : " ", net_what);
        return;
    }
#endif
#if SELECT_HAVE_OFI
    if (net_ops == &rch_rdma_ofi_ops) {
        if (net_tried[0])   /* auto: verbs could not run */
            snprintf(net_why, sizeof(net_why), "%s (%s), libfabric%s%s%s", net_base, net_tried,
                     net_what[0] ? " provider " : "", net_what, ofi_var);
        else
            snprintf(net_why, sizeof(net_why), "%s: libfabric%s%s%s", net_base, net_what[0] ? " provider " : "",
                     net_what, ofi_var);
        return;
    }
#endif
    (void)ofi_var;
    snprintf(net_why, sizeof(net_why), "%s%s%s%s", net_base, net_tried[0] ? " (" : "", net_tried,
             net_tried[0] ? ")" : "");
}

/* Try one network channel: its query() says whether it can run here. */
static int try_net(const struct rch_rdma_ops *ops)
{
    if (ops->query() == RDMACH_OK) {
        net_ops = ops;
        return 1;
    }
    size_t n = strlen(net_tried);
    /* the channels' messages name themselves ("verbs: ...", "ofi: ...") */
    snprintf(net_tried + n, sizeof(net_tried) - n, "%s%s", n ? "; " : "", rdmach_last_error());
    return 0;
}

const struct rch_rdma_ops *rch_rdma_select_net(const char **why)
{
    if (!net_decided) {
        rch_rdma_select_reset();
        net_decided = 1;
        switch (rch_tun.net) {
        case RCH_NET_VERBS:
            snprintf(net_base, sizeof(net_base), "RDMACH_NET=verbs forced it");
#if SELECT_HAVE_VERBS
            try_net(&rch_rdma_verbs_ops);
#else
            snprintf(net_tried, sizeof(net_tried), "this rdmach was built without libibverbs/librdmacm");
#endif
            if (net_ops == NULL)
                snprintf(net_base, sizeof(net_base), "RDMACH_NET=verbs, but the verbs channel cannot run");
            break;
        case RCH_NET_OFI:
            snprintf(net_base, sizeof(net_base), "RDMACH_NET=ofi forced it");
#if SELECT_HAVE_OFI
            try_net(&rch_rdma_ofi_ops);
#else
            snprintf(net_tried, sizeof(net_tried), "this rdmach was built without libfabric");
#endif
            if (net_ops == NULL)
                snprintf(net_base, sizeof(net_base), "RDMACH_NET=ofi, but the libfabric channel cannot run");
            break;
        default: {
            int done = 0;
#if SELECT_HAVE_VERBS
            done = try_net(&rch_rdma_verbs_ops);
            if (done)
                snprintf(net_base, sizeof(net_base), "an active RDMA device");
#endif
#if SELECT_HAVE_OFI
            if (!done && try_net(&rch_rdma_ofi_ops)) {
                done = 1;
                snprintf(net_base, sizeof(net_base), "%s",
                         net_tried[0] ? "no usable RDMA device" : "this rdmach was built without verbs");
            }
#endif
            if (!done)
                snprintf(net_base, sizeof(net_base), "%s",
                         net_tried[0] ? "no network channel can run" : "built without any network channel");
            break;
        }
        }
        compose_net_why();
        if (net_ops)
            RCH_DEBUG("select", "network channel %s: %s", net_ops->name, net_why);
        else
            RCH_DEBUG("select", "no network channel: %s", net_why);
    }
    if (why)
        *why = net_why;
    return net_ops;
}

const struct rch_rdma_ops *rch_rdma_select_explain(const struct rch_boot_info *boot, int peer, char *why,
                                                   size_t whylen)
{
    char dummy[8];
    if (why == NULL || whylen == 0) {
        why = dummy;
        whylen = sizeof(dummy);
    }
    char where[160];
    int same = boot->node_of != NULL && boot->node_of[peer] == boot->node;
    if (same)
        snprintf(where, sizeof(where), rch_tun.vnode_size ? "same node %d (pretend nodes of RDMACH_VNODE_SIZE=%d ranks)"
                                                          : "same node %d", boot->node, rch_tun.vnode_size);
    else if (boot->node_of == NULL)
        snprintf(where, sizeof(where), "node of rank %d unknown", peer);
    else if (rch_tun.vnode_size)
        snprintf(where, sizeof(where), "different nodes %d and %d (RDMACH_VNODE_SIZE=%d made them different nodes)",
                 boot->node, boot->node_of[peer], rch_tun.vnode_size);
    else
        snprintf(where, sizeof(where), "different nodes %d and %d", boot->node, boot->node_of[peer]);
    if (same && rch_tun.shm) {
        snprintf(why, whylen, "%s", where);
        return &rch_rdma_shm_ops;
    }
    const char *nwhy;
    const struct rch_rdma_ops *ops = rch_rdma_select_net(&nwhy);
    snprintf(why, whylen, "%s%s; %s%s", where, same ? ", but RDMACH_SHM=off" : "", ops ? "" : "unreachable: ", nwhy);
    return ops;
}

const struct rch_rdma_ops *rch_rdma_select(const struct rch_boot_info *boot, int peer, char *why, size_t whylen)
{
    char reason[1024];
    const struct rch_rdma_ops *ops = rch_rdma_select_explain(boot, peer, reason, sizeof(reason));
    if (why && whylen)
        snprintf(why, whylen, "%s: %s", ops ? ops->name : "none", reason);
    return ops;
}

/* ---- probe (tools) ---- */

static void probe_recv(void *ctx, int peer, const void *pkt, size_t len)
{
    (void)ctx, (void)peer, (void)pkt, (void)len;
}

static void probe_rma_done(void *ctx, void *op_ctx, rdmach_status_t st)
{
    (void)ctx, (void)op_ctx, (void)st;
}

static void probe_failed(void *ctx, int peer, rdmach_status_t st)
{
    (void)ctx, (void)peer, (void)st;
}

rdmach_status_t rch_rdma_select_probe(const struct rch_rdma_ops *ops, const struct rch_boot_info *boot,
                                      struct rch_rdma_probe *out)
{
    if (ops == NULL || boot == NULL || out == NULL)
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "select probe: %s is NULL",
                            ops == NULL ? "ops" : boot == NULL ? "boot" : "out");
    memset(out, 0, sizeof(*out));
    out->ops = ops;
    snprintf(out->label, sizeof(out->label), "%s", ops->name);
    rdmach_status_t st = ops->query();
    struct rch_rdma_chan *ch = NULL;
    if (st == RDMACH_OK) {
        struct rch_rdma_open_args args = {
            .boot = boot, .peers = NULL, .npeers = 0,
            .up = { .ctx = NULL, .recv = probe_recv, .rma_done = probe_rma_done, .peer_failed = probe_failed },
        };
        st = ops->open(&args, &ch);
    }
    out->status = st;
    if (st != RDMACH_OK) {
        snprintf(out->detail, sizeof(out->detail), "%s", rdmach_last_error());
        return st;
    }
    out->caps = *ops->caps(ch);
    if (rch_net_is_net(ops)) {
        /* "ofi tcp on lo (127.0.0.0/8)", "verbs siw0 (iWARP) 192.0.2.1": the label is the first two words */
        const char *name = ch->pcaps->name;
        snprintf(out->detail, sizeof(out->detail), "%s", name);
        const char *sp = strchr(name, ' ');
        size_t n = sp ? strcspn(sp + 1, " ") : 0;
        if (sp && n) {
            snprintf(out->label, sizeof(out->label), "%s %.*s", ops->name, (int)n, sp + 1);
            if (ops == net_ops) {
                snprintf(net_what, sizeof(net_what), "%.*s", (int)n, sp + 1);
                compose_net_why();
            }
        }
    } else {
        snprintf(out->detail, sizeof(out->detail), "%s channel", ops->name);
    }
    ops->close(ch);
    return RDMACH_OK;
}
