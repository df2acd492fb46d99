/*
 * The shared-memory channel through its ops table, across forked processes
 * (shm_harness.h): eager packets in order under back-pressure, all pairs,
 * loopback, blocking and wake-ups (8 ranks on this 2-core machine), segment
 * life cycle, peer death, and argument errors.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "base/base.h"
#include "base/tunables.h"
#include "rdma/shm/shm.h"
#include "shm_harness.h"

/* A test packet: 24-byte "device header" + payload with a pattern. */
struct tpkt {
    uint32_t magic;
    int32_t src;
    uint64_t seq;
    uint64_t len;
};
#define TMAGIC 0x74706b74u

struct rx_state {
    uint64_t next[H_MAX_RANKS];     /* next expected seq per source */
    uint64_t total;
    uint64_t bad;
};

static void check_recv(struct h_rank *h, int peer, const void *pkt, size_t len)
{
    struct rx_state *rs = h->user;
    struct tpkt t;
    if (len < sizeof(t)) {
        rs->bad++;
        return;
    }
    memcpy(&t, pkt, sizeof(t));
    if (t.magic != TMAGIC || t.src != peer || t.seq != rs->next[peer] || t.len != len - sizeof(t) ||
        h_check_pattern((const unsigned char *)pkt + sizeof(t), t.len, t.seq * 131 + (uint64_t)peer) >= 0) {
        if (rs->bad < 5)
            fprintf(stderr, "rank %d: bad packet from %d: seq %llu (expected %llu), len %zu\n", h->rank, peer,
                    (unsigned long long)t.seq, (unsigned long long)rs->next[peer], len);
        rs->bad++;
    }
    rs->next[peer] = t.seq + 1;
    rs->total++;
}

static size_t pick_len(uint64_t *x, size_t maxp)
{
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    if ((*x & 15) == 0)
        return (size_t)((*x >> 8) % (maxp + 1));
    return (size_t)((*x >> 8) % 100);
}

static rdmach_status_t send_one(struct h_rank *h, int peer, uint64_t seq, size_t len, unsigned char *buf, int once)
{
    struct tpkt t = { .magic = TMAGIC, .src = h->rank, .seq = seq, .len = len };
    h_pattern(buf, len, seq * 131 + (uint64_t)h->rank);
    if (once) {
        struct iovec iov[2] = { { &t, sizeof(t) }, { buf, len } };
        return h->ops->send(h->ch, peer, iov, 2);
    }
    return h_send(h, peer, &t, sizeof(t), buf, len);
}

/* ---- eager packets ---- */

#define NMSG 20000

static int body_in_order(struct h_rank *h, void *arg)
{
    struct rx_state rs = { 0 };
    h->user = &rs;
    h->on_recv = check_recv;
    size_t maxp = h->ops->caps(h->ch)->max_msg - sizeof(struct tpkt);
    unsigned char *buf = malloc(maxp + 1);
    size_t *lens = malloc(sizeof(*lens) * NMSG);
    uint64_t x = 12345;
    for (int i = 0; i < NMSG; i++)
        lens[i] = pick_len(&x, maxp);
    if (h->rank == 0) {
        uint64_t seq = 0;
        rdmach_status_t st;
        /* fill the ring until it pushes back, before rank 1 reads anything */
        while (seq < NMSG && (st = send_one(h, 1, seq, lens[seq], buf, 1)) == RDMACH_OK)
            seq++;
        H_CHECK(seq < NMSG && st == RDMACH_AGAIN, "send %llu", (unsigned long long)seq);
        H_CHECK(send_one(h, 1, seq, lens[seq], buf, 1) == RDMACH_AGAIN, "still full");
        H_CHECK(seq > 2, "the ring took %llu packets before AGAIN", (unsigned long long)seq);
        H_CHECK(h_barrier(h) == 0, "barrier");
        for (; seq < NMSG; seq++)
            H_CHECK(send_one(h, 1, seq, lens[seq], buf, 0) == RDMACH_OK, "send %llu", (unsigned long long)seq);
        H_CHECK(h_barrier(h) == 0, "barrier");
    } else {
        H_CHECK(h_barrier(h) == 0, "barrier");
        double t0 = rch_base_wtime();
        while (rs.total < NMSG && rch_base_wtime() - t0 < 30)
            if (h->ops->progress(h->ch, 64) == 0)
                sched_yield();
        H_CHECK(rs.total == NMSG && rs.bad == 0, "received %llu of %d, %llu bad", (unsigned long long)rs.total,
                NMSG, (unsigned long long)rs.bad);
        H_CHECK(h->ops->progress(h->ch, 64) == 0, "nothing more");
        H_CHECK(h_barrier(h) == 0, "barrier");
    }
    free(lens);
    free(buf);
    return 0;
}

Test(shm_chan, packets_arrive_in_order_and_complete_after_backpressure, .timeout = 90)
{
    struct h_opts o = { .n = 2 };
    cr_assert_eq(h_run("order", &o, body_in_order, NULL), 0);
}

Test(shm_chan, packets_arrive_in_order_with_a_small_ring, .timeout = 90)
{
    setenv("RDMACH_SHM_RING_SIZE", "4k", 1);
    setenv("RDMACH_SHM_RING_BUDGET", "0", 1);   /* the budget's share would make it larger */
    setenv("RDMACH_SHM_EAGER_MAX", "1k", 1);
    struct h_opts o = { .n = 2 };
    cr_assert_eq(h_run("small", &o, body_in_order, NULL), 0);
}

#define NPAIR 2000

static int body_all_pairs(struct h_rank *h, void *arg)
{
    struct rx_state rs = { 0 };
    h->user = &rs;
    h->on_recv = check_recv;
    size_t maxp = h->ops->caps(h->ch)->max_msg - sizeof(struct tpkt);
    unsigned char *buf = malloc(maxp + 1);
    uint64_t x = 777 + (uint64_t)h->rank;
    /* interleave destinations so every ring is fed while others drain */
    for (uint64_t seq = 0; seq < NPAIR; seq++)
        for (int d = 1; d < h->size; d++) {
            int peer = (h->rank + d) % h->size;
            H_CHECK(send_one(h, peer, seq, pick_len(&x, maxp), buf, 0) == RDMACH_OK, "send to %d", peer);
        }
    double t0 = rch_base_wtime();
    while (rs.total < (uint64_t)NPAIR * (uint64_t)(h->size - 1) && rch_base_wtime() - t0 < 30)
        if (h->ops->progress(h->ch, 64) == 0)
            sched_yield();
    H_CHECK(rs.bad == 0 && rs.total == (uint64_t)NPAIR * (uint64_t)(h->size - 1), "received %llu, %llu bad",
            (unsigned long long)rs.total, (unsigned long long)rs.bad);
    for (int p = 0; p < h->size; p++)
        H_CHECK(p == h->rank || rs.next[p] == NPAIR, "from %d: %llu", p, (unsigned long long)rs.next[p]);
    free(buf);
    return h_barrier(h);
}

Test(shm_chan, four_ranks_all_pairs_in_order, .timeout = 90)
{
    struct h_opts o = { .n = 4 };
    cr_assert_eq(h_run("pairs", &o, body_all_pairs, NULL), 0);
}

static int body_loopback(struct h_rank *h, void *arg)
{
    struct rx_state rs = { 0 };
    h->user = &rs;
    h->on_recv = check_recv;
    unsigned char buf[512];
    for (uint64_t seq = 0; seq < 1000; seq++)
        H_CHECK(send_one(h, h->rank, seq, seq % 500, buf, 0) == RDMACH_OK, "send to self");
    while (h->ops->progress(h->ch, 64) > 0)
        ;
    H_CHECK(rs.total == 1000 && rs.bad == 0, "loopback: %llu received, %llu bad", (unsigned long long)rs.total,
            (unsigned long long)rs.bad);
    return 0;
}

Test(shm_chan, packets_to_self_are_delivered)
{
    struct h_opts o = { .n = 1, .self_peer = 1 };
    cr_assert_eq(h_run("self", &o, body_loopback, NULL), 0);
}

/* ---- blocking ---- */

struct token {
    volatile int have;
    uint64_t value;
};

static void token_recv(struct h_rank *h, int peer, const void *pkt, size_t len)
{
    struct token *t = h->user;
    if (len == 8) {
        memcpy(&t->value, pkt, 8);
        t->have = 1;
    }
}

#define HOPS 10000

/* Wait for the token: a few polls, then yield, then sleep on the channel's
 * futex; a sleep of 10 s without the token is a lost wake-up. */
static int wait_token(struct h_rank *h, struct token *t)
{
    for (int spin = 0; !t->have; spin++) {
        if (h->ops->progress(h->ch, 16) > 0)
            continue;
        if (spin < 50)
            continue;
        if (spin < 60) {
            sched_yield();
            continue;
        }
        H_CHECK(h_block(h, 10.0) != 0, "slept 10 s without a wake-up: lost wake-up");
    }
    return 0;
}

static int body_token_ring(struct h_rank *h, void *arg)
{
    struct token t = { 0 };
    h->user = &t;
    h->on_recv = token_recv;
    int next = (h->rank + 1) % h->size;
    double t0 = rch_base_wtime();
    if (h->rank == 0) {
        uint64_t v = 0;
        struct iovec iov = { &v, 8 };
        H_CHECK(h->ops->send(h->ch, next, &iov, 1) == RDMACH_OK, "first token");
    }
    for (;;) {
        if (wait_token(h, &t) != 0)
            return 1;
        t.have = 0;
        uint64_t v = t.value + 1;
        if (t.value >= HOPS) {
            /* pass the end marker on so every rank stops */
            if (v - HOPS < (uint64_t)h->size)
                H_CHECK(h_send(h, next, &v, 8, NULL, 0) == RDMACH_OK, "end marker");
            break;
        }
        H_CHECK(h_send(h, next, &v, 8, NULL, 0) == RDMACH_OK, "token");
    }
    if (h->rank == 0)
        fprintf(stderr, "token ring: %d ranks, %d hops in %.3f s (%.1f us/hop)\n", h->size, HOPS,
                rch_base_wtime() - t0, (rch_base_wtime() - t0) * 1e6 / HOPS);
    return 0;
}

Test(shm_chan, eight_ranks_on_two_cores_pass_a_token_with_blocking_waits, .timeout = 100)
{
    struct h_opts o = { .n = 8, .timeout_s = 90 };
    cr_assert_eq(h_run("token", &o, body_token_ring, NULL), 0);
}

/* The receiver sleeps first; the sender waits until it sees the receiver's
 * sleeping flag, then sends: the send must wake it. Many rounds, to catch
 * a race in arm/notify. */
static int body_wake_receiver(struct h_rank *h, void *arg)
{
    struct token t = { 0 };
    h->user = &t;
    h->on_recv = token_recv;
    int other = 1 - h->rank;
    struct rch_shm_peer *p = rch_shm_peer_get(h->ch, other);
    H_CHECK(p != NULL, "peer");
    for (uint64_t round = 0; round < 300; round++) {
        if (h->rank == 1) {
            while (!t.have) {
                h->ops->progress(h->ch, 16);
                if (!t.have)
                    H_CHECK(h_block(h, 10.0) != 0, "round %llu: lost wake-up", (unsigned long long)round);
            }
            H_CHECK(t.value == round, "round %llu got %llu", (unsigned long long)round,
                    (unsigned long long)t.value);
            t.have = 0;
            H_CHECK(h_send(h, other, &round, 8, NULL, 0) == RDMACH_OK, "ack");
        } else {
            /* wait (bounded) until rank 1 is asleep, or at least armed */
            double t0 = rch_base_wtime();
            while (!atomic_load(&p->segp->wake->sleeping) && rch_base_wtime() - t0 < 10)
                sched_yield();
            H_CHECK(atomic_load(&p->segp->wake->sleeping), "rank 1 never armed its wait");
            H_CHECK(h_send(h, other, &round, 8, NULL, 0) == RDMACH_OK, "send");
            H_CHECK(h_progress_until(h, &t.have, 10) == 0, "no ack");
            t.have = 0;
        }
    }
    return 0;
}

Test(shm_chan, a_send_wakes_a_sleeping_receiver, .timeout = 100)
{
    struct h_opts o = { .n = 2 };
    cr_assert_eq(h_run("wake", &o, body_wake_receiver, NULL), 0);
}

/* The sender fills the ring, arms its wait (blocked on the full ring) and
 * sleeps; the receiver waits until it sees the sender asleep, then drains:
 * freeing room must wake the sender. */
static int body_wake_sender(struct h_rank *h, void *arg)
{
    struct rx_state rs = { 0 };
    h->user = &rs;
    h->on_recv = check_recv;
    unsigned char buf[256];
    int other = 1 - h->rank;
    struct rch_shm_peer *p = rch_shm_peer_get(h->ch, other);
    uint64_t seq = 0;
    for (int round = 0; round < 50; round++) {
        if (h->rank == 0) {
            rdmach_status_t st;
            while ((st = send_one(h, 1, seq, 200, buf, 1)) == RDMACH_OK)
                seq++;
            H_CHECK(st == RDMACH_AGAIN, "send");
            H_CHECK(h_barrier(h) == 0, "barrier");
            /* sleep until rank 1 frees room */
            for (;;) {
                int r = h_block(h, 10.0);
                H_CHECK(r >= 0, "wait_arm failed");
                H_CHECK(r != 0, "round %d: the sender was never woken after the ring drained", round);
                if ((st = send_one(h, 1, seq, 200, buf, 1)) == RDMACH_OK)
                    break;

                H_CHECK(st == RDMACH_AGAIN, "send");
            }
            seq++;
            H_CHECK(h_barrier(h) == 0, "barrier");
            H_CHECK(h_barrier(h) == 0, "barrier");     /* rank 1 drained: the next fill starts empty */
        } else {
            H_CHECK(h_barrier(h) == 0, "barrier");
            double t0 = rch_base_wtime();
            while (!atomic_load(&p->segp->wake->sleeping) && rch_base_wtime() - t0 < 10)
                sched_yield();
            H_CHECK(atomic_load(&p->segp->wake->sleeping), "rank 0 never armed its wait");

            while (h->ops->progress(h->ch, 64) > 0)
                ;
            H_CHECK(h_barrier(h) == 0, "barrier");
            while (h->ops->progress(h->ch, 64) > 0)
                ;
            H_CHECK(h_barrier(h) == 0, "barrier");
        }
    }
    if (h->rank == 1)
        H_CHECK(rs.bad == 0, "bad packets");
    return 0;
}

Test(shm_chan, draining_a_full_ring_wakes_the_sleeping_sender, .timeout = 100)
{
    setenv("RDMACH_SHM_RING_SIZE", "4k", 1);
    setenv("RDMACH_SHM_RING_BUDGET", "0", 1);   /* the budget's share would make it larger */
    struct h_opts o = { .n = 2 };
    cr_assert_eq(h_run("wakesnd", &o, body_wake_sender, NULL), 0);
}

/* ---- segment life cycle ---- */

static int seg_exists(struct h_rank *h, int rank)
{
    char name[RCH_SHM_NAME_MAX + 1], path[RCH_SHM_NAME_MAX + 16];
    if (rch_shm_seg_name(name, sizeof(name), h_kvsname(h), rank) != RDMACH_OK)
        return -1;
    snprintf(path, sizeof(path), "/dev/shm%s", name);
    struct stat sb;
    if (stat(path, &sb) != 0)
        return 0;
    return (sb.st_mode & 0777) == 0600 ? 1 : 2;
}

static int body_unlink(struct h_rank *h, void *arg)
{
    H_CHECK(h_barrier(h) == 0, "barrier");
    for (int r = 0; r < h->size; r++)
        H_CHECK(seg_exists(h, r) == 1, "segment of rank %d: published, mode 0600 (got %d)", r, seg_exists(h, r));
    H_CHECK(h_barrier(h) == 0, "barrier");
    for (int r = 0; r < h->size; r++)
        if (r != h->rank)
            H_CHECK(rch_shm_connect_addr(h->ch, r, h_addr(h, r)) == RDMACH_OK, "connect %d", r);
    H_CHECK(h_barrier(h) == 0, "barrier");
    for (int r = 0; r < h->size; r++)
        H_CHECK(seg_exists(h, r) == 0, "segment of rank %d still linked after every rank mapped it", r);
    /* and the channel still works */
    struct rx_state rs = { 0 };
    h->user = &rs;
    h->on_recv = check_recv;
    unsigned char buf[64];
    for (int r = 0; r < h->size; r++)
        if (r != h->rank)
            H_CHECK(send_one(h, r, 0, 10, buf, 0) == RDMACH_OK, "send");
    double t0 = rch_base_wtime();
    while (rs.total < (uint64_t)h->size - 1 && rch_base_wtime() - t0 < 10)
        h->ops->progress(h->ch, 64);
    H_CHECK(rs.total == (uint64_t)h->size - 1 && rs.bad == 0, "messages after unlink");
    return h_barrier(h);
}

Test(shm_chan, segments_are_unlinked_once_every_rank_mapped_them, .timeout = 60)
{
    struct h_opts o = { .n = 3, .no_connect = 1 };
    cr_assert_eq(h_run("unlink", &o, body_unlink, NULL), 0);
}

/* ---- peer death ---- */

static int body_peer_dies(struct h_rank *h, void *arg)
{
    if (h->rank == 1)
        _exit(0);               /* no close: as a crash */
    volatile int *failed = &h->nfailed;
    H_CHECK(h_progress_until(h, failed, 20) == 0, "peer death not reported");
    H_CHECK(h->failed_peer == 1 && h->failed_status == RDMACH_ERR_PEER_DEAD, "failed %d: %d", h->failed_peer,
            h->failed_status);
    H_CHECK(strstr(rdmach_last_error(), "rank 1"), "the message names the rank: %s", rdmach_last_error());
    uint64_t v = 0;
    struct iovec iov = { &v, 8 };
    H_CHECK(h->ops->send(h->ch, 1, &iov, 1) == RDMACH_ERR_PEER_DEAD, "send to a dead peer fails");
    H_CHECK(h->ops->progress(h->ch, 64) == 0 && h->nfailed == 1, "reported once");
    return 0;
}

Test(shm_chan, a_dead_peer_is_reported_once_by_progress, .timeout = 60)
{
    struct h_opts o = { .n = 2 };
    cr_assert_eq(h_run("death", &o, body_peer_dies, NULL), 0);
}

static int body_send_to_dead(struct h_rank *h, void *arg)
{
    if (h->rank == 1)
        _exit(0);
    uint64_t v = 0;
    struct iovec iov = { &v, 8 };
    rdmach_status_t st;
    double t0 = rch_base_wtime();
    while ((st = h->ops->send(h->ch, 1, &iov, 1)) == RDMACH_OK || st == RDMACH_AGAIN)
        H_CHECK(rch_base_wtime() - t0 < 20, "sending to a dead peer never failed");
    H_CHECK(st == RDMACH_ERR_PEER_DEAD, "status %d", st);
    H_CHECK(strstr(rdmach_last_error(), "rank 1"), "%s", rdmach_last_error());
    return 0;
}

Test(shm_chan, sending_to_a_dead_peer_fails_once_its_ring_is_full, .timeout = 60)
{
    struct h_opts o = { .n = 2 };
    cr_assert_eq(h_run("deadsend", &o, body_send_to_dead, NULL), 0);
}

/* ---- arguments ---- */

static void nop_recv(void *c, int p, const void *k, size_t l) {}
static void nop_done(void *c, void *o, rdmach_status_t s) {}
static void nop_fail(void *c, int p, rdmach_status_t s) {}

Test(shm_chan, bad_arguments_are_errors_naming_the_cause)
{
    cr_assert_eq(rch_base_tun_load(), RDMACH_OK);
    const struct rch_rdma_ops *ops = &rch_rdma_shm_ops;
    int node_of[3] = { 0, 0, 1 }, local[2] = { 0, 1 };
    struct rch_boot_info b = { .rank = 0, .size = 3, .node = 0, .num_nodes = 2, .local_rank = 0,
                               .local_size = 2, .node_of = node_of, .local_ranks = local };
    snprintf(b.kvsname, sizeof(b.kvsname), "targs%d", (int)getpid());
    struct rch_rdma_chan *ch = NULL;
    int peers_remote[1] = { 2 };
    struct rch_rdma_open_args a = { .boot = &b, .peers = peers_remote, .npeers = 1,
                                    .up = { .recv = nop_recv, .rma_done = nop_done, .peer_failed = nop_fail } };
    cr_assert_eq(ops->open(&a, &ch), RDMACH_ERR_UNREACHABLE);
    cr_assert(strstr(rdmach_last_error(), "rank 2 is on node 1"), "%s", rdmach_last_error());

    int peers_unsorted[2] = { 1, 0 };
    a.peers = peers_unsorted;
    a.npeers = 2;
    cr_assert_eq(ops->open(&a, &ch), RDMACH_ERR_INVALID_ARG);
    cr_assert(strstr(rdmach_last_error(), "ascending"), "%s", rdmach_last_error());

    a.up.recv = NULL;
    int peers_ok[2] = { 0, 1 };
    a.peers = peers_ok;
    cr_assert_eq(ops->open(&a, &ch), RDMACH_ERR_INVALID_ARG);
    a.up.recv = nop_recv;

    cr_assert_eq(ops->open(&a, &ch), RDMACH_OK);
    struct rch_rdma_wait w = { .fd = -1 };
    cr_assert_eq(ops->wait_arm(ch, &w), RDMACH_ERR_INVALID_ARG, "wait_arm before publish");
    char addr[300];
    cr_assert_eq(rch_shm_publish_local(ch, addr, sizeof(addr)), RDMACH_OK);
    rch_shm_seg_unlink(&ch->seg);   /* nobody else maps it: no leak if an assertion ends the test */
    cr_assert_eq(rch_shm_connect_addr(ch, 1, "garbage"), RDMACH_ERR_PROTOCOL);
    cr_assert_eq(rch_shm_connect_addr(ch, 1, "/rdmach-x-1,12"), RDMACH_ERR_PROTOCOL, "no namespace field");
    cr_assert(strstr(rdmach_last_error(), "malformed"), "%s", rdmach_last_error());
    cr_assert_eq(rch_shm_connect_addr(ch, 1, "/rdmach-nosuchjob-1,1,0"), RDMACH_ERR_CONN_REFUSED);
    cr_assert(strstr(rdmach_last_error(), "does not exist"), "%s", rdmach_last_error());
    cr_assert_eq(rch_shm_connect_addr(ch, 2, addr), RDMACH_ERR_UNREACHABLE);
    cr_assert_eq(rch_shm_connect_addr(ch, 0, ""), RDMACH_OK, "loopback");

    const struct rch_rdma_caps *caps = ops->caps(ch);
    cr_assert_eq(caps->max_msg, rch_tun.shm_eager_max + RCH_SHM_DEV_HDR_ROOM);
    cr_assert(caps->in_order && caps->rma && !caps->needs_credits && caps->onload);
    unsigned char *big = calloc(1, caps->max_msg + 1);
    struct iovec iov = { big, caps->max_msg + 1 };
    cr_assert_eq(ops->send(ch, 0, &iov, 1), RDMACH_ERR_INVALID_ARG);
    cr_assert(strstr(rdmach_last_error(), "exceeds max_msg"), "%s", rdmach_last_error());
    iov.iov_len = caps->max_msg;
    cr_assert_eq(ops->send(ch, 0, &iov, 1), RDMACH_OK, "max_msg itself fits");
    cr_assert_eq(ops->send(ch, 2, &iov, 1), RDMACH_ERR_UNREACHABLE);

    /* registration and rkeys */
    struct rch_rdma_mr *mr;
    struct rch_rdma_rkey rk;
    cr_assert_eq(ops->mem_reg(ch, NULL, 10, RCH_RDMA_ACCESS_REMOTE_READ, &mr), RDMACH_ERR_INVALID_ARG);
    cr_assert_eq(ops->mem_reg(ch, big, 100, RCH_RDMA_ACCESS_REMOTE_READ, &mr), RDMACH_OK);
    cr_assert_eq(ops->mem_rkey(ch, mr, &rk), RDMACH_OK);
    unsigned char dst[200];
    cr_assert_eq(ops->get(ch, 0, dst, NULL, 100, &rk, (uint64_t)(uintptr_t)big, NULL), RDMACH_OK);
    cr_assert_eq(ops->get(ch, 0, dst, NULL, 101, &rk, (uint64_t)(uintptr_t)big, NULL), RDMACH_ERR_INVALID_ARG);
    cr_assert(strstr(rdmach_last_error(), "outside the registered"), "%s", rdmach_last_error());
    cr_assert_eq(ops->put(ch, 0, dst, NULL, 10, &rk, (uint64_t)(uintptr_t)big, NULL), RDMACH_ERR_INVALID_ARG);
    cr_assert(strstr(rdmach_last_error(), "remote write"), "%s", rdmach_last_error());
    cr_assert_eq(ops->get(ch, 1, dst, NULL, 10, &rk, (uint64_t)(uintptr_t)big, NULL), RDMACH_ERR_INVALID_ARG,
                 "an rkey of rank 0 used with rank 1 (not connected: connect fails first or the key check)");
    cr_assert_eq(ops->get(ch, 0, NULL, NULL, 10, &rk, (uint64_t)(uintptr_t)big, NULL), RDMACH_ERR_INVALID_ARG);
    ops->mem_dereg(ch, mr);
    free(big);
    ops->close(ch);
}
