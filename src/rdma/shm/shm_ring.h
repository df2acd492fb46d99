/*
 * A single-producer / single-consumer ring of cache-line cells in shared
 * memory: the eager path of the shared-memory channel. It is a plain data
 * structure (no channel, no segment), so it can be unit-tested in one process.
 *
 * Memory (rch_shm_ring_bytes(ncells), zero-filled before first use):
 *
 *   [ consumer line: head ]  [ producer line: blocked ]  [ cell 0 ] ... [ cell ncells-1 ]
 *        128 B                     128 B                     64 B each
 *
 * Positions are 64-bit counters that never wrap in practice; the cell of
 * position p is p & (ncells-1). A record starts at a cell boundary:
 *
 *   cell p:   | stamp (8) | len (4) | type (4) | payload ...               |
 *   cell p+1: | ... payload continues, contiguous ...                       |
 *
 * Invariants that make it safe without locks:
 *  - The producer writes the header and payload with plain stores, then the
 *    stamp = p + 1 with release semantics. The consumer at position p takes a
 *    record only if it loads (acquire) exactly p + 1. Stamps of older laps are
 *    p + 1 - k*ncells, never equal: a stale record is never taken.
 *  - Payload bytes of an older lap could, by chance, hold p + 1 where a new
 *    record will start. So the producer clears the stamp word of every cell the
 *    consumer frees before reusing it ("cleared" below), and a record is only
 *    published once the cell just after it (where the consumer will look next)
 *    has been cleared. Clearing is done in batches when the producer refreshes
 *    its view of head, off the per-message path.
 *  - The consumer never writes into producer lines. It publishes its position
 *    (head) on its own line lazily: every quarter ring, and when it finds the
 *    ring empty (so a producer waiting for room is never stuck behind an
 *    unpublished head). The producer keeps a cached copy and re-reads head only
 *    when the ring looks full.
 *  - A record never wraps: if it does not fit before the end of the ring, a
 *    SKIP record covers the rest of the ring and the record starts at cell 0.
 *    Hence the largest record is half the ring (rch_shm_ring_max_payload).
 *  - `blocked` is the producer's "wake me when you free room" flag, for a
 *    producer that is about to sleep on a full ring; the consumer reads it
 *    after each head publication (rch_shm_ring_rx_release/peek tell the
 *    caller). Pairing it with a store->load barrier is the caller's job.
 *
 * The fast path (one small record) is: a few compares, one memcpy per iovec,
 * one release store; on the consumer side one acquire load of the line the
 * record is in. A record of up to RCH_SHM_RING_INLINE bytes is one line.
 */
#ifndef RCH_RDMA_SHM_RING_H
#define RCH_RDMA_SHM_RING_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>
#include "rdmach.h"

#define RCH_SHM_CELL        64u
#define RCH_SHM_RING_LINE   128u    /* control lines are padded to two cells (adjacent-line prefetch) */
#define RCH_SHM_REC_HDR     16u
#define RCH_SHM_RING_INLINE (RCH_SHM_CELL - RCH_SHM_REC_HDR)   /* 48 B in one line */
#define RCH_SHM_RING_MIN_CELLS 64u

/* Record types. 0 is never valid (zeroed memory); SKIP is the ring's own. */
enum { RCH_SHM_REC_SKIP = 0xffffu };

struct rch_shm_rec {
    _Atomic uint64_t stamp;      /* position + 1; written last (release) */
    uint32_t len;                /* payload bytes (SKIP: bytes covered - header) */
    uint32_t type;               /* caller's type (1..0xfffe) or RCH_SHM_REC_SKIP */
};
_Static_assert(sizeof(struct rch_shm_rec) == RCH_SHM_REC_HDR, "record header is 16 bytes");

/* The shared control lines; cells follow at RCH_SHM_RING_CELLS_OFF. */
struct rch_shm_ring_ctl {
    _Alignas(RCH_SHM_RING_LINE) _Atomic uint64_t head;     /* consumer-written */
    _Alignas(RCH_SHM_RING_LINE) _Atomic uint32_t blocked;  /* producer-written */
};
#define RCH_SHM_RING_CELLS_OFF (2 * RCH_SHM_RING_LINE)
_Static_assert(sizeof(struct rch_shm_ring_ctl) == RCH_SHM_RING_CELLS_OFF, "control lines");

/* Producer-private state. */
struct rch_shm_ring_tx {
    struct rch_shm_ring_ctl *ctl;
    unsigned char *cells;
    uint64_t mask;
    uint64_t ncells;
    uint64_t tail;               /* next position to write */
    uint64_t head_cache;         /* last head read from ctl */
    uint64_t cleared;            /* cells before this position are cleared and free */
    uint32_t max_payload;
};

/* Consumer-private state. */
struct rch_shm_ring_rx {
    struct rch_shm_ring_ctl *ctl;
    unsigned char *cells;
    uint64_t mask;
    uint64_t ncells;
    uint64_t pos;                /* next position to read */
    uint64_t cur_cells;          /* cells of the record returned by peek, 0 if none */
    uint64_t published;          /* last value stored to ctl->head */
    uint64_t publish_every;      /* ncells / 4 */
    uint32_t max_payload;
    int fence;                   /* full fence between publishing head and reading `blocked`
                                  * (when the producer side cannot use membarrier) */
};

/* ncells rounded up to a power of two, at least RCH_SHM_RING_MIN_CELLS, for a
 * ring of about `bytes` bytes of cells. */
uint64_t rch_shm_ring_cells_for(size_t bytes);
size_t   rch_shm_ring_bytes(uint64_t ncells);
/* Largest payload of one record in a ring of ncells cells. */
uint32_t rch_shm_ring_max_payload(uint64_t ncells);

/* Attach to zero-filled ring memory `mem` (RCH_SHM_CELL-aligned); ncells must
 * be a power of two >= RCH_SHM_RING_MIN_CELLS. INVALID_ARG otherwise. */
rdmach_status_t rch_shm_ring_tx_init(struct rch_shm_ring_tx *tx, void *mem, uint64_t ncells);
rdmach_status_t rch_shm_ring_rx_init(struct rch_shm_ring_rx *rx, void *mem, uint64_t ncells);

/* Append one record of type `type` whose payload is the concatenation of iov.
 * OK: published. AGAIN: no room now (nothing written). INVALID_ARG: type out of
 * range or payload larger than max_payload. */
rdmach_status_t rch_shm_ring_send(struct rch_shm_ring_tx *tx, uint32_t type,
                                  const struct iovec *iov, int iovcnt);
/* Would a record of `len` payload bytes fit now (re-reads head if needed)? */
int rch_shm_ring_has_room(struct rch_shm_ring_tx *tx, size_t len);
/* Total payload bytes of an iovec. */
static inline size_t rch_shm_iov_len(const struct iovec *iov, int iovcnt)
{
    size_t n = 0;
    for (int i = 0; i < iovcnt; i++)
        n += iov[i].iov_len;
    return n;
}

/* The record at the consumer's position:
 *   RDMACH_OK          *pkt, *len, *type describe it (valid until release)
 *   RDMACH_AGAIN       nothing there
 *   RDMACH_ERR_PROTOCOL the header is inconsistent (corruption): the ring is dead
 * SKIP records are consumed internally. peek twice without release returns the
 * same record. */
rdmach_status_t rch_shm_ring_peek(struct rch_shm_ring_rx *rx, const void **pkt, size_t *len,
                                  uint32_t *type);
/* Done with the record from peek. Returns 1 if head was published and the
 * producer has its `blocked` flag set (the caller should wake it). */
int rch_shm_ring_release(struct rch_shm_ring_rx *rx);
/* Publish head now if it lags (used when the ring is found empty). Returns 1
 * if published and the producer is blocked. */
int rch_shm_ring_rx_flush(struct rch_shm_ring_rx *rx);
/* Is a record (other than SKIP-then-nothing) ready? Cheap; no side effect. */
int rch_shm_ring_ready(const struct rch_shm_ring_rx *rx);

/* The producer's "wake me" flag (see above). */
static inline void rch_shm_ring_set_blocked(struct rch_shm_ring_tx *tx, uint32_t v)
{
    atomic_store_explicit(&tx->ctl->blocked, v, memory_order_relaxed);
}

#endif
