/*
 * The libfabric network channel: the generic network channel (src/rdma/net)
 * bound to the libfabric provider table (ofi_prov.c). Selected for peers on
 * other nodes when no RDMA device is active, or by RDMACH_NET=ofi
 * (rdma/select.c).
 */
#include "rdmach_config.h"
#include "rdma/net/net.h"

#if RDMACH_HAVE_OFI

static rdmach_status_t ofi_chan_query(void)
{
    return rch_net_query(&rch_net_prov_ofi);
}

static rdmach_status_t ofi_chan_open(const struct rch_rdma_open_args *args, struct rch_rdma_chan **out)
{
    return rch_net_open(&rch_net_prov_ofi, &rch_rdma_ofi_ops, args, out);
}

const struct rch_rdma_ops rch_rdma_ofi_ops = {
    .name = "ofi",
    .query = ofi_chan_query,
    .open = ofi_chan_open,
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

#endif /* RDMACH_HAVE_OFI */
