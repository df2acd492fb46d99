/*
 * Two device-internal "channels" that are not transports:
 *
 * rch_dev_loop_ops — sends to self. send() hands the packet straight to the
 *   device's receive upcall (same matching, same protocols as any peer);
 *   put()/get() are memcpy within the process, so a large self-message that
 *   meets a posted receive is copied once, directly (rendezvous-like), and an
 *   unexpected one waits as a descriptor with no copy. The small eager limit
 *   keeps the packet on the stack.
 *
 * rch_dev_nochan_ops — peers no channel reaches (another node, with no
 *   network channel yet) and peers that failed: every operation fails with the
 *   reason and names the rank, so the send path needs no special case.
 */
#include <string.h>
#include "base/log.h"
#include "base/tunables.h"
#include "device/dev_impl.h"

#define LOOP_MAX_MSG (4096 + sizeof(struct rch_pkt_eager_sync))

struct rch_rdma_chan {
    struct rch_rdma_upcalls up;
    struct rch_rdma_caps caps;
    struct rch_rdma_mr mr;
};

static rdmach_status_t loop_query(void)
{
    return RDMACH_OK;
}

static struct rch_rdma_chan loop_chan;

static rdmach_status_t loop_open(const struct rch_rdma_open_args *args, struct rch_rdma_chan **out)
{
    loop_chan.up = args->up;
    loop_chan.caps = (struct rch_rdma_caps){
        .max_msg = LOOP_MAX_MSG, .inline_size = LOOP_MAX_MSG, .in_order = 1,
        .write_with_data = 0, .rma = 1, .needs_credits = 0, .onload = 1,
    };
    *out = &loop_chan;
    return RDMACH_OK;
}

static void loop_close(struct rch_rdma_chan *ch)
{
}

static rdmach_status_t loop_publish(struct rch_rdma_chan *ch)
{
    return RDMACH_OK;
}

static rdmach_status_t loop_connect(struct rch_rdma_chan *ch, int peer)
{
    return RDMACH_OK;
}

static rdmach_status_t loop_mem_reg(struct rch_rdma_chan *ch, void *addr, size_t len, unsigned access,
                                    struct rch_rdma_mr **mr)
{
    *mr = &ch->mr;   /* nothing to register within one process */
    return RDMACH_OK;
}

static void loop_mem_dereg(struct rch_rdma_chan *ch, struct rch_rdma_mr *mr)
{
}

static rdmach_status_t loop_mem_rkey(struct rch_rdma_chan *ch, const struct rch_rdma_mr *mr,
                                     struct rch_rdma_rkey *rkey)
{
    rkey->len = 0;
    return RDMACH_OK;
}

/* Delivered synchronously: the receive upcall runs before send returns. A
 * handler may send to self again (SYNC_ACK, FIN); each level has its own
 * stack buffer, and control packets (one iov) are passed without a copy. */
static rdmach_status_t loop_send(struct rch_rdma_chan *ch, int peer, const struct iovec *iov, int iovcnt)
{
    if (iovcnt == 1) {
        ch->up.recv(ch->up.ctx, peer, iov[0].iov_base, iov[0].iov_len);
        return RDMACH_OK;
    }
    _Alignas(16) unsigned char buf[LOOP_MAX_MSG];
    size_t len = 0;
    for (int i = 0; i < iovcnt; i++) {
        if (iov[i].iov_len > sizeof(buf) - len)
            return rch_base_err(RDMACH_ERR_INVALID_ARG, "loopback: packet longer than %zu bytes",
                                sizeof(buf));
        memcpy(buf + len, iov[i].iov_base, iov[i].iov_len);
        len += iov[i].iov_len;
    }
    ch->up.recv(ch->up.ctx, peer, buf, len);
    return RDMACH_OK;
}

static rdmach_status_t loop_put(struct rch_rdma_chan *ch, int peer, const void *laddr,
                                struct rch_rdma_mr *lmr, size_t len, const struct rch_rdma_rkey *rkey,
                                uint64_t raddr, void *op_ctx)
{
    memcpy((void *)(uintptr_t)raddr, laddr, len);
    return RDMACH_OK;
}

static rdmach_status_t loop_get(struct rch_rdma_chan *ch, int peer, void *laddr,
                                struct rch_rdma_mr *lmr, size_t len, const struct rch_rdma_rkey *rkey,
                                uint64_t raddr, void *op_ctx)
{
    memcpy(laddr, (const void *)(uintptr_t)raddr, len);
    return RDMACH_OK;
}

static unsigned loop_progress(struct rch_rdma_chan *ch, unsigned max)
{
    return 0;
}

static rdmach_status_t loop_wait_arm(struct rch_rdma_chan *ch, struct rch_rdma_wait *w)
{
    return RDMACH_ERR_UNSUPPORTED;   /* never armed: nothing arrives asynchronously */
}

static void loop_wait_disarm(struct rch_rdma_chan *ch)
{
}

static const struct rch_rdma_caps *loop_caps(const struct rch_rdma_chan *ch)
{
    return &ch->caps;
}

const struct rch_rdma_ops rch_dev_loop_ops = {
    .name = "self",
    .query = loop_query,
    .open = loop_open,
    .close = loop_close,
    .publish = loop_publish,
    .connect = loop_connect,
    .mem_reg = loop_mem_reg,
    .mem_dereg = loop_mem_dereg,
    .mem_rkey = loop_mem_rkey,
    .send = loop_send,
    .send_zc = rch_rdma_no_send_zc,
    .put = loop_put,
    .get = loop_get,
    .progress = loop_progress,
    .wait_arm = loop_wait_arm,
    .wait_disarm = loop_wait_disarm,
    .caps = loop_caps,
    .wake = rch_rdma_no_wake,
    .recv_peek = rch_rdma_no_recv_peek,
    .recv_done = rch_rdma_no_recv_done,
};

/* ---- peers nothing reaches ---- */

static rdmach_status_t nochan_fail(int peer)
{
    const struct rch_dev_peer *p = &rch_dev.peers[peer];
    if (p->left)
        return rch_base_err(RDMACH_ERR_PEER_DEAD, "rank %d has finished and exited", peer);
    if (p->dead_status == RDMACH_ERR_PEER_DEAD)
        return rch_base_err(RDMACH_ERR_PEER_DEAD, "rank %d has failed or disconnected", peer);
    if (p->dead_status == RDMACH_ERR_UNREACHABLE)
        return rch_base_err(RDMACH_ERR_UNREACHABLE,
                            "no channel reaches rank %d (node %d) from rank %d (node %d): "
                            "shared memory is %s and no network channel is built in yet",
                            peer, rch_boot.node_of ? rch_boot.node_of[peer] : -1, rch_boot.rank,
                            rch_boot.node, rch_tun.shm ? "only within a node" : "off (RDMACH_SHM=off)");
    return rch_base_err(p->dead_status, "rank %d is unusable: %s", peer, rdmach_strerror(p->dead_status));
}

static rdmach_status_t nochan_query(void)
{
    return RDMACH_ERR_UNSUPPORTED;
}

static rdmach_status_t nochan_open(const struct rch_rdma_open_args *args, struct rch_rdma_chan **out)
{
    return RDMACH_ERR_UNSUPPORTED;
}

static rdmach_status_t nochan_publish(struct rch_rdma_chan *ch)
{
    return RDMACH_ERR_UNSUPPORTED;
}

static rdmach_status_t nochan_connect(struct rch_rdma_chan *ch, int peer)
{
    return nochan_fail(peer);
}

static rdmach_status_t nochan_mem_reg(struct rch_rdma_chan *ch, void *addr, size_t len, unsigned access,
                                      struct rch_rdma_mr **mr)
{
    return RDMACH_ERR_UNSUPPORTED;
}

static rdmach_status_t nochan_mem_rkey(struct rch_rdma_chan *ch, const struct rch_rdma_mr *mr,
                                       struct rch_rdma_rkey *rkey)
{
    return RDMACH_ERR_UNSUPPORTED;
}

static rdmach_status_t nochan_send(struct rch_rdma_chan *ch, int peer, const struct iovec *iov, int iovcnt)
{
    return nochan_fail(peer);
}

static rdmach_status_t nochan_put(struct rch_rdma_chan *ch, int peer, const void *laddr,
                                  struct rch_rdma_mr *lmr, size_t len, const struct rch_rdma_rkey *rkey,
                                  uint64_t raddr, void *op_ctx)
{
    return nochan_fail(peer);
}

static rdmach_status_t nochan_get(struct rch_rdma_chan *ch, int peer, void *laddr,
                                  struct rch_rdma_mr *lmr, size_t len, const struct rch_rdma_rkey *rkey,
                                  uint64_t raddr, void *op_ctx)
{
    return nochan_fail(peer);
}

static const struct rch_rdma_caps nochan_caps_v = { .max_msg = 0 };

static const struct rch_rdma_caps *nochan_caps(const struct rch_rdma_chan *ch)
{
    return &nochan_caps_v;
}

const struct rch_rdma_ops rch_dev_nochan_ops = {
    .name = "none",
    .query = nochan_query,
    .open = nochan_open,
    .close = loop_close,
    .publish = nochan_publish,
    .connect = nochan_connect,
    .mem_reg = nochan_mem_reg,
    .mem_dereg = loop_mem_dereg,
    .mem_rkey = nochan_mem_rkey,
    .send = nochan_send,
    .send_zc = rch_rdma_no_send_zc,
    .put = nochan_put,
    .get = nochan_get,
    .progress = loop_progress,
    .wait_arm = loop_wait_arm,
    .wait_disarm = loop_wait_disarm,
    .caps = nochan_caps,
    .wake = rch_rdma_no_wake,
    .recv_peek = rch_rdma_no_recv_peek,
    .recv_done = rch_rdma_no_recv_done,
};
