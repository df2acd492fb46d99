/*
 * Peer liveness on shared memory: is the process of a local peer gone, or
 * stopped for longer than RDMACH_PEER_STOP_TIMEOUT?
 *
 * Nothing on the rings says that a peer died: its records simply stop. So
 * the channel asks the kernel, off the fast path (a peer in another pid
 * namespace, whose pid means nothing here: by the life line of its
 * segment instead, shm_proto.h, which its death marks; a stop of it goes
 * unseen):
 *   gone     one poll() over the pidfds of every connected peer (a pidfd
 *            turns readable when its process exits; where pidfd_open is
 *            missing, kill(pid, 0) and, for a zombie its launcher has not
 *            reaped yet, which kill still finds, its state letter);
 *   stopped  the state letter of /proc/<pid>/stat ('T'), per peer, at most
 *            every STOP_PERIOD_S: a stopped rank (SIGSTOP, a hang of the
 *            whole process) never answers, and from outside it cannot be
 *            told from one that computes, except by the kernel's word.
 *
 * When: rch_shm_live_check, at most every LIVE_PERIOD_S, from wait_arm (a
 * rank about to sleep on its futex; the device bounds each sleep, so a
 * sleeping waiter re-arms and checks at least every 100 ms), from a
 * progress pass that has been idle RCH_SHM_LIVENESS_IDLE times in a row (a
 * rank that polls: MPI_Test loops, MPI_THREAD_MULTIPLE waits), and at once
 * after a launcher's "a process failed" signal (base/proc.c). A sender
 * whose ring stays full checks its peer too (shm_msg.c). The fast path
 * (progress over empty rings, a send) makes no system call for it.
 *
 * A dead peer is marked here and reported from progress (report_dead in
 * shm_msg.c): first the records it sent before dying, then its transfers
 * fail and the device hears peer_failed(rank). A peer whose process is gone
 * after it closed its channel (the departed flag of its segment, set by
 * shm_close at the end of its finalize) left normally: the same, but the
 * device hears peer_left(rank), and nobody is warned.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>
#include "base/base.h"
#include "base/log.h"
#include "base/tunables.h"
#include "rdma/shm/shm.h"

#define LIVE_PERIOD_S 0.05   /* gone: well under the 2 s a waiter should need to hear of a death */
#define STOP_PERIOD_S 0.2    /* stopped: an open/read/close per peer, so less often */

/* Did p close its channel (shm_close) before its process went? A rank that
 * finished MPI_Finalize's exchange exits while others may still poll in
 * theirs (a parent of the exchange's tree is gone before its last child
 * reads the message it left): that is its normal end. Its segment stays
 * mapped here until we close, so the flag can be read after its exit. */
static int departed(const struct rch_shm_peer *p)
{
    return p->segp && p->segp->hdr &&
           atomic_load_explicit(&p->segp->hdr->departed, memory_order_acquire) != 0;
}

/* Did p end the whole job by an abort (announce_abort in shm_chan.c)
 * before its process went? Then its exit is that abort: the launcher is
 * ending every process with its code. */
static int aborted(const struct rch_shm_peer *p, int *code)
{
    if (!p->segp || !p->segp->hdr || !atomic_load_explicit(&p->segp->hdr->aborting, memory_order_acquire))
        return 0;
    *code = p->segp->hdr->abort_code;
    return 1;
}

void rch_shm_peer_mark_dead(struct rch_rdma_chan *ch, struct rch_shm_peer *p, rdmach_status_t why)
{
    if (p->state == RCH_SHM_PEER_DEAD)
        return;
    p->state = RCH_SHM_PEER_DEAD;
    p->dead_status = why;
    ch->ndead_pending++;
    p->left = why == RDMACH_ERR_PEER_DEAD && departed(p);
    int code;
    if (p->left) {
        RCH_DEBUG("shm", "rank %d (pid %d) finished and exited", p->rank, (int)p->pid);
    } else if (why == RDMACH_ERR_PEER_DEAD && aborted(p, &code)) {
        p->aborted = 1;
        rch_base_abort_seen(code);
        RCH_INFO("shm", "rank %d (pid %d) ended the job by an abort with exit code %d", p->rank, (int)p->pid, code);
    } else if (why == RDMACH_ERR_PEER_DEAD)
        RCH_WARN("shm", "rank %d (pid %d%s) %s", p->rank, (int)p->pid, p->pid_local ? "" : " in another pid namespace",
                 p->stopped_since > 0 ? "is stopped (counted as failed: RDMACH_PEER_STOP_TIMEOUT)" : "died");
    else
        RCH_ERROR("shm", "rank %d: channel broken (%s)", p->rank, rdmach_strerror(why));
}

/* Watched: by its process (pidfd, kill, /proc) where its pid means
 * something here, else (another pid namespace) by the life line of its
 * segment alone. */
static int watched(const struct rch_rdma_chan *ch, const struct rch_shm_peer *p)
{
    return rch_shm_peer_mapped(p) && p->rank != ch->rank && (!p->pid_local || p->pid > 0);
}

int rch_shm_peer_check_dead(struct rch_rdma_chan *ch, struct rch_shm_peer *p)
{
    if (p->state == RCH_SHM_PEER_DEAD)
        return 1;
    if (!watched(ch, p))
        return 0;
    int gone;
    if (!p->pid_local) {
        gone = !rch_shm_seg_owner_alive(p->segp);
    } else if (p->pidfd >= 0) {
        struct pollfd pf = { .fd = p->pidfd, .events = POLLIN };
        gone = poll(&pf, 1, 0) > 0 && (pf.revents & (POLLIN | POLLHUP | POLLERR));
    } else {   /* a zombie (exited, not yet reaped by its launcher) still answers kill(pid, 0) */
        gone = (kill(p->pid, 0) != 0 && errno == ESRCH) || rch_base_proc_stopped(p->pid) < 0;
    }
    if (gone)
        rch_shm_peer_mark_dead(ch, p, RDMACH_ERR_PEER_DEAD);
    return gone;
}

int rch_shm_peer_gone(struct rch_rdma_chan *ch, int peer)
{
    struct rch_shm_peer *p = rch_shm_peer_get(ch, peer);
    return p && rch_shm_peer_check_dead(ch, p);
}

static void poll_pidfds(struct rch_rdma_chan *ch, struct pollfd *pf, const int *who, int n)
{
    if (n > 0 && poll(pf, (nfds_t)n, 0) > 0)
        for (int k = 0; k < n; k++)
            if (pf[k].revents & (POLLIN | POLLHUP | POLLERR))
                rch_shm_peer_mark_dead(ch, &ch->peers[who[k]], RDMACH_ERR_PEER_DEAD);
}

/* Every watched peer with a pidfd in one poll() (per 64); the others by kill(pid, 0). */
static void check_gone(struct rch_rdma_chan *ch)
{
    struct pollfd pf[64];
    int who[64], n = 0;
    for (int i = 0; i < ch->npeers; i++) {
        struct rch_shm_peer *p = &ch->peers[i];
        if (!watched(ch, p))
            continue;
        if (p->pidfd < 0) {
            rch_shm_peer_check_dead(ch, p);
            continue;
        }
        pf[n] = (struct pollfd){ .fd = p->pidfd, .events = POLLIN };
        who[n++] = i;
        if (n == (int)RCH_ARRAY_SIZE(pf)) {
            poll_pidfds(ch, pf, who, n);
            n = 0;
        }
    }
    poll_pidfds(ch, pf, who, n);
}

/* A peer stopped since before now - RDMACH_PEER_STOP_TIMEOUT counts as failed.
 * Only while we watched it all along: after a gap in our own checks (we
 * computed, or the whole job was suspended and resumed) a stop seen before
 * says nothing, and the count starts again. */
static void check_stopped(struct rch_rdma_chan *ch, double now)
{
    double limit = rch_tun.peer_stop_timeout / 1000.0;
    int gap = now - ch->stop_last > limit / 2 + 2 * STOP_PERIOD_S;
    ch->stop_last = now;
    for (int i = 0; i < ch->npeers; i++) {
        struct rch_shm_peer *p = &ch->peers[i];
        if (!watched(ch, p) || !p->pid_local)   /* another namespace's /proc is not ours to read */
            continue;
        int s = rch_base_proc_stopped(p->pid);
        if (s < 0) {
            rch_shm_peer_mark_dead(ch, p, RDMACH_ERR_PEER_DEAD);
        } else if (s == 0 || gap) {
            p->stopped_since = s == 0 ? 0 : now;
        } else if (p->stopped_since == 0) {
            p->stopped_since = now;
        } else if (now - p->stopped_since >= limit) {
            rch_base_err(RDMACH_ERR_PEER_DEAD, "shm: rank %d (pid %d) has been stopped for %.1f s", p->rank,
                         (int)p->pid, now - p->stopped_since);
            rch_shm_peer_mark_dead(ch, p, RDMACH_ERR_PEER_DEAD);
        }
    }
}

void rch_shm_live_check(struct rch_rdma_chan *ch)
{
    double now = rch_base_wtime();
    unsigned alerts = rch_base_alerts();
    if (now < ch->live_next && alerts == ch->live_alerts)
        return;
    ch->live_next = now + LIVE_PERIOD_S;
    ch->live_alerts = alerts;
    check_gone(ch);
    if (rch_tun.peer_stop_timeout > 0 && now >= ch->stop_next) {
        ch->stop_next = now + STOP_PERIOD_S;
        check_stopped(ch, now);
    }
}
