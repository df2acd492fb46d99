/* Processes of other jobs over the network channel (net_dyn.h). */
#include <stdio.h>
#include <string.h>
#include "rdmach_config.h"
#include "base/base.h"
#include "rdma/net/net.h"
#include "rdma/net/net_dyn.h"

_Static_assert(sizeof(struct rch_net_kvs_rec) == RCH_NET_DYN_REC_LEN, "the record is what net_dyn.h says");

int rch_net_is_net(const struct rch_rdma_ops *ops)
{
#if RDMACH_HAVE_OFI
    if (ops == &rch_rdma_ofi_ops)
        return 1;
#endif
#if RDMACH_HAVE_VERBS
    if (ops == &rch_rdma_verbs_ops)
        return 1;
#endif
    (void)ops;
    return 0;
}

rdmach_status_t rch_net_dyn_record(struct rch_rdma_chan *ch, void *rec, size_t len)
{
    if (len != sizeof(struct rch_net_kvs_rec))
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "net: a record is %zu bytes, not %zu",
                            sizeof(struct rch_net_kvs_rec), len);
    return rch_net_self_record(ch, rec);
}

rdmach_status_t rch_net_dyn_attach(struct rch_rdma_chan *ch, int peer, const void *rec, size_t len, int my_id,
                                   int server)
{
    char who[48];
    snprintf(who, sizeof(who), "process %d of another job", peer);
    if (peer < ch->size || peer >= ch->cap || my_id < 0 || len != sizeof(struct rch_net_kvs_rec))
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "%s attach: peer %d (in use up to %d, room up to %d), "
                            "number %d there, record of %zu bytes", ch->ops->name, peer, ch->size, ch->cap, my_id,
                            len);
    struct rch_net_conn *c = &ch->conns[peer];
    struct rch_net_kvs_rec r;
    memcpy(&r, rec, sizeof(r));
    rdmach_status_t st = rch_net_record_check(ch, &r, who);
    if (st != RDMACH_OK)
        return st;
    c->rec = r;
    c->have_rec = 1;
    c->my_id = my_id;
    c->server = server;
    c->is_peer = 1;
    ch->size = peer + 1;
    RCH_DEBUG("net", "%s attached as %d (number %d there; this side %s)", who, peer, my_id,
              server ? "accepts" : "connects");
    return RDMACH_OK;
}

rdmach_status_t rch_net_dyn_detach(struct rch_rdma_chan *ch, int peer, int force)
{
    if (peer < ch->jobsize || peer >= ch->size || !ch->conns[peer].is_peer)
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "%s detach: %d is no process of another job (the job's ranks "
                            "are 0..%d, others attached up to %d)", ch->ops->name, peer, ch->jobsize - 1,
                            ch->size - 1);
    return rch_net_conn_detach(ch, &ch->conns[peer], force);
}
