/* The transports built into this library, in one explicit list, and the
 * "not supported" fillers for ops a transport does not have. */
#include "rdma/channel.h"

rdmach_status_t rch_rdma_no_put(struct rch_rdma_chan *ch, int peer, const void *laddr,
                                struct rch_rdma_mr *lmr, size_t len, const struct rch_rdma_rkey *rkey,
                                uint64_t raddr, void *op_ctx)
{
    return RDMACH_ERR_UNSUPPORTED;
}

rdmach_status_t rch_rdma_no_send_zc(struct rch_rdma_chan *ch, int peer, const void *hdr, size_t hdrlen,
                                    const void *buf, size_t len, struct rch_rdma_mr *lmr, void *op_ctx)
{
    return RDMACH_ERR_UNSUPPORTED;
}

rdmach_status_t rch_rdma_no_get(struct rch_rdma_chan *ch, int peer, void *laddr,
                                struct rch_rdma_mr *lmr, size_t len, const struct rch_rdma_rkey *rkey,
                                uint64_t raddr, void *op_ctx)
{
    return RDMACH_ERR_UNSUPPORTED;
}

rdmach_status_t rch_rdma_no_wake(struct rch_rdma_chan *ch, int peer)
{
    return RDMACH_ERR_UNSUPPORTED;
}

rdmach_status_t rch_rdma_no_recv_peek(struct rch_rdma_chan *ch, int peer, const void **pkt, size_t *len)
{
    return RDMACH_ERR_UNSUPPORTED;
}

void rch_rdma_no_recv_done(struct rch_rdma_chan *ch, int peer)
{
}
