/*
 * src/device one-sided engine (RMA): windows, the operations on them, and
 * the synchronisation that completes them. Used by the MPI binding
 * (src/mpi/win_*.c), which owns datatypes and epochs and calls this with
 * contiguous bytes.
 *
 * Files
 *   rma_win.c    window objects, the id table, node segments, registration,
 *                the information every member publishes
 *   rma_ops.c    origin side of put/get/accumulate/compare-and-swap
 *   rma_am.c     the packets (rma_proto.h): sending, queueing, the target
 *                side, responses
 *   rma_sync.c   locks, flush, PSCW notifications
 *   rma_acclock.c the accumulate lock's waiters: a dead holder's lock is taken over
 *   rma_vec.c    many blocks of a derived target datatype in one call/packet
 *   rma_pat.c    blocks that repeat (a struct's, an indexed pattern's), in packets
 *   rma_getw.c   many small blocks got by a node-local target writing them here
 *   rma_putw.c   many small blocks put by a node-local target reading them from here
 *   rma_proto.c  validation of received packets
 *
 * How an origin reaches a target's window memory (per target, chosen when the
 * window is created, struct rch_dev_win_target.path):
 *   DIRECT  the memory is mapped here: the target itself, or a rank of this
 *           node whose window lives in the node's window segment
 *           (Win_allocate, Win_allocate_shared). Put/get are memcpy;
 *           accumulate, fetch-and-op and compare-and-swap run here under the
 *           target's accumulate lock (a spin lock in the segment). No call at
 *           the target is needed: true passive target.
 *   RDMA    the channel's put/get into the target's registered memory, with
 *           the rkey the target published (Win_create over shared memory:
 *           single copy by process_vm_writev/readv, also passive; network
 *           channels: RDMA write/read). Dynamic windows of a rank of this
 *           node: the rkey of the attached region comes from the table its
 *           owner keeps in the node segment (an access spanning regions
 *           attached back to back, each with its own rkey, goes as AM).
 *           Accumulates to a rank of this
 *           node: read-modify-write by single copy under its accumulate lock
 *           (passive); to other nodes: packets.
 *   AM      every operation is a packet that the target's progress executes
 *           (dynamic windows on other nodes, channels without RMA, a node
 *           peer without single copy, RDMACH_RMA_PATH=am).
 * RDMACH_RMA_PATH=rdma|am narrows the choice (to test the network paths
 * over shared memory).
 *
 * Atomicity (MPI's element-wise rule for accumulate operations): whoever
 * applies an accumulate, fetch-and-op or compare-and-swap to a rank's window
 * memory — an origin on the same node (DIRECT), or the rank itself on behalf
 * of a packet — holds that rank's accumulate lock while doing it, so they
 * are atomic with respect to each other whatever the path.
 *
 * Passive-target locks: one lock word per rank (EXCL bit | shared holders),
 * in the node segment when the window has one (ranks of the node take it
 * with atomics: passive), in the rank's private memory otherwise. Other
 * ranks send LOCK/UNLOCK packets; the owner takes the word on their behalf
 * and queues what it cannot grant yet, retrying when the word is released
 * (a node-local releaser sends it a KICK when requests are queued).
 *
 * Completion: each target counts operations not yet locally complete (the
 * origin buffer still in use: queued packets, RDMA in flight) and not yet
 * remotely complete (no ACK/RSP yet, RDMA in flight). Flush waits for both
 * to reach zero; flush_local for the first. A struct rch_dev_rma_cmpl, when
 * given, learns when every operation issued with it is locally complete
 * (gets: the data has arrived), which is where the MPI layer unpacks and
 * frees its temporaries and completes request-based operations.
 *
 * Errors that a target reports (ACK/RSP status) are kept in the window and
 * returned by the next flush (and unlock, fence, complete).
 *
 * Threading: as the device (one thread at a time).
 */
#ifndef RCH_DEVICE_RMA_H
#define RCH_DEVICE_RMA_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include "rdmach.h"
#include "rdma/channel.h"

enum rch_dev_win_flavor {        /* the values of MPI_WIN_FLAVOR_* */
    RCH_DEV_WIN_CREATE = 1,
    RCH_DEV_WIN_ALLOCATE = 2,
    RCH_DEV_WIN_DYNAMIC = 3,
    RCH_DEV_WIN_SHARED = 4,
};

enum rch_dev_win_path { RCH_DEV_WIN_DIRECT = 1, RCH_DEV_WIN_RDMA, RCH_DEV_WIN_AM };

/* Largest element of compare-and-swap / fetch-and-op (long double _Complex). */
#define RCH_DEV_RMA_ELEM_MAX 32

/* A rank's lock and accumulate lock (in the node segment, or private). */
#define RCH_DEV_WIN_CTRL_STRIDE 128
#define RCH_DEV_WIN_WORD_EXCL   (1ull << 63)
struct rch_dev_win_ctrl {
    _Atomic uint64_t lock;       /* passive-target lock: EXCL bit | number of shared holders */
    _Atomic uint32_t acc;        /* accumulate lock: 0, or its holder's world rank + 1 */
    _Atomic uint32_t waiters;    /* LOCK packets queued at the owner: releasers KICK it */
};
_Static_assert(sizeof(struct rch_dev_win_ctrl) <= RCH_DEV_WIN_CTRL_STRIDE, "ctrl block fits its stride");

/* What each member publishes (the MPI layer exchanges it: allgather). */
#define RCH_DEV_WIN_KEYS 3
struct rch_dev_win_key {
    char chan[16];               /* the channel's ops name ("shm", "ofi", ...) */
    uint32_t len;
    uint8_t bytes[RCH_RDMA_RKEY_MAX];
};
enum { RCH_DEV_WIN_F_MAPPED = 1 };   /* the memory is in the node segment at seg_off */
struct rch_dev_win_info {
    uint64_t base;               /* the window memory in the member's own address space */
    uint64_t size;
    uint64_t seg_off;
    uint32_t disp_unit;
    uint32_t flags;
    uint32_t nkeys;
    uint32_t node;               /* the member's node (boot layout) */
    struct rch_dev_win_key keys[RCH_DEV_WIN_KEYS];
};

enum { RCH_DEV_WIN_LOCK_NONE = 0, RCH_DEV_WIN_LOCK_SHARED, RCH_DEV_WIN_LOCK_EXCL };

/* One target, as this origin sees it. */
struct rch_dev_win_target {
    int world;                   /* world rank */
    uint8_t path;                /* enum rch_dev_win_path */
    uint8_t lock;                /* RCH_DEV_WIN_LOCK_*: what this rank holds on it */
    uint8_t lock_wait;           /* AM: LOCK sent, GRANT not yet received */
    uint8_t unlock_wait;         /* AM: UNLOCK sent, UNLOCK_ACK not yet received */
    uintptr_t mapped;            /* DIRECT: the target's window base in this address space */
    struct rch_dev_win_ctrl *ctrl;   /* its lock words, if mapped here (else packets) */
    uint64_t base, size;         /* its window in its own address space */
    uint32_t disp_unit;
    int has_rkey;
    struct rch_rdma_rkey rkey;   /* for the channel that reaches it */
    uint32_t pend_local;         /* operations whose origin buffer is still in use */
    uint32_t pend_remote;        /* operations not yet complete at the target */
    uint32_t posts;              /* PSCW: POSTs from it not yet consumed by a start */
    int8_t cma;                  /* node-local RDMA completes at once: 0 unknown, 1 yes, -1 no */
    int8_t getw;                 /* -1: it cannot write this rank by single copy (GETW's F_NOWRITE): GETV */
    int8_t putw;                 /* -1: it could not read a PUTW's data (the channel's drain_ready): V/P packets */
    struct rch_dev_win_dyntab *dyn;  /* dynamic, node-local: its table of attached regions */
};

struct rch_dev_win_region;       /* an attached region of a dynamic window (rma_win.c) */
struct rch_dev_win_dyntab;       /* the node-shared table of those regions (rma_impl.h) */
struct rch_dev_win_lockreq;      /* a LOCK waiting at the owner (rma_sync.c) */

struct rch_dev_win {
    uint32_t id;                 /* on the wire: context id of the window's communicator */
    int rank, size;              /* my rank in the window, the number of members */
    int *world_of;               /* [size] */
    int flavor;                  /* enum rch_dev_win_flavor */
    struct rch_dev_win_target *t;    /* [size] */
    /* my memory */
    void *base;
    size_t bytes;
    int disp_unit;
    void *own_mem;               /* ALLOCATE/SHARED without a segment: freed with the window */
    struct rch_dev_win_ctrl *my_ctrl;
    struct rch_dev_win_ctrl own_ctrl;    /* my_ctrl when there is no segment */
    /* the node segment: control blocks of the node's members, then their memory */
    unsigned char *seg;
    size_t seg_len;
    int seg_owner;               /* I created it (the node's lowest member) */
    int seg_unlinked;
    char seg_name[256];
    int nlocal;                  /* members on my node (incl. me) */
    int *local;                  /* [nlocal]: their window ranks, ascending */
    uint64_t *seg_off;           /* [nlocal]: where each one's memory starts in the segment */
    /* registrations of my memory, one per channel */
    int nregs;
    struct { const struct rch_rdma_ops *ops; struct rch_rdma_chan *chan; struct rch_rdma_mr *mr; }
        regs[4];
    /* dynamic windows: my attached regions */
    struct rch_dev_win_region *regions;
    int nregions, cap_regions;
    struct rch_dev_win_dyntab *my_dyn;   /* my table in the node segment (NULL: no local peers) */
    const struct rch_rdma_ops *dyn_ops;  /* the channel that reaches my node's other members */
    struct rch_rdma_chan *dyn_chan;
    /* target side */
    struct rch_dev_win_lockreq *lq_head, *lq_tail;
    uint32_t completes;          /* PSCW: COMPLETE notifications received */
    uint32_t npend_local, npend_remote;   /* sums of the targets' pend_local / pend_remote */
    int npackets;                /* members that reach me by packets (locks, atomics): my
                                  * synchronisation calls then progress the device once, so a
                                  * rank that polls its own window still serves them */
    /* the first error a target reported, until a flush returns it */
    rdmach_status_t err;
    int err_target;
    char errmsg[200];
};

/* ---- windows (rma_win.c) ---- */

struct rch_dev_win_args {
    uint32_t id;                 /* unique among this rank's live windows and communicators */
    int rank, size;
    const int *world_of;         /* [size], copied */
    int flavor;
    int disp_unit;               /* mine */
    /* CREATE: my memory. ALLOCATE/SHARED: sizes[] of every member (I get
     * sizes[rank] bytes). DYNAMIC: nothing. */
    void *base;
    size_t bytes;
    const uint64_t *sizes;
    int noncontig;               /* SHARED: page-align each member's memory (alloc_shared_noncontig) */
};

/* Creation is collective and goes in steps; between steps the caller runs a
 * barrier-like exchange that also agrees on errors (any member failing makes
 * all fail):
 *   1. rch_dev_win_create     every member; the node's lowest member creates
 *                             the node segment (if the window needs one)
 *   2. rch_dev_win_map        every member maps its node's segment
 *   3. rch_dev_win_publish    the segment's name goes; my memory is
 *                             registered; *info is what I publish
 *   4. rch_dev_win_connect    with every member's info (allgather)
 * The window takes packets from step 1 on. rch_dev_win_free undoes any
 * prefix of this (also after a failed step). */
rdmach_status_t rch_dev_win_create(const struct rch_dev_win_args *a, struct rch_dev_win **out);
rdmach_status_t rch_dev_win_map(struct rch_dev_win *w);
rdmach_status_t rch_dev_win_publish(struct rch_dev_win *w, struct rch_dev_win_info *info);
rdmach_status_t rch_dev_win_connect(struct rch_dev_win *w, const struct rch_dev_win_info *all);
/* Local: deregister, unmap, free. The caller has made sure (barrier) that no
 * member still accesses this one's memory. */
void rch_dev_win_free(struct rch_dev_win *w);
/* Does the window need a node segment for SHARED with more than one member
 * on a node, and can it have one (RDMACH_SHM=on)? */
int rch_dev_win_shm_allowed(void);

/* Where rank's window memory is in this address space when it is mine or in
 * my node's segment (Win_shared_query), else NULL. */
void *rch_dev_win_shared_ptr(const struct rch_dev_win *w, int rank);

/* Dynamic windows: attach/detach local memory (local calls). Attach fails
 * with INVALID_ARG if the range overlaps an attached one. */
rdmach_status_t rch_dev_win_attach(struct rch_dev_win *w, void *base, size_t len);
rdmach_status_t rch_dev_win_detach(struct rch_dev_win *w, const void *base);
/* Is every byte of [addr, addr + len) in an attached region of mine (one,
 * or several attached back to back)? */
int rch_dev_win_region_ok(const struct rch_dev_win *w, uint64_t addr, uint64_t len);

/* ---- operations (rma_ops.c) ----
 * `toff`: byte offset from the target's window base; for a dynamic window
 * the target address. Ranges are the caller's to check (the target checks
 * again). Return OK once issued (complete or counted), or an error of the
 * call (dead peer, no memory). */

typedef void (*rch_dev_rma_kernel_fn)(const void *in, void *inout, size_t count, void *arg);
/* The same over nblk blocks of blen elements, block k at in + k * istride
 * and inout + k * ostride bytes (rch_coll_op2d_fn: addresses aligned for
 * the element, rch_base_blocks2d_ok). */
typedef void (*rch_dev_rma_kernel2d_fn)(const void *in, ptrdiff_t istride, void *inout, ptrdiff_t ostride,
                                        size_t nblk, size_t blen);
/* The same over reps repetitions of ne elements (rch_coll_oprows_fn:
 * element k of repetition r at user + r * stride + off[k]). */
typedef void (*rch_dev_rma_kernelrows_fn)(const void *in, void *user, ptrdiff_t stride, size_t reps,
                                          const ptrdiff_t *off, int ne);
/* An accumulate operation: `fn` runs at the origin (DIRECT), (op, kind) travel. */
struct rch_dev_rma_op {
    rch_dev_rma_kernel_fn fn;
    rch_dev_rma_kernel2d_fn fn2d;    /* or NULL: gathered, combined by fn, scattered */
    rch_dev_rma_kernelrows_fn rows;  /* or NULL: by fn2d, or gathered */
    uint8_t op, kind;
    uint32_t elem;               /* bytes per element */
};
/* The target's side of (op, kind): fills fn, fn2d, rows and elem, 0; -1 if there
 * is no such operation. Set by the layer that owns the kernels (the MPI
 * binding) before any window. */
typedef int (*rch_dev_rma_resolve_fn)(unsigned op, unsigned kind, struct rch_dev_rma_op *out);
void rch_dev_rma_set_resolver(rch_dev_rma_resolve_fn fn);

/* Local completion of a group of operations. */
struct rch_dev_rma_cmpl {
    int pending;                 /* operations not locally complete, + 1 while the caller issues */
    rdmach_status_t err;
    void (*done)(struct rch_dev_rma_cmpl *c);   /* runs once, when pending reaches 0 */
};
static inline void rch_dev_rma_cmpl_init(struct rch_dev_rma_cmpl *c, void (*done)(struct rch_dev_rma_cmpl *))
{
    c->pending = 1;
    c->err = RDMACH_OK;
    c->done = done;
}
/* Drop one hold (the caller's, after issuing; or an operation's). */
void rch_dev_rma_cmpl_release(struct rch_dev_rma_cmpl *c, rdmach_status_t st);

rdmach_status_t rch_dev_rma_put(struct rch_dev_win *w, int target, const void *src, size_t len, uint64_t toff,
                                struct rch_dev_rma_cmpl *c);
rdmach_status_t rch_dev_rma_get(struct rch_dev_win *w, int target, void *dst, size_t len, uint64_t toff,
                                struct rch_dev_rma_cmpl *c);
/* A get complete when the call returns, by the channel's single copy to a
 * rank of this node whose memory is not mapped here (Win_create): the MPI
 * layer reads a derived datatype's span a piece at a time and packs each
 * while it is in cache. RDMACH_AGAIN: the target is not reached that way
 * (use rch_dev_rma_get). */
rdmach_status_t rch_dev_rma_get_now(struct rch_dev_win *w, int target, void *dst, size_t len, uint64_t toff);
/* Accumulate (result NULL) or get-accumulate (result receives the previous
 * contents). len is a multiple of op->elem. */
rdmach_status_t rch_dev_rma_acc(struct rch_dev_win *w, int target, const void *src, void *result, size_t len,
                                uint64_t toff, const struct rch_dev_rma_op *op, struct rch_dev_rma_cmpl *c);
/* Compare-and-swap of one element of `elem` bytes. */
rdmach_status_t rch_dev_rma_cas(struct rch_dev_win *w, int target, const void *cmp, const void *src,
                                void *result, size_t elem, uint64_t toff, struct rch_dev_rma_cmpl *c);

/* ---- many blocks (rma_vec.c) ----
 * The target side of a derived datatype: `count` blocks of `blen` bytes at
 * off, off + stride, ... (offsets as toff above). One call takes a batch of
 * segments; the data (put, accumulate) and the results (get,
 * get-accumulate) are packed in block order. Blocks reach the target by the
 * path's memory access when mapped here or when they are large; small blocks
 * to other ranks travel many to a packet (PUTV/GETV/ACCV/GACCV), so a
 * vector of 16 M ints is a few thousand packets, not 16 M operations. */
struct rch_dev_rma_seg {
    uint64_t off;
    int64_t stride;
    uint64_t blen;
    uint64_t count;
};
enum rch_dev_rma_kind { RCH_DEV_RMA_PUT, RCH_DEV_RMA_GET, RCH_DEV_RMA_ACC, RCH_DEV_RMA_GACC };
/* op: the accumulate (ACC, GACC), else NULL. src, like a put's, must stay
 * unchanged until the operations are locally complete (c, or flush_local):
 * a packet may carry its data from there after the call returns. */
rdmach_status_t rch_dev_rma_vec(struct rch_dev_win *w, int target, enum rch_dev_rma_kind kind, const void *src,
                                void *dst, const struct rch_dev_rma_seg *segs, size_t nseg,
                                const struct rch_dev_rma_op *op, struct rch_dev_rma_cmpl *c);

/* Blocks that repeat: `reps` repetitions of nblk blocks (repetition r of
 * block k at blk[k].off + r * stride), their data packed at src in that
 * order (a struct's blocks element after element, the period of an indexed
 * type built from a pattern). To a target whose memory is not mapped here
 * they travel as PUTP/ACCP packets that carry the data in that order
 * (rma_pat.c), so the caller need not rearrange it into one segment per
 * block. src as for rch_dev_rma_vec. RDMACH_AGAIN: not such a target,
 * operation or map (use rch_dev_rma_vec). */
struct rch_dev_rma_pblock {
    uint64_t off;                /* offset from the target's window base */
    uint64_t blen;
};
rdmach_status_t rch_dev_rma_pattern(struct rch_dev_win *w, int target, enum rch_dev_rma_kind kind, const void *src,
                                    const struct rch_dev_rma_pblock *blk, size_t nblk, uint64_t reps, int64_t stride,
                                    const struct rch_dev_rma_op *op, struct rch_dev_rma_cmpl *c);

/* Does a get of many small blocks (rch_dev_rma_vec) from this target go as
 * GETW (rma_getw.c: a rank of this node that the channel reaches by single
 * copy, not a dynamic window), the target packing the blocks and writing
 * them into the origin's buffer itself? Then the blocks' walk beats reading
 * their whole span here. */
int rch_dev_rma_getw_ok(struct rch_dev_win *w, int target);
/* A get of blocks that repeat (as rch_dev_rma_pattern), packed into dst in
 * that order, by GETW. RDMACH_AGAIN: not that way. */
rdmach_status_t rch_dev_rma_getw_pattern(struct rch_dev_win *w, int target, void *dst,
                                         const struct rch_dev_rma_pblock *blk, size_t nblk, uint64_t reps,
                                         int64_t stride, struct rch_dev_rma_cmpl *c);

/* The target's window memory when it is mapped here (the DIRECT path, not
 * my own dynamic window): the address of its byte 0, else NULL (use the
 * calls above). Between this and rch_dev_rma_direct_end the caller reads or
 * writes that memory itself (a derived datatype in one pass of the datatype
 * engine instead of one block at a time); atomic: under the target's
 * accumulate lock, for accumulates. The caller has checked the bounds. */
unsigned char *rch_dev_rma_direct_begin(struct rch_dev_win *w, int target, int atomic);
void rch_dev_rma_direct_end(struct rch_dev_win *w, int target, int atomic);

/* ---- synchronisation (rma_sync.c); blocking calls progress while they wait ---- */
rdmach_status_t rch_dev_rma_lock(struct rch_dev_win *w, int target, int exclusive);
rdmach_status_t rch_dev_rma_unlock(struct rch_dev_win *w, int target);
rdmach_status_t rch_dev_rma_lock_all(struct rch_dev_win *w);
rdmach_status_t rch_dev_rma_unlock_all(struct rch_dev_win *w);
/* target -1: every target. local: local completion only. */
/* MPI_Win_sync: order this rank's loads and stores, and serve packets (rma_sync.c). */
void rch_dev_rma_sync(struct rch_dev_win *w);
rdmach_status_t rch_dev_rma_flush(struct rch_dev_win *w, int target, int local);
/* PSCW: POST to each origin; wait for a POST from each target; flush and
 * COMPLETE to each target; wait (or test: block 0) for a COMPLETE from each
 * of the n origins in ranks (PEER_DEAD if one of them fails meanwhile). */
rdmach_status_t rch_dev_rma_post(struct rch_dev_win *w, const int *ranks, int n);
rdmach_status_t rch_dev_rma_start(struct rch_dev_win *w, const int *ranks, int n);
rdmach_status_t rch_dev_rma_complete(struct rch_dev_win *w, const int *ranks, int n);
rdmach_status_t rch_dev_rma_wait(struct rch_dev_win *w, const int *ranks, int n, int block, int *done);
/* The error a target reported, if any (and forget it): RDMACH_OK or the status,
 * with rdmach_last_error() naming the target and the cause. */
rdmach_status_t rch_dev_rma_take_error(struct rch_dev_win *w);

#endif
