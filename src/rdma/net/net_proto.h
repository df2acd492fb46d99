/*
 * The network channel's wire format: what one rank's network channel says to
 * another's, below the device's packets (device/pkt.h), the same for every
 * provider (libfabric, verbs).
 *
 * Four things travel:
 *   1. connection private data (struct rch_net_cm_priv) in the connect
 *      request, the accept and the reject of the connection manager;
 *   2. control messages sent with a two-sided send into receives the peer
 *      posted before the connection existed: NOOP (the client's first
 *      message, MPA requires the initiator to speak first), NOOP_ACK (the
 *      server's answer to it) and DOORBELL (arrival notice where placement
 *      is not in order, notify mode "send");
 *   3. ring slots (struct rch_net_slot_hdr + payload + struct rch_net_slot_tail)
 *      written by one RDMA write into the peer's receive ring;
 *   4. the credit word (struct rch_net_ring_ctl), written by RDMA into the
 *      ring's control block when half a ring has been consumed and no slot
 *      carried the count back (the explicit credit message).
 *
 * Rules (as device/pkt.h): fixed-width fields, host byte order (one build,
 * one architecture per job), no implicit padding (checked below), a magic and
 * version, opcodes in enums ending in _MAX, and every field validated on
 * receipt (rch_net_cm_priv_check, rch_net_ctl_check, the ring poller) before
 * anything trusts it. A bad connection request is refused and logged; a bad
 * slot or control message fails that one connection, never the process.
 *
 * Slot markers. A slot is written front to back by one RDMA write:
 *
 *   | len credits ver op rsvd | head | payload ... pad to 8 | rsvd tail |
 *   '------- header (16) -----'                              '-- tail (8) -'
 *
 * `head` is the header's last word and `tail` the slot's last: with in-order
 * placement, seeing head == marker(seq) means the whole header is there, and
 * tail == marker(seq) at offset 16 + round8(len) + 4 means the payload is too.
 * marker(seq) has no zero byte (so a half-placed marker word is never a
 * marker), and the receiver zeroes the whole
 * used part of every slot it consumes (header, payload, tail) before it
 * returns the credit for it: a slot holds only zeros and the bytes of the
 * message being written into it, so neither an old marker (a stale tail) nor
 * old payload that happens to equal the new marker is ever taken for the
 * current message's tail.
 *
 * Version history
 *   1  CONNECT, REVERSE, ACCEPT, REVERSE_ACK, REFUSE private data; NOOP,
 *      DOORBELL control messages; DATA and BYE slots; the credit word.
 *      Added (a peer that does not know them refuses, and the first
 *      connection works alone): RAIL and RAIL_ACCEPT private data, with the
 *      rail number in `rail` (0 in every other kind).
 *      Added: the NOOP_ACK control message, and the client's repeat of an
 *      unanswered NOOP (net_conn.c). A peer that predates them fails the
 *      connection on the NOOP_ACK (opcode out of range): one build a job.
 */
#ifndef RCH_RDMA_NET_PROTO_H
#define RCH_RDMA_NET_PROTO_H

#include <stddef.h>
#include <stdint.h>
#include "rdmach.h"

#define RCH_NET_MAGIC   0x4e484352u   /* "RCHN" in memory on little-endian hosts */
#define RCH_NET_VERSION 1
#define RCH_NET_MAX_RAILS 4           /* connections per pair: the first + up to 3 data rails */

/* ---- 1. connection private data ---- */

enum rch_net_cm_kind {
    RCH_NET_CM_CONNECT = 1,      /* client -> server: connect, here is my ring */
    RCH_NET_CM_REVERSE,          /* server -> client: please connect to me (always rejected) */
    RCH_NET_CM_ACCEPT,           /* server -> client, in the accept: here is my ring */
    RCH_NET_CM_REVERSE_ACK,      /* client -> server, in the reject of a REVERSE: I will connect */
    RCH_NET_CM_REFUSE,           /* in a reject: you are not a member, or a duplicate */
    RCH_NET_CM_RAIL,             /* client -> server, once connected: rail `rail` (>= 1) of our pair,
                                    an extra connection for rendezvous data (no ring, no receives) */
    RCH_NET_CM_RAIL_ACCEPT,      /* server -> client, in the accept of a RAIL */
    RCH_NET_CM_KIND_MAX
};

/* Fits the 56 bytes of private data an InfiniBand connect request carries
 * through RDMA CM (the smallest of the transports; MPA allows 512, libfabric
 * tcp 256). */
struct rch_net_cm_priv {
    uint32_t magic;              /* RCH_NET_MAGIC */
    uint8_t  version;            /* RCH_NET_VERSION */
    uint8_t  kind;               /* enum rch_net_cm_kind */
    uint16_t rail;               /* RAIL, RAIL_ACCEPT: the rail, 1 .. RCH_NET_MAX_RAILS - 1; else 0 */
    int32_t  rank;               /* the sender's world rank, as the receiver numbers it (a
                                    process of another job: the number it was given, net_dyn.h) */
    uint32_t size;               /* the sender's job size */
    uint64_t key;                /* the RECEIVER's secret, read from the KVS: proves membership */
    uint64_t ring_addr;          /* CONNECT, ACCEPT: the sender's receive ring (ctl block) */
    uint64_t ring_key;           /* its remote key */
    uint32_t slot_size;          /* the ring's geometry: must match the receiver's */
    uint16_t nslots;
    uint8_t  notify;             /* enum rch_net_notify in force on the sender */
    uint8_t  rsvd1;
};
#define RCH_NET_PRIV_MAX 56
_Static_assert(sizeof(struct rch_net_cm_priv) == 48, "cm private data is 48 bytes");
_Static_assert(sizeof(struct rch_net_cm_priv) <= RCH_NET_PRIV_MAX, "cm private data fits IB's REQ");

/* Validate private data of `kind` that arrived (len bytes). OK or
 * RDMACH_ERR_PROTOCOL with `why` (static text). Checks magic, version, kind,
 * length, rank range (below nconns, the receiver's connections; a rank of
 * the receiver's job must send that job's size) and, for CONNECT/ACCEPT, the
 * ring geometry against ours. The key is checked by the caller (it knows
 * whose secret to expect). */
rdmach_status_t rch_net_cm_priv_check(const void *data, size_t len, unsigned kind, int job_size,
                                      int nconns, uint32_t slot_size, unsigned nslots, struct rch_net_cm_priv *out,
                                      const char **why);

/* ---- 2. control messages (two-sided) ---- */

enum rch_net_ctl_op {
    RCH_NET_CTL_NOOP = 1,        /* the client's first message: key + rank; repeated while unanswered */
    RCH_NET_CTL_DOORBELL,        /* notify "send": `count` slots were written */
    RCH_NET_CTL_NOOP_ACK,        /* server -> client: the NOOP arrived (key: the client's secret) */
    RCH_NET_CTL_OP_MAX
};

struct rch_net_ctl {
    uint32_t magic;
    uint8_t  version;
    uint8_t  op;                 /* enum rch_net_ctl_op */
    uint16_t rsvd;
    int32_t  rank;               /* the sender's world rank */
    uint32_t count;              /* DOORBELL: slots announced by this message */
    uint64_t key;                /* the receiver's secret */
};
_Static_assert(sizeof(struct rch_net_ctl) == 24, "control message is 24 bytes");
#define RCH_NET_CTL_BUF 64       /* size of each posted receive buffer */
_Static_assert(sizeof(struct rch_net_ctl) <= RCH_NET_CTL_BUF, "control message fits a receive buffer");

rdmach_status_t rch_net_ctl_check(const void *data, size_t len, struct rch_net_ctl *out, const char **why);

/* ---- 3. ring slots ---- */

enum rch_net_slot_op {
    RCH_NET_SLOT_DATA = 1,       /* a packet for the layer above */
    RCH_NET_SLOT_BYE,            /* the sender closed its channel: no more slots follow */
    RCH_NET_SLOT_OP_MAX
};

struct rch_net_slot_hdr {
    uint32_t len;                /* payload bytes */
    uint32_t credits;            /* slots of the receiver's messages the sender has consumed (mod 2^32) */
    uint8_t  version;
    uint8_t  op;                 /* enum rch_net_slot_op */
    uint16_t rsvd;
    uint32_t head;               /* marker(seq): last, placed last */
};

struct rch_net_slot_tail {
    uint32_t rsvd;
    uint32_t tail;               /* marker(seq): the last word written */
};

_Static_assert(sizeof(struct rch_net_slot_hdr) == 16, "slot header is 16 bytes");
_Static_assert(offsetof(struct rch_net_slot_hdr, head) == 12, "head marker is the header's last word");
_Static_assert(sizeof(struct rch_net_slot_tail) == 8, "slot tail is 8 bytes");
_Static_assert(offsetof(struct rch_net_slot_tail, tail) == 4, "tail marker is the slot's last word");

#define RCH_NET_SLOT_OVERHEAD (sizeof(struct rch_net_slot_hdr) + sizeof(struct rch_net_slot_tail))

/* The head/tail marker of message `seq`: 28 bits of seq, 7 per byte, with
 * every byte's top bit set. No byte is ever 0, so a marker word that is
 * only partly placed (a TCP segment may end inside it; the rest still
 * zero) never equals a marker. */
static inline uint32_t rch_net_marker(uint32_t seq)
{
    return 0x80808080u | (seq & 0x7fu) | ((seq >> 7 & 0x7fu) << 8) | ((seq >> 14 & 0x7fu) << 16) |
           ((seq >> 21 & 0x7fu) << 24);
}

static inline size_t rch_net_pad8(size_t n)
{
    return (n + 7) & ~(size_t)7;
}

/* ---- 4. the ring's control block (written by the peer) ---- */

/* At the start of every receive ring, one cache line. The peer that writes
 * slots into this ring also writes `consumed` here: how many slots of OUR
 * messages it has consumed from ITS ring (the explicit credit return). */
struct rch_net_ring_ctl {
    uint32_t consumed;
    uint32_t rsvd[15];
};
_Static_assert(sizeof(struct rch_net_ring_ctl) == 64, "ring control block is one cache line");

/* ---- the remote key in rendezvous packets (struct rch_rdma_rkey bytes) ---- */

#define RCH_NET_RKEY_MAGIC 0x4b524e52u   /* "RNRK" */
struct rch_net_wire_rkey {
    uint32_t magic;
    uint32_t rsvd;
    uint64_t key;                /* provider's remote key */
    uint64_t base;               /* start of the registration (offset-addressed providers) */
};
_Static_assert(sizeof(struct rch_net_wire_rkey) == 24, "wire rkey is 24 bytes");

/* ---- the KVS record: what publish() puts ---- */

#define RCH_NET_KVS_KEY  "rdmach-net"
#define RCH_NET_ADDR_MAX 96
struct rch_net_kvs_rec {
    uint32_t magic;
    uint16_t version;
    uint16_t addrlen;
    uint64_t secret;             /* this rank's random key: peers put it in their CM data and NOOP */
    char     prov[16];           /* the provider (ofi, verbs): both ends must use the same */
    uint8_t  addr[RCH_NET_ADDR_MAX];
};
_Static_assert(sizeof(struct rch_net_kvs_rec) == 128, "KVS record is 128 bytes (256 hex characters)");

#endif
