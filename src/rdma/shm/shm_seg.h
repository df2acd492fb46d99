/*
 * Shared-memory segments: one per receiving rank, a file under /dev/shm
 * (mode 0600) named rdmach-<kvsname>-<rank>. The owner creates it; every local
 * rank that sends to the owner maps it; the last of the expected mappers
 * removes the name, so once every pair has connected a crash leaks nothing.
 * If the job dies before that, rdmachrun removes rdmach-<kvsname>-*; under
 * any launcher the next job's sweep (rch_shm_seg_sweep) removes segments
 * whose owner is gone.
 *
 * Also here: the wake-up side of blocking (futex in the wake line) and the
 * asymmetric store->load barrier that lets senders check "is the receiver
 * asleep?" with a plain load (membarrier on the sleeper's side).
 */
#ifndef RCH_RDMA_SHM_SEG_H
#define RCH_RDMA_SHM_SEG_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "rdmach.h"
#include "rdma/shm/shm_proto.h"

#define RCH_SHM_NAME_MAX 255

/* A mapping of one segment (ours or a peer's). */
struct rch_shm_seg {
    unsigned char *base;
    size_t size;
    struct rch_shm_seg_hdr *hdr;
    struct rch_shm_wake *wake;
    int fd;                          /* kept to reserve pipe pages (posix_fallocate) */
    int owner;                       /* we created it */
    char name[RCH_SHM_NAME_MAX + 1]; /* shm_open name, with the leading '/' */
};

struct rch_shm_geom {
    uint32_t nslots;
    uint64_t ring_cells;
    uint64_t pipe_chunk;
};

/* "/rdmach-<kvsname>-<rank>", kvsname with anything but [A-Za-z0-9._-]
 * replaced by '_'. INVALID_ARG if it does not fit. */
rdmach_status_t rch_shm_seg_name(char *out, size_t len, const char *kvsname, int rank);

/* Create, size, map and initialize. maps_expected counts the owner. */
rdmach_status_t rch_shm_seg_create(struct rch_shm_seg *seg, const char *name,
                                   const struct rch_shm_geom *geom, int owner_rank,
                                   int maps_expected, uint32_t flags);
/* Map a peer's segment and check it is the one of (rank, pid); counts this
 * mapping and removes the name if we are the last expected mapper. */
rdmach_status_t rch_shm_seg_attach(struct rch_shm_seg *seg, const char *name, int rank, pid_t pid);
/* Reserve (allocate) the ring of `slot` and the page after it (pipe
 * control), for its sender's first record. */
rdmach_status_t rch_shm_seg_reserve_ring(struct rch_shm_seg *seg, uint32_t slot);
/* Reserve (allocate) the pipe buffers of `slot`, so a full /dev/shm is an
 * error rather than a SIGBUS. */
rdmach_status_t rch_shm_seg_reserve_pipe(struct rch_shm_seg *seg, uint32_t slot);
/* Remove the segments under /dev/shm that a killed job left: every
 * "rdmach-*" file of ours (same user) holding a channel segment header whose
 * owner ran in our pid namespace and is gone. Their names outlive a job that
 * dies before every local rank mapped them (a rank killed during MPI_Init),
 * whatever the launcher; rdmachrun also removes its jobs' files at the end.
 * The channel sweeps when it opens and when it closes, on the node's first
 * local rank. Returns the number removed. */
unsigned rch_shm_seg_sweep(void);
/* The inode of our pid namespace, 0 if unknown. */
unsigned long long rch_shm_pid_namespace(void);
/* A mapped peer's segment: is its owner's life lock still held (shm_proto.h,
 * the life line)? 0 once the thread that created it ended, or the owner
 * closed. One load: no system call. */
int rch_shm_seg_owner_alive(const struct rch_shm_seg *seg);

/* Unmap; the owner also removes the name if it is still there. */
void rch_shm_seg_detach(struct rch_shm_seg *seg);
/* Remove the name if nobody has yet (idempotent across processes). */
void rch_shm_seg_unlink(struct rch_shm_seg *seg);

static inline void *rch_shm_seg_ring(const struct rch_shm_seg *seg, uint32_t slot)
{
    return seg->base + seg->hdr->slot_off + (uint64_t)slot * seg->hdr->slot_stride;
}
static inline struct rch_shm_pipe_ctl *rch_shm_seg_pipe(const struct rch_shm_seg *seg, uint32_t slot)
{
    return (struct rch_shm_pipe_ctl *)((unsigned char *)rch_shm_seg_ring(seg, slot) + seg->hdr->pipe_off);
}
static inline unsigned char *rch_shm_seg_pipe_buf(const struct rch_shm_seg *seg, uint32_t slot, uint32_t b)
{
    return (unsigned char *)rch_shm_seg_pipe(seg, slot) + RCH_SHM_PAGE + (uint64_t)b * seg->hdr->pipe_chunk;
}

/* The doorbell of a segment (shm_proto.h). */
static inline struct rch_shm_bell *rch_shm_seg_bell(const struct rch_shm_seg *seg)
{
    return (struct rch_shm_bell *)(seg->base + RCH_SHM_SEG_BELL_OFF);
}
/* The sender of `slot` rings: after its ring is reserved, before its first
 * record. Bit first, count last (release): whoever sees the count sees the bit. */
static inline void rch_shm_seg_ring_bell(const struct rch_shm_seg *seg, uint32_t slot)
{
    struct rch_shm_bell *b = rch_shm_seg_bell(seg);
    atomic_fetch_or_explicit(&b->bits[slot / 64], UINT64_C(1) << (slot % 64), memory_order_relaxed);
    atomic_fetch_add_explicit(&b->count, 1, memory_order_release);
}

/* ---- blocking ---- */

/* Once per process: register for membarrier. Returns 1 if this process's fast
 * path must use a full fence instead (membarrier unavailable). */
int rch_shm_barrier_init(void);
/* The sleeper's half of the store->load barrier: membarrier (an IPI to every
 * CPU running a registered process), or only a fence when the senders fence
 * themselves (use_membarrier 0). */
void rch_shm_heavy_barrier(int use_membarrier);
/* Wake the owner of `w` (bump the futex word and FUTEX_WAKE, shared futex). */
void rch_shm_wake(struct rch_shm_wake *w);
/* Flags of rch_shm_notify (a peer's `fence` field). */
enum {
    RCH_SHM_NOTIFY_FENCE   = 1,   /* this process cannot rely on the sleeper's membarrier */
    RCH_SHM_NOTIFY_PENDING = 2,   /* oversubscribed node: raise the owner's `pending` flag */
};

/* After publishing something the owner of `w` polls: tell the ranks that
 * share its core that it has work (PENDING), wake it if it armed its wait
 * on the futex. Returns how it sleeps (RCH_SHM_SLEEP_*), 0 if it does not:
 * RCH_SHM_SLEEP_FD is the caller's to wake (rch_shm_notify_peer, shm.h). */
static inline uint32_t rch_shm_notify(struct rch_shm_wake *w, int flags)
{
    if ((flags & RCH_SHM_NOTIFY_PENDING) && atomic_load_explicit(&w->pending, memory_order_relaxed) == 0)
        atomic_store_explicit(&w->pending, 1, memory_order_release);
    if (flags & RCH_SHM_NOTIFY_FENCE)
        atomic_thread_fence(memory_order_seq_cst);
    else
        atomic_signal_fence(memory_order_seq_cst);
    uint32_t s = atomic_load_explicit(&w->sleeping, memory_order_relaxed);
    if (__builtin_expect(s == RCH_SHM_SLEEP_FUTEX, 0))
        rch_shm_wake(w);
    return s;
}

#endif
