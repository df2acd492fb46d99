/*
 * The one-sided wire format: what one rank's RMA engine says to another's.
 *
 * Every one-sided packet is a device packet with opcode RCH_PKT_RMA (pkt.h):
 * the device's 8-byte base header (version, credits) followed by the rest of
 * struct rch_rma_hdr and `len` bytes of payload. The device validates the
 * base header and the minimum length; rch_rma_check() validates the rest
 * before rma_am.c trusts anything: the sub-opcode, the payload length
 * against the packet length, the element size of atomic operations.
 *
 * Which operation travels as a packet (an "active message" that the target's
 * progress executes) and which as memory access is decided per target by the
 * origin (rma.h); the target only ever sees the packets below.
 *
 *   origin -> target                         target -> origin
 *   PUT   addr, payload                      ACK   count=1, status
 *   ACC   addr, aop, kind, elem, payload     ACK   count=1, status
 *   GET   addr, len wanted in `elem`, req    RSP   req, status, payload
 *   GACC  addr, aop, kind, elem, payload,req RSP   req, status, old contents
 *   CAS   addr, elem, payload = cmp|value,req RSP  req, status, old value
 *   LOCK  flags EXCL                          GRANT (when the lock is held)
 *   UNLOCK flags EXCL                         UNLOCK_ACK
 *   COMPLETE (PSCW: origin's epoch ended)     POST (PSCW: exposure opened)
 *   KICK (a node-local peer released the lock word while lock requests wait)
 *   PUTV  segs, payload                      ACK   count=1, status
 *   ACCV  aop, kind, elem, segs, payload     ACK   count=1, status
 *   GETV  segs, bytes wanted in `elem`, req  RSP   req, status, payload
 *   GACCV aop, kind, elem, segs, payload,req RSP   req, status, old contents
 *   PUTP  pattern, blocks, payload           ACK   count=1, status
 *   ACCP  aop, kind, elem, pattern, blocks,  ACK   count=1, status
 *         payload
 *   GETW  where, segs, bytes in `elem`, req  RSP   req, status (no data)
 *   PUTW  where, segs, bytes in `elem`, req  RSP   req, status (no data)
 *
 * The V forms carry many small blocks of a derived target datatype in one
 * packet. Their payload starts with struct rch_rma_vec (nseg), then nseg
 * struct rch_rma_seg, each `count` blocks of `blen` bytes at addr,
 * addr + stride, ...; then (PUTV, ACCV, GACCV) the blocks' data, packed in
 * that order. `addr` of the header is the first block's (for messages).
 *
 * The P forms ("pattern") carry blocks that repeat: struct rch_rma_pat,
 * then nblk struct rch_rma_pblk, then the data of `reps` repetitions, each
 * `period` bytes (the blocks' data in block order), repetition r of block k
 * going to blk[k].addr + r * stride: a struct's blocks element after
 * element, the period of an indexed type built from a pattern. The data is
 * in the order the origin's packed buffer has it, so the origin sends it
 * from there, without first rearranging it into one column per block (PUTV).
 *
 * GETW ("get, written by the target") only goes to a rank of the origin's
 * node that its channel reaches by single copy: struct rch_rma_where names
 * the origin's result buffer and the channel's key for it, the segments
 * follow as in GETV (or with flag F_PAT the blocks that repeat, as in PUTP,
 * without data). The target packs the blocks a chunk at a time and
 * writes each chunk into that buffer itself, then answers with an RSP
 * without data. If the kernel refused the target single copy towards the
 * origin, the channel's pipeline wrote the chunks and the RSP carries flag
 * F_NOWRITE: the origin sends that target no more GETW. (An origin that
 * ignores the flag only keeps the slower path: no version change.)
 *
 * PUTW ("put, written by the target") is GETW's reverse, to the same kind
 * of target: the where names the origin's packed data (registered for
 * remote read), the segments or pattern (F_PAT) where it goes. The target
 * reads the data through its channel (get_drain) and scatters it as it
 * comes, then answers with an RSP without data when all of it is in place.
 *
 * `addr` is a byte offset from the target's window base, or for a dynamic
 * window an absolute address in the target; the target checks it against its
 * window (or its attached regions) and answers a bad one with status
 * RDMACH_ERR_INVALID_ARG rather than touching memory.
 *
 * `win` names the window: the context id of the window's private
 * communicator, which no two live communicators of one rank share.
 *
 * Version history
 *   1  PUT GET ACC GACC CAS LOCK UNLOCK POST COMPLETE ACK RSP GRANT UNLOCK_ACK KICK
 *   2  PUTV GETV ACCV GACCV
 *   3  PUTP ACCP GETW
 *   4  PUTW
 */
#ifndef RCH_DEVICE_RMA_PROTO_H
#define RCH_DEVICE_RMA_PROTO_H

#include <stddef.h>
#include <stdint.h>
#include "rdmach.h"
#include "device/pkt.h"

enum rch_rma_op {
    RCH_RMA_NONE = 0,
    RCH_RMA_PUT,
    RCH_RMA_GET,
    RCH_RMA_ACC,
    RCH_RMA_GACC,
    RCH_RMA_CAS,
    RCH_RMA_LOCK,
    RCH_RMA_UNLOCK,
    RCH_RMA_POST,
    RCH_RMA_COMPLETE,
    RCH_RMA_ACK,
    RCH_RMA_RSP,
    RCH_RMA_GRANT,
    RCH_RMA_UNLOCK_ACK,
    RCH_RMA_KICK,
    RCH_RMA_PUTV,
    RCH_RMA_GETV,
    RCH_RMA_ACCV,
    RCH_RMA_GACCV,
    RCH_RMA_PUTP,
    RCH_RMA_ACCP,
    RCH_RMA_GETW,
    RCH_RMA_PUTW,
    RCH_RMA_OP_MAX
};

enum rch_rma_flags {
    RCH_RMA_F_EXCL = 1 << 0,     /* LOCK/UNLOCK: the exclusive lock */
    RCH_RMA_F_PAT  = 1 << 1,     /* GETW, PUTW: blocks that repeat (rch_rma_pat, rch_rma_pblk), not segments */
    RCH_RMA_F_NOWRITE = 1 << 2,  /* RSP of a GETW: the target cannot write the origin by single copy */
};

struct rch_rma_hdr {
    struct rch_pkt_base b;       /* op = RCH_PKT_RMA */
    uint8_t  rop;                /* enum rch_rma_op */
    uint8_t  flags;              /* enum rch_rma_flags */
    uint8_t  aop, kind;          /* ACC/GACC: operation and element kind, resolved by the target */
    uint32_t win;                /* window id */
    int32_t  src;                /* the sender's rank in the window */
    int32_t  status;             /* ACK/RSP: rdmach_status_t of the operation at the target */
    uint32_t len;                /* payload bytes after the header */
    uint32_t elem;               /* ACC/GACC/CAS: bytes per element; GET: bytes wanted */
    uint64_t addr;               /* target memory: offset from the window base (dynamic: address) */
    uint64_t req;                /* GET/GACC/CAS and their RSP: origin's request id; ACK: count */
};

_Static_assert(sizeof(struct rch_rma_hdr) == 48, "RMA header is 48 bytes");
_Static_assert(sizeof(struct rch_rma_hdr) <= RCH_PKT_CTL_MAX, "an RMA header fits a queued control packet");

/* The V forms' payload: this, nseg segments, the data. */
struct rch_rma_vec {
    uint32_t nseg;
    uint32_t pad;
};
struct rch_rma_seg {
    uint64_t addr;               /* the first block (offset or, dynamic, address) */
    int64_t stride;              /* from one block to the next, bytes */
    uint32_t blen;               /* bytes per block (ACCV/GACCV: whole elements) */
    uint32_t count;              /* blocks, at least 1 */
};
_Static_assert(sizeof(struct rch_rma_vec) == 8 && sizeof(struct rch_rma_seg) == 24, "vector descriptors are packed");

/* The P forms' payload: this, nblk struct rch_rma_pblk, the data. */
#define RCH_RMA_PAT_BLK_MAX 16
struct rch_rma_pat {
    uint64_t reps;               /* repetitions of the blocks, at least 1 */
    int64_t stride;              /* target bytes from one repetition to the next */
    uint32_t period;             /* data bytes of one repetition: the blocks' blen added up */
    uint32_t nblk;               /* 1..RCH_RMA_PAT_BLK_MAX */
};
struct rch_rma_pblk {
    uint64_t addr;               /* repetition 0 of the block (offset or, dynamic, address) */
    uint32_t blen;               /* bytes (ACCP: whole elements) */
    uint32_t pad;
};
_Static_assert(sizeof(struct rch_rma_pat) == 24 && sizeof(struct rch_rma_pblk) == 16, "pattern descriptors are packed");

/* GETW's and PUTW's payload: this, then segments (struct rch_rma_vec, rch_rma_seg). */
#define RCH_RMA_KEY_MAX 40
struct rch_rma_where {
    uint64_t raddr;              /* the origin's buffer for the packed blocks */
    uint32_t keylen;             /* the origin channel's key for it (struct rch_rdma_rkey) */
    uint8_t key[RCH_RMA_KEY_MAX];
    uint32_t pad;
};
_Static_assert(sizeof(struct rch_rma_where) == 56, "GETW's where is packed");

/* Largest element of an atomic operation (long double _Complex). */
#define RCH_RMA_ELEM_MAX 32

extern const char *const rch_rma_op_name[RCH_RMA_OP_MAX];

/* Validate an RMA packet (base header already checked by rch_pkt_check):
 * OK or RDMACH_ERR_PROTOCOL with `why` set (static text). *h receives the
 * header either way when the packet is long enough. */
rdmach_status_t rch_rma_check(const void *pkt, size_t len, struct rch_rma_hdr *h, const char **why);

#endif
