/*
 * The verbs network channel: the generic network channel (src/rdma/net)
 * bound to the verbs provider table (verbs_prov.c). Selected for peers on
 * other nodes when an RDMA device with an active port is present, or by
 * RDMACH_NET=verbs (rdma/select.c).
 */
#include "rdmach_config.h"
#include "rdma/net/net.h"

#if RDMACH_HAVE_VERBS

static rdmach_status_t verbs_chan_query(void)
{
    return rch_net_query(&rch_net_prov_verbs);
}

static rdmach_status_t verbs_chan_open(const struct rch_rdma_open_args *args, struct rch_rdma_chan **out)
{
    return rch_net_open(&rch_net_prov_verbs, &rch_rdma_verbs_ops, args, out);
}

const struct rch_rdma_ops rch_rdma_verbs_ops = {
    .name = "verbs",
    .query = verbs_chan_query,
    .open = verbs_chan_open,
    .close = rch_net_close,
    .publish = rch_net_publish,
    .connect = rch_net_connect,
    .mem_reg = rch_net_mem_reg,
    .mem_dereg = rch_net_mem_dereg,
    .mem_rkey = rch_net_mem_rkey,
    .send = rch_net_send,
    .put = rch_net_put,
    .get = rch_net_get,
    .progress = rch_net_progress,
    .wait_arm = rch_net_wait_arm,
    .wait_disarm = rch_net_wait_disarm,
    .caps = rch_net_caps,
    .wake = rch_rdma_no_wake,
};

#endif /* RDMACH_HAVE_VERBS */
