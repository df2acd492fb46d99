/* Validation of received packets (the wire format is in pkt.h). */
#include <string.h>
#include "base/base.h"
#include "device/pkt.h"
#include "device/rma_proto.h"

const uint16_t rch_pkt_min_len[RCH_PKT_OP_MAX] = {
    [RCH_PKT_NOOP]      = sizeof(struct rch_pkt_base),
    [RCH_PKT_EAGER]     = sizeof(struct rch_pkt_eager),
    [RCH_PKT_RNDV_REQ]  = sizeof(struct rch_pkt_rndv_req),
    [RCH_PKT_RNDV_RSP]  = sizeof(struct rch_pkt_rndv_rsp),
    [RCH_PKT_RNDV_DATA] = sizeof(struct rch_pkt_rndv_data),
    [RCH_PKT_RNDV_FIN]  = sizeof(struct rch_pkt_rndv_fin),
    [RCH_PKT_SYNC_ACK]  = sizeof(struct rch_pkt_sync_ack),
    [RCH_PKT_CRDT]      = sizeof(struct rch_pkt_base),
    [RCH_PKT_RMA]       = RCH_PKT_RMA_HDR_LEN,
    [RCH_PKT_CANCEL_REQ] = sizeof(struct rch_pkt_cancel_req),
    [RCH_PKT_CANCEL_RSP] = sizeof(struct rch_pkt_cancel_rsp),
};

const char *const rch_pkt_op_name[RCH_PKT_OP_MAX] = {
    [RCH_PKT_NOOP] = "NOOP",           [RCH_PKT_EAGER] = "EAGER",
    [RCH_PKT_RNDV_REQ] = "RNDV_REQ",   [RCH_PKT_RNDV_RSP] = "RNDV_RSP",
    [RCH_PKT_RNDV_DATA] = "RNDV_DATA", [RCH_PKT_RNDV_FIN] = "RNDV_FIN",
    [RCH_PKT_SYNC_ACK] = "SYNC_ACK",   [RCH_PKT_CRDT] = "CRDT",
    [RCH_PKT_RMA] = "RMA",             [RCH_PKT_CANCEL_REQ] = "CANCEL_REQ",
    [RCH_PKT_CANCEL_RSP] = "CANCEL_RSP",
};

static rdmach_status_t bad(const char **why, const char *text)
{
    *why = text;
    return RDMACH_ERR_PROTOCOL;
}

static int rkey_ok(const struct rch_pkt_rkey *k)
{
    return k->len <= RCH_RDMA_RKEY_MAX;
}

rdmach_status_t rch_pkt_check(const void *pkt, size_t len, struct rch_pkt_base *base,
                              const char **why)
{
    *why = "";
    if (pkt == NULL || len < sizeof(*base))
        return bad(why, "shorter than the 8-byte packet header");
    memcpy(base, pkt, sizeof(*base));
    if (base->ver != RCH_PKT_VERSION)
        return bad(why, "unknown wire version");
    if (base->op >= RCH_PKT_OP_MAX)
        return bad(why, "unknown opcode");
    if (len < rch_pkt_min_len[base->op])
        return bad(why, "shorter than its opcode's header");

    switch (base->op) {
    case RCH_PKT_EAGER: {
        struct rch_pkt_eager e;
        size_t hlen = sizeof(e);
        memcpy(&e, pkt, sizeof(e));
        if (base->flags & RCH_PKT_F_SYNC) {
            hlen = sizeof(struct rch_pkt_eager_sync);
            if (len < hlen)
                return bad(why, "EAGER with SYNC flag shorter than its header");
        }
        if ((size_t)e.len != len - hlen)
            return bad(why, "EAGER payload length does not match the packet length");
        if (e.src < 0)
            return bad(why, "EAGER with a negative source rank");
        return RDMACH_OK;
    }
    case RCH_PKT_RNDV_REQ: {
        struct rch_pkt_rndv_req r;
        if (len != sizeof(r))
            return bad(why, "RNDV_REQ of the wrong length");
        memcpy(&r, pkt, sizeof(r));
        if (r.src < 0)
            return bad(why, "RNDV_REQ with a negative source rank");
        if ((base->flags & RCH_PKT_F_RKEY) && !rkey_ok(&r.rkey))
            return bad(why, "RNDV_REQ rkey longer than RCH_RDMA_RKEY_MAX");
        if (r.size > (uint64_t)SIZE_MAX)
            return bad(why, "RNDV_REQ size does not fit this process");
        return RDMACH_OK;
    }
    case RCH_PKT_RNDV_RSP: {
        struct rch_pkt_rndv_rsp r;
        if (len != sizeof(r))
            return bad(why, "RNDV_RSP of the wrong length");
        memcpy(&r, pkt, sizeof(r));
        if ((base->flags & RCH_PKT_F_RKEY) && !rkey_ok(&r.rkey))
            return bad(why, "RNDV_RSP rkey longer than RCH_RDMA_RKEY_MAX");
        return RDMACH_OK;
    }
    case RCH_PKT_RNDV_DATA: {
        struct rch_pkt_rndv_data d;
        memcpy(&d, pkt, sizeof(d));
        if ((size_t)d.len != len - sizeof(d))
            return bad(why, "RNDV_DATA payload length does not match the packet length");
        if (d.offset > UINT64_MAX - d.len)
            return bad(why, "RNDV_DATA offset overflows");
        return RDMACH_OK;
    }
    case RCH_PKT_RNDV_FIN:
        if (len != sizeof(struct rch_pkt_rndv_fin))
            return bad(why, "RNDV_FIN of the wrong length");
        return RDMACH_OK;
    case RCH_PKT_SYNC_ACK:
        if (len != sizeof(struct rch_pkt_sync_ack))
            return bad(why, "SYNC_ACK of the wrong length");
        return RDMACH_OK;
    case RCH_PKT_RMA: {
        struct rch_rma_hdr h;
        return rch_rma_check(pkt, len, &h, why);
    }
    case RCH_PKT_CANCEL_REQ: {
        struct rch_pkt_cancel_req c;
        if (len != sizeof(c))
            return bad(why, "CANCEL_REQ of the wrong length");
        memcpy(&c, pkt, sizeof(c));
        if (c.seq == 0)
            return bad(why, "CANCEL_REQ names message 0 (they are numbered from 1)");
        return RDMACH_OK;
    }
    case RCH_PKT_CANCEL_RSP: {
        struct rch_pkt_cancel_rsp c;
        if (len != sizeof(c))
            return bad(why, "CANCEL_RSP of the wrong length");
        memcpy(&c, pkt, sizeof(c));
        if (c.seq == 0 || c.cancelled > 1)
            return bad(why, "CANCEL_RSP with message 0 or an answer other than 0 or 1");
        return RDMACH_OK;
    }
    case RCH_PKT_CRDT:
    case RCH_PKT_NOOP:
        if (len != sizeof(struct rch_pkt_base))
            return bad(why, "CRDT/NOOP of the wrong length");
        return RDMACH_OK;
    default:
        return bad(why, "opcode has no validator");
    }
}
