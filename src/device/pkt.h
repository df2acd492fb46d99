/*
 * The device's wire format: what one rank's device says to another's, carried
 * as opaque packets by any channel (channel.h send()).
 *
 * Rules
 *  - Every packet starts with struct rch_pkt_base: version, opcode, flags and
 *    the piggybacked credit return. Fixed-width fields, host byte order (the
 *    job is homogeneous: one build, one architecture), natural alignment, no
 *    implicit padding (checked below).
 *  - A receiver validates before it trusts anything (rch_pkt_check): version,
 *    opcode < RCH_PKT_OP_MAX, the packet at least the opcode's header, and the
 *    lengths inside consistent with the packet's length. A bad packet is
 *    dropped with a warning naming the peer; it never crashes the receiver.
 *  - Request ids (sreq/rreq) are the device's own handles (index + generation,
 *    see req.c); a receiver looks them up and checks them, never dereferences.
 *
 * Credits (only when the channel's caps.needs_credits): every packet except
 * CRDT and NOOP consumes one of the sender's per-peer credits
 * (RDMACH_EAGER_CREDITS); every packet returns the credits its sender owes in
 * `credits`. CRDT carries a return when half the window is owed and nothing
 * else is going out; it needs no credit itself, so a channel with
 * needs_credits must accept eager_credits + RCH_PKT_CRDT_RESERVE packets per
 * peer before the receiver polls.
 *
 * Version history
 *   1  EAGER, RNDV_REQ, RNDV_RSP, RNDV_DATA, RNDV_FIN, SYNC_ACK, CRDT, NOOP.
 *      (one-sided RMA opcodes will be added before RCH_PKT_OP_MAX in 2)
 *   1+ RMA (additive: a receiver that predates it drops the packet as an
 *      unknown opcode; its own sub-opcodes are versioned in rma_proto.h)
 *   1+ CANCEL_REQ, CANCEL_RSP (additive, as RMA: MPI_Cancel of a send; the
 *      exchange is described above struct rch_pkt_cancel_req)
 */
#ifndef RCH_DEVICE_PKT_H
#define RCH_DEVICE_PKT_H

#include <stddef.h>
#include <stdint.h>
#include "rdma/channel.h"

#define RCH_PKT_VERSION 1
#define RCH_PKT_CRDT_RESERVE 2

enum rch_pkt_op {
    RCH_PKT_NOOP      = 0,   /* nothing; returns credits like any packet */
    RCH_PKT_EAGER     = 1,   /* SHORT: header + the whole message */
    RCH_PKT_RNDV_REQ  = 2,   /* request to send: size, sender's buffer for GET */
    RCH_PKT_RNDV_RSP  = 3,   /* receiver matched: its buffer for PUT (or DATA) */
    RCH_PKT_RNDV_DATA = 4,   /* a chunk of a rendezvous message (channel without RMA) */
    RCH_PKT_RNDV_FIN  = 5,   /* the data has moved (to the side that did not move it) */
    RCH_PKT_SYNC_ACK  = 6,   /* a synchronous eager message has matched */
    RCH_PKT_CRDT      = 7,   /* explicit credit return */
    RCH_PKT_RMA       = 8,   /* one-sided: a 48-byte header and sub-opcodes of its own (rma_proto.h) */
    RCH_PKT_CANCEL_REQ = 9,  /* the sender asks to withdraw a message not yet matched */
    RCH_PKT_CANCEL_RSP = 10, /* the receiver's answer: withdrawn or not */
    RCH_PKT_OP_MAX
};

enum rch_pkt_flags {
    RCH_PKT_F_SYNC = 1 << 0,  /* EAGER: header is rch_pkt_eager_sync; answer with SYNC_ACK */
    RCH_PKT_F_RKEY = 1 << 1,  /* RNDV_REQ/RSP: the rkey and address are valid (RMA possible) */
};

/* Common prefix of every packet: 8 bytes. */
struct rch_pkt_base {
    uint8_t  ver;            /* RCH_PKT_VERSION */
    uint8_t  op;             /* enum rch_pkt_op */
    uint16_t flags;          /* enum rch_pkt_flags */
    uint16_t credits;        /* credits returned to the receiver of this packet */
    uint16_t rsvd;           /* sent as 0, ignored by version 1 */
};

/* EAGER: 24 bytes, so a channel record header + this + 8 B fit a cache line. */
struct rch_pkt_eager {
    struct rch_pkt_base b;
    uint32_t ctx;            /* communicator context id */
    int32_t  src;            /* sender's rank in the communicator */
    int32_t  tag;
    uint32_t len;            /* payload bytes following the header */
};

/* EAGER with RCH_PKT_F_SYNC: the sender's request to acknowledge. */
struct rch_pkt_eager_sync {
    struct rch_pkt_eager e;
    uint64_t sreq;
};

/* An rkey on the wire (struct rch_rdma_rkey, fixed layout). */
struct rch_pkt_rkey {
    uint32_t len;            /* <= RCH_RDMA_RKEY_MAX */
    uint8_t  bytes[RCH_RDMA_RKEY_MAX];
};

struct rch_pkt_rndv_req {
    struct rch_pkt_base b;
    uint32_t ctx;
    int32_t  src;
    int32_t  tag;
    uint32_t rsvd;
    uint64_t size;           /* message bytes */
    uint64_t sreq;           /* sender's request */
    uint64_t saddr;          /* with F_RKEY: sender's buffer, for the receiver's GET */
    struct rch_pkt_rkey rkey;
    uint32_t pad;
};

struct rch_pkt_rndv_rsp {
    struct rch_pkt_base b;
    uint64_t sreq;           /* sender's request (from the REQ) */
    uint64_t rreq;           /* receiver's request, named in FIN/DATA */
    uint64_t rlen;           /* bytes the receiver takes (<= size: truncation) */
    uint64_t raddr;          /* with F_RKEY: receiver's buffer for the sender's PUT */
    struct rch_pkt_rkey rkey;
    uint32_t pad;
};

/* DATA: header + `len` bytes for [offset, offset+len) of the receiver's buffer. */
struct rch_pkt_rndv_data {
    struct rch_pkt_base b;
    uint64_t rreq;
    uint64_t offset;
    uint32_t len;
    uint32_t pad;
};

struct rch_pkt_rndv_fin {
    struct rch_pkt_base b;
    uint64_t req;            /* the request of the FIN's receiver */
    uint64_t bytes;          /* bytes moved */
    int32_t  status;         /* rdmach_status_t of the transfer (OK or an error) */
    uint32_t pad;
};

struct rch_pkt_sync_ack {
    struct rch_pkt_base b;
    uint64_t sreq;
};

/*
 * Cancel of a send (MPI_Cancel). A message is named by its sequence number:
 * the EAGER and RNDV_REQ packets one rank sends another are numbered from 1
 * in the order they leave (the sender's peer.tx_seq) and counted again, in
 * the same order, as they arrive (peer.rx_seq): channels deliver in order.
 * The sender asks CANCEL_REQ {sreq, seq}; the CANCEL_REQ travels behind the
 * message, so the receiver has seen it by then: either it is still in the
 * unexpected queue (not matched, not taken by a matched probe), and is
 * dropped there, never to be delivered, and the answer is cancelled = 1; or
 * it has matched, and the answer is 0 and the message's protocol goes on
 * (a SYNC_ACK, RSP or FIN the receiver sent before the answer arrives before
 * it). The receiver keeps no state of a cancel. The sender's request waits
 * for the answer before it completes (req.c, cancel.c).
 */
struct rch_pkt_cancel_req {
    struct rch_pkt_base b;
    uint64_t sreq;           /* sender's request, named in the answer */
    uint64_t seq;            /* the message (>= 1) */
};

struct rch_pkt_cancel_rsp {
    struct rch_pkt_base b;
    uint64_t sreq;
    uint64_t seq;            /* as in the CANCEL_REQ */
    uint32_t cancelled;      /* 1: withdrawn, never delivered; 0: it has matched */
    uint32_t pad;
};

/* CRDT and NOOP are a bare struct rch_pkt_base. */

/* RMA: the header of device/rma_proto.h (checked there by rch_rma_check). */
#define RCH_PKT_RMA_HDR_LEN 48

_Static_assert(sizeof(struct rch_pkt_base) == 8, "pkt base header is 8 bytes");
_Static_assert(sizeof(struct rch_pkt_eager) == 24, "EAGER header must stay 24 bytes");
_Static_assert(sizeof(struct rch_pkt_eager_sync) == 32, "EAGER sync header is 32 bytes");
_Static_assert(RCH_RDMA_RKEY_MAX == 40, "wire rkey layout assumes 40 key bytes");
_Static_assert(sizeof(struct rch_pkt_rkey) == 44, "wire rkey is 44 bytes");
_Static_assert(sizeof(struct rch_pkt_rndv_req) == 96, "RNDV_REQ is 96 bytes");
_Static_assert(sizeof(struct rch_pkt_rndv_rsp) == 88, "RNDV_RSP is 88 bytes");
_Static_assert(sizeof(struct rch_pkt_rndv_data) == 32, "RNDV_DATA header is 32 bytes");
_Static_assert(sizeof(struct rch_pkt_rndv_fin) == 32, "RNDV_FIN is 32 bytes");
_Static_assert(sizeof(struct rch_pkt_sync_ack) == 16, "SYNC_ACK is 16 bytes");
_Static_assert(sizeof(struct rch_pkt_cancel_req) == 24, "CANCEL_REQ is 24 bytes");
_Static_assert(sizeof(struct rch_pkt_cancel_rsp) == 32, "CANCEL_RSP is 32 bytes");

/* The largest control packet (what a queued control packet must hold). */
#define RCH_PKT_CTL_MAX 96
_Static_assert(sizeof(struct rch_pkt_rndv_req) <= RCH_PKT_CTL_MAX, "CTL_MAX too small");
_Static_assert(sizeof(struct rch_pkt_rndv_rsp) <= RCH_PKT_CTL_MAX, "CTL_MAX too small");

/* Smallest valid packet of each opcode (its fixed header). */
extern const uint16_t rch_pkt_min_len[RCH_PKT_OP_MAX];
extern const char *const rch_pkt_op_name[RCH_PKT_OP_MAX];

/* Validate a received packet. OK, or RDMACH_ERR_PROTOCOL with `why` (static
 * text) saying what is wrong; the header is copied into *base either way when
 * the packet is long enough to hold one. */
rdmach_status_t rch_pkt_check(const void *pkt, size_t len, struct rch_pkt_base *base,
                              const char **why);

/* Does the opcode consume a credit? */
static inline int rch_pkt_credited(unsigned op)
{
    return op != RCH_PKT_CRDT && op != RCH_PKT_NOOP;
}

static inline struct rch_pkt_base rch_pkt_base_make(unsigned op, unsigned flags)
{
    struct rch_pkt_base b = { .ver = RCH_PKT_VERSION, .op = (uint8_t)op,
                              .flags = (uint16_t)flags, .credits = 0, .rsvd = 0 };
    return b;
}

#endif
