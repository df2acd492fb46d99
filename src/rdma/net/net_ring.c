/* The fast path's ring: set-up and the checks' error paths (net_ring.h has
 * the per-message operations, inline). */
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
    rx->cseq = 0;
    rx->cmark = rch_net_marker(0);
    rx->cslot = rx->slots;
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

rdmach_status_t rch_net_ring_tx_credit_bad(const struct rch_net_ring_tx *tx, uint32_t consumed)
{
    return rch_base_err(RDMACH_ERR_PROTOCOL, "credit return of %u messages, but only %u were sent", consumed,
                        tx->seq);
}

rdmach_status_t rch_net_ring_rx_check(const struct rch_net_ring_rx *rx, const struct rch_net_slot_hdr *hdr,
                                      const char **why)
{
    if (hdr->version != RCH_NET_VERSION) {
        *why = "slot header of an unknown version";
        return RDMACH_ERR_PROTOCOL;
    }
    if (hdr->op == 0 || hdr->op >= RCH_NET_SLOT_OP_MAX) {
        *why = "slot opcode out of range";
        return RDMACH_ERR_PROTOCOL;
    }
    if (hdr->len > rch_net_ring_payload_max(rx->slot_size)) {
        *why = "slot length larger than a slot";
        return RDMACH_ERR_PROTOCOL;
    }
    return RDMACH_OK;
}
