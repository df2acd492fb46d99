/*
 * The network fast path's ring on plain memory (no network): what the
 * receiver may and may not take for a message. "Placing" a slot copies the
 * sender's staging slot into the receive ring front to back, as an in-order
 * RDMA write (libfabric tcp, siw, rxe) does.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include "rdma/net/net_ring.h"

#define SLOT 256u
#define NSLOTS 8u

struct pair {
    unsigned char *ring;             /* the receiver's ring memory */
    unsigned char *stage;            /* the sender's staging slots */
    struct rch_net_ring_rx rx;
    struct rch_net_ring_tx tx;
};

static void pair_init(struct pair *p, uint32_t start_seq)
{
    p->ring = aligned_alloc(64, rch_net_ring_bytes(SLOT, NSLOTS));
    p->stage = aligned_alloc(64, (size_t)SLOT * NSLOTS);
    rch_net_ring_rx_init(&p->rx, p->ring, SLOT, NSLOTS);
    rch_net_ring_tx_init(&p->tx, p->stage, (uint64_t)(uintptr_t)p->ring, SLOT, NSLOTS);
    p->rx.seq = p->rx.returned = start_seq;
    p->tx.seq = p->tx.acked = start_seq;
}

static void pair_fini(struct pair *p)
{
    free(p->ring);
    free(p->stage);
}

/* Fill staging slot `seq` with `len` bytes of pattern `v`; returns bytes to write. */
static size_t stage(struct pair *p, uint32_t seq, size_t len, unsigned char v)
{
    unsigned char buf[SLOT];
    memset(buf, v, sizeof(buf));
    struct iovec iov = { buf, len };
    return rch_net_ring_fill(rch_net_ring_tx_slot(&p->tx, seq), seq, RCH_NET_SLOT_DATA, 0, &iov, 1, len);
}

/* Place bytes [from, to) of the staged slot into the ring. */
static void place(struct pair *p, uint32_t seq, size_t from, size_t to)
{
    unsigned char *dst = (unsigned char *)(uintptr_t)rch_net_ring_tx_raddr(&p->tx, seq);
    memcpy(dst + from, rch_net_ring_tx_slot(&p->tx, seq) + from, to - from);
}

static rdmach_status_t peek(struct pair *p, struct rch_net_slot_hdr *h, const unsigned char **pl)
{
    const char *why = NULL;
    return rch_net_ring_rx_peek(&p->rx, h, pl, &why);
}

Test(net_ring, a_slot_round_trips_at_every_size)
{
    struct pair p;
    pair_init(&p, 0);
    size_t max = rch_net_ring_payload_max(SLOT);
    cr_assert_eq(max, SLOT - 24);
    for (size_t len = 0; len <= max; len++) {
        uint32_t seq = p.tx.seq++;
        size_t n = stage(&p, seq, len, (unsigned char)(len + 1));
        cr_assert_leq(n, SLOT);
        place(&p, seq, 0, n);
        struct rch_net_slot_hdr h;
        const unsigned char *pl;
        cr_assert_eq(peek(&p, &h, &pl), RDMACH_OK, "len %zu", len);
        cr_assert_eq(h.len, len);
        for (size_t i = 0; i < len; i++)
            cr_assert_eq(pl[i], (unsigned char)(len + 1));
        rch_net_ring_rx_consume(&p.rx, &h);
        cr_assert_eq(peek(&p, &h, &pl), RDMACH_AGAIN, "an empty slot is never a message");
    }
    pair_fini(&p);
}

/* A gathering write of {headers, the payload from elsewhere, padding + tail}
 * (rch_net_ring_fill_gather, eager zero-copy) places the same slot as
 * rch_net_ring_fill's single write (headers, payload, tail at the same
 * offset; only the padding may differ): every header and payload size. */
Test(net_ring, a_gathered_slot_is_the_copied_slot)
{
    unsigned char hdr[40], payload[SLOT];
    for (size_t i = 0; i < sizeof(hdr); i++)
        hdr[i] = (unsigned char)(0x40 + i);
    for (size_t i = 0; i < sizeof(payload); i++)
        payload[i] = (unsigned char)(i * 7 + 1);
    unsigned char *copied = aligned_alloc(64, SLOT), *gathered = aligned_alloc(64, SLOT);
    unsigned char *placed = aligned_alloc(64, SLOT);
    for (size_t hl = 1; hl <= sizeof(hdr); hl += 7) {
        for (size_t len = 0; hl + len <= rch_net_ring_payload_max(SLOT); len++) {
            uint32_t seq = (uint32_t)(hl * 1000 + len);
            memset(copied, 0xee, SLOT);
            memset(gathered, 0xdd, SLOT);
            memset(placed, 0, SLOT);
            struct iovec iov[2] = { { hdr, hl }, { payload, len } };
            size_t bytes = rch_net_ring_fill(copied, seq, RCH_NET_SLOT_DATA, 77, iov, 2, hl + len);
            struct iovec v[3];
            rch_net_ring_fill_gather(gathered, seq, 77, hdr, hl, len, v);
            v[1] = (struct iovec){ payload, len };
            size_t off = 0;
            for (int k = 0; k < 3; k++) {   /* the write: its buffers back to back */
                cr_assert_leq(off + v[k].iov_len, SLOT);
                memcpy(placed + off, v[k].iov_base, v[k].iov_len);
                off += v[k].iov_len;
            }
            cr_assert_eq(off, bytes, "header %zu, payload %zu: %zu bytes gathered, %zu copied", hl, len, off, bytes);
            /* the same headers, payload and tail; the padding between (unspecified) may differ */
            size_t used = sizeof(struct rch_net_slot_hdr) + hl + len;
            cr_assert(memcmp(placed, copied, used) == 0, "header %zu, payload %zu: the slots differ", hl, len);
            cr_assert(memcmp(placed + bytes - sizeof(struct rch_net_slot_tail),
                             copied + bytes - sizeof(struct rch_net_slot_tail), sizeof(struct rch_net_slot_tail)) == 0,
                      "header %zu, payload %zu: the tails differ", hl, len);
            cr_assert_geq((unsigned char *)v[2].iov_base, gathered + v[0].iov_len,
                          "the tail is built over the headers");
        }
    }
    free(copied);
    free(gathered);
    free(placed);
}

Test(net_ring, a_partly_placed_slot_is_never_taken)
{
    struct pair p;
    pair_init(&p, 5);
    struct rch_net_slot_hdr h;
    const unsigned char *pl;
    size_t n = stage(&p, 5, 100, 0x77);
    for (size_t k = 0; k < n; k++) {
        place(&p, 5, k, k + 1);   /* one more byte placed */
        rdmach_status_t st = peek(&p, &h, &pl);
        if (k + 1 < n)
            cr_assert_eq(st, RDMACH_AGAIN, "taken with %zu of %zu bytes placed", k + 1, n);
        else
            cr_assert_eq(st, RDMACH_OK);
    }
    pair_fini(&p);
}

/*
 * The slot's previous message was long, and its payload holds, exactly where
 * the next (shorter) message's tail goes, the value of that tail marker. The
 * next message's header is placed, its payload not yet: the receiver must
 * not take it. It holds because a consumed slot is zeroed whole.
 */
Test(net_ring, a_stale_tail_is_never_accepted)
{
    struct pair p;
    pair_init(&p, 0);
    size_t long_len = 200, short_len = 40;
    uint32_t first = 3, next = first + NSLOTS;   /* same slot, one lap later */
    /* message `first`: its payload carries marker(next) at next's tail offset */
    unsigned char buf[SLOT];
    memset(buf, 0x11, sizeof(buf));
    uint32_t m = rch_net_marker(next);
    size_t tail_off = sizeof(struct rch_net_slot_hdr) + rch_net_pad8(short_len) + offsetof(struct rch_net_slot_tail, tail);
    memcpy(buf + tail_off - sizeof(struct rch_net_slot_hdr), &m, sizeof(m));
    for (uint32_t s = 0; s < first; s++) {         /* advance to slot `first` */
        size_t n = stage(&p, s, 1, 1);
        place(&p, s, 0, n);
        struct rch_net_slot_hdr h;
        const unsigned char *pl;
        cr_assert_eq(peek(&p, &h, &pl), RDMACH_OK);
        rch_net_ring_rx_consume(&p.rx, &h);
    }
    struct iovec iov = { buf, long_len };
    size_t n = rch_net_ring_fill(rch_net_ring_tx_slot(&p.tx, first), first, RCH_NET_SLOT_DATA, 0, &iov, 1, long_len);
    place(&p, first, 0, n);
    struct rch_net_slot_hdr h;
    const unsigned char *pl;
    cr_assert_eq(peek(&p, &h, &pl), RDMACH_OK);
    rch_net_ring_rx_consume(&p.rx, &h);
    /* the lap in between */
    for (uint32_t s = first + 1; s < next; s++) {
        size_t k = stage(&p, s, 9, 2);
        place(&p, s, 0, k);
        cr_assert_eq(peek(&p, &h, &pl), RDMACH_OK);
        rch_net_ring_rx_consume(&p.rx, &h);
    }
    /* message `next`: only its header has been placed */
    n = stage(&p, next, short_len, 0x22);
    place(&p, next, 0, sizeof(struct rch_net_slot_hdr));
    cr_assert_eq(peek(&p, &h, &pl), RDMACH_AGAIN, "an old payload was taken for the new message's tail");
    place(&p, next, sizeof(struct rch_net_slot_hdr), n);
    cr_assert_eq(peek(&p, &h, &pl), RDMACH_OK);
    cr_assert_eq(h.len, short_len);
    cr_assert_eq(pl[0], 0x22);
    pair_fini(&p);
}

Test(net_ring, an_old_lap_of_the_slot_is_not_the_current_message)
{
    struct pair p;
    pair_init(&p, 0);
    /* a copy of slot 0 as message 0 left it, written back one lap later */
    size_t n = stage(&p, 0, 16, 9);
    unsigned char old[SLOT];
    memcpy(old, rch_net_ring_tx_slot(&p.tx, 0), n);
    place(&p, 0, 0, n);
    struct rch_net_slot_hdr h;
    const unsigned char *pl;
    cr_assert_eq(peek(&p, &h, &pl), RDMACH_OK);
    rch_net_ring_rx_consume(&p.rx, &h);
    for (uint32_t s = 1; s < NSLOTS; s++) {
        size_t k = stage(&p, s, 3, 1);
        place(&p, s, 0, k);
        cr_assert_eq(peek(&p, &h, &pl), RDMACH_OK);
        rch_net_ring_rx_consume(&p.rx, &h);
    }
    memcpy(p.ring + sizeof(struct rch_net_ring_ctl), old, n);   /* a duplicate of message 0 */
    cr_assert_eq(peek(&p, &h, &pl), RDMACH_AGAIN, "message 0's bytes taken for message %u", NSLOTS);
    pair_fini(&p);
}

Test(net_ring, the_ring_wraps_across_two_to_the_32)
{
    struct pair p;
    pair_init(&p, UINT32_MAX - 20);
    for (int k = 0; k < 100; k++) {
        cr_assert(rch_net_ring_tx_room(&p.tx));
        uint32_t seq = p.tx.seq++;
        size_t n = stage(&p, seq, (size_t)k % 50, (unsigned char)k);
        place(&p, seq, 0, n);
        struct rch_net_slot_hdr h;
        const unsigned char *pl;
        cr_assert_eq(peek(&p, &h, &pl), RDMACH_OK, "message %d (seq %u)", k, seq);
        cr_assert_eq(h.len, (size_t)k % 50);
        rch_net_ring_rx_consume(&p.rx, &h);
        cr_assert_eq(rch_net_ring_tx_credit(&p.tx, p.rx.seq), RDMACH_OK);
    }
    cr_assert_eq(p.rx.seq, (uint32_t)(UINT32_MAX - 20 + 100));
    pair_fini(&p);
}

Test(net_ring, credits_bound_the_messages_in_flight)
{
    struct pair p;
    pair_init(&p, UINT32_MAX - 2);
    for (unsigned k = 0; k < NSLOTS; k++) {
        cr_assert(rch_net_ring_tx_room(&p.tx));
        p.tx.seq++;
    }
    cr_assert_not(rch_net_ring_tx_room(&p.tx), "more than a ring in flight");
    cr_assert_eq(rch_net_ring_tx_credit(&p.tx, p.tx.acked + 3), RDMACH_OK);
    cr_assert(rch_net_ring_tx_room(&p.tx));
    /* an old (smaller) count changes nothing; more than was sent is an error */
    cr_assert_eq(rch_net_ring_tx_credit(&p.tx, p.tx.acked - 2), RDMACH_OK);
    cr_assert_eq(p.tx.acked, (uint32_t)(UINT32_MAX - 2 + 3));
    cr_assert_eq(rch_net_ring_tx_credit(&p.tx, p.tx.seq + 1), RDMACH_ERR_PROTOCOL);
    pair_fini(&p);
}

Test(net_ring, a_malformed_header_is_reported_not_taken)
{
    struct pair p;
    pair_init(&p, 0);
    struct rch_net_slot_hdr h;
    const unsigned char *pl;
    const char *why = NULL;
    size_t n = stage(&p, 0, 8, 1);
    place(&p, 0, 0, n);
    struct rch_net_slot_hdr *raw = (struct rch_net_slot_hdr *)(p.ring + sizeof(struct rch_net_ring_ctl));
    raw->len = SLOT;   /* larger than a slot's payload */
    cr_assert_eq(rch_net_ring_rx_peek(&p.rx, &h, &pl, &why), RDMACH_ERR_PROTOCOL);
    cr_assert_not_null(why);
    raw->len = 8;
    raw->op = RCH_NET_SLOT_OP_MAX;
    cr_assert_eq(rch_net_ring_rx_peek(&p.rx, &h, &pl, &why), RDMACH_ERR_PROTOCOL);
    raw->op = RCH_NET_SLOT_DATA;
    raw->version = RCH_NET_VERSION + 1;
    cr_assert_eq(rch_net_ring_rx_peek(&p.rx, &h, &pl, &why), RDMACH_ERR_PROTOCOL);
    raw->version = RCH_NET_VERSION;
    cr_assert_eq(rch_net_ring_rx_peek(&p.rx, &h, &pl, &why), RDMACH_OK);
    pair_fini(&p);
}
