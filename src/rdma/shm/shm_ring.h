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
 *    record will start. So a record is only published once the cell just
 *    after it (where the consumer will look next) has had its stamp word
 *    cleared; the cells of the record itself are never read as stamps and
 *    need none. A record that reaches past the cleared window ("cleared"
 *    below: all of [tail, cleared) is clear) clears that one cell before its
 *    stamp, and after its stamp the free cells up to 64 beyond it, 2048
 *    while the producer streams: off the path from copy to stamp, and soon
 *    enough before the producer writes them that it still holds the lines
 *    then; runs of one-cell records take the fast path below inside that
 *    window. The record's own cells stay as
 *    they were (the copy writes them whole).
 *  - The consumer never writes into producer lines. It publishes its position
 *    (head) on its own line lazily: every quarter ring, and when it finds the
 *    ring empty with head lagging by more than `flush_gap` cells (so a
 *    producer waiting for room is never stuck behind an unpublished head).
 *    flush_gap is 0 unless the owner bounds its records
 *    (rch_shm_ring_rx_set_max_record): with records of at most k cells, a lag
 *    of up to ncells - 2k still leaves the producer room for any record, so a
 *    ping-pong does not write head once per message. The producer keeps a
 *    cached copy and re-reads head only when the ring looks full.
 *  - A record never wraps: if it does not fit before the end of the ring, a
 *    SKIP record covers the rest of the ring and the record starts at cell 0.
 *    Hence the largest record is half the ring (rch_shm_ring_max_payload).
 *  - `blocked` is the producer's word of flags: WAKE, "wake me when you free
 *    room", for a producer that is about to sleep on a full ring (the consumer
 *    reads it after each head publication; rch_shm_ring_release/peek tell the
 *    caller; pairing it with a store->load barrier is the caller's job); and
 *    ROOM, "I am short of room", set by the producer while a re-read of
 *    head finds no room, so an empty ring publishes head whatever flush_gap says (records
 *    larger than the consumer assumed cannot get stuck).
 *
 * The fast path (one small record, inline below) is: a few compares, a copy
 * without a libc call, one release store; on the consumer side one acquire
 * load of the line the record is in. A record of up to RCH_SHM_RING_INLINE
 * bytes is one line.
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

/* Flags in the producer's `blocked` word (see above). */
enum { RCH_SHM_BLOCKED_WAKE = 1u, RCH_SHM_BLOCKED_ROOM = 2u };

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
    uint64_t cleared;            /* cells in [tail, cleared) are free with their stamp cleared */
    uint32_t max_payload;
    uint32_t wake;               /* RCH_SHM_BLOCKED_WAKE as last set (mirror of the shared word) */
    uint32_t short_room;         /* RCH_SHM_BLOCKED_ROOM as last set */
    /* Records sent since the owner last heard from the consumer's side
     * (rch_shm_ring_heard), up to RCH_SHM_RING_RUN: there the producer
     * streams and clears stamps in long windows (shm_ring.c). */
    uint32_t run;
};
#define RCH_SHM_RING_RUN 8u

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
    uint64_t flush_gap;          /* found empty: publish only if head lags more (0: always) */
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

/* ---- the fast paths, inline (the latency case) ---- */

/* n <= RCH_SHM_RING_INLINE bytes without a libc call: overlapping word moves. */
static inline void rch_shm_copy_small(unsigned char *d, const unsigned char *s, size_t n)
{
    if (n >= 16) {
        uint64_t a[2], b[2], c[2];
        __builtin_memcpy(a, s, 16);
        if (n > 32)
            __builtin_memcpy(c, s + 16, 16);
        __builtin_memcpy(b, s + n - 16, 16);
        __builtin_memcpy(d, a, 16);
        if (n > 32)
            __builtin_memcpy(d + 16, c, 16);
        __builtin_memcpy(d + n - 16, b, 16);
    } else if (n >= 8) {
        uint64_t a, b;
        __builtin_memcpy(&a, s, 8);
        __builtin_memcpy(&b, s + n - 8, 8);
        __builtin_memcpy(d, &a, 8);
        __builtin_memcpy(d + n - 8, &b, 8);
    } else if (n >= 4) {
        uint32_t a, b;
        __builtin_memcpy(&a, s, 4);
        __builtin_memcpy(&b, s + n - 4, 4);
        __builtin_memcpy(d, &a, 4);
        __builtin_memcpy(d + n - 4, &b, 4);
    } else {
        for (size_t i = 0; i < n; i++)
            d[i] = s[i];
    }
}

/* Append a record of len <= RCH_SHM_RING_INLINE bytes (one cell; the caller
 * checked len and type) if the cleared window has room without re-reading
 * head. 1: published; 0: nothing written (use rch_shm_ring_send). */
static inline int rch_shm_ring_send_small(struct rch_shm_ring_tx *tx, uint32_t type, const struct iovec *iov,
                                          int iovcnt, size_t len)
{
    uint64_t t = tx->tail;
    if (__builtin_expect(t + 1 >= tx->cleared, 0))
        return 0;              /* the cell after it must be cleared first (rch_shm_ring_send) */
    struct rch_shm_rec *r = (struct rch_shm_rec *)(tx->cells + (t & tx->mask) * RCH_SHM_CELL);
    unsigned char *d = (unsigned char *)(r + 1);
    r->len = (uint32_t)len;
    r->type = type;
    for (int i = 0; i < iovcnt; i++) {
        rch_shm_copy_small(d, (const unsigned char *)iov[i].iov_base, iov[i].iov_len);
        d += iov[i].iov_len;
    }
    atomic_store_explicit(&r->stamp, t + 1, memory_order_release);
    tx->tail = t + 1;
    tx->run += tx->run < RCH_SHM_RING_RUN;
    return 1;
}

/* The consumer's side of tx sent us something: what tx carries is not a
 * stream. */
static inline void rch_shm_ring_heard(struct rch_shm_ring_tx *tx)
{
    tx->run = 0;
}

/* Publish head (store, then the caller's store->load pairing, then read
 * `blocked`). Returns 1 if the producer asked to be woken. */
int rch_shm_ring_publish(struct rch_shm_ring_rx *rx);

/* Records of at most max_len payload bytes will be sent in this ring: lets
 * the consumer publish head less often (flush_gap, see above). */
void rch_shm_ring_rx_set_max_record(struct rch_shm_ring_rx *rx, size_t max_len);

/* The record at the consumer's position:
 *   RDMACH_OK          *pkt, *len, *type describe it (valid until release)
 *   RDMACH_AGAIN       nothing there
 *   RDMACH_ERR_PROTOCOL the header is inconsistent (corruption): the ring is dead
 * SKIP records are consumed internally. peek twice without release returns the
 * same record. */
rdmach_status_t rch_shm_ring_peek(struct rch_shm_ring_rx *rx, const void **pkt, size_t *len,
                                  uint32_t *type);
/* rch_shm_ring_peek with its common case inline: a record (not SKIP) whose
 * header is sane; anything else goes through rch_shm_ring_peek. */
static inline rdmach_status_t rch_shm_ring_peek_fast(struct rch_shm_ring_rx *rx, const void **pkt, size_t *len,
                                                     uint32_t *type)
{
    uint64_t idx = rx->pos & rx->mask;
    struct rch_shm_rec *r = (struct rch_shm_rec *)(rx->cells + idx * RCH_SHM_CELL);
    if (atomic_load_explicit(&r->stamp, memory_order_acquire) != rx->pos + 1)
        return RDMACH_AGAIN;
    uint32_t l = r->len, t = r->type;
    uint64_t k = (RCH_SHM_REC_HDR + (uint64_t)l + RCH_SHM_CELL - 1) / RCH_SHM_CELL;
    if (__builtin_expect(t - 1u < RCH_SHM_REC_SKIP - 1u && l <= rx->max_payload && k <= rx->ncells - idx, 1)) {
        rx->cur_cells = k;
        *pkt = r + 1;
        *len = l;
        *type = t;
        return RDMACH_OK;
    }
    return rch_shm_ring_peek(rx, pkt, len, type);
}
/* Done with the record from peek. Returns 1 if head was published and the
 * producer has its `blocked` flag set (the caller should wake it). */
static inline int rch_shm_ring_release(struct rch_shm_ring_rx *rx)
{
    rx->pos += rx->cur_cells;
    rx->cur_cells = 0;
    if (rx->pos - rx->published >= rx->publish_every)
        return rch_shm_ring_publish(rx);
    return 0;
}
/* Publish head now if it lags at all. Returns 1 if published and the
 * producer is blocked. */
int rch_shm_ring_rx_flush(struct rch_shm_ring_rx *rx);
/* Is a record (other than SKIP-then-nothing) ready? Cheap; no side effect. */
static inline int rch_shm_ring_ready(const struct rch_shm_ring_rx *rx)
{
    const struct rch_shm_rec *r = (const struct rch_shm_rec *)(rx->cells + (rx->pos & rx->mask) * RCH_SHM_CELL);
    return atomic_load_explicit(&((struct rch_shm_rec *)r)->stamp, memory_order_acquire) == rx->pos + 1;
}
/* Would rch_shm_ring_rx_idle publish now? */
static inline int rch_shm_ring_rx_idle_due(const struct rch_shm_ring_rx *rx)
{
    uint64_t lag = rx->pos - rx->published;
    return lag > rx->flush_gap ||
           (lag && atomic_load_explicit(&((struct rch_shm_ring_ctl *)rx->ctl)->blocked, memory_order_relaxed) != 0);
}

/* The ring was found empty: publish head if it lags by more than flush_gap.
 * Returns 1 if published and the producer is blocked. */
static inline int rch_shm_ring_rx_idle(struct rch_shm_ring_rx *rx)
{
    if (__builtin_expect(rch_shm_ring_rx_idle_due(rx), 0))
        return rch_shm_ring_publish(rx);
    return 0;
}
/* The producer's "wake me" flag (see above): 1 or 0. */
static inline void rch_shm_ring_set_blocked(struct rch_shm_ring_tx *tx, uint32_t v)
{
    tx->wake = v ? RCH_SHM_BLOCKED_WAKE : 0;
    atomic_store_explicit(&tx->ctl->blocked, tx->wake | tx->short_room, memory_order_relaxed);
}
/* Is the producer's "wake me" flag set (as this producer last set it)? */
static inline int rch_shm_ring_wants_wake(const struct rch_shm_ring_tx *tx)
{
    return tx->wake != 0;
}

#endif
