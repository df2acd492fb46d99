/*
 * The RDMA fast path's ring, as a data structure (no network here, so it is
 * unit-testable on plain memory: tests/net/test_net_ring.c).
 *
 * Per ordered pair A -> B: B owns a receive ring (a control block and
 * `nslots` slots of `slot_size` bytes, registered for remote write), A a
 * staging copy of the same geometry (registered for local access). Message
 * number k (mod 2^32) goes to slot k mod nslots: A fills staging slot k,
 * one RDMA write copies it to B's slot k; B polls slot k's markers
 * (net_proto.h), hands the payload up, zeroes the slot and counts it
 * consumed. nslots is a power of two so that k mod nslots stays right
 * across the 2^32 wrap.
 *
 * Credits: A may have at most nslots messages not yet consumed by B. B's
 * consumed count reaches A piggybacked in every slot B writes to A
 * (hdr.credits), or written into A's ring control block by an RDMA write
 * when half a ring is owed and nothing else carried it (net_msg.c).
 * Counts are absolute (mod 2^32), so a late or repeated return is harmless.
 */
#ifndef RCH_RDMA_NET_RING_H
#define RCH_RDMA_NET_RING_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>
#include "rdmach.h"
#include "rdma/net/net_proto.h"

/* Receive side (B). */
struct rch_net_ring_rx {
    unsigned char *slots;      /* slot 0 (just after the control block) */
    struct rch_net_ring_ctl *ctl;
    uint32_t slot_size, nslots;
    uint32_t seq;              /* next message expected == messages consumed */
    uint32_t returned;         /* consumed count last sent back to the writer */
    uint32_t notified;         /* notify modes data/send: messages announced */
};

/* Send side (A). */
struct rch_net_ring_tx {
    unsigned char *stage;      /* local staging slots */
    uint64_t raddr;            /* the peer's slot 0 */
    uint64_t rctl;             /* the peer's control block */
    uint32_t slot_size, nslots;
    uint32_t seq;              /* next message number */
    uint32_t acked;            /* messages the peer has consumed */
};

/* Largest payload of a slot. */
static inline size_t rch_net_ring_payload_max(uint32_t slot_size)
{
    return slot_size - RCH_NET_SLOT_OVERHEAD;
}

/* Bytes of the receive ring's memory (control block + slots). */
static inline size_t rch_net_ring_bytes(uint32_t slot_size, uint32_t nslots)
{
    return sizeof(struct rch_net_ring_ctl) + (size_t)slot_size * nslots;
}

void rch_net_ring_rx_init(struct rch_net_ring_rx *rx, void *mem, uint32_t slot_size, uint32_t nslots);
void rch_net_ring_tx_init(struct rch_net_ring_tx *tx, void *stage, uint64_t raddr, uint32_t slot_size,
                          uint32_t nslots);

/* Room for one more message (a credit)? */
static inline int rch_net_ring_tx_room(const struct rch_net_ring_tx *tx)
{
    return (uint32_t)(tx->seq - tx->acked) < tx->nslots;
}

static inline unsigned char *rch_net_ring_tx_slot(const struct rch_net_ring_tx *tx, uint32_t seq)
{
    return tx->stage + (size_t)(seq & (tx->nslots - 1)) * tx->slot_size;
}

static inline uint64_t rch_net_ring_tx_raddr(const struct rch_net_ring_tx *tx, uint32_t seq)
{
    return tx->raddr + (uint64_t)(seq & (tx->nslots - 1)) * tx->slot_size;
}

/* Fill staging slot `seq` with {op, credits, the iov's bytes} and its
 * markers; returns the bytes to write (header + padded payload + tail).
 * The caller checked total <= rch_net_ring_payload_max. */
size_t rch_net_ring_fill(unsigned char *slot, uint32_t seq, unsigned op, uint32_t credits,
                         const struct iovec *iov, int iovcnt, size_t total);

/* Take a credit return: the peer has consumed `consumed` of our messages.
 * OK, or RDMACH_ERR_PROTOCOL if that is more than we ever sent. */
rdmach_status_t rch_net_ring_tx_credit(struct rch_net_ring_tx *tx, uint32_t consumed);

/*
 * The next message, if it has fully arrived: OK with its header and payload
 * (valid until rch_net_ring_rx_consume); AGAIN if the slot is empty or still
 * being written; RDMACH_ERR_PROTOCOL with `why` if the header is malformed.
 */
rdmach_status_t rch_net_ring_rx_peek(const struct rch_net_ring_rx *rx, struct rch_net_slot_hdr *hdr,
                                     const unsigned char **payload, const char **why);
/* The message seen by peek has been handed up: zero its slot, count it. */
void rch_net_ring_rx_consume(struct rch_net_ring_rx *rx, const struct rch_net_slot_hdr *hdr);

#endif
