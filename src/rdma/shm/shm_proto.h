/*
 * Wire formats of the shared-memory channel: what one process writes into a
 * segment for another to read. Everything here is validated by the reader
 * before it is trusted (a buggy or dying peer must not crash us).
 *
 * Version history:
 *   1  segment header, per-sender slots (ring + pipe), records PKT/GETREQ/PUTNOTE,
 *      pipe descriptors GET_DATA/PUT_DATA/GET_ERR.
 */
#ifndef RCH_RDMA_SHM_PROTO_H
#define RCH_RDMA_SHM_PROTO_H

#include <stdatomic.h>
#include <stdint.h>
#include "rdma/shm/shm_ring.h"

#define RCH_SHM_SEG_MAGIC   UINT64_C(0x5244414d43485348)   /* "HSHCMADR" read as LE bytes */
#define RCH_SHM_SEG_VERSION 1u
#define RCH_SHM_PIPE_NBUF   4u      /* pipe buffers per ordered pair (>= 2: double buffering) */
#define RCH_SHM_PAGE        4096u

/* ---- segment: one per receiving rank, "rdmach-<kvsname>-<rank>" ----
 *
 *   [ header 128 ][ wake line 128 ][ slot 0 ][ slot 1 ] ... [ slot nslots-1 ]
 *   slot s (written by the local rank of index s, read by the owner):
 *     [ ring: rch_shm_ring_bytes(ring_cells), page-rounded ]
 *     [ pipe: ctl (sink line, NBUF descriptor lines), page-rounded ][ NBUF x chunk ]
 */
enum { RCH_SHM_SEG_F_FENCE = 1u << 0 };   /* owner's fast path cannot rely on membarrier */

struct rch_shm_seg_hdr {
    uint64_t magic;                  /* written last by the creator (release) */
    uint32_t version;
    uint32_t nslots;                 /* local ranks of the node */
    int32_t  owner_rank;
    int32_t  owner_pid;
    uint64_t size;                   /* bytes of the segment */
    uint64_t ring_cells;
    uint64_t slot_off, slot_stride;
    uint64_t pipe_off;               /* offset of the pipe inside a slot */
    uint64_t pipe_chunk;             /* bytes of one pipe buffer */
    uint32_t pipe_nbuf;
    uint32_t flags;                  /* RCH_SHM_SEG_F_* */
    uint64_t owner_addr;             /* where the owner mapped this segment (CMA probe) */
    int32_t  maps_expected;          /* processes that will map it, owner included */
    _Atomic int32_t maps;            /* processes that have mapped it */
    _Atomic int32_t unlinked;        /* the name was removed (first to set it unlinks) */
};
_Static_assert(sizeof(struct rch_shm_seg_hdr) <= RCH_SHM_RING_LINE, "segment header fits its line");

/* Written by the owner (sleeping) and by every sender (futex). */
struct rch_shm_wake {
    _Alignas(RCH_SHM_RING_LINE) _Atomic uint32_t futex;   /* bumped by a waker */
    _Atomic uint32_t sleeping;                          /* owner armed its wait */
};
_Static_assert(sizeof(struct rch_shm_wake) == RCH_SHM_RING_LINE, "wake line");

#define RCH_SHM_SEG_WAKE_OFF  RCH_SHM_RING_LINE
#define RCH_SHM_SEG_SLOTS_OFF (2 * RCH_SHM_RING_LINE)

/* ---- ring records (type field of struct rch_shm_rec) ---- */
enum rch_shm_rec_type {
    RCH_SHM_REC_PKT = 1,             /* a device packet: handed to upcalls.recv */
    RCH_SHM_REC_GETREQ,              /* pipelined GET: please copy [raddr, +len) to me */
    RCH_SHM_REC_PUTNOTE,             /* pipelined PUT: chunks of one put are coming */
    RCH_SHM_REC_MAX
};

struct rch_shm_getreq {
    uint64_t op_id;                  /* requester's id, echoed in the pipe descriptors */
    uint64_t raddr;                  /* in the owner: source of the data */
    uint64_t dst;                    /* in the requester: destination */
    uint64_t len;
};
_Static_assert(sizeof(struct rch_shm_getreq) == 32, "GETREQ is 32 bytes");

struct rch_shm_putnote {
    uint64_t dst;                    /* in the receiver */
    uint64_t len;
};
_Static_assert(sizeof(struct rch_shm_putnote) == 16, "PUTNOTE is 16 bytes");

/* ---- pipe: two-copy path, one per ordered pair (source -> sink), in the
 * sink's segment, in the source's slot ---- */
enum rch_shm_pipe_kind {
    RCH_SHM_PIPE_GET_DATA = 1,       /* bytes for the sink's GET op_id */
    RCH_SHM_PIPE_GET_ERR,            /* the sink's GET op_id failed with `status` (len 0) */
    RCH_SHM_PIPE_PUT_DATA,           /* bytes of a PUT into the sink's memory */
    RCH_SHM_PIPE_MAX
};
enum { RCH_SHM_PIPE_F_LAST = 1u << 0 };  /* last chunk of its transfer */

struct rch_shm_pipe_desc {           /* source-written, one line per buffer */
    _Alignas(RCH_SHM_CELL) _Atomic uint64_t seq;   /* chunk sequence + 1; written last */
    uint64_t dst;
    uint64_t op_id;
    uint32_t len;
    uint16_t kind;
    uint16_t flags;
    int32_t  status;
};
_Static_assert(sizeof(struct rch_shm_pipe_desc) == RCH_SHM_CELL, "descriptor line");

struct rch_shm_pipe_ctl {
    _Alignas(RCH_SHM_RING_LINE) _Atomic uint64_t drained;   /* sink-written: chunks copied out */
    _Atomic uint64_t nak_seq;        /* sink-written: 1 + seq of the last rejected PUT chunk */
    _Alignas(RCH_SHM_RING_LINE) struct rch_shm_pipe_desc desc[RCH_SHM_PIPE_NBUF];
};

/* ---- remote key of registered memory: what a peer needs for get/put ---- */
#define RCH_SHM_RKEY_MAGIC 0x73686d6bu     /* "shmk" */
struct rch_shm_rkey {
    uint32_t magic;
    int32_t  pid;                    /* owner process (process_vm_readv/writev target) */
    int32_t  rank;                   /* owner world rank */
    uint32_t access;                 /* RCH_RDMA_ACCESS_* */
    uint64_t base;
    uint64_t len;
};
_Static_assert(sizeof(struct rch_shm_rkey) == 32, "rkey is 32 bytes");

#endif
