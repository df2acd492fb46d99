/* The fast path's ring: filling slots, polling their markers (net_ring.h). */
#include <string.h>
#include "base/base.h"
#include "rdma/net/net_ring.h"

void rch_net_ring_rx_init(struct rch_net_ring_rx *rx, void *mem, uint32_t slot_size, uint32_t nslots)
{
    memset(mem, 0, rch_net_ring_bytes(slot_size, nslots));
    rx->ctl = mem;
    rx->slots = (unsigned char *)mem + sizeof(struct rch_net_ring_ctl);
    rx->slot_size = slot_size;
    rx->nslots = nslots;
    rx->seq = 0;
    rx->returned = 0;
    rx->notified = 0;
}

void rch_net_ring_tx_init(struct rch_net_ring_tx *tx, void *stage, uint64_t raddr, uint32_t slot_size,
                          uint32_t nslots)
{
    tx->stage = stage;
    tx->rctl = raddr;
    tx->raddr = raddr + sizeof(struct rch_net_ring_ctl);
    tx->slot_size = slot_size;
    tx->nslots = nslots;
    tx->seq = 0;
    tx->acked = 0;
}

size_t rch_net_ring_fill(unsigned char *slot, uint32_t seq, unsigned op, uint32_t credits,
                         const struct iovec *iov, int iovcnt, size_t total)
{
    struct rch_net_slot_hdr h = {
        .len = (uint32_t)total, .credits = credits, .version = RCH_NET_VERSION, .op = (uint8_t)op,
        .rsvd = 0, .head = rch_net_marker(seq),
    };
    memcpy(slot, &h, sizeof(h));
    unsigned char *p = slot + sizeof(h);
    for (int i = 0; i < iovcnt; i++) {
        if (iov[i].iov_len) {
            memcpy(p, iov[i].iov_base, iov[i].iov_len);
            p += iov[i].iov_len;
        }
    }
    size_t off = sizeof(h) + rch_net_pad8(total);
    struct rch_net_slot_tail t = { .rsvd = 0, .tail = rch_net_marker(seq) };
    memcpy(slot + off, &t, sizeof(t));
    return off + sizeof(t);
}

rdmach_status_t rch_net_ring_tx_credit(struct rch_net_ring_tx *tx, uint32_t consumed)
{
    if ((int32_t)(consumed - tx->seq) > 0)
        return rch_base_err(RDMACH_ERR_PROTOCOL, "credit return of %u messages, but only %u were sent",
                            consumed, tx->seq);
    if ((int32_t)(consumed - tx->acked) > 0)
        tx->acked = consumed;
    return RDMACH_OK;
}

static inline unsigned char *rx_slot(const struct rch_net_ring_rx *rx, uint32_t seq)
{
    return rx->slots + (size_t)(seq & (rx->nslots - 1)) * rx->slot_size;
}

rdmach_status_t rch_net_ring_rx_peek(const struct rch_net_ring_rx *rx, struct rch_net_slot_hdr *hdr,
                                     const unsigned char **payload, const char **why)
{
    unsigned char *slot = rx_slot(rx, rx->seq);
    const uint32_t m = rch_net_marker(rx->seq);
    /* Anything but the exact marker (0, a half-placed word) is "not yet". */
    uint32_t head = __atomic_load_n((uint32_t *)(slot + offsetof(struct rch_net_slot_hdr, head)),
                                    __ATOMIC_ACQUIRE);
    if (head != m)
        return RDMACH_AGAIN;
    memcpy(hdr, slot, sizeof(*hdr));
    if (RCH_UNLIKELY(hdr->version != RCH_NET_VERSION)) {
        *why = "slot header of an unknown version";
        return RDMACH_ERR_PROTOCOL;
    }
    if (RCH_UNLIKELY(hdr->op == 0 || hdr->op >= RCH_NET_SLOT_OP_MAX)) {
        *why = "slot opcode out of range";
        return RDMACH_ERR_PROTOCOL;
    }
    if (RCH_UNLIKELY(hdr->len > rch_net_ring_payload_max(rx->slot_size))) {
        *why = "slot length larger than a slot";
        return RDMACH_ERR_PROTOCOL;
    }
    size_t off = sizeof(*hdr) + rch_net_pad8(hdr->len) + offsetof(struct rch_net_slot_tail, tail);
    uint32_t tail = __atomic_load_n((uint32_t *)(slot + off), __ATOMIC_ACQUIRE);
    if (tail != m)
        return RDMACH_AGAIN;   /* the payload is still being placed */
    *payload = slot + sizeof(*hdr);
    return RDMACH_OK;
}

void rch_net_ring_rx_consume(struct rch_net_ring_rx *rx, const struct rch_net_slot_hdr *hdr)
{
    unsigned char *slot = rx_slot(rx, rx->seq);
    size_t used = sizeof(*hdr) + rch_net_pad8(hdr->len) + sizeof(struct rch_net_slot_tail);
    /* Invariant: a slot that holds no unconsumed message is all zeros. The
     * writer's next message in this slot then finds nothing but zeros and
     * its own bytes: no old marker, and no old payload that happens to look
     * like the new tail. The zeroing happens before the credit for this
     * slot can leave (release order). */
    memset(slot, 0, used);
    __atomic_thread_fence(__ATOMIC_RELEASE);
    rx->seq++;
}
