/* The single-producer / single-consumer ring (see shm_ring.h for the layout
 * and the invariants). */
#include <string.h>
#include "base/base.h"
#include "rdma/shm/shm_ring.h"

static inline uint64_t cells_of(uint64_t len)
{
    return (RCH_SHM_REC_HDR + len + RCH_SHM_CELL - 1) / RCH_SHM_CELL;
}

static inline struct rch_shm_rec *rec_at(unsigned char *cells, uint64_t idx)
{
    return (struct rch_shm_rec *)(cells + idx * RCH_SHM_CELL);
}

uint64_t rch_shm_ring_cells_for(size_t bytes)
{
    uint64_t n = RCH_SHM_RING_MIN_CELLS;
    while (n * RCH_SHM_CELL < bytes && n < (UINT64_C(1) << 40))
        n <<= 1;
    return n;
}

size_t rch_shm_ring_bytes(uint64_t ncells)
{
    return RCH_SHM_RING_CELLS_OFF + (size_t)ncells * RCH_SHM_CELL;
}

/* A record of k cells needs, in the worst case, k-1 cells of SKIP before it
 * and one cleared cell after it, inside a window of ncells: 2k <= ncells. */
uint32_t rch_shm_ring_max_payload(uint64_t ncells)
{
    uint64_t m = (ncells / 2) * RCH_SHM_CELL - RCH_SHM_REC_HDR;
    return m > UINT32_MAX / 2 ? UINT32_MAX / 2 : (uint32_t)m;
}

static rdmach_status_t check_geometry(void *mem, uint64_t ncells)
{
    if (!mem || ((uintptr_t)mem % RCH_SHM_CELL) != 0)
        return rch_base_err(RDMACH_ERR_INVALID_ARG, "shm ring: memory %p is not %u-byte aligned",
                            mem, RCH_SHM_CELL);
    if (ncells < RCH_SHM_RING_MIN_CELLS || (ncells & (ncells - 1)) != 0)
        return rch_base_err(RDMACH_ERR_INVALID_ARG,
                            "shm ring: %llu cells is not a power of two >= %u",
                            (unsigned long long)ncells, RCH_SHM_RING_MIN_CELLS);
    return RDMACH_OK;
}

rdmach_status_t rch_shm_ring_tx_init(struct rch_shm_ring_tx *tx, void *mem, uint64_t ncells)
{
    rdmach_status_t st = check_geometry(mem, ncells);
    if (st != RDMACH_OK)
        return st;
    memset(tx, 0, sizeof(*tx));
    tx->ctl = mem;
    tx->cells = (unsigned char *)mem + RCH_SHM_RING_CELLS_OFF;
    tx->ncells = ncells;
    tx->mask = ncells - 1;
    tx->cleared = ncells;          /* zero-filled memory: every stamp is 0 */
    tx->max_payload = rch_shm_ring_max_payload(ncells);
    return RDMACH_OK;
}

rdmach_status_t rch_shm_ring_rx_init(struct rch_shm_ring_rx *rx, void *mem, uint64_t ncells)
{
    rdmach_status_t st = check_geometry(mem, ncells);
    if (st != RDMACH_OK)
        return st;
    memset(rx, 0, sizeof(*rx));
    rx->ctl = mem;
    rx->cells = (unsigned char *)mem + RCH_SHM_RING_CELLS_OFF;
    rx->ncells = ncells;
    rx->mask = ncells - 1;
    rx->publish_every = ncells / 4;
    rx->max_payload = rch_shm_ring_max_payload(ncells);
    return RDMACH_OK;
}

/* How far ahead of a record the producer clears stamps once it has
 * published it (see shm_ring.h), by what the producer is doing: each line is
 * taken from the consumer shortly before the producer fills it and is still
 * in the producer's cache then, and the stores leave the path from one
 * message's copy to its stamp. While it streams (RCH_SHM_RING_RUN records
 * or more in a row with nothing heard from the consumer's side), windows of
 * 2048 cells: the stores of a window go out at full speed, ahead of the
 * copies (64: streaming 8-16 KiB 40-60% slower, 8192: the lines leave the
 * producer's L2 again before the copy). Otherwise (ping-pong, exchange, a
 * message per peer of an alltoall) 64 cells: a window's stores were on the
 * way to the answer, and its lines left L1 before the copy; 1-16 KiB
 * exchanges 10-33% faster than with 2048 (docs/PERFORMANCE.md). */
#define CLEAR_AHEAD_STREAM 2048u
#define CLEAR_AHEAD_NEAR 64u

/* Is position `end` free (before head + ncells)? Re-reads head if the cached
 * one says no, and keeps the ROOM flag (see shm_ring.h) true to the answer. */
static int room_for(struct rch_shm_ring_tx *tx, uint64_t end)
{
    if (RCH_LIKELY(end < tx->head_cache + tx->ncells && !tx->short_room))
        return 1;
    uint64_t h = atomic_load_explicit(&tx->ctl->head, memory_order_acquire);
    /* A head outside [head_cache, tail] can only come from a corrupted ring:
     * ignore it rather than overwrite cells the consumer may still read. */
    if (h > tx->head_cache && h <= tx->tail)
        tx->head_cache = h;
    /* ROOM tells a consumer that finds its ring empty to publish head even
     * within its flush_gap. */
    uint32_t room = end < tx->head_cache + tx->ncells ? 0 : RCH_SHM_BLOCKED_ROOM;
    if (room != tx->short_room) {
        tx->short_room = room;
        atomic_store_explicit(&tx->ctl->blocked, tx->wake | room, memory_order_relaxed);
    }
    return !room;
}

/* Clear the stamps of the free cells [max(cleared, from), to) (the caller
 * checked that `to - 1` is free). */
static void clear_cells(struct rch_shm_ring_tx *tx, uint64_t from, uint64_t to)
{
    for (uint64_t p = from > tx->cleared ? from : tx->cleared; p < to; p++)
        atomic_store_explicit(&rec_at(tx->cells, p & tx->mask)->stamp, 0, memory_order_relaxed);
    if (to > tx->cleared)
        tx->cleared = to;
}

/* Room for a record whose last cell is end - 1, with the cell `end` (where
 * the consumer looks next) cleared. Returns 0 (no room), or 1, or 2 when the
 * cleared window ran out and clear_ahead should follow the record. */
static int make_room(struct rch_shm_ring_tx *tx, uint64_t end)
{
    if (end < tx->cleared)
        return 1;
    if (!room_for(tx, end))
        return 0;
    clear_cells(tx, end, end + 1);
    return 2;
}

/* After a record that ended at `end` is published: the free cells up to
 * CLEAR_AHEAD beyond it, off the path from the record's copy to its stamp. */
static void clear_ahead(struct rch_shm_ring_tx *tx, uint64_t end)
{
    uint64_t limit = tx->head_cache + tx->ncells;
    uint64_t ahead = tx->run >= RCH_SHM_RING_RUN ? CLEAR_AHEAD_STREAM : CLEAR_AHEAD_NEAR;
    clear_cells(tx, end + 1, end + 1 + ahead < limit ? end + 1 + ahead : limit);
}

int rch_shm_ring_has_room(struct rch_shm_ring_tx *tx, size_t len)
{
    if (len > tx->max_payload)
        return 0;
    uint64_t k = cells_of(len);
    uint64_t idx = tx->tail & tx->mask;
    uint64_t skip = idx + k > tx->ncells ? tx->ncells - idx : 0;
    uint64_t end = tx->tail + skip + k;
    return end < tx->cleared || room_for(tx, end);
}

rdmach_status_t rch_shm_ring_send(struct rch_shm_ring_tx *tx, uint32_t type,
                                  const struct iovec *iov, int iovcnt)
{
    size_t len = rch_shm_iov_len(iov, iovcnt);
    if (RCH_UNLIKELY(len > tx->max_payload || type == 0 || type >= RCH_SHM_REC_SKIP))
        return rch_base_err(RDMACH_ERR_INVALID_ARG,
                            "shm ring: record of %zu bytes, type %u (max %u bytes, types 1..%u)",
                            len, type, tx->max_payload, RCH_SHM_REC_SKIP - 1);
    uint64_t k = cells_of(len);
    uint64_t idx = tx->tail & tx->mask;
    uint64_t skip = idx + k > tx->ncells ? tx->ncells - idx : 0;
    uint64_t end = tx->tail + skip + k;
    int room = make_room(tx, end);
    if (RCH_UNLIKELY(!room))
        return RDMACH_AGAIN;

    if (RCH_UNLIKELY(skip)) {
        struct rch_shm_rec *s = rec_at(tx->cells, idx);
        s->len = (uint32_t)(skip * RCH_SHM_CELL - RCH_SHM_REC_HDR);
        s->type = RCH_SHM_REC_SKIP;
        atomic_store_explicit(&s->stamp, tx->tail + 1, memory_order_release);
        tx->tail += skip;
        idx = 0;
    }
    struct rch_shm_rec *r = rec_at(tx->cells, idx);
    r->len = (uint32_t)len;
    r->type = type;
    unsigned char *d = (unsigned char *)(r + 1);
    for (int i = 0; i < iovcnt; i++) {
        rch_base_copy_lines(d, iov[i].iov_base, iov[i].iov_len);   /* not rep movsb (base/copy.c) */
        d += iov[i].iov_len;
    }
    atomic_store_explicit(&r->stamp, tx->tail + 1, memory_order_release);
    tx->tail += k;
    tx->run += tx->run < RCH_SHM_RING_RUN;
    if (room == 2)
        clear_ahead(tx, end);
    return RDMACH_OK;
}

int rch_shm_ring_publish(struct rch_shm_ring_rx *rx)
{
    atomic_store_explicit(&rx->ctl->head, rx->pos, memory_order_release);
    rx->published = rx->pos;
    /* store head -> load blocked: the producer pairs this with a heavy barrier
     * (membarrier) before it sleeps; without membarrier we need a full fence. */
    if (rx->fence)
        atomic_thread_fence(memory_order_seq_cst);
    else
        atomic_signal_fence(memory_order_seq_cst);
    return (atomic_load_explicit(&rx->ctl->blocked, memory_order_relaxed) & RCH_SHM_BLOCKED_WAKE) != 0;
}

void rch_shm_ring_rx_set_max_record(struct rch_shm_ring_rx *rx, size_t max_len)
{
    /* A record of k cells needs skip (<= k-1) + k + 1 cleared cells before the
     * producer's tail: with head lagging at most ncells - 2k behind an empty
     * ring's position, every record still fits. */
    uint64_t k = cells_of(max_len);
    rx->flush_gap = 2 * k <= rx->ncells ? rx->ncells - 2 * k : 0;
}

rdmach_status_t rch_shm_ring_peek(struct rch_shm_ring_rx *rx, const void **pkt, size_t *len,
                                  uint32_t *type)
{
    for (int pass = 0; pass < 2; pass++) {
        uint64_t idx = rx->pos & rx->mask;
        struct rch_shm_rec *r = rec_at(rx->cells, idx);
        if (atomic_load_explicit(&r->stamp, memory_order_acquire) != rx->pos + 1)
            return RDMACH_AGAIN;
        uint32_t l = r->len, t = r->type;
        uint64_t k = cells_of(l);
        if (t == RCH_SHM_REC_SKIP) {
            /* a SKIP always runs to the end of the ring */
            if (k != rx->ncells - idx || idx == 0)
                break;
            rx->pos += k;
            if (rx->pos - rx->published >= rx->publish_every)
                (void)rch_shm_ring_publish(rx);      /* the record after it will publish again if blocked */
            continue;
        }
        if (RCH_UNLIKELY(t == 0 || l > rx->max_payload || k > rx->ncells - idx))
            break;
        rx->cur_cells = k;
        *pkt = r + 1;
        *len = l;
        *type = t;
        return RDMACH_OK;
    }
    return rch_base_err(RDMACH_ERR_PROTOCOL,
                        "shm ring: corrupt record at position %llu (ring of %llu cells)",
                        (unsigned long long)rx->pos, (unsigned long long)rx->ncells);
}

int rch_shm_ring_rx_flush(struct rch_shm_ring_rx *rx)
{
    if (rx->pos == rx->published)
        return 0;
    return rch_shm_ring_publish(rx);
}
