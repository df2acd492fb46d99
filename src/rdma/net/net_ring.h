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
#include <string.h>
#include "rdmach.h"
#include "base/base.h"
#include "rdma/net/net_proto.h"

/* Receive side (B). */
struct rch_net_ring_rx {
    unsigned char *slots;      /* slot 0 (just after the control block) */
    struct rch_net_ring_ctl *ctl;
    uint32_t slot_size, nslots;
    uint32_t seq;              /* next message expected == messages consumed */
    uint32_t returned;         /* consumed count last sent back to the writer */
    uint32_t notified;         /* notify modes data/send: messages announced */
    /* The poll loop's test is one load and one compare: the next slot and
     * its marker, kept for message `cseq` by init and consume. Code that sets
     * `seq` directly (tests) stays correct: a stale cache is not used. */
    uint32_t cseq, cmark;
    unsigned char *cslot;
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

/* Copy n bytes; the short ones of a small message (a packet header, a few
 * bytes of payload) as two overlapping fixed-size moves, without a call. */
static inline void rch_net_copy(unsigned char *dst, const void *src, size_t n)
{
    const unsigned char *s = src;
    if (n > 32 || n < 8) {
        memcpy(dst, s, n);
    } else if (n >= 16) {
        unsigned char a[16], b[16];
        memcpy(a, s, 16);
        memcpy(b, s + n - 16, 16);
        memcpy(dst, a, 16);
        memcpy(dst + n - 16, b, 16);
    } else {
        uint64_t a, b;
        memcpy(&a, s, 8);
        memcpy(&b, s + n - 8, 8);
        memcpy(dst, &a, 8);
        memcpy(dst + n - 8, &b, 8);
    }
}

/* The slot header of message `seq` ({op, credits, total payload bytes},
 * head marker) at the start of `slot`; returns the marker. */
static inline uint32_t rch_net_ring_put_hdr(unsigned char *slot, uint32_t seq, unsigned op, uint32_t credits,
                                            size_t total)
{
    const uint32_t m = rch_net_marker(seq);
    struct rch_net_slot_hdr h = {
        .len = (uint32_t)total, .credits = credits, .version = RCH_NET_VERSION, .op = (uint8_t)op,
        .rsvd = 0, .head = m,
    };
    memcpy(slot, &h, sizeof(h));
    return m;
}

/* Fill staging slot `seq` with {op, credits, the iov's bytes} and its
 * markers; returns the bytes to write (header + padded payload + tail).
 * The caller checked total <= rch_net_ring_payload_max. Inline: it is the
 * sender's copy of every message. */
static inline size_t rch_net_ring_fill(unsigned char *slot, uint32_t seq, unsigned op, uint32_t credits,
                                       const struct iovec *iov, int iovcnt, size_t total)
{
    const uint32_t m = rch_net_ring_put_hdr(slot, seq, op, credits, total);
    unsigned char *p = slot + sizeof(struct rch_net_slot_hdr);
    for (int i = 0; i < iovcnt; i++) {
        if (iov[i].iov_len) {   /* an empty one may have no base */
            rch_net_copy(p, iov[i].iov_base, iov[i].iov_len);
            p += iov[i].iov_len;
        }
    }
    size_t off = sizeof(struct rch_net_slot_hdr) + rch_net_pad8(total);
    struct rch_net_slot_tail t = { .rsvd = 0, .tail = m };
    memcpy(slot + off, &t, sizeof(t));
    return off + sizeof(t);
}

/* The same slot as rch_net_ring_fill(DATA, {hdr, payload of len bytes}),
 * for a write that gathers it without copying the payload: fills the slot
 * header and hdr at the start of staging slot `slot`, and the padding and
 * tail marker after them; v[0] (headers, from the slot), v[2] (padding +
 * tail, from the slot) are set, v[1] is the caller's payload. The caller
 * checked hdrlen + len <= rch_net_ring_payload_max. */
static inline void rch_net_ring_fill_gather(unsigned char *slot, uint32_t seq, uint32_t credits, const void *hdr,
                                            size_t hdrlen, size_t len, struct iovec v[3])
{
    size_t total = hdrlen + len, head = sizeof(struct rch_net_slot_hdr) + hdrlen;
    const uint32_t m = rch_net_ring_put_hdr(slot, seq, RCH_NET_SLOT_DATA, credits, total);
    memcpy(slot + sizeof(struct rch_net_slot_hdr), hdr, hdrlen);
    size_t pad = rch_net_pad8(total) - total;
    unsigned char *tail = slot + rch_net_pad8(head);   /* staging bytes after the headers: unused */
    struct rch_net_slot_tail t = { .rsvd = 0, .tail = m };
    memset(tail, 0, pad);
    memcpy(tail + pad, &t, sizeof(t));
    v[0] = (struct iovec){ .iov_base = slot, .iov_len = head };
    v[2] = (struct iovec){ .iov_base = tail, .iov_len = pad + sizeof(t) };
}

/* A credit return of more messages than were sent: RDMACH_ERR_PROTOCOL, said. */
rdmach_status_t rch_net_ring_tx_credit_bad(const struct rch_net_ring_tx *tx, uint32_t consumed);

/* Take a credit return: the peer has consumed `consumed` of our messages.
 * OK, or RDMACH_ERR_PROTOCOL if that is more than we ever sent. */
static inline rdmach_status_t rch_net_ring_tx_credit(struct rch_net_ring_tx *tx, uint32_t consumed)
{
    if (RCH_UNLIKELY((int32_t)(consumed - tx->seq) > 0))
        return rch_net_ring_tx_credit_bad(tx, consumed);
    if ((int32_t)(consumed - tx->acked) > 0)
        tx->acked = consumed;
    return RDMACH_OK;
}

/* The slot of message `seq` and its marker (the cached ones when current). */
static inline unsigned char *rch_net_ring_rx_next(const struct rch_net_ring_rx *rx, uint32_t *mark)
{
    if (RCH_LIKELY(rx->cseq == rx->seq)) {   /* init and consume keep it so */
        *mark = rx->cmark;
        return rx->cslot;
    }
    *mark = rch_net_marker(rx->seq);
    return rx->slots + (size_t)(rx->seq & (rx->nslots - 1)) * rx->slot_size;
}

/* Has the next message's header arrived (its head marker is in place)?
 * The poll loop's test; rch_net_ring_rx_peek says whether all of it has. */
static inline int rch_net_ring_rx_arrived(const struct rch_net_ring_rx *rx)
{
    uint32_t m;
    const unsigned char *slot = rch_net_ring_rx_next(rx, &m);
    return __atomic_load_n((const uint32_t *)(slot + offsetof(struct rch_net_slot_hdr, head)),
                           __ATOMIC_ACQUIRE) == m;
}

/* The header of an arrived slot is not that of a DATA or BYE message that
 * fits: RDMACH_ERR_PROTOCOL with `why`, or OK if it is fine after all. */
rdmach_status_t rch_net_ring_rx_check(const struct rch_net_ring_rx *rx, const struct rch_net_slot_hdr *hdr,
                                      const char **why);

/*
 * The next message, if it has fully arrived: OK with its header and payload
 * (valid until rch_net_ring_rx_consume; *payload is set whatever the
 * answer, to where it would be); AGAIN if the slot is empty or still
 * being written; RDMACH_ERR_PROTOCOL with `why` if the header is malformed.
 * Inline with the test of an ordinary DATA header as one compare; anything
 * else is checked field by field (rch_net_ring_rx_check).
 */
static inline rdmach_status_t rch_net_ring_rx_peek(const struct rch_net_ring_rx *rx, struct rch_net_slot_hdr *hdr,
                                                   const unsigned char **payload, const char **why)
{
    uint32_t m;
    const unsigned char *slot = rch_net_ring_rx_next(rx, &m);
    /* Anything but the exact marker (0, a half-placed word) is "not yet". */
    uint32_t head = __atomic_load_n((const uint32_t *)(slot + offsetof(struct rch_net_slot_hdr, head)),
                                    __ATOMIC_ACQUIRE);
    *payload = slot + sizeof(*hdr);
    if (head != m)
        return RDMACH_AGAIN;
    memcpy(hdr, slot, sizeof(*hdr));
    if (RCH_UNLIKELY(hdr->version != RCH_NET_VERSION || hdr->op != RCH_NET_SLOT_DATA ||
                     hdr->len > rch_net_ring_payload_max(rx->slot_size))) {
        rdmach_status_t st = rch_net_ring_rx_check(rx, hdr, why);
        if (st != RDMACH_OK)
            return st;
    }
    size_t off = sizeof(*hdr) + rch_net_pad8(hdr->len) + offsetof(struct rch_net_slot_tail, tail);
    uint32_t tail = __atomic_load_n((const uint32_t *)(slot + off), __ATOMIC_ACQUIRE);
    if (tail != m)
        return RDMACH_AGAIN;   /* the payload is still being placed */
    return RDMACH_OK;
}

/* The message seen by peek has been handed up: zero its slot, count it.
 * Invariant: a slot that holds no unconsumed message is all zeros. The
 * writer's next message in this slot then finds nothing but zeros and its
 * own bytes: no old marker, and no old payload that happens to look like
 * the new tail. The zeroing happens before the credit for this slot can
 * leave (release order). */
static inline void rch_net_ring_rx_consume(struct rch_net_ring_rx *rx, const struct rch_net_slot_hdr *hdr)
{
    uint32_t m;
    unsigned char *slot = rch_net_ring_rx_next(rx, &m);
    size_t used = sizeof(*hdr) + rch_net_pad8(hdr->len) + sizeof(struct rch_net_slot_tail);
    if (used <= 64) {
        /* A small message's slot (24 to 64 bytes, a multiple of 8): two
         * overlapping stores from each end, without a call. */
        if (used >= 32) {
            memset(slot, 0, 32);
            memset(slot + used - 32, 0, 32);
        } else {
            memset(slot, 0, 16);
            memset(slot + used - 16, 0, 16);
        }
    } else {
        memset(slot, 0, used);
    }
    __atomic_thread_fence(__ATOMIC_RELEASE);
    uint32_t seq = ++rx->seq;
    rx->cseq = seq;
    rx->cmark = rch_net_marker(seq);
    rx->cslot = rx->slots + (size_t)(seq & (rx->nslots - 1)) * rx->slot_size;
}

#endif
