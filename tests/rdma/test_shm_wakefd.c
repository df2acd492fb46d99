/*
 * The eventfd a rank sleeps on beside other channels' fds (shm_wakefd.c):
 * a wait armed with want_fd hands over an fd, not the futex; a record sent
 * to the sleeper makes that fd readable; a sender that cannot take a copy
 * of it (here: the header names a pipe, not an eventfd) marks the header,
 * wakes the futex, and the next wait is on the futex.
 */
#include <criterion/criterion.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>
#include "base/base.h"
#include "rdma/shm/shm.h"
#include "shm_harness.h"

struct wpkt {
    int32_t src;
    uint32_t seq;
};

struct wrx {
    int got, bad;
};

static void wrx_recv(struct h_rank *h, int peer, const void *pkt, size_t len)
{
    struct wrx *rs = h->user;
    struct wpkt p;
    if (len != sizeof(p) || (memcpy(&p, pkt, sizeof(p)), p.src != peer))
        rs->bad++;
    else
        rs->got++;
}

static rdmach_status_t wsend(struct h_rank *h, int peer)
{
    struct wpkt p = { .src = h->rank, .seq = 1 };
    return h_send(h, peer, &p, sizeof(p), NULL, 0);
}

/* wait_arm once the channel is quiet (AGAIN: it has work, such as the
 * connection's records: progress, and again). */
static rdmach_status_t arm_quiet(struct h_rank *h, struct rch_rdma_wait *w)
{
    rdmach_status_t st = RDMACH_AGAIN;
    for (int i = 0; i < 100000 && st == RDMACH_AGAIN; i++) {
        while (h->ops->progress(h->ch, 64) > 0)
            ;
        st = h->ops->wait_arm(h->ch, w);
    }
    return st;
}

/* Rank 0 arms with want_fd and sleeps in poll() on the fd it got; rank 1
 * sends after the barrier, so it finds rank 0 armed. `broken`: rank 0's
 * header names a pipe of its own instead of its eventfd. */
static int sleep_on_fd(struct h_rank *h, int broken)
{
    struct wrx rs = { 0 };
    h->user = &rs;
    h->on_recv = wrx_recv;
    struct rch_rdma_wait w = { .fd = -1, .want_fd = 1 };
    if (h->rank == 0) {
        if (broken)
            h->ch->seg.hdr->wake_fd = h->to_parent;
        H_CHECK(arm_quiet(h, &w) == RDMACH_OK, "wait_arm");
        H_CHECK(w.fd >= 0 && w.futex == NULL, "armed with want_fd: fd %d, futex %p", w.fd, (void *)w.futex);
    }
    H_CHECK(h_barrier(h) == 0, "barrier");
    if (h->rank == 1)
        H_CHECK(wsend(h, 0) == RDMACH_OK, "send");
    if (h->rank == 0) {
        struct pollfd pf = { .fd = w.fd, .events = POLLIN };
        /* woken: at once; broken: nobody writes it, so this sleep times out */
        int r = poll(&pf, 1, broken ? 1000 : 30000);
        h->ops->wait_disarm(h->ch);
        if (!broken) {
            H_CHECK(r == 1 && (pf.revents & POLLIN), "the send did not make the eventfd readable (poll %d)", r);
        } else {
            H_CHECK(r == 0, "the eventfd became readable (poll %d) though the sender could not reach it", r);
            H_CHECK(atomic_load(&h->ch->seg.hdr->wake_fd_failed) == 1, "wake_fd_failed not raised");
            struct rch_rdma_wait w2 = { .fd = -1, .want_fd = 1 };
            rdmach_status_t st = h->ops->wait_arm(h->ch, &w2);   /* AGAIN: the record is there */
            if (st == RDMACH_OK) {
                H_CHECK(w2.fd < 0 && w2.futex != NULL, "after the failure: fd %d, futex %p", w2.fd, (void *)w2.futex);
                h->ops->wait_disarm(h->ch);
            }
            H_CHECK(st == RDMACH_OK || st == RDMACH_AGAIN, "second wait_arm: %d", st);
        }
        H_CHECK(h_progress_until(h, &rs.got, 20) == 0 && rs.bad == 0, "the record: %d, %d bad", rs.got, rs.bad);
    }
    return h_barrier(h);
}

static int body_woken(struct h_rank *h, void *arg)
{
    (void)arg;
    return sleep_on_fd(h, 0);
}

static int body_broken(struct h_rank *h, void *arg)
{
    (void)arg;
    return sleep_on_fd(h, 1);
}

/* Alone (no want_fd) a wait is on the futex, as before. */
static int body_futex_alone(struct h_rank *h, void *arg)
{
    (void)arg;
    if (h->rank == 0) {
        struct rch_rdma_wait w = { .fd = -1 };
        H_CHECK(arm_quiet(h, &w) == RDMACH_OK, "wait_arm");
        H_CHECK(w.fd < 0 && w.futex != NULL, "without want_fd: fd %d, futex %p", w.fd, (void *)w.futex);
        h->ops->wait_disarm(h->ch);
    }
    return h_barrier(h);
}

Test(shm_wakefd, a_send_wakes_a_sleeper_on_its_eventfd, .timeout = 90)
{
    struct h_opts o = { .n = 2 };
    cr_assert_eq(h_run("wakefd", &o, body_woken, NULL), 0);
}

Test(shm_wakefd, a_sender_that_cannot_reach_it_falls_back_to_the_futex, .timeout = 90)
{
    struct h_opts o = { .n = 2 };
    cr_assert_eq(h_run("wakefdbad", &o, body_broken, NULL), 0);
}

Test(shm_wakefd, without_want_fd_the_futex, .timeout = 60)
{
    struct h_opts o = { .n = 2 };
    cr_assert_eq(h_run("wakefdfx", &o, body_futex_alone, NULL), 0);
}
