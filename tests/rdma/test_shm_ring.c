/*
 * The shared-memory ring as a standalone data structure: wrap-around with
 * records of every size, back-pressure, stale and forged stamps, corruption,
 * and a producer and a consumer in two threads and in two processes moving
 * 1e6 records in order with checksums.
 */
#include <criterion/criterion.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include "base/base.h"
#include "rdma/shm/shm_ring.h"

struct ring {
    void *mem;
    uint64_t ncells;
    struct rch_shm_ring_tx tx;
    struct rch_shm_ring_rx rx;
};

static void ring_make(struct ring *r, uint64_t ncells, int shared)
{
    size_t bytes = rch_shm_ring_bytes(ncells);
    if (shared) {
        r->mem = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        cr_assert_neq(r->mem, MAP_FAILED);
    } else {
        r->mem = aligned_alloc(RCH_SHM_CELL, bytes);
        cr_assert_not_null(r->mem);
        memset(r->mem, 0, bytes);
    }
    r->ncells = ncells;
    cr_assert_eq(rch_shm_ring_tx_init(&r->tx, r->mem, ncells), RDMACH_OK);
    cr_assert_eq(rch_shm_ring_rx_init(&r->rx, r->mem, ncells), RDMACH_OK);
}

static void fill(unsigned char *p, size_t n, uint64_t seed)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)(seed * 131 + i * 7 + (i >> 8));
}

static int check(const unsigned char *p, size_t n, uint64_t seed)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != (unsigned char)(seed * 131 + i * 7 + (i >> 8)))
            return 0;
    return 1;
}

/* Send a record of `len` bytes whose content derives from seq, split over two iovecs. */
static rdmach_status_t send_seq(struct ring *r, uint64_t seq, size_t len, unsigned char *scratch)
{
    fill(scratch, len, seq);
    size_t cut = len / 3;
    struct iovec iov[2] = { { scratch, cut }, { scratch + cut, len - cut } };
    return rch_shm_ring_send(&r->tx, 1 + (uint32_t)(seq % 7), iov, 2);
}

/* Take one record and check it is seq with len bytes. 1: ok, 0: none yet. */
static int recv_seq(struct ring *r, uint64_t seq, size_t len)
{
    const void *pkt;
    size_t got;
    uint32_t type;
    rdmach_status_t st = rch_shm_ring_peek(&r->rx, &pkt, &got, &type);
    if (st == RDMACH_AGAIN) {
        rch_shm_ring_rx_flush(&r->rx);
        return 0;
    }
    cr_assert_eq(st, RDMACH_OK, "peek: %s", rdmach_last_error());
    cr_assert_eq(got, len, "record %llu: %zu bytes, expected %zu", (unsigned long long)seq, got, len);
    cr_assert_eq(type, 1 + (uint32_t)(seq % 7));
    cr_assert(check(pkt, len, seq), "record %llu: payload corrupted", (unsigned long long)seq);
    cr_assert_eq(((uintptr_t)pkt) % 16, 0, "payload is 16-byte aligned");
    rch_shm_ring_release(&r->rx);
    return 1;
}

Test(shm_ring, geometry_and_bad_arguments)
{
    cr_assert_eq(rch_shm_ring_cells_for(0), RCH_SHM_RING_MIN_CELLS);
    cr_assert_eq(rch_shm_ring_cells_for(64 * 1024), 1024);
    cr_assert_eq(rch_shm_ring_cells_for(64 * 1024 + 1), 2048);
    cr_assert_eq(rch_shm_ring_max_payload(1024), 512 * 64 - 16);
    cr_assert_eq(RCH_SHM_RING_INLINE, 48, "8 B message + 24 B device header fit one line with the stamp");

    struct rch_shm_ring_tx tx;
    void *mem = aligned_alloc(64, rch_shm_ring_bytes(128));
    memset(mem, 0, rch_shm_ring_bytes(128));
    cr_assert_eq(rch_shm_ring_tx_init(&tx, mem, 100), RDMACH_ERR_INVALID_ARG);
    cr_assert(strstr(rdmach_last_error(), "power of two"), "%s", rdmach_last_error());
    cr_assert_eq(rch_shm_ring_tx_init(&tx, (char *)mem + 8, 128), RDMACH_ERR_INVALID_ARG);
    cr_assert_eq(rch_shm_ring_tx_init(&tx, mem, 32), RDMACH_ERR_INVALID_ARG);
    cr_assert_eq(rch_shm_ring_tx_init(&tx, mem, 128), RDMACH_OK);

    unsigned char big[rch_shm_ring_max_payload(128) + 1];
    struct iovec iov = { big, sizeof(big) };
    cr_assert_eq(rch_shm_ring_send(&tx, 1, &iov, 1), RDMACH_ERR_INVALID_ARG, "payload above the maximum");
    iov.iov_len = 8;
    cr_assert_eq(rch_shm_ring_send(&tx, 0, &iov, 1), RDMACH_ERR_INVALID_ARG, "type 0 is reserved");
    cr_assert_eq(rch_shm_ring_send(&tx, RCH_SHM_REC_SKIP, &iov, 1), RDMACH_ERR_INVALID_ARG, "SKIP is reserved");
    free(mem);
}

Test(shm_ring, small_record_is_one_line)
{
    struct ring r;
    ring_make(&r, 64, 0);
    unsigned char hdr[24] = { 1, 2, 3 }, msg[8] = { 9, 8, 7 };
    struct iovec iov[2] = { { hdr, 24 }, { msg, 8 } };
    cr_assert_eq(rch_shm_ring_send(&r.tx, 1, iov, 2), RDMACH_OK);
    cr_assert_eq(r.tx.tail, 1, "a 32-byte packet takes one cell");
    const void *pkt;
    size_t len;
    uint32_t type;
    cr_assert_eq(rch_shm_ring_peek(&r.rx, &pkt, &len, &type), RDMACH_OK);
    cr_assert_eq(len, 32);
    cr_assert_eq(memcmp(pkt, hdr, 24), 0);
    cr_assert_eq(memcmp((const char *)pkt + 24, msg, 8), 0);
    cr_assert_eq((const char *)pkt - (const char *)r.mem, RCH_SHM_RING_CELLS_OFF + RCH_SHM_REC_HDR,
                 "header and payload share the first cell");
    free(r.mem);
}

/* For every size from 0 to the maximum, send and receive a few records with
 * the consumer lagging by a varying amount, so records of every size start at
 * every offset and wrap (SKIP) at every distance from the end. */
Test(shm_ring, wraparound_with_records_of_every_size)
{
    struct ring r;
    ring_make(&r, 64, 0);
    uint32_t maxp = rch_shm_ring_max_payload(64);
    unsigned char *scratch = malloc(maxp);
    uint64_t sent = 0, got = 0;
    size_t lens[8192];
    for (size_t len = 0; len <= maxp; len++) {
        int burst = 1 + (int)(len % 5);
        for (int b = 0; b < burst; b++) {
            size_t l = (b & 1) ? maxp - len : len;
            int empty_tries = 0;
            rdmach_status_t st;
            while ((st = send_seq(&r, sent, l, scratch)) != RDMACH_OK) {
                cr_assert_eq(st, RDMACH_AGAIN);
                if (got < sent) {
                    cr_assert(recv_seq(&r, got, lens[got % 8192]), "record %llu missing", (unsigned long long)got);
                    got++;
                } else {
                    /* finding the ring empty publishes head: then there must be room */
                    cr_assert_eq(recv_seq(&r, got, 0), 0);
                    cr_assert_lt(++empty_tries, 2, "AGAIN with an empty ring");
                }
            }
            lens[sent % 8192] = l;
            sent++;
        }
        int keep = (int)(len % 3);
        while (sent - got > (uint64_t)keep) {
            cr_assert(recv_seq(&r, got, lens[got % 8192]), "record %llu missing", (unsigned long long)got);
            got++;
        }
    }
    while (got < sent) {
        cr_assert(recv_seq(&r, got, lens[got % 8192]));
        got++;
    }
    cr_assert_eq(recv_seq(&r, got, 0), 0, "nothing after the last record");
    cr_assert_gt(r.tx.tail, 100 * r.ncells, "many laps");
    free(scratch);
    free(r.mem);
}

Test(shm_ring, full_ring_returns_again_and_loses_nothing)
{
    struct ring r;
    ring_make(&r, 64, 0);
    unsigned char scratch[200];
    uint64_t sent = 0;
    while (send_seq(&r, sent, 100, scratch) == RDMACH_OK)
        sent++;
    cr_assert_gt(sent, 10);
    uint64_t tail = r.tx.tail;
    for (int i = 0; i < 10; i++)
        cr_assert_eq(send_seq(&r, 999, 100, scratch), RDMACH_AGAIN);
    cr_assert_eq(r.tx.tail, tail, "AGAIN wrote nothing");
    cr_assert_eq(rch_shm_ring_has_room(&r.tx, 100), 0);

    /* consume one: head is published lazily, so the producer may still see full */
    cr_assert(recv_seq(&r, 0, 100));
    uint64_t got = 1;
    /* drain: finding the ring empty publishes head, the producer sees room */
    while (recv_seq(&r, got, 100))
        got++;
    cr_assert_eq(got, sent, "every record sent before AGAIN arrived, in order");
    cr_assert(rch_shm_ring_has_room(&r.tx, rch_shm_ring_max_payload(64)), "an empty ring takes the largest record");
    cr_assert_eq(send_seq(&r, got, 100, scratch), RDMACH_OK);
    cr_assert(recv_seq(&r, got, 100));
    free(r.mem);
}

Test(shm_ring, consumer_reports_a_blocked_producer_when_it_frees_room)
{
    struct ring r;
    ring_make(&r, 64, 0);
    unsigned char scratch[100];
    uint64_t sent = 0;
    while (send_seq(&r, sent, 40, scratch) == RDMACH_OK)
        sent++;
    rch_shm_ring_set_blocked(&r.tx, 1);
    int woke = 0;
    for (uint64_t got = 0; got < sent; got++) {
        const void *pkt;
        size_t len;
        uint32_t type;
        cr_assert_eq(rch_shm_ring_peek(&r.rx, &pkt, &len, &type), RDMACH_OK);
        woke |= rch_shm_ring_release(&r.rx);
    }
    woke |= rch_shm_ring_rx_flush(&r.rx);
    cr_assert(woke, "publishing head with blocked set asks for a wake-up");
    rch_shm_ring_set_blocked(&r.tx, 0);
    cr_assert_eq(rch_shm_ring_rx_flush(&r.rx), 0, "nothing to publish, nobody to wake");
    free(r.mem);
}

Test(shm_ring, stale_records_of_older_laps_are_never_taken)
{
    struct ring r;
    ring_make(&r, 64, 0);
    unsigned char scratch[64];
    /* three laps of one-cell records, consumed; then the ring must look empty
     * although every cell still holds a complete older record */
    for (uint64_t s = 0; s < 3 * 64; s++) {
        cr_assert_eq(send_seq(&r, s, 20, scratch), RDMACH_OK);
        cr_assert(recv_seq(&r, s, 20));
    }
    const void *pkt;
    size_t len;
    uint32_t type;
    cr_assert_eq(rch_shm_ring_peek(&r.rx, &pkt, &len, &type), RDMACH_AGAIN);
    cr_assert_eq(rch_shm_ring_ready(&r.rx), 0);
    free(r.mem);
}

/* Send and take a record of k cells at position 0 whose payload forges, in
 * cells 1 .. k-1, the stamp each of those cells gets one lap later
 * (position ncells + j). buf has room for k cells. */
static void send_forger(struct ring *r, unsigned char *buf, uint64_t k)
{
    memset(buf, 0, k * 64 - 16);
    for (uint64_t j = 1; j < k; j++) {
        struct rch_shm_rec forged;
        memset(&forged, 0, sizeof(forged));
        atomic_store(&forged.stamp, r->ncells + j + 1);
        forged.len = 8;
        forged.type = 1;
        memcpy(buf + j * 64 - 16, &forged, sizeof(forged));
    }
    struct iovec iov = { buf, k * 64 - 16 };
    cr_assert_eq(rch_shm_ring_send(&r->tx, 1, &iov, 1), RDMACH_OK);
    const void *pkt;
    size_t len;
    uint32_t type;
    cr_assert_eq(rch_shm_ring_peek(&r->rx, &pkt, &len, &type), RDMACH_OK);
    cr_assert_eq(len, k * 64 - 16);
    rch_shm_ring_release(&r->rx);
}

/* Payload bytes of an old multi-cell record that look exactly like the stamp
 * a later record would carry at that cell must not be taken: the producer
 * clears freed cells before the consumer can get there. */
Test(shm_ring, payload_forging_a_future_stamp_is_never_taken)
{
    struct ring r;
    ring_make(&r, 64, 0);
    unsigned char big[10 * 64];
    send_forger(&r, big, 10);
    const void *pkt;
    size_t len;
    uint32_t type;
    /* one-cell records up to position 64 + 3, which was cell 3: inside the forger */
    unsigned char scratch[64];
    uint64_t seq = 0;
    while (r.tx.tail < r.ncells + 3) {
        rdmach_status_t st = send_seq(&r, seq, 20, scratch);
        if (st == RDMACH_AGAIN) {
            if (r.rx.pos < r.tx.tail)
                cr_assert(recv_seq(&r, seq - (r.tx.tail - r.rx.pos), 20));
            else
                rch_shm_ring_rx_flush(&r.rx);
            continue;
        }
        cr_assert_eq(st, RDMACH_OK);
        seq++;
    }
    while (r.rx.pos < r.tx.tail)
        cr_assert(recv_seq(&r, seq - (r.tx.tail - r.rx.pos), 20));
    cr_assert_eq(r.rx.pos, r.ncells + 3);
    cr_assert_eq(rch_shm_ring_peek(&r.rx, &pkt, &len, &type), RDMACH_AGAIN,
                 "the forged stamp in old payload was taken as a record");
    free(r.mem);
}

/* A multi-cell record clears only the cell after it (and a window ahead),
 * not its own cells: in a ring larger than that window, a second-lap record
 * longer than the window lands on first-lap payload that forges the stamps
 * of exactly those positions, inside it and right after it. None may be
 * taken: the cell after the record must have been cleared before it was
 * published, and the forged cells inside it are never read as stamps. */
Test(shm_ring, a_record_over_forged_cells_clears_the_cell_after_it)
{
    struct ring r;
    const uint64_t n = 16384;                    /* the clearing window is 64 cells, 2048 streaming */
    const uint64_t kb = 3000;                    /* cells of the second-lap record */
    const uint64_t k = kb + 10;                  /* cells of the forging record */
    ring_make(&r, n, 0);
    unsigned char *big = calloc(1, n / 2 * 64);
    cr_assert_not_null(big);
    send_forger(&r, big, k);
    const void *pkt;
    size_t len;
    uint32_t type;
    /* the rest of the first lap in two records, so the second lap starts at cell 0 */
    uint64_t half = (n - k) / 2;
    for (int i = 0; i < 2; i++) {
        cr_assert_eq(send_seq(&r, (uint64_t)i, half * 64 - 16, big), RDMACH_OK, "%s", rdmach_last_error());
        cr_assert(recv_seq(&r, (uint64_t)i, half * 64 - 16));
    }
    rch_shm_ring_rx_flush(&r.rx);
    cr_assert_eq(r.tx.tail, n);
    /* over forged cells 1 .. kb-1, ending on forged cell kb */
    cr_assert_eq(send_seq(&r, 7, kb * 64 - 16, big), RDMACH_OK);
    cr_assert(recv_seq(&r, 7, kb * 64 - 16));
    cr_assert_eq(rch_shm_ring_peek(&r.rx, &pkt, &len, &type), RDMACH_AGAIN,
                 "the forged stamp after a multi-cell record was taken");
    /* one-cell records over the remaining forged cells: each is taken once,
     * and nothing after it */
    unsigned char scratch[64];
    for (uint64_t s = 8; s < 8 + (k - kb); s++) {
        cr_assert_eq(send_seq(&r, s, 20, scratch), RDMACH_OK);
        cr_assert(recv_seq(&r, s, 20));
        cr_assert_eq(rch_shm_ring_peek(&r.rx, &pkt, &len, &type), RDMACH_AGAIN,
                     "a forged stamp after one-cell record %llu was taken", (unsigned long long)s);
    }
    free(big);
    free(r.mem);
}

/* One record of `cells` cells sent and taken; what the window of cleared
 * cells beyond the producer's tail is right after it. */
static uint64_t lead_after(struct ring *r, uint64_t seq, uint64_t cells, unsigned char *scratch)
{
    size_t len = cells * RCH_SHM_CELL - RCH_SHM_REC_HDR;
    cr_assert_eq(send_seq(r, seq, len, scratch), RDMACH_OK, "%s", rdmach_last_error());
    uint64_t lead = r->tx.cleared - r->tx.tail;
    cr_assert(recv_seq(r, seq, len));
    rch_shm_ring_rx_flush(&r->rx);
    return lead;
}

/* Beyond the first lap the producer clears stamps ahead of its tail: 64
 * cells while it hears from the consumer's side between its records
 * (ping-pong), 2048 once RCH_SHM_RING_RUN records went in a row without
 * (a stream), 64 again after it hears. Every record arrives whole. */
Test(shm_ring, the_clearing_window_follows_the_producers_run)
{
    struct ring r;
    const uint64_t n = 8192, k = 17;             /* 17 cells: a 1 KiB message */
    ring_make(&r, n, 0);
    unsigned char scratch[17 * 64];
    uint64_t seq = 0, most = 0;
    while (r.tx.tail < n + 4096) {               /* into the second lap, answered each time */
        uint64_t lead = lead_after(&r, seq++, k, scratch);
        rch_shm_ring_heard(&r.tx);
        if (r.tx.tail > n + k)
            most = lead > most ? lead : most;
    }
    cr_assert_eq(most, 65, "a ping-pong's window: %llu cells", (unsigned long long)most);
    most = 0;
    for (int i = 0; i < 300; i++) {              /* a stream: nothing heard */
        uint64_t lead = lead_after(&r, seq++, k, scratch);
        if (i >= (int)RCH_SHM_RING_RUN)
            most = lead > most ? lead : most;
    }
    cr_assert_eq(most, 2049, "a stream's window: %llu cells", (unsigned long long)most);
    rch_shm_ring_heard(&r.tx);
    uint64_t until = r.tx.cleared;               /* the stream's window is used first */
    while (r.tx.tail <= until) {
        (void)lead_after(&r, seq++, k, scratch);
        rch_shm_ring_heard(&r.tx);
    }
    most = 0;
    for (int i = 0; i < 300; i++) {
        uint64_t lead = lead_after(&r, seq++, k, scratch);
        rch_shm_ring_heard(&r.tx);
        most = lead > most ? lead : most;
    }
    cr_assert_eq(most, 65, "after an answer the window: %llu cells", (unsigned long long)most);
    free(r.mem);
}

/* A producer that found no room sets ROOM and clears it once room is back
 * (the consumer publishes head on an empty ring while ROOM is set). */
Test(shm_ring, the_room_flag_follows_the_producers_view_of_head)
{
    struct ring r;
    ring_make(&r, 64, 0);
    unsigned char scratch[64 * 32];
    size_t len = 16 * 64 - 16;                   /* 16 cells */
    uint64_t sent = 0;
    while (send_seq(&r, sent, len, scratch) == RDMACH_OK)
        sent++;
    cr_assert_eq(sent, 3, "three 16-cell records fit a 64-cell ring with a cleared cell after them");
    cr_assert_eq(atomic_load(&r.tx.ctl->blocked) & RCH_SHM_BLOCKED_ROOM, RCH_SHM_BLOCKED_ROOM);
    cr_assert(recv_seq(&r, 0, len));
    cr_assert(recv_seq(&r, 1, len));
    rch_shm_ring_rx_flush(&r.rx);
    cr_assert_eq(send_seq(&r, sent, len, scratch), RDMACH_OK);
    cr_assert_eq(atomic_load(&r.tx.ctl->blocked) & RCH_SHM_BLOCKED_ROOM, 0u);
    cr_assert(recv_seq(&r, 2, len));
    cr_assert(recv_seq(&r, 3, len));
    free(r.mem);
}

Test(shm_ring, corrupt_header_is_a_protocol_error)
{
    struct ring r;
    ring_make(&r, 64, 0);
    struct rch_shm_rec *c = (struct rch_shm_rec *)((char *)r.mem + RCH_SHM_RING_CELLS_OFF);
    c->len = 1u << 30;
    c->type = 1;
    atomic_store(&c->stamp, 1);
    const void *pkt;
    size_t len;
    uint32_t type;
    cr_assert_eq(rch_shm_ring_peek(&r.rx, &pkt, &len, &type), RDMACH_ERR_PROTOCOL);
    cr_assert(strstr(rdmach_last_error(), "corrupt"), "%s", rdmach_last_error());
    free(r.mem);
}

/* ---- a producer and a consumer running concurrently ---- */

#define NREC 1000000u

static size_t rand_len(uint64_t *x, uint32_t maxp)
{
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    uint64_t v = *x;
    if ((v & 255) == 0)
        return (size_t)((v >> 8) % (maxp + 1));      /* 1 in 256: any size */
    if ((v & 7) == 0)
        return (size_t)((v >> 8) % 512);             /* 1 in 8: a few cells */
    return (size_t)((v >> 8) % 64);                  /* mostly one or two cells */
}

static uint64_t checksum(const unsigned char *p, size_t n, uint64_t seq)
{
    uint64_t h = 1469598103934665603ull ^ seq;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

/* Payload: [seq 8][checksum of the rest 8][bytes...] (records >= 16 bytes),
 * or just the pattern for short ones. */
static void producer(struct ring *r, uint32_t maxp)
{
    unsigned char *buf = malloc(maxp + 16);
    uint64_t x = 88172645463325252ull;
    for (uint64_t s = 0; s < NREC; s++) {
        size_t len = rand_len(&x, maxp);
        if (len >= 16) {
            fill(buf + 16, len - 16, s);
            uint64_t h = checksum(buf + 16, len - 16, s);
            memcpy(buf, &s, 8);
            memcpy(buf + 8, &h, 8);
        } else {
            fill(buf, len, s);
        }
        struct iovec iov = { buf, len };
        rdmach_status_t st;
        while ((st = rch_shm_ring_send(&r->tx, 1, &iov, 1)) == RDMACH_AGAIN)
            sched_yield();
        if (st != RDMACH_OK)
            abort();
    }
    free(buf);
}

/* Returns the number of bad records. */
static uint64_t consumer(struct ring *r, uint32_t maxp)
{
    uint64_t x = 88172645463325252ull, bad = 0;
    for (uint64_t s = 0; s < NREC; s++) {
        size_t want = rand_len(&x, maxp);
        const void *pkt;
        size_t len;
        uint32_t type;
        rdmach_status_t st;
        unsigned spins = 0;
        while ((st = rch_shm_ring_peek(&r->rx, &pkt, &len, &type)) == RDMACH_AGAIN) {
            rch_shm_ring_rx_flush(&r->rx);
            if (++spins % 64 == 0)
                sched_yield();
        }
        if (st != RDMACH_OK || len != want || type != 1) {
            bad++;
            if (st != RDMACH_OK)
                return bad + (NREC - s);
        } else if (len >= 16) {
            uint64_t seq, h;
            memcpy(&seq, pkt, 8);
            memcpy(&h, (const char *)pkt + 8, 8);
            bad += seq != s || h != checksum((const unsigned char *)pkt + 16, len - 16, s);
        } else {
            bad += !check(pkt, len, s);
        }
        rch_shm_ring_release(&r->rx);
    }
    return bad;
}

static void *producer_thread(void *arg)
{
    struct ring *r = arg;
    producer(r, rch_shm_ring_max_payload(r->ncells));
    return NULL;
}

Test(shm_ring, two_threads_move_a_million_records_in_order, .timeout = 100)
{
    struct ring r;
    ring_make(&r, 128, 0);
    pthread_t t;
    cr_assert_eq(pthread_create(&t, NULL, producer_thread, &r), 0);
    uint64_t bad = consumer(&r, rch_shm_ring_max_payload(r.ncells));
    pthread_join(t, NULL);
    cr_assert_eq(bad, 0, "%llu records out of order or corrupted", (unsigned long long)bad);
    free(r.mem);
}

Test(shm_ring, two_processes_move_a_million_records_in_order, .timeout = 100)
{
    struct ring r;
    ring_make(&r, 1024, 1);
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        producer(&r, rch_shm_ring_max_payload(r.ncells));
        _exit(0);
    }
    uint64_t bad = consumer(&r, rch_shm_ring_max_payload(r.ncells));
    int status;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "producer failed");
    cr_assert_eq(bad, 0, "%llu records out of order or corrupted", (unsigned long long)bad);
    munmap(r.mem, rch_shm_ring_bytes(r.ncells));
}

/* ---- lazy head publication (flush_gap, the ROOM flag) and the inline fast paths ---- */

/* Found empty: publish head (and ask whether to wake the producer) the way the
 * channel does. */
static int idle(struct ring *r)
{
    const void *pkt;
    size_t len;
    uint32_t type;
    cr_assert_eq(rch_shm_ring_peek_fast(&r->rx, &pkt, &len, &type), RDMACH_AGAIN);
    return rch_shm_ring_rx_idle(&r->rx);
}

Test(shm_ring, a_ping_pong_of_small_records_does_not_write_head_per_record)
{
    struct ring r;
    ring_make(&r, 1024, 0);
    rch_shm_ring_rx_set_max_record(&r.rx, 300);            /* 5 cells: the gap is 1024 - 10 */
    cr_assert_eq(r.rx.flush_gap, 1024 - 10);
    unsigned char hdr[24] = { 1 }, msg[8] = { 2 };
    struct iovec iov[2] = { { hdr, 24 }, { msg, 8 } };
    for (int i = 0; i < 100; i++) {
        cr_assert(rch_shm_ring_send_small(&r.tx, 1, iov, 2, 32), "a one-cell record fits the cleared window");
        const void *pkt;
        size_t len;
        uint32_t type;
        cr_assert_eq(rch_shm_ring_peek_fast(&r.rx, &pkt, &len, &type), RDMACH_OK);
        cr_assert_eq(len, 32);
        cr_assert_eq(memcmp((const char *)pkt + 24, msg, 8), 0);
        cr_assert_eq(rch_shm_ring_release(&r.rx), 0);
        cr_assert_eq(idle(&r), 0);
    }
    cr_assert_eq(atomic_load(&r.rx.ctl->head), 0, "head not written while within the gap");
    cr_assert_eq(r.rx.published, 0);
    free(r.mem);
}

Test(shm_ring, an_empty_ring_publishes_head_once_it_lags_beyond_the_gap)
{
    struct ring r;
    ring_make(&r, 64, 0);
    rch_shm_ring_rx_set_max_record(&r.rx, 25 * 64 - 16);   /* 25 cells: gap 64 - 50 = 14 */
    cr_assert_eq(r.rx.flush_gap, 14);
    unsigned char scratch[64];
    for (uint64_t s = 0; s < 15; s++) {
        cr_assert_eq(send_seq(&r, s, 20, scratch), RDMACH_OK);
        const void *pkt;
        size_t len;
        uint32_t type;
        cr_assert_eq(rch_shm_ring_peek_fast(&r.rx, &pkt, &len, &type), RDMACH_OK);
        cr_assert_eq(rch_shm_ring_release(&r.rx), 0, "below a quarter ring: no publication");
        idle(&r);
        cr_assert_eq(r.rx.published, s < 14 ? 0 : 15, "record %llu: lag %llu", (unsigned long long)s,
                     (unsigned long long)(r.rx.pos - r.rx.published));
    }
    /* whatever was left unpublished, the largest record the consumer allows fits */
    cr_assert(rch_shm_ring_has_room(&r.tx, 25 * 64 - 16));
    free(r.mem);
}

/* Take one record with the channel's calls (no flush): 1 if there was one. */
static int take_lazy(struct ring *r, uint64_t seq, size_t len)
{
    const void *pkt;
    size_t got;
    uint32_t type;
    if (rch_shm_ring_peek_fast(&r->rx, &pkt, &got, &type) != RDMACH_OK)
        return 0;
    cr_assert_eq(got, len);
    cr_assert(check(pkt, len, seq), "record %llu corrupted", (unsigned long long)seq);
    rch_shm_ring_release(&r->rx);
    return 1;
}

/* A producer that sends a record larger than the consumer assumed (their
 * configurations differ) must not get stuck behind an unpublished head: its
 * failed refresh raises ROOM, and the consumer publishes when it finds the
 * ring empty, whatever its gap says. */
Test(shm_ring, a_producer_short_of_room_gets_head_published)
{
    struct ring r;
    ring_make(&r, 64, 0);
    rch_shm_ring_rx_set_max_record(&r.rx, 48);             /* assumes one-cell records: gap 62 */
    unsigned char scratch[2048];
    const size_t sizes[] = { 15 * 64 - 16, 15 * 64 - 16, 3 * 64 - 16 };   /* tail 33, head published at 30 */
    for (uint64_t s = 0; s < 3; s++) {
        cr_assert_eq(send_seq(&r, s, sizes[s], scratch), RDMACH_OK);
        cr_assert(take_lazy(&r, s, sizes[s]));
    }
    cr_assert_eq(r.rx.pos, 33);
    cr_assert_eq(r.rx.published, 30);
    size_t big = rch_shm_ring_max_payload(64);             /* 32 cells after a 31-cell SKIP: 96 > 30 + 64 */
    cr_assert_eq(send_seq(&r, 3, big, scratch), RDMACH_AGAIN);
    cr_assert_eq(atomic_load(&r.rx.ctl->blocked) & RCH_SHM_BLOCKED_ROOM, RCH_SHM_BLOCKED_ROOM);
    cr_assert_eq(idle(&r), 0, "published, and nobody asked to be woken");
    cr_assert_eq(r.rx.published, 33, "an empty ring publishes head for a producer short of room");
    cr_assert_eq(send_seq(&r, 3, big, scratch), RDMACH_OK);
    cr_assert_eq(atomic_load(&r.rx.ctl->blocked), 0, "ROOM is lowered once the record fits");
    cr_assert(take_lazy(&r, 3, big));
    free(r.mem);
}
