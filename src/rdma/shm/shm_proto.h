/*
 * Wire formats of the shared-memory channel: what one process writes into a
 * segment for another to read. Everything here is validated by the reader
 * before it is trusted (a buggy or dying peer must not crash us).
 *
 * Version history:
 *   1  segment header, per-sender slots (ring + pipe), records PKT/GETREQ/PUTNOTE/HELP,
 *      pipe descriptors GET_DATA/PUT_DATA/GET_ERR, shared single-copy descriptors.
 *   1+ GETREQ carries a claim slot: the sink may take chunks of a pipelined
 *      get from the end with single copy (steal words in the pipe page).
 *   2  the doorbell after the wake line: the owner polls only the rings of
 *      the senders that rang it; slots start after it.
 *   3  the life line after the doorbell (the owner's robust lock: its death
 *      seen from any pid namespace); slots start after it.
 */
#ifndef RCH_RDMA_SHM_PROTO_H
#define RCH_RDMA_SHM_PROTO_H

#include <stdatomic.h>
#include <stdint.h>
#include "rdma/shm/shm_ring.h"

#define RCH_SHM_SEG_MAGIC   UINT64_C(0x5244414d43485348)   /* "HSHCMADR" read as LE bytes */
#define RCH_SHM_SEG_VERSION 5u
#define RCH_SHM_PIPE_NBUF   4u      /* pipe buffers per ordered pair (>= 2: double buffering) */
#define RCH_SHM_PAGE        4096u
#define RCH_SHM_PIPE_MIN_CHUNK 16384u

/* The chunk of a pipelined transfer of len bytes through buffers of `max`
 * bytes (the sink's pipe_chunk), the same at both ends: a quarter of it
 * (one per buffer) in whole pages, from 16 KiB up to max. A transfer of one
 * buffer's size went in one chunk, its two copies one after the other: a
 * 2-rank alltoall of 64 KiB (a 64 KiB exchange each way) 8.3 us against
 * 6.1-6.5 with 16 KiB chunks, while 1 MiB messages were 5-15% slower in 16
 * KiB chunks than in 64 KiB ones (AMD EPYC family 25 model 17). */
static inline uint64_t rch_shm_pipe_chunk_for(uint64_t len, uint64_t max)
{
    uint64_t c = (len / RCH_SHM_PIPE_NBUF + RCH_SHM_PAGE - 1) / RCH_SHM_PAGE * RCH_SHM_PAGE;
    if (c < RCH_SHM_PIPE_MIN_CHUNK)
        c = RCH_SHM_PIPE_MIN_CHUNK;
    return c < max ? c : max;
}

/* ---- segment: one per receiving rank, "rdmach-<kvsname>-<rank>" ----
 *
 *   [ header 128 ][ wake line 128 ][ doorbell ][ life line 128, page-rounded ][ slot 0 ] ... [ slot nslots-1 ]
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
    _Atomic int32_t departed;        /* the owner closed its channel (release): it finished (the
                                        world's finalize exchange is behind it), so its exit is
                                        a departure, not a death (shm_live.c) */
    uint64_t owner_pidns;            /* inode of the owner's pid namespace (0: unknown): with
                                        owner_pid, who may judge the owner dead (rch_shm_seg_sweep) */
    _Atomic int32_t aborting;        /* the owner is ending the whole job by an abort (release,
                                        after abort_code): its exit is that abort (shm_live.c) */
    int32_t  abort_code;
    int32_t  wake_fd;                /* the owner's eventfd (its fd number), -1: none (shm_wakefd.c) */
    _Atomic int32_t wake_fd_failed;  /* a waker could not reach it: the owner sleeps on the futex */
};
_Static_assert(sizeof(struct rch_shm_seg_hdr) <= RCH_SHM_RING_LINE, "segment header fits its line");

/* `sleeping`: how the owner armed its wait, so how to wake it. */
enum { RCH_SHM_SLEEP_FUTEX = 1,   /* FUTEX_WAIT on `futex` */
       RCH_SHM_SLEEP_FD = 2 };    /* poll() on its eventfd with other channels' fds (shm_wakefd.c) */

/* Written by the owner (sleeping) and by every sender (futex). */
struct rch_shm_wake {
    _Alignas(RCH_SHM_RING_LINE) _Atomic uint32_t futex;   /* bumped by a waker */
    _Atomic uint32_t sleeping;                          /* owner armed its wait */
    /* Oversubscribed nodes: raised by whoever gives the owner work (a record,
     * a pipe chunk...), lowered by the owner before it polls; the ranks that
     * share its core read it to know whether to leave the core to it. On a
     * line of its own: senders write it, the owner's core-mates poll it. */
    _Alignas(RCH_SHM_CELL) _Atomic uint32_t pending;
};
_Static_assert(sizeof(struct rch_shm_wake) == RCH_SHM_RING_LINE, "wake line");

#define RCH_SHM_SEG_WAKE_OFF  RCH_SHM_RING_LINE

/* The doorbell: a count of rings, then a bit per slot (bit s%64 of word
 * s/64). The local rank of slot s rings once, after it reserved and faulted
 * in its ring and before its first record there: it sets its bit (atomic
 * OR), then adds one to the count (release). The owner polls only the rings
 * whose bits it has seen (shm_bell.c), and looks at the bits only when the
 * count changed (one load per pass, whatever the node's size), so the ring
 * of a rank that never sends to it is never touched and has no page: the
 * memory of a segment, and the length of a progress pass, grow with the
 * ranks that send to its owner, not with the node. Bits are never cleared.
 * On lines of their own: written once per pair, read by the owner. */
#define RCH_SHM_SEG_BELL_OFF  (2 * RCH_SHM_RING_LINE)
struct rch_shm_bell {
    _Atomic uint64_t count;          /* rings so far */
    _Atomic uint64_t bits[];         /* rch_shm_bell_words(nslots) */
};
static inline uint64_t rch_shm_bell_words(uint32_t nslots)
{
    return ((uint64_t)nslots + 63) / 64;
}
static inline uint64_t rch_shm_bell_bytes(uint32_t nslots)
{
    return sizeof(struct rch_shm_bell) + 8 * rch_shm_bell_words(nslots);
}

/* The life line: a process-shared robust pthread mutex that the owner
 * locks when it creates the segment and unlocks only when it closes
 * (after `departed`). However the locking thread ends (SIGKILL, _exit,
 * exec), the kernel walks its robust list and sets FUTEX_OWNER_DIED in the
 * lock word, which any mapper reads: the owner's death as seen from
 * another pid namespace, where the pid in the header names nobody (or
 * somebody else). Written by the owner's glibc and the kernel only; read
 * (one load) by peers. On a line of its own after the doorbell. */
static inline uint64_t rch_shm_life_off(uint32_t nslots)
{
    return (RCH_SHM_SEG_BELL_OFF + rch_shm_bell_bytes(nslots) + RCH_SHM_RING_LINE - 1) / RCH_SHM_RING_LINE *
           RCH_SHM_RING_LINE;
}

/* ---- ring records (type field of struct rch_shm_rec) ---- */
enum rch_shm_rec_type {
    RCH_SHM_REC_PKT = 1,             /* a device packet: handed to upcalls.recv */
    RCH_SHM_REC_GETREQ,              /* pipelined GET: please copy [raddr, +len) to me */
    RCH_SHM_REC_PUTNOTE,             /* pipelined PUT: chunks of one put are coming */
    RCH_SHM_REC_HELP,                /* shared single copy: take chunks of my get/put */
    RCH_SHM_REC_MAX
};

struct rch_shm_getreq {
    uint64_t op_id;                  /* requester's id, echoed in the pipe descriptors */
    uint64_t raddr;                  /* in the owner: source of the data */
    uint64_t dst;                    /* in the requester: destination */
    uint64_t len;
    uint32_t steal;                  /* claim slot (< RCH_SHM_STEAL_SLOTS) or RCH_SHM_STEAL_NONE */
    uint32_t gen;                    /* its generation (low 16 bits) */
};
_Static_assert(sizeof(struct rch_shm_getreq) == 40, "GETREQ is 40 bytes");

/* ---- pipelined get with stealing (shm_pipe.c): the source takes chunks from
 * the front, the sink may take chunks from the back with single copy when the
 * source does not serve the pipe (busy elsewhere, descheduled). Both move one
 * word, in the sink's segment (pipe page of the source's slot), by CAS:
 *   gen (16) | head (24): next chunk of the source | tail (24): end of its part
 * The source claims chunk head if head < tail; the sink claims chunk tail - 1
 * if head < tail. A word of another generation is a finished get. ---- */
#define RCH_SHM_STEAL_SLOTS 64u
#define RCH_SHM_STEAL_NONE  0xffffffffu
#define RCH_SHM_STEAL_MAX_CHUNKS ((1u << 24) - 1)

struct rch_shm_putnote {
    uint64_t dst;                    /* in the receiver */
    uint64_t len;
};
_Static_assert(sizeof(struct rch_shm_putnote) == 16, "PUTNOTE is 16 bytes");

struct rch_shm_help {
    uint32_t slot;                   /* descriptor index (< RCH_SHM_COOP_SLOTS) */
    uint32_t gen;                    /* its generation when the transfer started */
};
_Static_assert(sizeof(struct rch_shm_help) == 8, "HELP is 8 bytes");

/* ---- shared single copy (shm_coop.c): a large get/put cut into chunks that
 * the initiator and the peer (the helper) both take, each with its own
 * process_vm_readv/writev. In the helper's segment, in the initiator's slot;
 * filled by the initiator, `claim` taken by both with compare-and-swap. ---- */
#define RCH_SHM_COOP_SLOTS    4u     /* transfers in flight per ordered pair */
#define RCH_SHM_COOP_MAX_CHUNKS 64u  /* chunks of one transfer (a 64-bit map) */
enum rch_shm_coop_kind { RCH_SHM_COOP_GET = 1, RCH_SHM_COOP_PUT, RCH_SHM_COOP_MAX };

struct rch_shm_coop_desc {
    _Alignas(RCH_SHM_RING_LINE) _Atomic uint64_t claim;  /* gen << 32 | next chunk; written last */
    _Atomic uint64_t helped;         /* helper-written: gen << 32 | chunks it copied */
    _Atomic uint64_t stopped;        /* helper-written: gen << 32 | 1 once it quit early */
    uint64_t helper_addr;            /* in the helper: source (GET) or destination (PUT) */
    uint64_t init_addr;              /* in the initiator: destination (GET) or source (PUT) */
    uint64_t len;
    uint64_t chunk;
    uint32_t nchunks;
    uint32_t kind;                   /* RCH_SHM_COOP_* */
};
_Static_assert(sizeof(struct rch_shm_coop_desc) == RCH_SHM_RING_LINE, "one descriptor per line pair");

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
    struct rch_shm_coop_desc coop[RCH_SHM_COOP_SLOTS];   /* not part of the pipe: sharing its page */
    _Alignas(RCH_SHM_RING_LINE) _Atomic uint64_t steal[RCH_SHM_STEAL_SLOTS];   /* claim words of gets */
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
