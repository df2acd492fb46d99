/*
 * The shared-memory channel's doorbell (shm_proto.h, shm_bell.c), across
 * forked processes (shm_harness.h): a rank's segment holds pages only for
 * the rings of the ranks that sent to it, and its progress polls only
 * those; no record is missed for it, whether it was polling, asleep or
 * about to sleep when a sender's first record came, nor before a sender
 * that died is reported.
 */
#include <criterion/criterion.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "base/base.h"
#include "rdma/shm/shm.h"
#include "shm_harness.h"

/* A packet: its sender and its sequence number from that sender. */
struct bpkt {
    int32_t src;
    uint32_t pad;
    uint64_t seq;
};

struct brx {
    uint64_t next[H_MAX_RANKS];     /* next expected seq per sender */
    uint64_t total, bad;
    uint64_t want;                  /* done is set when total reaches it */
    int done;
};

static void brx_recv(struct h_rank *h, int peer, const void *pkt, size_t len)
{
    struct brx *rs = h->user;
    struct bpkt b;
    if (len != sizeof(b) || peer < 0 || peer >= H_MAX_RANKS) {
        rs->bad++;
        return;
    }
    memcpy(&b, pkt, sizeof(b));
    if (b.src != peer || b.seq != rs->next[peer]) {
        if (rs->bad < 5)
            fprintf(stderr, "rank %d: from %d: src %d seq %llu, expected seq %llu\n", h->rank, peer, b.src,
                    (unsigned long long)b.seq, (unsigned long long)rs->next[peer]);
        rs->bad++;
    }
    rs->next[peer] = b.seq + 1;
    rs->done = ++rs->total >= rs->want;
}

static rdmach_status_t bsend(struct h_rank *h, int peer, uint64_t seq)
{
    struct bpkt b = { .src = h->rank, .seq = seq };
    return h_send(h, peer, &b, sizeof(b), NULL, 0);
}

/* Pages of [addr, addr + len) in memory (the file's pages, for a shared mapping). */
static long resident_pages(const void *addr, size_t len)
{
    size_t np = (len + RCH_SHM_PAGE - 1) / RCH_SHM_PAGE;
    unsigned char *vec = malloc(np);
    if (!vec || mincore((void *)addr, len, vec) != 0) {
        free(vec);
        return -1;
    }
    long n = 0;
    for (size_t i = 0; i < np; i++)
        n += vec[i] & 1;
    free(vec);
    return n;
}

#define NFIRST 100

/* Map every peer's segment as start-up does (ops->connect), without the
 * harness's rch_shm_connect_addr, which also readies our ring in it. */
static int map_all(struct h_rank *h)
{
    for (int i = 0; i < h->npeers; i++)
        H_CHECK(h->ops->connect(h->ch, h->peers[i]) == RDMACH_OK, "connect %d", h->peers[i]);
    return h_barrier(h);
}

/* Only rank 1 sends to rank 0: in rank 0's segment only rank 1's ring (and
 * the header and doorbell) have pages, and rank 0 polls one ring. */
static int body_untouched(struct h_rank *h, void *arg)
{
    struct brx rs = { .want = NFIRST };
    h->user = &rs;
    h->on_recv = brx_recv;
    H_CHECK(map_all(h) == 0, "mapping the peers");
    if (h->rank == 1)
        for (uint64_t s = 0; s < NFIRST; s++)
            H_CHECK(bsend(h, 0, s) == RDMACH_OK, "send %llu", (unsigned long long)s);
    if (h->rank == 0) {
        H_CHECK(h_progress_until(h, &rs.done, 20) == 0 && rs.bad == 0, "received %llu of %d, %llu bad", (unsigned long long)rs.total,
                NFIRST, (unsigned long long)rs.bad);
        for (int i = 0; i < 100; i++)
            h->ops->progress(h->ch, 64);
        const struct rch_shm_seg *seg = &h->ch->seg;
        const struct rch_shm_seg_hdr *hd = seg->hdr;
        long head = resident_pages(seg->base, hd->slot_off);
        H_CHECK(head == (long)(hd->slot_off / RCH_SHM_PAGE), "header and doorbell: %ld of %llu pages", head,
                (unsigned long long)(hd->slot_off / RCH_SHM_PAGE));
        for (uint32_t s = 0; s < hd->nslots; s++) {
            long n = resident_pages(seg->base + hd->slot_off + s * hd->slot_stride, hd->slot_stride);
            if (s == 1)
                H_CHECK(n > 0, "the ring of rank 1, which sent, has no page");
            else
                H_CHECK(n == 0, "slot %u (rank %u never sent to us): %ld pages in memory", s, s, n);
        }
        H_CHECK(h->ch->nactive == 1, "rings polled: %u, one sender", h->ch->nactive);
        fprintf(stderr, "rank 0: segment of %llu KiB: %ld KiB in memory (header and doorbell %ld KiB)\n",
                (unsigned long long)(seg->size >> 10), resident_pages(seg->base, seg->size) * 4, head * 4);
    }
    return h_barrier(h);
}

Test(shm_bell, rings_of_ranks_that_never_send_have_no_pages, .timeout = 60)
{
    struct h_opts o = { .n = 8, .no_connect = 1 };
    cr_assert_eq(h_run("bellmem", &o, body_untouched, NULL), 0);
}

/* Every rank in turn receives while every other rank sends it its first
 * records: the receiver polls (arg NULL) or sleeps in wait_arm whenever it
 * finds nothing (arg non-NULL), and the senders start once they see it
 * asleep. A first record must never be missed or leave the receiver asleep. */
static int body_first_records(struct h_rank *h, void *arg)
{
    int block = arg != NULL;
    struct brx rs = { 0 };
    h->user = &rs;
    h->on_recv = brx_recv;
    H_CHECK(map_all(h) == 0, "mapping the peers");
    for (int r = 0; r < h->size; r++) {
        H_CHECK(h_barrier(h) == 0, "barrier");
        if (h->rank == r) {
            uint64_t want = rs.total + (uint64_t)(h->size - 1) * NFIRST;
            double t0 = rch_base_wtime();
            while (rs.total < want && rch_base_wtime() - t0 < 20) {
                if (h->ops->progress(h->ch, 64) > 0)
                    continue;
                if (block)
                    H_CHECK(h_block(h, 10.0) != 0, "round %d: asleep 10 s with %llu of %llu records", r,
                            (unsigned long long)rs.total, (unsigned long long)want);
                else
                    sched_yield();
            }
            H_CHECK(rs.total == want && rs.bad == 0, "round %d: %llu of %llu records, %llu bad", r,
                    (unsigned long long)rs.total, (unsigned long long)want, (unsigned long long)rs.bad);
            for (int p = 0; p < h->size; p++)
                H_CHECK(p == r || rs.next[p] == NFIRST, "from %d: %llu", p, (unsigned long long)rs.next[p]);
            memset(rs.next, 0, sizeof(rs.next));
        } else {
            struct rch_shm_peer *p = rch_shm_peer_get(h->ch, r);
            H_CHECK(p != NULL && p->state == RCH_SHM_PEER_MAPPED, "rank %d: mapped, never sent to", r);
            double t0 = rch_base_wtime();
            while (block && !atomic_load(&p->segp->wake->sleeping) && rch_base_wtime() - t0 < 2)
                sched_yield();
            for (uint64_t s = 0; s < NFIRST; s++)
                H_CHECK(bsend(h, r, s) == RDMACH_OK, "send %llu to %d", (unsigned long long)s, r);
        }
    }
    return h_barrier(h);
}

Test(shm_bell, first_records_of_many_senders_reach_a_polling_rank, .timeout = 90)
{
    struct h_opts o = { .n = 8, .no_connect = 1 };
    cr_assert_eq(h_run("bellpoll", &o, body_first_records, NULL), 0);
}

Test(shm_bell, first_records_of_many_senders_wake_a_sleeping_rank, .timeout = 90)
{
    struct h_opts o = { .n = 8, .no_connect = 1 };
    cr_assert_eq(h_run("bellwake", &o, body_first_records, (void *)1), 0);
}

/* Rank 1's first record lands after rank 0's last progress pass and before
 * rank 0 arms its wait, so nobody wakes rank 0 (it was not asleep): wait_arm
 * itself must see the new ring and refuse to sleep. */
static int body_arm_after_first(struct h_rank *h, void *arg)
{
    struct brx rs = { .want = 1 };
    h->user = &rs;
    h->on_recv = brx_recv;
    H_CHECK(map_all(h) == 0, "mapping the peers");
    if (h->rank == 0)
        H_CHECK(h->ops->progress(h->ch, 64) == 0, "nothing yet");
    H_CHECK(h_barrier(h) == 0, "barrier");
    if (h->rank == 1)
        H_CHECK(bsend(h, 0, 0) == RDMACH_OK, "send");
    H_CHECK(h_barrier(h) == 0, "barrier");
    if (h->rank == 0) {
        struct rch_rdma_wait w = { .fd = -1 };
        rdmach_status_t st = h->ops->wait_arm(h->ch, &w);
        if (st == RDMACH_OK)
            h->ops->wait_disarm(h->ch);
        H_CHECK(st == RDMACH_AGAIN, "wait_arm would sleep (status %d) with a first record waiting", st);
        H_CHECK(h_progress_until(h, &rs.done, 10) == 0 && rs.bad == 0, "the record");
    }
    return h_barrier(h);
}

Test(shm_bell, wait_arm_does_not_sleep_past_a_first_record, .timeout = 60)
{
    struct h_opts o = { .n = 2, .no_connect = 1 };
    cr_assert_eq(h_run("bellarm", &o, body_arm_after_first, NULL), 0);
}

/* Rank 1 sends its first records to rank 0 and dies before rank 0 looks:
 * rank 0 finds it dead first, then must deliver every record before it
 * reports the failure. */
static int body_dies_after_first(struct h_rank *h, void *arg)
{
    struct brx rs = { .want = NFIRST };
    h->user = &rs;
    h->on_recv = brx_recv;
    H_CHECK(map_all(h) == 0, "mapping the peers");
    if (h->rank == 1) {
        for (uint64_t s = 0; s < NFIRST; s++)
            H_CHECK(bsend(h, 0, s) == RDMACH_OK, "send %llu", (unsigned long long)s);
        _exit(0);               /* no close: as a crash */
    }
    struct rch_shm_peer *p = rch_shm_peer_get(h->ch, 1);
    H_CHECK(p != NULL, "peer");
    double t0 = rch_base_wtime();
    while (!rch_shm_peer_check_dead(h->ch, p) && rch_base_wtime() - t0 < 20)
        sched_yield();
    H_CHECK(p->state == RCH_SHM_PEER_DEAD, "rank 1 never found dead");
    uint64_t at_failure = 0;
    t0 = rch_base_wtime();
    while (!h->nfailed && rch_base_wtime() - t0 < 20) {
        h->ops->progress(h->ch, 64);
        at_failure = rs.total;
    }
    H_CHECK(h->nfailed == 1 && h->failed_peer == 1, "failure of rank 1 reported %d times", h->nfailed);
    H_CHECK(at_failure == NFIRST && rs.bad == 0, "%llu of %d records delivered before the failure, %llu bad",
            (unsigned long long)at_failure, NFIRST, (unsigned long long)rs.bad);
    return 0;
}

Test(shm_bell, records_of_a_sender_that_died_are_delivered_before_its_failure, .timeout = 60)
{
    struct h_opts o = { .n = 2, .no_connect = 1 };
    cr_assert_eq(h_run("belldead", &o, body_dies_after_first, NULL), 0);
}
