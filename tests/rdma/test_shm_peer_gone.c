/*
 * The shared-memory channel's peer_gone op (src/rdma/shm/shm_live.c), the
 * direct question the accumulate lock's waiter asks about a holder
 * (src/device/rma_acclock.c) where it cannot run progress. Here nothing
 * else looks: the asking rank never runs progress (nor the liveness round
 * it runs) before peer_gone says the peer is gone, so only peer_gone can
 * find the death; progress afterwards reports it, once.
 *
 * Three ranks: rank 1 dies (_exit, no close); rank 0 asks about it until
 * the answer is yes (a hang is the failure: the harness's deadline), and
 * about rank 2, alive, and itself and ranks out of range (all no); rank 2
 * stays alive until peer_gone tells it rank 0 has ended. The harness reaps
 * no rank before all have ended, so a dead rank is a zombie meanwhile, as
 * one whose launcher has not reaped it yet: its pid still answers
 * kill(pid, 0). Asked through the pidfd, and without one (as where
 * pidfd_open is missing or refused), where a zombie must count as gone,
 * and as from another pid namespace (pid_local 0: the pid means nothing),
 * where only the life line of the peer's segment tells, for the dead rank
 * and for the live one (drills/death_pidns.cmake runs real namespaces).
 */
#include <criterion/criterion.h>
#include <unistd.h>
#include "base/base.h"
#include "rdma/shm/shm.h"
#include "shm_harness.h"

/* peer_gone(peer) until it says yes or 20 s pass; 0 when it did. */
static int until_gone(struct h_rank *h, int peer)
{
    double t0 = rch_base_wtime();
    while (!h->ops->peer_gone(h->ch, peer))
        if (rch_base_wtime() - t0 > 20)
            return -1;
    return 0;
}

static int body_gone(struct h_rank *h, void *arg)
{
    int no_pidfd = *(const int *)arg;   /* 2: and as in another pid namespace */
    if (h->rank == 1)
        _exit(0);   /* no close: as a crash */
    if (h->rank == 2)
        return until_gone(h, 0) == 0 ? 0 : (fprintf(stderr, "rank 2: rank 0's end never seen\n"), 1);
    struct rch_shm_peer *p = rch_shm_peer_get(h->ch, 1);
    H_CHECK(p && rch_shm_peer_mapped(p), "rank 1 mapped (state %d)", p ? p->state : -1);
    for (int r = 1; no_pidfd && r <= 2; r++) {
        struct rch_shm_peer *q = rch_shm_peer_get(h->ch, r);
        if (q->pidfd >= 0)
            close(q->pidfd);
        q->pidfd = -1;
        q->pid_local = no_pidfd < 2;
    }
    H_CHECK(until_gone(h, 1) == 0, "peer_gone never found rank 1 dead (pidfd %d)", p->pidfd);
    H_CHECK(h->nfailed == 0, "the death was reported before progress ran");
    H_CHECK(!h->ops->peer_gone(h->ch, 2), "rank 2 is alive");
    H_CHECK(!h->ops->peer_gone(h->ch, 0), "asked about itself");
    H_CHECK(!h->ops->peer_gone(h->ch, -1) && !h->ops->peer_gone(h->ch, 3), "ranks out of range");
    H_CHECK(h->ops->peer_gone(h->ch, 1), "asked again: still gone");
    h->ops->progress(h->ch, 64);
    H_CHECK(h->nfailed == 1 && h->failed_peer == 1 && h->failed_status == RDMACH_ERR_PEER_DEAD,
            "progress reports rank 1 failed once (%d reports, peer %d, status %d)", h->nfailed, h->failed_peer,
            h->failed_status);
    h->ops->progress(h->ch, 64);
    H_CHECK(h->nfailed == 1, "reported once");
    return 0;
}

Test(shm_peer_gone, finds_a_dead_peer_through_its_pidfd, .timeout = 60)
{
    struct h_opts o = { .n = 3 };
    int no_pidfd = 0;
    cr_assert_eq(h_run("gonefd", &o, body_gone, &no_pidfd), 0);
}

Test(shm_peer_gone, finds_a_dead_unreaped_peer_without_a_pidfd, .timeout = 60)
{
    struct h_opts o = { .n = 3 };
    int no_pidfd = 1;
    cr_assert_eq(h_run("gonekill", &o, body_gone, &no_pidfd), 0);
}

Test(shm_peer_gone, finds_a_dead_peer_of_another_pid_namespace_by_its_life_line, .timeout = 60)
{
    struct h_opts o = { .n = 3 };
    int as_other_ns = 2;
    cr_assert_eq(h_run("gonens", &o, body_gone, &as_other_ns), 0);
}
